"""The table driver: one way to run a Guts table, for every front end.

``guts play``, ``guts sim``, ``guts tournament``, the server and the bots run a table through
these functions; none of them calls :func:`gutskit.core.engine.deal` itself or restates a
rule. Pure like the engine (state and input in, new state and events out): no I/O, no clock
(a seat that timed out is an input, :func:`time_out`), randomness passed in (an ``rng``, or
a deck order the caller committed to). Every operation has a ``can_*`` twin that returns
``None`` when it may be applied, else the reason it may not (PokerKit style); the operation
raises :class:`~gutskit.core.engine.IllegalActionError` with that reason and applies nothing.

What the driver adds to the engine:

* **the deal** with every card the rules ask (hands, ghost hand, community card), from an
  ``rng`` or from the top of a committed deck (:func:`deal`), antes first when due;
* **whose turn, and what may seat S do now** (:func:`status`, :func:`waiting_for`,
  :func:`legal_actions`): Pass the Trash, declarations (simultaneous, sequential, drop);
* **a silent seat** (:func:`time_out`): the caller says it timed out, the driver applies
  :func:`default_action` (declare out; Pass the Trash: pass the lowest card);
* **rebuys and top-ups** as the rules allow (:func:`rebuy`: ``rebuys``, ``max_rebuys``,
  ``min_buy_in``; the rule is :func:`gutskit.core.engine.can_rebuy`);
* **away** (:func:`sit_out`, :func:`come_back`): the seat and its chips stay, it is dealt out
  from the next deal (no cards, no ante) and comes back for the next game (when the pot is
  empty between rounds: :func:`can_come_back`), or at once when it has missed no round yet
  (away and back before the next deal);
* **leaving and kicking** (:func:`leave`, :func:`kick`: :class:`~gutskit.core.events.SeatLeft`,
  :class:`~gutskit.core.events.SeatRemoved`): the seat is never dealt in again and gets no
  share of what is left in the pot; its chips stay in the ledger; a decision it still owes
  this round is made for it at once (:func:`default_action`), now or when its turn comes;
* **companion mode** (issue 10; a session started with ``companion=True``): the cards are
  dealt at a real table, so :func:`deal` records unseen hands
  (:func:`gutskit.core.engine.deal_unseen`); a round that compares hands stops at
  :attr:`Step.SHOWDOWN` until the cards of the players in are entered (:func:`show_cards`)
  or the table names the winners (:func:`name_winners`); the host may undo the last round
  (:func:`undo_round`) or call a misdeal (:func:`misdeal`). The chips move by the same
  settlement as a dealt round;
* **the end of the session**: when a round ends it (``RoundResolved.session_over``) or fewer
  than two seats are left at the table, :class:`~gutskit.core.events.SessionEnded` follows at
  once (:func:`gutskit.core.engine.end_session`); :func:`end` when the table agrees to stop.

>>> import random
>>> from gutskit.core.engine import new_session
>>> state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0)
>>> state, _ = deal(state, rng=random.Random(1))
>>> status(state)
Status(step=<Step.DECLARE: 'declare'>, seats=(1, 2, 0), reason=None)
>>> [d.value for d in legal_actions(state, 1).declarations]
['in', 'out']
>>> state, _ = kick(state, 2, "the host removed Cleo")
>>> state, events = time_out(state, [0, 1])
>>> type(events[-1]).__name__, state.stacks, state.pot
('RoundResolved', (19, 19, 19), 3)
>>> state, events = deal(state, rng=random.Random(2))
>>> events[0].amounts, state.hands[2]
((1, 1, 0), None)
"""

from __future__ import annotations

import dataclasses
import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gutskit.core import engine, settlement
from gutskit.core.cards import Card
from gutskit.core.engine import GameState, IllegalActionError, Phase, ShowdownNeeds
from gutskit.core.events import (
    AntesPosted,
    Declaration,
    Event,
    RoundResolved,
    SeatAway,
    SeatBack,
    SeatLeft,
    SeatRemoved,
)
from gutskit.variants.hi_lo import side_matches
from gutskit.variants.pass_the_trash import silent_pass

