"""``guts verify``: check a room's deals from its revealed seeds.

Input: the room's ``fairness.json`` (``GET /api/rooms/<id>/fairness.json``: the algorithm,
whether the session is over, and per round the commitment published before the deal and,
once revealed, the seed) and optionally the hand history you downloaded
(``history.jsonl``, your own view).

The checks (any failure raises :class:`~gutskit.server.fairness.FairnessError`):

* the file is for ``gutskit-deck-v1`` and lists rounds 1 to N, each once, in order;
* every revealed seed gives the deck its commitment names
  (:func:`gutskit.server.fairness.deck_from_seed`); once the session is over every seed
  must be revealed;
* with a history: the history replays (:func:`gutskit.core.engine.evolve`), every round it
  deals has a commitment, every dealt hand it holds (your own hands) is the hand the
  seed's deck deals to that seat (:func:`gutskit.core.engine.hands_from_deck`), and every hand
  shown at a showdown is the hand dealt to that seat (after the exchange, under Pass the
  Trash: made of that round's dealt cards).

Input that cannot be read at all (not JSON, no ``"rounds"`` list, a record without a
round number and a commitment, an unreadable history) raises :class:`VerifyInputError`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gutskit.core import engine
from gutskit.core.cards import format_cards
from gutskit.core.engine import ConservationError, GameState
from gutskit.core.events import CardsDealt, CardsPassed, Event, Hand, RoundResolved, SessionEnded
from gutskit.core.history import HistoryError, event_from_dict
from gutskit.server.fairness import FairnessError, deck_names, verify_commitment

__all__ = ["ALGORITHM", "RoundCheck", "VerifyInputError", "load_visible_history",
           "verify_rounds"]

ALGORITHM = "gutskit-deck-v1"
"""The only deal algorithm this verifier knows (:mod:`gutskit.server.fairness`)."""


class VerifyInputError(ValueError):
    """Input ``guts verify`` cannot read (not JSON, wrong shape, unreadable history): a
    user mistake, not a failed check."""


@dataclass(frozen=True)
class RoundCheck:
    """The result for one round: ``status`` is ``"ok"`` or ``"unrevealed"``;
    ``cards_checked`` counts the cards compared with the history."""

    round: int
    status: str
    cards_checked: int
    top_cards: str


def load_visible_history(path: str | Path) -> list[Event]:
    """A downloaded hand history (JSON Lines); sealed declarations
    (``DeclarationSealed``) are skipped, unseen hands (``""``) read as ``()``.

    Raises:
        VerifyInputError: unreadable file or bad line (named).
    """
    events: list[Event] = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise VerifyInputError(f"cannot read hand history {str(path)!r}: {reason}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if isinstance(data, dict) and data.get("type") == "DeclarationSealed":
                continue
            events.append(event_from_dict(data))
        except (json.JSONDecodeError, HistoryError) as error:
            raise VerifyInputError(f"{path}:{number}: {error}") from None
    return events


@dataclass
class _HistoryRound:
    """What a history holds about one round."""

    before: GameState
    dealt: tuple[Hand | None, ...]
    passed: bool = False
    shown: tuple[Hand | None, ...] = ()
    held: list[Hand | None] = field(default_factory=list)
    """Each seat's hand in the replayed state when the round was resolved (``()`` when
    the history does not show it)."""


def _history_rounds(events: Sequence[Event]) -> tuple[dict[int, _HistoryRound], bool]:
    """Round number -> what the history holds about it; and whether the session ended.

    Raises:
        FairnessError: the history does not replay (a changed amount, a card that
            cannot be there: a tampered file).
    """
    rounds: dict[int, _HistoryRound] = {}
    state: GameState | None = None
    ended = False
    for index, event in enumerate(events, 1):
        current = rounds.get(state.round_number) if state is not None else None
        if isinstance(event, CardsDealt) and state is not None:
            rounds[state.round_number + 1] = _HistoryRound(state, tuple(event.hands))
        elif isinstance(event, CardsPassed) and current is not None:
            current.passed = True
        elif isinstance(event, RoundResolved) and current is not None and state is not None:
            current.shown = tuple(event.shown)
            current.held = list(state.hands)
        elif isinstance(event, SessionEnded):
            ended = True
        try:
            state = engine.evolve(state, event)
        except (ValueError, ConservationError) as error:
            raise FairnessError(f"the hand history does not replay at event {index} "
                                f"({type(event).__name__}): {error}") from None
    return rounds, ended


def _check_shown(number: int, known: _HistoryRound, expected: tuple[Hand | None, ...] | None
                 ) -> int:
    """Check the hands shown at round ``number``'s showdown against the dealt hands
    (the history's, and the seed's when ``expected`` is given); the cards compared."""
    checked = 0
    names = known.before.names
    dealt_cards = {c for h in (expected or ()) if h for c in h}
    for seat, shown in enumerate(known.shown):
        if not shown:
            continue
        who = f"round {number}: seat {seat} ({names[seat]!r})"
        if known.passed:
            held = known.held[seat] if seat < len(known.held) else None
            if held and sorted(held) != sorted(shown):
                raise FairnessError(f"{who} showed {format_cards(shown)}, but held "
                                    f"{format_cards(held)}")
            if expected is not None and not set(shown) <= dealt_cards:
                raise FairnessError(f"{who} showed {format_cards(shown)}, cards the seed "
                                    "does not deal in this round")
        else:
            dealt = known.dealt[seat] if seat < len(known.dealt) else None
            if dealt and tuple(dealt) != tuple(shown):
                raise FairnessError(f"{who} was dealt {format_cards(dealt)} but showed "
                                    f"{format_cards(shown)}")
            want = expected[seat] if expected is not None else None
            if expected is not None and (want is None or tuple(want) != tuple(shown)):
                raise FairnessError(f"{who} showed {format_cards(shown)}, but the seed "
                                    f"deals {format_cards(want or ())}")
        if not (seat < len(known.dealt) and known.dealt[seat]):
            checked += len(shown)  # cards the dealt hands of the history did not show
    return checked


def _records(fairness: object) -> tuple[list[dict[str, Any]], bool]:
    """The validated round records and whether the file says the session is over.

    Raises:
        VerifyInputError: the shape is wrong.
        FairnessError: another algorithm, no rounds, a missing or repeated round.
    """
    records = fairness.get("rounds") if isinstance(fairness, dict) else None
    if not isinstance(fairness, dict) or not isinstance(records, list):
        raise VerifyInputError("a fairness file is a JSON object with a \"rounds\" list "
                               "(GET /api/rooms/<id>/fairness.json)")
    for record in records:
        if not isinstance(record, dict) or type(record.get("round")) is not int \
                or not isinstance(record.get("commitment"), str) \
                or not isinstance(record.get("seed"), str | None):
            raise VerifyInputError(f"bad fairness record {json.dumps(record)[:120]}: "
                                   "expected {\"round\": N, \"commitment\": \"...\", "
                                   "\"seed\": \"...\" or null}")
    algorithm = fairness.get("algorithm")
    if algorithm != ALGORITHM:
        raise FairnessError(f"algorithm {algorithm!r} is not {ALGORITHM!r}, the only one "
                            "this verifier checks")
    if not records:
        raise FairnessError("the fairness file lists no rounds: nothing to verify")
    numbers = [r["round"] for r in records]
    if numbers != list(range(1, len(numbers) + 1)):
        missing = sorted(set(range(1, max(max(numbers), 1) + 1)) - set(numbers))
        problem = (f"round {missing[0]} is missing" if missing
                   else "a round is listed twice or out of order")
        raise FairnessError(f"the rounds must be 1 to N in order, each once: {problem} "
                            f"(rounds {numbers[:12]})")
    over = fairness.get("session_over", False)
    if not isinstance(over, bool):
        raise VerifyInputError(f"\"session_over\" must be true or false, not {over!r}")
    return records, over


def verify_rounds(fairness: dict[str, Any], history: Sequence[Event] | None = None
                  ) -> list[RoundCheck]:
    """Check every round of ``fairness`` (the parsed ``fairness.json``) and, when given,
    every hand of ``history`` (see the module doc).

    Raises:
        VerifyInputError: ``fairness`` is not a fairness file.
        FairnessError: a check failed (the message names the round, the seat and the
            cards).
    """
    records, over = _records(fairness)
    rounds, ended = _history_rounds(history) if history is not None else ({}, False)
    over = over or ended
    missing = sorted(set(rounds) - {r["round"] for r in records})
    if missing:
        raise FairnessError(f"round {missing[0]} of the hand history has no commitment "
                            "in the fairness file")
    checks = []
    for record in records:
        number = record["round"]
        seed = record.get("seed")
        known = rounds.get(number)
        if seed is None:
            if over:
                raise FairnessError(f"round {number}: the session is over but its seed "
                                    "was not revealed")
            checked = _check_shown(number, known, None) if known is not None else 0
            checks.append(RoundCheck(number, "unrevealed", checked, ""))
            continue
        try:
            deck = verify_commitment(record["commitment"], seed)
        except FairnessError as error:
            raise FairnessError(f"round {number}: {error}") from None
        checked = 0
        if known is not None:
            expected = engine.hands_from_deck(known.before, deck)
            for seat, hand in enumerate(known.dealt):
                if (hand is None) != (expected[seat] is None):
                    raise FairnessError(f"round {number}: seat {seat} dealt in/out differs "
                                        "from the deal the seed gives")
                want = expected[seat]
                if hand and want is not None:
                    if tuple(hand) != tuple(want):
                        raise FairnessError(
                            f"round {number}: seat {seat} ({known.before.names[seat]!r}) "
                            f"holds {format_cards(hand)}, but the seed deals "
                            f"{format_cards(want)}")
                    checked += len(hand)
            checked += _check_shown(number, known, expected)
        checks.append(RoundCheck(number, "ok", checked, " ".join(deck_names(deck)[:6])))
    return checks
