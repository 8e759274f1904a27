"""What a fresh user found in session 11 (paths11): an empty path option or argument is
refused by name (it read as the folder '.'), ``guts analyze --history`` does not read
GUTSKIT_DB, a 5000-character database location is one short ``cannot open database`` line,
a session that the rules end says so once, and the rebuy prompt's help at a stack of 0 says
that ``n`` ends the session. Every message is asserted word for word."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from test_cli import assert_user_error, guts
from typer.testing import CliRunner, Result

from gutskit.cli.app import app

# --- 1. an empty path ----------------------------------------------------------------------

EMPTY_PATHS = [
    (["referee", ""], "FILE ''", "give a file name", "referee"),
    (["verify", ""], "FILE ''", "give a file name", "verify"),
    (["verify", "--history", ""], "--history ''", "give a file name, or leave --history out",
     "verify"),
    (["analyze", "--history", ""], "--history ''",
     "give a file name, or leave --history out", "analyze"),
    (["analyze", "--plot", ""], "--plot ''", "give a file name, or leave --plot out",
     "analyze"),
    (["tournament", "--history", ""], "--history ''",
     "give a file name, or leave --history out", "tournament"),
    (["tournament", "--plot", ""], "--plot ''", "give a file name, or leave --plot out",
     "tournament"),
    (["solve", "--plot", ""], "--plot ''", "give a file name, or leave --plot out", "solve"),
    (["solve", "--export", " "], "--export ' '", "give a file name, or leave --export out",
     "solve"),
    (["rules", "--rules", ""], "--rules ''", "give a file name, or leave --rules out",
     "rules"),
    (["sim", "-r", ""], "--rules ''", "give a file name, or leave --rules out", "sim"),
]


@pytest.mark.parametrize(("args", "given", "hint", "command"), EMPTY_PATHS)
def test_an_empty_path_is_refused_naming_the_option(args: list[str], given: str, hint: str,
                                                    command: str) -> None:
    assert assert_user_error(guts(*args)) == (
        f"error: {given}: the path is empty: {hint} (see 'guts {command} --help')")


# --- 2. analyze --history does not read GUTSKIT_DB -------------------------------------------

def env_guts(env: Mapping[str, str | None], *args: str, input: str | None = None) -> Result:
    """``guts ARGS`` with the environment variables ``env`` set (``None``: unset)."""
    runner = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": "120",
                            "GUTSKIT_DB": None, **env})
    result = runner.invoke(app, list(args), input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


PLAY = ["play", "-n", "2", "--seed", "6", "--chips", "2", "--rule", "rebuys=true",
        "--rule", "max_rebuys=1", "--bots", "loose"]


def test_analyze_with_history_does_not_read_gutskit_db(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    # Two rounds (in, in), then quit.
    assert guts("play", "-n", "2", "--seed", "6", "--chips", "20", "--bots", "loose", "--db",
                str(db), input="i\ni\nquit\n").exit_code == 0
    history = tmp_path / "s1.jsonl"
    history.write_text(guts("history", "1", "--json", "--db", str(db)).stdout, "utf-8")
    for value in ("", " "):
        result = env_guts({"GUTSKIT_DB": value}, "analyze", "--history", str(history),
                          "--json")
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout)["rounds"] == 2
    # Without --history it is still refused, naming the variable.
    assert assert_user_error(env_guts({"GUTSKIT_DB": ""}, "analyze")) == (
        "error: GUTSKIT_DB is set but empty: unset it to use the default database, or set "
        "it to a database file or URL (or give --db)")


# --- 3. a 5000-character database location --------------------------------------------------

LONG = "x" * 5000
SHOWN = "'" + "x" * 199 + "…'"


@pytest.mark.parametrize("command", ["analyze", "history", "play"])
def test_a_long_db_is_one_short_line(command: str) -> None:
    assert assert_user_error(guts(command, "--db", LONG)) == (
        f"error: cannot open database {SHOWN}: File name too long")
    assert assert_user_error(env_guts({"GUTSKIT_DB": LONG}, command)) == (
        f"error: GUTSKIT_DB={SHOWN}: cannot open database {SHOWN}: File name too long")


def test_a_long_db_in_a_missing_folder_is_shortened() -> None:
    value = "/nonexistent-paths11/" + LONG
    shown = repr(value[:199] + "…")
    assert assert_user_error(guts("history", "--db", value)) == (
        f"error: cannot open database {shown}: the folder '/nonexistent-paths11' does not "
        "exist")


# --- 4, 5. the end of a session, the rebuy at 0 ---------------------------------------------

def test_a_session_the_rules_end_says_so_once(tmp_path: Path) -> None:
    # Round 1 and 2 in (you lose your 2 chips), rebuy 2, in again until you have none:
    # You 0, Ava 4 and a pot of 2 (2 + 2 + 2 rebought = 6 chips), shared 1 each at the end.
    result = guts(*PLAY, "--db", str(tmp_path / "g.db"), input="i\ni\ny\ni\ni\ni\ni\ni\n",
                  columns=80)
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert ("Next pot: 2. Stacks: You 0 (out) · Ava 4 The session ends: fewer than two players "
            "left with chips. " + "─" * 33 + " Session over " + "─" * 33 + " What was left "
            "in the pot and reserve is shared: You +1, Ava +1.") in text
    assert text.count("fewer than two players") == 1
    assert "The session is over" not in text


def test_the_rebuy_help_at_a_stack_of_0_says_n_ends_the_session(tmp_path: Path) -> None:
    # Rounds 1 and 2 in: your 2 chips are gone, the rebuy is offered.
    result = guts(*PLAY, "--db", str(tmp_path / "g.db"), input="i\ni\n?\nmaybe\nn\n",
                  columns=80)
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert ("Your stack is 0: you may rebuy, 1 of 1 left. Rebuy 2 chips? [y/n/q] ? "
            "Your stack of 0 is low enough to buy chips again. Type y (yes) to buy 2 chips "
            "now (the ledger adds them to your buy-in), n (no) to end the session: you have "
            "no chips to play on with, or quit (q) to end the session. "
            "Rebuy 2 chips? [y/n/q] maybe Sorry, 'maybe' is not an answer. Type y (rebuy), "
            "n (end the session) or quit (q); help explains. Rebuy 2 chips? [y/n/q] n "
            + "─" * 33 + " Session over " + "─" * 33 +
            " The session ends: you have no chips left.") in text
    assert "play on with your stack" not in text


@pytest.mark.parametrize(("args", "start"), [
    (["analyze", "--history", LONG], "cannot read hand history"),
    (["referee", LONG], "cannot read"),
])
def test_a_long_file_name_is_quoted_cut(args: list[str], start: str) -> None:
    assert assert_user_error(guts(*args)) == (
        f"error: {start} {SHOWN}: File name too long")
