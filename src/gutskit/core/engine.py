"""The Guts rules engine: a pure state machine for a whole session.

State is a frozen :class:`GameState`; every operation is a pure function
``state, action -> (new state, events)`` with a ``can_*`` twin that says whether it is
legal without applying it (PokerKit style). Every change is an event
(:mod:`gutskit.core.events`), and :func:`evolve` is the only function that applies an event,
so :func:`replay` of a hand history rebuilds the exact state. Chip conservation is checked
after every event; a violation raises :class:`ConservationError` at once.

A round (RULES.md "Table and cards") is: antes if due + deal (:func:`deal`), declarations
(:func:`declare`, or :func:`declare_all` for a simultaneous joint action), then resolution,
applied automatically when the last seat has declared. The variants (RULES.md "Variants")
add: a pass phase under ``pass_the_trash`` (:func:`pass_card` / :func:`pass_all`), a ghost
hand and a community card dealt face down with the hands, hi-lo declarations, and the table
operations :func:`misdeal` and :func:`rebuy`.

>>> import random
>>> state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0)
>>> state, _ = deal(state, hands_from_deck(state, shuffled_deck(random.Random(1))))
>>> state.pot, state.stacks
(3, (19, 19, 19))
>>> state, events = declare_all(state, {0: Declaration.IN, 1: Declaration.OUT,
...                                      2: Declaration.OUT})
>>> events[-1].outcome, state.stacks, state.pot
(<Outcome.UNCONTESTED: 'uncontested'>, (22, 19, 19), 0)
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import operator
import random
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr

from gutskit.core import settlement
from gutskit.core.cards import DECK, Card, format_cards, shuffled_deck
from gutskit.core.errors import GutsError
from gutskit.core.events import (
    AntesPosted,
    CardsDealt,
    CardsPassed,
    CardsShown,
    Declaration,
    DeclarationsRevealed,
    Declared,
    Event,
    Hand,
    HandShown,
    Misdealt,
    Outcome,
    PassChosen,
    Rebought,
    RoundResolved,
    RoundUndone,
    SatOut,
    SeatAway,
    SeatBack,
    SeatLeft,
    SeatRemoved,
    SessionEnded,
    SessionStarted,
    WinnersNamed,
    builder,
)
from gutskit.core.rules import DEFAULT_RULES, Rules
from gutskit.core.settlement import all_at_least as _all_at_least
from gutskit.variants import Resolution, Variants, variants_for
from gutskit.variants.hi_lo import sides
from gutskit.variants.pass_the_trash import exchange

__all__ = [
    "ConservationError",
    "Declaration",
    "GameState",
    "IllegalActionError",
    "Phase",
    "ShowdownNeeds",
    "can_deal",
    "can_declare",
    "can_misdeal",
    "can_name_winners",
    "can_pass_card",
    "can_rebuy",
    "can_show_cards",
    "can_show_hand",
    "can_undo_round",
    "deal",
    "deal_from_deck",
    "deal_from_rng",
    "deal_from_top",
    "deal_unseen",
    "declare",
    "declare_all",
    "end_session",
    "evolve",
    "hands_from_deck",
    "legal_declarations",
    "misdeal",
    "name_winners",
    "new_session",
    "next_antes",
    "pass_all",
    "pass_card",
    "rebuy",
    "replay",
    "seat_to_deal",
    "show_cards",
    "show_hand",
    "showdown_needs",
    "shuffled_deck",
    "undo_round",
]


class IllegalActionError(GutsError):
    """An action that the rules do not allow in this state; the message says why."""


@mypyc_attr(native_class=False)  # compiled build: mypyc cannot subclass AssertionError
class ConservationError(AssertionError):
    """Chips were created or destroyed: an engine bug, raised at once."""


class Phase(enum.Enum):
    """Where a session stands."""

    DEAL = "deal"
    """Waiting for the next deal (antes are posted with it)."""
    PASS = "pass"
    """Pass the Trash: cards are out; waiting for every seat's passed card."""
    DECLARE = "declare"
    """Cards are out; waiting for declarations."""
    SHOWDOWN = "showdown"
    """Companion mode: the declarations are revealed and the round compares hands; waiting
    for the cards turned up at the real table (:func:`show_cards`) or the winners the
    table names (:func:`name_winners`)."""
    OVER = "over"
    """The session has ended."""


# The enum members of the hot path, read once: in Python 3.11 reading a member off its
# class (``Phase.DEAL``) goes through ``EnumType.__getattr__``'s slot, several times the
# cost of reading a global.
_DEAL, _PASS, _DECLARE, _SHOWDOWN, _OVER = (
    Phase.DEAL, Phase.PASS, Phase.DECLARE, Phase.SHOWDOWN, Phase.OVER)
_IN, _OUT = Declaration.IN, Declaration.OUT
_VOID, _UNCONTESTED, _COMPARED = Outcome.VOID, Outcome.UNCONTESTED, Outcome.SHOWDOWN


@dataclass(frozen=True)
class GameState:
    """A session of Guts at one moment. Per-seat tuples are indexed by seat (clockwise).

    Attributes:
        rules: the house rules.
        names: player names.
        stacks: chips in front of each player (negative only under ``shortfall = "debt"``).
        buy_ins: chips each player brought to the table.
        eliminated: seats out for the rest of the session: eliminated under
            ``shortfall = "eliminate"``, or sat out at their loss limit (``sat_out``).
        dealer: the dealer's seat.
        pot: chips in the pot.
        reserve: chips in the reserve (``pot_cap_mode = "reserve"``).
        phase: :class:`Phase`.
        hands: this round's hands (``None`` for a seat not dealt in, ``()`` for a seat
            dealt in whose cards were not recorded: a referee's out player).
        declarations: this round's declarations so far (``None`` = not yet / not dealt in).
        round_number: rounds dealt so far (void rounds count).
        game_number: games started so far (a game starts whenever antes go into an empty pot).
        game_matched: a showdown in the current game ended with a match.
        reante_due: the last round was void under ``all_out = "reante"``.
        last_result: the last :class:`RoundResolved`, if any.
        end_reason: why the session ended (``phase is OVER``).
        total: chips on the table: stacks + pot + reserve; constant except for buy-ins.
        variants: the variants ``rules`` turn on (:func:`gutskit.variants.variants_for`),
            the engine's and the views' way to the variant hooks.
        ghost: this round's ghost hand (``ghost_hand``; ``()`` = dealt, not recorded).
        community: this round's community card as a one-card hand (``community_card``).
        passes: Pass the Trash: the card each seat passes this round (``None`` = not yet /
            not dealt in); ``None`` when nobody passes.
        ante_payers: who pays everyone's ante at the next deal (``all_out =
            "best_pays_antes"`` after a void round).
        misdeal_redeal: the last deal was a misdeal: the next deal asks no antes.
        rebuys_used: rebuys each seat has made.
        loss_limits: each seat's personal loss limit (``None`` = none).
        sat_out: seats sat out at their loss limit (also marked ``eliminated``).
        away: seats away (:class:`SeatAway`): dealt out until they come back; ``()`` while
            nobody ever was.
        left: seats that left or were removed (:class:`SeatLeft`, :class:`SeatRemoved`;
            also marked ``eliminated``); ``()`` while nobody ever did.
        companion: companion mode (:attr:`SessionStarted.companion`): the cards are dealt
            at a real table; gutskit sees them only at the showdown.
        undo_point: companion mode: the state before the last round's deal, which
            :func:`undo_round` restores (``None``: nothing to undo).
        volunteered: the seats that showed their cards after this round's uncontested win
            (:class:`~gutskit.core.events.HandShown`; emptied by the next deal).

    The engine copies a state by its fields (:func:`_draft`, :func:`_done`), not
    by ``__init__``: in the pure package through the instance's ``__dict__`` (one C call),
    in the optional compiled build (``scripts/build_compiled.py``, docs/performance.md),
    where this is a mypyc native class (its fields in a C struct, no ``__dict__``), by
    compiled stores of each field (mypyc leaves a frozen dataclass's ``__init__``
    interpreted: 32 ``object.__setattr__`` calls). From Python a state stays frozen in
    both: assigning a field raises ``dataclasses.FrozenInstanceError``.
    """

    rules: Rules
    names: tuple[str, ...]
    stacks: tuple[int, ...]
    buy_ins: tuple[int, ...]
    eliminated: tuple[bool, ...]
    dealer: int
    pot: int
    reserve: int
    phase: Phase
    hands: tuple[Hand | None, ...]
    declarations: tuple[Declaration | None, ...]
    round_number: int
    game_number: int
    game_matched: bool
    reante_due: bool
    last_result: RoundResolved | None
    end_reason: str | None
    total: int
    variants: Variants = field(compare=False, repr=False)
    ghost: Hand | None = None
    community: Hand | None = None
    passes: tuple[Card | None, ...] | None = None
    ante_payers: tuple[int, ...] = ()
    misdeal_redeal: bool = False
    rebuys_used: tuple[int, ...] = ()
    loss_limits: tuple[int | None, ...] | None = None
    sat_out: tuple[bool, ...] = ()
    away: tuple[bool, ...] = ()
    left: tuple[bool, ...] = ()
    companion: bool = False
    undo_point: GameState | None = field(default=None, compare=False, repr=False)
    volunteered: tuple[int, ...] = ()

    @property
    def n_seats(self) -> int:
        """Number of seats."""
        return len(self.names)

    def in_play(self, seat: int) -> bool:
        """Whether ``seat`` can be dealt in: not eliminated (or gone), not away, has chips."""
        return (not self.eliminated[seat] and self.stacks[seat] > 0
                and not (self.away and self.away[seat]))

    @property
    def seats_in_play(self) -> tuple[int, ...]:
        """Seats that can be dealt in, in seat order."""
        eliminated = self.eliminated
        if self.away:
            away = self.away
            return tuple([s for s, stack in enumerate(self.stacks)
                          if stack > 0 and not eliminated[s] and not away[s]])
        return tuple([s for s, stack in enumerate(self.stacks)
                      if stack > 0 and not eliminated[s]])

    @property
    def dealt(self) -> tuple[int, ...]:
        """Seats dealt in this round, in seat order."""
        hands = self.hands
        if all(hands) or None not in hands:  # (``all``: cheaper, when every hand is seen)
            return tuple(range(len(hands)))  # every seat (the usual case)
        return tuple([s for s, h in enumerate(hands) if h is not None])

    @property
    def antes_due(self) -> bool:
        """Whether the next deal collects antes: a new game (empty pot),
        ``ante_every_round`` (or a variant's antes every hand: single loser), a re-ante after
        a void round; never the re-deal after a misdeal."""
        if self.misdeal_redeal:
            return False
        rules = self.rules
        return (self.pot == 0 or rules.ante_every_round or self.reante_due
                or self.variants.antes_every_hand)

    def seat_of(self, name: str) -> int:
        """The seat of the player called ``name``.

        Raises:
            KeyError: no such player.
        """
        return self.names.index(name)

    def declaration_order(self) -> tuple[int, ...]:
        """Dealt-in seats clockwise from the dealer's left (the order of the deal and of
        sequential declarations)."""
        return tuple(s for s in settlement.clockwise_from(self.dealer, self.n_seats)
                     if self.hands[s] is not None)

    def next_to_declare(self) -> int | None:
        """Under ``declaration = "sequential"``, the seat whose turn it is; otherwise the
        first undeclared seat in declaration order; ``None`` when all have declared."""
        for seat in self.declaration_order():
            if self.declarations[seat] is None:
                return seat
        return None

    def __reduce__(self) -> tuple[type[GameState], tuple[Any, ...]]:
        """Pickle and copy a state by its fields, in their order (``GameState(*fields)``): a
        native class of the compiled build has no ``__dict__`` to copy, and the setters
        mypyc would use are the frozen dataclass's, which refuse."""
        return GameState, tuple([getattr(self, name) for name in _FIELD_NAMES])


