"""What a fresh user (README only) tripped on in session 11 and polish11 mended: output
within the terminal's width, the prompts' help (the rebuy's too), errors that name the bad
value and where it came from, and the wording of help texts and reports. Every message is
asserted word for word."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from rich.cells import cell_len
from test_cli import assert_user_error, guts
from typer.testing import CliRunner, Result

from gutskit.cli.app import app
from gutskit.cli.serve import served_at
from gutskit.core.rules import Rules
from gutskit.io.files import load_rules


def narrow(*args: str, input: str | None = None) -> Result:
    """``guts ARGS`` at the default terminal width (80 columns)."""
    return guts(*args, input=input, columns=80)


def env_guts(env: Mapping[str, str | None], *args: str) -> Result:
    """``guts ARGS`` with the environment variables ``env`` set (``None``: unset)."""
    runner = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": "120",
                            "GUTSKIT_DB": None, "GUTSKIT_LOOP": None, "GUTSKIT_REDIS": None,
                            **env})
    result = runner.invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def _fits(text: str, width: int) -> None:
    """Every line of ``text`` is at most ``width`` cells and has no trailing space."""
    lines = text.splitlines()
    assert lines
    assert max(cell_len(line) for line in lines) <= width, max(lines, key=cell_len)
    assert [line for line in lines if line != line.rstrip()] == []


def _readme_session(tmp_path: Path) -> Path:
    """The README's session: seed 7, three players, in, out, in, then quit in round 4 (four
    rounds dealt, three played, all in game 1: every round had a match)."""
    db = tmp_path / "guts.db"
    result = guts("play", "--players", "3", "--seed", "7", "--db", str(db),
                  input="in\nout\nin\nquit\n")
    assert result.exit_code == 0, result.stderr
    return db


# --- 1. output within the terminal's width ----------------------------------------------------

def test_analyze_fits_80_columns_and_counts_rounds_played(tmp_path: Path) -> None:
    db = _readme_session(tmp_path)
    result = narrow("analyze", "--db", str(db))
    assert result.exit_code == 0, result.stderr
    _fits(result.stdout, 80)
    assert result.stdout.splitlines()[0].strip() == (
        "Players (1 session, 3 rounds played, 1 game)")
    # guts history counts the rounds dealt (the fourth was dealt, then you quit): it says so
    listed = narrow("history", "--db", str(db))
    assert listed.exit_code == 0, listed.stderr
    _fits(listed.stdout, 80)
    lines = listed.stdout.splitlines()
    header = next(line for line in lines if line.startswith("┃ Id"))
    assert [cell.strip() for cell in header.split("┃")[1:-1]] == [
        "Id", "Started (UTC)", "Source", "Players", "Rounds dealt", "Status"]
    row = next(line for line in lines if line.startswith("│  1 │"))
    assert [cell.strip() for cell in row.split("│")[1:-1]][4] == "4"


def test_tournament_fits_80_columns() -> None:
    result = narrow("tournament", "--sessions", "2", "--rounds", "5")
    assert result.exit_code == 0, result.stderr
    _fits(result.stdout, 80)
    assert "Tournament: equilibrium rule-of-thumb exploitative random" in result.stdout
    # the prose under the table is wrapped at 80, not cut
    joined = " ".join(result.stdout.split())
    assert ("Exploitability: not measured (--exploitability measures it: a best-response "
            "search per bot, often longer than the tournament).") in joined


# --- 2, 3. help at the prompts; the rebuy prompt ----------------------------------------------

def test_help_at_the_declaration_prompt_is_only_the_help(tmp_path: Path) -> None:
    result = guts("play", "--players", "3", "--seed", "7", "--db", str(tmp_path / "g.db"),
                  input="help\nquit\n")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert ("In or out? [i/o/q] help Type in (i), out (o) or quit (q). Going in plays for "
            "the pot: if you lose you match it (the line above says how much). away sits you "
            "out from the next deal, seat and chips kept; back brings you back. "
            "In or out? [i/o/q] quit") in text
    assert "not an answer" not in text


def test_the_rebuy_prompt_explains_itself(tmp_path: Path) -> None:
    # Seed 7, 20 chips, buy-in-limits (minimum buy-in 20, 2 rebuys): round 1 you go in and
    # match 3 (20 - 1 ante - 3 = 16), below the minimum: the rebuy is offered (20 chips).
    result = guts("play", "--players", "3", "--seed", "7", "--chips", "20", "--preset",
                  "buy-in-limits", "--db", str(tmp_path / "g.db"),
                  input="in\n?\nmaybe\nn\nquit\n")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert ("Your stack is 16: you may rebuy, 2 of 2 left. Rebuy 20 chips? [y/n/q] ? "
            "Your stack of 16 is low enough to buy chips again. Type y (yes) to buy 20 chips "
            "now (the ledger adds them to your buy-in), n (no) to play on with your stack "
            "(you are asked again when it changes), or quit (q) to end the session. "
            "Rebuy 20 chips? [y/n/q] maybe Sorry, 'maybe' is not an answer. Type y (rebuy), "
            "n (play on without) or quit (q); help explains. Rebuy 20 chips? [y/n/q] n") in text


def test_the_rebuy_prompt_is_in_play_help_and_the_readme() -> None:
    shown = " ".join(guts("play", "--help").stdout.split())
    assert ("With rebuys allowed (--rule rebuys=true, or --preset buy-in-limits), a stack "
            "below the minimum buy-in (below the ante when there is none) is asked Rebuy C "
            "chips? [y/n/q] between rounds") in shown
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text("utf-8").split())
    assert "`Rebuy C chips? [y/n/q]`" in readme
    assert "`help` or `?` at any prompt explains it" in readme


# --- 4. errors that name the value and where it came from -------------------------------------

@pytest.mark.parametrize(("env", "args", "expected"), [
    ({"GUTSKIT_DB": " "}, ["history"],
     "error: GUTSKIT_DB is set but blank (' '): unset it to use the default database, or set "
     "it to a database file or URL (or give --db)"),
    ({"GUTSKIT_DB": ""}, ["analyze"],
     "error: GUTSKIT_DB is set but empty: unset it to use the default database, or set it to "
     "a database file or URL (or give --db)"),
    ({"GUTSKIT_LOOP": "bogus"}, ["serve", "--port", "1"],
     "error: GUTSKIT_LOOP='bogus' is not one of auto, uvloop, asyncio"),
    ({"GUTSKIT_LOOP": ""}, ["serve", "--port", "1"],
     "error: GUTSKIT_LOOP is set but empty: unset it to use the default loop (auto), or set "
     "it to auto, uvloop or asyncio (or give --loop)"),
    ({"GUTSKIT_REDIS": ""}, ["serve", "--port", "1"],
     "error: GUTSKIT_REDIS is set but empty: unset it to use no Redis (one server, or "
     "--workers N with its own redis-server), or set it to a Redis URL such as "
     "redis://10.0.0.5:6379/0 (or give --redis)"),
])
def test_every_gutskit_variable_is_named_and_refused_empty(
        env: dict[str, str], args: list[str], expected: str) -> None:
    result = env_guts(env, *args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == expected + "\n"


def test_an_option_given_on_the_command_line_is_named_as_the_option() -> None:
    result = env_guts({"GUTSKIT_LOOP": "asyncio"}, "serve", "--port", "1", "--loop", "bogus")
    assert result.stderr == "error: --loop 'bogus' is not one of auto, uvloop, asyncio\n"
    assert assert_user_error(guts("history", "--db", " ")) == (
        "error: --db ' ' is blank: give a database file or URL, or leave --db out for the "
        "default database")
    # an empty GUTSKIT_DB is no mistake when --db is given
    assert env_guts({"GUTSKIT_DB": ""}, "history", "--db", "/nonexistent/g.db").stderr == (
        "error: cannot open database '/nonexistent/g.db': the folder '/nonexistent' does "
        "not exist\n")


def test_analyze_reads_gutskit_db_as_history_does(tmp_path: Path) -> None:
    db = _readme_session(tmp_path)
    result = env_guts({"GUTSKIT_DB": str(db)}, "analyze", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["sessions"], data["rounds"], data["games"]) == (1, 3, 1)
    # --history FILE is read instead of GUTSKIT_DB's database
    history = tmp_path / "h.jsonl"
    history.write_text(guts("history", "1", "--json", "--db", str(db)).stdout, "utf-8")
    result = env_guts({"GUTSKIT_DB": str(tmp_path / "none.db")}, "analyze", "--history",
                      str(history), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["rounds"] == 3


@pytest.mark.parametrize("value", ["", " "])
def test_an_empty_rules_path_is_named_empty(value: str) -> None:
    assert assert_user_error(guts("play", "--rules", value)) == (
        f"error: --rules {value!r}: the path is empty: give a file name, or leave --rules out "
        "(see 'guts play --help')")


def test_rule_values_say_what_they_may_be(tmp_path: Path) -> None:
    rules = tmp_path / "house.toml"
    rules.write_text('require_cover = "yes"\n', "utf-8")
    assert assert_user_error(guts("rules", "--rules", str(rules))) == (
        f"error: rules file {str(rules)!r}: require_cover: input should be a valid boolean "
        '(got "yes"): write true or false')
    assert assert_user_error(guts("rules", "--rule", "pot_cap=null")) == (
        'error: --rule pot_cap=null: pot_cap: input should be a valid integer (got "null"): '
        "write a whole number, or none")
    assert assert_user_error(guts("rules", "--rule", "max_rebuys=1.5")) == (
        "error: --rule max_rebuys=1.5: max_rebuys: input should be a valid integer (got 1.5): "
        "write a whole number, or none")
    # an integer rule with a default is not told about none
    assert assert_user_error(guts("rules", "--rule", "ante=x")) == (
        'error: --rule ante=x: ante: input should be a valid integer (got "x")')


def test_a_rules_file_may_start_with_a_bom(tmp_path: Path) -> None:
    rules = tmp_path / "windows.toml"
    rules.write_bytes(b"\xef\xbb\xbfante = 2\r\npot_cap = 50\r\n")
    assert load_rules(rules) == Rules(ante=2, pot_cap=50)
    result = guts("rules", "--rules", str(rules), "--json")
    assert result.exit_code == 0, result.stderr
    assert (json.loads(result.stdout)["ante"], json.loads(result.stdout)["pot_cap"]) == (2, 50)


def _verify(tmp_path: Path, data: object) -> str:
    path = tmp_path / "file.json"
    path.write_text(json.dumps(data), "utf-8")
    return assert_user_error(guts("verify", str(path))).replace(str(path), "FILE")


EXPECTS = ("not a fairness.json: guts verify checks a room's fairness.json (GET "
           "/api/rooms/ROOM_ID/fairness.json: \"room_id\", \"algorithm\" and \"rounds\") or a "
           "hand history (JSON Lines)")


def test_verify_says_what_a_wrong_json_file_is(tmp_path: Path) -> None:
    referee = {"rules": {"ante": 1}, "players": [{"name": "Ana", "stack": 20}],
               "dealer": "Ana", "rounds": []}
    assert _verify(tmp_path, referee) == (
        "error: 'FILE' is a referee file (the players and rounds 'guts referee' settles), "
        f"{EXPECTS}; to settle a real table's rounds: guts referee FILE")
    assert _verify(tmp_path, {"ante": 2, "pot_cap": 50}) == (
        f"error: 'FILE' is a set of house rules ('ante', 'pot_cap'), {EXPECTS}")
    assert _verify(tmp_path, {"source": "x", "input": {}}) == (
        f"error: 'FILE' is a JSON object with the keys 'source', 'input', {EXPECTS}")


def test_a_full_standard_output_is_named(tmp_path: Path) -> None:
    src = Path(__file__).parents[1] / "src"
    for args in (["rules"], ["rules", "--json"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-c", "from gutskit.cli import main; main()",
                                   *args], stdout=full, stderr=subprocess.PIPE, timeout=120,
                                  env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin",
                                       "HOME": str(tmp_path)})
        assert (done.returncode, done.stderr.decode()) == (
            2, "error: standard output: No space left on device\n")


# --- 5. wording -------------------------------------------------------------------------------

def test_flags_show_no_bool_type_in_help() -> None:
    for command in ("play", "history", "rules", "tournament", "analyze", "serve", "verify"):
        shown = guts(command, "--help").stdout
        assert "<bool>" not in shown and "bool" not in shown.lower(), command
    line = next(line for line in guts("play", "--help").stdout.splitlines()
                if "--coach" in line and "After each" in line)
    assert line.split("--coach")[1].split("After each")[0].strip() == ""


def test_serve_names_a_url_a_browser_opens() -> None:
    assert served_at("127.0.0.1", 8000) == "http://127.0.0.1:8000/"
    assert served_at("::1", 8000) == "http://[::1]:8000/"
    assert served_at("guts.lan", 80) == "http://guts.lan:80/"
    import socket

    name = socket.gethostname()
    others = f": other machines open http://{name}:8000/" if name != "localhost" else ""
    assert served_at("0.0.0.0", 8000) == (
        f"http://127.0.0.1:8000/, listening on all interfaces{others}")
    assert served_at("::", 8000) == f"http://[::1]:8000/, listening on all interfaces{others}"


def test_table_titles_have_no_trailing_spaces() -> None:
    result = guts("rules")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "House rules"
    assert [line for line in result.stdout.splitlines() if line != line.rstrip()] == []


def test_help_at_every_companion_prompt_shows_the_help_and_asks_again(tmp_path: Path) -> None:
    """``help`` or ``?`` at companion mode's prompts (between rounds, the declarations, a
    player's cards) prints the help and asks the same question again, never "not an
    answer"; the round then plays as if it had not been typed: antes 1 each (pot 3, stacks
    19), Ana and Ben in; the cards are asked from the dealer's left (Ben first): Ben's
    queens beat Ana's ace high, Ben takes 3 (22) and Ana matches 3 (16). A player named
    Help is a name, not the help: Help alone in takes the pot of 2 (21)."""
    result = guts("companion", "--players", "Ana,Ben,Cleo", "--chips", "20", "--db",
                  str(tmp_path / "h.db"),
                  input="help\n\n?\nAna Ben\nhelp\nQh Qc 3d\nAh Kd 2c\nend\n")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "not an answer" not in text
    assert text.count("Between rounds: Enter (or deal) deals the next round;") == 3
    assert "Stacks: Ana 16 · Ben 22 · Cleo 19" in text
    named = guts("companion", "--players", "Help,Ben", "--chips", "20", "--db",
                 str(tmp_path / "n.db"), input="\nhelp\nend\n")
    assert named.exit_code == 0, named.output
    assert "Between rounds:" not in named.output
    assert "Stacks: Help 21 · Ben 19" in " ".join(named.output.split())