__all__ = [
    "Declare",
    "MatchQuote",
    "PassCard",
    "SeatActions",
    "ShowdownNeeds",
    "Status",
    "Step",
    "apply_action",
    "can_come_back",
    "can_deal",
    "can_declare",
    "can_kick",
    "can_leave",
    "can_misdeal",
    "can_name_winners",
    "can_open_fists",
    "can_pass_card",
    "can_rebuy",
    "can_rebuy_later",
    "can_show_cards",
    "can_show_hand",
    "can_sit_out",
    "can_time_out",
    "can_undo_round",
    "come_back",
    "deal",
    "declare",
    "declare_all",
    "default_action",
    "end",
    "game_in_progress",
    "kick",
    "leave",
    "legal_actions",
    "match_quotes",
    "misdeal",
    "name_winners",
    "next_antes",
    "open_fists",
    "pass_all",
    "pass_card",
    "rebuy",
    "rebuy_floor",
    "rebuy_offers",
    "show_cards",
    "show_hand",
    "showdown_needs",
    "sit_out",
    "status",
    "time_out",
    "undo_round",
    "waiting_for",
]

Result = tuple[GameState, list[Event]]


class Step(enum.Enum):
    """What the table waits for (:func:`status`)."""

    DEAL = "deal"
    """The next deal may be dealt (:func:`deal`)."""
    PASS = "pass"
    """Pass the Trash: the seats in :attr:`Status.seats` choose the card they pass."""
    DECLARE = "declare"
    """The seats in :attr:`Status.seats` may declare now (sequential: one seat)."""
    COUNT = "count"
    """Companion mode under 1-2-3 drop (:func:`gutskit.core.engine.counted`): every fist is
    in; the fists open when the count ends (:func:`open_fists`)."""
    SHOWDOWN = "showdown"
    """Companion mode: the showdown waits for the cards of the seats in
    :attr:`Status.seats` (:func:`show_cards`) or the named winners (:func:`name_winners`)."""
    WAIT = "wait"
    """No deal is possible now, but the seats in :attr:`Status.seats` could make one
    possible (a rebuy, coming back from away)."""
    END = "end"
    """No deal is possible and nobody can change that: end the session (:func:`end`)."""
    OVER = "over"
    """The session has ended."""


@dataclass(frozen=True, slots=True)
class Status:
    """Where the table stands: the :class:`Step`, the seats it waits for (in the order they
    act) and, for :attr:`Step.WAIT` / :attr:`Step.END`, why no deal is possible."""

    step: Step
    seats: tuple[int, ...]
    reason: str | None


@dataclass(frozen=True, slots=True)
class SeatActions:
    """What one seat may do now (:func:`legal_actions`).

    Attributes:
        seat: the seat.
        declarations: the declarations it may make now (empty: none now).
        passes: Pass the Trash: the cards it may pass now (empty: none now).
        rebuy: the smallest rebuy it may make now, in chips (``None``: no rebuy now).
        may_sit_out: it may go away (:func:`sit_out`).
        may_come_back: it is away and may come back (:func:`come_back`).
        may_leave: it may leave the table for good (:func:`leave`).
    """

    seat: int
    declarations: tuple[Declaration, ...] = ()
    passes: tuple[Card, ...] = ()
    rebuy: int | None = None
    may_sit_out: bool = False
    may_come_back: bool = False
    may_leave: bool = False

    @property
    def must_act(self) -> bool:
        """The table waits for this seat's card or declaration."""
        return bool(self.declarations or self.passes)