_SYSTEM_RANDOM = secrets.SystemRandom()

# the events of every round, built without a frozen dataclass's per-field setattr calls
_ANTES_POSTED = builder(AntesPosted)
_CARDS_DEALT = builder(CardsDealt)
_REVEALED = builder(DeclarationsRevealed)
_ROUND_RESOLVED = builder(RoundResolved)


_FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(GameState))

_NATIVE: bool = "__dict__" not in vars(GameState)
"""Whether :class:`GameState` is a mypyc native class (the compiled build): its instances
have no ``__dict__``; a copy stores each field in compiled code."""


class _Draft:
    """Pure package: a state being changed, a plain object holding a copy of a
    :class:`GameState`'s ``__dict__``; :func:`_done` makes it a ``GameState`` once the
    step's changes are stored in it (the frozen dataclass refuses them)."""


_new_object = object.__new__
_set_attribute = object.__setattr__
_new_native = GameState.__new__


def _draft(state: GameState) -> GameState:
    """A copy of ``state`` to store a step's changes in (``new.pot = ...``), then
    :func:`_done`: no ``__init__``, no per-field ``setattr`` of a frozen dataclass.

    In the pure package a :class:`_Draft` with a copy of the state's ``__dict__`` (one C
    call; typed as a ``GameState``: it becomes one in :func:`_done`); in the compiled build
    a native ``GameState`` whose fields compiled code copies one by one (mypy sees the
    frozen dataclass's fields as read-only, hence the ignores: only a draft is written)."""
    if not _NATIVE:
        draft: Any = _new_object(_Draft)
        _set_attribute(draft, "__dict__", state.__dict__.copy())
        return draft  # type: ignore[no-any-return]
    new = _new_native(GameState)
    new.rules = state.rules  # type: ignore[misc]
    new.names = state.names  # type: ignore[misc]
    new.stacks = state.stacks  # type: ignore[misc]
    new.buy_ins = state.buy_ins  # type: ignore[misc]
    new.eliminated = state.eliminated  # type: ignore[misc]
    new.dealer = state.dealer  # type: ignore[misc]
    new.pot = state.pot  # type: ignore[misc]
    new.reserve = state.reserve  # type: ignore[misc]
    new.phase = state.phase  # type: ignore[misc]
    new.hands = state.hands  # type: ignore[misc]
    new.declarations = state.declarations  # type: ignore[misc]
    new.round_number = state.round_number  # type: ignore[misc]
    new.game_number = state.game_number  # type: ignore[misc]
    new.game_matched = state.game_matched  # type: ignore[misc]
    new.reante_due = state.reante_due  # type: ignore[misc]
    new.last_result = state.last_result  # type: ignore[misc]
    new.end_reason = state.end_reason  # type: ignore[misc]
    new.total = state.total  # type: ignore[misc]
    new.variants = state.variants  # type: ignore[misc]
    new.ghost = state.ghost  # type: ignore[misc]
    new.community = state.community  # type: ignore[misc]
    new.passes = state.passes  # type: ignore[misc]
    new.ante_payers = state.ante_payers  # type: ignore[misc]
    new.misdeal_redeal = state.misdeal_redeal  # type: ignore[misc]
    new.rebuys_used = state.rebuys_used  # type: ignore[misc]
    new.loss_limits = state.loss_limits  # type: ignore[misc]
    new.sat_out = state.sat_out  # type: ignore[misc]
    new.away = state.away  # type: ignore[misc]
    new.left = state.left  # type: ignore[misc]
    new.companion = state.companion  # type: ignore[misc]
    new.undo_point = state.undo_point  # type: ignore[misc]
    new.volunteered = state.volunteered  # type: ignore[misc]
    return new


def _done(new: GameState) -> GameState:
    """The draft ``new`` (:func:`_draft`), with its changes stored, as a :class:`GameState`
    (pure package: its class becomes ``GameState``; compiled: it is one already)."""
    if not _NATIVE:
        _set_attribute(new, "__class__", GameState)
    return new


def _with(state: GameState, **changes: Any) -> GameState:
    """A copy of ``state`` with ``changes`` (fields by name). The handlers of a round's
    events (antes, deal, reveal, resolution) store their changes in a :func:`_draft`
    instead (no keyword dict, no ``setattr`` by name)."""
    new = _draft(state)
    for name, value in changes.items():
        _set_attribute(new, name, value)
    return _done(new)


# _draft copies these fields, in this order
if _FIELD_NAMES != (  # pragma: no cover
        "rules", "names", "stacks", "buy_ins", "eliminated", "dealer", "pot", "reserve",
        "phase", "hands", "declarations", "round_number", "game_number", "game_matched",
        "reante_due", "last_result", "end_reason", "total", "variants", "ghost",
        "community", "passes", "ante_payers", "misdeal_redeal", "rebuys_used",
        "loss_limits", "sat_out", "away", "left", "companion", "undo_point", "volunteered"):
    raise ImportError("GameState's fields changed: update _draft")


# ---------------------------------------------------------------------------------------------
# Applying events: the only place state changes.


def _start(event: SessionStarted) -> GameState:
    n = len(event.names)
    return GameState(
        rules=event.rules,
        names=event.names,
        stacks=event.stacks,
        buy_ins=event.stacks,
        eliminated=(False,) * n,
        dealer=event.dealer,
        pot=event.pot,
        reserve=event.reserve,
        phase=Phase.DEAL,
        hands=(None,) * n,
        declarations=(None,) * n,
        round_number=0,
        game_number=0 if event.pot == 0 else 1,
        game_matched=event.pot > 0,
        reante_due=False,
        last_result=None,
        end_reason=None,
        total=sum(event.stacks) + event.pot + event.reserve,
        variants=variants_for(event.rules),
        rebuys_used=(0,) * n,
        loss_limits=event.loss_limits,
        sat_out=(False,) * n,
        companion=event.companion,
    )


def evolve(state: GameState | None, event: Event) -> GameState:
    """Apply one event to ``state`` (``None`` before :class:`SessionStarted`).

    Raises:
        ConservationError: the chips on the table changed.
        IllegalActionError: the event does not fit the state (a corrupt history).
    """
    handler = _HANDLERS.get(type(event))
    if handler is None or state is None:
        if isinstance(event, SessionStarted):
            if state is not None:
                raise IllegalActionError("a session can start only once")
            return _start(event)
        if state is None:
            raise IllegalActionError(
                f"the history must start with SessionStarted, not {event!r}")
        handler = _handler_of(event)
        if handler is None:  # pragma: no cover - exhaustive over Event
            raise IllegalActionError(f"unknown event {event!r}")
    new = handler(state, event)
    if new.undo_point is not None and type(event) in _BETWEEN_ROUNDS and not (
            type(event) is SessionEnded and state.phase is _OVER):
        new = _with(new, undo_point=None)  # only the last round, right after it, is undone
    _check_conserved(new, type(event).__name__)
    return new


def _check_conserved(state: GameState, after: str) -> None:
    """No chip created or destroyed: the stacks, the pot and the reserve still add up to
    the table's total.

    Raises:
        ConservationError: they do not (a bug: the message names the step ``after``).
    """
    if sum(state.stacks) + state.pot + state.reserve != state.total:
        raise ConservationError(
            f"chips not conserved after {after}: stacks {state.stacks}, pot {state.pot}, "
            f"reserve {state.reserve}, expected total {state.total}")


def _on_declared(state: GameState, event: Declared) -> GameState:
    decls = list(state.declarations)
    decls[event.seat] = event.declaration
    return _with(state, declarations=tuple(decls))


def _on_dealt(state: GameState, event: CardsDealt) -> GameState:
    if state.companion:
        point = state.undo_point
        if point is None or point.round_number != state.round_number:  # no antes before
            state = _with(state, undo_point=_undo_point(state))
    new = _draft(state)
    _dealt_into(new, state, event)
    return _done(new)


def _dealt_into(new: GameState, state: GameState, event: CardsDealt) -> None:
    """:func:`_on_dealt`'s changes, stored in ``new`` (a :func:`_draft` of ``state``)."""
    passing = state.variants.pass_phase and not state.companion  # passed at the table
    n = len(state.names)
    new.hands = event.hands  # type: ignore[misc]
    new.declarations = (None,) * n  # type: ignore[misc]
    new.phase = _PASS if passing else _DECLARE  # type: ignore[misc]
    new.round_number = state.round_number + 1  # type: ignore[misc]
    new.ghost = event.ghost  # type: ignore[misc]
    new.community = event.community  # type: ignore[misc]
    new.misdeal_redeal = False  # type: ignore[misc]
    new.passes = (None,) * n if passing else None  # type: ignore[misc]
    new.volunteered = ()  # type: ignore[misc]


def _undo_point(state: GameState) -> GameState:
    """``state`` as :func:`undo_round` restores it (without an undo point of its own: only
    the last round can be undone)."""
    return _with(state, undo_point=None)


def _on_antes(state: GameState, event: AntesPosted) -> GameState:
    new = _draft(state)
    _antes_into(new, state, event)
    return _done(new)


def _antes_into(new: GameState, state: GameState, event: AntesPosted) -> None:
    """:func:`_on_antes`'s changes, stored in ``new`` (a :func:`_draft` of ``state``)."""
    amounts = event.amounts
    if len(amounts) != len(state.stacks):
        _per_seat(state, amounts, "antes")  # raises
    new.stacks = tuple(map(_sub, state.stacks, amounts))  # type: ignore[misc]
    new.pot = state.pot + event.refill + sum(amounts)  # type: ignore[misc]
    new.reserve = state.reserve - event.refill  # type: ignore[misc]
    new.reante_due = False  # type: ignore[misc]
    new.game_number = state.game_number + event.new_game  # type: ignore[misc]
    new.game_matched = state.game_matched and not event.new_game  # type: ignore[misc]
    new.ante_payers = ()  # type: ignore[misc]
    new.undo_point = _undo_point(state) if state.companion else None  # type: ignore[misc]


def _in_seats(declarations: Sequence[Declaration | None]) -> list[int]:
    """The seats whose declaration put them in."""
    out = Declaration.OUT
    return [s for s, d in enumerate(declarations) if d is not None and d is not out]


def _on_revealed(state: GameState, event: DeclarationsRevealed) -> GameState:
    new = _draft(state)
    _revealed_into(new, state, event)
    return _done(new)


def _revealed_into(new: GameState, state: GameState,
                   event: DeclarationsRevealed) -> None:
    """:func:`_on_revealed`'s changes, stored in ``new`` (a :func:`_draft` of ``state``)."""
    new.declarations = event.declarations  # type: ignore[misc]
    if state.companion and state.variants.compares_hands(_in_seats(event.declarations)):
        # companion mode: the hands compared are at the real table; wait for them
        new.phase = _SHOWDOWN  # type: ignore[misc]


def _on_cards_shown(state: GameState, event: CardsShown) -> GameState:
    if state.phase is not Phase.SHOWDOWN:
        raise IllegalActionError(f"no showdown is waiting for cards: the session is in the "
                                 f"{state.phase.value} phase")
    hands = tuple(h if h is not None else old
                  for h, old in zip(event.hands, state.hands, strict=True))
    return _with(state, hands=hands,
                 ghost=state.ghost if event.ghost is None else event.ghost,
                 community=state.community if event.community is None else event.community)


def _on_winners_named(state: GameState, event: WinnersNamed) -> GameState:
    if state.phase is not Phase.SHOWDOWN:
        raise IllegalActionError(f"no showdown is waiting for its winners: the session is "
                                 f"in the {state.phase.value} phase")
    return state


