"""Certified per-hand equilibria (gutskit.strategy.certify): exact gains against brute force,
exact heads-up solutions, the reviewer's numbers (issue 12), stored solutions."""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt
import pytest

from gutskit.core.cards import parse_cards
from gutskit.core.rules import Rules
from gutskit.strategy.certify import (
    CertifyError,
    certified_rules,
    exploitability,
    hand_gains,
    hand_token,
    round_value,
    solve_exact,
)
from gutskit.strategy.solver import equilibrium
from gutskit.strategy.tables import hand_table

FloatArray = npt.NDArray[np.float64]
TWO = Rules(cards_per_hand=2)


@cache
def _two_card_matrices() -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    table = hand_table(TWO.ranking)
    inc = np.zeros((table.n_hands, 52), dtype=np.int64)
    inc[np.arange(table.n_hands)[:, None], table.cards.astype(np.int64)] = 1
    disjoint = (inc @ inc.T) == 0
    rank = table.rank.astype(np.int64)
    return disjoint, np.sign(rank[:, None] - rank[None, :])


def _heads_up_brute(f: FloatArray, model: str) -> FloatArray:
    """Gain of in over out for every hand: an explicit sum over all 1,225 disjoint
    opponent hands (pot units), straight from the payoff table."""
    disjoint, s = _two_card_matrices()
    if model == "recursive":  # out: +1/2, in and beats me: -1/2, tie: 1/2, I beat: 3/2
        per = (1 - f)[None, :] * 0.5 + f[None, :] * np.select([s < 0, s == 0], [-0.5, 0.5], 1.5)
    else:  # out: +1 (uncontested), in: -1 / 1/2 / +1
        per = (1 - f)[None, :] * 1.0 + f[None, :] * np.select([s < 0, s == 0], [-1.0, 0.5], 1.0)
    return np.asarray((per * disjoint).sum(axis=1) / 1225.0)


def _three_brute(f: FloatArray, hand: int, model: str) -> float:
    """Gain of one hand against two opponents: every ordered pair of disjoint hands."""
    disjoint, s = _two_card_matrices()
    others = np.flatnonzero(disjoint[hand])
    pair_ok = disjoint[np.ix_(others, others)]
    rel = s[hand, others]  # +1: I beat that hand
    p = f[others]
    total = 0.0
    third = 1.0 / 3.0
    for d1 in (0, 1):
        for d2 in (0, 1):
            w = np.outer(p if d1 else 1 - p, p if d2 else 1 - p) * pair_ok
            in1 = np.full(len(others), bool(d1))
            in2 = np.full(len(others), bool(d2))
            above = (in1 & (rel < 0))[:, None] | (in2 & (rel < 0))[None, :]
            ties = (in1 & (rel == 0)).astype(int)[:, None] + (in2 & (rel == 0)).astype(int)[
                None, :]
            below = (in1 & (rel > 0))[:, None] | (in2 & (rel > 0))[None, :]
            if model == "recursive":
                v = np.where(above, -2 * third, np.where(
                    ties > 0, 1.0 / (ties + 1), np.where(below, 4 * third, 2 * third)))
            else:
                v = np.where(above, -1.0, np.where(ties > 0, 1.0 / (ties + 1), 1.0))
            total += float((w * v).sum())
    return total / (1225 * 1128)


@pytest.mark.parametrize("model", ["recursive", "one_round"])
def test_heads_up_gains_match_brute_force(model: str) -> None:
    rng = np.random.default_rng(3)
    f = rng.random(1326) * (rng.random(1326) < 0.6)
    exact = hand_gains(f, players=2, ranking=TWO.ranking, model=model)  # type: ignore[arg-type]
    assert np.abs(exact - _heads_up_brute(f, model)).max() < 1e-12


@pytest.mark.parametrize("model", ["recursive", "one_round"])
def test_three_player_gains_match_brute_force(model: str) -> None:
    rng = np.random.default_rng(5)
    f = rng.random(1326) * (rng.random(1326) < 0.5)
    hands = np.array([0, 77, 700, 1325])  # 2c 3c ... As Ah; a pair among them
    exact = hand_gains(f, players=3, ranking=TWO.ranking, model=model,  # type: ignore[arg-type]
                       hands=hands)
    for h, g in zip(hands, exact, strict=True):
        assert g == pytest.approx(_three_brute(f, int(h), model), abs=1e-12)


def test_everyone_in_heads_up_by_hand() -> None:
    # Everyone in: aces gain 1/2 + (1,225 - 1 tie) / 1,225 in the recursive model.
    table = hand_table(TWO.ranking)
    g = hand_gains(np.ones(1326), players=2, ranking=TWO.ranking, model="recursive")
    aces = table.index_of(parse_cards("As Ah"))
    assert g[aces] == pytest.approx(0.5 + 1224 / 1225, abs=1e-15)


def test_heads_up_recursive_two_cards_exact() -> None:
    sol = solve_exact(2, 2, "recursive")
    assert sol.exploitability <= 1e-9
    # the reviewer's unique optimal in-rate (issue 12): 0.498492
    assert sol.sigma.mean() == pytest.approx(0.498492, abs=5e-7)
    # zero-sum and symmetric: the brute-force best response gains nothing either
    brute = _heads_up_brute(sol.sigma, "recursive")
    assert 2 * np.mean(np.maximum(brute, 0) - sol.sigma * brute) <= 1e-12


def test_heads_up_one_round_jack_of_spades_blockers() -> None:
    sol = solve_exact(2, 2, "one_round")
    assert sol.exploitability <= 1e-9
    table = hand_table(TWO.ranking)
    for low in "23456":
        for suit in "cdhs":
            assert sol.sigma[table.index_of(parse_cards(f"Js {low}{suit}"))] == 1.0
            assert sol.sigma[table.index_of(parse_cards(f"Jh {low}{suit}"))] == 0.0


def test_two_card_three_player_threshold_numbers() -> None:
    # the published threshold (in with King-four high or better): issue 12's exact figures
    table = hand_table(TWO.ranking)
    eq = equilibrium(cards_per_hand=2, players=3)
    assert (eq.threshold_description, eq.mixing) == ("King-four high", 1.0)
    f = (table.keys >= eq.threshold_key).astype(np.float64)
    one = exploitability(f, players=3, ranking=TWO.ranking, model="one_round")
    rec = exploitability(f, players=3, ranking=TWO.ranking, model="recursive")
    assert one == pytest.approx(1.04e-4, rel=0.01)
    assert rec == pytest.approx(5.6e-5, rel=0.01)
    assert round_value(f, players=3, ranking=TWO.ranking) == pytest.approx(0.4364, abs=5e-5)


def test_tokens_and_rules() -> None:
    assert hand_token(parse_cards("Kd As")) == "As Kd"
    with pytest.raises(CertifyError, match="ghost_hand"):
        certified_rules(Rules(ghost_hand=True), 2, "recursive")
    with pytest.raises(CertifyError, match="best_pays_antes"):
        certified_rules(Rules(all_out="best_pays_antes"), 2, "recursive")
    with pytest.raises(CertifyError, match="2 or 3 players"):
        hand_gains(np.zeros(1326), players=4, ranking=TWO.ranking, model="recursive")
    with pytest.raises(CertifyError, match=r"\[0, 1\]"):
        hand_gains(np.full(1326, 2.0), players=2, ranking=TWO.ranking, model="recursive")