@dataclass(frozen=True, slots=True)
class PassCard:
    """An action: ``seat`` passes ``card`` (Pass the Trash)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Declare:
    """An action: ``seat`` declares ``declaration``."""

    seat: int
    declaration: Declaration


# ---------------------------------------------------------------------------------------------
# Who acts, and what each seat may do.


def _seat_problem(state: GameState, seat: int) -> str | None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n_seats:
        return f"there is no seat {seat!r} at the table"
    return None


def _gone(state: GameState, seat: int) -> bool:
    """``seat`` left or was removed."""
    return bool(state.left) and state.left[seat]


def _away(state: GameState, seat: int) -> bool:
    return bool(state.away) and state.away[seat]


def waiting_for(state: GameState) -> tuple[int, ...]:
    """The seats whose card (Pass the Trash) or declaration the table waits for now, in
    declaration order: every seat that has not chosen (simultaneous and drop declaration,
    passing), or the one seat whose turn it is (sequential declaration); at a companion
    showdown the seats whose cards are needed; ``()`` between rounds."""
    phase = state.phase
    if phase is Phase.PASS:
        passes = state.passes
        assert passes is not None
        return tuple(s for s in state.declaration_order() if passes[s] is None)
    if phase is Phase.DECLARE:
        declarations = state.declarations  # a seat that declared is not waited for
        return tuple(s for s in state.declaration_order() if declarations[s] is None
                     and engine.can_declare(state, s, Declaration.OUT) is None)
    needs = engine.showdown_needs(state)
    return () if needs is None else needs.seats


def turn(state: GameState) -> int | None:
    """The seat whose turn it is to declare when declarations are made in turn
    (``declaration = "sequential"``: one seat at a time, clockwise from the dealer's left;
    the variants decide: ``Variants.in_turn``), else ``None``: between rounds, while cards
    are passed, at a showdown, and whenever declarations are simultaneous, 1-2-3 drop's
    count included, where one seat left to declare is not that seat's turn."""
    if state.phase is not Phase.DECLARE or not state.variants.in_turn:
        return None
    waiting = waiting_for(state)
    return waiting[0] if waiting else None


def rebuy_floor(state: GameState) -> int:
    """The smallest rebuy in chips: the minimum buy-in, or 1 chip when there is none
    (RULES.md "Money, limits, ending"; the rule: :func:`gutskit.core.engine.can_rebuy`)."""
    return state.rules.min_buy_in or 1


def legal_actions(state: GameState, seat: int) -> SeatActions:
    """What ``seat`` may do now (every front end offers exactly this).

    Raises:
        IllegalActionError: there is no such seat.
    """
    problem = _seat_problem(state, seat)
    if problem is not None:
        raise IllegalActionError(problem)
    declarations: tuple[Declaration, ...] = ()
    passes: tuple[Card, ...] = ()
    if state.phase is Phase.DECLARE:
        declarations = tuple(d for d in engine.legal_declarations(state.rules)
                             if engine.can_declare(state, seat, d) is None)
    elif state.phase is Phase.PASS:
        hand = state.hands[seat] or ()
        passes = tuple(c for c in hand if engine.can_pass_card(state, seat, c) is None)
    least = rebuy_floor(state)
    return SeatActions(
        seat=seat, declarations=declarations, passes=passes,
        rebuy=least if engine.can_rebuy(state, seat, least) is None else None,
        may_sit_out=can_sit_out(state, seat) is None,
        may_come_back=can_come_back(state, seat) is None,
        may_leave=can_leave(state, seat) is None,
    )


def status(state: GameState) -> Status:
    """Where the table stands and whom it waits for (see :class:`Step`)."""
    phase = state.phase
    if phase is Phase.OVER:
        return Status(Step.OVER, (), state.end_reason)
    if phase is Phase.PASS:
        return Status(Step.PASS, waiting_for(state), None)
    if phase is Phase.DECLARE:
        waiting = waiting_for(state)
        if not waiting and engine.counted(state):
            return Status(Step.COUNT, (), None)
        return Status(Step.DECLARE, waiting, None)
    if phase is Phase.SHOWDOWN:
        return Status(Step.SHOWDOWN, waiting_for(state), None)
    problem = engine.can_deal(state)
    if problem is None:
        return Status(Step.DEAL, (), None)
    least = rebuy_floor(state)
    helpers = tuple(s for s in range(state.n_seats)
                    if can_come_back(state, s) is None
                    or engine.can_rebuy(state, s, least) is None)
    if helpers:
        return Status(Step.WAIT, helpers, problem)
    return Status(Step.END, (), "fewer than two players left with chips")