def _on_undone(state: GameState, event: RoundUndone) -> GameState:
    point = state.undo_point
    if point is None:
        raise IllegalActionError("there is no round to undo")
    if (point.stacks, point.pot, point.reserve) != (event.stacks, event.pot, event.reserve):
        raise IllegalActionError(
            f"the undo restores stacks {list(event.stacks)}, pot {event.pot}, reserve "
            f"{event.reserve}, but the round started from stacks {list(point.stacks)}, pot "
            f"{point.pot}, reserve {point.reserve}")
    return point


def _on_resolved(state: GameState, event: RoundResolved) -> GameState:
    new = _draft(state)
    _resolved_into(new, state, event)
    return _done(new)


def _resolved_into(new: GameState, state: GameState, event: RoundResolved) -> None:
    """:func:`_on_resolved`'s changes, stored in ``new`` (a :func:`_draft` of ``state``)."""
    won, matched_chips = event.won, event.matched
    n = len(state.stacks)
    if len(won) != n or len(matched_chips) != n:
        _per_seat(state, won, "won")  # raises for one of them
        _per_seat(state, matched_chips, "matched")
    stacks = tuple(map(_sub, map(_add, state.stacks, won), matched_chips))
    eliminated = state.eliminated
    if event.eliminated:
        eliminated = tuple(e or s in event.eliminated for s, e in enumerate(eliminated))
    matched = event.outcome is _COMPARED and any(matched_chips)
    reante = event.outcome is _VOID and state.rules.all_out != "carry"
    game_matched = (state.game_matched or matched) and event.pot_after > 0
    end_reason = _end_reason(state, event) if event.session_over else None
    new.stacks = stacks  # type: ignore[misc]
    new.eliminated = eliminated  # type: ignore[misc]
    new.pot = event.pot_after  # type: ignore[misc]
    new.reserve = state.reserve + event.to_reserve  # type: ignore[misc]
    new.dealer = event.next_dealer  # type: ignore[misc]
    new.phase = _OVER if event.session_over else _DEAL  # type: ignore[misc]
    new.reante_due = reante  # type: ignore[misc]
    new.game_matched = game_matched  # type: ignore[misc]
    new.last_result = event  # type: ignore[misc]
    new.end_reason = end_reason  # type: ignore[misc]
    new.ante_payers = event.ante_payers  # type: ignore[misc]


def _on_pass_chosen(state: GameState, event: PassChosen) -> GameState:
    if state.passes is None:
        raise IllegalActionError("no cards are passed in this round")
    passes = list(state.passes)
    passes[event.seat] = event.card
    return _with(state, passes=tuple(passes))


def _on_passed(state: GameState, event: CardsPassed) -> GameState:
    return _with(state, hands=exchange(state.hands, event.passes), passes=event.passes,
                 phase=Phase.DECLARE)


def _on_misdealt(state: GameState, event: Misdealt) -> GameState:
    n = state.n_seats
    return _with(state, hands=(None,) * n, declarations=(None,) * n, ghost=None,
                 community=None, passes=None, phase=Phase.DEAL, misdeal_redeal=True)


def _on_rebought(state: GameState, event: Rebought) -> GameState:
    seat = event.seat
    return _with(
        state,
        stacks=_bump(state.stacks, seat, event.chips),
        buy_ins=_bump(state.buy_ins, seat, event.chips),
        rebuys_used=_bump(state.rebuys_used, seat, 1),
        total=state.total + event.chips,
    )


def _on_sat_out(state: GameState, event: SatOut) -> GameState:
    return _with(state, eliminated=_set(state.eliminated, event.seat, True),
                 sat_out=_set(state.sat_out, event.seat, True))


def _on_away(state: GameState, event: SeatAway) -> GameState:
    away = state.away or (False,) * state.n_seats
    return _button_passed(_with(state, away=_set(away, event.seat, True)), event.seat)


def _button_passed(state: GameState, seat: int) -> GameState:
    """The dealer button after ``seat`` went away or left: a seat that holds the button
    between rounds and can no longer be dealt in passes it to the next seat on its left
    still in play, as the deal passes past a player with no chips (RULES.md "Money,
    limits, ending"); during a round the round's dealer stays (the round is played out
    and the next dealer is found at its end)."""
    if state.phase is not Phase.DEAL or state.dealer != seat:
        return state
    n_seats = state.n_seats
    for i in range(1, n_seats):
        if state.in_play((seat + i) % n_seats):
            return _with(state, dealer=(seat + i) % n_seats)
    return state


def _on_back(state: GameState, event: SeatBack) -> GameState:
    if not (state.away and state.away[event.seat]):
        raise IllegalActionError(f"seat {event.seat} is not away")
    return _with(state, away=_set(state.away, event.seat, False))


def _on_left(state: GameState, event: SeatLeft | SeatRemoved) -> GameState:
    if state.phase is Phase.OVER:
        raise IllegalActionError("the session is over")
    left = state.left or (False,) * state.n_seats
    return _button_passed(_with(state, left=_set(left, event.seat, True),
                                eliminated=_set(state.eliminated, event.seat, True)),
                          event.seat)


def _on_hand_shown(state: GameState, event: HandShown) -> GameState:
    seat = event.seat
    if (0 <= seat < len(state.hands) and state.hands[seat] == () and event.hand
            and not state.companion):
        # a viewer's copy of the history: the hand was dealt unseen; now it is shown
        state = _with(state, hands=tuple(event.hand if s == seat else h
                                         for s, h in enumerate(state.hands)))
    problem = can_show_hand(state, seat)
    if problem is not None:
        raise IllegalActionError(problem)
    if tuple(event.hand) != tuple(state.hands[seat] or ()):
        raise IllegalActionError(f"{state.names[seat]!r} did not hold those cards")
    return _with(state, volunteered=(*state.volunteered, seat))


def _on_ended(state: GameState, event: SessionEnded) -> GameState:
    stacks = tuple(s + p for s, p in zip(state.stacks, event.payouts, strict=True))
    return _with(state, stacks=stacks, pot=0, reserve=0, phase=Phase.OVER,
                 end_reason=event.reason)


_HANDLERS: dict[type, Callable[[GameState, Any], GameState]] = {
    Declared: _on_declared,
    CardsDealt: _on_dealt,
    AntesPosted: _on_antes,
    DeclarationsRevealed: _on_revealed,
    RoundResolved: _on_resolved,
    PassChosen: _on_pass_chosen,
    CardsPassed: _on_passed,
    Misdealt: _on_misdealt,
    Rebought: _on_rebought,
    SatOut: _on_sat_out,
    SeatAway: _on_away,
    SeatBack: _on_back,
    SeatLeft: _on_left,
    SeatRemoved: _on_left,
    SessionEnded: _on_ended,
    CardsShown: _on_cards_shown,
    WinnersNamed: _on_winners_named,
    RoundUndone: _on_undone,
    HandShown: _on_hand_shown,
}
"""How each event changes the state (:func:`evolve` dispatches on the event's type)."""


_BETWEEN_ROUNDS: frozenset[type] = frozenset(
    {Rebought, SeatAway, SeatBack, SeatLeft, SeatRemoved, SessionEnded})
"""Events that end the chance to undo the last round (companion mode): what happens at the
table after it; the end of the session the round itself caused is undone with it."""


def _handler_of(event: object) -> Callable[[GameState, Any], GameState] | None:
    """The handler of an instance of a subclass of an event type (``None``: not an event)."""
    for cls in type(event).__mro__:
        if cls in _HANDLERS:
            return _HANDLERS[cls]
    return None


def _per_seat(state: GameState, values: tuple[int, ...], what: str) -> tuple[int, ...]:
    """``values``, checked to have one entry per seat (a corrupt history has not; the
    handlers call it when the lengths differ, for its error)."""
    if len(values) != len(state.stacks):
        raise IllegalActionError(f"{what} {list(values)} do not have one entry for each of "
                                 f"the {len(state.stacks)} seats")
    return values


_add = operator.add
_sub = operator.sub


def _bump(values: tuple[int, ...], seat: int, amount: int) -> tuple[int, ...]:
    return tuple(v + amount if s == seat else v for s, v in enumerate(values))


def _set(values: tuple[bool, ...], seat: int, value: bool) -> tuple[bool, ...]:
    return tuple(value if s == seat else v for s, v in enumerate(values))


def _end_reason(state: GameState, event: RoundResolved) -> str:
    if event.outcome is _UNCONTESTED and state.rules.end_on_uncontested:
        return "uncontested win after matched rounds (end_on_uncontested)"
    return "fewer than two players left with chips"


def replay(events: Iterable[Event]) -> GameState:
    """Rebuild the state from a whole hand history.

    Raises:
        IllegalActionError: the history is empty or malformed.
        ConservationError: the history creates or destroys chips.
    """
    state: GameState | None = None
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise IllegalActionError("an empty hand history has no state")
    return state


def _apply(state: GameState, events: list[Event]) -> tuple[GameState, list[Event]]:
    for event in events:
        state = evolve(state, event)
    return state, events


# ---------------------------------------------------------------------------------------------
# Starting a session.


LossLimits = Sequence[int | None] | Mapping[str, int | None] | None
"""Personal loss limits: per seat (a sequence) or by player name (a mapping)."""


def new_session(names: Sequence[str], stacks: int | Sequence[int], *, dealer: int = 0,
                rules: Rules = DEFAULT_RULES, pot: object = 0, reserve: object = 0,
                loss_limits: LossLimits = None, companion: bool = False) -> GameState:
    """A session's starting state; see :func:`start_event` for the arguments and errors."""
    return evolve(None, start_event(names, stacks, dealer=dealer, rules=rules, pot=pot,
                                    reserve=reserve, loss_limits=loss_limits,
                                    companion=companion))


def start_event(names: Sequence[str], stacks: int | Sequence[int], *, dealer: int = 0,
                rules: Rules = DEFAULT_RULES, pot: object = 0, reserve: object = 0,
                loss_limits: LossLimits = None, companion: bool = False) -> SessionStarted:
    """The :class:`SessionStarted` event for a table.

    Args:
        names: 2 to 10 distinct, non-empty player names, clockwise.
        stacks: each player's buy-in (chips), or one number for everyone.
        dealer: the first dealer's seat; if that player has no chips, the deal passes to the
            next seat on the left with chips (:func:`seat_to_deal`).
        rules: the house rules.
        pot: chips already in the pot (a game in progress): checked to be an ``int``
            >= 0 (typed ``object``: what the caller gave).
        reserve: chips already in the reserve (a game in progress), checked as ``pot``.
        loss_limits: each player's personal loss limit in chips (``None`` = none), per
            seat or by name: a player whose net loss reaches it is sat out (seeds: "set a
            personal loss limit before play and stop when it is reached").
        companion: companion mode (:attr:`SessionStarted.companion`): the cards are dealt
            at a real table (:func:`deal_unseen`), the showdown waits for them
            (:func:`show_cards`) or for the winners the table names
            (:func:`name_winners`), and the last round can be undone (:func:`undo_round`).

    Raises:
        IllegalActionError: a bad table (seat count, duplicate name, negative or
            non-integer chips, a stack below ``min_buy_in``, a bad loss limit, dealer out
            of range, more cards than the deck holds).
    """
    names = tuple(names)
    if not 2 <= len(names) <= 10:
        raise IllegalActionError(f"Guts needs 2 to 10 players, got {len(names)}")
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise IllegalActionError(f"player name {name!r} must be a non-empty string")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise IllegalActionError(f"duplicate player name {dupes[0]!r}")
    given: list[object] = [stacks] * len(names) if isinstance(stacks, int) else list(stacks)
    if len(given) != len(names):
        raise IllegalActionError(f"{len(given)} stacks for {len(names)} players")
    stack_list = [_chips(f"stack of {name!r}", stack)
                  for name, stack in zip(names, given, strict=True)]
    pot_chips, reserve_chips = _chips("pot", pot), _chips("reserve", reserve)
    if not (isinstance(dealer, int) and 0 <= dealer < len(names)):
        raise IllegalActionError(f"dealer seat {dealer!r} is not at the table")
    if rules.min_buy_in is not None:
        for name, stack in zip(names, stack_list, strict=True):
            if stack < rules.min_buy_in:
                raise IllegalActionError(
                    f"buy-in of {name!r} is {stack} chip{'' if stack == 1 else 's'}, below "
                    f"the minimum buy-in of {rules.min_buy_in}")
    needed = variants_for(rules).cards_needed(len(names))
    if needed > len(DECK):
        raise IllegalActionError(
            f"{len(names)} players need {needed} cards a deal (hands, ghost hand, community "
            f"card), more than the {len(DECK)} in the deck")
    dealer = seat_to_deal(dealer, stack_list)  # a first dealer with no chips passes the deal
    if companion is not False and companion is not True:
        raise IllegalActionError(f"companion must be true or false, not {companion!r}")
    return SessionStarted(rules=rules, names=names, stacks=tuple(stack_list), dealer=dealer,
                          pot=pot_chips, reserve=reserve_chips,
                          loss_limits=_loss_limits(names, loss_limits), companion=companion)


