"""The table driver (gutskit.core.table): whose turn, legal actions, time-outs, rebuys, away,
leaving and kicking, the end of the session; hand-worked values, then a property test over
every preset with random table operations (conservation, replay, removed seats never dealt
in again, the ledger)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gutskit.core import table
from gutskit.core.cards import parse_cards
from gutskit.core.engine import GameState, IllegalActionError, Phase, evolve, new_session, replay
from gutskit.core.events import (
    AntesPosted,
    CardsDealt,
    Declaration,
    Declared,
    Event,
    RoundResolved,
    SeatLeft,
    SeatRemoved,
    SessionEnded,
    SessionStarted,
)
from gutskit.core.history import event_from_dict, event_to_dict
from gutskit.core.ledger import ledger
from gutskit.core.rules import PRESETS, Rules, preset
from gutskit.core.table import Step
from gutskit.strategy.bots import bot_table, bots_act

IN, OUT = Declaration.IN, Declaration.OUT


def _deck(text: str) -> list[int]:
    """A deck whose top cards are ``text``, then the rest of the deck in order."""
    top = parse_cards(text)
    return [*top, *(c for c in range(52) if c not in top)]


def test_kick_mid_round_declares_out_and_is_never_dealt_again() -> None:
    state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0)
    state, _ = table.deal(state, rng=random.Random(3))
    assert (state.pot, state.stacks) == (3, (19, 19, 19))
    state, events = table.kick(state, 2, "the host removed Cleo")
    assert events == [SeatRemoved(2, "the host removed Cleo"), Declared(2, OUT)]
    assert table.waiting_for(state) == (1, 0)  # declaration order: the dealer's left first
    assert table.legal_actions(state, 2).declarations == ()
    state, events = table.time_out(state, [0, 1])
    assert state.last_result is not None and state.last_result.outcome.value == "void"
    # a void round re-antes (all_out = "reante"): only the two seats still at the table
    state, events = table.deal(state, rng=random.Random(4))
    assert isinstance(events[0], AntesPosted) and events[0].amounts == (1, 1, 0)
    assert state.hands[2] is None and state.stacks == (18, 18, 19) and state.pot == 5


def test_leaving_below_two_seats_ends_and_shares_the_pot_among_those_left() -> None:
    state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0)
    state, _ = table.deal(state, rng=random.Random(3))
    state, _ = table.declare_all(state, {0: OUT, 1: OUT, 2: OUT})  # void: pot 3 stays
    state, events = table.kick(state, 2)
    assert events == [SeatRemoved(2, "removed by the host")]
    assert table.status(state).step is Step.DEAL
    state, events = table.leave(state, 1)
    assert events[0] == SeatLeft(1)
    assert isinstance(events[-1], SessionEnded) and events[-1].payouts == (3, 0, 0)
    assert state.phase is Phase.OVER and state.stacks == (22, 19, 19)
    lines = {line.name: (line.buy_in, line.stack, line.net) for line in ledger(state)}
    assert lines == {"Ana": (20, 22, 2), "Ben": (20, 19, -1), "Cleo": (20, 19, -1)}
    assert table.can_leave(state, 0) == "the session is over"


def test_sequential_kicked_seat_declares_out_on_its_turn() -> None:
    state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0, rules=preset("indonesian"))
    state, _ = table.deal(state, deck=_deck("As Ks Qs Js Ts 9s"))
    assert table.waiting_for(state) == (1,)  # the dealer's left declares first
    state, events = table.kick(state, 2)
    assert events == [SeatRemoved(2, "removed by the host")]  # not its turn yet
    with pytest.raises(IllegalActionError, match="has nothing to decide now"):
        table.time_out(state, [0])
    assert table.legal_actions(state, 0).declarations == ()
    state, events = table.declare(state, 1, IN)
    assert events == [Declared(1, IN), Declared(2, OUT)]
    assert table.status(state) == table.Status(Step.DECLARE, (0,), None)


def test_away_seat_is_dealt_out_and_comes_back() -> None:
    state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0)
    state, _ = table.sit_out(state, 1)
    assert table.legal_actions(state, 1).may_come_back
    state, events = table.deal(state, rng=random.Random(1))
    assert isinstance(events[0], AntesPosted) and events[0].amounts == (1, 0, 1)
    assert state.hands[1] is None and state.stacks == (19, 20, 19)
    state, _ = table.declare_all(state, {0: IN, 2: OUT})  # Ana takes the pot of 2
    assert state.stacks == (21, 20, 19) and state.pot == 0
    state, _ = table.come_back(state, 1)
    state, events = table.deal(state, rng=random.Random(2))
    assert isinstance(events[0], AntesPosted) and events[0].amounts == (1, 1, 1)
    assert state.hands[1] is not None


def test_the_dealer_button_passes_over_a_seat_away_or_gone() -> None:
    # RULES.md "Money, limits, ending": the deal passes to the next seat still in play
    state = new_session(["Ana", "Ben", "Cleo", "Dee"], 20, dealer=0)
    state, _ = table.deal(state, rng=random.Random(1))  # antes: pot 4, every stack 19
    state, _ = table.sit_out(state, 1)  # Ben goes away mid-round: he still owes his call
    assert state.dealer == 0
    state, _ = table.declare_all(state, {0: IN, 1: OUT, 2: OUT, 3: OUT})
    assert state.stacks == (23, 19, 19, 19) and state.pot == 0  # Ana wins 4 uncontested
    assert state.dealer == 2  # the deal would pass to Ben, who is away: Cleo deals
    state, _ = table.sit_out(state, 2)  # Cleo holds the button between rounds, goes away
    assert state.dealer == 3
    state, _ = table.leave(state, 3)  # Dee holds it and leaves
    assert state.dealer == 0 and state.stacks == (23, 19, 19, 19)
    state, _ = table.come_back(state, 1)  # coming back does not take the button back
    assert state.dealer == 0


def test_away_seats_can_stall_the_table_until_one_comes_back() -> None:
    state = new_session(["Ana", "Ben"], 20)
    state, _ = table.sit_out(state, 0)
    assert table.status(state) == table.Status(
        Step.WAIT, (0,), "fewer than two players have chips to play")
    state, _ = table.come_back(state, 0)
    assert table.status(state).step is Step.DEAL


def test_rebuy_offered_below_the_minimum_buy_in() -> None:
    rules = preset("buy-in-limits")  # minimum buy-in 20, up to 2 rebuys
    state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0, rules=rules)
    assert table.legal_actions(state, 0).rebuy is None  # 20 is not below 20
    state, _ = table.deal(state, rng=random.Random(5))
    assert table.legal_actions(state, 0).rebuy is None  # not between rounds
    state, _ = table.declare_all(state, {0: OUT, 1: OUT, 2: IN})
    assert state.stacks == (19, 19, 22)
    actions = table.legal_actions(state, 0)
    assert actions.rebuy == 20
    assert table.can_rebuy(state, 0, 19) == "a rebuy must be a whole number of chips >= 20, not 19"
    state, _ = table.rebuy(state, 0, 20)
    assert state.stacks[0] == 39 and state.buy_ins[0] == 40 and state.rebuys_used[0] == 1
    assert ledger(state)[0].net == -1


def test_status_wait_for_a_rebuy_or_end() -> None:
    state = new_session(["Ana", "Ben"], [10, 0], rules=Rules(rebuys=True))
    assert table.status(state) == table.Status(
        Step.WAIT, (1,), "fewer than two players have chips to play")
    state, _ = table.rebuy(state, 1, 5)
    assert table.status(state).step is Step.DEAL
    plain = new_session(["Ana", "Ben"], [10, 0])
    assert table.status(plain) == table.Status(
        Step.END, (), "fewer than two players left with chips")


def test_a_round_that_busts_every_loser_waits_for_a_rebuy() -> None:
    """Attack 5: under table stakes with rebuys, a round that leaves one player with chips
    waits between rounds for a rebuy (docs/protocol.md, Rebuys) instead of ending the
    session; with no rebuy left it ends as before."""
    rules = Rules(rebuys=True, max_rebuys=1, shortfall="table_stakes")
    deck = _deck("Ah 2c 3d Ad 4c 5d Ac 7s 9h")  # Ben: Ad Ac Ah, three aces
    calls = {0: IN, 1: IN, 2: IN}
    state = new_session(["Ana", "Ben", "Cleo"], 3, dealer=0, rules=rules)
    state, _ = table.deal(state, deck=deck)
    assert state.stacks == (2, 2, 2) and state.pot == 3  # antes of 1
    state, events = table.declare_all(state, calls)
    resolved = events[-1]
    assert isinstance(resolved, RoundResolved) and resolved.winners == (1,)
    # Ben takes the pot of 3; Ana and Cleo owe a match of 3 but have 2 (table stakes)
    assert state.stacks == (0, 5, 0) and state.pot == 4 and not resolved.session_over
    assert table.status(state) == table.Status(
        Step.WAIT, (0, 2), "fewer than two players have chips to play")
    state, _ = table.rebuy(state, 0, 3)
    assert table.status(state).step is Step.DEAL
    # the same round when Ana and Cleo have used their one rebuy: only Ben, bust too,
    # has one left, so the table waits for him alone
    spent = new_session(["Ana", "Ben", "Cleo"], [0, 3, 0], dealer=0, rules=rules)
    assert spent.dealer == 1  # the button starts at the first seat with chips: Ben
    spent, _ = table.rebuy(spent, 0, 3)
    spent, _ = table.rebuy(spent, 2, 3)
    spent, _ = table.deal(spent, deck=deck)  # dealt from Cleo: Cleo has the three aces
    spent, _ = table.declare_all(spent, calls)
    assert spent.stacks == (0, 0, 5) and spent.rebuys_used == (1, 0, 1)
    assert table.status(spent).seats == (1,) and spent.phase is Phase.DEAL
    # without rebuys the round ends the session, as before
    plain = new_session(["Ana", "Ben", "Cleo"], 3, dealer=0,
                        rules=Rules(shortfall="table_stakes"))
    plain, _ = table.deal(plain, deck=deck)
    plain, events = table.declare_all(plain, calls)
    # the pot of 4 left at the end is shared: 1 each, the odd chip to Cleo, left of the
    # button (Ben holds it after the round)
    assert plain.stacks == (1, 6, 2) and plain.pot == 0 and plain.phase is Phase.OVER
    assert plain.end_reason == "fewer than two players left with chips"


def test_time_out_passes_the_lowest_card() -> None:
    state = new_session(["Ana", "Ben"], 20, dealer=1, rules=preset("pass-the-trash"))
    state, _ = table.deal(state, deck=_deck("Kh 7d 2s 8d Ah 9c"))  # Ana: Kh 2s Ah
    assert table.status(state) == table.Status(Step.PASS, (0, 1), None)
    assert set(table.legal_actions(state, 0).passes) == set(parse_cards("Kh 2s Ah"))
    state, _ = table.time_out(state, [0])
    assert state.passes is not None and state.passes[0] == parse_cards("2s")[0]
    assert table.waiting_for(state) == (1,)


def test_illegal_operations_name_the_problem_and_apply_nothing() -> None:
    state = new_session(["Ana", "Ben"], 20)
    with pytest.raises(IllegalActionError, match="there is no seat 5"):
        table.kick(state, 5)
    with pytest.raises(IllegalActionError, match="'Ana' is not away"):
        table.come_back(state, 0)
    state, _ = table.sit_out(state, 0)
    with pytest.raises(IllegalActionError, match="'Ana' is already away"):
        table.sit_out(state, 0)
    assert table.can_time_out(state, 0) == "'Ana' has nothing to decide now"


def test_new_events_round_trip_as_json() -> None:
    for event in (SeatLeft(1), SeatRemoved(2, "rude")):
        assert event_from_dict(event_to_dict(event)) == event


# ---------------------------------------------------------------------------------------------
# Property: every preset, random table operations.


def _run(rules: Rules, seed: int, ops: list[int]) -> tuple[GameState, list[Event], set[int]]:
    rng = random.Random(seed)
    names = ["Ana", "Ben", "Cleo", "Dara"]
    state = new_session(names, 30, dealer=seed % 4, rules=rules)
    log: list[Event] = [replay_start(state)]
    bots = bot_table(4)
    gone: set[int] = set()
    for op in ops:
        step = table.status(state)
        if step.step in (Step.OVER, Step.END):
            break
        seat = op % 4
        kind = op // 4 % 6
        if kind == 0 and table.can_kick(state, seat) is None:
            state, events = table.kick(state, seat)
            gone.add(seat)
        elif kind == 1 and table.can_sit_out(state, seat) is None:
            state, events = table.sit_out(state, seat)
        elif kind == 2 and table.can_come_back(state, seat) is None:
            state, events = table.come_back(state, seat)
        elif kind == 3 and (least := table.legal_actions(state, seat).rebuy) is not None:
            state, events = table.rebuy(state, seat, least)
        elif kind == 4 and step.step in (Step.PASS, Step.DECLARE):
            state, events = table.time_out(state, step.seats[:1])
        elif step.step is Step.DEAL:
            state, events = table.deal(state, rng=rng)
            for seat_gone in gone:
                assert state.hands[seat_gone] is None
            assert isinstance(events[-1], CardsDealt)
        elif step.step is Step.WAIT:
            for s in step.seats:
                if table.can_come_back(state, s) is None:
                    state, events = table.come_back(state, s)
                    break
            else:
                state, events = table.rebuy(state, step.seats[0], table.rebuy_floor(state))
        else:
            state, events = bots_act(state, bots, rng)
        log.extend(events)
    if state.phase is not Phase.OVER:
        state, events = table.end(state)
        log.extend(events)
    return state, log, gone


def replay_start(state: GameState) -> SessionStarted:
    return SessionStarted(rules=state.rules, names=state.names, stacks=state.stacks,
                          dealer=state.dealer)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**6),
       ops=st.lists(st.integers(0, 200), min_size=5, max_size=80))
def test_random_table_operations_keep_every_chip(name: str, seed: int, ops: list[int]) -> None:
    state, log, gone = _run(preset(name), seed, ops)
    assert replay(log) == state
    assert replay([event_from_dict(event_to_dict(e)) for e in log]) == state
    assert sum(state.stacks) == sum(state.buy_ins)  # ended: pot and reserve shared out
    assert sum(line.net for line in ledger(state)) == 0
    dealt_after: dict[int, bool] = {}
    current: GameState | None = None
    for event in log:
        current = evolve(current, event)
        if isinstance(event, CardsDealt):
            for seat in gone:
                if current.left and current.left[seat]:
                    dealt_after[seat] = event.hands[seat] is not None
    assert not any(dealt_after.values())
    for seat in gone:
        assert state.left[seat] and state.eliminated[seat]


def test_an_away_seat_comes_back_for_the_next_game_not_in_the_middle_of_one() -> None:
    # Seed 1 (three cards): Ana in, Ben in: a showdown, the loser matches: the pot is 2
    # after the round, the game goes on; Cleo (away) may come back only once it is won.
    state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0)
    state, _ = table.sit_out(state, 2)
    state, events = table.deal(state, rng=random.Random(1))
    assert isinstance(events[0], AntesPosted) and events[0].amounts == (1, 1, 0)
    assert table.game_in_progress(state)
    assert table.can_come_back(state, 2) == (
        "'Cleo' comes back when the next game starts (the pot of 2 is still being played for)")
    state, _ = table.declare_all(state, {0: IN, 1: IN})
    assert state.pot > 0 and state.phase is Phase.DEAL
    assert not table.legal_actions(state, 2).may_come_back
    with pytest.raises(IllegalActionError, match="comes back when the next game starts"):
        table.come_back(state, 2)
    while state.pot > 0:  # the game is played out by Ana and Ben (uncontested: Ana in alone)
        state, _ = table.deal(state, rng=random.Random(3))
        assert state.hands[2] is None
        state, _ = table.declare_all(state, {0: IN, 1: OUT})
    assert not table.game_in_progress(state)
    state, _ = table.come_back(state, 2)
    state, events = table.deal(state, rng=random.Random(4))
    assert isinstance(events[0], AntesPosted) and events[0].new_game
    assert events[0].amounts == (1, 1, 1) and state.hands[2] is not None


def test_an_away_seat_may_come_back_mid_game_when_the_table_cannot_deal_without_it() -> None:
    # Cleo goes away before round 2 (dealt out of it: she has missed a round of the game);
    # Ben after round 2. Only Ana could be dealt in: either may come back.
    state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0)
    state, _ = table.deal(state, rng=random.Random(1))
    state, _ = table.declare_all(state, {0: IN, 1: IN, 2: OUT})  # a showdown: the pot stays
    assert state.pot > 0
    state, _ = table.sit_out(state, 2)
    state, _ = table.deal(state, rng=random.Random(2))
    assert state.hands[2] is None
    state, _ = table.declare_all(state, {0: IN, 1: IN})  # Ben matches: the pot stays
    assert state.pot == 3
    state, _ = table.sit_out(state, 1)
    assert table.status(state).step is Step.WAIT  # only Ana could be dealt in
    assert table.can_come_back(state, 2) is None
    assert table.can_come_back(state, 1) is None
    state, _ = table.come_back(state, 1)
    assert table.status(state).step is Step.DEAL
    assert table.can_come_back(state, 2) is not None  # the table deals without Cleo