@dataclass(frozen=True, slots=True)
class MatchQuote:
    """What a seat would pay if it declared ``declaration`` and was beaten, at the pot as it
    stands (RULES.md step 4 "match", ``pot_cap_mode``, ``shortfall``; Hi-Lo Guts: each side's
    losers match that side's pot, a failed *both* matches both).

    Attributes:
        declaration: the declaration (never *out*: out risks nothing).
        least: the smallest match it may owe, in chips (Hi-Lo *high* / *low*: its side's
            match when the other side is played too; otherwise ``most``).
        most: the largest match it may owe, in chips (Hi-Lo *high* / *low*: the whole pot's
            match when nobody plays the other side).
        pays: what it would pay of ``most`` under ``shortfall``: all of it (``debt``: the
            stack may go below zero), its whole stack (``table_stakes``), or nothing
            (``eliminate``, when ``most`` is more than its stack).
        eliminated: it would be out for the rest of the session (``shortfall =
            "eliminate"`` and ``most`` is more than its stack).
    """

    declaration: Declaration
    least: int
    most: int
    pays: int
    eliminated: bool


def match_quotes(state: GameState, seat: int) -> tuple[MatchQuote, ...]:
    """What ``seat`` would pay if beaten, for each declaration other than *out* it may make
    under the rules (the match: :func:`gutskit.core.settlement.match_amount`; Hi-Lo:
    :func:`gutskit.variants.hi_lo.side_matches`; what a short stack pays:
    :func:`gutskit.core.settlement.pay_match`). Meaningful while the round is declared;
    at other times it quotes the current pot.

    >>> from gutskit.core.engine import new_session
    >>> from gutskit.core.rules import Rules
    >>> state = new_session(["Ana", "Ben"], [3, 9], rules=Rules(shortfall="table_stakes"))
    >>> state = dataclasses.replace(state, pot=4)
    >>> match_quotes(state, 0)
    (MatchQuote(declaration=<Declaration.IN: 'in'>, least=4, most=4, pays=3, eliminated=False),)

    Raises:
        IllegalActionError: there is no such seat.
    """
    problem = _seat_problem(state, seat)
    if problem is not None:
        raise IllegalActionError(problem)
    rules = state.rules
    stack = state.stacks[seat]
    pot = state.pot
    quotes = []
    for declaration in engine.legal_declarations(rules):
        if declaration is Declaration.OUT:
            continue
        if not rules.hi_lo:
            least = most = settlement.match_amount(pot, rules)
        elif declaration is Declaration.BOTH:
            least = most = sum(side_matches(pot, rules, True, True))
        else:
            high = declaration is Declaration.HIGH
            split = side_matches(pot, rules, True, True)
            alone = side_matches(pot, rules, high, not high)
            least, most = (split[0], alone[0]) if high else (split[1], alone[1])
        pays, eliminated = settlement.pay_match(stack, most, rules)
        quotes.append(MatchQuote(declaration, least, most, pays, eliminated))
    return tuple(quotes)


def next_antes(state: GameState) -> AntesPosted | None:
    """The antes the next deal collects (``None``: none are due), between rounds:
    :func:`gutskit.core.engine.next_antes`. After a void round this is what ``all_out``
    does: everyone antes again (``reante``), nothing (``carry``: the pot stays), or the best
    hand(s) pay every ante (``best_pays_antes``). ``None`` while a round is in progress."""
    if state.phase is not Phase.DEAL:
        return None
    return engine.next_antes(state)


# ---------------------------------------------------------------------------------------------
# The round: deal, pass, declare, time-outs.


def can_deal(state: GameState) -> str | None:
    """``None`` if the next deal may be dealt now, else the reason it may not."""
    return engine.can_deal(state)


def deal(state: GameState, *, rng: random.Random | None = None,
         deck: Sequence[Card] | None = None) -> Result:
    """Post the antes that are due and deal every card the rules ask: the hands of the seats
    in play (not away, not gone), then the ghost hand (``ghost_hand``) and the community card
    (``community_card``), face down. In companion mode the cards are dealt at the real
    table: the hands are recorded unseen (:func:`gutskit.core.engine.deal_unseen`) and
    ``rng`` and ``deck`` are not used.

    Args:
        rng: shuffles the deck (``None``: the OS CSPRNG); ignored when ``deck`` is given.
        deck: a deck order the caller committed to, top card first (the server's provably
            fair deck): the cards are dealt from its top.

    Raises:
        IllegalActionError: see :func:`can_deal`; ``deck`` is too short or repeats a card.
    """
    problem = engine.can_deal(state)
    if problem is not None:
        raise IllegalActionError(problem)
    if state.companion:
        return engine.deal_unseen(state)
    if deck is not None:
        return engine.deal_from_top(state, deck)
    return engine.deal_from_rng(state, rng)


