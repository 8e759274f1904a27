"""The rules engine (issue 2, part 4): every rule of RULES.md in a hand-worked scenario.

Seats are 0.. clockwise: Ana, Ben, Cleo, Dev, Eli. Hands are chosen so the winner is
obvious: in three-card Guts "Qs Qh 7d" (pair of queens) beats "9d 9c 8s" (pair of nines)
beats "Jc Ts 4h" (jack high) beats "7c 5d 2h" (seven high).
"""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

import pytest
from conftest import IN, OUT, chips_on_table, deal_cards, hands_of, play_round, table

from gutskit.core.cards import parse_cards
from gutskit.core.engine import (
    ConservationError,
    GameState,
    IllegalActionError,
    Phase,
    can_deal,
    can_declare,
    deal,
    deal_from_rng,
    declare,
    declare_all,
    end_session,
    evolve,
    hands_from_deck,
    new_session,
    replay,
)
from gutskit.core.events import (
    AntesPosted,
    CardsDealt,
    DeclarationsRevealed,
    Declared,
    Event,
    Outcome,
    RoundResolved,
    SessionEnded,
)
from gutskit.core.rules import Rules

QUEENS = "Qs Qh 7d"
NINES = "9d 9c 8s"
JACK_HIGH = "Jc Ts 4h"
SEVEN_HIGH = "7c 5d 2h"
NONE3 = (None, None, None)


def c(text: str) -> tuple[int, ...]:
    return parse_cards(text)


# --- starting a session ------------------------------------------------------------------------


def test_new_session_state() -> None:
    state = table(3, [20, 30, 40], dealer=2)
    assert state.names == ("Ana", "Ben", "Cleo")
    assert state.stacks == state.buy_ins == (20, 30, 40)
    assert state.eliminated == (False, False, False)
    assert (state.dealer, state.pot, state.reserve, state.phase) == (2, 0, 0, Phase.DEAL)
    assert state.hands == NONE3
    assert state.declarations == NONE3
    assert (state.round_number, state.game_number, state.total) == (0, 0, 90)
    assert state.antes_due
    assert state.seats_in_play == (0, 1, 2)
    assert state.seat_of("Ben") == 1


@pytest.mark.parametrize(
    ("names", "stacks", "kwargs", "fragment"),
    [
        (["Ana"], 20, {}, "2 to 10 players, got 1"),
        ([f"P{i}" for i in range(11)], 20, {}, "2 to 10 players, got 11"),
        (["Ana", "Ana"], 20, {}, "duplicate player name 'Ana'"),
        (["Ana", ""], 20, {}, "player name ''"),
        (["Ana", "Ben"], [20, -1], {}, "-1"),
        (["Ana", "Ben"], [20, 1.5], {}, "1.5"),
        (["Ana", "Ben"], [20, True], {}, "True"),
        (["Ana", "Ben"], [20], {}, "1 stacks for 2 players"),
        (["Ana", "Ben"], 20, {"dealer": 2}, "dealer seat 2"),
        (["Ana", "Ben"], 20, {"pot": -5}, "pot must be"),
        (["Ana", "Ben"], 20, {"reserve": 0.5}, "reserve must be"),
    ],
)
def test_new_session_refuses_bad_tables(names: list[str], stacks: object,
                                        kwargs: dict[str, int], fragment: str) -> None:
    with pytest.raises(IllegalActionError) as info:
        new_session(names, stacks, **kwargs)  # type: ignore[arg-type]
    assert fragment in str(info.value)


# --- dealing -----------------------------------------------------------------------------------


def test_hands_from_deck_deals_one_card_at_a_time_from_dealers_left() -> None:
    state = table(3, 20, dealer=0)
    deck = list(range(52))
    # left of the dealer (Ana) is Ben: Ben gets cards 0, 3, 6; Cleo 1, 4, 7; Ana 2, 5, 8
    assert hands_from_deck(state, deck) == ((2, 5, 8), (0, 3, 6), (1, 4, 7))


def test_hands_from_deck_skips_seats_out_of_play() -> None:
    state = table(4, [20, 20, 0, 20], dealer=0, cards_per_hand=2)
    assert hands_from_deck(state, list(range(52))) == ((2, 5), (0, 3), None, (1, 4))


def test_deal_from_rng_is_reproducible_and_distinct() -> None:
    state = table(5, 20)
    first, _ = deal_from_rng(state, random.Random(11))
    second, _ = deal_from_rng(state, random.Random(11))
    assert first.hands == second.hands
    cards = [card for hand in first.hands if hand for card in hand]
    assert len(cards) == 15 == len(set(cards))
    third, _ = deal_from_rng(state, random.Random(12))
    assert third.hands != first.hands
    # the CSPRNG default deals too
    fourth, _ = deal_from_rng(state)
    assert all(h is not None and len(h) == 3 for h in fourth.hands)


# --- antes -------------------------------------------------------------------------------------


