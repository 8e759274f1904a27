"""Tournaments: t intervals cover known values, chips are conserved, exploitability ranks
the bots, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gutskit.cli.app import app
from gutskit.core.rules import Rules
from gutskit.strategy.fast import FastPolicy
from gutskit.strategy.tournament import TournamentError, best_response, run_tournament, t_interval


def test_t_interval_by_hand_and_coverage() -> None:
    mean, low, high = t_interval([1.0, 2.0, 3.0])
    # t(0.975, 2) = 4.3027; sd = 1; half-width 4.3027 / sqrt(3) = 2.4842
    assert (mean, low, high) == pytest.approx((2.0, 2.0 - 2.4842, 2.0 + 2.4842), abs=1e-4)
    assert t_interval([5.0]) == (5.0, 5.0, 5.0)
    # coverage of a known mean: 2,000 samples of 8 draws from N(3, 2^2)
    rng = np.random.default_rng(0)
    hits = 0
    for sample in rng.normal(3.0, 2.0, size=(2000, 8)):
        _, lo, hi = t_interval(sample)
        hits += lo <= 3.0 <= hi
    assert 0.935 <= hits / 2000 <= 0.965  # binomial s.e. 0.0049


def test_symmetric_bots_interval_covers_zero_and_chips_are_conserved() -> None:
    # the same strategy under two names: each expects 0 chips per round
    result = run_tournament(["threshold:0.6", "threshold:0.60"], players=4, sessions=30,
                            rounds=60, seed=3, exploitability=False)
    assert result.lineup == ("threshold:0.6", "threshold:0.60") * 2
    for r in result.results:
        assert r.ci_low <= 0.0 <= r.ci_high
        assert r.in_rate == pytest.approx(0.4, abs=0.03)
    # zero-sum: the seats' chips per round add to 0 in every session, hence on average
    total = sum(r.chips_per_round * r.seats for r in result.results)
    assert total == pytest.approx(0.0, abs=1e-9)
    assert result.rounds_played == 30 * 60


def test_tournament_is_reproducible() -> None:
    kinds = ["equilibrium", "rule-of-thumb", "random"]
    a = run_tournament(kinds, sessions=25, rounds=60, seed=1, exploitability=False)
    b = run_tournament(kinds, sessions=25, rounds=60, seed=1, exploitability=False)
    assert a.to_dict() == b.to_dict()
    by_kind = {r.kind: r for r in a.results}
    assert by_kind["random"].in_rate == pytest.approx(0.5, abs=0.03)
    for r in a.results:
        assert r.ci_low < r.chips_per_round < r.ci_high
    assert len(a.bankroll["random"]) == 60


def test_best_response_exploits_a_random_bot_far_more_than_a_threshold_bot() -> None:
    rules = Rules(cards_per_hand=2)
    loose = best_response(FastPolicy.constant(0.5, rules.ranking), rules, 3, chips=1000,
                          tables=300, rounds=40, seed=1)
    solid = best_response(FastPolicy.threshold(0.7, rules.ranking), rules, 3, chips=1000,
                          tables=300, rounds=40, seed=1)
    assert loose.chips_per_round is not None and solid.chips_per_round is not None
    assert loose.chips_per_round > 1.0
    assert loose.chips_per_round > 10 * solid.chips_per_round
    # against random players who are in half the time with any hand, in pays already when
    # (1/2 + h/2)^2 > 2/5 (win P vs lose a match worth 2/3 P): h > 0.27; loose play wins
    assert loose.best_response is not None and loose.best_response < 0.4


def test_errors() -> None:
    with pytest.raises(TournamentError, match="unknown bot"):
        run_tournament(["equilibrium", "nobody"])
    with pytest.raises(TournamentError, match="2 to 10"):
        run_tournament(["random"])
    with pytest.raises(TournamentError, match="at least 1"):
        run_tournament(["random", "random"], sessions=0)
    with pytest.raises(TournamentError, match="equilibrium bot cannot play these rules"):
        run_tournament(["equilibrium", "random"], rules=Rules(pot_cap=50,
                                                               pot_cap_mode="reserve"))


def test_cli(tmp_path: Path) -> None:
    runner = CliRunner()
    plot = tmp_path / "bank.svg"
    result = runner.invoke(app, ["tournament", "--bots", "rule-of-thumb,random",
                                 "--sessions", "3", "--rounds", "20", "--no-exploitability",
                                 "--json", "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [b["kind"] for b in data["bots"]] == ["rule-of-thumb", "random"]
    assert data["rounds_played"] == 60 and plot.read_text().startswith("<?xml")
    bad = runner.invoke(app, ["tournament", "--bots", "equilibrium,wizard"])
    assert bad.exit_code == 2 and "unknown bot 'wizard'" in bad.stderr
    unsupported = runner.invoke(app, ["tournament", "--bots", "random,random", "--sessions",
                                      "2", "--rounds", "5", "--rule", "hi_lo=true",
                                      "--exploitability"])
    assert unsupported.exit_code != 0 or "n/a" in unsupported.stdout


def test_history_feeds_the_analysis(tmp_path: Path) -> None:
    from gutskit.core.events import Event
    from gutskit.strategy.analysis import analyze, split_sessions

    log: list[Event] = []
    result = run_tournament(["rule-of-thumb", "random", "random"], sessions=3, rounds=30,
                            seed=2, exploitability=False, history=log)
    report = analyze(split_sessions(log))
    assert report.sessions == 3 and report.rounds == result.rounds_played
    # players keep their line-up slot's name across rotated sessions
    assert set(report.players) == {"rule-of-thumb", "random-1", "random-2"}
    rot = next(r for r in result.results if r.kind == "rule-of-thumb")
    assert report.players["rule-of-thumb"]["in_rate"] == pytest.approx(rot.in_rate, abs=1e-3)
    runner = CliRunner()
    path = tmp_path / "games.jsonl"
    out = runner.invoke(app, ["tournament", "--bots", "rule-of-thumb,random", "--sessions", "2",
                              "--rounds", "10", "--no-exploitability", "--history", str(path)])
    assert out.exit_code == 0, out.output
    assert runner.invoke(app, ["analyze", "--history", str(path), "--json"]).exit_code == 0

