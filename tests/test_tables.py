"""Hand tables agree exactly with gutskit.core.evaluation on every hand."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from gutskit.core.evaluation import Ranking, evaluate
from gutskit.strategy.bots import hand_percentile
from gutskit.strategy.tables import (
    batch_keys,
    batch_percentiles,
    batch_ranks,
    combination_index,
    hand_table,
)

RANKINGS = [
    Ranking(cards_per_hand=2),
    Ranking(cards_per_hand=2, suit_tiebreak="none"),
    Ranking(cards_per_hand=3),
    Ranking(cards_per_hand=3, suit_tiebreak="none", ace_low_straight=False),
    Ranking(cards_per_hand=3, suit_tiebreak="always"),
]


@pytest.mark.parametrize("ranking", RANKINGS, ids=repr)
def test_every_hand_matches_evaluate(ranking: Ranking) -> None:
    t = hand_table(ranking)
    k = ranking.cards_per_hand
    assert t.n_hands == comb(52, k)
    expected = np.array([evaluate(tuple(int(c) for c in row), ranking).key for row in t.cards])
    assert np.array_equal(t.keys, expected)
    # combination index <-> cards, and every card order of each hand
    assert [combination_index(tuple(int(c) for c in row)) for row in t.cards[:50]] == list(
        range(50))
    for perm in itertools.permutations(range(k)):
        shuffled = t.cards[:, perm]
        assert np.array_equal(batch_keys(shuffled, t), expected)
        assert np.array_equal(batch_ranks(shuffled, t), t.rank)
    # dense ranks order the keys, 0 = worst
    assert t.rank.min() == 0 and t.rank.max() == t.n_ranks - 1
    assert np.array_equal(t.rank_keys[t.rank], t.keys)
    assert np.all(np.diff(t.rank_keys) > 0)
    assert int(t.rank_count.sum()) == t.n_hands


def test_distinct_strength_counts() -> None:
    # RULES.md / issue 2: 91 and 741 distinct strengths without suit tie-breaks
    assert hand_table(Ranking(cards_per_hand=2, suit_tiebreak="none")).n_ranks == 91
    assert hand_table(Ranking(cards_per_hand=3, suit_tiebreak="none")).n_ranks == 741


@pytest.mark.parametrize("ranking", [Ranking(cards_per_hand=2), Ranking(cards_per_hand=3)],
                         ids=repr)
def test_percentile_matches_bots(ranking: Ranking) -> None:
    t = hand_table(ranking)
    rows = t.cards[:: max(1, t.n_hands // 500)]
    ours = batch_percentiles(rows, t)
    theirs = [hand_percentile(tuple(int(c) for c in row), ranking) for row in rows]
    assert np.allclose(ours, theirs, rtol=0, atol=1e-12)
    # by hand: 2-card aces beat 1320 of 1326 hands and tie 6 (incl. itself) -> (1320+3)/1326
    two = hand_table(Ranking(cards_per_hand=2, suit_tiebreak="none"))
    aces = two.rank_percentile[-1]
    assert two.rank_at_percentile(aces) == two.n_ranks - 1
    assert two.rank_at_percentile(0.999) == two.n_ranks
    assert aces == pytest.approx((1320 + 3) / 1326)


def test_lookups_and_errors() -> None:
    t = hand_table(Ranking(cards_per_hand=3))
    assert t.index_of([51, 50, 49]) == t.index_of((49, 51, 50)) == 22099
    assert batch_keys(np.array([[5, 5, 9]]), t).tolist() == [-1]
    with pytest.raises(ValueError, match="repeats a card"):
        t.index_of([3, 3, 4])
    with pytest.raises(ValueError, match="expected 3"):
        t.index_of([3, 4])
    with pytest.raises(ValueError, match="not a card code"):
        t.index_of([3, 4, 52])
    with pytest.raises(ValueError, match="shape"):
        batch_keys(np.zeros((4, 2), dtype=int), t)
    with pytest.raises(ValueError, match="repeats a card"):
        batch_percentiles(np.array([[1, 1, 2]]), t)
    with pytest.raises(ValueError, match="no hand has strength key"):
        t.rank_of_key(-5)
    assert t.rank_of_key(int(t.keys[0])) == int(t.rank[0])
    assert hand_table(Ranking(cards_per_hand=3)) is t  # cached
    with pytest.raises(ValueError):
        t.keys[0] = 1  # read-only
