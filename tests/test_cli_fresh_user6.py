"""What a fresh user found in session 5, and the bad inputs tried after it: every one is one
line ``error: ...`` on stderr quoting the bad value, exit 2, nothing on stdout, nothing
saved, never a traceback (or, inside the terminal companion, the answer refused and asked
again, nothing applied)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from test_cli import guts
from typer.testing import Result

from gutskit.core.limits import MAX_CHIPS, MAX_NAME, chips_problem, name_problem
from gutskit.io.storage import open_store


def one_error(result: Result) -> str:
    """The single stderr line of a refused command (exit 2, empty stdout)."""
    assert result.exit_code == 2, result.stderr
    assert result.stdout == ""
    text = result.stderr
    assert "Traceback" not in text and text.count("\n") == 1, text
    return text.rstrip("\n")


# --- 1. the largest chip amount ---------------------------------------------------------------

def test_the_chip_bound_is_one_million_in_one_place() -> None:
    assert MAX_CHIPS == 1_000_000
    assert chips_problem(1) is None and chips_problem(MAX_CHIPS) is None
    assert chips_problem(0) == "must be at least 1"
    assert chips_problem(MAX_CHIPS + 1) == "must be at most 1000000"


@pytest.mark.parametrize("command", [("play",), ("companion", "-n", "Ana,Ben"), ("sim",)])
def test_a_buy_in_above_the_bound_is_refused(tmp_path: Path, command: tuple[str, ...]) -> None:
    db = tmp_path / "g.db"
    extra = () if command == ("sim",) else ("--db", str(db))
    result = guts(*command, "--chips", "1000001", *extra, input="in\n")
    assert one_error(result) == ("error: --chips 1000001 is out of range: it must be from 1 to "
                                 f"1000000 (see 'guts {command[0]} --help')")
    assert not db.exists()


def test_a_buy_in_of_thousands_of_digits_is_quoted_by_its_start(tmp_path: Path) -> None:
    result = guts("play", "--chips", "9" * 5000, "--db", str(tmp_path / "g.db"))
    assert one_error(result) == ("error: --chips " + "9" * 40 + "… (5000 characters) is out "
                                 "of range: it has too many digits (see 'guts play --help')")


@pytest.mark.parametrize("command", [("play",), ("sim",), ("tournament",)])
def test_a_house_rule_above_the_chip_bound_is_refused(tmp_path: Path,
                                                      command: tuple[str, ...]) -> None:
    """Fresh user (session 6): ``--rule min_buy_in=5000000`` was accepted by the CLI and
    refused by the server. The bound is the core's Rules (every front end): the same
    message as the server's ``bad_rules`` (``tests/test_server_limits.py``)."""
    db = tmp_path / "g.db"
    extra = () if command != ("play",) else ("--db", str(db))
    result = guts(*command, "--rule", "min_buy_in=5000000", *extra, input="in\n")
    assert one_error(result) == ("error: --rule min_buy_in=5000000: min_buy_in: must be at "
                                 "most 1000000 (got 5000000)")
    assert not db.exists()


