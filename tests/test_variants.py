"""The variants of RULES.md "Variants" (issue 3): hand-worked values through the referee and
the engine, refused combinations, misdeal, rebuys, loss limits and settle-up payments.

Every expected number below is worked out by hand in the comment beside it.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, assert_subset, run_referee
from typer.testing import CliRunner, Result

from gutskit.cli.app import app
from gutskit.core.cards import parse_card, parse_cards
from gutskit.core.engine import (
    IllegalActionError,
    Phase,
    can_misdeal,
    can_pass_card,
    can_rebuy,
    deal,
    declare,
    declare_all,
    end_session,
    legal_declarations,
    misdeal,
    new_session,
    pass_all,
    pass_card,
    rebuy,
)
from gutskit.core.events import (
    CardsPassed,
    Declaration,
    Misdealt,
    PassChosen,
    Rebought,
    RoundResolved,
    SatOut,
)
from gutskit.core.payments import Payment, SettleUpError, settle_up
from gutskit.core.referee import RefereeError
from gutskit.core.rules import PRESETS, Rules, RulesError, preset, rules_from_mapping
from gutskit.io.files import load_rules
from gutskit.variants import variants_for

EXAMPLES = REPO_ROOT / "docs" / "variants" / "examples"
NAMES4 = ("Ana", "Ben", "Cleo", "Dev")
IN, OUT = Declaration.IN, Declaration.OUT
HIGH, LOW, BOTH = Declaration.HIGH, Declaration.LOW, Declaration.BOTH


def example(name: str) -> Any:
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def hands(*texts: str | None) -> tuple[tuple[int, ...] | None, ...]:
    return tuple(None if t is None else parse_cards(t) for t in texts)


# ---------------------------------------------------------------------------------------------
# The documented examples (docs/variants/), worked by hand.

WORKED: dict[str, Any] = {
    # Pot 4 (antes). Community 9h: Ana Q-Q-9 (pair of queens), Ben J-T-9 (straight), Cleo
    # 9-9-9 (three nines) wins; without the 9h Ana's queens would have won. Ana and Ben
    # match 4: next pot 8.
    "monte-carlo": {"rounds": [{
        "pot_before": 4, "winners": ["Cleo"], "community": "9h", "pot_after": 8,
        "deltas": {"Ana": -5, "Ben": -5, "Cleo": 3, "Dev": -1}}],
        "stacks": {"Ana": 45, "Ben": 45, "Cleo": 53, "Dev": 49}, "pot": 8},
    # Passes to the left: Ana Ks Kd + 5d (from Dev), Dev 8h 8c + 4s (from Cleo). Kings beat
    # eights: Ana takes 4, Dev matches 4.
    "pass-the-trash": {"rounds": [{
        "winners": ["Ana"], "pot_after": 4,
        "deltas": {"Ana": 3, "Ben": -1, "Cleo": -1, "Dev": -5}}]},
    # Pot 9: high 5 (odd chip), low 4. Dev (both) neither beats aces nor goes under 7-4-2,
    # so loses both: matches 5 + 4. Ana takes the high 5, Ben (7-4-2 < 8-5-3) the low 4;
    # Cleo matches the low 4. Next pot 4 + 9 = 13.
    "hi-lo": {"rounds": [{
        "pot_before": 9, "winners": ["Ana", "Ben"], "pot_after": 13,
        "high": {"pot": 5, "winners": ["Ana"]}, "low": {"pot": 4, "winners": ["Ben"]},
        "deltas": {"Ana": 5, "Ben": 4, "Cleo": -4, "Dev": -9}}]},
    # Blind declarations settle like any others: Ben's jacks win 4, Ana and Dev match 4.
    "no-peek": {"rounds": [{
        "winners": ["Ben"], "pot_after": 8,
        "deltas": {"Ana": -5, "Ben": 3, "Cleo": -1, "Dev": -5}}]},
    # Round 1: Ana's queens win 4; only the worst hand in (Ben, jack high) matches 4; Cleo
    # (nines) pays nothing. Round 2: everyone antes but Ben (he matched): pot 4 + 3 = 7. Dev's
    # jacks win 7; the worst in, Cleo (ten high), matches 7.
    "single-loser": {"rounds": [
        {"antes": {"Ana": 1, "Ben": 1, "Cleo": 1, "Dev": 1}, "winners": ["Ana"],
         "pot_after": 4, "deltas": {"Ana": 3, "Ben": -5, "Cleo": -1, "Dev": -1}},
        {"dealer": "Ana", "antes": {"Ana": 1, "Cleo": 1, "Dev": 1}, "pot_before": 7,
         "winners": ["Dev"], "pot_after": 7,
         "deltas": {"Ana": -1, "Ben": 0, "Cleo": -8, "Dev": 6}}]},
    # Round 1: Ana alone beats the ghost (tens over king high): takes 4, a showdown. Round 2
    # (new game, antes 4): the ghost's aces beat everyone: nobody takes the pot, Ben and Cleo
    # match 4 each: 4 + 8 = 12.
    "ghost-hand": {"rounds": [
        {"outcome": "showdown", "winners": ["Ana"], "ghost": "Kd 7c 2h", "ghost_won": False,
         "pot_after": 0, "deltas": {"Ana": 3, "Ben": -1, "Cleo": -1, "Dev": -1}},
        {"outcome": "showdown", "winners": [], "ghost": "Ac Ah 3d", "ghost_won": True,
         "pot_after": 12, "deltas": {"Ana": -1, "Ben": -5, "Cleo": -5, "Dev": -1}}]},
    # Round 1 void: Ana holds the best hand (queens), so she pays all four antes of the
    # re-deal (same dealer): pot 4 + 4 = 8. Dev's flush beats Ben's kings: +8, Ben matches 8.
    "all-out-penalty": {"rounds": [
        {"outcome": "void", "pays_antes": ["Ana"], "pot_after": 4,
         "deltas": {"Ana": -1, "Ben": -1, "Cleo": -1, "Dev": -1}},
        {"dealer": "Dev", "antes": {"Ana": 4}, "pot_before": 8, "winners": ["Dev"],
         "pot_after": 8, "deltas": {"Ana": -4, "Ben": -8, "Cleo": 0, "Dev": 8}}]},
    # The German book's pot-8 example, declared with 1-2-3 drop: the same answer.
    "drop": {"rounds": [{"winners": ["Ana"], "pot_after": 16,
                         "deltas": {"Ana": 8, "Ben": -8, "Cleo": -8, "Dev": 0}}]},
    # Misdeal: the antes (4) stay, the same dealer deals again with no new ante; Ana's aces
    # win the 4, Ben matches 4.
    "misdeal": {"rounds": [
        {"outcome": "misdeal", "dealer": "Dev", "pot_before": 4, "pot_after": 4,
         "deltas": {"Ana": -1, "Ben": -1, "Cleo": -1, "Dev": -1}},
        {"dealer": "Dev", "antes": {}, "pot_before": 4, "winners": ["Ana"], "pot_after": 4,
         "deltas": {"Ana": 4, "Ben": -4, "Cleo": 0, "Dev": 0}}]},
    # R1 pot 4: Ana wins, Ben and Cleo match 4 (stacks 23/15/35/19). R2 pot 8: Ana wins,
    # they match 8 (31/7/27/19). R3: Ben (7 < 20) rebuys 20; pot 16 > cap 10: Ben wins 16,
    # Cleo matches only 10 and is down 23 >= her limit 15: sat out. End: the pot 10 is shared
    # by Ana, Ben, Dev (3 each, the odd chip to Ana, first left of the dealer Dev).
    # Nets: Ana 35-20 = 15, Ben 46-40 = 6, Cleo 17-40 = -23, Dev 22-20 = 2.
    "buy-in-limits": {
        "rounds": [{"pot_after": 8}, {"pot_after": 16},
                   {"dealer": "Ben", "rebuys": {"Ben": 20}, "winners": ["Ben"],
                    "pot_after": 10, "deltas": {"Ana": 0, "Ben": 16, "Cleo": -10, "Dev": 0}}],
        "stacks": {"Ana": 35, "Ben": 46, "Cleo": 17, "Dev": 22}, "pot": 0,
        "session_over": True,
        "ledger": {"Ana": {"buy_in": 20, "stack": 35, "net": 15},
                   "Ben": {"buy_in": 40, "stack": 46, "net": 6},
                   "Cleo": {"buy_in": 40, "stack": 17, "net": -23},
                   "Dev": {"buy_in": 20, "stack": 22, "net": 2}},
        "payments": [{"from": "Cleo", "to": "Ana", "chips": 15},
                     {"from": "Cleo", "to": "Ben", "chips": 6},
                     {"from": "Cleo", "to": "Dev", "chips": 2}]},
    # R1 pot 3: Ana's queens win, Ben matches 3. R2: Ben alone in: uncontested win after a
    # matched round ends the session (end_on_uncontested). Nets +2, -1, -1: two payments.
    "session-end": {
        "rounds": [{"winners": ["Ana"], "pot_after": 3},
                   {"outcome": "uncontested", "winners": ["Ben"], "pot_after": 0}],
        "stacks": {"Ana": 22, "Ben": 19, "Cleo": 19}, "session_over": True,
        "payments": [{"from": "Ben", "to": "Ana", "chips": 1},
                     {"from": "Cleo", "to": "Ana", "chips": 1}]},
}


@pytest.mark.parametrize("name", sorted(WORKED))
def test_documented_example(name: str) -> None:
    assert_subset(run_referee(example(name)), WORKED[name])


@pytest.mark.parametrize("name", sorted(WORKED))
def test_documented_toml_matches_example_rules(name: str) -> None:
    rules = load_rules(EXAMPLES / f"{name}.toml")
    assert rules == rules_from_mapping(example(name)["rules"])


def test_existing_cases_give_the_same_answers() -> None:
    # The seed cases carry no variant key: the output holds no variant key either.
    for path in sorted((REPO_ROOT.parent / "shared" / "cases").glob("seed-*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        out = run_referee(case["input"])
        assert_subset(out, case["expected"])
        assert set(out) == {"rounds", "stacks", "pot", "reserve", "session_over"}
        for rnd in out["rounds"]:
            assert set(rnd) == {"dealer", "antes", "pot_before", "in", "winners", "deltas",
                                "pot_after", "eliminated", "outcome", "reserve_after"}


# ---------------------------------------------------------------------------------------------
# Hi-Lo.


def hi_lo_round(pot: int, hand_texts: list[str], decls: list[Declaration],
                **rules: Any) -> RoundResolved:
    state = new_session(NAMES4[:len(hand_texts)], 50, dealer=len(hand_texts) - 1,
                        rules=Rules(hi_lo=True, **rules), pot=pot)
    state, _ = deal(state, hands(*hand_texts))
    state, events = declare_all(state, dict(enumerate(decls)))
    result = events[-1]
    assert isinstance(result, RoundResolved)
    return result


def test_hi_lo_both_player_who_wins_both_ways_scoops() -> None:
    # Pot 10: high 5, low 5. Ana (both, A-A-9 high, and her lowest hand A-A-9 is... not low)
    # cannot scoop against Ben's 5-3-2 low; so use Ana 7-4-2 both against Ben K-Q-5 high and
    # Cleo 8-6-3 low: 7-4-2 is not the best high. Instead Ana both with 5-3-2 vs Ben low 7-5-4
    # only: Ana is the only high declarer and the lowest: she takes 5 + 5, Ben matches 5.
    result = hi_lo_round(10, ["5c 3d 2h", "7s 5h 4c"], [BOTH, LOW])
    assert result.high_winners == (0,) and result.low_winners == (0,)
    assert result.won == (10, 0) and result.matched == (0, 5)
    assert result.pot_after == 5


def test_hi_lo_one_side_only_plays_for_the_whole_pot() -> None:
    # Everyone declares high: the high side plays for all 7; loser matches 7.
    result = hi_lo_round(7, ["Qs Qh 2c", "Jd Jc 3s"], [HIGH, HIGH])
    assert (result.high_pot, result.low_pot) == (7, 0)
    assert result.won == (7, 0) and result.matched == (0, 7) and result.pot_after == 7


def test_hi_lo_failed_both_leaves_side_to_the_other() -> None:
    # Pot 9: high 5, low 4. Ana both with K-Q-6; Ben low with 7-4-2 beats her low, so Ana
    # loses both ways (matches 5 + 4 = 9). No eligible high winner: Ben takes all 9.
    result = hi_lo_round(9, ["Kc Qd 6h", "7h 4d 2c"], [BOTH, LOW])
    assert result.high_winners == () and result.low_winners == (1,)
    assert result.won == (0, 9) and result.matched == (9, 0) and result.pot_after == 9


def test_hi_lo_two_failed_boths_leave_the_pot() -> None:
    # Ana both with aces (best high, not lowest), Ben both with 5-3-2 (lowest, not best high):
    # each loses one way, so both lose both; nobody takes the pot (6 stays) and each matches
    # 3 + 3: next pot 6 + 12 = 18.
    result = hi_lo_round(6, ["As Ad 9c", "5c 3d 2h"], [BOTH, BOTH])
    assert result.winners == () and result.won == (0, 0)
    assert result.matched == (6, 6) and result.pot_after == 18


def test_hi_lo_tie_on_low_splits_that_side() -> None:
    # Pot 8: high 4, low 4. Ana high with a pair; Ben and Cleo both 7-4-2 for low (suits do
    # not matter under suit_tiebreak none): they split the low 4 (2 each); nobody matches.
    result = hi_lo_round(8, ["Qs Qh 2c", "7h 4d 2s", "7c 4s 2d"], [HIGH, LOW, LOW],
                         suit_tiebreak="none")
    assert result.low_winners == (1, 2) and result.won == (4, 2, 2)
    assert result.matched == (0, 0, 0) and result.pot_after == 0


def test_hi_lo_lone_player_in_wins_uncontested() -> None:
    result = hi_lo_round(5, ["2c 3d 5h", "As Ks Qs"], [LOW, OUT])
    assert result.outcome.value == "uncontested" and result.won == (5, 0)


def test_hi_lo_with_community_card_uses_it_for_low() -> None:
    # Community 2s: Ana (low) 7c 4d 9h makes 7-4-2 (drops the 9); Ben (low) 8c 5d 3h makes
    # 5-3-2 -> Ben is lower. Pot 4 all to the low side: Ben +4, Ana matches 4.
    state = new_session(NAMES4[:2], 50, dealer=1, rules=Rules(hi_lo=True, community_card=True),
                        pot=4)
    state, _ = deal(state, hands("7c 4d 9h", "8c 5d 3h"), community=parse_cards("2s"))
    state, events = declare_all(state, {0: LOW, 1: LOW})
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert result.low_winners == (1,) and result.won == (0, 4) and result.matched == (4, 0)


def test_hi_lo_declarations_are_checked() -> None:
    assert legal_declarations(Rules(hi_lo=True)) == (HIGH, LOW, BOTH, OUT)
    state = new_session(NAMES4[:2], 50, rules=Rules(hi_lo=True))
    state, _ = deal(state, hands("2c 3d 5h", "As Ks Qs"))
    with pytest.raises(IllegalActionError, match="must be high, low, both or out"):
        declare(state, 1, IN)
    plain = new_session(NAMES4[:2], 50)
    plain, _ = deal(plain, hands("2c 3d 5h", "As Ks Qs"))
    with pytest.raises(IllegalActionError, match="need hi_lo"):
        declare(plain, 1, HIGH)


# ---------------------------------------------------------------------------------------------
# Ghost hand, single loser, all-out penalty.


def test_ghost_tie_is_a_loss_and_lone_loser_matches() -> None:
    # suit_tiebreak none: Ana's Q-Q-5 equals the ghost's Q-Q-5: a tie with the ghost is a loss.
    # Nobody takes the pot 6; Ana matches 6: next pot 12.
    state = new_session(NAMES4[:2], 50, dealer=1, pot=6,
                        rules=Rules(ghost_hand=True, suit_tiebreak="none"))
    state, _ = deal(state, hands("Qs Qh 5c", "2c 3d 7h"), ghost=parse_cards("Qd Qc 5d"))
    state, events = declare_all(state, {0: IN, 1: OUT})
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert result.ghost_won and result.winners == () and result.matched == (6, 0)
    assert state.pot == 12


def test_ghost_is_not_shown_when_everyone_is_out() -> None:
    state = new_session(NAMES4[:2], 50, dealer=1, rules=Rules(ghost_hand=True))
    state, _ = deal(state, hands("Qs Qh 5c", "2c 3d 7h"), ghost=parse_cards("Qd Qc 5d"))
    state, events = declare_all(state, {0: OUT, 1: OUT})
    result = events[-1]
    assert isinstance(result, RoundResolved)
    assert result.outcome.value == "void" and result.ghost is None


def test_single_loser_tied_worst_all_match_and_all_tied_nobody() -> None:
    rules = Rules(losers_pay="worst", suit_tiebreak="none")
    # Pot 6 + 3 antes (everyone antes every hand) = 9: Ana's aces win 9; Ben and Cleo both
    # hold 9-5-2 (worst, tied): each matches 9.
    state = new_session(NAMES4[:3], 50, dealer=2, rules=rules, pot=6)
    state, _ = deal(state, hands("As Ad 3c", "9s 5h 2c", "9d 5c 2h"))
    state, events = declare_all(state, {0: IN, 1: IN, 2: IN})
    assert events[-1].won == (9, 0, 0)  # type: ignore[union-attr]
    assert events[-1].matched == (0, 9, 9)  # type: ignore[union-attr]
    # Everyone in holds the same ranks: they split the pot 6 + 2 = 8 and nobody is worst.
    state = new_session(NAMES4[:2], 50, dealer=1, rules=rules, pot=6)
    state, _ = deal(state, hands("9s 5h 2c", "9d 5c 2h"))
    state, events = declare_all(state, {0: IN, 1: IN})
    assert events[-1].won == (4, 4) and events[-1].matched == (0, 0)  # type: ignore[union-attr]


def test_all_out_penalty_tied_best_share_odd_chip_from_dealers_left() -> None:
    # Five players, dealer Eli (seat 4). Ben and Dev tie for the best hand (suits ignored):
    # they pay the 5 antes of the re-deal: 3 for Ben (first of them left of the dealer) and 2
    # for Dev.
    names = ("Ana", "Ben", "Cleo", "Dev", "Eli")
    rules = Rules(all_out="best_pays_antes", suit_tiebreak="none")
    state = new_session(names, 20, dealer=4, rules=rules)
    state, _ = deal(state, hands("2c 5d 9h", "Ks Kh 4c", "3c 6d Th", "Kd Kc 4s", "7c 8d Jh"))
    state, events = declare_all(state, dict.fromkeys(range(5), OUT))
    assert events[-1].ante_payers == (1, 3)  # type: ignore[union-attr]
    assert state.dealer == 4
    state, events = deal(state, hands("2c 5d 9h", "Ks Kh 4c", "3c 6d Th", "Kd Kc 4s",
                                      "7c 8d Jh"))
    assert events[0].amounts == (0, 3, 0, 2, 0)  # type: ignore[union-attr]
    assert state.pot == 10 and state.stacks == (19, 16, 19, 17, 19)


def test_all_out_penalty_needs_every_hand_at_the_referee() -> None:
    data = {"rules": {"all_out": "best_pays_antes"}, "dealer": "Ana",
            "players": [{"name": "Ana", "stack": 9}, {"name": "Ben", "stack": 9}],
            "rounds": [{"hands": {"Ana": "As Kd 2c"},
                        "declarations": {"Ana": "out", "Ben": "out"}}]}
    with pytest.raises(RefereeError, match="hand of 'Ben' is needed"):
        run_referee(data)


# ---------------------------------------------------------------------------------------------
# Pass the Trash, misdeal, rebuys, loss limits.


def test_pass_one_by_one_then_exchange_at_once() -> None:
    state = new_session(NAMES4[:3], 20, dealer=2, rules=Rules(pass_the_trash=True))
    state, _ = deal(state, hands("As Ks 2c", "Qh Qd 3s", "7c 8c 9d"))
    assert state.phase is Phase.PASS
    assert can_pass_card(state, 0, parse_card("Qh")) is not None  # not in Ana's hand
    state, events = pass_card(state, 0, parse_card("2c"))
    assert events == [PassChosen(0, parse_card("2c"))] and state.phase is Phase.PASS
    assert "already chosen" in (can_pass_card(state, 0, parse_card("As")) or "")
    state, _ = pass_card(state, 1, parse_card("3s"))
    state, events = pass_card(state, 2, parse_card("7c"))
    assert isinstance(events[-1], CardsPassed) and state.phase is Phase.DECLARE
    # Ana gets Cleo's 7c, Ben gets Ana's 2c, Cleo gets Ben's 3s.
    assert state.hands == hands("As Ks 7c", "Qh Qd 2c", "8c 9d 3s")


def test_pass_all_refuses_a_missing_seat_and_changes_nothing() -> None:
    state = new_session(NAMES4[:2], 20, dealer=1, rules=Rules(pass_the_trash=True))
    state, _ = deal(state, hands("As Ks 2c", "Qh Qd 3s"))
    with pytest.raises(IllegalActionError, match="no card passed by 'Ben'"):
        pass_all(state, {0: parse_card("2c")})
    assert state.phase is Phase.PASS and state.passes == (None, None)


def test_misdeal_keeps_antes_same_dealer_no_new_ante_even_every_round() -> None:
    state = new_session(NAMES4[:3], 20, dealer=1, rules=Rules(ante_every_round=True))
    assert can_misdeal(state) is not None
    state, _ = deal(state, hands("As Ks 2c", "Qh Qd 3s", "7c 8c 9d"))
    state, events = misdeal(state, "a card was exposed")
    assert events == [Misdealt("a card was exposed")]
    assert state.phase is Phase.DEAL and state.pot == 3 and state.dealer == 1
    state, events = deal(state, hands("As Ks 2c", "Qh Qd 3s", "7c 8c 9d"))
    assert state.pot == 3 and state.stacks == (19, 19, 19)  # no AntesPosted
    assert not any(type(e).__name__ == "AntesPosted" for e in events)


def test_rebuys() -> None:
    rules = Rules(rebuys=True, max_rebuys=1, min_buy_in=10, shortfall="table_stakes")
    state = new_session(NAMES4[:3], [10, 10, 10], dealer=2, rules=rules)
    assert "below 10" in (can_rebuy(state, 0, 10) or "")  # a full stack cannot rebuy
    with pytest.raises(IllegalActionError, match="below the minimum buy-in of 10"):
        new_session(NAMES4[:2], [10, 9], rules=rules)
    # Pot 3: Ana and Ben in, Ben's aces win; Ana (9 left) matches 3 -> 6 chips.
    state, _ = deal(state, hands("2c 3d 5h", "As Ad 4c", "7c 8c Td"))
    state, _ = declare_all(state, {0: IN, 1: IN, 2: OUT})
    assert state.stacks[0] == 6
    assert "chips >= 10, not 5" in (can_rebuy(state, 0, 5) or "")
    state, events = rebuy(state, 0, 10)
    assert events == [Rebought(0, 10)]
    # 30 bought in + 10 rebought = 40 on the table.
    assert state.stacks[0] == 16 and state.buy_ins[0] == 20 and state.total == 40
    assert can_rebuy(state, 0, 10) == "'Ana' has used the one rebuy allowed (max_rebuys = 1)"
    assert "no rebuys" in (can_rebuy(new_session(NAMES4[:2], 5), 0, 5) or "")


def test_loss_limit_sits_a_player_out_and_says_why() -> None:
    # Ben's limit is 5. Pot 6: Ana wins, Ben matches 6 -> down 6: sat out with 14 chips.
    state = new_session(NAMES4[:3], 20, dealer=2, pot=6, loss_limits={"Ben": 5})
    state, _ = deal(state, hands("As Ad 4c", "2c 3d 5h", "7c 8c Td"))
    state, events = declare_all(state, {0: IN, 1: IN, 2: OUT})
    assert events[-1] == SatOut(1, "Ben reached their loss limit of 5 chips (down 6) and "
                                   "sits out")
    assert state.eliminated == (False, True, False) and state.sat_out[1]
    assert state.stacks[1] == 14 and state.seats_in_play == (0, 2)
    with pytest.raises(IllegalActionError, match="loss limit of 'Ana' must be"):
        new_session(NAMES4[:2], 20, loss_limits=[0, None])


def test_loss_limit_ends_the_session_when_fewer_than_two_remain() -> None:
    state = new_session(NAMES4[:2], 20, dealer=1, pot=6, loss_limits=[None, 6])
    state, _ = deal(state, hands("As Ad 4c", "2c 3d 5h"))
    state, _ = declare_all(state, {0: IN, 1: IN})
    assert state.phase is Phase.OVER
    state, _ = end_session(state)
    assert state.stacks == (26 + 6, 14)  # the pot of 6 goes to the one still seated


# ---------------------------------------------------------------------------------------------
# Rules: refused combinations, capacity, presets.


@pytest.mark.parametrize(("rules", "message"), [
    ({"no_peek": True, "pass_the_trash": True}, "no_peek and pass_the_trash cannot be"),
    ({"hi_lo": True, "losers_pay": "worst"}, "no single worst hand"),
    ({"hi_lo": True, "ghost_hand": True}, "hi_lo and ghost_hand cannot be combined"),
    ({"max_rebuys": 2}, "max_rebuys = 2 needs rebuys = true"),
    ({"rebuys": True, "max_rebuys": 0}, "max_rebuys: must be at least 1 (got 0)"),
    ({"min_buy_in": 0}, "min_buy_in: must be at least 1 (got 0)"),
    ({"losers_pay": "best"}, "losers_pay"),
    ({"ghost_hand": "yes"}, "ghost_hand"),
])
def test_invalid_variant_rules_are_refused(rules: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError) as info:
        rules_from_mapping(rules)
    assert message in str(info.value)


def test_deck_capacity() -> None:
    # 10 players x 3 + ghost 3 + community 1 = 34 cards: fits the 52-card deck.
    rules = Rules(ghost_hand=True, community_card=True)
    assert variants_for(rules).cards_needed(10) == 34
    assert variants_for(Rules(cards_per_hand=2)).cards_needed(10) == 20
    assert new_session([f"P{i}" for i in range(10)], 5, rules=rules).n_seats == 10


@pytest.mark.parametrize("name", ["monte-carlo", "pass-the-trash", "hi-lo", "no-peek",
                                  "single-loser", "ghost-hand", "all-out-penalty", "drop",
                                  "pot-cap", "wimp-out", "table-stakes", "two-card",
                                  "three-card", "buy-in-limits", "estonian-full"])
def test_variant_presets_exist(name: str) -> None:
    assert name in PRESETS
    assert preset(name) == Rules(**PRESETS[name][1])


# ---------------------------------------------------------------------------------------------
# Referee errors for the variant keys.


def base_file(**rules: Any) -> dict[str, Any]:
    return {"rules": rules, "dealer": "Ana",
            "players": [{"name": "Ana", "stack": 9}, {"name": "Ben", "stack": 9}]}


@pytest.mark.parametrize(("rules", "rnd", "message"), [
    ({}, {"hands": {"Ana": "As Kd 2c", "Ben": "3c 4d 9h"}, "passes": {"Ana": "2c"},
          "declarations": {"Ana": "in", "Ben": "in"}}, "the rules have no pass_the_trash"),
    ({"pass_the_trash": True}, {"hands": {"Ana": "As Kd 2c", "Ben": "3c 4d 9h"},
                                "declarations": {"Ana": "in", "Ben": "in"}},
     "\"passes\" must give the card each player passed"),
    ({"pass_the_trash": True}, {"hands": {"Ana": "As Kd 2c", "Ben": "3c 4d 9h"},
                                "passes": {"Ana": "Qs", "Ben": "3c"},
                                "declarations": {"Ana": "in", "Ben": "in"}},
     "'Ana' cannot pass Qs: it is not in their hand"),
    ({"ghost_hand": True}, {"hands": {"Ana": "As Kd 2c"},
                            "declarations": {"Ana": "in", "Ben": "out"}},
     "the ghost hand is needed"),
    ({}, {"hands": {"Ana": "As Kd 2c"}, "ghost": "3c 4d 9h",
          "declarations": {"Ana": "in", "Ben": "out"}}, "the rules deal none"),
    ({"community_card": True}, {"hands": {"Ana": "As Kd 2c", "Ben": "3c 4d 9h"},
                                "declarations": {"Ana": "in", "Ben": "in"}},
     "the community card is needed"),
    ({"community_card": True}, {"hands": {"Ana": "As Kd 2c", "Ben": "3c 4d 9h"},
                                "community": "As", "declarations": {"Ana": "in", "Ben": "in"}},
     "card As is dealt to both 'Ana' and the community card"),
    ({}, {"hands": {"Ana": "As Kd 2c"}, "declarations": {"Ana": "high", "Ben": "out"}},
     "must be \"in\" or \"out\""),
    ({"hi_lo": True}, {"hands": {"Ana": "As Kd 2c"}, "declarations": {"Ana": "in", "Ben": "out"}},
     "must be \"high\", \"low\", \"both\" or \"out\""),
    ({}, {"misdeal": "yes"}, 'misdeal must be true or false, not "yes"'),
    ({}, {"misdeal": True, "dealt": {}}, "unknown key 'dealt' in round 1"),
    ({"rebuys": True}, {"rebuys": {"Ana": 5}, "hands": {}, "declarations": {"Ana": "out",
                                                                           "Ben": "out"}},
     "rebuy: 'Ana' has 9 chips"),
])
def test_referee_variant_errors(rules: dict[str, Any], rnd: dict[str, Any],
                                message: str) -> None:
    data = {**base_file(**rules), "rounds": [rnd]}
    with pytest.raises(RefereeError) as info:
        run_referee(data)
    assert message in str(info.value)


def test_referee_uncontested_round_needs_no_community_card() -> None:
    data = {**base_file(community_card=True),
            "rounds": [{"hands": {"Ana": "As Kd 2c"},
                        "declarations": {"Ana": "in", "Ben": "out"}}]}
    out = run_referee(data)
    assert out["rounds"][0]["outcome"] == "uncontested" and out["stacks"]["Ana"] == 10


# ---------------------------------------------------------------------------------------------
# Who pays whom.


def test_settle_up_fewest_payments() -> None:
    # Ana +15, Ben +6, Dev +2 all paid by Cleo -23: three payments.
    assert settle_up({"Ana": 15, "Ben": 6, "Cleo": -23, "Dev": 2}) == [
        Payment("Cleo", "Ana", 15), Payment("Cleo", "Ben", 6), Payment("Cleo", "Dev", 2)]
    # Two independent pairs settle in 2 payments, not 3 (a greedy largest-first would pay
    # Fay -> Ana 9, then needs 3 more).
    pays = settle_up({"Ana": 9, "Ben": -4, "Cleo": 4, "Dev": -5, "Eli": -9, "Fay": 5})
    assert len(pays) == 3
    assert sorted((p.payer, p.payee, p.chips) for p in pays) == [
        ("Ben", "Cleo", 4), ("Dev", "Fay", 5), ("Eli", "Ana", 9)]
    assert settle_up({"Ana": 0, "Ben": 0}) == []
    with pytest.raises(SettleUpError, match="add up to -1"):
        settle_up({"Ana": 1, "Ben": -2})


def test_paths_exist() -> None:
    assert Path(EXAMPLES).is_dir()


# ---------------------------------------------------------------------------------------------
# Front ends: guts sim smoke runs per preset, guts referee on the documented examples.

RUNNER = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": "120",
                        "GUTSKIT_DB": None})


def guts(*args: str) -> Result:
    result = RUNNER.invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


VARIANT_PRESETS = ["monte-carlo", "pass-the-trash", "hi-lo", "no-peek", "single-loser",
                   "ghost-hand", "all-out-penalty", "drop", "buy-in-limits", "estonian-full",
                   "table-stakes", "pot-cap"]


@pytest.mark.parametrize("name", VARIANT_PRESETS)
def test_sim_smoke_run_per_variant_preset(name: str) -> None:
    result = guts("sim", "-n", "5", "-R", "120", "--preset", name, "--seed", "7",
                  "--chips", "40", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["rounds"] == 120 and sum(out["outcomes"].values()) == 120
    # Every session is ended before the summary: the 5 x 40 chips are all in the stacks.
    assert sum(out["final_stacks"].values()) == 200


@pytest.mark.parametrize("name", sorted(WORKED))
def test_guts_referee_on_documented_example(name: str) -> None:
    result = guts("referee", str(EXAMPLES / f"{name}.json"), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == run_referee(example(name))


def test_rules_list_shows_the_variant_presets() -> None:
    listing = guts("rules", "--list").stdout
    for name in VARIANT_PRESETS:
        assert name in listing


def test_variant_pages_hold_the_current_referee_output() -> None:
    spec = importlib.util.spec_from_file_location("generate", REPO_ROOT / "docs" / "variants"
                                                  / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert set(generate.PAGES) == set(WORKED)
    for name in generate.PAGES:
        expected = generate.page(name, json.dumps(run_referee(example(name)), indent=1))
        page = REPO_ROOT / "docs" / "variants" / f"{name}.md"
        assert page.read_text(encoding="utf-8") == expected, (
            f"{page.name} is out of date: run python docs/variants/generate.py")


def test_play_prints_who_pays_whom(tmp_path: Path) -> None:
    result = RUNNER.invoke(app, ["play", "--seed", "5", "--players", "3", "--db",
                                 str(tmp_path / "g.db")], input="i\no\ni\nq\n")
    assert result.exit_code == 0, result.output
    rows = re.findall(r"│ (\w+)\s+│\s+(\d+) │\s+(-?\d+) │\s+([+-]?\d+) │", result.stdout)
    nets = {name: int(net) for name, _, _, net in rows}
    assert len(nets) == 3 and sum(nets.values()) == 0 and any(nets.values())
    line = next(t for t in result.stdout.splitlines() if t.startswith("Settle up: "))
    for payer, payee, chips in re.findall(r"(\w+) pays (\w+) (\d+)", line):
        nets[payer] += int(chips)
        nets[payee] -= int(chips)
    assert all(v == 0 for v in nets.values())


def test_guts_referee_text_shows_the_variant_lines() -> None:
    out = guts("referee", str(EXAMPLES / "buy-in-limits.json")).stdout
    # Per-round stacks walk forward from the buy-ins: after round 2 Ana has 20+3+8 = 31,
    # Ben 20-5-8 = 7; round 3 adds Ben's rebuy of 20 before his +16: 43.
    assert re.search(r"│ Ana .*│ +\+8 │ +31 │", out) and re.search(r"│ Ben .*│ +\+16 │ +43 │", out)
    assert "Rebuys before the deal: Ben 20" in out
    assert "Sat out: Cleo reached their loss limit of 15 chips (down 23) and sits out" in out
    assert "Settle up: Cleo pays Ana 15; Cleo pays Ben 6; Cleo pays Dev 2." in out
    hi_lo = guts("referee", str(EXAMPLES / "hi-lo.json")).stdout
    assert "High pot (5): Ana" in hi_lo and "Low pot (4): Ben" in hi_lo


def test_referee_misdeal_round_ignores_the_thrown_in_cards_and_false_is_a_normal_round() -> None:
    # Round 1 misdealt (its recorded cards are thrown in): antes 2 stay in the pot. Round 2
    # ("misdeal": false is an ordinary round), no new ante: Ana's aces win 2, Ben matches 2.
    data = {**base_file(), "rounds": [
        {"misdeal": True, "hands": {"Ana": "As Kd"}, "declarations": {"Ana": "in"}},
        {"misdeal": False, "hands": {"Ana": "As Ad 3c", "Ben": "Kh Qh 9c"},
         "declarations": {"Ana": "in", "Ben": "in"}}]}
    out = run_referee(data)
    assert [r["outcome"] for r in out["rounds"]] == ["misdeal", "showdown"]
    assert out["rounds"][1]["antes"] == {} and out["rounds"][1]["pot_before"] == 2
    assert out["stacks"] == {"Ana": 10, "Ben": 6} and out["pot"] == 2
