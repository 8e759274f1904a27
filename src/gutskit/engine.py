"""The Guts rules engine: a pure state machine for a whole session.

State is a frozen :class:`GameState`; every operation is a pure function
``state, action -> (new state, events)`` with a ``can_*`` twin that says whether it is
legal without applying it (PokerKit style). Every change is an event
(:mod:`gutskit.events`), and :func:`evolve` is the only function that applies an event,
so :func:`replay` of a hand history rebuilds the exact state. Chip conservation is checked
after every event; a violation raises :class:`ConservationError` at once.

A round (RULES.md "Table and cards") is: antes if due + deal (:func:`deal`), declarations
(:func:`declare`, or :func:`declare_all` for a simultaneous joint action), then resolution,
applied automatically when the last seat has declared.

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

import enum
import random
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gutskit import settlement
from gutskit.cards import DECK, Card, format_cards, shuffled_deck
from gutskit.evaluation import strength_table
from gutskit.events import (
    AntesPosted,
    CardsDealt,
    Declaration,
    DeclarationsRevealed,
    Declared,
    Event,
    Hand,
    Outcome,
    RoundResolved,
    SessionEnded,
    SessionStarted,
)
from gutskit.rules import DEFAULT_RULES, Rules

__all__ = [
    "ConservationError",
    "Declaration",
    "GameState",
    "IllegalActionError",
    "Phase",
    "can_deal",
    "can_declare",
    "deal",
    "declare",
    "declare_all",
    "end_session",
    "evolve",
    "hands_from_deck",
    "new_session",
    "replay",
    "shuffled_deck",
]


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state; the message says why."""


class ConservationError(AssertionError):
    """Chips were created or destroyed: an engine bug, raised at once."""


class Phase(enum.Enum):
    """Where a session stands."""

    DEAL = "deal"
    """Waiting for the next deal (antes are posted with it)."""
    DECLARE = "declare"
    """Cards are out; waiting for declarations."""
    OVER = "over"
    """The session has ended."""


@dataclass(frozen=True)
class GameState:
    """A session of Guts at one moment. Per-seat tuples are indexed by seat (clockwise).

    Attributes:
        rules: the house rules.
        names: player names.
        stacks: chips in front of each player (negative only under ``shortfall = "debt"``).
        buy_ins: chips each player brought to the table.
        eliminated: seats out for the rest of the session (``shortfall = "eliminate"``).
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

    @property
    def n_seats(self) -> int:
        """Number of seats."""
        return len(self.names)

    def in_play(self, seat: int) -> bool:
        """Whether ``seat`` can be dealt in: not eliminated and has chips."""
        return not self.eliminated[seat] and self.stacks[seat] > 0

    @property
    def seats_in_play(self) -> tuple[int, ...]:
        """Seats that can be dealt in, in seat order."""
        return tuple(s for s in range(self.n_seats) if self.in_play(s))

    @property
    def dealt(self) -> tuple[int, ...]:
        """Seats dealt in this round, in seat order."""
        return tuple(s for s, h in enumerate(self.hands) if h is not None)

    @property
    def antes_due(self) -> bool:
        """Whether the next deal collects antes: a new game (empty pot),
        ``ante_every_round``, or a re-ante after a void round."""
        return self.pot == 0 or self.rules.ante_every_round or self.reante_due

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


_SYSTEM_RANDOM = secrets.SystemRandom()


def _with(state: GameState, **changes: Any) -> GameState:
    """A copy of ``state`` with ``changes`` (fast: the engine's hot path)."""
    new = object.__new__(GameState)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


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
    )


