"""What the fresh user of session 7 found in the messages (each one line, exit 2, no
traceback, where it is an error): "their hand" said to You, ``--alpha nan``, the hi-lo
preset not named, ``guts serve --db`` of a folder, a 5000-digit buy-in quoted as Python
bytes by the server."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest
from server_support import running_server
from test_cli import assert_user_error, guts

from gutskit.cli.words import second_person

# --- "their hand" said to You -----------------------------------------------------------------

def test_a_refused_pass_is_said_to_you_in_the_second_person(tmp_path: Path) -> None:
    # Seed 7, Pass the Trash, 3 players: your cards are 8♦ 3♣ 7♠ (docs: guts play --seed 7).
    result = guts("play", "--players", "3", "--seed", "7", "--rule", "pass_the_trash=true",
                  "--db", str(tmp_path / "g.db"), input="As\n1\nquit\n")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert ("You cannot pass As: it is not in your hand (8d 3c 7s). Type 1/2/3 or the card, "
            "e.g. 7h, or quit (q).") in text
    assert "their hand" not in text and "'You'" not in text
    assert "You pass 8♦ to the left" in text


def test_a_refused_declaration_is_said_to_you() -> None:
    assert second_person("'You' cannot declare in: require_cover needs 3 chips to match the "
                         "pot, 'You' has 2", "You") == (
        "You cannot declare in: require_cover needs 3 chips to match the pot, you have 2")
    # another name is spoken of as the table speaks of it
    assert second_person("'Ana' cannot pass As: it is not in their hand", "Ana") == (
        "'Ana' cannot pass As: it is not in their hand")


# --- --alpha nan --------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "line"), [
    ("nan", "error: --alpha nan is not a number: it must be from 0.0 to 1.0 "
            "(see 'guts analyze --help')"),
    ("2", "error: --alpha 2 is out of range: it must be from 0.0 to 1.0 "
          "(see 'guts analyze --help')"),
])
def test_a_bad_alpha_is_named_with_the_range(tmp_path: Path, value: str, line: str) -> None:
    assert assert_user_error(guts("analyze", "--alpha", value, "--db",
                                  str(tmp_path / "none.db"))) == line


# --- the hi-lo preset ---------------------------------------------------------------------------

@pytest.mark.parametrize("command", [("odds", "As Kd 2c"), ("advise", "As Kd 2c"), ("solve",)])
def test_the_solver_names_the_preset_that_set_an_unmodelled_rule(
        command: tuple[str, ...]) -> None:
    line = assert_user_error(guts(*command, "--preset", "hi-lo"))
    assert line == ("error: --preset hi-lo sets hi_lo = true: hi_lo is not modelled by the "
                    "solver")
    # set by --rule: the rule is named, as before
    line = assert_user_error(guts(*command, "--rule", "hi_lo=true"))
    assert line == "error: hi_lo is not modelled by the solver"


def test_the_estonian_preset_is_named_for_its_reserve() -> None:
    line = assert_user_error(guts("solve", "--preset", "estonian"))
    assert line == ("error: --preset estonian sets pot_cap_mode = reserve: pot_cap_mode = "
                    "'reserve' is not modelled (use 'match')")


# --- guts serve --db FOLDER ---------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_serve_on_a_folder_says_it_is_a_folder_and_what_it_takes(tmp_path: Path) -> None:
    line = assert_user_error(guts("serve", "--db", str(tmp_path), "--host", "127.0.0.1",
                                  "--port", str(_free_port())))
    assert line == (f"error: cannot open database {str(tmp_path)!r}: it is a folder; --db "
                    f"takes a database file (e.g. {str(tmp_path / 'gutskit.db')!r}) or a URL "
                    "(scheme://...)")
    assert list(tmp_path.iterdir()) == []  # nothing created


# --- a 5000-digit buy-in ------------------------------------------------------------------------

def test_a_huge_number_in_a_body_is_quoted_short_and_decoded(tmp_path: Path) -> None:
    digits = "9" * 5000
    with running_server(f"sqlite:///{tmp_path / 'huge.db'}") as server:
        headers = {"Origin": server.http, "Content-Type": "application/json"}
        as_text = httpx.post(f"{server.http}/api/rooms", headers=headers,
                             content=f'{{"host_name": "Ana", "buy_in": "{digits}"}}', timeout=60)
        assert (as_text.status_code, as_text.json()) == (400, {
            "code": "bad_message",
            "message": f'buy_in: input should be a valid integer (got "{digits[:26]}… '
                       '(5000 characters))'})
        as_number = httpx.post(f"{server.http}/api/rooms", headers=headers,
                               content=f'[{digits}]', timeout=60)
        message = as_number.json()["message"]
        assert as_number.status_code == 400
        assert message.startswith("body: invalid json: number out of range")
        assert message.endswith(f'(got "[{digits[:25]}… (5002 characters))')
        assert "b'" not in message and len(message) < 200
        assert server.manager.rooms == {}


# --- 5. trying every command as a new user ------------------------------------------------------

def test_a_bad_argument_is_named_by_its_metavar(tmp_path: Path) -> None:
    line = assert_user_error(guts("history", "abc", "--db", str(tmp_path / "g.db")))
    assert line == "error: SESSION_ID 'abc' is not a whole number (see 'guts history --help')"


def test_a_database_drivers_message_over_two_lines_is_one_error_line() -> None:
    # PostgreSQL's client says why on two lines ("... Connection refused\n\tIs the server
    # running on that host ..."): port 1 refuses at once
    line = assert_user_error(guts("history", "--db", "postgresql://nouser@127.0.0.1:1/x"))
    assert line.startswith("error: cannot open database 'postgresql://nouser@127.0.0.1:1/x': ")
    assert "Connection refused Is the server running" in line


@pytest.mark.parametrize(("bot", "line"), [
    ("threshold:XX", "error: threshold percentile 'XX' in 'threshold:XX' is not a number: "
                     "a bot's threshold is a percentile (from 0 to 1 or 0% to 100%, e.g. "
                     "threshold:0.7 or threshold:70%; a hand such as threshold:'9c 9d 2h' is "
                     "taken by guts odds --strategy only)"),
    ("threshold:150", "error: threshold percentile '150' in 'threshold:150' must be from 0 "
                      "to 1 or 0% to 100%, e.g. threshold:0.7 or threshold:70%"),
])
def test_a_bad_threshold_bot_names_its_percentile_and_the_range(bot: str, line: str) -> None:
    assert assert_user_error(guts("tournament", "--sessions", "1", "--rounds", "3", "--bots",
                                  bot)) == line


@pytest.mark.parametrize("command", ["sim", "play", "rules"])
def test_a_control_character_in_a_rule_is_shown_escaped(command: str) -> None:
    """fresh7: ``--rule 'ante=<ESC>[2J'`` echoed the escape raw (it cleared the screen)."""
    line = assert_user_error(guts(command, "--rule", "ante=\x1b[2J"),
                             "--rule ante=\\x1b[2J: ante: input should be a valid integer")
    assert "\x1b" not in line


def test_another_programs_database_is_never_written(tmp_path: Path) -> None:
    """fresh7: ``guts play --db OTHER.db`` added its tables to another program's SQLite
    file. It is refused, and the file keeps its one table."""
    import sqlite3

    from gutskit.io.location import StorageError
    from gutskit.io.storage import open_store

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE t (x)")
    with pytest.raises(StorageError, match=r"another program's database \(it holds 1 "
                                           r"table or view, none of gutskit's\)"):
        open_store(other)
    played = guts("play", "--db", str(other), input="quit\n")  # the store opens meanwhile
    assert played.exit_code == 2
    assert played.stderr.strip().splitlines() == [
        f"error: {str(other)!r} is another program's database (it holds 1 table or view, none "
        "of gutskit's): give a new file or a gutskit database"]
    with sqlite3.connect(other) as connection:
        names = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert names == ["t"]


@pytest.mark.parametrize("origin", ["notaurl", "https://a.org/path", "http://x:99999",
                                    "ftp://a.org", "https://a.org?x=1"])
def test_an_allowed_origin_must_be_a_browser_origin(origin: str) -> None:
    """fresh7: ``guts serve --allow-origin notaurl`` was taken silently (it matched no
    browser); it is refused before anything starts."""
    assert_user_error(guts("serve", "--allow-origin", origin),
                      f"--allow-origin: {origin!r} is not a browser origin such as "
                      "https://guts.example.org or http://localhost:3000")


def test_an_allowed_origin_is_kept_as_a_browser_sends_it() -> None:
    from gutskit.cli.serve import _origin

    assert _origin("https://a.example.org/") == "https://a.example.org"
    assert _origin(" http://localhost:3000 ") == "http://localhost:3000"