def can_pass_card(state: GameState, seat: int, card: Card) -> str | None:
    """``None`` if ``seat`` may pass ``card`` now (Pass the Trash), else why not."""
    return engine.can_pass_card(state, seat, card)


def pass_card(state: GameState, seat: int, card: Card) -> Result:
    """``seat`` passes ``card`` to its left (sealed until every seat has chosen).

    Raises:
        IllegalActionError: see :func:`can_pass_card`.
    """
    return _settle(*engine.pass_card(state, seat, card))


def pass_all(state: GameState, passes: Mapping[int, Card]) -> Result:
    """Every seat still to choose passes at once (:func:`gutskit.core.engine.pass_all`).

    Raises:
        IllegalActionError: a seat is missing or extra, or a pass is illegal.
    """
    return _settle(*engine.pass_all(state, passes))


def can_declare(state: GameState, seat: int, declaration: Declaration) -> str | None:
    """``None`` if ``seat`` may declare ``declaration`` now, else why not."""
    return engine.can_declare(state, seat, declaration)


def declare(state: GameState, seat: int, declaration: Declaration) -> Result:
    """``seat`` declares; the last declaration reveals all and resolves the round (and ends
    the session when the round ends it).

    Raises:
        IllegalActionError: see :func:`can_declare`.
    """
    return _settle(*engine.declare(state, seat, declaration))


def declare_all(state: GameState, declarations: Mapping[int, Declaration]) -> Result:
    """Every seat dealt in declares at once (:func:`gutskit.core.engine.declare_all`), then the
    round resolves.

    Raises:
        IllegalActionError: a seat is missing or extra, or a declaration is illegal.
    """
    return _settle(*engine.declare_all(state, declarations))


def can_open_fists(state: GameState) -> str | None:
    """``None`` if the count of "1-2-3 drop" may end now (companion mode), else why not
    (:func:`gutskit.core.engine.can_open_fists`)."""
    return engine.can_open_fists(state)


def open_fists(state: GameState) -> Result:
    """The count of "1-2-3 drop" ends (companion mode): whoever has not dropped holds their
    cards and is in, the fists open and the round resolves
    (:func:`gutskit.core.engine.open_fists`; RULES.md step 3).

    Raises:
        IllegalActionError: see :func:`can_open_fists`.
    """
    return _settle(*engine.open_fists(state))


def default_action(state: GameState, seat: int) -> PassCard | Declare:
    """What a silent seat (timed out, left, removed) does: under Pass the Trash it passes
    its lowest card (:func:`gutskit.variants.pass_the_trash.silent_pass`), otherwise it
    declares out (gutskit's rule for a seat that
    does not answer: the seeds give none; out risks nothing).

    Raises:
        IllegalActionError: ``seat`` has nothing to decide now.
    """
    problem = can_time_out(state, seat)
    if problem is not None:
        raise IllegalActionError(problem)
    if state.phase is Phase.PASS:
        hand = state.hands[seat]
        assert hand
        return PassCard(seat, silent_pass(hand))
    return Declare(seat, Declaration.OUT)


def apply_action(state: GameState, action: PassCard | Declare) -> Result:
    """Apply a :class:`PassCard` or :class:`Declare`.

    Raises:
        IllegalActionError: the action is illegal now.
    """
    if isinstance(action, PassCard):
        return pass_card(state, action.seat, action.card)
    return declare(state, action.seat, action.declaration)


def can_time_out(state: GameState, seat: int) -> str | None:
    """``None`` if ``seat`` may time out now (the table waits for its decision)."""
    problem = _seat_problem(state, seat)
    if problem is not None:
        return problem
    if seat not in waiting_for(state):
        return f"{state.names[seat]!r} has nothing to decide now"
    if state.phase is Phase.PASS and not state.hands[seat]:
        return f"the cards of {state.names[seat]!r} were not recorded: no card to pass"
    return None