def evolve(state: GameState | None, event: Event) -> GameState:
    """Apply one event to ``state`` (``None`` before :class:`SessionStarted`).

    Raises:
        ConservationError: the chips on the table changed.
        IllegalActionError: the event does not fit the state (a corrupt history).
    """
    if isinstance(event, SessionStarted):
        if state is not None:
            raise IllegalActionError("a session can start only once")
        return _start(event)
    if state is None:
        raise IllegalActionError(f"the history must start with SessionStarted, not {event!r}")
    if isinstance(event, Declared):
        decls = list(state.declarations)
        decls[event.seat] = event.declaration
        new = _with(state, declarations=tuple(decls))
    elif isinstance(event, CardsDealt):
        new = _with(state, hands=event.hands, declarations=(None,) * state.n_seats,
                    phase=Phase.DECLARE, round_number=state.round_number + 1)
    elif isinstance(event, AntesPosted):
        stacks = tuple(s - a for s, a in zip(state.stacks, event.amounts, strict=True))
        new = _with(
            state, stacks=stacks, pot=state.pot + event.refill + sum(event.amounts),
            reserve=state.reserve - event.refill, reante_due=False,
            game_number=state.game_number + event.new_game,
            game_matched=state.game_matched and not event.new_game,
        )
    elif isinstance(event, DeclarationsRevealed):
        new = _with(state, declarations=event.declarations)
    elif isinstance(event, RoundResolved):
        stacks = tuple(s + w - m for s, w, m in zip(state.stacks, event.won, event.matched,
                                                      strict=True))
        eliminated = state.eliminated
        if event.eliminated:
            eliminated = tuple(e or s in event.eliminated for s, e in enumerate(eliminated))
        matched = event.outcome is Outcome.SHOWDOWN and any(event.matched)
        new = _with(
            state, stacks=stacks, eliminated=eliminated, pot=event.pot_after,
            reserve=state.reserve + event.to_reserve, dealer=event.next_dealer,
            phase=Phase.OVER if event.session_over else Phase.DEAL,
            reante_due=event.outcome is Outcome.VOID and state.rules.all_out == "reante",
            game_matched=(state.game_matched or matched) and event.pot_after > 0,
            last_result=event,
            end_reason=_end_reason(state, event) if event.session_over else None,
        )
    elif isinstance(event, SessionEnded):
        stacks = tuple(s + p for s, p in zip(state.stacks, event.payouts, strict=True))
        new = _with(state, stacks=stacks, pot=0, reserve=0, phase=Phase.OVER,
                    end_reason=event.reason)
    else:  # pragma: no cover - exhaustive over Event
        raise IllegalActionError(f"unknown event {event!r}")
    if sum(new.stacks) + new.pot + new.reserve != new.total:
        raise ConservationError(
            f"chips not conserved after {type(event).__name__}: stacks {new.stacks}, pot "
            f"{new.pot}, reserve {new.reserve}, expected total {new.total}")
    return new


def _end_reason(state: GameState, event: RoundResolved) -> str:
    if event.outcome is Outcome.UNCONTESTED and state.rules.end_on_uncontested:
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


def new_session(names: Sequence[str], stacks: int | Sequence[int], *, dealer: int = 0,
                rules: Rules = DEFAULT_RULES, pot: int = 0, reserve: int = 0) -> GameState:
    """A session's starting state; see :func:`start_event` for the arguments and errors."""
    return evolve(None, start_event(names, stacks, dealer=dealer, rules=rules, pot=pot,
                                    reserve=reserve))


def start_event(names: Sequence[str], stacks: int | Sequence[int], *, dealer: int = 0,
                rules: Rules = DEFAULT_RULES, pot: int = 0, reserve: int = 0) -> SessionStarted:
    """The :class:`SessionStarted` event for a table.

    Args:
        names: 2 to 10 distinct, non-empty player names, clockwise.
        stacks: each player's buy-in (chips), or one number for everyone.
        dealer: the first dealer's seat.
        rules: the house rules.
        pot, reserve: chips already in the pot / reserve (a game in progress).

    Raises:
        IllegalActionError: a bad table (seat count, duplicate name, negative or
            non-integer chips, dealer out of range).
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
    stack_list = [stacks] * len(names) if isinstance(stacks, int) else list(stacks)
    if len(stack_list) != len(names):
        raise IllegalActionError(f"{len(stack_list)} stacks for {len(names)} players")
    for name, stack in zip(names, stack_list, strict=True):
        if isinstance(stack, bool) or not isinstance(stack, int) or stack < 0:
            raise IllegalActionError(
                f"stack of {name!r} must be a whole number of chips >= 0, not {stack!r}")
    for label, value in (("pot", pot), ("reserve", reserve)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise IllegalActionError(f"{label} must be a whole number of chips >= 0, "
                                     f"not {value!r}")
    if not (isinstance(dealer, int) and 0 <= dealer < len(names)):
        raise IllegalActionError(f"dealer seat {dealer!r} is not at the table")
    return SessionStarted(rules=rules, names=names, stacks=tuple(stack_list), dealer=dealer,
                          pot=pot, reserve=reserve)


# ---------------------------------------------------------------------------------------------
# Deal.


def hands_from_deck(state: GameState, deck: Sequence[Card]) -> tuple[Hand | None, ...]:
    """Deal from ``deck`` (top card first): one card at a time, starting left of the dealer,
    to every seat in play (RULES.md "Table and cards").

    Returns:
        Per-seat hands (``None`` for seats not dealt in).
    """
    n_seats = state.n_seats
    stacks = state.stacks
    eliminated = state.eliminated
    dealer = state.dealer
    order = [s for s in ((dealer + i) % n_seats for i in range(1, n_seats + 1))
             if stacks[s] > 0 and not eliminated[s]]
    n = len(order)
    end = n * state.rules.cards_per_hand
    if len(deck) < end:
        raise IllegalActionError(f"a deck of {len(deck)} cards cannot deal {end}")
    hands: list[Hand | None] = [None] * n_seats
    for i, seat in enumerate(order):
        hands[seat] = tuple(deck[i:end:n])
    return tuple(hands)


def can_deal(state: GameState, hands: Sequence[Hand | None] | None = None) -> str | None:
    """``None`` if :func:`deal` may be applied, else the reason it may not.

    With ``hands``, also checks them: exactly the seats in play, the right number of cards,
    no card twice.
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
            why = "eliminated" if state.eliminated[seat] else "out of chips"
            return f"{name!r} cannot be dealt in: {why}"
        if len(hand) not in (0, k):  # () = dealt, cards not recorded (a real table)
            return (f"hand of {name!r} ({format_cards(hand)}) has {len(hand)} cards, "
                    f"expected {k}")
        for card in hand:
            if not (isinstance(card, int) and 0 <= card < 52):
                return f"hand of {name!r} holds {card!r}, which is not a card"
            if card in seen:
                other = state.names[seen[card]]
                where = f"both {other!r} and {name!r}" if other != name else f"{name!r} twice"
                return f"card {format_cards([card])} is dealt to {where}"
            seen[card] = seat
    return None