def test_antes_only_when_a_new_game_starts() -> None:
    state = table(3, 20, dealer=0)
    state, events = deal_cards(state, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH})
    assert events == [AntesPosted(amounts=(1, 1, 1), refill=0, new_game=True),
                      CardsDealt(hands=(c(SEVEN_HIGH), c(QUEENS), c(JACK_HIGH)))]
    assert (state.pot, state.stacks, state.phase) == (3, (19, 19, 19), Phase.DECLARE)
    assert (state.round_number, state.game_number) == (1, 1)

    # Ben (queens) beats Cleo (jack high): Ben +3, Cleo matches 3; the next pot is 3.
    state, events = declare_all(state, {0: OUT, 1: IN, 2: IN})
    assert events == [
        DeclarationsRevealed((OUT, IN, IN)),
        RoundResolved(outcome=Outcome.SHOWDOWN, shown=(None, c(QUEENS), c(JACK_HIGH)),
                      winners=(1,), won=(0, 3, 0), matched=(0, 0, 3), eliminated=(),
                      to_reserve=0, pot_after=3, next_dealer=1, session_over=False),
    ]
    assert (state.stacks, state.pot, state.dealer, state.phase) == ((19, 22, 16), 3, 1,
                                                                    Phase.DEAL)
    assert not state.antes_due

    # The pot is not empty: no antes. Cleo alone in wins the 3 uncontested.
    state, events = deal_cards(state, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH})
    assert [type(e) for e in events] == [CardsDealt]
    assert (state.pot, state.stacks) == (3, (19, 22, 16))
    state, events = declare_all(state, {0: OUT, 1: OUT, 2: IN})
    assert events[-1] == RoundResolved(
        outcome=Outcome.UNCONTESTED, shown=NONE3, winners=(2,), won=(0, 0, 3),
        matched=(0, 0, 0), eliminated=(), to_reserve=0, pot_after=0, next_dealer=2,
        session_over=False)
    assert (state.stacks, state.pot, state.dealer) == ((19, 22, 19), 0, 2)

    # Empty pot: a new game, everyone antes again.
    assert state.antes_due
    state, events = deal_cards(state, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH})
    assert events[0] == AntesPosted(amounts=(1, 1, 1), refill=0, new_game=True)
    assert (state.stacks, state.pot, state.game_number, state.round_number) == (
        (18, 21, 18), 3, 2, 3)
    assert chips_on_table(state) == state.total == 60


def test_ante_every_round() -> None:
    state = table(3, 20, ante_every_round=True)
    state, _ = play_round(state, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH}, ins=[1, 2])
    assert (state.stacks, state.pot) == ((19, 22, 16), 3)
    state, events = deal_cards(state, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH})
    assert events[0] == AntesPosted(amounts=(1, 1, 1), refill=0, new_game=False)
    assert (state.stacks, state.pot, state.game_number) == ((18, 21, 15), 6, 1)


def test_ante_of_a_short_stack_and_under_debt() -> None:
    state = table(3, [20, 3, 20], ante=5)
    state, events = deal_cards(state, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH})
    assert events[0] == AntesPosted(amounts=(5, 3, 5), refill=0, new_game=True)
    assert (state.stacks, state.pot) == ((15, 0, 15), 13)

    debt = table(3, [20, 3, 20], ante=5, shortfall="debt")
    debt, events = deal_cards(debt, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH})
    assert events[0] == AntesPosted(amounts=(5, 5, 5), refill=0, new_game=True)
    assert (debt.stacks, debt.pot) == ((15, -2, 15), 15)


# --- nobody in (all_out) -----------------------------------------------------------------------


def void_round(state: GameState) -> tuple[GameState, list[Event]]:
    return play_round(state, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH}, ins=[])


def test_all_out_reante_same_dealer_everyone_antes_again() -> None:
    state = table(3, 20, dealer=0)
    state, events = void_round(state)
    assert events[-1] == RoundResolved(
        outcome=Outcome.VOID, shown=NONE3, winners=(), won=(0, 0, 0), matched=(0, 0, 0),
        eliminated=(), to_reserve=0, pot_after=3, next_dealer=0, session_over=False)
    assert (state.stacks, state.pot, state.dealer) == ((19, 19, 19), 3, 0)
    assert state.antes_due and state.reante_due

    state, events = deal_cards(state, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH})
    assert events[0] == AntesPosted(amounts=(1, 1, 1), refill=0, new_game=False)
    assert (state.stacks, state.pot, state.game_number, state.round_number) == (
        (18, 18, 18), 6, 1, 2)
    state, _ = declare_all(state, {0: OUT, 1: OUT, 2: OUT})
    state, _ = deal_cards(state, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH})
    assert (state.stacks, state.pot, state.dealer) == ((17, 17, 17), 9, 0)


def test_all_out_carry_same_dealer_no_ante() -> None:
    state = table(3, 20, dealer=1, all_out="carry")
    state, _ = play_round(state, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH}, ins=[])
    assert (state.stacks, state.pot, state.dealer) == ((19, 19, 19), 3, 1)
    assert not state.antes_due
    state, events = deal_cards(state, {0: SEVEN_HIGH, 1: QUEENS, 2: JACK_HIGH})
    assert [type(e) for e in events] == [CardsDealt]
    assert (state.stacks, state.pot, state.round_number) == ((19, 19, 19), 3, 2)
    # after a real round the deal passes on
    state, _ = declare_all(state, {0: IN, 1: OUT, 2: OUT})
    assert (state.stacks, state.dealer) == ((22, 19, 19), 2)


