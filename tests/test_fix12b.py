"""Issue 12 review fixes: conflicting options, rules as a mapping, advice naming the
threshold hand's cards, output paths checked first, corrupt hand histories refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli import assert_user_error, guts

from gutskit.core.rules import Rules, RulesError
from gutskit.envs.pettingzoo_env import GutsParallelEnv, UnsupportedEnvRules


def test_solve_refuses_cards_contradicting_rule() -> None:
    assert_user_error(guts("solve", "--cards", "2", "--players", "2", "--rule",
                           "cards_per_hand=3"), "--cards 2", "cards_per_hand=3")


def test_parallel_env_takes_rules_as_a_mapping() -> None:
    env = GutsParallelEnv(3, rules={"all_out": "carry", "cards_per_hand": 2})
    assert env.rules == Rules(all_out="carry", cards_per_hand=2)
    with pytest.raises(UnsupportedEnvRules, match="sequential"):
        GutsParallelEnv(3, rules={"declaration": "sequential"})
    with pytest.raises(RulesError, match="bogus"):
        GutsParallelEnv(3, rules={"bogus": 1})


def test_solve_cards_follow_the_rule_when_not_given() -> None:
    import json

    data = json.loads(guts("solve", "--players", "2", "--rule", "cards_per_hand=2",
                           "--json").stdout)
    agreed = json.loads(guts("solve", "--cards", "2", "--players", "2", "--rule",
                             "cards_per_hand=2", "--json").stdout)
    assert data == agreed
    assert data["cards_per_hand"] == 2


def test_tournament_checks_every_output_before_writing_any(tmp_path: Path) -> None:
    history = tmp_path / "ok.jsonl"
    result = guts("tournament", "--sessions", "1", "--rounds", "2", "--no-exploitability",
                  "--history", str(history), "--plot", "/proc/gutskit-nowhere/x.png")
    assert_user_error(result, "x.png")
    assert not history.exists()
    result = guts("tournament", "--sessions", "1", "--rounds", "2", "--no-exploitability",
                  "--history", str(history), "--plot", "/proc/x.png")
    assert_user_error(result, "/proc/x.png")
    assert not history.exists()


def test_tournament_full_disk_names_the_history_file() -> None:
    result = guts("tournament", "--sessions", "1", "--rounds", "2", "--no-exploitability",
                  "--history", "/dev/full")
    assert_user_error(result, "/dev/full", "No space left on device")
