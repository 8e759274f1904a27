"""The small defects the testers of session 4 left in the ``guts`` command line (issue 10
follow-up): a negative ``--seed``, an empty name in a list, bad files given to the commands
that read them, ``guts analyze``'s net against the ledger, the terminal's words. Each is
one ``error:`` line (exit 2) or the right value, worked out by hand."""

from __future__ import annotations

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
