"""Exact odds: inclusion-exclusion card removal checked against brute-force enumeration."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import numpy.typing as npt
import pytest

from gutskit.core.cards import parse_cards
from gutskit.core.evaluation import Ranking, evaluate
from gutskit.core.rules import Rules
from gutskit.strategy.odds import (
    MONTE_CARLO_METHOD,
    OddsError,
    RuleOfThumbStrategy,
    ThresholdStrategy,
    disjoint_sums,
    odds,
)
from gutskit.strategy.tables import hand_table

TWO = Rules(cards_per_hand=2)
THREE = Rules()


def _masks(ranking: Ranking) -> npt.NDArray[np.uint64]:
    cards = hand_table(ranking).cards.astype(np.uint64)
    one = np.uint64(1)
    masks = np.zeros(cards.shape[0], dtype=np.uint64)
    for j in range(cards.shape[1]):
        masks |= one << cards[:, j]
    return masks


@pytest.mark.parametrize("ranking", [TWO.ranking, THREE.ranking], ids=["2card", "3card"])
def test_disjoint_sums_count_every_opponent_hand(ranking: Ranking) -> None:
    t = hand_table(ranking)
    above, tie, below = disjoint_sums(np.ones(t.n_hands), ranking)
    k = ranking.cards_per_hand
    assert np.all(above + tie + below == comb(52 - k, k))  # 1,225 or 18,424


@pytest.mark.parametrize("ranking", [TWO.ranking, THREE.ranking], ids=["2card", "3card"])
def test_disjoint_sums_match_direct_sums(ranking: Ranking) -> None:
    t = hand_table(ranking)
    rng = np.random.default_rng(7)
    weights = rng.random(t.n_hands)
    above, tie, below = disjoint_sums(weights, ranking)
    masks = _masks(ranking)
    for h in rng.integers(0, t.n_hands, 25):
        free = (masks & masks[h]) == 0
        r = t.rank
        assert above[h] == pytest.approx((weights * free * (r > r[h])).sum(), rel=1e-12)
        assert tie[h] == pytest.approx((weights * free * (r == r[h])).sum(), abs=1e-9)
        assert below[h] == pytest.approx((weights * free * (r < r[h])).sum(), rel=1e-12)


def test_hand_worked_heads_up_two_cards() -> None:
    # 7h 7d against one opponent who is always in: 1,225 hands. Better: pairs of eights
    # to aces, 7 ranks x 6 = 42. Equal: 7c 7s (pairs do not break ties by suit). Worse: the
    # other 1,182.
    o = odds(parse_cards("7h 7d"), players=2, rules=TWO, strategy=ThresholdStrategy.everyone_in())
    assert o.exact
    assert o.in_count == pytest.approx((0.0, 1.0), abs=1e-15)
    assert o.win[1] == pytest.approx(1182 / 1225)
    assert o.tie[1] == pytest.approx(1 / 1225)
    assert o.lose[1] == pytest.approx(42 / 1225)


def test_hand_worked_threshold_strategy() -> None:
    # Opponent in with a pair of tens or better (5 ranks x 6 = 30 hands; none shares a
    # card with 7h 7d). P(opponent in) = 30 / 1225, and then every one of them beats us.
    o = odds(parse_cards("7h 7d"), players=2, rules=TWO,
             strategy=ThresholdStrategy(key=evaluate(parse_cards("Tc Td"), TWO.ranking).key))
    assert o.in_count[1] == pytest.approx(30 / 1225)
    assert o.lose[1] == pytest.approx(1.0)
    assert o.win[0] == 1.0
    # the seeds' rule of thumb is the same strategy in two-card Guts
    r = odds(parse_cards("7h 7d"), players=2, rules=TWO, strategy=RuleOfThumbStrategy())
    assert r.in_count == pytest.approx(o.in_count)


def _brute_force(hand: str, rules: Rules, weights: npt.NDArray[np.float64], players: int,
                 ghost: bool = False) -> dict[str, npt.NDArray[np.float64]]:
    """Enumerate every (ordered) pair of opponent hands / opponent + ghost."""
    t = hand_table(rules.ranking)
    masks = _masks(rules.ranking)
    me = t.index_of(parse_cards(hand))
    r = t.rank
    free = np.flatnonzero((masks & masks[me]) == 0)
    fm = masks[free]
    disjoint = (fm[:, None] & fm[None, :]) == 0  # (m, m) pairs of disjoint free hands
    rel = np.sign(r[free] - r[me])  # +1 above, 0 tie, -1 below
    w = weights[free]
    n_k = players
    win = np.zeros(n_k)
    tie = np.zeros(n_k)
    lose = np.zeros(n_k)
    count = np.zeros(n_k)
    total = disjoint.sum()
    if not ghost:  # two opponents
        for i1, in1 in ((0, 1 - w), (1, w)):
            for i2, in2 in ((0, 1 - w), (1, w)):
                pw = in1[:, None] * in2[None, :] * disjoint
                k = i1 + i2
                a1 = (rel > 0)[:, None] & bool(i1)
                a2 = (rel > 0)[None, :] & bool(i2)
                t1 = (rel == 0)[:, None] & bool(i1)
                t2 = (rel == 0)[None, :] & bool(i2)
                any_above = a1 | a2
                any_tie = (t1 | t2) & ~any_above
                count[k] += pw.sum()
                lose[k] += (pw * any_above).sum()
                tie[k] += (pw * any_tie).sum()
                win[k] += (pw * ~(any_above | any_tie)).sum()
    else:  # one opponent and the ghost (always "in"; a tie with the ghost loses)
        for i1, in1 in ((0, 1 - w), (1, w)):
            pw = in1[:, None] * disjoint
            ghost_ok = (rel < 0)[None, :]
            a1 = (rel > 0)[:, None] & bool(i1)
            t1 = (rel == 0)[:, None] & bool(i1)
            count[i1] += pw.sum()
            lost = a1 | ~ghost_ok
            lose[i1] += (pw * lost).sum()
            tie[i1] += (pw * (t1 & ~lost)).sum()
            win[i1] += (pw * ~(lost | t1)).sum()
    return {"count": count / total, "win": win / total, "tie": tie / total,
            "lose": lose / total}


@pytest.mark.parametrize("hand", ["7h 7d", "Ah Kd", "9c 8c", "2c 3d", "Ac As"])
def test_three_way_two_cards_matches_enumeration_of_all_opponent_pairs(hand: str) -> None:
    t = hand_table(TWO.ranking)
    # a mixed strategy: in with a pair or ace-x, and with king-x half the time
    keys = t.keys
    weights = np.where(keys >= evaluate(parse_cards("Ac 2d"), TWO.ranking).key, 1.0,
                       np.where(keys >= evaluate(parse_cards("Kc 2d"), TWO.ranking).key,
                                0.5, 0.0))

    class Mixed(ThresholdStrategy):
        def in_weights(self, table: object) -> npt.NDArray[np.float64]:
            return weights

    o = odds(parse_cards(hand), players=3, rules=TWO, strategy=Mixed(key=0))
    assert o.exact
    b = _brute_force(hand, TWO, weights, 3)
    assert np.allclose(o.in_count, b["count"], atol=1e-12)
    for k in range(3):
        if b["count"][k] > 0:
            assert o.win[k] * o.in_count[k] == pytest.approx(b["win"][k], abs=1e-12)
            assert o.tie[k] * o.in_count[k] == pytest.approx(b["tie"][k], abs=1e-12)
            assert o.lose[k] * o.in_count[k] == pytest.approx(b["lose"][k], abs=1e-12)


@pytest.mark.parametrize("hand", ["7h 7d", "Qh Jd", "5c 4c"])
def test_ghost_hand_heads_up_matches_enumeration(hand: str) -> None:
    rules = Rules(cards_per_hand=2, ghost_hand=True)
    t = hand_table(rules.ranking)
    weights = (t.percentile > 0.6).astype(np.float64)

    class Top40(ThresholdStrategy):
        def in_weights(self, table: object) -> npt.NDArray[np.float64]:
            return weights

    o = odds(parse_cards(hand), players=2, rules=rules, strategy=Top40(key=0))
    assert o.exact and o.ghost_hand
    b = _brute_force(hand, rules, weights, 2, ghost=True)
    for k in range(2):
        assert o.in_count[k] == pytest.approx(b["count"][k], abs=1e-12)
        assert o.win[k] * o.in_count[k] == pytest.approx(b["win"][k], abs=1e-12)
        assert o.lose[k] * o.in_count[k] == pytest.approx(b["lose"][k], abs=1e-12)


def test_three_card_heads_up_matches_enumeration() -> None:
    hand = parse_cards("Qs Qh 7d")
    t = hand_table(THREE.ranking)
    key = evaluate(hand, THREE.ranking).key
    o = odds(hand, players=2, rules=THREE, strategy=ThresholdStrategy(
        key=evaluate(parse_cards("9c 9d 2h"), THREE.ranking).key))
    above = tie = below = out = 0
    threshold = evaluate(parse_cards("9c 9d 2h"), THREE.ranking).key
    for combo in itertools.combinations(sorted(set(range(52)) - set(hand)), 3):
        k = int(t.code_to_key[(combo[0] * 52 + combo[1]) * 52 + combo[2]])
        if k < threshold:
            out += 1
        elif k > key:
            above += 1
        elif k == key:
            tie += 1
        else:
            below += 1
    total = comb(49, 3)
    assert above + tie + below + out == total == 18424
    assert o.in_count[0] == pytest.approx(out / total)
    assert o.lose[1] * o.in_count[1] == pytest.approx(above / total)
    assert o.tie[1] * o.in_count[1] == pytest.approx(tie / total)
    assert o.win[1] * o.in_count[1] == pytest.approx(below / total)


def test_four_players_two_cards_all_in_matches_enumeration_of_pair_triples() -> None:
    # Opponents in with a pair only (78 hands, 72 of them without the Ah or the Kd).
    # P(all three in) is a sum over ordered triples of disjoint pairs: enumerate them.
    t = hand_table(TWO.ranking)
    pairs = t.cards[:, 0] // 4 == t.cards[:, 1] // 4
    weights: npt.NDArray[np.float64] = pairs.astype(np.float64)

    class Pairs(ThresholdStrategy):
        def in_weights(self, table: object) -> npt.NDArray[np.float64]:
            return weights

    mine = parse_cards("Ah Kd")
    o = odds(mine, players=4, rules=TWO, strategy=Pairs(key=0))
    assert o.exact and o.standard_error is None
    masks = _masks(TWO.ranking)
    mine_mask = np.uint64(sum(1 << c for c in mine))
    idx = np.flatnonzero(pairs & ((masks & mine_mask) == 0))
    m = masks[idx]
    count = 0
    for a in range(len(idx)):
        for b in range(len(idx)):
            if m[a] & m[b]:
                continue
            count += int(((m & (m[a] | m[b])) == 0).sum())
    total = comb(50, 2) * comb(48, 2) * comb(46, 2)
    assert o.in_count[3] == pytest.approx(count / total, abs=1e-12)
    assert abs(sum(o.in_count) - 1.0) < 1e-12


def test_beyond_exact_reach_is_monte_carlo_with_standard_errors() -> None:
    # 3-card, five players: four opponents, beyond exact reach. Every figure has a
    # standard error, and P(k in) sums to one deal by deal.
    t = hand_table(THREE.ranking)
    strategy = ThresholdStrategy(key=int(t.rank_keys[t.rank_at_percentile(0.8)]))
    o = odds(parse_cards("Qs Qh 7d"), players=5, rules=THREE, strategy=strategy, deals=20_000)
    assert not o.exact
    assert o.method == MONTE_CARLO_METHOD.format(deals=20_000, seed=20240601)
    assert o.standard_error is not None
    assert abs(sum(o.in_count) - 1.0) < 1e-12
    assert all(0 < s < 0.01 for s in o.standard_error["in_count"])
    assert 0 < o.standard_error["win_total"] < 0.01
    data = o.to_dict()
    assert data["exact"] is False and data["win_se"] > 0
    assert all(row["probability_se"] > 0 for row in data["opponents_in"])
    # the same query exactly at four players agrees with its Monte Carlo twin
    exact = odds(parse_cards("Qs Qh 7d"), players=4, rules=THREE, strategy=strategy)
    assert exact.exact
    from gutskit.strategy import joint

    sampled = joint._sampled(  # the estimator used beyond reach, at a size we can check
        hand_table(THREE.ranking).index_of(tuple(parse_cards("Qs Qh 7d"))),
        [(1 - strategy.in_weights(t), strategy.in_weights(t), None)], t, 3, 20_000, 1)[0]
    mean = sampled.values.mean(axis=0)
    se = sampled.values.std(axis=0, ddof=1) / np.sqrt(20_000)
    assert np.all(np.abs(mean - np.array(exact.in_count)) < 5 * se + 1e-12)


def test_independence_error_is_what_exactness_removes() -> None:
    # The old independent-opponents formula vs exact joint card removal, 2-card, four
    # players, opponents in at the 70th percentile: the reviewer's "up to 0.022".
    t = hand_table(TWO.ranking)
    strategy = ThresholdStrategy(key=int(t.rank_keys[t.rank_at_percentile(0.7)]))
    from gutskit.strategy.odds import hand_class_probabilities

    worst = 0.0
    for hand in ("Ah Kd", "7h 7d", "Tc 9c", "3c 2d", "Ks Kd"):
        exact = odds(parse_cards(hand), players=4, rules=TWO, strategy=strategy)
        assert exact.exact
        p = hand_class_probabilities(parse_cards(hand), strategy.in_weights(t), TWO.ranking)
        o = float(p.out)
        indep = [comb(3, j) * (1 - o) ** j * o ** (3 - j) for j in range(4)]
        worst = max(worst, *(abs(a - b) for a, b in zip(exact.in_count, indep, strict=True)))
    assert 0.005 < worst < 0.03


def test_bad_input() -> None:
    with pytest.raises(OddsError, match=r"players must be 2\.\.10"):
        odds(parse_cards("Ah Kd"), players=11, rules=TWO)
    with pytest.raises(OddsError, match="mixing probability"):
        ThresholdStrategy(key=0, mix=1.5)
