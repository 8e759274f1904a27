"""The small defects the testers of session 4 left in the ``guts`` command line (issue 10
follow-up): a negative ``--seed``, an empty name in a list, bad files given to the commands
that read them, ``guts analyze``'s net against the ledger, the terminal's words. Each is
one ``error:`` line (exit 2) or the right value, worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import assert_user_error, guts


@pytest.mark.parametrize("args", [
    ["play", "--seed", "-1"],
    ["sim", "--seed", "-1"],
    ["tournament", "--seed", "-1"],
])
def test_a_negative_seed_is_refused_by_every_command_that_takes_one(args: list[str]) -> None:
    """A seed is a whole number, 0 or more: numpy's SeedSequence (the fast simulator, the
    tournament's exploitability) refuses a negative one with a traceback, and
    random.Random(-1) silently plays the run of seed 1."""
    line = assert_user_error(guts(*args))
    assert line == (f"error: --seed -1 is out of range: it must be at least 0 "
                    f"(see 'guts {args[0]} --help')")


def test_seed_zero_is_a_seed() -> None:
    result = guts("sim", "--players", "2", "--rounds", "2", "--seed", "0")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "Seed: 0"


@pytest.mark.parametrize(("args", "line"), [
    (["companion", "-n", "Ana,,Ben"],
     "error: --players 'Ana,,Ben': name 2 of 3 is empty (separate them by single commas)"),
    (["companion", "-n", "Ana,Ben,"],
     "error: --players 'Ana,Ben,': name 3 of 3 is empty (separate them by single commas)"),
    (["companion", "-n", " , "], "error: --players ' , ' has no name"),
    (["play", "--bots", "loose,,random"],
     "error: --bots 'loose,,random': bot kind 2 of 3 is empty (separate them by single "
     "commas)"),
    (["tournament", "--bots", "random,,random"],
     "error: --bots 'random,,random': bot kind 2 of 3 is empty (separate them by single "
     "commas)"),
])
def test_an_empty_item_in_a_list_is_named_not_dropped(args: list[str], line: str) -> None:
    """``-n 'Ana,,Ben'`` sat two players and said nothing of the empty name."""
    assert assert_user_error(guts(*args)) == line


def _files(tmp_path: Path) -> dict[str, str]:
    files = {
        "null.json": "null\n",
        "list.json": "[1, 2]\n",
        "empty.json": "",
        "bad-event.jsonl": json.dumps({"type": "SessionStarted", "names": ["Ana", "Ben"],
                                       "stacks": [10, 10], "dealer": 0, "rules": {}})
        + '\n\n{"type": "AntesPosted", "refill": 0, "new_game": true}\n',
        "truncated.jsonl": '{"type": "SessionStarted", "names": ["Ana"\n',
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return {name: str(tmp_path / name) for name in files}


def test_a_file_that_is_not_a_hand_history_is_named_with_what_it_holds(tmp_path: Path) -> None:
    """``guts referee null.json`` said "the referee file must be an object, not None"; a
    malformed event said "bad AntesPosted event: 'amounts'" (a KeyError's text); a broken
    line leaked json's "line 1 column 6 (char 5)". Every reader says the file, the event
    and the field, and quotes what it found as JSON."""
    f = _files(tmp_path)
    bad_event = (f"{f['bad-event.jsonl']}: event 2 (line 3): the AntesPosted event lacks the "
                 "field 'amounts'")
    truncated = (f"{f['truncated.jsonl']}: event 1 (line 1): not valid JSON (Expecting ',' "
                 "delimiter at column 43)")
    assert assert_user_error(guts("referee", f["null.json"])) == (
        f"error: {f['null.json']} is neither a referee file (a JSON object) nor a hand "
        "history (JSON Lines): it holds null")
    assert assert_user_error(guts("referee", f["list.json"])).endswith("it holds [1, 2]")
    assert assert_user_error(guts("referee", f["empty.json"])) == (
        f"error: {f['empty.json']} is empty: give a referee file (a JSON object) or a hand "
        "history (JSON Lines)")
    assert assert_user_error(guts("referee", f["bad-event.jsonl"])) == f"error: {bad_event}"
    assert assert_user_error(guts("referee", f["truncated.jsonl"])) == f"error: {truncated}"
    assert assert_user_error(guts("verify", f["null.json"])) == (
        f"error: {f['null.json']} is not a JSON object (it holds null): give a fairness.json "
        "or a hand history (JSON Lines)")
    assert assert_user_error(guts("verify", f["empty.json"])) == (
        f"error: {f['empty.json']} is empty: give a fairness.json or a hand history "
        "(JSON Lines)")
    assert assert_user_error(guts("verify", f["bad-event.jsonl"])) == f"error: {bad_event}"
    assert assert_user_error(guts("verify", f["truncated.jsonl"])) == f"error: {truncated}"
    assert assert_user_error(guts("analyze", "--history", f["null.json"])) == (
        f"error: {f['null.json']}: event 1 (line 1): not a hand-history event (a JSON object "
        'with a "type"): found null')
    assert assert_user_error(guts("analyze", "--history", f["empty.json"])) == (
        f"error: {f['empty.json']} holds no hand history (no events)")
    assert assert_user_error(guts("analyze", "--history", f["bad-event.jsonl"])) == (
        f"error: {bad_event}")
