"""Companion mode (issue 10): a real table deals, gutskit runs the declarations and moves the
chips. Each session below is worked out by hand against /work/shared/RULES.md (the comments
give the arithmetic); the same history replays through the engine, the referee file and
survives the JSON Lines round trip."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gutskit.core import engine
from gutskit.core import table as driver
from gutskit.core.cards import parse_cards
from gutskit.core.engine import GameState, IllegalActionError, Phase, new_session
from gutskit.core.events import (
    CardsShown,
    Declaration,
    Event,
    RoundResolved,
    RoundUndone,
    SessionStarted,
)
from gutskit.core.history import event_from_dict, event_to_dict
from gutskit.core.ledger import ledger
from gutskit.core.payments import settle_up
from gutskit.core.referee import referee_file, settle
from gutskit.core.rules import PRESETS, Rules, preset
from gutskit.core.views import SPECTATOR, redacted_history, view


class Table:
    """A companion table driven round by round, its whole history kept."""

    def __init__(self, names: list[str], chips: int | Sequence[int], rules: Rules,
                 dealer: int = 0) -> None:
        start = engine.start_event(names, chips, dealer=dealer, rules=rules, companion=True)
        self.events: list[Event] = [start]
        self.state: GameState = engine.evolve(None, start)

    def seat(self, name: str) -> int:
        return self.state.seat_of(name)

    def apply(self, step: tuple[GameState, list[Event]]) -> list[Event]:
        self.state, events = step
        self.events.extend(events)
        return events

    def deal(self) -> None:
        self.apply(driver.deal(self.state))

    def declare(self, calls: Mapping[str, str]) -> None:
        self.apply(driver.declare_all(self.state, {self.seat(n): Declaration(d)
                                                   for n, d in calls.items()}))

    def show(self, cards: Mapping[str, str], *, ghost: str | None = None,
             community: str | None = None) -> RoundResolved:
        events = self.apply(driver.show_cards(
            self.state, {self.seat(n): parse_cards(c) for n, c in cards.items()},
            ghost=None if ghost is None else parse_cards(ghost),
            community=None if community is None else parse_cards(community)))
        return next(e for e in events if isinstance(e, RoundResolved))

    def name(self, winners: list[str], low: list[str] | None = None,
             losers: list[str] | None = None) -> RoundResolved:
        events = self.apply(driver.name_winners(
            self.state, [self.seat(n) for n in winners],
            low_winners=[self.seat(n) for n in low or []],
            losers=None if losers is None else [self.seat(n) for n in losers]))
        return next(e for e in events if isinstance(e, RoundResolved))

    def round(self, calls: Mapping[str, str], cards: Mapping[str, str] | None = None,
              winners: list[str] | None = None, low: list[str] | None = None) -> None:
        self.deal()
        self.declare(calls)
        if cards is not None:
            self.show(cards)
        elif winners is not None:
            self.name(winners, low)
        assert self.state.phase in (Phase.DEAL, Phase.OVER)

    def stacks(self) -> dict[str, int]:
        return dict(zip(self.state.names, self.state.stacks, strict=True))

    def dealer(self) -> str:
        return self.state.names[self.state.dealer]


def check_replays(table: Table) -> None:
    """The history is the record: the engine replays it, the JSON Lines round trip keeps
    it, and its referee file settles to the same stacks, pot and reserve."""
    state = engine.replay(table.events)
    assert state == table.state
    assert [event_from_dict(event_to_dict(e)) for e in table.events] == table.events
    result = settle(referee_file(table.events))
    assert result["stacks"] == table.stacks()
    assert (result["pot"], result["reserve"]) == (table.state.pot, table.state.reserve)


# -- the default rules (German/French seed: three cards, ante 1, re-ante, eliminate) --------


def test_ten_rounds_under_the_default_rules() -> None:
    t = Table(["Ana", "Ben", "Cleo"], 20, Rules())
    # 1. A new game: everyone antes 1 -> 19 each, pot 3. Ana and Ben in: Ben's pair of
    #    queens beats Ana's ace high; Ben takes 3 (22), Ana matches the pot of 3 (16).
    #    Next pot = the match, 3. The deal passes left: Ben.
    t.deal()
    assert t.state.pot == 3 and t.stacks() == {"Ana": 19, "Ben": 19, "Cleo": 19}
    t.declare({"Ana": "in", "Ben": "in", "Cleo": "out"})
    assert driver.status(t.state).step is driver.Step.SHOWDOWN
    assert driver.waiting_for(t.state) == (1, 0)  # from the dealer's left: Ben, then Ana
    assert view(t.state, SPECTATOR).declarations[2] is Declaration.OUT  # the fists are open
    result = t.show({"Ana": "Ah Kd 2c", "Ben": "Qh Qc 3d"})
    assert result.winners == (1,) and result.shown[2] is None  # Cleo's cards stay hidden
    assert t.stacks() == {"Ana": 16, "Ben": 22, "Cleo": 19}
    assert t.state.pot == 3 and t.dealer() == "Ben"
    # 2. Pot 3, no ante. Ben alone in: an uncontested win, no cards asked. Ben 25, pot 0.
    t.round({"Ana": "out", "Ben": "in", "Cleo": "out"})
    assert t.stacks() == {"Ana": 16, "Ben": 25, "Cleo": 19}
    assert t.state.pot == 0 and t.dealer() == "Cleo"
    # 3. A new game: antes -> 15, 24, 18, pot 3. Nobody in: void; the same dealer deals
    #    again (German/French seed) and everyone re-antes (all_out = "reante").
    t.round({"Ana": "out", "Ben": "out", "Cleo": "out"})
    assert t.stacks() == {"Ana": 15, "Ben": 24, "Cleo": 18}
    assert t.state.pot == 3 and t.dealer() == "Cleo"
    # 4. Re-ante -> 14, 23, 17, pot 6. All in: Cleo's K-Q-J straight flush beats Ana's
    #    4-3-2 straight flush and Ben's three aces. Cleo +6 (23); Ana and Ben match 6 each
    #    (8, 17); next pot 12. Deal to Ana.
    t.round({"Ana": "in", "Ben": "in", "Cleo": "in"},
            cards={"Ana": "2s 3s 4s", "Ben": "As Ad Ac", "Cleo": "Kh Qh Jh"})
    assert t.stacks() == {"Ana": 8, "Ben": 17, "Cleo": 23}
    assert t.state.pot == 12 and t.dealer() == "Ana"
    # 5. Pot 12. Ana and Ben in; the table names Ben the winner without showing cards.
    #    Ben +12 (29). Ana owes 12 but holds 8: eliminated (shortfall = "eliminate"), she
    #    keeps her 8 and pays nothing. Next pot 0. Deal to Ben.
    t.round({"Ana": "in", "Ben": "in", "Cleo": "out"}, winners=["Ben"])
    assert t.stacks() == {"Ana": 8, "Ben": 29, "Cleo": 23}
    assert t.state.pot == 0 and t.state.eliminated == (True, False, False)
    assert t.dealer() == "Ben"
    # 6. A new game for Ben and Cleo: antes -> 28, 22, pot 2. Both in, a pair of nines
    #    with a five each: equal ranks, and suits break only high-card ties (suit_tiebreak =
    #    "high_card"): a split, 1 each, no loser. Pot 0. Deal to Cleo.
    t.round({"Ben": "in", "Cleo": "in"}, cards={"Ben": "9h 9d 5c", "Cleo": "9s 9c 5d"})
    assert t.stacks() == {"Ana": 8, "Ben": 29, "Cleo": 23}
    assert t.state.pot == 0 and t.dealer() == "Cleo"
    # 7. A new game: antes -> 28, 22, pot 2; a card is exposed: misdeal. The antes stay,
    #    the same dealer deals again, no new ante.
    t.deal()
    t.apply(driver.misdeal(t.state, "a card was exposed"))
    assert t.stacks() == {"Ana": 8, "Ben": 28, "Cleo": 22}
    assert t.state.pot == 2 and t.dealer() == "Cleo" and t.state.phase is Phase.DEAL
    # 8. The re-deal (no ante): both in, Ben named by mistake: Ben +2 (30), Cleo matches 2
    #    (20), pot 2 ... and the host undoes it: every chip back, same dealer.
    t.round({"Ben": "in", "Cleo": "in"}, winners=["Ben"])
    assert t.stacks() == {"Ana": 8, "Ben": 30, "Cleo": 20} and t.state.pot == 2
    undone = t.apply(driver.undo_round(t.state, "wrong winner"))
    assert undone == [RoundUndone(round=8, stacks=(8, 28, 22), pot=2, reserve=0,
                                  reason="wrong winner")]
    assert t.stacks() == {"Ana": 8, "Ben": 28, "Cleo": 22}
    assert t.state.pot == 2 and t.dealer() == "Cleo" and t.state.phase is Phase.DEAL
    assert driver.can_undo_round(t.state) is not None  # only the last round, once
    # 9. The re-deal again, still no ante: Cleo alone in takes 2 uncontested (24). Pot 0.
    t.round({"Ben": "out", "Cleo": "in"})
    assert t.stacks() == {"Ana": 8, "Ben": 28, "Cleo": 24}
    assert t.state.pot == 0 and t.dealer() == "Ben"
    # 10. A new game: antes -> 27, 23, pot 2. K-Q-7 high against K-Q-7 high: equal
    #     ranks, high-card hands: the better suit of the top card wins (Ks > Kd). Ben +2
    #     (29), Cleo matches 2 (21), pot 2.
    t.round({"Ben": "in", "Cleo": "in"}, cards={"Ben": "Ks Qd 7c", "Cleo": "Kd Qs 7h"})
    assert t.stacks() == {"Ana": 8, "Ben": 29, "Cleo": 21} and t.state.pot == 2
    assert t.state.round_number == 9  # ten deals; the undone one is taken back with its round
    # The table stops: the pot of 2 is shared by the players still seated, 1 each (Ana
    # is eliminated). 8 + 30 + 22 = 60 = 3 x 20.
    t.apply(driver.end(t.state))
    assert t.stacks() == {"Ana": 8, "Ben": 30, "Cleo": 22}
    nets = {line.name: line.net for line in ledger(t.state)}
    assert nets == {"Ana": -12, "Ben": 10, "Cleo": 2}
    assert [(p.payer, p.payee, p.chips) for p in settle_up(nets)] == [
        ("Ana", "Ben", 10), ("Ana", "Cleo", 2)]
    check_replays(t)


# -- the Estonian rule book (two cards, pot cap 50 with a reserve) -------------------------


def test_ten_rounds_under_the_estonian_rule_book() -> None:
    t = Table(["Ana", "Ben", "Cleo", "Dan"], 60, preset("estonian"))
    everyone = {"Ana": "in", "Ben": "in", "Cleo": "in", "Dan": "in"}
    # 1. Antes 1 -> 59 each, pot 4. All in: Ben's pair of sevens wins 4 (63); the three
    #    others match 4 (55 each). Next pot 3 x 4 = 12.
    t.round(everyone, cards={"Ana": "Ah Kd", "Ben": "7c 7d", "Cleo": "Qs Jd", "Dan": "3c 2d"})
    assert t.stacks() == {"Ana": 55, "Ben": 63, "Cleo": 55, "Dan": 55}
    assert t.state.pot == 12 and t.dealer() == "Ben"
    # 2. Pot 12: Ana's aces win 12 (67); Ben 63-12 = 51, Cleo and Dan 55-12 = 43. Pot 36.
    t.round(everyone, cards={"Ana": "As Ad", "Ben": "7h 6h", "Cleo": "Qc Jc", "Dan": "3d 2s"})
    assert t.stacks() == {"Ana": 67, "Ben": 51, "Cleo": 43, "Dan": 43}
    assert t.state.pot == 36 and t.dealer() == "Cleo"
    # 3. Pot 36: Cleo's kings win 36 (79); Ana 31, Ben 15, Dan 7. The matches make 108,
    #    above the cap of 50: the pot keeps 50, the reserve takes 58 (pot_cap_mode =
    #    "reserve", Estonian seed). 31 + 15 + 79 + 7 + 50 + 58 = 240 = 4 x 60.
    t.round(everyone, cards={"Ana": "Ac Qd", "Ben": "8c 7s", "Cleo": "Kc Kh", "Dan": "4c 2h"})
    assert t.stacks() == {"Ana": 31, "Ben": 15, "Cleo": 79, "Dan": 7}
    assert (t.state.pot, t.state.reserve) == (50, 58) and t.dealer() == "Dan"
    # 4. Pot 50: Ana and Dan in, the table names Dan: +50 (57). Ana owes 50, holds 31:
    #    eliminated, keeps 31. Pot 0. The deal passes from Dan past Ana to Ben.
    t.round({"Ana": "in", "Ben": "out", "Cleo": "out", "Dan": "in"}, winners=["Dan"])
    assert t.stacks() == {"Ana": 31, "Ben": 15, "Cleo": 79, "Dan": 57}
    assert (t.state.pot, t.state.reserve) == (0, 58) and t.dealer() == "Ben"
    # 5. A new game: the reserve refills the empty pot up to the cap (50; reserve 8), then
    #    the antes in full: Ben 14, Cleo 78, Dan 56, pot 53. Nobody in: void, re-ante.
    three_out = {"Ben": "out", "Cleo": "out", "Dan": "out"}
    t.round(three_out)
    assert t.stacks() == {"Ana": 31, "Ben": 14, "Cleo": 78, "Dan": 56}
    assert (t.state.pot, t.state.reserve) == (53, 8) and t.dealer() == "Ben"
    # 6. Re-ante -> 13, 77, 55, pot 56. Cleo alone in: uncontested, +56 (133). Pot 0.
    t.round({**three_out, "Cleo": "in"})
    assert t.stacks() == {"Ana": 31, "Ben": 13, "Cleo": 133, "Dan": 55}
    assert (t.state.pot, t.state.reserve) == (0, 8) and t.dealer() == "Cleo"
    # 7. A new game: the reserve refills 8 (reserve 0), antes -> 12, 132, 54, pot 11. Ben
    #    and Cleo in, A-K high each: the top card's suit decides, Ad > Ac: Cleo +11 (143),
    #    Ben matches 11 (1). Pot 11.
    t.round({"Ben": "in", "Cleo": "in", "Dan": "out"}, cards={"Ben": "Ac Kc", "Cleo": "Ad Ks"})
    assert t.stacks() == {"Ana": 31, "Ben": 1, "Cleo": 143, "Dan": 54}
    assert (t.state.pot, t.state.reserve) == (11, 0) and t.dealer() == "Dan"
    # 8. Pot 11: Ben (one chip left) and Dan in; Ben's deuces beat Dan's K-Q: Ben +11 (12),
    #    Dan matches 11 (43). Pot 11. The deal passes from Dan past Ana to Ben.
    t.round({"Ben": "in", "Cleo": "out", "Dan": "in"}, cards={"Ben": "2c 2d", "Dan": "Kh Qh"})
    assert t.stacks() == {"Ana": 31, "Ben": 12, "Cleo": 143, "Dan": 43}
    assert t.state.pot == 11 and t.dealer() == "Ben"
    # 9. Pot 11: Cleo and Dan in with a pair of fives each: a tie (suits break only
    #    high-card ties): 5 each, the odd chip stays in the pot (odd_chip = "carry"). Pot 1.
    t.round({"Ben": "out", "Cleo": "in", "Dan": "in"}, cards={"Cleo": "5s 5h", "Dan": "5d 5c"})
    assert t.stacks() == {"Ana": 31, "Ben": 12, "Cleo": 148, "Dan": 48}
    assert t.state.pot == 1 and t.dealer() == "Cleo"
    # 10. Pot 1: all three in, Dan named: +1 (49); Ben and Cleo match 1 (11, 147). Pot 2.
    t.round({"Ben": "in", "Cleo": "in", "Dan": "in"}, winners=["Dan"])
    assert t.stacks() == {"Ana": 31, "Ben": 11, "Cleo": 147, "Dan": 49}
    assert t.state.pot == 2 and t.dealer() == "Dan"
    # The end: pot 2 + reserve 0 shared by the three seated, odd chips one each from the
    # dealer's (Dan's) left, skipping Ana: Ben +1, Cleo +1.
    t.apply(driver.end(t.state))
    assert t.stacks() == {"Ana": 31, "Ben": 12, "Cleo": 148, "Dan": 49}
    assert sum(t.state.stacks) == 240
    check_replays(t)


# -- Hi-Lo Guts (three cards; high, low, both or out) ---------------------------------------


def test_ten_rounds_of_hi_lo() -> None:
    t = Table(["Ana", "Ben", "Cleo"], 30, preset("hi-lo"))
    # 1. Antes -> 29 each, pot 3, split high 2 / low 1 (the odd chip to high). Ana alone
    #    high (+2: 31), Ben alone low (+1: 30). No loser. Pot 0.
    t.round({"Ana": "high", "Ben": "low", "Cleo": "out"},
            cards={"Ana": "Ah Kd 9c", "Ben": "2c 3d 5h"})
    assert t.stacks() == {"Ana": 31, "Ben": 30, "Cleo": 29} and t.state.pot == 0
    # 2. Antes -> 30, 29, 28, pot 3 (high 2, low 1). High: Ana's queens beat Ben's jacks:
    #    Ana +2 (32), Ben matches the high pot, 2 (27). Cleo alone low: +1 (29). Pot 2.
    t.round({"Ana": "high", "Ben": "high", "Cleo": "low"},
            cards={"Ana": "Qs Qd 4c", "Ben": "Js Jd 9h", "Cleo": "2d 4h 6s"})
    assert t.stacks() == {"Ana": 32, "Ben": 27, "Cleo": 29} and t.state.pot == 2
    # 3. Pot 2 (high 1, low 1). Ana both: alone high, and 5-3-2 is lower than Cleo's
    #    6-4-2: she wins both ways, +2 (34). Cleo matches the low pot, 1 (28). Pot 1.
    t.round({"Ana": "both", "Ben": "out", "Cleo": "low"},
            cards={"Ana": "2h 3c 5d", "Cleo": "2s 4c 6d"})
    assert t.stacks() == {"Ana": 34, "Ben": 27, "Cleo": 28} and t.state.pot == 1
    # 4. Pot 1 (high 1, low 0). Ana both, Ben high; the table names Ben for high, nobody
    #    for low: Ana failed one way, so she loses both and matches the high pot, 1 (33);
    #    Ben +1 (28). Pot 1.
    t.round({"Ana": "both", "Ben": "high", "Cleo": "out"}, winners=["Ben"], low=[])
    assert t.stacks() == {"Ana": 33, "Ben": 28, "Cleo": 28} and t.state.pot == 1
    # 5. Nobody in: void, same dealer (Ben), re-ante next.
    t.round({"Ana": "out", "Ben": "out", "Cleo": "out"})
    assert t.stacks() == {"Ana": 33, "Ben": 28, "Cleo": 28} and t.dealer() == "Ben"
    # 6. Re-ante -> 32, 27, 27, pot 4 (high 2, low 2). Ana alone high: +2 (34). Low: Ben
    #    and Cleo hold 5-3-2 each; rank-equal high-card hands, the top card's suit decides
    #    (5d > 5c), so Cleo's is the higher, Ben's the lower: Ben +2 (29), Cleo matches 2
    #    (25). Pot 2.
    t.round({"Ana": "high", "Ben": "low", "Cleo": "low"},
            cards={"Ana": "Ts 9s 8s", "Ben": "2s 3h 5c", "Cleo": "2c 3s 5d"})
    assert t.stacks() == {"Ana": 34, "Ben": 29, "Cleo": 25} and t.state.pot == 2
    assert t.dealer() == "Cleo"
    # 7. Misdeal: no ante was due (pot 2), nothing moves, Cleo deals again.
    t.deal()
    t.apply(driver.misdeal(t.state))
    assert t.stacks() == {"Ana": 34, "Ben": 29, "Cleo": 25} and t.state.pot == 2
    assert t.dealer() == "Cleo"
    # 8. Pot 2, only the high side declared: it plays for all 2. Ana named: +2 (36), Ben
    #    matches 2 (27). Pot 2.
    t.round({"Ana": "high", "Ben": "high", "Cleo": "out"}, winners=["Ana"])
    assert t.stacks() == {"Ana": 36, "Ben": 27, "Cleo": 25} and t.state.pot == 2
    # 9. Pot 2 (high 1, low 1). Low: Ben's 7-4-2 under Ana's K-Q-9: Ben +1 (28), Ana
    #    matches 1 (35). High: Cleo alone, +1 (26). Pot 1.
    t.round({"Ana": "low", "Ben": "low", "Cleo": "high"},
            cards={"Ana": "Kd Qc 9h", "Ben": "7d 4s 2h", "Cleo": "Ac Ah 3d"})
    assert t.stacks() == {"Ana": 35, "Ben": 28, "Cleo": 26} and t.state.pot == 1
    # 10. Ben alone in: an uncontested win of the pot, 1 (29). 35 + 29 + 26 = 90.
    t.round({"Ana": "out", "Ben": "high", "Cleo": "out"})
    assert t.stacks() == {"Ana": 35, "Ben": 29, "Cleo": 26} and t.state.pot == 0
    t.apply(driver.end(t.state))
    check_replays(t)


# -- the rules' corners, each worked by hand ---------------------------------------------------


def test_entries_are_checked_and_nothing_is_half_applied() -> None:
    t = Table(["Ana", "Ben", "Cleo"], 20, Rules())
    t.deal()
    t.declare({"Ana": "in", "Ben": "in", "Cleo": "out"})
    before = t.state
    bad = [
        ({0: parse_cards("Ah Kd 2c")}, "the cards of 'Ben' are needed: 'Ben' is in"),
        ({0: parse_cards("Ah Kd 2c"), 1: parse_cards("Ah 3d 4d")},
         "card Ah is given to both 'Ana' and 'Ben'"),
        ({0: parse_cards("Ah Kd"), 1: parse_cards("Qh 3d 4d")},
         "hand of 'Ana' (Ah Kd) has 2 cards, expected 3"),
        ({0: parse_cards("Ah Kd 2c"), 1: parse_cards("Qh 3d 4d"), 2: parse_cards("5c 6c 7c")},
         "the cards of 'Cleo' are not needed: 'Cleo' declared out: their cards stay hidden"),
    ]
    for hands, message in bad:
        assert driver.can_show_cards(t.state, hands) == message
        with pytest.raises(IllegalActionError, match=message.replace("(", r"\(").replace(
                ")", r"\)")):
            driver.show_cards(t.state, hands)
        assert t.state is before
    assert driver.can_name_winners(t.state, [2]) == "'Cleo' cannot win: 'Cleo' is not in"
    assert driver.can_name_winners(t.state, []) == (
        "name at least one winner (tied winners split the pot)")
    assert driver.can_name_winners(t.state, [0, 0]) == "winners: a seat is named twice"
    assert driver.can_name_winners(t.state, [7]) == "winners: there is no seat 7 at the table"
    assert driver.can_name_winners(t.state, [0], low_winners=[1]) == (
        "low winners are named only in hi-lo Guts (hi_lo)")
    assert driver.can_name_winners(t.state, [0], losers=[1]) == (
        'losers are named only under losers_pay = "worst": every player in who did not '
        "win matches the pot")
    # two winners named: a split of the pot of 3, 1 each, the odd chip stays (carry)
    t.name(["Ana", "Ben"])
    assert t.stacks() == {"Ana": 20, "Ben": 20, "Cleo": 19} and t.state.pot == 1


def test_undo_is_only_for_companion_tables_and_only_the_last_round() -> None:
    dealt = new_session(["Ana", "Ben"], 10)
    assert driver.can_undo_round(dealt) == (
        "only a companion session's rounds can be undone (the cards were dealt here)")
    t = Table(["Ana", "Ben"], 10, Rules(rebuys=True))
    assert driver.can_undo_round(t.state) == "no round has been dealt yet: nothing to undo"
    # in the middle of a round: the antes go back (9, 9 -> 10, 10)
    t.deal()
    t.apply(driver.undo_round(t.state))
    assert t.stacks() == {"Ana": 10, "Ben": 10} and t.state.pot == 0
    assert t.state.round_number == 0 and t.state.phase is Phase.DEAL
    # a round, then a rebuy: the round can no longer be undone
    t.round({"Ana": "in", "Ben": "in"}, winners=["Ben"])  # Ben +2 (11), Ana matches 2 (7)
    assert t.stacks() == {"Ana": 7, "Ben": 11} and t.state.pot == 2
    t.apply(driver.rebuy(t.state, 0, 5)) if driver.can_rebuy(t.state, 0, 5) is None else None
    with pytest.raises(IllegalActionError):
        engine.undo_round(new_session(["Ana", "Ben"], 10, companion=True))
    check_replays(t)


def test_undo_of_the_round_that_ended_the_session() -> None:
    # Ana 3, Ben 3: antes -> 2, 2, pot 2; both in, Ben named: Ben +2 (4), Ana owes 2 and
    # pays 2 (0): fewer than two players have chips, the session ends, and the pot of 2
    # left is shared by the players still seated, Ana (not eliminated: she paid in full)
    # and Ben: 1 each (1, 5). The host undoes it: 3 and 3 again, the session goes on.
    t = Table(["Ana", "Ben"], 3, Rules())
    t.round({"Ana": "in", "Ben": "in"}, winners=["Ben"])
    assert t.state.phase is Phase.OVER and t.stacks() == {"Ana": 1, "Ben": 5}
    t.apply(driver.undo_round(t.state))
    assert t.state.phase in (Phase.DEAL,) and t.stacks() == {"Ana": 3, "Ben": 3}
    assert t.state.pot == 0 and t.state.end_reason is None
    t.round({"Ana": "in", "Ben": "in"}, winners=["Ana"])
    assert t.state.phase is Phase.OVER and t.stacks() == {"Ana": 5, "Ben": 1}
    check_replays(t)


def test_sequential_declaration_from_the_dealers_left() -> None:
    t = Table(["Ana", "Ben", "Cleo"], 10, preset("indonesian"), dealer=1)
    t.deal()  # two cards, antes 1 each -> 9, pot 3; Ben deals: Cleo speaks first
    assert driver.waiting_for(t.state) == (2,)
    assert driver.can_declare(t.state, 0, Declaration.IN) == (
        "it is Cleo's turn to declare, not Ana's")
    t.apply(driver.declare(t.state, 2, Declaration.IN))
    t.apply(driver.declare(t.state, 0, Declaration.OUT))
    t.apply(driver.declare(t.state, 1, Declaration.IN))
    # Cleo's pair of twos beats Ben's A-K: Cleo +3 (12), Ben matches 3 (6), pot 3
    t.show({"Cleo": "2c 2d", "Ben": "As Kd"})
    assert t.stacks() == {"Ana": 9, "Ben": 6, "Cleo": 12} and t.state.pot == 3
    check_replays(t)


def test_ghost_hand_single_loser_and_the_all_out_penalty() -> None:
    t = Table(["Ana", "Ben", "Cleo"], 20, preset("estonian-full"))
    # 1. Antes every hand: 19 each, pot 3. Ana alone in: no uncontested win under the
    #    ghost hand: her A-K against the ghost's pair of fours loses: nobody takes the pot,
    #    Ana, the worst (and only) hand in, matches 3 (16). Pot 6.
    t.deal()
    t.declare({"Ana": "in", "Ben": "out", "Cleo": "out"})
    assert driver.showdown_needs(t.state) == engine.ShowdownNeeds(
        seats=(0,), in_seats=(0,), ghost=True, community=False)
    result = t.show({"Ana": "Ah Kd"}, ghost="4c 4d")
    assert result.ghost_won and result.ghost == parse_cards("4c 4d")
    assert t.stacks() == {"Ana": 16, "Ben": 19, "Cleo": 19} and t.state.pot == 6
    # 2. Ana skips the ante (she matched): Ben, Cleo 18, pot 8. All three in; the table
    #    names Cleo and Ben the worst hand: Cleo +8 (26), Ben alone matches 8 (10). Pot 8.
    t.deal()
    t.declare({"Ana": "in", "Ben": "in", "Cleo": "in"})
    assert driver.can_name_winners(t.state, [2]) == (
        'name the loser(s) too: under losers_pay = "worst" only the worst hand in matches '
        "the pot")
    t.name(["Cleo"], losers=["Ben"])
    assert t.stacks() == {"Ana": 16, "Ben": 10, "Cleo": 26} and t.state.pot == 8
    # 3. Ben skips the ante: Ana 15, Cleo 25, pot 10. Nobody in: the best hand pays every
    #    ante of the re-deal (all_out = "best_pays_antes"); every hand is needed, or the
    #    best named: Cleo. (Cleo deals: the hands are asked from her left, Ana first.)
    t.deal()
    t.declare({"Ana": "out", "Ben": "out", "Cleo": "out"})
    assert driver.showdown_needs(t.state).seats == (0, 1, 2)  # type: ignore[union-attr]
    t.name(["Cleo"])
    assert t.stacks() == {"Ana": 15, "Ben": 10, "Cleo": 25} and t.state.pot == 10
    # 4. The re-deal: Cleo pays the 3 antes (22), pot 13; Ben alone in beats the ghost by
    #    the table's word: +13 (23). Pot 0.
    t.deal()
    assert t.stacks() == {"Ana": 15, "Ben": 10, "Cleo": 22} and t.state.pot == 13
    t.declare({"Ana": "out", "Ben": "in", "Cleo": "out"})
    t.name(["Ben"])
    assert t.stacks() == {"Ana": 15, "Ben": 23, "Cleo": 22} and t.state.pot == 0
    assert sum(t.state.stacks) == 60
    check_replays(t)


def test_the_fists_open_and_the_shown_cards_are_public() -> None:
    t = Table(["Ana", "Ben", "Cleo"], 20, Rules())
    t.deal()
    t.apply(driver.declare(t.state, 0, Declaration.IN))
    assert view(t.state, SPECTATOR).declarations == (None, None, None)  # sealed
    t.apply(driver.declare(t.state, 1, Declaration.IN))
    t.apply(driver.declare(t.state, 2, Declaration.OUT))
    assert view(t.state, SPECTATOR).declarations == (
        Declaration.IN, Declaration.IN, Declaration.OUT)  # revealed at the showdown
    t.show({"Ana": "Ah Kd 2c", "Ben": "Qh Qc 3d"})
    copy = redacted_history(t.events, SPECTATOR)
    shown = [e for e in copy if isinstance(e, CardsShown)]
    assert shown == [e for e in t.events if isinstance(e, CardsShown)]
    assert shown[0].hands == (parse_cards("Ah Kd 2c"), parse_cards("Qh Qc 3d"), None)


# -- invariants over random companion sessions, every preset --------------------------------


def _random_session(rules: Rules, seed: int) -> Table:
    rng = random.Random(seed)
    n = rng.randint(2, 5)
    least = rules.min_buy_in or 1
    t = Table([f"P{i}" for i in range(n)], [rng.randint(least, 30) for _ in range(n)], rules,
              dealer=rng.randrange(n))
    legal = engine.legal_declarations(rules)
    for _ in range(rng.randint(1, 40)):
        state = t.state
        if state.phase is Phase.OVER:
            break
        if driver.can_undo_round(state) is None and rng.random() < 0.1:
            t.apply(driver.undo_round(state))
            continue
        if state.phase is Phase.DEAL:
            if driver.can_deal(state) is not None:
                break
            t.deal()
        elif state.phase is Phase.DECLARE:
            if rng.random() < 0.05:
                t.apply(driver.misdeal(state))
                continue
            seats = driver.waiting_for(state)
            calls = {s: rng.choice([d for d in legal if driver.can_declare(state, s, d)
                                    is None] or [Declaration.OUT]) for s in seats}
            if state.variants.in_turn:  # sequential: one at a time from the dealer's left
                t.apply(driver.declare(state, seats[0], calls[seats[0]]))
            else:
                t.apply(driver.declare_all(state, calls))
        else:
            needs = driver.showdown_needs(state)
            assert needs is not None
            pool = needs.in_seats or needs.seats
            winners = rng.sample(pool, rng.randint(0, len(pool)))
            low = rng.sample(pool, rng.randint(0, len(pool))) if rules.hi_lo else []
            losers = [s for s in needs.in_seats if s not in winners][:1] or (
                [] if state.variants.picks_losers else None)
            if not state.variants.picks_losers:
                losers = None
            if rng.random() < 0.5 and driver.can_name_winners(
                    state, winners, low_winners=low, losers=losers) is None:
                t.apply(driver.name_winners(state, winners, low_winners=low, losers=losers))
                continue
            deck = rng.sample(range(52), 52)
            k = rules.cards_per_hand
            hands = {s: tuple(deck[i * k:(i + 1) * k]) for i, s in enumerate(needs.seats)}
            rest = deck[len(needs.seats) * k:]
            t.apply(driver.show_cards(state, hands,
                                      ghost=tuple(rest[:k]) if needs.ghost else None,
                                      community=tuple(rest[k:k + 1]) if needs.community
                                      else None))
    if t.state.phase is not Phase.OVER:
        t.apply(driver.end(t.state))
    return t


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32 - 1))
def test_random_companion_sessions_conserve_chips_and_replay(name: str, seed: int) -> None:
    t = _random_session(preset(name), seed)
    start = t.events[0]
    assert isinstance(start, SessionStarted)
    assert sum(t.state.stacks) + t.state.pot + t.state.reserve == sum(start.stacks)
    check_replays(t)


def test_the_odd_chip_of_the_end_share_goes_left_of_the_button_holder() -> None:
    """RULES.md, "Money, limits, ending": what is left at the end is shared evenly among the
    players still seated, "odd chips clockwise from the dealer". The dealer is whoever holds
    the button when the table stops: after a settled round the deal has already passed to
    the left ("after every other round the deal passes to the left"), so it is the player
    who would deal next, not the one who dealt the last round (the audit-comp tester's
    question: 52 shared 17/17/18 with the extra chip left of the next dealer).

    By hand (default rules, buy-in 20, Ana deals round 1): antes 1 each, pot 3, stacks 19.
    All in; Ana 9-9-5 and Ben 9-9-5 tie (pairs are never split by suit under
    ``suit_tiebreak = "high_card"``), Cleo 7-4-2 loses: the pot of 3 splits 1 + 1 and the
    odd chip stays (``odd_chip = "carry"``), Cleo matches 3: Ana 20, Ben 20, Cleo 16, pot
    1 + 3 = 4, and the button passes to Ben. The table stops: 4 shared by three is 1 each
    and one odd chip, to the first seat clockwise from Ben: Cleo. Ana 21, Ben 21, Cleo 18
    (60 chips, as bought in). Left of Ana (who dealt round 1) it would have been Ben's.
    """
    table = Table(["Ana", "Ben", "Cleo"], 20, Rules())
    table.round({"Ana": "in", "Ben": "in", "Cleo": "in"},
                cards={"Ana": "9h 9c 5d", "Ben": "9s 9d 5c", "Cleo": "7c 4d 2h"})
    assert table.stacks() == {"Ana": 20, "Ben": 20, "Cleo": 16}
    assert table.state.pot == 4 and table.dealer() == "Ben"
    table.apply(driver.end(table.state))
    assert table.state.phase is Phase.OVER
    assert table.stacks() == {"Ana": 21, "Ben": 21, "Cleo": 18}
    check_replays(table)


def test_a_failed_both_is_told_on_which_side_it_failed() -> None:
    """Hi-Lo (RULES.md Variants: a *both* player must win or tie both ways or loses both):
    RoundResolved.failed_high / failed_low say which side the Both hand did not win or tie
    (the audit-comp tester read "(high: Ben; low: Cleo)" as a loss on high).

    By hand (hi_lo, ante 1, buy-in 20, Ana deals): antes 1 each, pot 3: high 2, low 1.
    Round 1: Ana both with T-T-Q (a pair: the best high, but not the best low), Ben low
    Q-J-7, Cleo high A-6-2. Ana fails on low only: she matches both sides, 2 + 1 = 3 -> 16;
    Cleo takes high 2 -> 21, Ben low 1 -> 20; the pot is Ana's match, 3.
    Round 2 (Ben deals, no ante): Ana both with 9-6-4 (beaten on high by Cleo's aces and on
    low by Ben's 7-4-2): fails on both sides, matches 3 -> 13; Cleo 23, Ben 21, pot 3.
    """
    table = Table(["Ana", "Ben", "Cleo"], 20, Rules(hi_lo=True))
    table.deal()
    table.declare({"Ana": "both", "Ben": "low", "Cleo": "high"})
    first = table.show({"Ana": "Th Td Qc", "Ben": "Qd Jh 7h", "Cleo": "Ah 6c 2h"})
    assert (first.failed_high, first.failed_low) == ((), (0,))
    assert (first.high_winners, first.low_winners) == ((2,), (1,))
    assert table.stacks() == {"Ana": 16, "Ben": 20, "Cleo": 21} and table.state.pot == 3
    table.deal()
    table.declare({"Ana": "both", "Ben": "low", "Cleo": "high"})
    second = table.show({"Ana": "9s 6d 4c", "Ben": "7h 4d 2s", "Cleo": "As Ad 2c"})
    assert (second.failed_high, second.failed_low) == ((0,), (0,))
    assert table.stacks() == {"Ana": 13, "Ben": 21, "Cleo": 23} and table.state.pot == 3
    # a table that names the winners compares no hand: nothing is said of the sides
    table.deal()
    table.declare({"Ana": "both", "Ben": "low", "Cleo": "high"})
    named = table.name(["Cleo"], low=["Ben"])
    assert (named.failed_high, named.failed_low) == ((), ())
    check_replays(table)
