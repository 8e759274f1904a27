"""Issue 12 review fixes: conflicting options, rules as a mapping, advice naming the
threshold hand's cards, output paths checked first, corrupt hand histories refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_cli import assert_user_error, guts
from typer.testing import Result

from gutskit.core.events import CardsDealt
from gutskit.core.history import event_from_dict, event_to_dict
from gutskit.core.rules import Rules, RulesError
from gutskit.core.views import Viewer, redacted_history
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


def _history(tmp_path: Path) -> list[str]:
    path = tmp_path / "F.jsonl"
    guts("tournament", "--sessions", "2", "--rounds", "20", "--seed", "1", "--history",
         str(path), "--no-exploitability")
    return path.read_text().splitlines()


def _analyze(tmp_path: Path, lines: list[str]) -> Result:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return guts("analyze", "--history", str(path), "--json")


def _edit(lines: list[str], index: int, change: Callable[[dict[str, Any]], None]) -> list[str]:
    data = json.loads(lines[index])
    change(data)
    return [*lines[:index], json.dumps(data), *lines[index + 1:]]


def test_analyze_refuses_corrupt_histories(tmp_path: Path) -> None:
    lines = _history(tmp_path)
    assert json.loads(_analyze(tmp_path, lines).stdout)["rounds"] == 40
    # lines 2-3 (the first antes and deal) deleted: the first result creates chips
    assert_user_error(_analyze(tmp_path, [lines[0], *lines[3:]]),
                      "session 1, before the first deal", "RoundResolved",
                      "chips not conserved")
    deal = [i for i, line in enumerate(lines) if '"CardsDealt"' in line][4]
    hands = json.loads(lines[deal])["hands"]
    first, second = hands[0].split(), hands[1].split()

    def two_cards(d: dict[str, Any]) -> None:
        d["hands"][0] = " ".join(first[:2])

    assert_user_error(_analyze(tmp_path, _edit(lines, deal, two_cards)),
                      "session 1, round 5", f"({first[0]} {first[1]}) has 2 cards, expected 3")

    def twice(d: dict[str, Any]) -> None:
        d["hands"][1] = " ".join([first[0], *second[1:]])

    assert_user_error(_analyze(tmp_path, _edit(lines, deal, twice)),
                      "session 1, round 5", f"card {first[0]} is dealt to both")
    # the first uncontested round of session 1 (one seat in): flip an out seat to in
    second_start = [i for i, line in enumerate(lines) if '"SessionStarted"' in line][1]
    deals = [i for i, line in enumerate(lines[:second_start]) if '"CardsDealt"' in line]
    number, reveal = next((n, i + 1) for n, i in enumerate(deals, start=1)
                          if json.loads(lines[i + 1])["declarations"].count("in") == 1)
    calls = json.loads(lines[reveal])["declarations"]
    winner, out = calls.index("in"), calls.index("out")

    def flip(d: dict[str, Any]) -> None:
        d["declarations"][out] = "in"

    # the recorded result (the winner takes the pot uncontested) no longer follows
    assert_user_error(_analyze(tmp_path, _edit(lines, reveal, flip)),
                      f"session 1, round {number}", "differs from the engine's settlement",
                      "recorded: uncontested, pot won [")
    assert winner != out
    # the second session is named as such
    deal2 = next(i for i in range(second_start, len(lines)) if '"CardsDealt"' in lines[i])
    hands2 = json.loads(lines[deal2])["hands"]

    def twice2(d: dict[str, Any]) -> None:
        d["hands"][1] = " ".join([hands2[0].split()[0], *hands2[1].split()[1:]])

    assert_user_error(_analyze(tmp_path, _edit(lines, deal2, twice2)), "session 2, round 1")


def test_analyze_accepts_a_seats_redacted_copy(tmp_path: Path) -> None:
    lines = _history(tmp_path)
    full = [event_from_dict(json.loads(line)) for line in lines]
    copy = redacted_history(full, Viewer(0))
    assert any(isinstance(e, CardsDealt) and () in e.hands for e in copy)
    path = tmp_path / "seat0.jsonl"
    path.write_text("".join(json.dumps(event_to_dict(r)) + "\n" for r in copy))
    result = guts("analyze", "--history", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["rounds"] == 40


def test_advise_names_the_threshold_cards_when_suits_break_ties() -> None:
    # 2 players, pot 2: the threshold equilibrium goes in from J♠ 7x (suit_tiebreak=
    # high_card ranks J♠ 7x above J♥ 7x; RULES.md "Hand rankings"), so J♥ 7♦ stays out.
    # Since 7231097 guts advise plays the stored certified per-hand equilibrium where one
    # applies (certified rules, default ranking), and there J♥ 7♦ is one of the mixed hands
    # (in with probability exactly 1/2, gain 0: docs/strategy.md's exceptions list), so the
    # threshold is named only off the stored cells: here ace_low_straight=false (a ranking
    # other than the default one, suits still breaking ties).
    out = guts("advise", "Jh 7d", "--players", "2", "--pot", "2").stdout
    assert "equilibrium: certified per-hand equilibrium -> in 50% of the time" in out
    off = guts("advise", "Jh 7d", "--players", "2", "--pot", "2", "--rule",
               "ace_low_straight=false").stdout
    assert "equilibrium: in with J♠ 7♣ (Jack-seven high) or better -> out" in off
    plain = guts("advise", "Jh 7d", "--players", "2", "--pot", "2", "--rule",
                 "suit_tiebreak=none").stdout
    assert "equilibrium: in with Jack-seven high or better -> in" in plain
