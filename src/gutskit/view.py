"""What one seat may know: the per-seat view of a state and of the hand history.

A seat sees its own cards; the other players' cards only when they were shown at a
showdown; never the cards of a player who was out (or won uncontested); the other
declarations only once they are revealed (or as they are made, under sequential
declaration). Bots decide from a :class:`SeatView` alone, and every front end (terminal,
server) sends a player nothing but their view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from gutskit import settlement
from gutskit.engine import GameState, Phase
from gutskit.events import (
    CardsDealt,
    Declaration,
    Declared,
    Event,
    Hand,
    RoundResolved,
    SessionStarted,
)
from gutskit.rules import Rules


@dataclass(frozen=True, slots=True)
class DeclarationSealed:
    """Another seat has declared; what it declared is hidden until the reveal. Appears only
    in a seat's redacted history (:func:`visible_events`)."""

    seat: int


class SeatView(NamedTuple):
    """Everything seat ``seat`` may know now. Per-seat tuples are indexed by seat.

    An immutable record (a named tuple: bots build and read thousands per second).

    Attributes:
        seat: whose view this is.
        hand: the seat's own cards this round (``None`` when not dealt in).
        declarations: declarations visible to this seat (own always; others' once revealed,
            or as made under sequential declaration); ``None`` where unknown.
        declared: which seats have declared this round (not what they declared).
        dealt_in: which seats hold cards this round.
        owed: what a loser would pay to match the current pot.
        last_result: the last round's public settlement (hands shown only at showdown).
    """

    seat: int
    rules: Rules
    names: tuple[str, ...]
    stacks: tuple[int, ...]
    eliminated: tuple[bool, ...]
    dealer: int
    pot: int
    reserve: int
    phase: Phase
    hand: Hand | None
    declarations: tuple[Declaration | None, ...]
    declared: tuple[bool, ...]
    dealt_in: tuple[bool, ...]
    round_number: int
    game_number: int
    owed: int
    last_result: RoundResolved | None

    @property
    def opponents(self) -> int:
        """Other players dealt in this round."""
        return sum(self.dealt_in) - (1 if self.dealt_in[self.seat] else 0)

    @property
    def my_turn(self) -> bool:
        """Whether this seat may declare now."""
        return (self.phase is Phase.DECLARE and self.hand is not None
                and not self.declared[self.seat])


def _sealed(rules: Rules) -> bool:
    return rules.declaration != "sequential"


def view_for(state: GameState, seat: int) -> SeatView:
    """The view of ``seat`` (0-based) of ``state``.

    Raises:
        IndexError: ``seat`` is not at the table.
    """
    if not 0 <= seat < state.n_seats:
        raise IndexError(f"seat {seat!r} is not at the table")
    return _views(state, (seat,))[0]


def joint_views(state: GameState) -> dict[int, SeatView]:
    """The views of every seat dealt in, for a simultaneous decision (shares the work)."""
    return dict(zip(state.dealt, _views(state, state.dealt), strict=True))


def _views(state: GameState, seats: tuple[int, ...]) -> list[SeatView]:
    declaring = state.phase is Phase.DECLARE
    sealed = _sealed(state.rules)
    n = state.n_seats
    nobody: tuple[Declaration | None, ...] = (None,) * n
    declared = tuple(d is not None for d in state.declarations)
    dealt_in = tuple(h is not None for h in state.hands)
    owed = settlement.match_amount(state.pot, state.rules)
    views = []
    for seat in seats:
        if not declaring:
            decls = nobody
        elif sealed:
            own = state.declarations[seat]
            decls = nobody if own is None else tuple(
                own if s == seat else None for s in range(n))
        else:
            decls = state.declarations
        views.append(SeatView(
            seat, state.rules, state.names, state.stacks, state.eliminated, state.dealer,
            state.pot, state.reserve, state.phase,
            state.hands[seat] if declaring else None,
            decls, declared, dealt_in, state.round_number, state.game_number, owed,
            state.last_result,
        ))
    return views


def visible_events(events: list[Event], seat: int) -> list[Event | DeclarationSealed]:
    """``seat``'s copy of a hand history: other seats' dealt cards are replaced by ``()``
    ("dealt, unseen") and, under sealed declaration, other seats' :class:`Declared`
    events become :class:`DeclarationSealed`. Showdown hands stay (they were shown)."""
    rules: Rules | None = None
    out: list[Event | DeclarationSealed] = []
    for event in events:
        if isinstance(event, SessionStarted):
            rules = event.rules
        if isinstance(event, CardsDealt):
            hands = tuple(h if s == seat or h is None else () for s, h in enumerate(event.hands))
            out.append(CardsDealt(hands=hands))
        elif (isinstance(event, Declared) and event.seat != seat
              and (rules is None or _sealed(rules))):
            out.append(DeclarationSealed(seat=event.seat))
        else:
            out.append(event)
    return out