def deal(state: GameState, hands: Sequence[Hand | None]) -> tuple[GameState, list[Event]]:
    """Post the antes that are due, then deal ``hands``.

    Antes are due when the pot is empty (a new game starts: the reserve refills the pot
    first under ``pot_cap_mode = "reserve"``), under ``ante_every_round``, and after a void
    round under ``all_out = "reante"``. Every seat in play antes.

    Args:
        hands: per-seat hands, ``None`` for seats not in play (see :func:`hands_from_deck`).

    Raises:
        IllegalActionError: see :func:`can_deal`.
    """
    problem = can_deal(state, hands)
    if problem is not None:
        raise IllegalActionError(problem)
    return _deal(state, tuple(None if h is None else tuple(h) for h in hands))


def _deal(state: GameState, hands: tuple[Hand | None, ...]) -> tuple[GameState, list[Event]]:
    """:func:`deal` without checking ``hands`` (they are legal by construction)."""
    events: list[Event] = []
    if state.antes_due:
        rules = state.rules
        amounts = tuple(settlement.ante_amount(state.stacks[s], rules) if state.in_play(s)
                        else 0 for s in range(state.n_seats))
        new_game = state.pot == 0
        refill = settlement.reserve_refill(state.pot, state.reserve, rules)
        events.append(AntesPosted(amounts=amounts, refill=refill, new_game=new_game))
    events.append(CardsDealt(hands=hands))
    return _apply(state, events)


# ---------------------------------------------------------------------------------------------
# Declarations.


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
    if state.rules.declaration == "sequential":
        turn = state.next_to_declare()
        if turn is not None and turn != seat:
            return f"it is {state.names[turn]!r}'s turn to declare, not {state.names[seat]!r}'s"
    return _declaration_problem(state, seat, declaration)