# --- exactly one in ---------------------------------------------------------------------------


def test_uncontested_win_shows_no_cards_and_empties_the_pot() -> None:
    state = table(4, 50, dealer=3, pot=8)
    hands = {0: QUEENS, 1: JACK_HIGH, 2: NINES, 3: SEVEN_HIGH}
    state, events = play_round(state, hands, ins=[2])
    assert events[-1] == RoundResolved(
        outcome=Outcome.UNCONTESTED, shown=(None,) * 4, winners=(2,), won=(0, 0, 8, 0),
        matched=(0,) * 4, eliminated=(), to_reserve=0, pot_after=0, next_dealer=0,
        session_over=False)
    assert (state.stacks, state.pot, state.dealer) == ((50, 50, 58, 50), 0, 0)
    state, events = deal_cards(state, hands)
    assert events[0] == AntesPosted(amounts=(1, 1, 1, 1), refill=0, new_game=True)
    assert state.game_number == 2  # the file's game in progress was game 1


# --- showdown, matches, ties ------------------------------------------------------------------


def test_showdown_pot_8_three_in() -> None:
    # RULES.md worked example: pot 8, three in, one winner: winner +8, losers pay 8 each
    state = table(4, 50, dealer=3, pot=8)
    state, events = play_round(state, {0: QUEENS, 1: JACK_HIGH, 2: NINES, 3: SEVEN_HIGH},
                               ins=[0, 1, 2])
    result = events[-1]
    assert result == RoundResolved(
        outcome=Outcome.SHOWDOWN, shown=(c(QUEENS), c(JACK_HIGH), c(NINES), None),
        winners=(0,), won=(8, 0, 0, 0), matched=(0, 8, 8, 0), eliminated=(), to_reserve=0,
        pot_after=16, next_dealer=0, session_over=False)
    assert (state.stacks, state.pot) == ((58, 42, 42, 50), 16)


def two_card_tie_table(dealer: int, **rules: Any) -> GameState:
    return table(4, 100, dealer=dealer, pot=25, cards_per_hand=2, suit_tiebreak="none",
                 **rules)


TIE_HANDS = {0: "Ah Kd", 1: "As Kc", 2: "Qh Jd", 3: "7c 2d"}


def test_tie_splits_the_pot_and_the_odd_chip_carries() -> None:
    state, events = play_round(two_card_tie_table(3), TIE_HANDS, ins=[0, 1, 2])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert (result.winners, result.won, result.matched, result.pot_after) == (
        (0, 1), (12, 12, 0, 0), (0, 0, 25, 0), 26)
    assert (state.stacks, state.pot) == ((112, 112, 75, 100), 26)


@pytest.mark.parametrize(("dealer", "won"), [(3, (13, 12, 0, 0)), (0, (12, 13, 0, 0)),
                                             (1, (13, 12, 0, 0))])
def test_odd_chip_first_left_of_dealer(dealer: int, won: tuple[int, ...]) -> None:
    state = two_card_tie_table(dealer, odd_chip="first_left_of_dealer")
    state, events = play_round(state, TIE_HANDS, ins=[0, 1, 2])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert (result.won, result.pot_after) == (won, 25)


def test_three_way_tie_and_a_tie_without_losers() -> None:
    state = table(4, 100, dealer=0, pot=10, cards_per_hand=2, suit_tiebreak="none")
    hands = {0: "Ah Kd", 1: "As Kc", 2: "Ac Kh", 3: "Qh Jd"}
    state, events = play_round(state, hands, ins=[0, 1, 2, 3])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert (result.winners, result.won, result.matched, result.pot_after) == (
        (0, 1, 2), (3, 3, 3, 0), (0, 0, 0, 10), 11)
    # everyone in ties: the carry-over alone is the next pot, no game ends, no antes
    state, events = play_round(state, {0: "Ah Kd", 1: "As Kc", 2: "7c 2d", 3: "Qh Jd"},
                               ins=[0, 1])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert (result.winners, result.won, result.pot_after) == ((0, 1), (5, 5, 0, 0), 1)
    assert state.stacks == (108, 108, 103, 90)
    assert not state.antes_due


def test_suit_tiebreak_high_card_decides_the_showdown() -> None:
    state = table(2, 50, pot=10, cards_per_hand=2)
    state, events = play_round(state, {0: "As Kc", 1: "Ah Kd"}, ins=[0, 1])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert (result.winners, result.won, result.matched) == ((0,), (10, 0), (0, 10))


# --- pot cap -----------------------------------------------------------------------------------

CAP_HANDS = {0: QUEENS, 1: JACK_HIGH, 2: NINES}


def test_pot_cap_match_mode_losers_pay_at_most_the_cap() -> None:
    state = table(3, 100, pot=80, pot_cap=50)
    state, events = play_round(state, CAP_HANDS, ins=[0, 1, 2])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    # the winner takes the whole pot of 80; each loser pays min(80, 50) = 50
    assert (result.won, result.matched, result.to_reserve, result.pot_after) == (
        (80, 0, 0), (0, 50, 50), 0, 100)
    assert (state.stacks, state.pot, state.reserve) == ((180, 50, 50), 100, 0)


