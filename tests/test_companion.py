"""Companion mode (issue 10): a real table deals, gutskit runs the declarations and moves the
chips. Each session below is worked out by hand against /work/shared/RULES.md (the comments
give the arithmetic); the same history replays through the engine, the referee file and
survives the JSON Lines round trip."""

from __future__ import annotations

from collections.abc import Mapping

from gutskit.core import engine
from gutskit.core import table as driver
from gutskit.core.cards import parse_cards
from gutskit.core.engine import GameState, Phase
from gutskit.core.events import (
    Declaration,
    Event,
    RoundResolved,
    RoundUndone,
)
from gutskit.core.history import event_from_dict, event_to_dict
from gutskit.core.ledger import ledger
from gutskit.core.payments import settle_up
from gutskit.core.referee import referee_file, settle
from gutskit.core.rules import Rules, preset
from gutskit.core.views import SPECTATOR, view


class Table:
    """A companion table driven round by round, its whole history kept."""

    def __init__(self, names: list[str], chips: int, rules: Rules, dealer: int = 0) -> None:
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
