"""Equilibrium solver: continuous limit, equilibrium property, monotonicity, variants."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gutskit.core.rules import Rules
from gutskit.strategy.odds import ThresholdStrategy
from gutskit.strategy.solver import (
    SolverError,
    continuous_threshold,
    equilibrium,
    exploitability,
    plot_thresholds,
)
from gutskit.strategy.tables import hand_table

PLAYERS = range(2, 11)


def test_continuous_threshold_formula() -> None:
    # marginal hand t: in wins the pot iff all N-1 others are out (t^(N-1)), else loses it:
    # gain (1 - 1/N)(2 t^(N-1) - 1) = 0  ->  t = 2^(-1/(N-1)); 1/2 heads-up.
    assert continuous_threshold(2) == 0.5
    assert continuous_threshold(3) == pytest.approx(2**-0.5)
    assert continuous_threshold(10) == pytest.approx(0.925874712)


@pytest.mark.parametrize("model", ["recursive", "one_round"])
@pytest.mark.parametrize("cards", [2, 3])
def test_heads_up_approaches_the_continuous_half(cards: int, model: str) -> None:
    e = equilibrium(cards_per_hand=cards, players=2, model=model)  # type: ignore[arg-type]
    assert abs(e.threshold_percentile - 0.5) < 0.01
    assert e.exact_card_removal


@pytest.mark.parametrize("cards", [2, 3])
def test_thresholds_tighten_with_players_and_track_the_continuous_game(cards: int) -> None:
    rows = [equilibrium(cards_per_hand=cards, players=n) for n in PLAYERS]
    pct = [e.threshold_percentile for e in rows]
    assert all(b > a for a, b in itertools.pairwise(pct))
    for e in rows:
        assert abs(e.threshold_percentile - continuous_threshold(e.players)) < 0.03
        assert 0.0 <= e.mixing <= 1.0
        assert e.iterations > 0


def test_published_headline_thresholds() -> None:
    # the values docs/strategy.md publishes (default rules, recursive model)
    assert equilibrium(cards_per_hand=2, players=2).threshold_description == "Jack-seven high"
    assert (equilibrium(cards_per_hand=3, players=5).threshold_description
            == "Pair of nines, ten kicker")
    assert equilibrium(cards_per_hand=2, players=10).threshold_description == "Ace-queen high"


@pytest.mark.parametrize(("cards", "players", "bound"),
                         [(2, 2, 1e-3), (2, 4, 1e-3), (2, 7, 5e-3), (3, 3, 1e-3),
                          (3, 5, 0.06), (3, 10, 0.15)])
def test_no_profitable_deviation_above_the_exploitability_bound(
        cards: int, players: int, bound: float) -> None:
    rules = Rules(cards_per_hand=cards)  # type: ignore[arg-type]
    e = equilibrium(cards_per_hand=cards, players=players)
    table = hand_table(rules.ranking)
    weights = e.strategy().in_weights(table)
    measured = exploitability(weights, players=players, rules=rules)
    assert measured == pytest.approx(e.exploitability, rel=1e-6)
    assert measured <= bound  # chips per round at the opening pot (N chips)
    # a threshold five keys tighter is more exploitable (too tight: strong hands stay out)
    r = table.rank_of_key(e.threshold_key)
    other = ThresholdStrategy(key=int(table.rank_keys[r + 5])).in_weights(table)
    assert exploitability(other, players=players, rules=rules) > measured


def test_marginal_key_is_indifferent_or_a_sign_change() -> None:
    from gutskit.strategy.solver import _gain_at, game_model

    for cards, players in ((2, 3), (3, 4), (3, 6)):
        rules = Rules(cards_per_hand=cards)  # type: ignore[arg-type]
        e = equilibrium(cards_per_hand=cards, players=players)
        table = hand_table(rules.ranking)
        f = e.strategy().in_weights(table)
        gain = _gain_at(f, table, game_model(players, rules, "recursive", players))[0]
        r = table.rank_of_key(e.threshold_key)
        at = float(gain[table.rank == r].mean())
        below = float(gain[table.rank == r - 1].mean())
        if 0.0 < e.mixing < 1.0:
            assert abs(at) < 1e-9
        else:
            assert at >= -1e-12 and below <= 1e-12


def test_carry_and_reante_have_the_same_equilibrium() -> None:
    # an ante paid into a re-dealt pot comes back as 1/N of it (module docstring)
    for cards, players in ((2, 5), (3, 4)):
        a = equilibrium(cards_per_hand=cards, players=players)
        b = equilibrium(cards_per_hand=cards, players=players, rules=Rules(all_out="carry"))
        assert a.threshold_key == b.threshold_key
        assert a.mixing == pytest.approx(b.mixing, abs=1e-9)


def test_best_pays_antes_loosens_and_ghost_tightens() -> None:
    for cards in (2, 3):
        base = equilibrium(cards_per_hand=cards, players=4)
        best = equilibrium(cards_per_hand=cards, players=4,
                           rules=Rules(all_out="best_pays_antes"))
        ghost = equilibrium(cards_per_hand=cards, players=4, rules=Rules(ghost_hand=True))
        assert best.threshold_percentile < base.threshold_percentile
        assert ghost.threshold_percentile > base.threshold_percentile
        # the ghost plays like one more opponent that is always in
        assert ghost.threshold_percentile == pytest.approx(continuous_threshold(5), abs=0.03)
    # the best-pays penalty is fixed in antes, so a bigger pot weakens it
    small = equilibrium(cards_per_hand=2, players=4, rules=Rules(all_out="best_pays_antes"))
    big = equilibrium(cards_per_hand=2, players=4, rules=Rules(all_out="best_pays_antes"),
                      pot=400)
    assert big.threshold_percentile > small.threshold_percentile


def test_single_loser_and_one_round_models_solve() -> None:
    worst = equilibrium(cards_per_hand=3, players=5, rules=Rules(losers_pay="worst"))
    one = equilibrium(cards_per_hand=3, players=5, model="one_round")
    assert 0.5 < worst.threshold_percentile < 0.95
    assert one.model == "one_round"
    assert one.exploitability < 0.1


def test_in_probability_and_json() -> None:
    e = equilibrium(cards_per_hand=2, players=3)
    assert e.in_probability(e.threshold_key + 1) == 1.0
    assert e.in_probability(e.threshold_key) == e.mixing
    assert e.in_probability(e.threshold_key - 1) == 0.0
    data = e.to_dict()
    assert data["threshold"] == e.threshold_description
    assert data["players"] == 3 and data["model"] == "recursive"
    assert equilibrium(cards_per_hand=2, players=3) is e  # cached


def test_refuses_what_it_does_not_model() -> None:
    with pytest.raises(SolverError, match="sequential"):
        equilibrium(cards_per_hand=2, players=3, rules=Rules(declaration="sequential"))
    with pytest.raises(SolverError, match="reserve"):
        equilibrium(cards_per_hand=2, players=3,
                    rules=Rules(pot_cap=50, pot_cap_mode="reserve"))
    with pytest.raises(SolverError, match=r"players must be 2\.\.10"):
        equilibrium(cards_per_hand=2, players=1)
    with pytest.raises(SolverError, match="model"):
        equilibrium(cards_per_hand=2, players=3, model="forever")  # type: ignore[arg-type]
    with pytest.raises(SolverError, match="shape"):
        exploitability(np.ones(5), players=3)


def test_plot_writes_png_and_svg(tmp_path: object) -> None:
    from pathlib import Path

    rows = [equilibrium(cards_per_hand=2, players=n) for n in (2, 3, 4)]
    base = Path(str(tmp_path))
    plot_thresholds(rows, base / "t.png")
    plot_thresholds(rows, base / "t.svg")
    assert (base / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (base / "t.svg").read_bytes()[:500]
    with pytest.raises(SolverError, match=r"\.png or \.svg"):
        plot_thresholds(rows, base / "t.pdf")