def test_pot_cap_match_mode_below_the_cap_pays_the_pot() -> None:
    state = table(3, 100, pot=30, pot_cap=50)
    state, events = play_round(state, CAP_HANDS, ins=[0, 2])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert (result.matched, result.pot_after) == ((0, 0, 30), 30)


def test_pot_cap_reserve_mode() -> None:
    state = table(3, 100, dealer=0, pot=40, pot_cap=50, pot_cap_mode="reserve")
    state, events = play_round(state, CAP_HANDS, ins=[0, 1, 2])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    # losers pay the full 40 each: 80, of which 50 stay in the pot and 30 go to the reserve
    assert (result.won, result.matched, result.to_reserve, result.pot_after) == (
        (40, 0, 0), (0, 40, 40), 30, 50)
    assert (state.stacks, state.pot, state.reserve) == ((140, 60, 60), 50, 30)

    # Cleo alone in takes the 50; the reserve stays on the table
    state, _ = play_round(state, CAP_HANDS, ins=[2])
    assert (state.stacks, state.pot, state.reserve) == ((140, 60, 110), 0, 30)

    # a new game: the reserve refills the pot (30 <= cap) before the antes
    state, events = deal_cards(state, CAP_HANDS)
    assert events[0] == AntesPosted(amounts=(1, 1, 1), refill=30, new_game=True)
    assert (state.stacks, state.pot, state.reserve) == ((139, 59, 109), 33, 0)
    assert chips_on_table(state) == state.total == 340


def test_pot_cap_reserve_refill_is_limited_to_the_cap() -> None:
    state = table(3, 100, reserve=70, pot_cap=50, pot_cap_mode="reserve")
    state, events = deal_cards(state, CAP_HANDS)
    assert events[0] == AntesPosted(amounts=(1, 1, 1), refill=50, new_game=True)
    assert (state.pot, state.reserve, state.stacks) == (53, 20, (99, 99, 99))


def test_pot_cap_reserve_mode_losers_pay_in_full_above_the_cap() -> None:
    state = table(3, 100, pot=50, pot_cap=50, pot_cap_mode="reserve")
    state, events = play_round(state, CAP_HANDS, ins=[0, 1, 2])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert (result.matched, result.to_reserve, result.pot_after) == ((0, 50, 50), 50, 50)


def test_end_session_shares_pot_and_reserve_among_seated_players() -> None:
    state = table(3, 100, dealer=0, pot=40, pot_cap=50, pot_cap_mode="reserve")
    state, _ = play_round(state, CAP_HANDS, ins=[0, 1, 2])
    assert (state.pot, state.reserve, state.dealer) == (50, 30, 1)
    state, events = end_session(state)
    # 80 among three: 26 each, the 2 odd chips clockwise from the dealer's (Ben's) left
    assert events == [SessionEnded(reason="the table agreed to stop", payouts=(27, 26, 27))]
    assert (state.stacks, state.pot, state.reserve, state.phase) == (
        (167, 86, 87), 0, 0, Phase.OVER)
    assert end_session(state) == (state, [])
    assert can_deal(state) == "cannot deal now: the session is in the over phase"


# --- shortfall ---------------------------------------------------------------------------------

SHORT_HANDS = {0: "Kc Ks", 1: "Ad Qc", 2: "6h 6d"}


def short_table(shortfall: str) -> GameState:
    return table(3, [100, 10, 100], dealer=0, pot=25, cards_per_hand=2, shortfall=shortfall)


def test_shortfall_eliminate() -> None:
    state, events = play_round(short_table("eliminate"), SHORT_HANDS, ins=[0, 1, 2])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    # Ben cannot match 25: pays nothing, is out for the session, keeps his 10 chips;
    # the deal skips him (Ana -> Cleo)
    assert (result.won, result.matched, result.eliminated, result.pot_after,
            result.next_dealer) == ((25, 0, 0), (0, 0, 25), (1,), 25, 2)
    assert (state.stacks, state.eliminated, state.pot) == ((125, 10, 75),
                                                            (False, True, False), 25)
    assert state.seats_in_play == (0, 2)
    assert not state.in_play(1)
    # never dealt in again
    hands = hands_from_deck(state, list(range(52)))
    assert hands[1] is None
    assert can_deal(state, hands_of(state, SHORT_HANDS)) == (
        "'Ben' cannot be dealt in: eliminated")
    state, _ = deal(state, hands)
    assert can_declare(state, 1, OUT) == "seat 1 was not dealt in"
    state, events = declare_all(state, {0: IN, 2: OUT})
    assert state.stacks == (150, 10, 75)
    # at the end the eliminated player shares nothing of what is left
    state, events = play_round(state, {0: "Kc Ks", 2: "6h 6d"}, ins=[0, 2])
    assert (state.pot, state.dealer) == (2, 2)  # antes 1 + 1, then Ana won, Cleo paid 2
    state, events = end_session(state)
    assert events[-1] == SessionEnded(reason="the table agreed to stop", payouts=(1, 0, 1))