def test_the_bound_itself_is_a_buy_in() -> None:
    result = guts("sim", "--chips", str(MAX_CHIPS), "--rounds", "3", "--seed", "1", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["chips"] == MAX_CHIPS


def test_the_companion_refuses_a_rebuy_above_the_bound(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    too_many = "1000001"
    digits = "9" * 5000
    result = guts("companion", "-n", "Ana,Ben", "--rule", "rebuys=true", "--chips", "1",
                  "--db", str(db),
                  input=f"rebuy Ana {too_many}\nrebuy Ana {digits}\nrebuy Ana ²\nend\n")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "'1000001' chips: a rebuy must be at most 1000000.\n" in out  # a sentence
    # a number longer than int() reads is too many chips too (quoted cut, not a traceback)
    assert "chips: a rebuy must be at most 1000000" in out.split(too_many)[-1]
    assert "'²' is not a number of chips.\n" in out  # a digit to str.isdigit, not to int()
    events = open_store(str(db)).events(1)
    assert not any(type(e).__name__ == "RebuyMade" for e in events)
    assert events[-1].__class__.__name__ == "SessionEnded"


# --- 2. player names -------------------------------------------------------------------------

def test_the_name_rule() -> None:
    assert MAX_NAME == 24
    assert name_problem(" Ana ") is None and name_problem("A" * 24) is None
    assert name_problem("A" * 25) == "is longer than 24 characters"
    assert name_problem("\t") == "is empty"
    for bad in ("\x1b[31mRed", "Ana\x07", "Ana\u202e", "A\u200db", "An\na"):
        assert name_problem(bad) == "has a control character", bad


def test_an_ansi_escape_in_a_name_is_refused_shown_escaped(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    result = guts("play", "--name", "\x1b[2JRed", "--db", str(db), input="in\n")
    assert one_error(result) == ("error: --name '\\x1b[2JRed' has a control character (a "
                                 "player's name is 1 to 24 printable characters)")
    result = guts("companion", "-n", "Ana,B\x07en", "--db", str(db), input="end\n")
    assert one_error(result) == ("error: --players 'Ana,B\\x07en': name 'B\\x07en' has a "
                                 "control character (a player's name is 1 to 24 printable "
                                 "characters)")
    result = guts("play", "--name", "N" * 25, "--db", str(db))
    assert one_error(result) == (f"error: --name '{'N' * 25}' is longer than 24 characters (a "
                                 "player's name is 1 to 24 printable characters)")
    assert not db.exists()


def test_the_server_names_by_the_same_rule() -> None:
    from gutskit.server.protocol import ProtocolError
    from gutskit.server.rooms import clean_name

    assert clean_name("  Ana ") == "Ana"
    for bad in ("\x1b[31mRed", "N" * 25, " "):
        with pytest.raises(ProtocolError) as info:
            clean_name(bad)
        assert info.value.code == "bad_name"
        assert str(info.value) == (f"bad_name: name {bad!r} {name_problem(bad)}: a name is "
                                   "1 to 24 printable characters")


# --- 3. guts verify --history without FILE -----------------------------------------------------

def test_verify_history_without_the_fairness_file_says_it_is_missing(tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    history.write_text("{}\n")
    result = guts("verify", "--history", str(history))
    assert one_error(result) == (f"error: FILE is missing: --history {str(history)!r} is "
                                 "checked against a room's fairness.json (guts verify "
                                 f"fairness.json --history {history}; a hand history alone: "
                                 f"guts verify {history})")


# --- 4. referee files: the dealer and the player count ------------------------------------------

@pytest.mark.parametrize(("table", "message"), [
    ({"players": [{"name": "Ana", "stack": 5}, {"name": "Ben", "stack": 5}], "dealer": None},
     "dealer must be one of the players (Ana, Ben), not null"),
    ({"players": [{"name": "Ana", "stack": 5}, {"name": "Ben", "stack": 5}]},
     "no \"dealer\": name the first round's dealer, one of the players (Ana, Ben)"),
    ({"players": [{"name": "Ana", "stack": 5}], "dealer": None},
     "Guts needs 2 to 10 players, got 1"),
], ids=["null dealer", "no dealer", "one player and a null dealer"])
def test_referee_dealer_errors(tmp_path: Path, table: dict[str, object], message: str) -> None:
    file = tmp_path / "night.json"
    file.write_text(json.dumps({**table, "rounds": []}))
    assert one_error(guts("referee", str(file))) == f"error: {message}"


# --- 5. rules files ------------------------------------------------------------------------

def test_a_rules_file_error_names_the_file_and_every_rule(tmp_path: Path) -> None:
    file = tmp_path / "house.toml"
    file.write_text("antes = 2\n")
    assert one_error(guts("rules", "--rules", str(file))) == (
        f"error: rules file {str(file)!r}: unknown house rule 'antes' (did you mean "
        "'ante'?); see 'guts rules'")  # was every name (cli12)
    file.write_text("ante = 0\n")
    assert one_error(guts("play", "--rules", str(file), "--db", str(tmp_path / "g.db"))) == (
        f"error: rules file {str(file)!r}: ante: must be at least 1 (got 0)")
    file.write_text("ante = " + "9" * 5000 + "\n")
    assert one_error(guts("rules", "-r", str(file))) == (
        f"error: rules file {str(file)!r} holds a number with more than 4300 digits")
    assert not (tmp_path / "g.db").exists()


def test_a_rule_option_error_names_the_option() -> None:
    assert one_error(guts("rules", "--rule", "antes=2", "--rule", "pot_cap=50")) == (
        "error: --rule antes=2 --rule pot_cap=50: unknown house rule 'antes' (did you mean "
        "'ante'?); see 'guts rules'")  # was every name (cli12)
    assert one_error(guts("rules", "--rule", "ante")) == (
        "error: --rule: expected KEY=VALUE (e.g. pot_cap=50), got 'ante'")
    assert one_error(guts("rules", "--rule", "pot_cap=" + "9" * 5000)) == (
        "error: --rule: pot_cap: " + "9" * 39 + "… is not a number a rule can hold (5000 "
        "characters)")


# --- bad inputs tried after the list ----------------------------------------------------------

def test_a_name_with_an_escape_in_a_referee_file_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "night.json"
    file.write_text(json.dumps({"players": [{"name": "\x1b[2JAna", "stack": 5},
                                            {"name": "Ben", "stack": 5}],
                                "dealer": "Ben", "rounds": []}))
    assert one_error(guts("referee", str(file))) == (
        'error: player 1: name "\\u001b[2JAna" has a control character (a player\'s name is '
        "1 to 24 printable characters)")


def test_a_name_with_an_escape_in_a_saved_history_is_refused(tmp_path: Path) -> None:
    """A JSON Lines history (edited, or from elsewhere) whose SessionStarted names a player
    with an ANSI escape: every command that reads it refuses it before printing a name."""
    db = tmp_path / "g.db"
    assert guts("play", "--players", "2", "--seed", "1", "--db", str(db),
                input="in\nquit\n").exit_code == 0
    lines = guts("history", "1", "--db", str(db), "--json").stdout.splitlines()
    first = json.loads(lines[0])
    first["names"][0] = "\x1b[2JYou"
    history = tmp_path / "h.jsonl"
    history.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    expected = (f"error: {history}: event 1 (line 1): the SessionStarted event's field 'names' "
                'is bad: name "\\u001b[2JYou" has a control character')
    for args in (("analyze", "--history"), ("referee",), ("verify",)):
        assert one_error(guts(*args, str(history))) == expected, args


def test_an_escape_piped_in_is_echoed_escaped(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    out = guts("play", "--players", "2", "--seed", "1", "--db", db,
               input="\x1b[2Jin\nquit\n").stdout
    assert "\x1b" not in out
    assert "[i/o/q] \\x1b[2Jin\n" in out  # the answer as typed, escaped
    out = guts("companion", "-n", "Ana,Ben", "--db", db, input="\x1b[2J\nend\n").stdout
    assert "\x1b" not in out and "end? \\x1b[2J\n" in out


def test_pass_the_trash_refuses_a_digit_that_is_not_a_position(tmp_path: Path) -> None:
    """``"²"`` is a digit to ``str.isdigit`` but not to ``int()`` (it was a traceback)."""
    result = guts("play", "--players", "2", "--seed", "1", "--preset", "pass-the-trash",
                  "--db", str(tmp_path / "g.db"), input="²\n4\nq\n")
    assert result.exit_code == 0, result.stderr
    for typed in ("²", "4"):
        assert (f"'{typed}' is not one of your cards. Type 1/2/3 or the card, e.g. 7h, or "
                "quit (q).") in result.stdout


def test_a_rules_file_that_is_not_text_says_so(tmp_path: Path) -> None:
    file = tmp_path / "house.toml"
    file.write_bytes(b"ante = 1\n\xff\n")
    assert one_error(guts("sim", "--rules", str(file))) == (
        f"error: rules file {str(file)!r} is not UTF-8 text (byte 10 is 0xff)")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_serve_refuses_a_bad_redis_url_before_it_creates_the_database(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    port = str(_free_port())
    result = guts("serve", "--redis", "notaurl", "--port", port, "--db", str(db))
    assert one_error(result) == (
        "error: --redis 'notaurl': not a Redis URL: Redis URL must specify one of the "
        "following schemes (redis://, rediss://, unix://)")
    result = guts("serve", "--redis", "redis://127.0.0.1:1", "--port", port, "--db", str(db))
    assert one_error(result).startswith("error: --redis 'redis://127.0.0.1:1': no answer (")
    assert not db.exists()


def test_serve_quotes_an_unknown_host(tmp_path: Path) -> None:
    result = guts("serve", "--host", "a..b", "--port", "8791", "--db", str(tmp_path / "s.db"))
    assert one_error(result) == ("error: cannot listen on a..b:8791: --host 'a..b' is unknown "
                                 "(not a host name)")


def test_a_number_of_thousands_of_digits_in_a_file_is_one_error_line(tmp_path: Path) -> None:
    """``guts verify`` read it with a traceback (int() refuses 4300+ digits)."""
    file = tmp_path / "big.json"
    file.write_text('{"players": [{"name": "A", "stack": ' + "9" * 5000 + "}]}")
    assert one_error(guts("verify", str(file))) == (
        f"error: {file}: event 1 (line 1): not a hand-history event (nested too deeply, or a "
        "number too long)")
    assert one_error(guts("referee", str(file))) == (
        f"error: {file} is not a valid referee file: it holds a number with more than 4300 "
        "digits")


def test_a_long_typed_card_is_quoted_cut_short(tmp_path: Path) -> None:
    typed = "A" * 3000
    shown = "'" + "A" * 59 + "…'"
    assert one_error(guts("compare", typed, "As")) == (
        f"error: unknown card {shown} (expected e.g. 'As', 'Td', '10d' or 'A♠')")
    out = guts("companion", "-n", "Ana,Ben", "--db", str(tmp_path / "g.db"),
               input=f"\nAna Ben\n{typed}\nend\n").stdout
    words = " ".join(out.split())  # as printed, lines wrapped at the console's width
    assert (f"Ben: unknown card {shown} (expected e.g. 'As', 'Td', '10d' or 'A♠'). Type "
            "Ben's cards again.") in words
    assert typed not in out


@pytest.mark.parametrize("command", ["history", "analyze"])
def test_reading_commands_never_turn_a_file_into_a_database(tmp_path: Path,
                                                            command: str) -> None:
    """Fresh user, session 6: ``guts history --db notes.txt`` on an empty file printed "No
    saved sessions" and left a 16 KB SQLite database in place of the file."""
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"")
    result = guts(command, "--db", str(notes))
    assert result.exit_code == 2
    assert one_error(result) == (f"error: {str(notes)!r} is not a gutskit database: it holds "
                                 "no saved sessions table (an empty file, or another "
                                 "program's)")
    assert notes.read_bytes() == b""  # untouched
    # A store 'guts play' made is read as before.
    saved = tmp_path / "saved.db"
    open_store(saved)
    listed = guts("history", "--db", str(saved))
    assert listed.exit_code == 0
    assert f"No saved sessions in {saved}." in listed.output.replace("\n", "")


@pytest.mark.parametrize(("name", "problem"), [
    ("A\u2028B", "has a line break"), ("A\u2029B", "has a line break"),
    ("\u3164", "looks empty"), ("\u2800 \u2800", "looks empty"),
    ("a" + "\u0301" * 23, "has more than 3 accents on one letter"),
    ("Zoe\u0308", None), ("Nguye\u0302\u0303n", None), ("\u3164Ana", None)])
def test_names_that_break_a_line_look_empty_or_stack_accents(name: str,
                                                             problem: str | None) -> None:
    """attack6, session 6: U+2028, a Hangul filler or Braille blank alone, and 23 accents on
    one letter were accepted as names (server and CLI share :func:`name_problem`)."""
    assert name_problem(name) == problem