def time_out(state: GameState, seats: Sequence[int]) -> Result:
    """The caller's clock ran out for ``seats``: each makes :func:`default_action`, in the
    order given.

    Raises:
        IllegalActionError: a seat has nothing to decide (checked before anything is
            applied; under sequential declaration only the seat whose turn it is may time
            out).
    """
    for seat in seats:
        problem = can_time_out(state, seat)
        if problem is not None:
            raise IllegalActionError(problem)
    events: list[Event] = []
    for seat in seats:
        if can_time_out(state, seat) is not None:
            continue  # already made for it (a removed seat) or the round moved on
        state, more = apply_action(state, default_action(state, seat))
        events.extend(more)
    return state, events


def _settle(state: GameState, events: list[Event]) -> Result:
    """After any change: the decisions gone seats owe are made for them; a round that ends
    the session is followed by :class:`~gutskit.core.events.SessionEnded`."""
    if state.left and any(state.left):
        progress = True
        while progress and state.phase in (Phase.PASS, Phase.DECLARE):
            progress = False
            for seat in waiting_for(state):
                if state.left[seat] and can_time_out(state, seat) is None:
                    action = default_action(state, seat)
                    if isinstance(action, PassCard):
                        state, more = engine.pass_card(state, seat, action.card)
                    else:
                        state, more = engine.declare(state, seat, action.declaration)
                    events = [*events, *more]
                    progress = True
                    break
    if state.phase is Phase.OVER and events and any(
            isinstance(e, RoundResolved) and e.session_over for e in events):
        state, more = engine.end_session(state)
        events = [*events, *more]
    elif state.phase is Phase.DEAL and state.left and sum(
            not e for e in state.eliminated) < 2:
        state, more = engine.end_session(state, "fewer than two players left at the table")
        events = [*events, *more]
    return state, events


# ---------------------------------------------------------------------------------------------
# Companion mode: the showdown at a real table, misdeals, undo.


def showdown_needs(state: GameState) -> ShowdownNeeds | None:
    """What a companion showdown waits for (``None``: none waits); see
    :func:`gutskit.core.engine.showdown_needs`."""
    return engine.showdown_needs(state)


def can_show_cards(state: GameState, hands: Mapping[int, Sequence[Card]], *,
                   ghost: Sequence[Card] | None = None,
                   community: Sequence[Card] | None = None) -> str | None:
    """``None`` if the cards may be entered now (:func:`gutskit.core.engine.can_show_cards`),
    else why not."""
    return engine.can_show_cards(state, hands, ghost=ghost, community=community)


def show_cards(state: GameState, hands: Mapping[int, Sequence[Card]], *,
               ghost: Sequence[Card] | None = None,
               community: Sequence[Card] | None = None) -> Result:
    """Companion mode: enter the cards of the players in (and the ghost hand, the community
    card); the round is settled (:func:`gutskit.core.engine.show_cards`) and the session
    ends when the round ends it.

    Raises:
        IllegalActionError: see :func:`can_show_cards`; nothing is applied then.
    """
    return _settle(*engine.show_cards(state, hands, ghost=ghost, community=community))


def can_name_winners(state: GameState, winners: Sequence[int], *,
                     low_winners: Sequence[int] = (),
                     losers: Sequence[int] | None = None) -> str | None:
    """``None`` if the table may name this result now
    (:func:`gutskit.core.engine.can_name_winners`), else why not."""
    return engine.can_name_winners(state, winners, low_winners=low_winners, losers=losers)


def name_winners(state: GameState, winners: Sequence[int], *,
                 low_winners: Sequence[int] = (),
                 losers: Sequence[int] | None = None) -> Result:
    """Companion mode: the table names the winners instead of entering cards
    (:func:`gutskit.core.engine.name_winners`); the session ends when the round ends it.

    Raises:
        IllegalActionError: see :func:`can_name_winners`; nothing is applied then.
    """
    return _settle(*engine.name_winners(state, winners, low_winners=low_winners,
                                        losers=losers))


def can_misdeal(state: GameState) -> str | None:
    """``None`` if a misdeal may be called now (cards are out, the round not settled), else
    why not."""
    return engine.can_misdeal(state)


