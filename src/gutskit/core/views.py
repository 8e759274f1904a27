"""What one seat may know: the per-seat view of a state and of the hand history.

A seat sees its own cards (under No Peek not even those until the reveal); the other
players' cards only when they were shown at a showdown; never the cards of a player who was
out (or won uncontested); the other declarations only once they are revealed (or as made,
under sequential declaration); the ghost hand only at the showdown and the community card
only once it is turned (both in the round's :class:`~gutskit.core.events.RoundResolved`); of the
passed cards (Pass the Trash) only the one it passed and the one it received. Bots decide
from a :class:`SeatView` alone, and every front end (terminal, server) sends a player
nothing but their view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from gutskit.core import settlement
from gutskit.core.cards import Card
from gutskit.core.engine import GameState, Phase
from gutskit.core.events import (
    CardsDealt,
    CardsPassed,
    Declaration,
    Declared,
    Event,
    Hand,
    PassChosen,
    RoundResolved,
    SessionStarted,
)
from gutskit.core.rules import Rules
from gutskit.variants import variants_for
from gutskit.variants.pass_the_trash import givers as pass_givers


@dataclass(frozen=True, slots=True)
class DeclarationSealed:
    """Another seat has declared; what it declared is hidden until the reveal. Appears only
    in a seat's redacted history (:func:`visible_events`)."""

    seat: int


@dataclass(frozen=True, slots=True)
class PassSealed:
    """Another seat has chosen the card it passes (Pass the Trash); which card is hidden.
    Appears only in a seat's redacted history (:func:`visible_events`)."""

    seat: int


@dataclass(frozen=True, slots=True)
class PassSeen:
    """A seat's share of the exchange of passed cards (Pass the Trash): the card it passed
    and the card it received (``None`` for a seat not dealt in). Replaces
    :class:`~gutskit.core.events.CardsPassed` in a seat's redacted history."""

    seat: int
    passed: Card | None
    received: Card | None