def _chips(label: str, value: object) -> int:
    """``value``, checked to be a whole number of chips >= 0 (typed ``object``: the caller's
    value as given, so that the compiled build checks it here too, not at the call).

    Raises:
        IllegalActionError: not an ``int`` (a bool or a float is not), or negative.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise IllegalActionError(f"{label} must be a whole number of chips >= 0, "
                                 f"not {value!r}")
    return value


def _loss_limits(names: tuple[str, ...], limits: LossLimits) -> tuple[int | None, ...] | None:
    if limits is None:
        return None
    if isinstance(limits, Mapping):
        unknown = [k for k in limits if k not in names]
        if unknown:
            raise IllegalActionError(f"loss limit for {unknown[0]!r}, who is not at the table")
        values = [limits.get(name) for name in names]
    else:
        values = list(limits)
        if len(values) != len(names):
            raise IllegalActionError(f"{len(values)} loss limits for {len(names)} players")
    for name, value in zip(names, values, strict=True):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise IllegalActionError(
                f"loss limit of {name!r} must be a whole number of chips >= 1, not {value!r}")
    return None if all(v is None for v in values) else tuple(values)


# ---------------------------------------------------------------------------------------------
# Deal.


def hands_from_deck(state: GameState, deck: Sequence[Card]) -> tuple[Hand | None, ...]:
    """Deal from ``deck`` (top card first): one card at a time, starting left of the dealer,
    to every seat in play (RULES.md "Table and cards").

    Returns:
        Per-seat hands (``None`` for seats not dealt in).
    """
    return _hands(state, _deal_order(state), deck)


def _deal_order(state: GameState) -> Sequence[int]:
    """The seats in play, clockwise from the dealer's left (the order of the deal)."""
    stacks = state.stacks
    eliminated = state.eliminated
    if not state.away and _all_at_least(stacks, 1) and not any(eliminated):
        return _clockwise(state.dealer, len(stacks))  # the usual case: every seat plays
    order = [s for s in _clockwise(state.dealer, len(stacks))
             if stacks[s] > 0 and not eliminated[s]]
    if state.away:
        return [s for s in order if not state.away[s]]
    return order


@functools.cache
def _clockwise(dealer: int, n_seats: int) -> tuple[int, ...]:
    """:func:`gutskit.core.settlement.clockwise_from`, remembered (the deal asks it every
    round)."""
    return tuple(settlement.clockwise_from(dealer, n_seats))


def _hands(state: GameState, order: Sequence[int], deck: Sequence[Card]
           ) -> tuple[Hand | None, ...]:
    """:func:`hands_from_deck` for the deal order ``order`` (:func:`_deal_order`)."""
    n = len(order)
    end = n * state.rules.cards_per_hand
    if len(deck) < end:
        raise IllegalActionError(f"a deck of {len(deck)} cards cannot deal {end}")
    hands: list[Hand | None] = [None] * len(state.names)
    # one card at a time around the table: the i-th seat of the order gets the cards
    # i, i + n, i + 2n, ... of the deck
    cards = tuple(deck[:end])
    for i, seat in enumerate(order):
        hands[seat] = cards[i:end:n]
    return tuple(hands)


def deal_from_deck(state: GameState, deck: Sequence[Card]
                   ) -> tuple[tuple[Hand | None, ...], Hand | None, Hand | None]:
    """Deal from ``deck`` (top card first): the hands (:func:`hands_from_deck`), then the
    ghost hand (``ghost_hand``) and the community card (``community_card``) from the cards
    that follow.

    Returns:
        ``(hands, ghost, community)``; ``ghost`` / ``community`` are ``None`` when the rules
        have none.
    """
    hands = hands_from_deck(state, deck)
    used = state.rules.cards_per_hand * sum(h is not None for h in hands)
    extras, used = state.variants.deal_extras(deck, used)
    if len(deck) < used:
        raise IllegalActionError(f"a deck of {len(deck)} cards cannot deal {used}")
    return hands, extras.get("ghost"), extras.get("community")


def deal_from_top(state: GameState, deck: Sequence[Card]) -> tuple[GameState, list[Event]]:
    """Post the antes that are due and deal from the top of ``deck`` everything the rules
    ask: the hands, then the ghost hand and the community card (:func:`deal_from_deck`).
    The deal of every front end that shuffles its own deck (the server's provably fair
    deck).

    Raises:
        IllegalActionError: see :func:`can_deal`; ``deck`` is too short or deals a card
            twice.
    """
    if state.phase is not Phase.DEAL or len(state.seats_in_play) < 2:
        raise IllegalActionError(can_deal(state))
    hands, ghost, community = deal_from_deck(state, deck)
    return deal(state, hands, ghost=ghost, community=community)


def can_deal(state: GameState, hands: Sequence[Hand | None] | None = None, *,
             ghost: Hand | None = None, community: Hand | None = None) -> str | None:
    """``None`` if :func:`deal` may be applied, else the reason it may not.

    With ``hands``, also checks them: exactly the seats in play, the right number of cards,
    no card twice; and the ghost hand and community card: present exactly when the rules
    have them (``()`` = dealt, not recorded), the right size, no card twice.
    """
    if state.phase is not Phase.DEAL:
        return f"cannot deal now: the session is in the {state.phase.value} phase"
    if len(state.seats_in_play) < 2:
        return "fewer than two players have chips to play"
    if hands is None:
        return None
    if len(hands) != state.n_seats:
        return f"expected hands for {state.n_seats} seats, got {len(hands)}"
    seen: dict[Card, int] = {}
    k = state.rules.cards_per_hand
    for seat, hand in enumerate(hands):
        name = state.names[seat]
        if hand is None:
            if state.in_play(seat):
                return f"{name!r} is in play but has no hand"
            continue
        if not state.in_play(seat):
            why = ("eliminated" if state.eliminated[seat] else "away"
                   if state.away and state.away[seat] else "out of chips")
            return f"{name!r} cannot be dealt in: {why}"
        if len(hand) not in (0, k):  # () = dealt, cards not recorded (a real table)
            return (f"hand of {name!r} ({format_cards(hand)}) has {len(hand)} card"
                    f"{'' if len(hand) == 1 else 's'}, "
                    f"expected {k}")
        for card in hand:
            if not (isinstance(card, int) and 0 <= card < 52):
                return f"hand of {name!r} holds {card!r}, which is not a card"
            if card in seen:
                other = state.names[seen[card]]
                where = f"both {other!r} and {name!r}" if other != name else f"{name!r} twice"
                return f"card {format_cards([card])} is dealt to {where}"
            seen[card] = seat
    if ghost is not None or community is not None or state.variants.extra_cards:
        return _extras_problem(state, seen, ghost, community)
    return None


def _extras_problem(state: GameState, seen: dict[Card, int], ghost: Hand | None,
                    community: Hand | None) -> str | None:
    extras = dict(state.variants.extra_cards)
    for label, extra, what in (("ghost hand", ghost, "ghost"),
                               ("community card", community, "community")):
        wanted = what in extras
        size = extras.get(what, 0)
        if extra is None:
            if wanted:
                return f"the rules deal a {label}, but none was given"
            continue
        if not wanted:
            return f"a {label} was given, but the rules deal none"
        if len(extra) not in (0, size):
            return (f"the {label} ({format_cards(extra)}) has {len(extra)} "
                    f"card{'' if len(extra) == 1 else 's'}, expected {size}")
        for card in extra:
            if not (isinstance(card, int) and 0 <= card < 52):
                return f"the {label} holds {card!r}, which is not a card"
            if card in seen:
                where = (f"the {label} twice" if seen[card] < 0
                         else f"both {state.names[seen[card]]!r} and the {label}")
                return f"card {format_cards([card])} is dealt to {where}"
            seen[card] = -1
    return None


def deal(state: GameState, hands: Sequence[Hand | None], *, ghost: Hand | None = None,
         community: Hand | None = None) -> tuple[GameState, list[Event]]:
    """Post the antes that are due, then deal ``hands`` (and the ghost hand and the
    community card, face down, when the rules have them).

    Antes are due when the pot is empty (a new game starts: the reserve refills the pot
    first under ``pot_cap_mode = "reserve"``), under ``ante_every_round``, and after a void
    round under ``all_out = "reante"``. Every seat in play antes. Variants: under
    ``losers_pay = "worst"`` everyone antes every hand except the previous hand's
    matchers; after a void round under ``all_out = "best_pays_antes"`` the best hand(s)
    pay everyone's ante; after a misdeal no ante is asked.

    Args:
        hands: per-seat hands, ``None`` for seats not in play (see :func:`hands_from_deck`).
        ghost: the ghost hand (``ghost_hand``).
        community: the community card as a one-card hand (``community_card``).

    Raises:
        IllegalActionError: see :func:`can_deal`.
    """
    problem = can_deal(state, hands, ghost=ghost, community=community)
    if problem is not None:
        raise IllegalActionError(problem)
    return _deal(state, tuple(None if h is None else tuple(h) for h in hands),
                 None if ghost is None else tuple(ghost),
                 None if community is None else tuple(community))


def next_antes(state: GameState) -> AntesPosted | None:
    """The antes the next deal of ``state`` collects (``None``: no ante is due), as the
    :class:`~gutskit.core.events.AntesPosted` event :func:`deal` will record: see
    :func:`deal` for when antes are due and who pays them (RULES.md "Antes, declaration,
    resolution", ``all_out``; "Money, limits, ending"). Front ends read it to say what a
    void round means under the rules in force.

    >>> state = new_session(["Ana", "Ben"], 20)
    >>> next_antes(state)
    AntesPosted(amounts=(1, 1), refill=0, new_game=True)
    """
    if not state.antes_due:
        return None
    rules = state.rules
    stacks = state.stacks
    eliminated = state.eliminated
    in_play: Sequence[bool]
    if not state.away and _all_at_least(stacks, 1) and not any(eliminated):
        in_play = (True,) * len(stacks)  # the usual case: every seat plays
    else:
        in_play = [stack > 0 and not eliminated[s] for s, stack in enumerate(stacks)]
        if state.away:
            in_play = [p and not away for p, away in zip(in_play, state.away, strict=True)]
    amounts = settlement.ante_amounts(stacks, in_play, rules)
    game = state.variants
    if not game.plain:
        amounts = game.antes(state, amounts)
    new_game = state.pot == 0
    refill = settlement.reserve_refill(state.pot, state.reserve, rules)
    return _ANTES_POSTED(amounts, refill, new_game)