def misdeal(state: GameState, reason: str = "misdeal") -> Result:
    """A misdeal: the cards are thrown in, the antes stay, the same dealer deals again with
    no new ante (:func:`gutskit.core.engine.misdeal`).

    Raises:
        IllegalActionError: see :func:`can_misdeal`.
    """
    return engine.misdeal(state, reason)


def can_undo_round(state: GameState) -> str | None:
    """``None`` if the host may undo the last round now
    (:func:`gutskit.core.engine.can_undo_round`), else why not."""
    return engine.can_undo_round(state)


def undo_round(state: GameState, reason: str = "undone by the host") -> Result:
    """Companion mode: undo the last round, every chip back, kept in the history as a
    :class:`~gutskit.core.events.RoundUndone` (:func:`gutskit.core.engine.undo_round`).

    Raises:
        IllegalActionError: see :func:`can_undo_round`.
    """
    return engine.undo_round(state, reason)


# ---------------------------------------------------------------------------------------------
# Between rounds and around the table: rebuys, away, leaving, kicking, the end.


def can_rebuy(state: GameState, seat: int, chips: int) -> str | None:
    """``None`` if ``seat`` may buy ``chips`` more now (a rebuy, or a top-up of a short
    stack): the rule is :func:`gutskit.core.engine.can_rebuy`."""
    return engine.can_rebuy(state, seat, chips)


def can_rebuy_later(state: GameState, seat: int, chips: int) -> str | None:
    """``None`` if the rules would let ``seat`` buy ``chips`` more at the next break
    between rounds as things stand now (:func:`can_rebuy` but for the phase; the round in
    progress may still change the stack): for a request approved later."""
    if state.phase in (Phase.PASS, Phase.DECLARE):
        state = dataclasses.replace(state, phase=Phase.DEAL)
    return engine.can_rebuy(state, seat, chips)


def rebuy_offers(state: GameState) -> tuple[int | None, ...]:
    """Per seat, the smallest rebuy in chips it may ask for now (:func:`rebuy_floor`), to be
    bought at the next break between rounds (:func:`can_rebuy_later`), or ``None`` where
    the rules allow none. The same as ``can_rebuy_later`` seat by seat, the state looked
    at once (a server shows it to every seat after every change)."""
    if not state.rules.rebuys:  # engine.can_rebuy refuses every seat: no need to ask
        return (None,) * state.n_seats
    if state.phase in (Phase.PASS, Phase.DECLARE):
        state = dataclasses.replace(state, phase=Phase.DEAL)
    least = rebuy_floor(state)
    return tuple(least if engine.can_rebuy(state, seat, least) is None else None
                 for seat in range(state.n_seats))


def rebuy(state: GameState, seat: int, chips: int) -> Result:
    """``seat`` buys ``chips`` more (its stack and its buy-in in the ledger grow).

    Raises:
        IllegalActionError: see :func:`can_rebuy`.
    """
    return engine.rebuy(state, seat, chips)


def _presence_problem(state: GameState, seat: int) -> str | None:
    problem = _seat_problem(state, seat)
    if problem is not None:
        return problem
    if state.phase is Phase.OVER:
        return "the session is over"
    if _gone(state, seat):
        return f"{state.names[seat]!r} has left the table"
    return None


def can_sit_out(state: GameState, seat: int) -> str | None:
    """``None`` if ``seat`` may go away now (still at the table, not away already, not
    eliminated), else why not."""
    problem = _presence_problem(state, seat)
    if problem is not None:
        return problem
    if state.eliminated[seat]:
        return f"{state.names[seat]!r} is out for the rest of the session"
    if _away(state, seat):
        return f"{state.names[seat]!r} is already away"
    return None


def sit_out(state: GameState, seat: int) -> Result:
    """``seat`` goes away: it keeps its seat and chips and is dealt out from the next deal
    (a round in progress is played out: it still owes its decision now).

    Raises:
        IllegalActionError: see :func:`can_sit_out`.
    """
    problem = can_sit_out(state, seat)
    if problem is not None:
        raise IllegalActionError(problem)
    event = SeatAway(seat)
    return engine.evolve(state, event), [event]


