"""``guts advise``, ``guts odds`` and ``guts solve`` through the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from gutskit.cli.app import app

RUNNER = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": "120",
                        "GUTSKIT_DB": None})


def guts(*args: str) -> Result:
    result = RUNNER.invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def user_error(result: Result, needle: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stderr.startswith("error: ") and needle in result.stderr
    assert "Traceback" not in result.stderr


def test_advise_equilibrium_beats_the_rule_of_thumb_with_nines() -> None:
    # Two-card Guts, 4 players: the equilibrium goes in with ace-two high or better, so a
    # pair of nines is in; the seeds' rule (pair of tens or better) says out.
    result = guts("advise", "9h 9c", "--players", "4", "--pot", "4", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["advice"] == "in"
    assert data["ev_in_minus_out"] > 0
    assert data["equilibrium"]["threshold"] == "Ace-two high"
    assert data["equilibrium"]["in_probability"] == 1.0
    assert data["rule_of_thumb"]["entry_rule_in"] is False
    assert abs(data["win_if_in"] + data["tie_if_in"] + data["lose_if_in"] - 1) < 1e-5  # rounded
    assert data["exact"] is True  # three opponents: exact joint card removal
    assert data["ev_in_minus_out_se"] is None and data["win_if_in_se"] is None


def test_advise_out_with_a_weak_hand_in_text() -> None:
    result = guts("advise", "7c 4d 2h", "--players", "6", "--pot", "30")
    assert result.exit_code == 0, result.stderr
    assert "Advice: OUT" in result.stdout
    assert "rule of thumb" in result.stdout


def test_odds_json_is_exact_heads_up() -> None:
    # 7h 7d against an opponent who is always in: 42 better hands, 1 equal, 1,182 worse.
    result = guts("odds", "7h 7d", "--players", "2", "--strategy", "always-in", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["exact"] is True
    row = data["opponents_in"][1]
    assert row["probability"] == 1.0
    assert abs(row["win"] - 1182 / 1225) < 1e-9
    assert abs(row["lose"] - 42 / 1225) < 1e-9


def test_odds_text_states_the_method_and_ev() -> None:
    result = guts("odds", "Qs Qh 7d", "--players", "4", "--pot", "8",
                  "--strategy", "threshold:9c 9d 2h")
    assert result.exit_code == 0, result.stderr
    assert "(exact)" in result.stdout and "Method: exact" in result.stdout
    assert "in minus out" in result.stdout and "±" not in result.stdout


def test_odds_beyond_exact_reach_prints_standard_errors() -> None:
    # 3-card, five players: Monte Carlo; every figure of the table and the EV has "±".
    result = guts("odds", "Qs Qh 7d", "--players", "5", "--pot", "5")
    assert result.exit_code == 0, result.stderr
    assert "Monte Carlo" in result.stdout
    rows = [line for line in result.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == 5 and all(line.count("±") == 4 for line in rows)
    assert "in minus out = +" in result.stdout and result.stdout.count(" ± ") >= 23
    data = json.loads(guts("odds", "Qs Qh 7d", "--players", "5", "--json").stdout)
    assert data["exact"] is False and data["win_se"] > 0


def test_solve_one_table_and_the_full_table(tmp_path: Path) -> None:
    result = guts("solve", "--cards", "2", "--players", "2", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["threshold"] == "Jack-seven high"
    assert abs(data["threshold_percentile"] - 0.5) < 0.01
    plot = tmp_path / "thresholds.png"
    table = guts("solve", "--table", "--json", "--plot", str(plot))
    assert table.exit_code == 0, table.stderr
    rows = json.loads(table.stdout)["rows"]
    assert [(r["cards_per_hand"], r["players"]) for r in rows] == [
        (k, n) for k in (2, 3) for n in range(2, 11)]
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_user_errors_exit_2() -> None:
    user_error(guts("odds", "Ah Kd", "--strategy", "bogus"), "unknown strategy")
    user_error(guts("solve", "--plot", "x.png"), "--plot needs --table")
    user_error(guts("solve", "--rule", "declaration=sequential"), "sequential")
    user_error(guts("advise", "Ah Zz"), "unknown card")
    user_error(guts("solve", "--model", "forever"), "--model")