class SeatView(NamedTuple):
    """Everything seat ``seat`` may know now. Per-seat tuples are indexed by seat.

    An immutable record (a named tuple: bots build and read thousands per second).

    Attributes:
        seat: whose view this is.
        hand: the seat's own cards this round (``None`` when not dealt in; ``()`` while
            unseen under ``no_peek``); after Pass the Trash, the hand after the exchange.
        declarations: declarations visible to this seat (own always; others' once revealed,
            or as made under sequential declaration); ``None`` where unknown.
        declared: which seats have declared this round (not what they declared).
        dealt_in: which seats hold cards this round.
        owed: what a loser would pay to match the current pot.
        last_result: the last round's public settlement (hands shown only at showdown).
        passed: Pass the Trash: the card this seat passes (once chosen).
        received: Pass the Trash: the card this seat received (after the exchange).
        passes_chosen: Pass the Trash: which seats have chosen their card (not which).
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
    passed: Card | None = None
    received: Card | None = None
    passes_chosen: tuple[bool, ...] = ()

    @property
    def opponents(self) -> int:
        """Other players dealt in this round."""
        return sum(self.dealt_in) - (1 if self.dealt_in[self.seat] else 0)

    @property
    def my_turn(self) -> bool:
        """Whether this seat may declare now."""
        return (self.phase is Phase.DECLARE and self.hand is not None
                and not self.declared[self.seat])

    @property
    def must_pass(self) -> bool:
        """Pass the Trash: whether this seat must choose the card it passes now."""
        return (self.phase is Phase.PASS and self.hand is not None
                and self.passed is None)


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
    dealt = state.dealt
    return dict(zip(dealt, _views(state, dealt), strict=True))


def _views(state: GameState, seats: tuple[int, ...]) -> list[SeatView]:
    if state.passes is not None or state.variants.hides_cards:
        return _variant_views(state, seats)
    return _plain_views(state, seats)


def _plain_views(state: GameState, seats: tuple[int, ...]) -> list[SeatView]:
    phase = state.phase
    declaring = phase is Phase.DECLARE
    rules = state.rules
    sealed = state.variants.sealed  # not under sequential declaration (variants/declaration)
    names = state.names
    n = len(names)
    nobody: tuple[Declaration | None, ...] = (None,) * n
    declarations = state.declarations
    hands = state.hands
    declared = tuple([d is not None for d in declarations])
    dealt_in = tuple([h is not None for h in hands])
    pot = state.pot
    owed = settlement.match_amount(pot, rules)
    stacks, eliminated, dealer = state.stacks, state.eliminated, state.dealer
    reserve, round_number, game_number = state.reserve, state.round_number, state.game_number
    last_result = state.last_result
    views = []
    for seat in seats:
        if not declaring:
            decls = nobody
        elif sealed:
            own = declarations[seat]
            decls = nobody if own is None else tuple(
                own if s == seat else None for s in range(n))
        else:
            decls = declarations
        # tuple.__new__: the named tuple's own __new__ without its Python-level call (the
        # fields in their declared order, the defaults spelt out)
        views.append(_new_tuple(SeatView, (
            seat, rules, names, stacks, eliminated, dealer, pot, reserve, phase,
            hands[seat] if declaring else None, decls, declared, dealt_in, round_number,
            game_number, owed, last_result, None, None, ())))
    return views


_new_tuple = tuple.__new__
if len(SeatView._fields) != 20:  # pragma: no cover - keep _plain_views in step with SeatView
    raise ImportError("_plain_views builds a SeatView of 20 fields; update it")


def _variant_views(state: GameState, seats: tuple[int, ...]) -> list[SeatView]:
    """Views under Pass the Trash and the variants that hide cards: the plain view plus the
    seat's passes, with the own hand as the variant shows it before the reveal (No Peek:
    unseen, :meth:`gutskit.variants.Variants.view_hand`)."""
    base = _plain_views(state, seats)
    game = state.variants
    showing = state.phase in (Phase.PASS, Phase.DECLARE)
    passes = state.passes
    givers = pass_givers(state.hands) if passes is not None else {}
    exchanged = state.phase is Phase.DECLARE
    views = []
    for view in base:
        seat = view.seat
        hand = state.hands[seat] if showing else None
        if hand is not None and state.phase is Phase.DECLARE:
            hand = game.view_hand(hand)  # No Peek: unseen until the reveal
        passed = received = None
        chosen: tuple[bool, ...] = ()
        if passes is not None and showing and hand is not None:
            passed = passes[seat]
            if exchanged and seat in givers:
                received = passes[givers[seat]]
            chosen = tuple(p is not None for p in passes)
        views.append(view._replace(hand=hand, passed=passed, received=received,
                                   passes_chosen=chosen))
    return views


def visible_events(events: list[Event], seat: int, *, rules: Rules | None = None
                   ) -> list[Event | DeclarationSealed | PassSealed | PassSeen]:
    """``seat``'s copy of a hand history: other seats' dealt cards are replaced by ``()``
    ("dealt, unseen"), and so are the ghost hand and the community card (they are public
    in the round's :class:`RoundResolved` once shown) and, under ``no_peek``, the seat's own
    cards; under sealed declaration, other seats' :class:`Declared` events become
    :class:`DeclarationSealed`; other seats' passed cards become :class:`PassSealed` and
    the exchange a :class:`PassSeen` with only the card this seat passed and received.
    Showdown hands stay (they were shown).

    ``rules`` redacts a history that does not start with its :class:`SessionStarted` (a
    slice of a session); otherwise the session's rules are read from that event.
    """
    hands: tuple[Hand | None, ...] = ()
    out: list[Event | DeclarationSealed | PassSealed | PassSeen] = []
    for event in events:
        if isinstance(event, SessionStarted):
            rules = event.rules
        if isinstance(event, CardsDealt):
            hands = event.hands
            own = variants_for(rules).view_hand if rules is not None else None
            out.append(CardsDealt(
                hands=tuple(h if h is None else () if s != seat else own(h) if own else h
                            for s, h in enumerate(event.hands)),
                ghost=None if event.ghost is None else (),
                community=None if event.community is None else ()))
        elif (isinstance(event, Declared) and event.seat != seat
              and (rules is None or variants_for(rules).sealed)):
            out.append(DeclarationSealed(seat=event.seat))
        elif isinstance(event, PassChosen) and event.seat != seat:
            out.append(PassSealed(seat=event.seat))
        elif isinstance(event, CardsPassed):
            giver = pass_givers(hands).get(seat)
            if giver is None or event.passes[seat] is None:
                out.append(PassSeen(seat, None, None))
            else:
                out.append(PassSeen(seat, event.passes[seat], event.passes[giver]))
        else:
            out.append(event)
    return out
