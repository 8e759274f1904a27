"""Exact sums over deals of disjoint hands (gutskit.strategy.joint) against brute force."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from gutskit.core.cards import parse_cards
from gutskit.core.rules import Rules
from gutskit.strategy.joint import deal_polynomial, is_exact
from gutskit.strategy.odds import ThresholdStrategy, hand_class_probabilities, odds
from gutskit.strategy.solver import game_model, in_gain
from gutskit.strategy.tables import HandTable, hand_table


def _table(k: int) -> HandTable:
    return hand_table(Rules(cards_per_hand=2 if k == 2 else 3).ranking)


def _sparse_weights(k: int, cards: list[int], seed: int) -> tuple[np.ndarray, ...]:
    """Random weights on the hands made of ``cards`` only (0 elsewhere), so brute force
    over those hands is every deal with a non-zero term."""
    t = _table(k)
    inside = np.isin(t.cards, cards).all(axis=1)
    rng = np.random.default_rng(seed)
    return tuple(rng.random(t.n_hands) * inside for _ in range(3))


def _brute(k: int, mine: tuple[int, ...], cards: list[int], w0: np.ndarray, w1: np.ndarray,
           g: np.ndarray | None, n: int) -> np.ndarray:
    t = _table(k)
    hands = [h for h in itertools.combinations(cards, k) if not set(h) & set(mine)]
    index = {h: t.index_of(h) for h in hands}
    extra = 1 if g is not None else 0
    coef = np.zeros(n + 1)

    def deals(used: frozenset[int], left: int) -> list[tuple[tuple[int, ...], ...]]:
        if left == 0:
            return [()]
        return [(h, *rest) for h in hands if not used & set(h)
                for rest in deals(used | set(h), left - 1)]

    for deal in deals(frozenset(), n + extra):
        poly = np.array([1.0])
        for h in deal[extra:]:
            poly = np.convolve(poly, [w0[index[h]], w1[index[h]]])
        if g is not None:
            poly = poly * g[index[deal[0]]]
        coef += poly
    total = 1
    for i in range(n + extra):
        total *= comb(52 - k - i * k, k)
    return coef / total


@pytest.mark.parametrize(("k", "n", "ghost"), [(2, 2, False), (2, 3, False), (2, 4, False),
                                               (2, 3, True), (3, 2, False), (3, 3, False),
                                               (3, 2, True)])
def test_exact_deal_polynomial_matches_brute_force(k: int, n: int, ghost: bool) -> None:
    cards = [0, 1, 4, 8, 12, 16, 20, 24, 28, 32][: 8 + k - 1 + int(ghost)]
    mine = (3, 7, 11)[:k]
    t = _table(k)
    w0, w1, g = _sparse_weights(k, cards, seed=n + 10 * k)
    assert is_exact(k, n, ghost)
    got = deal_polynomial(t.index_of(mine), [(w0, w1, g if ghost else None)], t, n)[0]
    assert got.exact and got.values.shape == (1, n + 1)
    want = _brute(k, mine, cards, w0, w1, g if ghost else None, n)
    assert np.all(want > 0)
    assert np.allclose(got.mean, want, rtol=1e-12, atol=0)


def test_deal_polynomial_counts_every_deal() -> None:
    # w0 = w1 = 1: coefficient j = C(n, j) (every deal counts once per subset).
    t = _table(2)
    ones = np.ones(t.n_hands)
    got = deal_polynomial(0, [(ones, ones, None)], t, 4)[0].mean
    assert np.allclose(got, [1, 4, 6, 4, 1], atol=1e-12)


@pytest.mark.parametrize("hand", ["7h 7d", "Ah 2c", "Js 5s"])
def test_heads_up_gain_is_the_solvers(hand: str) -> None:
    # Heads-up, the solver's independent-opponents formula is exact; the joint version
    # must agree with it to rounding for both models.
    rules = Rules(cards_per_hand=2)
    t = hand_table(rules.ranking)
    strategy = ThresholdStrategy(key=int(t.rank_keys[t.rank_at_percentile(0.5)]))
    cards = parse_cards(hand)
    o = odds(cards, players=2, rules=rules, strategy=strategy, pot=2)
    p = hand_class_probabilities(cards, strategy.in_weights(t), rules.ranking)
    for model in ("one_round", "recursive"):
        gain = float(in_gain(p, game_model(2, rules, model, 2))[0]) * 2
        assert o.ev[model] == pytest.approx(gain, abs=1e-12)
    assert o.ev_se is None
