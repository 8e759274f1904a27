"""The threshold, equilibrium and exploitative bots, and bots as fast-simulator policies."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gutskit.core.cards import card_name, parse_cards
from gutskit.core.engine import deal, deal_from_rng, declare_all, new_session
from gutskit.core.events import Declaration
from gutskit.core.rules import DEFAULT_RULES, Rules
from gutskit.core.views import SeatView, joint_views, view_for
from gutskit.strategy.bots import RandomBot, RuleOfThumbBot, Strategy
from gutskit.strategy.certify import load_strategy
from gutskit.strategy.solver import equilibrium
from gutskit.strategy.strategies import (
    EquilibriumBot,
    ExploitativeBot,
    ThresholdBot,
    UnknownBotError,
    fast_policy,
    make_bot,
)
from gutskit.strategy.tables import hand_table

IN, OUT = Declaration.IN, Declaration.OUT


def _view(hands: tuple[str, ...], rules: Rules = DEFAULT_RULES, seat: int = 0) -> SeatView:
    names = [f"p{i}" for i in range(len(hands))]
    state = new_session(names, 1000, rules=rules)
    state, _ = deal(state, tuple(parse_cards(h) for h in hands))
    return view_for(state, seat)


def test_threshold_bot_uses_the_table_percentile() -> None:
    two = Rules(cards_per_hand=2, suit_tiebreak="none")
    table = hand_table(two.ranking)
    tens = float(table.rank_percentile[table.rank_of_key(
        int(table.code_to_key[parse_cards("Th")[0] * 52 + parse_cards("Tc")[0]]))])
    rng = random.Random(0)
    view = _view(("Th Tc", "2c 3d"), two)
    assert ThresholdBot(tens).declare(view, rng) is IN
    assert ThresholdBot(tens + 1e-9).declare(view, rng) is OUT
    # pair of tens beats 1,326 - 5 * 6 (JJ..AA) - 6 (TT) hands... it beats all 1,248 high
    # card hands and 8 * 6 = 48 lower pairs, ties 6: (1296 + 3) / 1326
    assert tens == pytest.approx((1248 + 48 + 3) / 1326)


def test_equilibrium_bot_plays_the_solver_threshold() -> None:
    # four players, no ace-low straight: no stored per-hand cell (they hold the default
    # ranking), so the threshold solution
    rules = Rules(ace_low_straight=False)
    eq = equilibrium(cards_per_hand=3, players=4, rules=rules)
    table = hand_table(rules.ranking)
    above = int(np.flatnonzero(table.keys > eq.threshold_key)[0])
    below = int(np.flatnonzero(table.keys < eq.threshold_key)[-1])
    bot = EquilibriumBot()
    rng = random.Random(0)
    fmt = " ".join

    def deal3(i: int) -> tuple[str, str, str, str]:
        mine = [int(c) for c in table.cards[i]]
        rest = [c for c in range(52) if c not in mine]
        return (fmt(card_name(c) for c in mine), fmt(card_name(c) for c in rest[:3]),
                fmt(card_name(c) for c in rest[3:6]), fmt(card_name(c) for c in rest[6:9]))

    strong = _view(deal3(above), rules)
    weak = _view(deal3(below), rules)
    assert bot.in_probability(strong) == 1.0 and bot.declare(strong, rng) is IN
    assert bot.in_probability(weak) == 0.0 and bot.declare(weak, rng) is OUT
    policy = fast_policy(bot, rules, 4)
    assert policy is not None
    assert policy.in_prob[0, table.rank[above]] == 1.0
    assert policy.in_prob[0, table.rank[below]] == 0.0


def test_equilibrium_bot_plays_the_sampled_per_hand_cell_beyond_exact_reach() -> None:
    # five players, 3 cards (default rules): the stored sampled per-hand cell, hand by hand,
    # the same cell the coach uses; no per-rank fast policy can express it
    cell = load_strategy(3, 5, "recursive")
    assert cell.certified == "sampled"
    bot = EquilibriumBot()
    table = hand_table(Rules().ranking)
    probabilities = []
    for hand in ("Kh Qd 6c", "As Ad 2c", "7c 5d 2h", "Qs Jh 9d"):
        mine = parse_cards(hand)
        rest = [c for c in range(52) if c not in mine]
        others = [" ".join(card_name(c) for c in rest[3 * i:3 * i + 3]) for i in range(4)]
        p = bot.in_probability(_view((hand, *others)))
        assert p == cell.in_probability(mine)
        probabilities.append(p)
    assert probabilities[0] == 0.0  # K♥ Q♦ 6♣ stays out (guts advise: gain -0.25 chips)
    assert probabilities[1] == 1.0  # aces are in
    assert fast_policy(bot, Rules(), 5) is None
    assert table.n_hands == 22100


TWO = Rules(cards_per_hand=2)


def test_equilibrium_bot_plays_the_stored_per_hand_strategy() -> None:
    # One round, heads-up (certify's exact cell, 2-card): J♠ 6♥ is below the threshold
    # (jack-seven high) yet goes in (the J♠ blocks J♠-7..J♠-T); T♥ 7♠ stays out.
    cell = load_strategy(2, 2, "one_round")
    assert cell.in_probability(parse_cards("Js 6h")) == 1.0
    assert cell.in_probability(parse_cards("Th 7s")) == 0.0
    eq = equilibrium(cards_per_hand=2, players=2, model="one_round")
    table = hand_table(TWO.ranking)
    key = int(table.code_to_key[parse_cards("Js")[0] * 52 + parse_cards("6h")[0]])
    assert eq.in_probability(key) == 0.0  # the threshold would stay out
    bot = EquilibriumBot(model="one_round")
    for seed in range(20):
        rng = random.Random(seed)
        assert bot.declare(_view(("Js 6h", "2c 3d"), TWO), rng) is IN
        assert bot.declare(_view(("Th 7s", "2c 3d"), TWO), rng) is OUT
    # Recursive, three players: K♥ 4♥ is above the threshold (king-four high) and stays out.
    three = load_strategy(2, 3, "recursive")
    assert three.in_probability(parse_cards("Kh 4h")) == 0.0
    view = _view(("Kh 4h", "2c 3d", "5c 6d"), TWO)
    assert EquilibriumBot().in_probability(view) == 0.0
    assert all(EquilibriumBot().declare(view, random.Random(s)) is OUT for s in range(20))


@pytest.mark.parametrize(("hands", "stored"), [
    (("Js 5h", "2c 3d"), 0.5),  # heads-up recursive: J♠ 5♥ mixes 1/2
    (("Ks 3d", "2c 4c", "5c 6d"), 0.8416565164434409),  # three players: K♠ 3♦
])
def test_equilibrium_bot_mixes_with_the_stored_probability(hands: tuple[str, ...],
                                                            stored: float) -> None:
    view = _view(hands, TWO)
    cell = load_strategy(2, len(hands), "recursive")
    p = cell.in_probability(parse_cards(hands[0]))
    assert p == pytest.approx(stored, abs=1e-12)
    bot = EquilibriumBot()
    assert bot.in_probability(view) == p
    n = 4000
    rng = random.Random(7)
    calls = [bot.declare(view, rng) for _ in range(n)]
    freq = sum(c is IN for c in calls) / n
    se = (p * (1 - p) / n) ** 0.5  # binomial standard error: 0.0079 and 0.0058
    assert abs(freq - p) <= 4 * se
    # deterministic under a seed
    again = random.Random(7)
    assert [bot.declare(view, again) for _ in range(n)] == calls


def test_fast_policy_refuses_a_per_hand_equilibrium() -> None:
    # Per-hand strategies differ within a rank (K♠ 3♦ mixes at 0.84, K♥ 3♦ does not),
    # which a FastPolicy by rank cannot express: fast_policy says None, explicitly.
    cell = load_strategy(2, 3, "recursive")
    probs = {cell.in_probability(parse_cards(h)) for h in ("Ks 3d", "Kh 3d")}
    assert len(probs) == 2
    bot = EquilibriumBot()
    assert fast_policy(bot, TWO, 2) is None
    assert fast_policy(bot, TWO, 3) is None
    assert fast_policy(bot, Rules(), 3) is None
    assert fast_policy(bot, TWO, 4) is None  # the stored exact 4-player cell, per hand
    no_ace_low = Rules(cards_per_hand=2, ace_low_straight=False)  # no stored cell
    four = fast_policy(bot, no_ace_low, 4)  # the threshold, one probability per rank
    assert four is not None
    assert four.in_prob.shape == (1, hand_table(no_ace_low.ranking).n_ranks)
    # rules the certified cells do not cover (a pot cap) still fall back as before
    assert fast_policy(bot, Rules(cards_per_hand=2, pot_cap=50), 2) is None


def _exploitative_in_rate(opponent_percentile: float, players: int, rounds: int = 300
                          ) -> float:
    bots = [ExploitativeBot()] + [ThresholdBot(opponent_percentile)] * (players - 1)
    state = new_session(["me", "a", "b"][:players], 10**7, rules=Rules())
    rng = random.Random(5)
    ins = 0
    for r in range(rounds):
        state, _ = deal_from_rng(state, rng)
        calls = {s: bots[s].declare(v, rng) for s, v in joint_views(state).items()}
        if r >= rounds // 2:
            ins += calls[0] is IN
        state, _ = declare_all(state, calls)
    return ins / (rounds - rounds // 2)


def test_exploitative_bot_learns_and_responds() -> None:
    # opponents who never go in: every pot is an uncontested win, so it goes in every time
    assert _exploitative_in_rate(1.01, 3) == 1.0
    # heads-up against an always-in opponent the pot stays 2: in pays when
    # h * 2 > (1 - h) * 2 * (1 - 1/2), i.e. above the 1/3 percentile: in-rate about 2/3
    loose = _exploitative_in_rate(0.0, 2)
    assert 0.55 < loose < 0.78
    bot = ExploitativeBot()
    # what it learnt about an always-in opponent: threshold near 0
    bots: list[Strategy] = [bot, ThresholdBot(0.0), ThresholdBot(0.9)]
    state = new_session(["me", "loose", "tight"], 10**7)
    rng = random.Random(1)
    for _ in range(200):
        state, _ = deal_from_rng(state, rng)
        state, _ = declare_all(state, {s: bots[s].declare(v, rng)
                                       for s, v in joint_views(state).items()})
    assert bot.threshold_of("loose", 1) < 0.1
    assert 0.8 < bot.threshold_of("tight", 1) <= 0.95
    assert bot.threshold_of("stranger", 0) == pytest.approx(0.7)  # the prior


def test_fast_policies_of_bots() -> None:
    rules = Rules()
    assert fast_policy(ExploitativeBot(), rules, 4) is None
    rnd = fast_policy(RandomBot(0.25), rules, 4)
    assert rnd is not None and np.all(rnd.in_prob == 0.25)
    rot = fast_policy(RuleOfThumbBot(), rules, 4)
    assert rot is not None and rot.pot_edges.size > 3
    # the rule of thumb is looser at a 1-2 chip pot than at a 50-chip pot
    small, big = rot.in_prob[rot.rows_for(np.array([2, 50]))]
    assert small.sum() > big.sum()


def test_make_bot() -> None:
    assert isinstance(make_bot("threshold:0.7"), ThresholdBot)
    assert make_bot("cautious").name == "cautious"
    for bad, message in (("nope", "unknown bot"), ("threshold:x", "'x' .* is not a number"),
                         ("threshold:2", "'2' .* must be from 0 to 1"),
                         ("random:1", "takes no argument")):
        with pytest.raises(UnknownBotError, match=message):
            make_bot(bad)


def test_make_bot_names_an_empty_percentile_and_an_unknown_name_with_an_argument() -> None:
    """fresh10: ``threshold:`` was accepted as a bot named "threshold:" (0.5), and
    ``THRESHOLD:70%`` was said to take no argument."""
    with pytest.raises(UnknownBotError) as empty:
        make_bot("threshold:")
    assert str(empty.value) == (
        "'threshold:' has no percentile after 'threshold:' (from 0 to 1 or 0% to 100%, e.g. "
        "threshold:0.7 or threshold:70%; plain 'threshold' is 0.5)")
    with pytest.raises(UnknownBotError) as unknown:
        make_bot("THRESHOLD:70%")
    assert str(unknown.value) == (
        "unknown bot 'THRESHOLD:70%' (known: equilibrium, rule-of-thumb, cautious, loose, "
        "exploitative, random, threshold)")
    assert isinstance(make_bot("threshold"), ThresholdBot)
