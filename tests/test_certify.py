"""Certified per-hand equilibria (gutskit.strategy.certify): exact gains against brute force,
exact heads-up solutions, the reviewer's numbers (issue 12), stored solutions."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from test_advise import guts, user_error

from gutskit.core.cards import parse_cards
from gutskit.core.rules import Rules
from gutskit.strategy.certify import (
    CertifyError,
    _sample_gains,
    certified_rules,
    exploitability,
    hand_gains,
    hand_token,
    load_strategy,
    pure_threshold_scan,
    round_value,
    solve_exact,
    summarize,
    symmetrize,
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


# --------------------------------------------------------------------------------------------
# Stored solutions and the export contract.


@pytest.mark.parametrize(("cards", "players", "model"), [
    (2, 2, "recursive"), (2, 2, "one_round"), (3, 2, "recursive"), (3, 2, "one_round"),
    (2, 3, "recursive"), (2, 3, "one_round")])
def test_stored_exact_cells_recertify(cards: int, players: int, model: str) -> None:
    s = load_strategy(cards, players, model)  # type: ignore[arg-type]
    assert s.certified == "exact" and s.standard_error is None
    ranking = s.rules.ranking
    g = hand_gains(s.probabilities, players=players, ranking=ranking,
                   model=model)  # type: ignore[arg-type]
    ex = exploitability(s.probabilities, players=players, ranking=ranking,
                        model=model, gains=g)  # type: ignore[arg-type]
    assert ex <= (1e-9 if players == 2 else 1e-6)
    assert s.exploitability == pytest.approx(ex, abs=1e-12)
    assert np.abs(g * players - s.gains).max() < 1e-12  # stored EVs (chips) are exact
    assert round_value(s.probabilities, players=players, ranking=ranking) == pytest.approx(
        s.value, abs=1e-12)


@pytest.mark.parametrize("model", ["recursive", "one_round"])
def test_stored_three_card_three_player_cells(model: str) -> None:
    # A full exact evaluation takes ~100 CPU-s: check the stored gains of 64 hands exactly
    # and the certificate implied by all stored gains.
    s = load_strategy(3, 3, model)  # type: ignore[arg-type]
    assert s.certified == "exact" and s.exploitability <= 1e-6
    rows = np.random.default_rng(0).choice(22100, size=64, replace=False)
    g = hand_gains(s.probabilities, players=3, ranking=s.rules.ranking,
                   model=model, hands=rows)  # type: ignore[arg-type]
    assert np.abs(g * 3 - s.gains[rows]).max() < 1e-12
    f, gains = s.probabilities, s.gains / 3
    assert 3 * float(np.mean(np.maximum(gains, 0) - f * gains)) <= 1e-6


def test_sampled_cells_are_flagged() -> None:
    s = load_strategy(3, 6, "one_round")
    assert s.certified == "sampled"
    assert s.standard_error is not None and 0 < s.standard_error < 0.05
    assert s.value_standard_error is not None
    data = s.to_contract()
    assert len(data["strategy"]) == 22100
    assert data["certified"] == "sampled" and data["standard_error"] == s.standard_error


def test_export_contract_and_brute_force_certificate(tmp_path: Path) -> None:
    target = tmp_path / "hu.json"
    result = guts("solve", "--cards", "2", "--players", "2", "--model", "recursive",
                  "--export", str(target))
    assert result.exit_code == 0, result.stderr
    assert "1326 hands written" in result.stdout
    data = json.loads(target.read_text(encoding="utf-8"))
    assert set(data) == {"cards", "players", "model", "rules", "strategy", "exploitability",
                         "certified", "standard_error"}
    assert (data["cards"], data["players"], data["model"]) == (2, 2, "recursive")
    assert data["certified"] == "exact" and data["standard_error"] is None
    assert data["rules"]["suit_tiebreak"] == "high_card"
    strategy = data["strategy"]
    assert len(strategy) == 1326 and all(0.0 <= p <= 1.0 for p in strategy.values())
    assert strategy["As Ah"] == 1.0 and strategy["3c 2c"] == 0.0
    table = hand_table(TWO.ranking)
    f = np.zeros(1326)
    for token, p in strategy.items():
        f[table.index_of(parse_cards(token))] = p
    assert f.mean() == pytest.approx(0.498492, abs=5e-7)
    brute = _heads_up_brute(f, "recursive")  # every disjoint pair, from the payoff table
    ex = 2 * float(np.mean(np.maximum(brute, 0) - f * brute))
    assert abs(ex - data["exploitability"]) < 1e-12


def test_export_three_cards_and_errors(tmp_path: Path) -> None:
    target = tmp_path / "three.json"
    result = guts("solve", "--cards", "3", "--players", "2", "--model", "one_round",
                  "--export", str(target))
    assert result.exit_code == 0, result.stderr
    data = json.loads(target.read_text(encoding="utf-8"))
    assert len(data["strategy"]) == 22100 and data["certified"] == "exact"
    assert data["strategy"]["Ks 9c 7d"] == 1.0  # a blocker bluff below the threshold
    user_error(guts("solve", "--export", str(target), "--rule", "ghost_hand=true"),
               "ghost_hand")
    user_error(guts("solve", "--export", str(tmp_path / "x.json"), "--table"), "--export")


def test_load_strategy_api() -> None:
    s = load_strategy(2, 2, "one_round")
    assert s.in_probability(parse_cards("Js 4d")) == 1.0
    assert s.in_probability(parse_cards("Jh 4d")) == 0.0
    assert s.ev_in_minus_out(parse_cards("Js 4d")) > 0 > s.ev_in_minus_out(
        parse_cards("Jh 4d"))
    assert hand_token(parse_cards("4d Js")) == "Js 4d"
    with pytest.raises(CertifyError, match="cards"):
        s.in_probability(parse_cards("Js 4d 5c"))
    summary = summarize(s)
    assert summary.threshold_description == "Jack-seven high"
    assert len(summary.below_in) == 20 and summary.above_out == () == summary.mixed


def test_table_prints_the_certified_rows() -> None:
    result = guts("solve", "--table", "--model", "one_round")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "| 2 | 2 | exact | 0.511312 | Jack-seven high (0.5038) | 20 | 0 | 0 |" in text
    assert "| 3 | 10 | sampled |" in text and " ± " in text
    assert "Js 6c, Js 6d" in text  # the exceptions of the exact cells are listed


def test_best_pure_threshold_three_cards_heads_up() -> None:
    # issue 12: K♣-9-8 is 22 times less exploitable than the published K♦-9-8 (one round)
    scan = pure_threshold_scan(3, 2, "one_round")
    ex, description, token = scan[0]
    assert (description, token[:4]) == ("King-nine-eight high", "Kc 9")
    assert ex == pytest.approx(7.07e-7, rel=0.01)
    published = [e for e, d, t in scan if d == "King-nine-eight high" and t.startswith("Kd")]
    assert published == [pytest.approx(1.57e-5, rel=0.01)]


def test_sampled_gains_agree_with_exact_gains() -> None:
    # The sampler behind the "sampled" cells, checked where the exact answer is known:
    # 2 cards, 3 players, every hand, 256 deals each; z-scores must look standard normal.
    table = hand_table(TWO.ranking)
    f = np.asarray(load_strategy(2, 3, "recursive").probabilities)
    mean, var = _sample_gains(f, table, 3, "recursive", 256, np.random.default_rng(7))
    exact = hand_gains(f, players=3, ranking=TWO.ranking, model="recursive")
    z = (mean - exact) / np.sqrt(var)
    assert abs(float(z.mean())) < 0.15 and 0.85 < float(z.std()) < 1.15
    assert float(np.abs(z).max()) < 5.0


def test_suit_symmetric_solution_without_suit_tiebreak() -> None:
    # suit_tiebreak = none: the game is symmetric in the suits; the heads-up recursive
    # solution is averaged over the 24 suit permutations and still certified
    rules = Rules(cards_per_hand=2, suit_tiebreak="none")
    sol = solve_exact(2, 2, "recursive", rules)
    assert sol.exploitability <= 1e-9
    table = hand_table(rules.ranking)
    f = sol.sigma
    for a, b in (("As Kd", "Ah Kc"), ("Js 4d", "Jh 4c"), ("7c 7d", "7h 7s")):
        assert f[table.index_of(parse_cards(a))] == pytest.approx(
            f[table.index_of(parse_cards(b))], abs=1e-12)
    assert f.mean() == pytest.approx(0.5052790, abs=1e-6)  # the unique optimal in-rate
    assert np.abs(symmetrize(f, rules.ranking) - f).max() < 1e-12
