"""Per-hand equilibria with 4-10 players (gutskit.strategy.multiway): exact joint gains
against brute-force enumeration and the 3-player exact solver, the sampled estimators
against exact figures, and the stored cells against the coach (issue 12)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from gutskit.core.cards import parse_cards
from gutskit.core.rules import Rules
from gutskit.strategy.certify import hand_gains, load_strategy
from gutskit.strategy.coach import advise_hand
from gutskit.strategy.model import Model
from gutskit.strategy.multiway import (
    _correction_samples,
    buckets,
    exact_gains,
    sampled_best_response,
    surrogate_gains,
)
from gutskit.strategy.tables import hand_table

FloatArray = npt.NDArray[np.float64]
TWO = Rules(cards_per_hand=2)


def _three_player_enumeration(f: FloatArray, hand: int, model: str) -> float:
    """Gain (pot units) of one hand against two opponents: every ordered pair of disjoint
    opponent hands and every pair of declarations, scored from the payoff table of
    gutskit.strategy.certify (recursive: all out +2/3, I win +4/3, tie 1/(j+1), beaten
    -2/3; one round: +1, +1, 1/(j+1), -1)."""
    table = hand_table(TWO.ranking)
    inc = np.zeros((table.n_hands, 52), dtype=np.int64)
    inc[np.arange(table.n_hands)[:, None], table.cards.astype(np.int64)] = 1
    others = np.flatnonzero(inc @ inc[hand] == 0)
    pair_ok = (inc[others] @ inc[others].T) == 0
    rel = np.sign(int(table.rank[hand]) - table.rank[others].astype(np.int64))
    p = f[others]
    total = 0.0
    for d1 in (0, 1):
        for d2 in (0, 1):
            w = np.outer(p if d1 else 1 - p, p if d2 else 1 - p) * pair_ok
            above = ((d1 == 1) & (rel < 0))[:, None] | ((d2 == 1) & (rel < 0))[None, :]
            ties = ((d1 == 1) & (rel == 0)).astype(int)[:, None] + (
                (d2 == 1) & (rel == 0)).astype(int)[None, :]
            anyone = (d1 + d2) > 0
            if model == "recursive":
                v = np.where(above, -2 / 3, np.where(ties > 0, 1.0 / (ties + 1),
                                                     4 / 3 if anyone else 2 / 3))
            else:
                v = np.where(above, -1.0, np.where(ties > 0, 1.0 / (ties + 1), 1.0))
            total += float((w * v).sum())
    return total / (1225 * 1128)


@pytest.mark.parametrize("model", ["recursive", "one_round"])
def test_exact_joint_gains_match_enumeration_with_three_players(model: Model) -> None:
    rng = np.random.default_rng(11)
    f = rng.random(1326) * (rng.random(1326) < 0.5)
    hands = np.array([0, 500, 1325])  # 3c 2c, a middle hand, As Ah (ties with pairs)
    gains = exact_gains(f, players=3, ranking=TWO.ranking, model=model, hands=hands)
    for h, g in zip(hands, gains, strict=True):
        assert g == pytest.approx(_three_player_enumeration(f, int(h), model), abs=1e-12)
    # and the whole table equals the 3-player solver's inclusion-exclusion
    every = exact_gains(f, players=3, ranking=TWO.ranking, model=model)
    assert np.abs(every - hand_gains(f, players=3, ranking=TWO.ranking,
                                     model=model)).max() < 1e-12


@pytest.mark.parametrize("model", ["recursive", "one_round"])
def test_surrogate_is_exact_heads_up(model: Model) -> None:
    rng = np.random.default_rng(2)
    f = rng.random(1326)
    sur = surrogate_gains(f, players=2, ranking=TWO.ranking, model=model)
    assert np.abs(sur - hand_gains(f, players=2, ranking=TWO.ranking,
                                   model=model)).max() < 1e-12


@pytest.mark.parametrize("players", [4, 5, 6])
@pytest.mark.parametrize("model", ["recursive", "one_round"])
def test_stored_two_card_cells_are_exact(players: int, model: Model) -> None:
    # certified from the stored exact gains: every hand in has gain >= 0, out <= 0
    s = load_strategy(2, players, model)
    assert s.certified == "exact" and s.standard_error is None
    f, g = np.asarray(s.probabilities), np.asarray(s.gains) / players
    assert s.exploitability == pytest.approx(
        players * float(np.mean(np.maximum(g, 0) - f * g)), abs=1e-15)
    assert s.exploitability == 0.0  # a pure strategy, every hand on its right side
    assert s.threshold_exploitability is not None and s.threshold_exploitability >= 0.0
    rows = np.array([0, 463, 1076, 1325])
    again = exact_gains(f, players=players, ranking=TWO.ranking, model=model, hands=rows)
    assert np.abs(again * players - g[rows] * players).max() < 1e-12


@pytest.mark.parametrize("hand", ["Kh Qd", "9h 9c", "Js 4d", "As 2c"])
def test_coach_agrees_with_the_exact_four_player_cell(hand: str) -> None:
    # the coach's EV (strategy.joint's Möbius sums through odds, tested against brute
    # force in test_joint.py) and the stored exact per-hand gains: two computations
    cell = load_strategy(2, 4, "recursive")
    cards = parse_cards(hand)
    a = advise_hand(cards, players=4, pot=4, rules=TWO)
    assert a.exact and a.ev is not None and a.source.startswith("certified per-hand")
    assert a.ev == pytest.approx(cell.ev_in_minus_out(cards), abs=1e-10)
    assert a.in_probability == cell.in_probability(cards)


def test_sampled_estimators_agree_with_exact_figures() -> None:
    # 2 cards, 5 players, recursive: exact gains are known; the sampled correction of a
    # bucket and the sampled best response's gain must be within 3 standard errors.
    players = 5
    model: Model = "recursive"
    table = hand_table(TWO.ranking)
    f = np.asarray(load_strategy(2, players, model).probabilities).copy()
    f[table.rank < 100] = 0.5  # a strategy with something to exploit
    exact = exact_gains(f, players=players, ranking=TWO.ranking, model=model)
    sur = surrogate_gains(f, players=players, ranking=TWO.ranking, model=model)
    rng = np.random.default_rng(4)
    bucket = buckets(table, 24)
    for coupled in (True, False):
        pick = np.flatnonzero(bucket == 3)
        h = pick[rng.integers(0, len(pick), size=4_000)]
        values = _correction_samples(f, sur, table, players, model, h, rng, coupled)
        se = values.std(ddof=1) / np.sqrt(len(values))
        assert abs(values.mean() - float(np.mean((exact - sur)[pick]))) < 3 * se
    gains_se = np.full(table.n_hands, 0.001)
    est, se, _ = sampled_best_response(f, exact, gains_se, players=players, table=table,
                                       model=model, rng=rng, bucket=bucket, deals=2_000)
    d = np.where(exact > 0.001, 1.0, np.where(exact < -0.001, 0.0, f))
    truth = players * float(np.mean((d - f) * exact))
    assert truth > 0.01 and abs(est - truth) < 3 * se


SAMPLED_CELLS = [(2, 7), (2, 8), (2, 9), (2, 10), (3, 4), (3, 5), (3, 6), (3, 7), (3, 8), (3, 9),
                 (3, 10)]
"""The sampled cells: stored per hand with per-hand standard errors in both models
(solved with :mod:`gutskit.strategy.multiway`)."""


@pytest.mark.parametrize(("cards", "players"), SAMPLED_CELLS)
@pytest.mark.parametrize("model", ["recursive", "one_round"])
def test_every_sampled_cell_is_stored_per_hand(cards: int, players: int, model: Model
                                               ) -> None:
    # no stored cell is the older bisection threshold any more (its method said
    # "threshold (bisection solver) per hand", without per-hand standard errors)
    cell = load_strategy(cards, players, model)
    assert cell.certified == "sampled" and cell.standard_error is not None
    assert cell.method.startswith("per hand: smoothed best response"), cell.method
    assert cell.gains_standard_error is not None and cell.seconds > 0
    assert float(np.min(cell.gains_standard_error)) > 0


@pytest.mark.parametrize(("cards", "players"), SAMPLED_CELLS)
def test_coach_agrees_with_the_stored_sampled_cells(cards: int, players: int) -> None:
    # issue 12: the coach / guts advise estimate a hand's gain against the stored
    # equilibrium on their own sampled deals (strategy.odds); the stored per-hand gains
    # (surrogate + a sampled correction pooled by bucket) must agree within their errors,
    # and the sign must match the stored decision where the gain is clear.
    cell = load_strategy(cards, players, "recursive")
    assert cell.certified == "sampled" and cell.standard_error is not None
    assert cell.gains_standard_error is not None
    rules = Rules(cards_per_hand=2) if cards == 2 else Rules(cards_per_hand=3)
    hands = (["Kh Qd", "9h 9c", "As 2c"] if cards == 2
             else ["Kh Qd 6c", "Qs Qh 7d", "9h 9c Td"])
    for hand in hands:
        c = parse_cards(hand)
        a = advise_hand(c, players=players, pot=players, rules=rules, deals=6_000)
        assert a.ev is not None and a.exact == (a.ev_se is None)
        assert a.source == (
            "per-hand equilibrium, sampled (an estimate, not certified)")
        advise_se = 0.0 if a.ev_se is None else a.ev_se  # 3 cards, 4 players: exact
        stored, stored_se = cell.ev_in_minus_out(c), cell.ev_standard_error(c)
        assert stored_se is not None
        assert abs(a.ev - stored) < 4 * float(np.hypot(advise_se, stored_se)), hand
        p = cell.in_probability(c)
        if stored > 4 * stored_se:
            assert p > 0.99, hand
        if stored < -4 * stored_se:
            assert p < 0.01, hand


def test_the_king_queen_six_example() -> None:
    # the lead's example: guts advise 'Kh Qd 6c' --players 5 --pot 5 said IN +0.122 +- 0.013
    # against the bisection threshold, while the stored (threshold) equilibrium said out.
    # Against the per-hand equilibrium (more weak hands with blockers go in) the gain is
    # clearly negative and the equilibrium stays out: the two agree.
    cell = load_strategy(3, 5, "recursive")
    c = parse_cards("Kh Qd 6c")
    a = advise_hand(c, players=5, pot=5, rules=Rules(), deals=20_000)
    assert a.ev is not None and a.ev_se is not None and a.ev < -4 * a.ev_se
    assert cell.in_probability(c) == 0.0 == a.in_probability
    stored_se = cell.ev_standard_error(c)
    assert stored_se is not None
    assert abs(a.ev - cell.ev_in_minus_out(c)) < 3 * float(np.hypot(a.ev_se, stored_se))
