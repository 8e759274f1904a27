"""Small defects a fuzzer found in the ``guts`` command line (issue 8, item 6), and the
open items of the previous session: each one is a one-line error (exit 2), a right word,
or a rule applied as RULES.md says."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from test_cli import RUNNER, assert_user_error, guts

from gutskit.cli.app import app
from gutskit.cli.terminal import MAX_ECHO, show_ledger, variant_names
from gutskit.cli.words import count, verb
from gutskit.core.cards import parse_cards
from gutskit.core.engine import (
    deal,
    declare_all,
    end_session,
    new_session,
    seat_to_deal,
    start_event,
)
from gutskit.core.events import Declaration
from gutskit.core.referee import RefereeError, settle
from gutskit.core.rules import Rules, RulesError, preset, rules_from_mapping

IN, OUT = Declaration.IN, Declaration.OUT


def _table(*stacks: int, **extra: Any) -> dict[str, Any]:
    names = ["Ana", "Ben", "Cleo", "Dev"][:len(stacks)]
    return {"rules": {"cards_per_hand": 2},
            "players": [{"name": n, "stack": s} for n, s in zip(names, stacks, strict=True)],
            "dealer": "Ana", "rounds": [], **extra}


# --- a lone surrogate as a player's name -----------------------------------------------------

def test_a_lone_surrogate_name_is_one_error_line(tmp_path: Path) -> None:
    file = tmp_path / "night.json"
    file.write_text('{"players": [{"name": "\\ud800", "stack": 10}, '
                    '{"name": "Ben", "stack": 10}], "dealer": "Ben", "rounds": []}')
    for extra in ([], ["--json"]):
        line = assert_user_error(guts("referee", str(file), *extra), "player 1",
                                 "not valid Unicode text")
        assert "'\\ud800'" in line  # quoted, escaped


def test_a_name_that_is_not_utf8_is_refused_by_play(tmp_path: Path) -> None:
    result = guts("play", "--name", "\udcff", "--db", str(tmp_path / "g.db"), input="q\n")
    assert_user_error(result, "--name '\\udcff' is not valid UTF-8 text")
    assert not (tmp_path / "g.db").exists()


# --- whole numbers -------------------------------------------------------------------------

@pytest.mark.parametrize("value", [3.0, 2.0, True, "3"])
def test_cards_per_hand_must_be_an_integer_like_the_ante(value: object) -> None:
    with pytest.raises(RulesError, match="cards_per_hand: input should be a valid integer"):
        rules_from_mapping({"cards_per_hand": value})
    assert rules_from_mapping({"cards_per_hand": 2}).cards_per_hand == 2


def test_referee_refuses_cards_per_hand_3_0_as_it_refuses_ante_1_0() -> None:
    for rule, shown in (("cards_per_hand", "3.0"), ("ante", "1.0")):
        data = _table(10, 10, rules={rule: float(shown)})
        assert_user_error(guts("referee", "-", input=json.dumps(data)),
                          f"rules: {rule}: input should be a valid integer (got {shown})")


# --- a first dealer with no chips ------------------------------------------------------------

def test_seat_to_deal_passes_the_deal_to_the_next_seat_in_play() -> None:
    assert seat_to_deal(0, [0, 5, 5]) == 1
    assert seat_to_deal(2, [5, 5, 0]) == 0  # wraps round the table
    assert seat_to_deal(1, [5, 0, 0, 7]) == 3
    assert seat_to_deal(1, [5, 5, 5], [False, True, False]) == 2  # eliminated: not in play
    assert seat_to_deal(0, [5, 5]) == 0
    assert start_event(["Ana", "Ben", "Cleo"], [0, 4, 4], dealer=0).dealer == 1


def test_referee_first_dealer_with_no_chips_passes_the_deal() -> None:
    # Ana (dealer, 0 chips) is not dealt in: Ben deals, so Cleo (left of Ben) antes first
    # and, on a tie of equal hands, is first left of the dealer.
    data = _table(0, 10, 10, rules={"cards_per_hand": 2})
    data["rounds"] = [{"hands": {"Ben": "Ah Kd", "Cleo": "7c 7d"},
                       "declarations": {"Ben": "in", "Cleo": "in"}}]
    result = settle(data)
    assert result["dealer_passed"] == {"from": "Ana", "to": "Ben"}
    first = result["rounds"][0]
    assert first["dealer"] == "Ben"
    assert first["antes"] == {"Ben": 1, "Cleo": 1}
    # Cleo's pair of sevens beats ace-king: Ben matches the pot of 2.
    assert first["deltas"] == {"Ana": 0, "Ben": -3, "Cleo": 1}
    assert result["stacks"] == {"Ana": 0, "Ben": 7, "Cleo": 11}
    text = guts("referee", "-", input=json.dumps(data))
    assert text.exit_code == 0, text.stderr
    assert text.stdout.startswith("Ana has no chips and is not dealt in: the deal passes to "
                                  "Ben.\n")
    assert "dealer_passed" not in settle(_table(5, 10, 10))


# --- guts serve on a busy port ---------------------------------------------------------------

def test_serve_on_a_busy_port_is_one_error_line_before_the_banner(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = guts("serve", "--port", str(port), "--db", str(tmp_path / "s.db"))
    assert_user_error(result, f"cannot listen on 127.0.0.1:{port}: the port is already in use")
    assert "gutskit server on" not in result.stderr
    assert not (tmp_path / "s.db").exists()  # checked before the database is opened


# --- databases that are read, or in missing folders ------------------------------------------

def test_analyze_a_missing_database_is_refused_and_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    assert_user_error(guts("analyze", "--db", str(missing)),
                      f"database {str(missing)!r} does not exist")
    assert not missing.exists()


def test_a_database_in_a_missing_folder_is_an_error_and_no_folder_is_made(
        tmp_path: Path) -> None:
    db = tmp_path / "no" / "such" / "guts.db"
    for args in (("play",), ("history",)):
        result = guts(*args, "--db", str(db), input="quit\n")
        assert_user_error(result, f"cannot open database {str(db)!r}: the folder "
                                  f"{str(db.parent)!r} does not exist")
    assert not (tmp_path / "no").exists()


def test_a_file_that_is_not_a_database_is_refused_before_play(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("shopping list\n")
    result = guts("play", "--db", str(text), input="in\n")
    assert_user_error(result, "file is not a database")
    assert text.read_text() == "shopping list\n"


# --- output paths checked before long runs ---------------------------------------------------

@pytest.mark.parametrize(("args", "needle"), [
    (("--plot", "{tmp}/no/dir/b.png"), "plot file '{tmp}/no/dir/b.png': the folder"),
    (("--plot", "{tmp}/b.gif"), "plot file '{tmp}/b.gif' must end in .png, .svg or .pdf"),
    (("--history", "{tmp}/no/dir/h.jsonl"), "history file '{tmp}/no/dir/h.jsonl': the folder"),
    (("--history", "{tmp}"), "history file '{tmp}' is a folder"),
])
def test_tournament_checks_its_output_files_before_it_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, str],
        needle: str) -> None:
    import gutskit.strategy.tournament as module

    def must_not_run(*_: object, **__: object) -> None:
        raise AssertionError("the tournament ran before its output files were checked")

    monkeypatch.setattr(module, "run_tournament", must_not_run)
    option, path = args
    result = guts("tournament", option, path.format(tmp=tmp_path))
    assert_user_error(result, needle.format(tmp=tmp_path))


def test_analyze_checks_its_plot_file_before_it_reads(tmp_path: Path) -> None:
    assert_user_error(guts("analyze", "--history", str(tmp_path / "nothing.jsonl"),
                           "--plot", str(tmp_path / "no" / "p.png")), "the folder")


# --- referee input -----------------------------------------------------------------------------

def test_referee_stdin_that_is_not_utf8_is_an_error_like_a_file(tmp_path: Path) -> None:
    result = RUNNER.invoke(app, ["referee", "-"], input=b"\xff\xfe{}")
    assert_user_error(result, "standard input: not UTF-8 text")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe{}")
    assert_user_error(guts("referee", str(bad)), "not a UTF-8 text file")


def test_a_reserve_without_reserve_mode_is_refused() -> None:
    with pytest.raises(RefereeError, match="reserve: 3 chips given, but these house rules "
                                           "keep no reserve"):
        settle(_table(10, 10, reserve=3))
    with pytest.raises(RefereeError, match="keep no reserve"):
        settle(_table(10, 10, reserve=3, rules={"pot_cap": 5, "pot_cap_mode": "match"}))
    kept = settle(_table(10, 10, reserve=3, rules={"pot_cap": 5, "pot_cap_mode": "reserve"}))
    assert kept["reserve"] == 3
    assert settle(_table(10, 10, reserve=0))["reserve"] == 0


# --- guts play: a huge answer, the banner ----------------------------------------------------

def test_a_huge_answer_is_cut_short_in_the_echo(tmp_path: Path) -> None:
    answer = "x" * 20_000_000
    result = guts("play", "--seed", "1", "-n", "2", "--db", str(tmp_path / "g.db"),
                  input=f"{answer}\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert len(result.stdout) < 20_000
    shown = "x" * MAX_ECHO + "…"
    assert f"[i/o/q] {shown}\n" in result.stdout  # the echo, after the prompt
    assert f"Sorry, '{shown}' is not an answer." in result.stdout


@pytest.mark.parametrize(("name", "expected"), [
    ("hi-lo", ["Hi-Lo Guts"]),
    ("monte-carlo", ["Monte Carlo Guts"]),
    ("no-peek", ["No Peek"]),
    ("estonian-full", ["Kitty / ghost hand", "Single loser", "All-out penalty",
                       "1-2-3 drop"]),
    ("german-3card", []),
])
def test_variant_names(name: str, expected: list[str]) -> None:
    assert variant_names(preset(name)) == expected


def test_the_play_banner_names_the_variant(tmp_path: Path) -> None:
    result = guts("play", "--preset", "hi-lo", "--seed", "1", "-n", "3", "--db",
                  str(tmp_path / "g.db"), input="quit\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Guts — Hi-Lo Guts, 3-card Guts, ante 1,")
    plain = guts("play", "--seed", "1", "-n", "3", "--db", str(tmp_path / "g.db"),
                 input="quit\n")
    assert plain.stdout.startswith("Guts — 3-card Guts, ante 1,")


# --- words -------------------------------------------------------------------------------------

def test_counts_and_verbs_agree() -> None:
    assert [count(n, "session") for n in (0, 1, 2)] == ["0 sessions", "1 session",
                                                        "2 sessions"]
    assert verb("You", "pays", "pay") == "pay"
    assert verb("Ava", "pays", "pay") == "pays"
    assert verb("Ava", "pays", "pay", you=True) == "pay"


def test_you_pay_in_the_settle_up_line() -> None:
    # You (seat 0) go in with 7-2 against Ava's aces: antes 1 each, Ava takes the pot of 2
    # and you match it (You 7, Ava 11, pot 2); at the end the pot is shared, 1 each: you
    # are down 2, Ava up 2.
    state = new_session(["You", "Ava"], 10, rules=Rules(cards_per_hand=2))
    state, _ = deal(state, [parse_cards("7c 2d"), parse_cards("Ah As")])
    state, _ = declare_all(state, {0: IN, 1: IN})
    state, _ = end_session(state)
    console = Console(record=True, width=100)
    show_ledger(console, state)
    text = console.export_text()
    assert "Settle up: You pay Ava 2." in text
    data = _table(10, 10, end=True)
    data["players"][0]["name"] = "You"
    data["dealer"] = "You"
    data["rounds"] = [{"hands": {"You": "7c 2d", "Ben": "Ah As"},
                       "declarations": {"You": "in", "Ben": "in"}}]
    result = guts("referee", "-", input=json.dumps(data))
    assert "Settle up: You pay Ben 2." in result.stdout


def test_a_one_card_hand_is_one_card() -> None:
    assert_user_error(guts("compare", "As", "Kd"),
                      "hand 'As' has 1 card; Guts hands have 2 or 3")
    assert_user_error(guts("referee", "-", input=json.dumps({
        **_table(10, 10), "rounds": [{"hands": {"Ana": "As", "Ben": "Kd Kc"},
                                       "declarations": {"Ana": "in", "Ben": "in"}}]})),
        "has 1 card, expected 2")


def test_tournament_of_one_session_says_session_and_labels_its_footnotes() -> None:
    result = guts("tournament", "--bots", "equilibrium,rule-of-thumb,exploitative",
                  "--sessions", "1", "--rounds", "5", "--seed", "2", "--exploitability")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "1 session x 5 rounds" in text
    assert "1 sessions" not in text
    assert "Exploitability of exploitative: adaptive bot" in text
    # three players: the equilibrium bot plays certify's stored exact per-hand cell
    assert ("Exploitability of equilibrium: certified per-hand equilibrium, best per-hand "
            "deviation computed exactly") in text
    assert "Exploitability of rule-of-thumb: best threshold response" in text
    assert "Exploitability: " not in text


def test_solve_checks_its_plot_file_before_it_solves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gutskit.strategy.solver as module

    def must_not_run(*_: object, **__: object) -> None:
        raise AssertionError("the table was solved before the plot file was checked")

    monkeypatch.setattr(module, "equilibrium_table", must_not_run)
    assert_user_error(guts("solve", "--table", "--plot", str(tmp_path / "no" / "t.svg")),
                      "the folder")
    assert_user_error(guts("solve", "--table", "--plot", str(tmp_path / "t.pdf")),
                      "must end in .png or .svg")


def test_output_path_that_cannot_be_written_is_refused_before_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The tests run as root, for whom every file is writable: stand in for a read-only
    # folder by denying os.access, the check check_output_path makes.
    from gutskit.cli import options
    from gutskit.cli.errors import UsageProblem

    target = tmp_path / "plot.png"
    options.check_output_path(target, "plot file", (".png",))  # writable: no error
    monkeypatch.setattr("gutskit.cli.options.os.access", lambda *_args, **_kw: False)
    with pytest.raises(UsageProblem) as err:
        options.check_output_path(target, "plot file", (".png",))
    assert str(err.value) == f"plot file {str(target)!r} cannot be written (permission denied)"


def test_level_stacks_have_no_session_winner() -> None:
    # Nobody played a round: both still hold their 10-chip buy-in, so nobody has the most.
    state, _ = end_session(new_session(["You", "Ava"], 10, rules=Rules(cards_per_hand=2)))
    console = Console(record=True, width=100)
    show_ledger(console, state)
    text = console.export_text()
    assert "Most chips: nobody; every player has 10." in text
    assert "Settle up" not in text


@pytest.mark.parametrize(("args", "line"), [
    (["odds", "Qs Qh", "--players", "99"],
     "error: --players 99 is out of range: it must be from 2 to 10 (see 'guts odds --help')"),
    (["odds", "Qs Qh", "--pot", "0"],
     "error: --pot 0 is out of range: it must be from 1 to 1000000000000 (see 'guts odds "
     "--help')"),
    (["odds", "Qs Qh", "-n", "x"],
     "error: --players 'x' is not a whole number (see 'guts odds --help')"),
    (["sim", "--rounds", "0"],
     "error: --rounds 0 is out of range: it must be from 1 to 10000000 (see 'guts sim "
     "--help')"),
    (["sim", "--players", "1"],
     "error: --players 1 is out of range: it must be from 2 to 10 (see 'guts sim --help')"),
])
def test_an_out_of_range_number_names_the_option_and_the_value(args: list[str],
                                                                line: str) -> None:
    """A fresh user's find: typer's "Invalid value for '--players' / '-n': Input should be
    less than or equal to 10" neither said the value nor read as gutskit's other errors;
    ``guts sim --rounds 0`` was accepted and printed an empty summary."""
    assert assert_user_error(guts(*args)) == line