def _deal(state: GameState, hands: tuple[Hand | None, ...], ghost: Hand | None = None,
          community: Hand | None = None) -> tuple[GameState, list[Event]]:
    """:func:`deal` without checking ``hands`` (they are legal by construction).

    The antes and the deal are applied to one copy of the state, by the changes of their
    handlers (:func:`_antes_into`, :func:`_dealt_into`): what :func:`evolve` of each in
    turn gives, without the state between them (the deal reads nothing the antes change).
    In companion mode, where the deal's undo point depends on the antes, one at a time."""
    antes = next_antes(state)
    dealt = _CARDS_DEALT(hands, ghost, community)
    if state.companion:
        return _apply(state, [dealt] if antes is None else [antes, dealt])
    new = _draft(state)
    if antes is not None:
        _antes_into(new, state, antes)
    _dealt_into(new, state, dealt)
    new = _done(new)
    _check_conserved(new, "AntesPosted")
    return new, [dealt] if antes is None else [antes, dealt]


# ---------------------------------------------------------------------------------------------
# Pass the Trash.


def can_pass_card(state: GameState, seat: int, card: Card) -> str | None:
    """``None`` if ``seat`` may pass ``card`` to its left now, else the reason it may not
    (not the pass phase, not dealt in, already chosen, a card not in the seat's hand)."""
    if state.phase is not Phase.PASS or state.passes is None:
        return f"cannot pass a card now: the session is in the {state.phase.value} phase"
    if not (isinstance(seat, int) and 0 <= seat < state.n_seats) or state.hands[seat] is None:
        return f"seat {seat!r} was not dealt in"
    name = state.names[seat]
    if state.passes[seat] is not None:
        return f"{name!r} has already chosen the card to pass"
    return _pass_problem(state, seat, card, state.passes)


def _pass_problem(state: GameState, seat: int, card: Any,
                  passes: Sequence[Card | None]) -> str | None:
    name = state.names[seat]
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
        return f"{name!r} must pass a card, not {card!r}"
    hand = state.hands[seat]
    if hand and card not in hand:
        return (f"{name!r} cannot pass {format_cards([card])}: it is not in their hand "
                f"({format_cards(hand)})")
    if not hand:  # not recorded: the card must at least not be elsewhere
        for other, cards in enumerate(state.hands):
            if other != seat and cards and card in cards:
                return (f"{name!r} cannot pass {format_cards([card])}: "
                        f"{state.names[other]!r} holds it")
        for other, passed in enumerate(passes):
            if other != seat and passed == card:
                return (f"{name!r} cannot pass {format_cards([card])}: "
                        f"{state.names[other]!r} passes it")
    return None


def pass_card(state: GameState, seat: int, card: Card) -> tuple[GameState, list[Event]]:
    """Pass the Trash: ``seat`` chooses ``card`` to pass to its left (sealed). When every
    seat dealt in has chosen, the cards move all at once (:class:`CardsPassed`) and the
    declarations begin.

    Raises:
        IllegalActionError: see :func:`can_pass_card`.
    """
    problem = can_pass_card(state, seat, card)
    if problem is not None:
        raise IllegalActionError(problem)
    chosen = PassChosen(seat, card)
    state = evolve(state, chosen)
    events: list[Event] = [chosen]
    assert state.passes is not None
    if all(p is not None or h is None for p, h in zip(state.passes, state.hands, strict=True)):
        exchange = CardsPassed(state.passes)
        state = evolve(state, exchange)
        events.append(exchange)
    return state, events


def pass_all(state: GameState, passes: Mapping[int, Card]) -> tuple[GameState, list[Event]]:
    """Pass the Trash as a joint action: every seat dealt in passes one card to its left,
    all at once (RULES.md "Variants"). One :class:`CardsPassed` event records it.

    Args:
        passes: seat -> the card it passes, for exactly the seats dealt in (seats that
            already chose with :func:`pass_card` may be left out).

    Raises:
        IllegalActionError: a seat is missing or extra, or a pass is illegal; nothing is
            applied then.
    """
    if state.phase is not Phase.PASS or state.passes is None:
        raise IllegalActionError(
            f"cannot pass cards now: the session is in the {state.phase.value} phase")
    chosen = list(state.passes)
    for seat in passes:
        if not (isinstance(seat, int) and 0 <= seat < state.n_seats) or (
                state.hands[seat] is None):
            raise IllegalActionError(f"seat {seat!r} was not dealt in")
        if chosen[seat] is not None:
            raise IllegalActionError(
                f"{state.names[seat]!r} has already chosen the card to pass")
    for seat, hand in enumerate(state.hands):
        if hand is None or chosen[seat] is not None:
            continue
        if seat not in passes:
            raise IllegalActionError(f"no card passed by {state.names[seat]!r}")
        problem = _pass_problem(state, seat, passes[seat], chosen)
        if problem is not None:
            raise IllegalActionError(problem)
        chosen[seat] = passes[seat]
    exchange = CardsPassed(tuple(chosen))
    return evolve(state, exchange), [exchange]


# ---------------------------------------------------------------------------------------------
# Showing one's cards after an uncontested win.


def can_show_hand(state: GameState, seat: int) -> str | None:
    """``None`` if ``seat`` may show its cards to the table now, else why not: it is the
    winner of the round just settled by an uncontested win (RULES.md "Resolve": taken
    *without showing cards*; showing them is the winner's choice), the next round is not
    dealt yet, it held cards gutskit dealt (not companion mode: those are at the real
    table) and it has not shown them already."""
    if not 0 <= seat < state.n_seats:
        return f"there is no seat {seat}"
    result = state.last_result
    if state.phase not in (Phase.DEAL, Phase.OVER) or result is None:
        return "cards can be shown only after a round, before the next deal"
    if result.outcome is not Outcome.UNCONTESTED or seat not in result.winners:
        return (f"{state.names[seat]!r} did not win the last round uncontested (a showdown "
                "shows the hands by itself; the others keep theirs hidden)")
    hand = state.hands[seat] if seat < len(state.hands) else None
    if not hand:
        return f"{state.names[seat]!r} holds no cards gutskit dealt to show"
    if seat in state.volunteered:
        return f"{state.names[seat]!r} has already shown their cards"
    return None