def test_shortfall_table_stakes() -> None:
    state, events = play_round(short_table("table_stakes"), SHORT_HANDS, ins=[0, 1, 2])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert (result.matched, result.eliminated, result.pot_after, result.next_dealer) == (
        (0, 10, 25), (), 35, 2)
    assert (state.stacks, state.eliminated) == ((125, 0, 75), (False, False, False))
    assert state.seats_in_play == (0, 2)  # no chips, not dealt in


def test_shortfall_debt() -> None:
    state, events = play_round(short_table("debt"), SHORT_HANDS, ins=[0, 1, 2])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert (result.matched, result.eliminated, result.pot_after, result.next_dealer) == (
        (0, 25, 25), (), 50, 2)
    assert state.stacks == (125, -15, 75)
    assert chips_on_table(state) == state.total == 235
    assert state.seats_in_play == (0, 2)


def test_shortfall_exact_cover_is_no_shortfall() -> None:
    state = table(3, [100, 25, 100], pot=25, cards_per_hand=2)
    state, events = play_round(state, SHORT_HANDS, ins=[0, 1])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert (result.matched, result.eliminated) == ((0, 25, 0), ())
    assert state.stacks == (125, 0, 100)


def test_session_ends_when_fewer_than_two_can_play() -> None:
    state = table(2, [20, 10], pot=10, cards_per_hand=2)
    state, events = play_round(state, {0: "Kc Ks", 1: "Ad Qc"}, ins=[0, 1])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert result.session_over
    # Ben pays his last 10 chips into the next pot: only Ana has chips left
    assert (state.stacks, state.pot, state.phase) == ((30, 0), 10, Phase.OVER)
    assert state.end_reason == "fewer than two players left with chips"
    assert can_deal(state) == "cannot deal now: the session is in the over phase"
    # design.md: what is left in the pot is shared among the players still seated (not
    # eliminated; Ben is broke but seated), odd chips from the dealer's left
    state, events = end_session(state)
    assert events == [SessionEnded(reason="fewer than two players left with chips",
                                   payouts=(5, 5))]
    assert (state.stacks, state.pot) == ((35, 5), 0)


# --- require_cover -----------------------------------------------------------------------------


def test_require_cover() -> None:
    state = table(3, [100, 10, 100], pot=25, cards_per_hand=2, require_cover=True)
    state, _ = deal_cards(state, SHORT_HANDS)
    reason = can_declare(state, 1, IN)
    assert reason == ("'Ben' cannot declare in: require_cover needs 25 chips to match the "
                      "pot, 'Ben' has 10")
    assert can_declare(state, 1, OUT) is None
    assert can_declare(state, 0, IN) is None
    snapshot = copy.deepcopy(state)
    with pytest.raises(IllegalActionError, match="require_cover"):
        declare(state, 1, IN)
    with pytest.raises(IllegalActionError, match="require_cover"):
        declare_all(state, {0: IN, 1: IN, 2: OUT})
    assert state == snapshot  # nothing half-applied


def test_require_cover_uses_the_capped_match() -> None:
    state = table(3, [100, 10, 100], pot=25, cards_per_hand=2, require_cover=True,
                  pot_cap=10)
    state, _ = deal_cards(state, SHORT_HANDS)
    assert can_declare(state, 1, IN) is None


# --- dealer rotation ---------------------------------------------------------------------------


def test_dealer_passes_left_skipping_broke_players() -> None:
    state = table(4, [20, 0, 20, 20], dealer=0, cards_per_hand=2)
    hands = {0: "Kc Ks", 2: "Ad Qc", 3: "6h 6d"}
    state, _ = play_round(state, hands, ins=[3])
    assert state.dealer == 2
    state, _ = play_round(state, hands, ins=[3])
    assert state.dealer == 3
    state, _ = play_round(state, hands, ins=[3])
    assert state.dealer == 0
    assert state.stacks == (17, 0, 17, 26)


def test_dealer_skips_a_player_who_went_broke_this_round() -> None:
    # Ben is left of the dealer Ana and loses all his chips under table stakes
    state = table(3, [100, 10, 100], dealer=0, pot=25, cards_per_hand=2,
                  shortfall="table_stakes")
    state, events = play_round(state, SHORT_HANDS, ins=[0, 1])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert result.next_dealer == 2
    assert state.dealer == 2


# --- end_on_uncontested ------------------------------------------------------------------------


def three_rounds(end_on_uncontested: bool) -> tuple[GameState, list[RoundResolved]]:
    state = table(3, 20, dealer=0, end_on_uncontested=end_on_uncontested)
    hands = {0: QUEENS, 1: SEVEN_HIGH, 2: JACK_HIGH}
    results = []
    # 1: a new game, Ben alone in: no matched showdown yet in this game
    # 2: a new game, Ana beats Cleo, Cleo matches 3
    # 3: Cleo alone in: the first uncontested win after a matched round
    for ins in ([1], [0, 2], [2]):
        state, events = play_round(state, hands, ins=ins)
        result = events[-1]
        assert isinstance(result, RoundResolved)
        results.append(result)
    return state, results


