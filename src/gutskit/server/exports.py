"""Room exports: the ledger as CSV, the hand history as JSON Lines, the fairness records.

Pure functions of a room's state and events; the HTTP handlers in :mod:`gutskit.server.app`
only pick the recipient (a seat token, or a spectator) and return the text.

>>> print(ledger_csv(["Ana", "Ben", "Cleo"], [20, 20, 20], [35, 5, 20], final=True), end="")
seat,name,buy_in,cash_out,net
0,Ana,20,35,15
1,Ben,20,5,-15
2,Cleo,20,20,0
<BLANKLINE>
payer,payee,chips
Ben,Ana,15
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from gutskit.core.payments import settle_up

__all__ = ["csv_cell", "history_jsonl", "ledger_csv", "running_rows", "who_pays_whom"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
"""What a spreadsheet may read as the start of a formula (OWASP, "CSV Injection")."""


def csv_cell(value: object) -> object:
    """A text cell that a spreadsheet would take for a formula, prefixed with ``'`` so it
    shows as text (numbers are left as they are: a net of ``-15`` stays a number).

    >>> print(csv_cell("=HYPERLINK(A1)"), csv_cell("Ana"), csv_cell(-15))
    '=HYPERLINK(A1) Ana -15
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def who_pays_whom(names: Sequence[str], nets: Sequence[int]) -> list[tuple[str, str, int]]:
    """``(payer, payee, chips)`` transfers that settle the nets, fewest first
    (:func:`gutskit.core.payments.settle_up`; names must be distinct).

    >>> who_pays_whom(["Ana", "Ben", "Cleo"], [1, -5, 4])
    [('Ben', 'Cleo', 4), ('Ben', 'Ana', 1)]

    Raises:
        gutskit.core.payments.SettleUpError: the nets do not add up to zero.
    """
    return [(p.payer, p.payee, p.chips)
            for p in settle_up(dict(zip(names, nets, strict=True)))]


def running_rows(names: Sequence[str], nets: Sequence[int],
                 carried: Sequence[tuple[str, int]]) -> list[tuple[str, int, int]]:
    """The running ledger of a rematch with the ledger carried: ``(name, carried, total)``
    per player, the session's seats first (``carried``: the net of the earlier sessions,
    ``total``: carried + this session's net), then the players of earlier sessions who
    are not seated in this one (their total is what they carried).

    >>> running_rows(["Ana", "Ben"], [5, -5], [("Ana", -2), ("Cleo", 2)])
    [('Ana', -2, 3), ('Ben', 0, -5), ('Cleo', 2, 2)]
    """
    before = dict(carried)
    rows = [(name, before.get(name, 0), before.get(name, 0) + net)
            for name, net in zip(names, nets, strict=True)]
    rows += [(name, net, net) for name, net in carried if name not in names]
    return rows


def ledger_csv(names: Sequence[str], buy_ins: Sequence[int], stacks: Sequence[int], *,
               final: bool, pot: int = 0, reserve: int = 0,
               carried: Sequence[tuple[str, int]] | None = None) -> str:
    """The ledger as CSV (written with :mod:`csv`): one line per seat (seat, name, buy-in,
    cash-out = the stack, net), then a blank line and the settlement ("who pays whom":
    the fewest transfers, :func:`gutskit.core.payments.settle_up`).

    While the session is in play (``final`` false) the settlement section holds one line
    saying so, with the chips still in the pot and reserve. Every text cell goes through
    :func:`csv_cell` (no name is read as a formula).

    ``carried`` (a rematch with the ledger carried, :func:`running_rows`): two more
    columns, ``carried`` and ``total``, a line for each player of an earlier session who
    is not seated now (empty seat), and the settlement of the totals.

    >>> print(ledger_csv(["=1+2", "@Ben"], [5, 5], [6, 4], final=True), end="")
    seat,name,buy_in,cash_out,net
    0,'=1+2,5,6,1
    1,'@Ben,5,4,-1
    <BLANKLINE>
    payer,payee,chips
    '@Ben,'=1+2,1
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")

    def write(row: Sequence[object]) -> None:
        writer.writerow([csv_cell(cell) for cell in row])

    nets = [s - b for s, b in zip(stacks, buy_ins, strict=True)]
    if carried is None:
        write(["seat", "name", "buy_in", "cash_out", "net"])
        for seat, (name, buy_in, stack, net) in enumerate(zip(names, buy_ins, stacks, nets,
                                                              strict=True)):
            write([seat, name, buy_in, stack, net])
        payers, owed = list(names), nets
    else:
        write(["seat", "name", "buy_in", "cash_out", "net", "carried", "total"])
        running = running_rows(names, nets, carried)
        for seat, (name, before, total) in enumerate(running):
            if seat < len(names):
                write([seat, name, buy_ins[seat], stacks[seat], nets[seat], before, total])
            else:
                write(["", name, 0, 0, 0, before, total])
        payers, owed = [r[0] for r in running], [r[2] for r in running]
    write([])
    write(["payer", "payee", "chips"])
    if final:
        for payer, payee, chips in who_pays_whom(payers, owed):
            write([payer, payee, chips])
    else:
        write(["(session in play)", f"pot {pot}, reserve {reserve}", ""])
    return out.getvalue()


def history_jsonl(events: Sequence[dict[str, Any]]) -> str:
    """Events (already filtered for the recipient) as JSON Lines."""
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)
