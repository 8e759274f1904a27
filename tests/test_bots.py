"""Bots (issue 2, part 5): the seeds' rules of thumb, pot and opponent pressure, the random
bot, and decisions made from the seat's view alone.

Percentiles worked out by hand (ties count half):

* two cards, ``suit_tiebreak = "high_card"``: the weakest rule-of-thumb hand is a pair of
  tens. It beats the 1248 high-card hands and the 8 x 6 = 48 lower pairs and ties the 6
  pairs of tens: (1296 + 6/2) / 1326 = 1299/1326. A pair of nines: (1248 + 42 + 3)/1326.
* three cards: the weakest is a pair of twos with a jack kicker. It beats the 16440
  high-card hands and the pairs of twos with a kicker 3..T (6 x 8 x 4 = 192) and ties the
  6 x 4 = 24 pairs of twos with a jack: (16632 + 12) / 22100 = 16644/22100.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace as dc_replace
from typing import Any

import pytest
from conftest import IN, OUT, deal_cards, table

from gutskit.core.cards import parse_cards
from gutskit.core.evaluation import Ranking
from gutskit.core.views import SeatView, view_for
from gutskit.strategy.bots import (
    STYLES,
    RandomBot,
    RuleOfThumbBot,
    Strategy,
    bot_table,
    hand_percentile,
    qualifies_by_rule_of_thumb,
)

TWO = Ranking(cards_per_hand=2)
THREE = Ranking(cards_per_hand=3)


@pytest.mark.parametrize(
    ("hand", "qualifies"),
    [("Th Tc", True), ("Ah Ad", True), ("9h 9c", False), ("2s 2c", False),
     ("As Ks", False), ("Ah Kd", False)],
)
def test_two_card_rule_of_thumb(hand: str, qualifies: bool) -> None:
    assert qualifies_by_rule_of_thumb(parse_cards(hand), 2) is qualifies


@pytest.mark.parametrize(
    ("hand", "qualifies"),
    [
        ("5h 5c Kd", True),   # pair with a face card
        ("Jh Jc 2d", True),   # the pair is the face card
        ("5h 5c Ad", True),   # gutskit counts the ace as a face card
        ("2h 2c Jd", True),
        ("5h 5c 3d", False),  # pair without a face card
        ("Th Tc 9d", False),
        ("2c 2d 2h", True),   # better than a pair
        ("2c 3d 4h", True),
        ("2h 5h 9h", True),
        ("Ah Kd Jc", False),  # high card
        ("Kc As 2d", False),  # K-A-2 is ace high, not a straight
    ],
)
def test_three_card_rule_of_thumb(hand: str, qualifies: bool) -> None:
    assert qualifies_by_rule_of_thumb(parse_cards(hand), 3) is qualifies


def test_hand_percentiles_by_hand() -> None:
    assert hand_percentile(parse_cards("Th Tc"), TWO) == pytest.approx(1299 / 1326)
    assert hand_percentile(parse_cards("9h 9c"), TWO) == pytest.approx(1293 / 1326)
    assert hand_percentile(parse_cards("Ah As"), TWO) == pytest.approx(1323 / 1326)
    # 3-2 high with the club on top: the 4 weakest hands tie (only the top suit counts)
    assert hand_percentile(parse_cards("3c 2d"), TWO) == pytest.approx(2 / 1326)
    assert hand_percentile(parse_cards("3d 2c"), TWO) == pytest.approx(6 / 1326)
    assert hand_percentile(parse_cards("2h 2c Jd"), THREE) == pytest.approx(16644 / 22100)
    # the order of the cards does not matter
    assert hand_percentile(parse_cards("Jd 2c 2h"), THREE) == pytest.approx(16644 / 22100)


def view_with(hand: str, *, n: int = 4, pot: int = 0, seat: int = 0,
              **rules: Any) -> SeatView:
    """Seat ``seat``'s view with ``hand`` at a table of ``n`` (100 chips each) where every
    seat is dealt in. ``pot = 0``: a new game, the antes of 1 make the pot ``n``; else a
    game in progress with that pot (no antes)."""
    cards = len(hand.split())
    state = table(n, 100, pot=pot, cards_per_hand=cards, **rules)
    deck = [c for c in range(52) if c not in parse_cards(hand)]
    hands = {s: " ".join(_names(deck[s * cards:(s + 1) * cards])) for s in range(n)}
    hands[seat] = hand
    dealt, _ = deal_cards(state, hands)
    view = view_for(dealt, seat)
    assert view.pot == (pot or n)
    return view


def _names(cards: list[int]) -> list[str]:
    from gutskit.core.cards import card_name

    return [card_name(c) for c in cards]


def test_rule_of_thumb_bot_plays_the_seeds_threshold() -> None:
    bot = RuleOfThumbBot()
    rng = random.Random(0)
    # 4 players, pot 4 (antes only): the log term is 0, opponents 3: threshold = the rule
    tens = view_with("Th Tc")
    assert bot.threshold(tens) == pytest.approx(1299 / 1326)
    assert bot.declare(tens, rng) is IN
    assert bot.declare(view_with("9h 9c"), rng) is OUT
    assert bot.declare(view_with("2h 2c Jd"), rng) is IN
    assert bot.declare(view_with("Ah Kd Jc"), rng) is OUT
    assert bot.threshold(view_with("2h 2c Jd")) == pytest.approx(16644 / 22100)


def test_at_the_base_threshold_every_rule_of_thumb_hand_goes_in() -> None:
    # The threshold is the percentile of the weakest hand the rule plays: two-card play is
    # exactly the rule; three-card play includes every hand the rule plays (and, being
    # monotone in strength, the pairs without a face card that beat a pair of twos with a
    # jack: the seeds' rule itself is not monotone).
    bot = RuleOfThumbBot()
    for ranking, view in ((TWO, view_with("Th Tc")), (THREE, view_with("2h 2c Jd"))):
        threshold = bot.threshold(view)
        for combo in itertools.combinations(range(52), ranking.cards_per_hand):
            plays = hand_percentile(combo, ranking) >= threshold
            rule = qualifies_by_rule_of_thumb(combo, ranking.cards_per_hand)
            if ranking is TWO:
                assert plays is rule, combo
            elif rule:
                assert plays, combo


def test_a_tiny_pot_makes_a_coin_flip_hand_worth_it() -> None:
    bot = RuleOfThumbBot()
    view = view_with("Ah 9d", n=2)
    assert bot.threshold(view) == 0.5
    # A-9 beats every hand below ace high and many ace-highs: above the median
    assert hand_percentile(parse_cards("Ah 9d"), TWO) > 0.5
    assert bot.declare(view, random.Random(0)) is IN
    assert bot.declare(view_with("8h 5d", n=2), random.Random(0)) is OUT


def test_tighter_as_the_pot_grows() -> None:
    bot = RuleOfThumbBot()
    small, big = view_with("Th Tc 9d", pot=8), view_with("Th Tc 9d", pot=64)
    # pot 8 at 4 seats: + 0.015 * log2(2); pot 64: + 0.015 * log2(16)
    assert bot.threshold(small) == pytest.approx(16644 / 22100 + 0.015)
    assert bot.threshold(big) == pytest.approx(16644 / 22100 + 0.06)
    assert bot.threshold(big) > bot.threshold(small)
    # pair of sixes with a jack: beats 16440 high cards, 4 x 288 lower pairs and 8 x 24
    # sixes with a lower kicker, ties 24: (17784 + 12) / 22100 = 0.805
    hand = "6h 6c Jd"
    pct = hand_percentile(parse_cards(hand), THREE)
    assert pct == pytest.approx(17796 / 22100)
    assert bot.threshold(view_with(hand, pot=8)) < pct < bot.threshold(view_with(hand, pot=64))
    assert bot.declare(view_with(hand, pot=8), random.Random(0)) is IN
    assert bot.declare(view_with(hand, pot=64), random.Random(0)) is OUT


def test_tighter_with_more_opponents() -> None:
    bot = RuleOfThumbBot()
    four = view_with("Th Tc 9d", n=4, pot=8)
    eight = view_with("Th Tc 9d", n=8, pot=16)  # same pot per seat
    assert four.opponents == 3 and eight.opponents == 7
    assert bot.threshold(eight) == pytest.approx(bot.threshold(four) + 0.04)


def test_styles_shift_the_threshold() -> None:
    view = view_with("Th Tc 9d", pot=8)
    cautious, standard, loose = (RuleOfThumbBot(style=STYLES[s])
                                 for s in ("cautious", "rule-of-thumb", "loose"))
    # a cautious bot raises the bar for the rule's hands; a loose one keeps the rule's bar
    # and also plays strong hands the rule does not name
    assert cautious.threshold(view) == pytest.approx(standard.threshold(view) + 0.04)
    assert loose.threshold(view) == standard.threshold(view)
    # the threshold stays a probability
    assert RuleOfThumbBot(style=5.0).threshold(view) == 0.999


def test_styles_order_the_hands_played() -> None:
    """3-card, 4 players, pot 8: count the hands each style plays among all 22,100."""
    view = view_with("Th Tc 9d", pot=8)
    counts = {}
    for style in ("cautious", "rule-of-thumb", "loose"):
        bot = RuleOfThumbBot(style=STYLES[style])
        counts[style] = sum(bot.plays(combo, view)
                            for combo in itertools.combinations(range(52), 3))
    assert counts["cautious"] < counts["rule-of-thumb"] < counts["loose"]


def test_standard_bot_plays_exactly_the_rule_at_an_ante_pot() -> None:
    """4 players, pot 4 (antes only, tightening 0): 3-card, exactly the hands the seeds'
    rule plays: pair or better with a card jack or higher (5-5-3 is out, 5-5-K in)."""
    view = view_with("Th Tc 9d", pot=4)
    bot = RuleOfThumbBot()
    played = [c for c in itertools.combinations(range(52), 3) if bot.plays(c, view)]
    assert all(qualifies_by_rule_of_thumb(c, 3) for c in played)
    assert len(played) == sum(qualifies_by_rule_of_thumb(c, 3)
                              for c in itertools.combinations(range(52), 3))
    assert not bot.plays(parse_cards("5h 5c 3d"), view)
    assert bot.plays(parse_cards("5h 5c Kd"), view)


def test_bots_respect_require_cover() -> None:
    view = view_with("Ah As Ad", pot=40, require_cover=True)
    state = table(4, [10, 100, 100, 100], pot=40, require_cover=True)
    state, _ = deal_cards(state, {0: "Ah As Ad", 1: "2c 3c 5d", 2: "2d 3d 5h", 3: "2h 3h 5s"})
    poor = view_for(state, 0)
    assert (poor.owed, poor.stacks[0]) == (40, 10)
    assert RuleOfThumbBot().declare(poor, random.Random(0)) is OUT
    assert RandomBot(p_in=1.0).declare(poor, random.Random(0)) is OUT
    assert RuleOfThumbBot().declare(view, random.Random(0)) is IN


def test_a_bot_without_cards_is_out() -> None:
    state = table(3, 20)
    view = view_for(state, 0)
    assert view.hand is None
    assert RuleOfThumbBot().declare(view, random.Random(0)) is OUT


@pytest.mark.parametrize("p_in", [0.0, 0.25, 0.5, 0.8, 1.0])
def test_random_bot_goes_in_with_p_in(p_in: float) -> None:
    bot = RandomBot(p_in=p_in)
    view = view_with("7c 5d 2h")
    rng = random.Random(42)
    ins = sum(bot.declare(view, rng) is IN for _ in range(4000))
    # binomial sd <= sqrt(4000 / 4) ~ 32 chips: 5 sd is 160
    assert abs(ins - 4000 * p_in) <= 160


def test_decisions_depend_only_on_the_view() -> None:
    # Two deals that differ only in the other seats' cards give the same view for seat 0,
    # so every bot decides the same with the same randomness.
    base = table(4, 30, pot=10)
    first, _ = deal_cards(base, {0: "Qh Qc 7d", 1: "2c 3c 4c", 2: "As Ad Ah", 3: "9s 8s 2d"})
    second, _ = deal_cards(base, {0: "Qh Qc 7d", 1: "5c 6d 8h", 2: "2s 3h 9c", 3: "Ks Js 3d"})
    assert view_for(first, 0) == view_for(second, 0)
    bots: list[Strategy] = [RuleOfThumbBot(), RandomBot(0.5), *bot_table(5)]
    for bot in bots:
        for seed in range(20):
            a = bot.declare(view_for(first, 0), random.Random(seed))
            b = bot.declare(view_for(second, 0), random.Random(seed))
            assert a is b


def test_rule_of_thumb_bot_is_deterministic_and_keeps_no_state_between_calls() -> None:
    bot = RuleOfThumbBot()
    view = view_with("Qh Qc 7d", pot=8)
    decisions = {bot.declare(view, random.Random(seed)) for seed in range(10)}
    assert decisions == {IN}
    assert bot == RuleOfThumbBot()


def test_bot_table() -> None:
    bots = bot_table(5)
    assert len(bots) == 5
    assert all(isinstance(b, Strategy) for b in bots)
    assert [b.name for b in bots] == ["Ava (cautious)", "Bruno (rule-of-thumb)", "Chen (loose)",
                                      "Dara (loose)",
                                      "Emil (cautious)"]
    styles = {b.style for b in bots if isinstance(b, RuleOfThumbBot)}
    assert styles == {STYLES["cautious"], STYLES["rule-of-thumb"], STYLES["loose"]}
    assert [b.name for b in bot_table(5, random.Random(3))] == [
        b.name for b in bot_table(5, random.Random(3))]
    assert len(bot_table(10)) == 10


def test_random_and_rule_bots_are_strategies() -> None:
    assert isinstance(RandomBot(), Strategy)
    assert isinstance(RuleOfThumbBot(), Strategy)
    assert dc_replace(RandomBot(), p_in=0.1).p_in == 0.1