def show_hand(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    """``seat``, the uncontested winner of the last round, shows its cards to the table
    (:class:`~gutskit.core.events.HandShown`); no chip moves.

    Raises:
        IllegalActionError: see :func:`can_show_hand`.
    """
    problem = can_show_hand(state, seat)
    if problem is not None:
        raise IllegalActionError(problem)
    hand = state.hands[seat]
    assert hand
    return _apply(state, [HandShown(seat, tuple(hand))])


# ---------------------------------------------------------------------------------------------
# Misdeal and rebuys (table operations between the deals).


def can_misdeal(state: GameState) -> str | None:
    """``None`` if a misdeal may be declared now (cards are out and the round is not
    resolved), else the reason it may not."""
    if state.phase not in (Phase.PASS, Phase.DECLARE, Phase.SHOWDOWN):
        return f"no deal to throw in: the session is in the {state.phase.value} phase"
    return None


def misdeal(state: GameState, reason: str = "misdeal") -> tuple[GameState, list[Event]]:
    """Declare a misdeal (a player has the wrong number of cards, a card was exposed while
    dealing; in companion mode also when found at the showdown): the cards are thrown in,
    the antes stay in the pot, the same dealer deals again and the re-deal asks no new ante
    (RULES.md "Table and cards"; German/French seed). Declarations already made are void.

    Raises:
        IllegalActionError: see :func:`can_misdeal`.
    """
    problem = can_misdeal(state)
    if problem is not None:
        raise IllegalActionError(problem)
    return _apply(state, [Misdealt(reason)])


def can_rebuy(state: GameState, seat: int, chips: int) -> str | None:
    """``None`` if ``seat`` may buy ``chips`` more now, else the reason it may not.

    A rebuy needs ``rebuys``, happens between rounds (the deal phase), for a player still
    seated (not eliminated or sat out) whose stack is below the minimum buy-in (below the
    ante when there is none), within ``max_rebuys``; it is at least the minimum buy-in.
    """
    rules = state.rules
    if not rules.rebuys:
        return "the rules allow no rebuys (rebuys = false)"
    if state.phase is not Phase.DEAL:
        return f"a rebuy happens between rounds, not in the {state.phase.value} phase"
    if not (isinstance(seat, int) and 0 <= seat < state.n_seats):
        return f"seat {seat!r} is not at the table"
    name = state.names[seat]
    if state.eliminated[seat]:
        why = ("gone from the table" if state.left and state.left[seat]
               else "sat out" if state.sat_out[seat] else "eliminated")
        return f"{name!r} is {why} for the rest of the session"
    if not _rebuys_left(state, seat):
        used = ("the one rebuy" if rules.max_rebuys == 1
                else f"all {rules.max_rebuys} rebuys")
        return f"{name!r} has used {used} allowed (max_rebuys = {rules.max_rebuys})"
    floor = rules.min_buy_in if rules.min_buy_in is not None else rules.ante
    if state.stacks[seat] >= floor:
        stack = state.stacks[seat]
        return (f"{name!r} has {stack} chip{'' if stack == 1 else 's'}: a rebuy is for a "
                f"stack below {floor}")
    least = rules.min_buy_in or 1
    if isinstance(chips, bool) or not isinstance(chips, int) or chips < least:
        return f"a rebuy must be a whole number of chips >= {least}, not {chips!r}"
    return None


def _rebuys_left(state: GameState, seat: int) -> bool:
    """``seat`` has a rebuy left under ``rebuys`` and ``max_rebuys`` (the rebuy rule's
    count; :func:`can_rebuy` checks the rest). A round that leaves fewer than two players
    with chips ends the session only when no bust seat has one: otherwise the table waits
    between rounds for a rebuy (docs/protocol.md, Rebuys; docs/rules.md)."""
    rules = state.rules
    return rules.rebuys and (rules.max_rebuys is None
                             or state.rebuys_used[seat] < rules.max_rebuys)


def rebuy(state: GameState, seat: int, chips: int) -> tuple[GameState, list[Event]]:
    """``seat`` buys ``chips`` more (added to its stack and its buy-in in the ledger).

    Raises:
        IllegalActionError: see :func:`can_rebuy`.
    """
    problem = can_rebuy(state, seat, chips)
    if problem is not None:
        raise IllegalActionError(problem)
    return _apply(state, [Rebought(seat, chips)])


# ---------------------------------------------------------------------------------------------
# Companion mode (issue 10): the cards are dealt at a real table; gutskit runs the
# declarations and moves the chips. The settlement is the same pipeline (:func:`_resolve`).


def deal_unseen(state: GameState) -> tuple[GameState, list[Event]]:
    """Post the antes that are due and record a deal made at a real table: every seat in
    play is dealt in with cards gutskit does not know (``()``), and so are the ghost hand
    and the community card when the rules have them. The deal of companion mode
    (:attr:`GameState.companion`).

    Raises:
        IllegalActionError: see :func:`can_deal`.
    """
    problem = can_deal(state)
    if problem is not None:
        raise IllegalActionError(problem)
    hands: list[Hand | None] = [None] * state.n_seats
    for seat in _deal_order(state):
        hands[seat] = ()
    extras: dict[str, Hand] = {what: () for what, _ in state.variants.extra_cards}
    return _deal(state, tuple(hands), extras.get("ghost"), extras.get("community"))


@dataclass(frozen=True, slots=True)
class ShowdownNeeds:
    """What a companion showdown waits for (:func:`showdown_needs`).

    Attributes:
        seats: the seats whose cards are needed, in declaration order (clockwise from the
            dealer's left): the players in; every seat dealt in when everyone is out under
            ``all_out = "best_pays_antes"`` (the best hand pays the antes).
        in_seats: the seats in (``()`` in a void round).
        ghost: the ghost hand is needed (``ghost_hand``), ``cards_per_hand`` cards.
        community: the community card is needed (``community_card``), one card.
        high_seats, low_seats: ``hi_lo``: the seats that may be named on the high side
            (declared high or both) and on the low side (low or both)
            (:func:`gutskit.variants.hi_lo.sides`); ``()`` under every other rule.
    """

    seats: tuple[int, ...]
    in_seats: tuple[int, ...]
    ghost: bool
    community: bool
    high_seats: tuple[int, ...] = ()
    low_seats: tuple[int, ...] = ()


def showdown_needs(state: GameState) -> ShowdownNeeds | None:
    """What the companion showdown waits for, or ``None`` when no showdown waits
    (:attr:`Phase.SHOWDOWN`): the input of :func:`show_cards` (or of :func:`name_winners`:
    the winners are among ``in_seats``; in a void round among ``seats``)."""
    if state.phase is not Phase.SHOWDOWN:
        return None
    in_seats = _in_seats(state.declarations)
    order = state.declaration_order()
    seats = tuple(s for s in order if s in in_seats) if in_seats else order
    extras = dict(state.variants.extra_cards)
    high, low = sides(state.declarations, in_seats) if state.rules.hi_lo else ((), ())
    return ShowdownNeeds(seats=seats, in_seats=tuple(in_seats), ghost="ghost" in extras,
                         community="community" in extras, high_seats=tuple(high),
                         low_seats=tuple(low))


def _is_seat(state: GameState, seat: object) -> bool:
    return (isinstance(seat, int) and not isinstance(seat, bool)
            and 0 <= seat < state.n_seats)


def can_show_cards(state: GameState, hands: Mapping[int, Sequence[Card]], *,
                   ghost: Sequence[Card] | None = None,
                   community: Sequence[Card] | None = None) -> str | None:
    """``None`` if :func:`show_cards` may be applied, else the reason it may not: no
    showdown waits, a seat whose cards are needed is missing (:func:`showdown_needs`), a
    seat that was out (or not dealt in) is given, a hand of the wrong size, something
    that is not a card, a card given twice, the ghost hand or the community card missing
    or given when the rules deal none."""
    needs = showdown_needs(state)
    if needs is None:
        return f"no showdown is waiting for cards: the session is in the {state.phase.value} phase"
    k = state.rules.cards_per_hand
    seen: dict[Card, int] = {}
    for seat, hand in hands.items():
        if not _is_seat(state, seat):
            return f"there is no seat {seat!r} at the table"
        name = state.names[seat]
        if seat not in needs.seats:
            why = ("was not dealt in" if state.hands[seat] is None
                   else "declared out: their cards stay hidden")
            return f"the cards of {name!r} are not needed: {name!r} {why}"
        if isinstance(hand, str) or len(hand) != k:
            return (f"hand of {name!r} ({_cards_text(hand)}) has {len(hand)} card"
                    f"{'' if len(hand) == 1 else 's'}, expected {k}")
        for card in hand:
            if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
                return f"hand of {name!r} holds {card!r}, which is not a card"
            if card in seen:
                other = state.names[seen[card]]
                where = f"both {other!r} and {name!r}" if other != name else f"{name!r} twice"
                return f"card {format_cards([card])} is given to {where}"
            seen[card] = seat
    for seat in needs.seats:
        if seat not in hands:
            name = state.names[seat]
            why = "is in" if needs.in_seats else "was dealt in (everyone is out)"
            return f"the cards of {name!r} are needed: {name!r} {why}"
    for label, extra, needed in (("ghost hand", ghost, needs.ghost),
                                 ("community card", community, needs.community)):
        if needed and not extra:
            return f"the {label} is needed for the showdown"
    problem = _extras_problem(state, seen, None if ghost is None else tuple(ghost),
                              None if community is None else tuple(community))
    if problem is not None:
        return problem
    trial = evolve(state, _shown_event(state, hands, ghost, community))
    return _resolution_problem(trial, trial.declarations)


def _cards_text(hand: object) -> str:
    try:
        return format_cards(hand)  # type: ignore[arg-type]
    except (TypeError, ValueError, IndexError, KeyError):
        return repr(hand)


def _shown_event(state: GameState, hands: Mapping[int, Sequence[Card]],
                 ghost: Sequence[Card] | None, community: Sequence[Card] | None
                 ) -> CardsShown:
    per_seat = tuple(None if s not in hands else tuple(hands[s])
                     for s in range(state.n_seats))
    return CardsShown(hands=per_seat, ghost=None if ghost is None else tuple(ghost),
                      community=None if community is None else tuple(community))


def show_cards(state: GameState, hands: Mapping[int, Sequence[Card]], *,
               ghost: Sequence[Card] | None = None,
               community: Sequence[Card] | None = None) -> tuple[GameState, list[Event]]:
    """Companion mode: enter the cards turned up at the real table's showdown; the round is
    settled from them exactly as a dealt round (the rules' ranking, split pots, matches,
    pot cap, shortfall, hi-lo, ghost hand, community card: :func:`_resolve`).

    Args:
        hands: seat -> its cards (``cards_per_hand`` card codes, :mod:`gutskit.core.cards`)
            for exactly the seats :func:`showdown_needs` names.
        ghost: the ghost hand (``ghost_hand``).
        community: the community card as a one-card hand (``community_card``).

    Returns:
        The new state and the events: :class:`CardsShown`, :class:`RoundResolved` (and a
        :class:`SatOut` for a player at their loss limit).

    Raises:
        IllegalActionError: see :func:`can_show_cards`; nothing is applied then.
    """
    problem = can_show_cards(state, hands, ghost=ghost, community=community)
    if problem is not None:
        raise IllegalActionError(problem)
    shown = _shown_event(state, hands, ghost, community)
    state, more = _round_end(evolve(state, shown))
    return state, [shown, *more]


def _seats_problem(state: GameState, seats: object, what: str) -> str | None:
    if isinstance(seats, str | bytes) or not isinstance(seats, Sequence | frozenset | set):
        return f"{what} must be a list of seats, not {seats!r}"
    for seat in seats:
        if not _is_seat(state, seat):
            return f"{what}: there is no seat {seat!r} at the table"
    if len(set(seats)) != len(seats):
        return f"{what}: a seat is named twice"
    return None


def can_name_winners(state: GameState, winners: Sequence[int], *,
                     low_winners: Sequence[int] = (),
                     losers: Sequence[int] | None = None) -> str | None:
    """``None`` if :func:`name_winners` may be applied, else the reason it may not.

    The named result must be one the cards could give: the winners are players in (in a
    void round under ``all_out = "best_pays_antes"``: players dealt in, the best hand(s));
    at least one winner unless the pot may stay (the ghost hand beat everyone; hi-lo);
    ``low_winners`` only under ``hi_lo`` (each side's winners declared that side or both;
    a both player wins both ways or neither); ``losers`` exactly under ``losers_pay =
    "worst"`` (players in who did not win: the worst hand(s)).
    """
    needs = showdown_needs(state)
    if needs is None:
        return (f"no showdown is waiting for its winners: the session is in the "
                f"{state.phase.value} phase")
    for what, seats in (("winners", winners), ("low winners", low_winners)):
        problem = _seats_problem(state, seats, what)
        if problem is not None:
            return problem
    if losers is not None:
        problem = _seats_problem(state, losers, "losers")
        if problem is not None:
            return problem
    game = state.variants
    names = state.names
    in_seats = needs.in_seats
    hi_lo = Declaration.LOW in game.declarations
    if low_winners and not hi_lo:
        return "low winners are named only in hi-lo Guts (hi_lo)"
    if not in_seats:  # a void round: the best hand(s) pay the antes
        if not winners or losers is not None:
            return ("everyone is out: name the player(s) holding the best hand, who pay "
                    "everyone's ante (all_out = \"best_pays_antes\")")
        return None
    for seat in winners if not hi_lo else ():
        if seat not in in_seats:
            return f"{names[seat]!r} cannot win: {names[seat]!r} is not in"
    if not winners and not low_winners and not game.pot_may_stay:
        return "name at least one winner (tied winners split the pot)"
    problem = game.named_problem(state, in_seats, winners, low_winners)
    if problem is not None:
        return problem
    if game.picks_losers:
        rest = [s for s in in_seats if s not in winners]
        if rest and not losers:
            return ("name the loser(s) too: under losers_pay = \"worst\" only the worst "
                    "hand in matches the pot")
        for seat in losers or ():
            if seat not in rest:
                return (f"{names[seat]!r} cannot be a loser: "
                        + ("they won" if seat in winners else "they are not in"))
    elif losers is not None:
        return ("losers are named only under losers_pay = \"worst\": every player in "
                "who did not win matches the pot")
    return None


def name_winners(state: GameState, winners: Sequence[int], *,
                 low_winners: Sequence[int] = (),
                 losers: Sequence[int] | None = None) -> tuple[GameState, list[Event]]:
    """Companion mode: the table agrees not to enter cards and names the result of the
    showdown; the chips move by the same settlement as a dealt round (:func:`_resolve`
    with the named winners in place of the comparison of the hands).

    Args:
        winners: the seats that take the pot (tied winners split it, odd chips per
            ``odd_chip``); ``()`` under ``ghost_hand`` when the ghost hand was best; the
            high side's winners under ``hi_lo``; in a void round under ``all_out =
            "best_pays_antes"`` the seats holding the best hand (they pay the antes).
        low_winners: the low side's winners (``hi_lo``).
        losers: under ``losers_pay = "worst"``: the seats holding the worst hand in.

    Returns:
        The new state and the events: :class:`WinnersNamed`, :class:`RoundResolved` (and a
        :class:`SatOut` for a player at their loss limit).

    Raises:
        IllegalActionError: see :func:`can_name_winners`; nothing is applied then.
    """
    problem = can_name_winners(state, winners, low_winners=low_winners, losers=losers)
    if problem is not None:
        raise IllegalActionError(problem)
    named = WinnersNamed(winners=tuple(sorted(winners)), low_winners=tuple(sorted(low_winners)),
                         losers=None if losers is None else tuple(sorted(losers)))
    state, more = _round_end(evolve(state, named), named)
    return state, [named, *more]


def can_undo_round(state: GameState) -> str | None:
    """``None`` if :func:`undo_round` may be applied, else the reason it may not: not a
    companion session, no round dealt yet, or something happened at the table after the
    last round (a rebuy, a seat away, back or gone, the table agreed to stop): only the
    last round, right after it, can be undone."""
    if not state.companion:
        return "only a companion session's rounds can be undone (the cards were dealt here)"
    if state.undo_point is None:
        if state.round_number == 0:
            return "no round has been dealt yet: nothing to undo"
        return ("nothing to undo: only the last round can be undone, before anything else "
                "happens at the table (a rebuy, a seat away or gone, the end)")
    return None


def undo_round(state: GameState, reason: str = "undone by the host"
               ) -> tuple[GameState, list[Event]]:
    """Companion mode: undo the last round (a wrong entry), resolved or still in progress.
    Every chip it moved goes back (antes, wins, matches, the reserve, eliminations, the end
    of the session it caused) and the table stands where it stood before its deal, with
    the same dealer; one :class:`RoundUndone` records it in the hand history.

    Raises:
        IllegalActionError: see :func:`can_undo_round`.
    """
    problem = can_undo_round(state)
    if problem is not None:
        raise IllegalActionError(problem)
    point = state.undo_point
    assert point is not None
    event = RoundUndone(round=state.round_number, stacks=point.stacks, pot=point.pot,
                        reserve=point.reserve, reason=reason)
    return _apply(state, [event])


# ---------------------------------------------------------------------------------------------
# Declarations.


def legal_declarations(rules: Rules) -> tuple[Declaration, ...]:
    """The declarations a player may make under ``rules``: in or out, or a variant's own
    (hi-lo: high, low, both or out; :mod:`gutskit.variants.hi_lo`). Every front end offers
    these.

    >>> [d.value for d in legal_declarations(Rules(hi_lo=True))]
    ['high', 'low', 'both', 'out']
    >>> [d.value for d in legal_declarations(Rules())]
    ['in', 'out']
    """
    return variants_for(rules).declarations


def can_declare(state: GameState, seat: int, declaration: Declaration) -> str | None:
    """``None`` if ``seat`` may declare ``declaration`` now, else the reason it may not
    (wrong phase, not dealt in, already declared, not its turn under sequential
    declaration, or in without cover under ``require_cover``)."""
    if state.phase is not Phase.DECLARE:
        return f"cannot declare now: the session is in the {state.phase.value} phase"
    if not (0 <= seat < state.n_seats) or state.hands[seat] is None:
        return f"seat {seat!r} was not dealt in"
    if state.declarations[seat] is not None:
        return f"{state.names[seat]!r} has already declared"
    if state.variants.in_turn:
        turn = state.next_to_declare()
        if turn is not None and turn != seat:
            return f"it is {state.names[turn]}'s turn to declare, not {state.names[seat]}'s"
    return _declaration_problem(state, seat, declaration)


def _declaration_problem(state: GameState, seat: int, declaration: Declaration) -> str | None:
    """The checks on the declaration itself (in/out or, under ``hi_lo``, high/low/both/out;
    ``require_cover``). A hand dealt at a real table and not recorded (``()``) may be
    declared in: the resolution refuses a showdown that needs it
    (:meth:`gutskit.variants.Variants.missing_cards`)."""
    if declaration is _OUT:
        return None
    name = state.names[seat]
    legal = state.variants.declarations
    if _IN not in legal:  # hi-lo: high, low, both or out
        if declaration not in legal or not isinstance(declaration, Declaration):
            words = ", ".join(d.value for d in legal[:-1])
            return (f"declaration of {name!r} must be {words} or out in hi-lo Guts, "
                    f"not {getattr(declaration, 'value', declaration)!r}")
    elif declaration is not _IN:
        if isinstance(declaration, Declaration):
            return (f"{name!r} declared {declaration.value!r}: high, low and both need "
                    "hi_lo; declare in or out")
        return f"declaration of {name!r} must be in or out, not {declaration!r}"
    if not settlement.can_cover(state.stacks[seat], state.pot, state.rules):
        owed = settlement.match_amount(state.pot, state.rules)
        return (f"{name!r} cannot declare in: require_cover needs {owed} "
                f"chip{'' if owed == 1 else 's'} to match the "
                f"pot, {name!r} has {state.stacks[seat]}")
    return None


def declare(state: GameState, seat: int,
            declaration: Declaration) -> tuple[GameState, list[Event]]:
    """``seat`` declares in or out; the last declaration reveals all and resolves the round.

    Raises:
        IllegalActionError: see :func:`can_declare`.
    """
    problem = can_declare(state, seat, declaration)
    if problem is not None:
        raise IllegalActionError(problem)
    after = evolve(state, Declared(seat, declaration))
    events: list[Event] = [Declared(seat, declaration)]
    if _all_declared(after) and not counted(after):
        return _open(after, events)
    return after, events


def _all_declared(state: GameState) -> bool:
    return all(d is not None or h is None for d, h in zip(state.declarations, state.hands,
                                                          strict=True))


def counted(state: GameState) -> bool:
    """Whether the fists of this session open on a count rather than with the last
    declaration: companion mode under ``declaration = "drop"`` ("1-2-3 drop", RULES.md
    step 3: on the count, players who are out drop their cards). There the last fist in
    does not open them: :func:`open_fists` does, when the count ends."""
    return state.companion and state.rules.declaration == "drop"


def _open(after: GameState, events: list[Event]) -> tuple[GameState, list[Event]]:
    """Every seat has declared: the fists open (:class:`DeclarationsRevealed`) and the
    round resolves (or, in companion mode, waits for the cards at the showdown)."""
    problem = None if after.companion else _resolution_problem(after, after.declarations)
    if problem is not None:
        raise IllegalActionError(problem)
    reveal = DeclarationsRevealed(after.declarations)
    after = evolve(after, reveal)
    events.append(reveal)
    if after.phase is Phase.SHOWDOWN:  # companion mode: the cards are at the table
        return after, events
    after, more = _round_end(after)
    events.extend(more)
    return after, events


def can_open_fists(state: GameState) -> str | None:
    """``None`` if the count of "1-2-3 drop" may end now (:func:`open_fists`), else why not:
    not a counted session (:func:`counted`), no round being declared, or, under Hi-Lo, a
    player who has not declared a side (holding the cards names no side)."""
    if not counted(state):
        return ('the fists open on a count only under declaration = "drop" in companion '
                "mode; here the last declaration opens them")
    if state.phase is not Phase.DECLARE:
        return f"no count now: the session is in the {state.phase.value} phase"
    if Declaration.IN not in state.variants.declarations:
        waiting = [state.names[s] for s in state.declaration_order()
                   if state.declarations[s] is None]
        if waiting:
            return ("under Hi-Lo holding the cards names no side: every player declares "
                    f"high, low, both or out before the count (waiting for "
                    f"{', '.join(waiting)})")
    return None


def open_fists(state: GameState) -> tuple[GameState, list[Event]]:
    """The count of "1-2-3 drop" ends (companion mode, :func:`counted`; RULES.md step 3:
    "on the count, players who are out drop their cards"): a player who has not dropped
    holds their cards and is in (:class:`Declared` IN; out when ``require_cover`` does not
    let them be in), then the fists open and the round resolves as after the last
    declaration (:func:`declare`). A drop after this is too late: the round is no longer
    declared.

    Raises:
        IllegalActionError: see :func:`can_open_fists`; nothing is applied then.
    """
    problem = can_open_fists(state)
    if problem is not None:
        raise IllegalActionError(problem)
    events: list[Event] = []
    for seat in state.declaration_order():
        if state.declarations[seat] is None:
            held = (Declaration.IN if _declaration_problem(state, seat, Declaration.IN) is None
                    else Declaration.OUT)
            state = evolve(state, Declared(seat, held))
            events.append(Declared(seat, held))
    return _open(state, events)


def declare_all(state: GameState, declarations: Mapping[int, Declaration]
                ) -> tuple[GameState, list[Event]]:
    """Every dealt-in seat declares at once: the simultaneous joint action. One
    :class:`DeclarationsRevealed` event records it (the fists open together), then the
    round resolves. Also valid under sequential declaration (same result: each call is
    checked in declaration order).

    Args:
        declarations: seat -> IN/OUT for exactly the seats dealt in.

    Raises:
        IllegalActionError: a dealt-in seat is missing, an extra seat is given, or a
            declaration is illegal (see :func:`can_declare`); nothing is applied then.
    """
    if state.phase is not _DECLARE:
        raise IllegalActionError(
            f"cannot declare now: the session is in the {state.phase.value} phase")
    hands = state.hands
    n = len(hands)
    unrecorded = False  # an in hand dealt at a real table, not recorded (``()``)
    given: list[Declaration | None] | None = None
    # ``all``: no hand is None or unrecorded, and no declaration is missing (cheaper than
    # ``None not in``, which compares each item with None)
    if len(declarations) == n and all(hands) and state.declarations.count(None) == n:
        given = list(map(declarations.get, range(n)))
    if given is not None and all(given):
        # the usual case: every seat is dealt in, none has declared yet, each is given
        decls = given
        for seat, choice in enumerate(decls):
            if choice is not _OUT:  # out is always legal
                problem = _declaration_problem(state, seat, choice)  # type: ignore[arg-type]
                if problem is not None:
                    raise IllegalActionError(problem)
    else:
        decls = list(state.declarations)
        dealt = 0
        for seat, hand in enumerate(hands):
            if hand is None:
                if seat in declarations:
                    raise IllegalActionError(f"seat {seat!r} was not dealt in")
                continue
            dealt += 1
            choice = declarations.get(seat)
            if choice is None:
                raise IllegalActionError(f"no declaration for {state.names[seat]!r}")
            if decls[seat] is None:
                if choice is not _OUT:  # out is always legal
                    problem = _declaration_problem(state, seat, choice)
                    if problem is not None:
                        raise IllegalActionError(problem)
                    unrecorded = unrecorded or not hand
                decls[seat] = choice
        if len(declarations) > dealt:
            extra = next(s for s in declarations
                         if not (isinstance(s, int) and 0 <= s < state.n_seats))
            raise IllegalActionError(f"seat {extra!r} is not at the table")
    if (unrecorded or not state.variants.plain) and not state.companion:
        problem = _resolution_problem(state, decls)
        if problem is not None:
            raise IllegalActionError(problem)
    revealed = tuple(decls)
    reveal = _REVEALED(revealed)
    if state.companion or not state.variants.plain:
        state = evolve(state, reveal)
        if state.phase is _SHOWDOWN:  # companion mode: the cards are at the table
            return state, [reveal]
        resolved = _resolve(state)
        state = evolve(state, resolved)
    else:
        # plain rules: the round resolves from the declarations revealed (no variant hook
        # reads the state between), and the reveal and the resolution are applied to one
        # copy of the state, by their handlers' changes: what :func:`evolve` of each in
        # turn gives (the resolution reads nothing the reveal changes)
        resolved = _resolve(state, declarations=revealed)
        new = _draft(state)
        _revealed_into(new, state, reveal)
        _resolved_into(new, state, resolved)
        state = _done(new)
        _check_conserved(state, "RoundResolved")
    if state.loss_limits is None:
        return state, [reveal, resolved]
    state, more = _sit_out(state)
    return state, [reveal, resolved, *more]


def _round_end(state: GameState, named: WinnersNamed | None = None
               ) -> tuple[GameState, list[Event]]:
    """Resolve the revealed round (with the winners the table named, in companion mode),
    then sit out the players at their loss limit."""
    resolved = _resolve(state, named)
    state = evolve(state, resolved)
    if state.loss_limits is None:
        return state, [resolved]
    state, more = _sit_out(state)
    return state, [resolved, *more]


def _over_limit(state: GameState, stacks: Sequence[int], out: Sequence[bool]) -> list[int]:
    """Seats still seated whose net loss reached their personal loss limit."""
    limits = state.loss_limits
    if limits is None:
        return []
    return [s for s, limit in enumerate(limits)
            if limit is not None and not out[s] and state.buy_ins[s] - stacks[s] >= limit]


def _sit_out(state: GameState) -> tuple[GameState, list[Event]]:
    events: list[Event] = []
    for seat in _over_limit(state, state.stacks, state.eliminated):
        limit = state.loss_limits[seat] if state.loss_limits else None
        loss = state.buy_ins[seat] - state.stacks[seat]
        events.append(SatOut(seat, f"{state.names[seat]} reached their loss limit of "
                                   f"{limit} chip{'' if limit == 1 else 's'} (down {loss}) "
                                   f"and sits out"))
    return _apply(state, events)


def _resolution_problem(state: GameState, decls: Sequence[Declaration | None]) -> str | None:
    """Cards a variant needs to resolve the round but that were not recorded (``()``, a
    referee's real table): the hands in at a showdown, the ghost hand, the community card,
    every hand for the all-out penalty (:meth:`gutskit.variants.Variants.missing_cards`)."""
    out = Declaration.OUT
    in_seats = [s for s, d in enumerate(decls) if d is not None and d is not out]
    return state.variants.missing_cards(state, in_seats)


# ---------------------------------------------------------------------------------------------
# Resolution (RULES.md "Antes, declaration, resolution", step 4-5).


def seat_to_deal(dealer: int, stacks: Sequence[int],
                 eliminated: Sequence[bool] | None = None) -> int:
    """Who deals when the deal comes to seat ``dealer``: that seat if it is in play, else
    the next seat on its left that is: a player with no chips is not dealt in and the deal
    passes to the next seated player still in play (RULES.md "Money, limits, ending").
    ``dealer`` itself when nobody is in play.

    >>> seat_to_deal(0, [0, 5, 5]), seat_to_deal(2, [4, 0, 0]), seat_to_deal(1, [0, 0, 0])
    (1, 0, 1)
    """
    n_seats = len(stacks)
    for i in range(n_seats):  # the seat itself, then clockwise on its left
        seat = (dealer + i) % n_seats
        if stacks[seat] > 0 and not (eliminated is not None and eliminated[seat]):
            return seat
    return dealer


def _next_dealer(dealer: int, playing: Sequence[int], *, void: bool) -> int:
    """The next round's dealer, given the seats in play after the round (``playing``, in
    seat order): after a void round the same dealer deals again (German/French seed) if
    still in play; otherwise the deal passes to the next seat on the left that is still in
    play (RULES.md "Money, limits, ending"; as :func:`seat_to_deal` from the dealer's
    left); the dealer stays when nobody is in play."""
    if void and dealer in playing:
        return dealer
    for seat in playing:
        if seat > dealer:
            return seat
    return playing[0] if playing else dealer


def _resolve(state: GameState, named: WinnersNamed | None = None, *,
             declarations: tuple[Declaration | None, ...] | None = None) -> RoundResolved:
    """Settle the round once every declaration is revealed: the one resolution pipeline
    (RULES.md "Antes, declaration, resolution", steps 4-5). The variants
    (``state.variants``, :func:`gutskit.variants.variants_for`) plug in at its named steps:

    1. *contest*: nobody in -> void round; one in -> uncontested win (unless the variant
       forbids it: ghost hand); otherwise a showdown;
    2. *void round*: the variants settle it (``on_void``: the all-out penalty);
    3. *showdown* (:func:`_showdown`): score the hands (``score``: community card), award
       the pot (``showdown``: hi-lo; ``winners``: ghost hand; split per ``odd_chip``), say
       who matches (``losers``: single loser); then the matches are paid (``shortfall``)
       and the pot capped (``pot_cap``);
    4. *turn*: cards turned face up at every resolution (``turn``: community card);
    5. *round end*: stacks, eliminations, loss limits, next dealer, end of the session.

    Under rules with no resolution variant (``Variants.plain``) the hooks are skipped.
    ``named``: companion mode, the table named the result instead of showing cards
    (:func:`name_winners`): it stands in for the comparison of the hands; every other step
    is the same. ``declarations``: under plain rules, the declarations revealed, when
    ``state`` is the state before the reveal (:func:`declare_all`); default
    ``state.declarations``.
    """
    game = state.variants
    plain = game.plain
    n = len(state.names)
    out = _OUT
    if declarations is None:
        declarations = state.declarations
    in_seats = [s for s, d in enumerate(declarations) if d is not out and d is not None]
    won = [0] * n
    owed = [0] * n
    shown: list[Hand | None] = [None] * n
    # the variants' scratch record (the standard game keeps its results in locals)
    result = None if plain else Resolution(won, owed, shown)
    winners: tuple[int, ...] = ()
    pot = state.pot
    matched = [0] * n
    eliminated: list[int] = []
    to_reserve = 0
    pot_after = pot
    # 1. contest
    if not in_seats:
        outcome = _VOID
        if result is not None:  # 2. void round
            if named is not None:  # the table named the best hand(s)
                result.ante_payers = named.winners
            else:
                game.on_void(state, game.score(state, game.strength), result)
    elif len(in_seats) == 1 and game.uncontested_win:
        outcome = _UNCONTESTED
        winners = (in_seats[0],)
        won[in_seats[0]] = pot
        pot_after = 0
    else:  # 3. showdown
        outcome = _COMPARED
        winners, carry, owing = _showdown(state, game, in_seats, won, owed, shown, result,
                                          named)
        rules = state.rules
        stacks = state.stacks
        for seat in owing:
            paid, gone = settlement.pay_match(stacks[seat], owed[seat], rules)
            matched[seat] = paid
            if gone:
                eliminated.append(seat)
        pot_after, to_reserve = settlement.cap_pot(carry + sum(matched), rules)
    if result is not None:  # 4. turn
        game.turn(state, result)
    # 5. round end
    stacks_after = list(map(_sub, map(_add, state.stacks, won), matched))
    out_flags: Sequence[bool] = state.eliminated
    if eliminated or state.loss_limits is not None:
        flags = [e or s in eliminated for s, e in enumerate(out_flags)]
        for seat in _over_limit(state, stacks_after, flags):
            flags[seat] = True
        out_flags = flags
    playing: Sequence[int]
    if _all_at_least(stacks_after, 1) and not any(out_flags):
        playing = range(n)  # every seat (the usual case)
    else:
        playing = [s for s, stack in enumerate(stacks_after) if stack > 0 and not out_flags[s]]
    # the button skips seats away (dealt out), unless every seat in play is away
    away = state.away
    dealers = playing if not away else [s for s in playing if not away[s]] or playing
    next_dealer = _next_dealer(state.dealer, dealers, void=outcome is _VOID)
    session_over = (len(playing) < 2 and not any(
        _rebuys_left(state, s) for s, stack in enumerate(stacks_after)
        if stack <= 0 and not out_flags[s])) or (
        outcome is _UNCONTESTED and state.rules.end_on_uncontested
        and state.game_matched)
    if result is None:
        return _ROUND_RESOLVED(  # positional (faster): the fields in their order
            outcome, tuple(shown), winners, tuple(won), tuple(matched), tuple(eliminated),
            to_reserve, pot_after, next_dealer, session_over)
    return _ROUND_RESOLVED(
        outcome=outcome, shown=tuple(shown), winners=winners, won=tuple(won),
        matched=tuple(matched), eliminated=tuple(eliminated), to_reserve=to_reserve,
        pot_after=pot_after, next_dealer=next_dealer, session_over=session_over,
        community=result.community, ghost=result.ghost, ghost_won=result.ghost_won,
        high_winners=result.high_winners, low_winners=result.low_winners,
        high_pot=result.high_pot, low_pot=result.low_pot, ante_payers=result.ante_payers,
        failed_high=result.failed_high, failed_low=result.failed_low,
    )


def _showdown(state: GameState, game: Variants, in_seats: list[int], won: list[int],
              owed: list[int], shown: list[Hand | None], result: Resolution | None,
              named: WinnersNamed | None = None) -> tuple[tuple[int, ...], int, list[int]]:
    """The showdown step: shows the hands in, fills ``won`` (the awards) and ``owed`` (each
    loser's match); returns the winners, the chips the award leaves in the pot and the
    seats that owe a match, in seat order. ``result``: the variants' record (``None``
    under plain rules). ``named``: the result the table named (companion mode): no hand is
    shown, the named seats win (and, under single loser, the named seats match); the
    award is the same."""
    rules = state.rules
    table = game.strength
    hands = state.hands
    keys: dict[int, int] = {}
    chosen: tuple[int, ...] | None = None
    if named is not None:
        chosen = named.winners
        if result is not None:
            if game.award(state, in_seats, named.winners, named.low_winners, result):
                return result.winners, result.carry, [s for s in in_seats if owed[s]]
            game.winners_named(state, named.winners, result)
    elif result is None:
        for seat in in_seats:
            hand = hands[seat]
            assert hand is not None
            shown[seat] = hand
            index = 0
            for card in hand:
                index = index * 52 + card
            keys[seat] = table[index]
    else:
        score = game.score(state, table)
        for seat in in_seats:
            shown[seat] = hands[seat]
        if game.showdown(state, in_seats, score, result):
            return result.winners, result.carry, [s for s in in_seats if owed[s]]
        for seat in in_seats:
            hand = hands[seat]
            assert hand is not None
            keys[seat] = score(hand, False)
        chosen = game.winners(state, keys, score, result)
    pot = state.pot
    if chosen is None:
        best = max(keys.values())
        winners = tuple([s for s in in_seats if keys[s] == best])
    else:
        winners = chosen
    if winners:
        shares, carry = settlement.split_pot(pot, winners, state.dealer, len(hands), rules)
        for seat, share in shares.items():
            won[seat] = share
    else:
        carry = pot  # nobody takes the pot
    if named is not None:
        losers = None if named.losers is None else list(named.losers)
    else:
        losers = None if result is None else game.losers(state, keys, winners)
    if losers is None:
        losers = [s for s in in_seats if s not in winners]
    amount = settlement.match_amount(pot, rules)
    for seat in losers:
        owed[seat] = amount
    if result is not None:
        result.winners, result.carry = winners, carry
    return winners, carry, losers


# ---------------------------------------------------------------------------------------------
# Ending.


def end_session(state: GameState, reason: str = "the table agreed to stop"
                ) -> tuple[GameState, list[Event]]:
    """End the session: what is left in the pot and the reserve is shared evenly among the
    players still seated (not eliminated), odd chips clockwise from the dealer's left
    (RULES.md ``pot_cap_mode = "reserve"``; gutskit applies the same to a pot left on the
    table when play stops mid-game). The dealer is ``state.dealer``, whoever holds the button
    when the table stops: after a settled round the player who would deal next (the deal has
    passed to the left), during a round that round's dealer. Cards of an unfinished round
    are thrown in.

    Ending an ended session is allowed when chips remain and is a no-op otherwise.
    """
    if (state.phase is Phase.OVER and state.pot == 0 and state.reserve == 0
            and state.end_reason is not None):
        return state, []
    seated = [s for s in range(state.n_seats) if not state.eliminated[s]]
    if not seated:
        seated = list(range(state.n_seats))
    shares = settlement.share_evenly(state.pot + state.reserve, seated, state.dealer,
                                     state.n_seats)
    payouts = tuple(shares.get(s, 0) for s in range(state.n_seats))
    reason = state.end_reason or reason
    return _apply(state, [SessionEnded(reason=reason, payouts=payouts)])


def deal_from_rng(state: GameState, rng: random.Random | None = None
                  ) -> tuple[GameState, list[Event]]:
    """Shuffle a fresh deck with ``rng`` (default: the OS CSPRNG) and :func:`deal` it.

    Only the cards that are dealt are drawn: ``rng.sample`` of the 52 cards gives the top
    cards of a uniformly shuffled deck, in order, with the same distribution as a full
    shuffle, at a fraction of the cost.
    """
    order = _deal_order(state)
    if state.phase is not _DEAL or len(order) < 2:
        raise IllegalActionError(can_deal(state))
    source = rng if rng is not None else _SYSTEM_RANDOM
    game = state.variants
    if not game.extra_cards:
        needed = state.rules.cards_per_hand * len(order)
        return _deal(state, _hands(state, order, _sample_deck(source, needed)))
    deck = _sample_deck(source, game.cards_needed(len(order)))
    return _deal(state, *deal_from_deck(state, deck))


_DRAWS = tuple((n, n.bit_length()) for n in range(len(DECK), 0, -1))
"""The pool sizes of the deal's draws, largest first, with the bits each draw takes."""


def _sample_deck(rng: random.Random, k: int) -> list[Card]:
    """``rng.sample(DECK, k)``: the same cards in the same order, drawn from the same
    random bits. For a plain :class:`random.Random` and ``k > 5`` (where ``sample`` takes
    its pool path: ``k`` draws of ``_randbelow`` by ``getrandbits`` with rejection, each
    drawn card replaced in the pool by the pool's last) the draws are made here, without
    ``sample``'s argument checks and one Python call per card: the deal's hot path. Any
    other source, and fewer cards, use ``rng.sample`` itself. ``tests/test_engine_speed``
    checks the equality for many seeds and sizes; the golden sessions pin the deals."""
    if type(rng) is not random.Random or k <= 5:
        return rng.sample(DECK, k)
    getrandbits = rng.getrandbits
    pool = list(DECK)
    cards: list[Card] = []
    draw = cards.append
    for n, bits in _DRAWS[:k]:
        j = getrandbits(bits)
        while j >= n:
            j = getrandbits(bits)
        draw(pool[j])
        pool[j] = pool[n - 1]
    return cards
