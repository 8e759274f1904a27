"""Hand-history events: frozen records of every change to a session.

The hand history *is* the event log: :func:`gutskit.engine.replay` rebuilds any state from
it. Seats are indices in clockwise order; per-seat tuples are indexed by seat. Chips are
integers.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TypeAlias

from gutskit.cards import Card
from gutskit.rules import Rules


class Declaration(enum.Enum):
    """A player's declaration (RULES.md "Antes, declaration, resolution", step 3)."""

    IN = "in"
    OUT = "out"


class Outcome(enum.Enum):
    """How a round was resolved (RULES.md step 4)."""

    VOID = "void"
    """Nobody in: the deal is played again (``all_out``)."""
    UNCONTESTED = "uncontested"
    """Exactly one in: that player takes the whole pot without showing or matching."""
    SHOWDOWN = "showdown"
    """Two or more in: the best hand wins, every other player in matches the pot."""


Hand: TypeAlias = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SessionStarted:
    """The table sits down: names clockwise, starting stacks (the buy-ins), first dealer,
    the starting pot and reserve (normally 0), and the rules."""

    rules: Rules
    names: tuple[str, ...]
    stacks: tuple[int, ...]
    dealer: int
    pot: int = 0
    reserve: int = 0


@dataclass(frozen=True, slots=True)
class AntesPosted:
    """Antes for the coming deal. ``amounts[seat]`` left each stack; ``refill`` chips moved
    from the reserve to the pot first (``pot_cap_mode = "reserve"``); ``new_game`` is true
    when the pot was empty."""

    amounts: tuple[int, ...]
    refill: int
    new_game: bool


@dataclass(frozen=True, slots=True)
class CardsDealt:
    """Each seat's hand, or ``None`` for a seat not dealt in. Secret: a seat's view shows
    only its own hand."""

    hands: tuple[Hand | None, ...]


@dataclass(frozen=True, slots=True)
class Declared:
    """One seat's declaration. Sealed until :class:`DeclarationsRevealed` unless the
    declaration is sequential."""

    seat: int
    declaration: Declaration


@dataclass(frozen=True, slots=True)
class DeclarationsRevealed:
    """All declarations shown at once (the fists open)."""

    declarations: tuple[Declaration | None, ...]


@dataclass(frozen=True, slots=True)
class RoundResolved:
    """The settlement of a round (RULES.md step 4-5, "Money, limits, ending").

    Attributes:
        outcome: void, uncontested or showdown.
        shown: the hands shown at a showdown (``None`` for every other seat and for every
            seat in a void or uncontested round).
        winners: the seats that took (a share of) the pot.
        won: chips each seat took from the pot.
        matched: chips each seat paid into the next pot (its match).
        eliminated: seats eliminated this round (``shortfall = "eliminate"``).
        to_reserve: chips moved from the pot to the reserve (``pot_cap_mode = "reserve"``).
        pot_after: the pot after the round (carry-over + matches, capped).
        next_dealer: the dealer of the next round.
        session_over: the session ends with this round (``end_on_uncontested``, or fewer
            than two players left in play).
    """

    outcome: Outcome
    shown: tuple[Hand | None, ...]
    winners: tuple[int, ...]
    won: tuple[int, ...]
    matched: tuple[int, ...]
    eliminated: tuple[int, ...]
    to_reserve: int
    pot_after: int
    next_dealer: int
    session_over: bool


@dataclass(frozen=True, slots=True)
class SessionEnded:
    """The session stops. ``payouts[seat]`` is that seat's share of what was left in the
    pot and the reserve (shared evenly among the players still seated, odd chips clockwise
    from the dealer's left)."""

    reason: str
    payouts: tuple[int, ...]


Event: TypeAlias = (
    SessionStarted | AntesPosted | CardsDealt | Declared | DeclarationsRevealed
    | RoundResolved | SessionEnded
)
"""Any hand-history event."""
