"""The small defects the testers of session 4 left in the ``guts`` command line (issue 10
follow-up): a negative ``--seed``, an empty name in a list, bad files given to the commands
that read them, ``guts analyze``'s net against the ledger, the terminal's words. Each is
one ``error:`` line (exit 2) or the right value, worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import assert_user_error, guts

from gutskit.core.cards import parse_cards
from gutskit.core.engine import deal, declare_all, end_session, new_session, start_event
from gutskit.core.events import Declaration, Event
from gutskit.core.rules import Rules
from gutskit.io.files import dump_history


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


def test_analyze_net_is_the_ledgers_net_the_end_share_included(tmp_path: Path) -> None:
    """Worked by hand (default rules: ante 1, ties split, odd chip stays in the pot; RULES.md
    "Money, limits, ending"): Ana, Ben, Cleo, 20 chips each, Ana deals. Antes 1 each: pot
    3. All three in: Ana's Qs Qh 4c ties Ben's Qd Qc 4d (no suit tie-break), Cleo's 2c 3d 5h
    loses. The pot of 3 splits 1 + 1, the odd chip stays; Cleo matches 3: pot 4; stacks
    20, 20, 16. The table stops: the pot of 4 is shared among the three seated, 1 each and
    the odd chip to the dealer's left (the deal has passed to Ben: Cleo): 21, 21, 18.
    The ledger's nets are +1, +1, -2; in the rounds alone 0, 0, -4 (the pot shared at the
    end is in no round). ``guts analyze`` said 0, 0, -4 under "net"."""
    names = ["Ana", "Ben", "Cleo"]
    events: list[Event] = [start_event(names, 20, dealer=0)]
    state = new_session(names, 20, dealer=0)
    state, more = deal(state, tuple(parse_cards(h) for h in ("Qs Qh 4c", "Qd Qc 4d",
                                                             "2c 3d 5h")))
    events += more
    state, more = declare_all(state, dict.fromkeys(range(3), Declaration.IN))
    events += more
    state, more = end_session(state)
    events += more
    path = tmp_path / "night.jsonl"
    dump_history(events, path)
    result = guts("analyze", "--history", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    players = json.loads(result.stdout)["players"]
    assert {n: (p["net"], p["net_in_rounds"]) for n, p in players.items()} == {
        "Ana": (1, 0), "Ben": (1, 0), "Cleo": (-2, -4)}
    referee = json.loads(guts("referee", str(path), "--json").stdout)
    assert {n: line["net"] for n, line in referee["ledger"].items()} == {
        "Ana": 1, "Ben": 1, "Cleo": -2}
    table = guts("analyze", "--history", str(path)).stdout
    assert "net: the ledger's (final stack minus buy-ins" in " ".join(table.split())


def test_the_terminal_says_on_which_side_a_both_failed() -> None:
    """Hi-Lo (RULES.md Variants: *both* must win or tie both ways, else loses both): the
    terminal now says which side(s) ``RoundResolved.failed_high`` / ``failed_low`` name, as
    the browser does. The rounds of tests/test_companion.py worked by hand: ante 1, buy-in
    20, Ana deals; round 1 Ana both T-T-Q (best high, not best low), Ben low Q-J-7, Cleo
    high A-6-2: Ana fails on low, matches 2 + 1 = 3. Round 2 (no ante, pot 3) Ana both
    9-6-4, Ben low 7-4-2, Cleo high A-A-2: Ana fails both ways, matches 3."""
    from test_cli_play import _narrate

    both, low, high = Declaration.BOTH, Declaration.LOW, Declaration.HIGH
    state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0, rules=Rules(hi_lo=True))
    after, first = deal(state, tuple(parse_cards(h) for h in ("Th Td Qc", "Qd Jh 7h",
                                                              "Ah 6c 2h")))
    after, more = declare_all(after, {0: both, 1: low, 2: high})
    first += more
    text = " ".join(_narrate(state, first, me=None).split())
    assert ("Ana declared Both but did not win or tie low (won by Ben), so loses both ways "
            "and matches 3.") in text
    assert " ".join(_narrate(state, first, me=0).split()).count(
        "You declared Both but did not win or tie low (won by Ben), so lose both ways and "
        "match 3.") == 1
    state = after
    after, second = deal(state, tuple(parse_cards(h) for h in ("9s 6d 4c", "7h 4d 2s",
                                                               "As Ad 2c")))
    after, more = declare_all(after, {0: both, 1: low, 2: high})
    second += more
    assert after.stacks == (13, 21, 23) and after.pot == 3
    text = " ".join(_narrate(state, second, me=1).split())
    assert ("Ana declared Both but did not win or tie high (won by Cleo) or low (won by "
            "Ben), so loses both ways and matches 3.") in text
