"""JSON helpers of the browser table (``static/``): the choices of each house rule, the
ledger as JSON and hand descriptions.

Pure functions; the HTTP handlers in :mod:`gutskit.server.app` pick the room and return
their results. The browser never evaluates a hand itself: it asks the server, which uses
:mod:`gutskit.core.evaluation` under the room's ranking.

>>> rule_choices()["cards_per_hand"]
[2, 3]
>>> describe_hand("Qs Qh 7d", Rules())
{'cards': ['Qs', 'Qh', '7d'], 'category': 'pair', 'ranks': ['Q', '7'], \
'description': 'Pair of queens, seven kicker'}
"""

from __future__ import annotations

import io
import itertools
import typing
from collections.abc import Sequence
from typing import Any

import segno

from gutskit.core.cards import CardError, card_name, parse_cards
from gutskit.core.errors import GutsError
from gutskit.core.evaluation import _classify, evaluate
from gutskit.core.rules import Rules
from gutskit.server.exports import running_rows, who_pays_whom

__all__ = ["HandDescriptionError", "describe_hand", "invite_qr_svg", "ledger_json",
           "rule_choices"]

RANKS = "23456789TJQKA"


class HandDescriptionError(GutsError):
    """A hand to describe is not a valid hand under the room's rules (the message quotes
    it)."""


def rule_choices() -> dict[str, list[Any]]:
    """The allowed values of every house rule that takes one of a few values (the
    ``Literal`` fields of :class:`~gutskit.core.rules.Rules`), for the rule editor."""
    out: dict[str, list[Any]] = {}
    for name, field in Rules.model_fields.items():
        annotation = field.annotation
        if typing.get_origin(annotation) is typing.Literal:
            out[name] = list(typing.get_args(annotation))
    return out


def ledger_json(names: Sequence[str], buy_ins: Sequence[int], stacks: Sequence[int], *,
                final: bool, pot: int = 0, reserve: int = 0,
                carried: Sequence[tuple[str, int]] | None = None) -> dict[str, Any]:
    """The ledger of :func:`gutskit.server.exports.ledger_csv` as a JSON object: ``rows``
    (seat, name, buy_in, cash_out = the stack, net), ``transfers`` (payer, payee, chips;
    empty until the session is over, when the nets add up to zero) and the chips still in
    the ``pot`` and ``reserve``.

    >>> ledger_json(["Ana", "Ben"], [20, 20], [25, 15], final=True)["transfers"]
    [{'payer': 'Ben', 'payee': 'Ana', 'chips': 5}]

    ``carried`` (a rematch with the ledger carried,
    :func:`gutskit.server.exports.running_rows`): ``"carried": true``, each row gets
    ``carried`` and ``total``, a row (``seat`` ``null``, no chips this session) for each
    player of an earlier session not seated now, and the transfers settle the totals.

    >>> book = ledger_json(["Ana", "Ben"], [20, 20], [25, 15], final=True,
    ...                    carried=[("Ana", -8), ("Ben", 8)])
    >>> [(r["name"], r["net"], r["carried"], r["total"]) for r in book["rows"]]
    [('Ana', 5, -8, -3), ('Ben', -5, 8, 3)]
    >>> book["transfers"]
    [{'payer': 'Ana', 'payee': 'Ben', 'chips': 3}]
    """
    nets = [s - b for s, b in zip(stacks, buy_ins, strict=True)]
    rows: list[dict[str, Any]] = [
        {"seat": seat, "name": name, "buy_in": buy_in, "cash_out": stack, "net": net}
        for seat, (name, buy_in, stack, net)
        in enumerate(zip(names, buy_ins, stacks, nets, strict=True))]
    payers, owed = list(names), nets
    if carried is not None:
        running = running_rows(names, nets, carried)
        rows += [{"seat": None, "name": name, "buy_in": 0, "cash_out": 0, "net": 0}
                 for name, _, _ in running[len(names):]]
        for row, (_, before, total) in zip(rows, running, strict=True):
            row["carried"], row["total"] = before, total
        payers, owed = [r[0] for r in running], [r[2] for r in running]
    transfers = ([{"payer": a, "payee": b, "chips": c}
                  for a, b, c in who_pays_whom(payers, owed)] if final else [])
    book = {"final": final, "pot": pot, "reserve": reserve, "rows": rows,
            "transfers": transfers}
    if carried is not None:
        book["carried"] = True
    return book


def describe_hand(text: str, rules: Rules) -> dict[str, Any]:
    """Describe the hand ``text`` (``"As Kd 7c"``) under the room's ranking: its
    ``category`` (:attr:`gutskit.core.evaluation.Category.label`), the ``ranks`` that order it
    within the category (rank letters, most significant first), the English
    ``description``. A hand of one card more than ``cards_per_hand`` (own cards plus the
    community card, ``community_card``) is described by its best ``cards_per_hand`` cards
    (``cards`` says which).

    Raises:
        HandDescriptionError: not cards, a card twice, or a wrong number of cards.
    """
    n = rules.cards_per_hand
    try:
        cards = parse_cards(text)
        if len(cards) not in (n, n + 1):
            raise HandDescriptionError(
                f"hand {text!r} has {len(cards)} card{'' if len(cards) == 1 else 's'}; this "
                f"table plays {n}")
        ranking = rules.ranking
        best = max((evaluate(c, ranking) for c in itertools.combinations(cards, n)),
                   key=lambda v: v.key)
    except CardError as error:
        raise HandDescriptionError(f"hand {text!r}: {error}") from None
    category, ranks = _classify(best.cards, ranking.ace_low_straight)
    return {"cards": [card_name(c) for c in best.cards], "category": category.label,
            "ranks": [RANKS[r] for r in ranks], "description": best.description}


def invite_qr_svg(url: str) -> str:
    """The invite link ``url`` as a QR code (an SVG document, drawn by :mod:`segno`: error
    correction level M, 4 modules of quiet zone, dark modules black on white so phones read
    it on the dark table).

    >>> invite_qr_svg("http://127.0.0.1:8000/r/abc").startswith("<?xml")
    True
    """
    code = segno.make_qr(url, error="m")
    buffer = io.BytesIO()
    code.save(buffer, kind="svg", scale=4, border=4, dark="#000", light="#fff",
              title="gutskit invite")
    return buffer.getvalue().decode("utf-8")
