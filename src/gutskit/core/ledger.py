"""The session ledger: each player's buy-in, final stack and net (RULES.md "Money, limits,
ending": "A ledger shows each player's buy-ins, final stack and net").

A pure function of a :class:`~gutskit.core.engine.GameState`; call it after
:func:`gutskit.core.engine.end_session` so the pot and any reserve have been shared out and the
nets add up to zero (for a table that started with an empty pot). Chips are integers.

>>> from gutskit.core.engine import end_session, new_session
>>> state, _ = end_session(new_session(["Ana", "Ben"], [30, 20]))
>>> for line in ledger(state):
...     print(line.name, line.buy_in, line.stack, line.net)
Ana 30 30 0
Ben 20 20 0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gutskit.core.engine import GameState

__all__ = ["LedgerLine", "carry", "ledger", "session_winners"]


@dataclass(frozen=True, slots=True)
class LedgerLine:
    """One player's line of the ledger.

    Attributes:
        seat: the player's seat (clockwise, 0-based).
        name: the player's name.
        buy_in: chips brought to the table.
        stack: chips in front of the player now (negative only under ``shortfall = "debt"``:
            an IOU to settle from the ledger).
        net: ``stack - buy_in``: won (+) or lost (-) over the session.
        eliminated: the player was eliminated (``shortfall = "eliminate"``), sat out, or
            left the table.
        left: the player left the table or was removed (:mod:`gutskit.core.table`); its
            chips stay in the ledger.
    """

    seat: int
    name: str
    buy_in: int
    stack: int
    net: int
    eliminated: bool
    left: bool = False


def ledger(state: GameState) -> list[LedgerLine]:
    """The ledger of ``state``, one line per seat in seat order."""
    return [
        LedgerLine(seat=seat, name=name, buy_in=buy_in, stack=stack, net=stack - buy_in,
                   eliminated=out, left=bool(state.left) and state.left[seat])
        for seat, (name, buy_in, stack, out) in enumerate(
            zip(state.names, state.buy_ins, state.stacks, state.eliminated, strict=True))
    ]


def session_winners(state: GameState) -> list[str]:
    """The session winners: the player(s) with the most chips (RULES.md "Session winner: the
    most chips")."""
    best = max(state.stacks)
    return [name for name, stack in zip(state.names, state.stacks, strict=True)
            if stack == best]


def carry(earlier: Sequence[tuple[str, int]], lines: Sequence[LedgerLine]
          ) -> tuple[tuple[str, int], ...]:
    """The running ledger over sessions (a rematch with the ledger carried): each player's
    net over the ``earlier`` sessions plus this session's (``lines``), by name, in the
    order the players first appear. A player of an earlier session who is not in this one
    keeps its line. Nothing is created or destroyed: when the ``earlier`` nets and the
    session's nets each add up to zero, so do the carried ones.

    >>> session = [LedgerLine(0, "Ana", 20, 27, 7, False), LedgerLine(1, "Ben", 20, 13, -7, False)]
    >>> carry((("Ana", -3), ("Cleo", 3)), session)
    (('Ana', 4), ('Cleo', 3), ('Ben', -7))
    """
    nets = dict(earlier)
    for line in lines:
        nets[line.name] = nets.get(line.name, 0) + line.net
    return tuple(nets.items())