def test_end_on_uncontested_ends_after_a_matched_game() -> None:
    state, results = three_rounds(True)
    assert [r.session_over for r in results] == [False, False, True]
    assert [r.outcome for r in results] == [Outcome.UNCONTESTED, Outcome.SHOWDOWN,
                                            Outcome.UNCONTESTED]
    assert (state.stacks, state.pot, state.phase) == ((21, 21, 18), 0, Phase.OVER)
    assert state.end_reason == "uncontested win after matched rounds (end_on_uncontested)"
    assert can_deal(state) == "cannot deal now: the session is in the over phase"
    with pytest.raises(IllegalActionError, match="over phase"):
        deal_from_rng(state, random.Random(1))
    # nothing is left on the table: ending the ended session is a no-op
    assert end_session(state) == (state, [])


def test_without_end_on_uncontested_a_new_game_starts() -> None:
    state, results = three_rounds(False)
    assert not any(r.session_over for r in results)
    assert (state.stacks, state.pot, state.phase) == ((21, 21, 18), 0, Phase.DEAL)
    state, events = deal_cards(state, {0: QUEENS, 1: SEVEN_HIGH, 2: JACK_HIGH})
    assert events[0] == AntesPosted(amounts=(1, 1, 1), refill=0, new_game=True)
    assert state.game_number == 3


def test_end_on_uncontested_game_in_progress_counts_as_matched() -> None:
    state = table(3, 20, pot=9, end_on_uncontested=True)
    state, events = play_round(state, {0: QUEENS, 1: SEVEN_HIGH, 2: JACK_HIGH}, ins=[0])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert result.session_over
    assert state.stacks == (29, 20, 20)


def test_end_on_uncontested_a_showdown_without_match_does_not_count() -> None:
    # the only loser is eliminated and pays nothing: no match in this game
    state = table(3, [20, 2, 20], dealer=0, end_on_uncontested=True, cards_per_hand=2)
    hands = {0: "Kc Ks", 1: "Ad Qc", 2: "6h 6d"}
    state, events = deal_cards(state, hands)
    assert state.pot == 3
    state, events = declare_all(state, {0: OUT, 1: IN, 2: IN})
    result = events[-1]
    assert isinstance(result, RoundResolved)
    # Cleo's sixes beat Ben's ace high; Ben (1 chip) cannot match 3 and is eliminated
    assert (result.won, result.matched, result.eliminated, result.pot_after) == (
        (0, 0, 3), (0, 0, 0), (1,), 0)
    state, events = play_round(state, {0: "Kc Ks", 2: "6h 6d"}, ins=[2])
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert not result.session_over


# --- declarations ------------------------------------------------------------------------------


def test_sequential_declaration_from_the_dealers_left() -> None:
    state = table(3, 20, dealer=1, declaration="sequential", cards_per_hand=2)
    state, _ = deal_cards(state, {0: "Kc Ks", 1: "Ad Qc", 2: "6h 6d"})
    assert state.declaration_order() == (2, 0, 1)
    assert state.next_to_declare() == 2
    assert can_declare(state, 0, IN) == "it is Cleo's turn to declare, not Ana's"
    with pytest.raises(IllegalActionError, match="Cleo's turn"):
        declare(state, 1, OUT)
    state, events = declare(state, 2, IN)
    assert events == [Declared(2, IN)]
    assert state.declarations == (None, None, IN)
    assert state.next_to_declare() == 0
    assert can_declare(state, 2, OUT) == "'Cleo' has already declared"
    assert can_declare(state, 1, OUT) == "it is Ana's turn to declare, not Ben's"
    state, events = declare(state, 0, IN)
    assert events == [Declared(0, IN)]
    state, events = declare(state, 1, OUT)
    assert events[:2] == [Declared(1, OUT), DeclarationsRevealed((IN, OUT, IN))]
    result = events[2]
    assert isinstance(result, RoundResolved)
    assert (result.winners, result.won, result.matched) == ((0,), (3, 0, 0), (0, 0, 3))
    assert state.stacks == (22, 19, 16)


def test_simultaneous_declarations_in_any_order_sealed_until_the_last() -> None:
    state = table(3, 20, dealer=0)
    state, _ = deal_cards(state, {0: QUEENS, 1: SEVEN_HIGH, 2: JACK_HIGH})
    assert can_declare(state, 0, IN) is None  # not Ben first: no turn order
    state, events = declare(state, 0, IN)
    assert events == [Declared(0, IN)]
    assert state.phase is Phase.DECLARE
    state, events = declare(state, 2, IN)
    assert events == [Declared(2, IN)]
    state, events = declare(state, 1, OUT)
    assert [type(e) for e in events] == [Declared, DeclarationsRevealed, RoundResolved]
    assert state.stacks == (22, 19, 16)