def game_in_progress(state: GameState) -> bool:
    """A game is being played: cards are out, or the pot is not empty between rounds (the
    next deal continues the game; a game starts when antes go into an empty pot, RULES.md
    "Rounds and games")."""
    return state.phase in (Phase.PASS, Phase.DECLARE) or (
        state.phase is Phase.DEAL and state.pot > 0)


def can_come_back(state: GameState, seat: int) -> str | None:
    """``None`` if ``seat`` is away and may come back now, else why not.

    A seat away comes back for the **next game**, not in the middle of one (issue 10: the
    pot it did not ante into is played out by those who did). While a game is in progress
    (:func:`game_in_progress`) it may come back at once only

    * when it was dealt into the latest round (it went away after that deal, so it has
      missed no round of this game: it is dealt the next round as if it had never gone
      away; a misdeal's re-deal is not such a round: the misdeal took its cards back), or
    * between rounds, when the table could not deal the next round without it (fewer than
      two others can play), so that an away seat never stalls the table.
    """
    problem = _presence_problem(state, seat)
    if problem is not None:
        return problem
    if not _away(state, seat):
        return f"{state.names[seat]!r} is not away"
    if state.hands[seat] is not None:  # away since the latest deal: no round missed
        return None
    if game_in_progress(state) and (
            state.phase is not Phase.DEAL or engine.can_deal(state) is None):
        return (f"{state.names[seat]!r} comes back when the next game starts (the pot of "
                f"{state.pot} is still being played for)")
    return None


def come_back(state: GameState, seat: int) -> Result:
    """``seat``, away, comes back: dealt in again from the next deal, which starts a new
    game (:func:`can_come_back`).

    Raises:
        IllegalActionError: see :func:`can_come_back`.
    """
    problem = can_come_back(state, seat)
    if problem is not None:
        raise IllegalActionError(problem)
    event = SeatBack(seat)
    return engine.evolve(state, event), [event]


def can_leave(state: GameState, seat: int) -> str | None:
    """``None`` if ``seat`` may leave the table (or be removed) now, else why not."""
    return _presence_problem(state, seat)


def leave(state: GameState, seat: int) -> Result:
    """``seat`` leaves for good (:class:`~gutskit.core.events.SeatLeft`): see the module
    docstring. Ends the session when fewer than two seats are left at the table between
    rounds.

    Raises:
        IllegalActionError: see :func:`can_leave`.
    """
    problem = can_leave(state, seat)
    if problem is not None:
        raise IllegalActionError(problem)
    event = SeatLeft(seat)
    return _settle(engine.evolve(state, event), [event])


def can_show_hand(state: GameState, seat: int) -> str | None:
    """``None`` if ``seat`` may show its cards to the table now: it won the round just
    settled uncontested and the next round is not dealt (:func:`gutskit.core.engine.can_show_hand`;
    RULES.md "Resolve": the pot is taken without showing, showing is the winner's choice)."""
    return engine.can_show_hand(state, seat)


def show_hand(state: GameState, seat: int) -> Result:
    """``seat`` shows its cards after its uncontested win
    (:class:`~gutskit.core.events.HandShown`, public; no chip moves).

    Raises:
        IllegalActionError: see :func:`can_show_hand`.
    """
    return engine.show_hand(state, seat)


def can_kick(state: GameState, seat: int) -> str | None:
    """``None`` if ``seat`` may be removed now, else why not."""
    return can_leave(state, seat)


def kick(state: GameState, seat: int, reason: str = "removed by the host") -> Result:
    """Remove ``seat`` for good (:class:`~gutskit.core.events.SeatRemoved`); otherwise as
    :func:`leave`.

    Raises:
        IllegalActionError: see :func:`can_kick`.
    """
    problem = can_kick(state, seat)
    if problem is not None:
        raise IllegalActionError(problem)
    event = SeatRemoved(seat, reason)
    return _settle(engine.evolve(state, event), [event])


def end(state: GameState, reason: str = "the table agreed to stop") -> Result:
    """End the session (:func:`gutskit.core.engine.end_session`: what is left in the pot and
    the reserve is shared among the seats still at the table)."""
    return engine.end_session(state, reason)

