"""Hand evaluation (issue 2, part 2; RULES.md "Hand rankings").

Exhaustive counts are worked out by hand:

* 2 cards: 13 ranks x C(4,2) = 78 pairs; 1326 - 78 = 1248 high-card hands. Strengths
  without suits: 13 pairs + C(13,2) = 78 high-card rank sets = 91.
* 3 cards, A-2-3 a straight: 12 rank runs (A23 .. QKA) x 4 suits = 48 straight flushes;
  12 x (64 - 4) = 720 straights; 13 x C(4,3) = 52 trips; 13 x 6 x 12 x 4 = 3744 pairs;
  4 x C(13,3) - 48 = 1096 flushes; the rest 22100 - 5660 = 16440 high cards. Strengths:
  12 + 13 + 12 + (286 - 12) + 13 x 12 + (286 - 12) = 741.
* 3 cards, ace only high: 11 runs -> 44 straight flushes, 660 straights,
  1144 - 44 = 1100 flushes, 22100 - 44 - 52 - 660 - 1100 - 3744 = 16500 high cards;
  strengths 11 + 13 + 11 + 275 + 156 + 275 = 741 again.
* ``suit_tiebreak = "high_card"`` multiplies the high-card rank sets by the 4 suits of the
  top card: 2 cards 13 + 78 x 4 = 325; 3 cards 12 + 13 + 12 + 274 + 156 + 274 x 4 = 1563.
* ``suit_tiebreak = "always"``: two different hands with equal ranks always differ in a
  suit, so every hand has its own strength: 1326 and 22100.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest
from conftest import CASES_DIR, load_case

from gutskit.core.cards import DuplicateCardError, HandSizeError, format_cards, parse_cards
from gutskit.core.evaluation import (
    Category,
    Ranking,
    category_of_key,
    compare,
    evaluate,
    strength,
    strength_table,
)
from gutskit.core.rules import rules_from_mapping

TWO = Ranking(cards_per_hand=2)
THREE = Ranking(cards_per_hand=3)


def ranking(cards: int = 3, **rules: Any) -> Ranking:
    return rules_from_mapping({"cards_per_hand": cards, **rules}).ranking


def cmp(first: str, second: str, rank: Ranking = THREE) -> int:
    return compare(parse_cards(first), parse_cards(second), rank)


def key(text: str, rank: Ranking = THREE) -> int:
    return evaluate(parse_cards(text), rank).key


# --- exhaustive enumeration ------------------------------------------------------------------


def category_counts(rank: Ranking) -> Counter[Category]:
    return Counter(evaluate(combo, rank).category
                   for combo in itertools.combinations(range(52), rank.cards_per_hand))


def test_two_card_category_counts() -> None:
    counts = category_counts(TWO)
    assert sum(counts.values()) == 1326
    assert counts == {Category.PAIR: 78, Category.HIGH_CARD: 1248}


def test_three_card_category_counts_with_ace_low_straight() -> None:
    counts = category_counts(THREE)
    assert sum(counts.values()) == 22100
    assert counts == {
        Category.STRAIGHT_FLUSH: 48,
        Category.THREE_OF_A_KIND: 52,
        Category.STRAIGHT: 720,
        Category.FLUSH: 1096,
        Category.PAIR: 3744,
        Category.HIGH_CARD: 16440,
    }


def test_three_card_category_counts_without_ace_low_straight() -> None:
    counts = category_counts(Ranking(cards_per_hand=3, ace_low_straight=False))
    assert counts == {
        Category.STRAIGHT_FLUSH: 44,
        Category.THREE_OF_A_KIND: 52,
        Category.STRAIGHT: 660,
        Category.FLUSH: 1100,
        Category.PAIR: 3744,
        Category.HIGH_CARD: 16500,
    }


@pytest.mark.parametrize(
    ("cards", "ace_low", "tiebreak", "distinct"),
    [
        (2, True, "none", 91),
        (3, True, "none", 741),
        (3, False, "none", 741),
        (2, True, "high_card", 325),
        (3, True, "high_card", 1563),
        (3, False, "high_card", 1566),
        (2, True, "always", 1326),
        (3, True, "always", 22100),
    ],
)
def test_distinct_strengths(cards: int, ace_low: bool, tiebreak: str, distinct: int) -> None:
    rank = ranking(cards, ace_low_straight=ace_low, suit_tiebreak=tiebreak)
    keys = {evaluate(combo, rank).key
            for combo in itertools.combinations(range(52), cards)}
    assert len(keys) == distinct


@pytest.mark.parametrize(
    "rank",
    [TWO, THREE, ranking(2, suit_tiebreak="none"), ranking(3, suit_tiebreak="always"),
     ranking(3, ace_low_straight=False, suit_tiebreak="none")],
    ids=["2-high_card", "3-high_card", "2-none", "3-always", "3-noacelow-none"],
)
def test_strength_table_agrees_with_evaluate_in_every_order(rank: Ranking) -> None:
    table = strength_table(rank)
    n = rank.cards_per_hand
    assert len(table) == 52**n
    for combo in itertools.combinations(range(52), n):
        expected = evaluate(combo, rank).key
        for perm in itertools.permutations(combo):
            index = 0
            for card in perm:
                index = index * 52 + card
            assert table[index] == expected, perm
    # Entries with a repeated card are -1.
    assert table[(5 * 52 + 5) * 52 + 7 if n == 3 else 5 * 52 + 5] == -1


def test_strength_lookup_matches_evaluate_on_random_orders() -> None:
    rng = random.Random(3)
    for rank in (TWO, THREE):
        for _ in range(2000):
            cards = rng.sample(range(52), rank.cards_per_hand)
            value = evaluate(cards, rank)
            assert strength(cards, rank) == value.key
            assert category_of_key(value.key) is value.category


# --- the public worked cases ------------------------------------------------------------------

COMPARE_CASES = load_case(CASES_DIR / "compare.json")


@pytest.mark.parametrize("case", COMPARE_CASES, ids=[c["why"] for c in COMPARE_CASES])
def test_compare_cases(case: dict[str, Any]) -> None:
    rank = ranking(case["cards"], **case["rules"])
    expected = {"first": 1, "second": -1, "tie": 0}[case["winner"]]
    assert cmp(case["first"], case["second"], rank) == expected
    assert cmp(case["second"], case["first"], rank) == -expected


def test_compare_cases_are_present() -> None:
    assert len(COMPARE_CASES) >= 9


# --- categories and order ---------------------------------------------------------------------


def test_three_card_category_order() -> None:
    # one hand per category, weakest first: high card < pair < flush < straight < trips < SF
    ladder = ["Ah Kd Jc", "2c 2d 3h", "2h 5h 7h", "Ah 2s 3c", "2c 2d 2h", "Ah 2h 3h"]
    values = [evaluate(parse_cards(h)) for h in ladder]
    assert [v.category for v in values] == sorted(Category)
    keys = [v.key for v in values]
    assert keys == sorted(keys)
    assert len(set(keys)) == 6


@pytest.mark.parametrize(
    ("first", "second", "winner"),
    [
        ("2h 3h 4h", "As Ah Ad", 1),    # straight flush beats trips
        ("2c 2d 2h", "Qd Kc As", 1),    # trips beat the best straight
        ("2c 3d 4h", "Ah Kh Jh", 1),    # a straight beats a flush
        ("Ah 2s 3c", "2c 3d 4h", -1),   # A-2-3 is the lowest straight
        ("Qd Kc As", "Jc Qs Kh", 1),    # Q-K-A the highest
        ("Kc As 2d", "2c 3d 4h", -1),   # K-A-2 is never a straight (ace-king high)
        ("Kc Qc 9c", "Ah 9h 2h", -1),   # flushes compare by ranks
        ("Ah Kh 7h", "As Ks 8d", 1),    # flush beats high card
        ("3h 3s 2c", "4h 4s 2d", -1),   # higher pair wins
        ("3h 3s Ac", "4h 4s 2d", -1),   # pair rank before kicker
        ("5h 5s Kd", "5d 5c Qs", 1),    # kicker decides
        ("Ah Kd 2c", "As Qc Jd", 1),    # second card decides
        ("Ah 9d 3c", "As 9c 2d", 1),    # third card decides
        ("Ah 2s 3c", "Kh Qh 9s", 1),    # A-2-3 straight beats any high card
        ("Ad 2d 3d", "Kh Qh Jh", -1),   # A-2-3 straight flush is the lowest one
    ],
)
def test_three_card_comparisons(first: str, second: str, winner: int) -> None:
    assert cmp(first, second) == winner


def test_k_a_2_is_high_card_and_a_2_3_needs_ace_low() -> None:
    assert evaluate(parse_cards("Kc As 2d")).category is Category.HIGH_CARD
    assert evaluate(parse_cards("Kc Ac 2c")).category is Category.FLUSH
    off = Ranking(ace_low_straight=False)
    assert evaluate(parse_cards("Ah 2s 3c"), off).category is Category.HIGH_CARD
    assert evaluate(parse_cards("Ah 2h 3h"), off).category is Category.FLUSH
    assert evaluate(parse_cards("Qd Kc As"), off).category is Category.STRAIGHT


@pytest.mark.parametrize(
    ("first", "second", "winner"),
    [
        ("2h 2c", "Ah Kd", 1),   # any pair beats any high card
        ("As Ad", "Ks Kd", 1),
        ("Ah Kh", "Qs Qd", -1),  # suited/connected count for nothing
        ("Ah Kd", "As Qd", 1),   # second card decides before suits
        ("Kh Qh", "Jh Th", 1),
        ("3c 2d", "4c 2h", -1),
    ],
)
def test_two_card_comparisons(first: str, second: str, winner: int) -> None:
    assert cmp(first, second, TWO) == winner


# --- suit_tiebreak ----------------------------------------------------------------------------


def test_suit_tiebreak_none_ties_rank_equal_hands() -> None:
    none2, none3 = ranking(2, suit_tiebreak="none"), ranking(3, suit_tiebreak="none")
    assert cmp("Ah Kd", "As Kc", none2) == 0
    assert cmp("Ts Tc", "Th Td", none2) == 0
    assert cmp("Ah Kd 7c", "As Kc 7d", none3) == 0
    assert cmp("Ah Kh 7h", "As Ks 7s", none3) == 0
    assert cmp("9c Th Jd", "9s Tc Jh", none3) == 0


def test_suit_tiebreak_high_card_only_breaks_high_card_hands() -> None:
    # among high-card hands of equal ranks, the better suit of the top card wins
    assert cmp("Ah Kd", "As Kc", TWO) == -1
    assert cmp("Ah Ks", "Ad Kc", TWO) == 1        # only the top card's suit counts
    assert cmp("Ah Kd 7c", "As Kc 7d") == -1
    assert cmp("Ah Ks 7s", "Ad Kc 7c") == 1
    assert cmp("Ah 3s 2s", "Ac 3h 2h", Ranking(ace_low_straight=False)) == 1
    # pairs, flushes and straights of equal ranks still tie
    assert cmp("Ts Tc", "Th Td", TWO) == 0
    assert cmp("Ts Tc 5h", "Th Td 5s") == 0
    assert cmp("Ah Kh 7h", "As Ks 7s") == 0
    assert cmp("9c Th Jd", "9s Tc Jh") == 0
    assert cmp("Ah 2s 3c", "As 2c 3d") == 0
    assert cmp("2c 2d 2h", "2s 3s 4s") == -1      # categories still come first


def test_suit_tiebreak_always_orders_cards_by_rank_then_suit() -> None:
    always2, always3 = ranking(2, suit_tiebreak="always"), ranking(3, suit_tiebreak="always")
    assert cmp("Ah Kd", "As Kc", always2) == -1
    assert cmp("Ts Tc", "Th Td", always2) == 1            # Ts first vs Th first
    assert cmp("Ah Kh 7h", "As Ks 7s", always3) == -1     # flush: spades on top
    assert cmp("9c Th Jd", "9s Tc Jh", always3) == -1     # straight: Jd vs Jh
    assert cmp("Ts Tc 5h", "Th Td 5s", always3) == 1      # pair: Ts vs Th
    assert cmp("Ah 2s 3c", "As 2c 3d", always3) == -1     # the ace is the top card
    # the first differing suit decides, top down (hands evaluated separately, so they may
    # share a card): Ts Tc 5h -> s c h; Ts Td 5s -> s d s: diamonds beat clubs
    assert key("Ts Tc 5h", always3) < key("Ts Td 5s", always3)
    assert key("Ah Kd 7c", always3) < key("Ah Kd 7s", always3)
    # suits never beat ranks
    assert cmp("Ac Kc 7d", "As Ks 6d", always3) == 1
    assert cmp("2c 2d 3c", "Ah Ks Js", always3) == 1


# --- descriptions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "cards", "ace_low", "description", "category"),
    [
        ("Th Tc As", 3, True, "Pair of tens, ace kicker", "pair"),
        ("Qs Qh 7d", 3, True, "Pair of queens, seven kicker", "pair"),
        ("2c 9h 9s", 3, True, "Pair of nines, two kicker", "pair"),
        ("Th Tc", 2, True, "Pair of tens", "pair"),
        ("Ah Kd", 2, True, "Ace-king high", "high_card"),
        ("3c 7d", 2, True, "Seven-three high", "high_card"),
        ("Ah Kd 7c", 3, True, "Ace-king-seven high", "high_card"),
        ("Kc As 2d", 3, True, "Ace-king-two high", "high_card"),
        ("Ah 2s 3c", 3, False, "Ace-three-two high", "high_card"),
        ("Ah Kh 7h", 3, True, "Flush, ace-king-seven high", "flush"),
        ("Ah 2s 3c", 3, True, "Straight, ace to three", "straight"),
        ("Qd Kc As", 3, True, "Straight, queen to ace", "straight"),
        ("9c Th Jd", 3, True, "Straight, nine to jack", "straight"),
        ("7h 5h 6h", 3, True, "Straight flush, five to seven", "straight_flush"),
        ("Ah 2h 3h", 3, True, "Straight flush, ace to three", "straight_flush"),
        ("Ad Qd Kd", 3, True, "Straight flush, queen to ace", "straight_flush"),
        ("2c 2d 2h", 3, True, "Three twos", "three_of_a_kind"),
        ("As Ah Ad", 3, True, "Three aces", "three_of_a_kind"),
    ],
)
def test_descriptions(hand: str, cards: int, ace_low: bool, description: str,
                      category: str) -> None:
    value = evaluate(parse_cards(hand), Ranking(cards_per_hand=cards, ace_low_straight=ace_low))
    assert value.description == description
    assert value.category.label == category
    assert value.cards == parse_cards(hand)
    assert str(value) == f"{format_cards(parse_cards(hand))} ({description})"


# --- errors ------------------------------------------------------------------------------------


def test_evaluate_refuses_wrong_size_and_duplicates() -> None:
    with pytest.raises(HandSizeError, match="expected 3"):
        evaluate(parse_cards("As Kd"))
    with pytest.raises(HandSizeError, match="expected 2"):
        evaluate(parse_cards("As Kd Qh"), TWO)
    with pytest.raises(DuplicateCardError, match="'As'"):
        evaluate((51, 51, 3))


def test_compare_refuses_a_card_in_both_hands() -> None:
    with pytest.raises(DuplicateCardError, match="'As'"):
        cmp("As Kd Qh", "As 2c 3d")


@pytest.mark.parametrize("kwargs", [{"cards_per_hand": 4}, {"cards_per_hand": 1},
                                    {"suit_tiebreak": "suits"}])
def test_bad_ranking_is_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=repr(next(iter(kwargs.values())))):
        Ranking(**kwargs)