def test_declare_all_matches_single_declarations() -> None:
    start = table(4, 30, dealer=2)
    hands = {0: QUEENS, 1: SEVEN_HIGH, 2: JACK_HIGH, 3: NINES}
    one, _ = play_round(start, hands, ins=[0, 2, 3])
    state, _ = deal_cards(start, hands)
    for seat in state.declaration_order():
        state, _ = declare(state, seat, IN if seat in (0, 2, 3) else OUT)
    # antes 1 each (pot 4); Ana's queens win 4; Cleo and Dev match 4 each
    assert state.stacks == one.stacks == (33, 29, 25, 25)
    assert (state.pot, state.dealer) == (one.pot, one.dealer) == (8, 3)


def test_declare_and_deal_in_the_wrong_phase() -> None:
    state = table(3, 20)
    assert can_declare(state, 0, IN) == "cannot declare now: the session is in the deal phase"
    with pytest.raises(IllegalActionError, match="deal phase"):
        declare(state, 0, IN)
    with pytest.raises(IllegalActionError, match="deal phase"):
        declare_all(state, {0: IN, 1: IN, 2: IN})
    state, _ = deal_cards(state, {0: QUEENS, 1: SEVEN_HIGH, 2: JACK_HIGH})
    assert can_deal(state) == "cannot deal now: the session is in the declare phase"
    snapshot = copy.deepcopy(state)
    with pytest.raises(IllegalActionError, match="declare phase"):
        deal_cards(state, {0: QUEENS, 1: SEVEN_HIGH, 2: JACK_HIGH})
    with pytest.raises(IllegalActionError, match="declare phase"):
        deal_from_rng(state, random.Random(0))
    assert state == snapshot


@pytest.mark.parametrize(
    ("hands", "reason"),
    [
        ({0: QUEENS, 1: SEVEN_HIGH}, "'Cleo' is in play but has no hand"),
        ({0: QUEENS, 1: SEVEN_HIGH, 2: "Qs 3c 4c"},
         "card Qs is dealt to both 'Ana' and 'Cleo'"),
        ({0: QUEENS, 1: SEVEN_HIGH, 2: "3c 4c"},
         "hand of 'Cleo' (3c 4c) has 2 cards, expected 3"),
    ],
)
def test_can_deal_reasons(hands: dict[int, str], reason: str) -> None:
    state = table(3, 20)
    assert can_deal(state, hands_of(state, hands)) == reason
    with pytest.raises(IllegalActionError) as info:
        deal_cards(state, hands)
    assert str(info.value) == reason


def test_can_deal_more_reasons() -> None:
    state = table(3, 20)
    assert can_deal(state) is None
    assert can_deal(state, [c(QUEENS), c(NINES)]) == "expected hands for 3 seats, got 2"
    assert can_deal(state, [c(QUEENS), c(NINES), (7, 7, 8)]) == (
        "card 3s is dealt to 'Cleo' twice")
    assert can_deal(state, [c(QUEENS), c(NINES), (1, 2, 52)]) == (
        "hand of 'Cleo' holds 52, which is not a card")
    assert can_deal(state, [c(QUEENS), c(NINES), ()]) is None  # dealt, cards unknown
    broke = table(3, [20, 0, 0])
    assert can_deal(broke) == "fewer than two players have chips to play"
    assert can_deal(table(3, [20, 0, 20]), [c(QUEENS), c(NINES), c(JACK_HIGH)]) == (
        "'Ben' cannot be dealt in: out of chips")


def test_declare_all_refusals_change_nothing() -> None:
    state = table(3, 20)
    state, _ = deal(state, [c(QUEENS), (), c(JACK_HIGH)])
    snapshot = copy.deepcopy(state)
    with pytest.raises(IllegalActionError, match="no declaration for 'Cleo'"):
        declare_all(state, {0: IN, 1: OUT})
    with pytest.raises(IllegalActionError, match="seat 7 is not at the table"):
        declare_all(state, {0: IN, 1: OUT, 2: OUT, 7: IN})
    with pytest.raises(IllegalActionError) as refused:  # a showdown needs Ben's cards
        declare_all(state, {0: IN, 1: IN, 2: OUT})
    assert str(refused.value) == ("'Ben' is in, but their cards were not recorded: the "
                                  "showdown compares the hands of everyone in")
    assert can_declare(state, 1, IN) is None  # alone in, he would win unseen
    assert can_declare(state, 5, IN) == "seat 5 was not dealt in"
    assert can_declare(state, 0, "in") == (  # type: ignore[arg-type]
        "declaration of 'Ana' must be in or out, not 'in'")
    assert state == snapshot
    state, _ = declare_all(state, {0: IN, 1: OUT, 2: IN})
    assert state.stacks == (22, 19, 16)