def _declaration_problem(state: GameState, seat: int, declaration: Declaration) -> str | None:
    """The checks on the declaration itself (hand known, ``require_cover``)."""
    name = state.names[seat]
    if not isinstance(declaration, Declaration):
        return f"declaration of {name!r} must be in or out, not {declaration!r}"
    if declaration is Declaration.IN and not state.hands[seat]:
        return f"{name!r} declared in, but their hand is unknown: an in player needs a hand"
    if declaration is Declaration.IN and not settlement.can_cover(state.stacks[seat],
                                                                   state.pot, state.rules):
        owed = settlement.match_amount(state.pot, state.rules)
        return (f"{name!r} cannot declare in: require_cover needs {owed} chips to match the "
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
    state = evolve(state, Declared(seat, declaration))
    events: list[Event] = [Declared(seat, declaration)]
    if all(d is not None or h is None for d, h in zip(state.declarations, state.hands,
                                                       strict=True)):
        reveal = DeclarationsRevealed(state.declarations)
        state = evolve(state, reveal)
        state, more = _apply(state, [_resolve(state)])
        events.append(reveal)
        events.extend(more)
    return state, events


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
    if state.phase is not Phase.DECLARE:
        raise IllegalActionError(
            f"cannot declare now: the session is in the {state.phase.value} phase")
    decls = list(state.declarations)
    for seat, hand in enumerate(state.hands):
        if hand is None:
            if seat in declarations:
                raise IllegalActionError(f"seat {seat!r} was not dealt in")
            continue
        choice = declarations.get(seat)
        if choice is None:
            raise IllegalActionError(f"no declaration for {state.names[seat]!r}")
        if decls[seat] is None:
            problem = _declaration_problem(state, seat, choice)
            if problem is not None:
                raise IllegalActionError(problem)
            decls[seat] = choice
    if len(declarations) > sum(h is not None for h in state.hands):
        extra = next(s for s in declarations
                     if not (isinstance(s, int) and 0 <= s < state.n_seats))
        raise IllegalActionError(f"seat {extra!r} is not at the table")
    reveal = DeclarationsRevealed(tuple(decls))
    state = evolve(state, reveal)
    resolved = _resolve(state)
    return evolve(state, resolved), [reveal, resolved]


# ---------------------------------------------------------------------------------------------
# Resolution (RULES.md "Antes, declaration, resolution", step 4-5).


def _next_dealer(state: GameState, stacks: Sequence[int], eliminated: Sequence[bool]) -> int:
    for seat in settlement.clockwise_from(state.dealer, state.n_seats):
        if not eliminated[seat] and stacks[seat] > 0:
            return seat
    return state.dealer


def _resolve(state: GameState) -> RoundResolved:
    """Settle the round once every declaration is revealed."""
    rules = state.rules
    n = state.n_seats
    decls = state.declarations
    in_seats = [s for s in range(n) if decls[s] is Declaration.IN]
    won = [0] * n
    matched = [0] * n
    shown: list[Hand | None] = [None] * n
    eliminated: list[int] = []
    winners: tuple[int, ...] = ()
    to_reserve = 0
    pot_after = state.pot
    if not in_seats:
        outcome = Outcome.VOID
        next_dealer = state.dealer  # the same dealer deals again
    elif len(in_seats) == 1:
        outcome = Outcome.UNCONTESTED
        winners = (in_seats[0],)
        won[in_seats[0]] = state.pot
        pot_after = 0
    else:
        outcome = Outcome.SHOWDOWN
        table = strength_table(rules.ranking)
        keys = {}
        for seat in in_seats:
            hand = state.hands[seat]
            assert hand is not None
            shown[seat] = hand
            index = 0
            for card in hand:
                index = index * 52 + card
            keys[seat] = table[index]
        best = max(keys.values())
        winners = tuple(s for s in in_seats if keys[s] == best)
        shares, carry = settlement.split_pot(state.pot, winners, state.dealer, n, rules)
        for seat, share in shares.items():
            won[seat] = share
        owed = settlement.match_amount(state.pot, rules)
        for seat in in_seats:
            if seat in shares:
                continue
            paid, out = settlement.pay_match(state.stacks[seat], owed, rules)
            matched[seat] = paid
            if out:
                eliminated.append(seat)
        pot_after, to_reserve = settlement.cap_pot(carry + sum(matched), rules)
    stacks = [s + w - m for s, w, m in zip(state.stacks, won, matched, strict=True)]
    out_flags = [e or s in eliminated for s, e in enumerate(state.eliminated)]
    if outcome is not Outcome.VOID:
        next_dealer = _next_dealer(state, stacks, out_flags)
    players_left = sum(1 for s in range(n) if not out_flags[s] and stacks[s] > 0)
    session_over = players_left < 2 or (
        outcome is Outcome.UNCONTESTED and rules.end_on_uncontested and state.game_matched)
    return RoundResolved(
        outcome=outcome, shown=tuple(shown), winners=winners, won=tuple(won),
        matched=tuple(matched), eliminated=tuple(eliminated), to_reserve=to_reserve,
        pot_after=pot_after, next_dealer=next_dealer, session_over=session_over,
    )


# ---------------------------------------------------------------------------------------------
# Ending.


def end_session(state: GameState, reason: str = "the table agreed to stop"
                ) -> tuple[GameState, list[Event]]:
    """End the session: what is left in the pot and the reserve is shared evenly among the
    players still seated (not eliminated), odd chips clockwise from the dealer's left
    (RULES.md ``pot_cap_mode = "reserve"``; gutskit applies the same to a pot left on the
    table when play stops mid-game). Cards of an unfinished round are thrown in.

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
    problem = can_deal(state)
    if problem is not None:
        raise IllegalActionError(problem)
    source = rng if rng is not None else _SYSTEM_RANDOM
    needed = state.rules.cards_per_hand * len(state.seats_in_play)
    return _deal(state, hands_from_deck(state, source.sample(DECK, needed)))