def test_declare_all_refusals_when_every_seat_is_dealt_in() -> None:
    """Every seat dealt in and one entry per seat (declare_all's usual case): the same
    refusals, in seat order, and nothing applied."""
    state = table(3, 20)
    state, _ = deal(state, [c(QUEENS), c(NINES), c(JACK_HIGH)])
    snapshot = copy.deepcopy(state)
    bad: Any = "in"
    with pytest.raises(IllegalActionError, match="declaration of 'Ben' must be in or out, "
                                                 "not 'in'"):
        declare_all(state, {0: IN, 1: bad, 2: OUT})
    with pytest.raises(IllegalActionError, match="no declaration for 'Ben'"):
        declare_all(state, {0: IN, 1: None, 2: OUT})  # type: ignore[dict-item]
    with pytest.raises(IllegalActionError, match="no declaration for 'Cleo'"):
        declare_all(state, {0: OUT, 1: OUT, 7: IN})
    with pytest.raises(IllegalActionError, match="declaration of 'Ana' must be in or out"):
        declare_all(state, {0: bad, 1: IN, 2: None})  # type: ignore[dict-item]
    assert state == snapshot
    state, _ = declare_all(state, {0: IN, 1: IN, 2: OUT})
    assert state.stacks == (22, 16, 19)


def test_declare_all_with_a_seat_not_dealt_in() -> None:
    state = table(3, [20, 0, 20])
    state, _ = deal(state, [c(QUEENS), None, c(JACK_HIGH)])
    with pytest.raises(IllegalActionError, match="seat 1 was not dealt in"):
        declare_all(state, {0: IN, 1: OUT, 2: OUT})


# --- history, replay, conservation -----------------------------------------------------------


def test_replay_rebuilds_every_intermediate_state() -> None:
    from gutskit.core.engine import start_event

    start = start_event(("Ana", "Ben", "Cleo"), 20, rules=Rules(pot_cap=5))
    state = evolve(None, start)
    log: list[Event] = [start]
    rng = random.Random(5)
    for ins in ([0, 1, 2], [], [1, 2], [0], [0, 2]):
        state, events = deal_from_rng(state, rng)
        log += events
        assert replay(log) == state
        state, events = declare_all(state, {s: IN if s in ins else OUT for s in state.dealt})
        log += events
        assert replay(log) == state
    state, events = end_session(state)
    log += events
    assert replay(log) == state
    assert sum(state.stacks) == 60 and state.pot == state.reserve == 0


def test_replay_refuses_bad_histories() -> None:
    with pytest.raises(IllegalActionError, match="empty hand history"):
        replay([])
    with pytest.raises(IllegalActionError, match="must start with SessionStarted"):
        replay([CardsDealt(hands=(None, None))])
    from gutskit.core.engine import start_event

    start = start_event(("Ana", "Ben"), 20)
    with pytest.raises(IllegalActionError, match="only once"):
        replay([start, start])


def test_conservation_is_checked_after_every_event() -> None:
    state = table(3, 20)
    state, _ = deal_cards(state, {0: QUEENS, 1: SEVEN_HIGH, 2: JACK_HIGH})
    forged = RoundResolved(outcome=Outcome.UNCONTESTED, shown=NONE3, winners=(0,),
                           won=(4, 0, 0), matched=(0, 0, 0), eliminated=(), to_reserve=0,
                           pot_after=0, next_dealer=1, session_over=False)
    with pytest.raises(ConservationError, match="chips not conserved after RoundResolved"):
        evolve(state, forged)
    with pytest.raises(ConservationError, match="after SessionEnded"):
        evolve(state, SessionEnded(reason="forged", payouts=(1, 0, 0)))
    assert chips_on_table(state) == state.total == 60


def test_per_seat_amounts_of_the_wrong_length_are_refused() -> None:
    """A forged round or antes with an amount for a seat too many or too few is refused
    by name (nothing is cut short to fit the table)."""
    state = table(3, 20)
    dealt, _ = deal_cards(state, {0: QUEENS, 1: SEVEN_HIGH, 2: JACK_HIGH})
    forged = RoundResolved(outcome=Outcome.UNCONTESTED, shown=NONE3, winners=(0,),
                           won=(3, 0), matched=(0, 0, 0), eliminated=(), to_reserve=0,
                           pot_after=0, next_dealer=1, session_over=False)
    with pytest.raises(IllegalActionError, match=r"won \[3, 0\] do not have one entry for "
                                                 r"each of the 3 seats"):
        evolve(dealt, forged)
    forged = dataclasses.replace(forged, won=(3, 0, 0), matched=(0, 0, 0, 0))
    with pytest.raises(IllegalActionError, match=r"matched \[0, 0, 0, 0\]"):
        evolve(dealt, forged)
    with pytest.raises(IllegalActionError, match=r"antes \[1, 1, 1, 1\]"):
        evolve(state, AntesPosted(amounts=(1, 1, 1, 1), refill=0, new_game=True))


def test_states_are_immutable_values() -> None:
    state = table(3, 20)
    snapshot = copy.deepcopy(state)
    dealt, _ = deal_cards(state, {0: QUEENS, 1: SEVEN_HIGH, 2: JACK_HIGH})
    resolved, _ = declare_all(dealt, {0: IN, 1: OUT, 2: IN})
    # every operation returns a new state; the old objects are untouched
    assert state == snapshot
    assert (state.phase, state.pot, state.stacks) == (Phase.DEAL, 0, (20, 20, 20))
    assert (dealt.phase, dealt.pot, dealt.declarations) == (Phase.DECLARE, 3, NONE3)
    assert resolved.stacks == (22, 19, 16)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.pot = 5  # type: ignore[misc]
