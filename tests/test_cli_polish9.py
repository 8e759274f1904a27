"""What the fresh user and the attacker of session 8 found and session 9 fixed, each with
the exact new output: one line ``error: ...`` on stderr quoting the bad value, exit 2,
never a traceback, nothing half-written."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from server_support import running_server
from test_cli import assert_user_error, guts
from test_cli_fresh_user7 import _free_port
from test_server_verify import build_session

from gutskit.core.rules import Rules
from gutskit.io.files import load_rules
from gutskit.server.exports import history_jsonl

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"


def _session(tmp_path: Path) -> tuple[Path, Path, list[dict[str, object]]]:
    fairness, history = build_session()
    fair = tmp_path / "fair.json"
    fair.write_text(json.dumps(fairness))
    lines = tmp_path / "h.jsonl"
    lines.write_text(history_jsonl(history))
    return fair, lines, history


# ---------------------------------------------------------------------------------------------
# 1. guts verify fair.json --history FILE: a history that is not one is a user error


@pytest.mark.parametrize("text", ["", "  \n\n"])
def test_an_empty_history_is_a_user_error_not_a_failed_check(tmp_path: Path,
                                                            text: str) -> None:
    fair, _, _ = _session(tmp_path)
    empty = tmp_path / "empty.json"
    empty.write_text(text)
    line = assert_user_error(guts("verify", str(fair), "--history", str(empty)))
    assert line == (f"error: --history {str(empty)!r} is empty: give your hand history of "
                    "the room (history.jsonl, JSON Lines)")


def test_a_fairness_file_given_as_the_history_is_named(tmp_path: Path) -> None:
    fair, _, _ = _session(tmp_path)
    line = assert_user_error(guts("verify", str(fair), "--history", str(fair)))
    assert line == (f"error: --history {str(fair)!r} is a fairness file, not a hand history: "
                    "give your hand history of the room (history.jsonl, JSON Lines)")


def test_a_history_given_as_the_fairness_file_is_named(tmp_path: Path) -> None:
    _, lines, _ = _session(tmp_path)
    other = tmp_path / "x.json"
    line = assert_user_error(guts("verify", str(lines), "--history", str(other)))
    assert line == (f"error: {str(lines)!r} is a hand history, not a fairness.json: with "
                    "--history, FILE is the room's fairness.json (guts verify fairness.json "
                    f"--history {other}; a hand history alone: guts verify {lines})")


# ---------------------------------------------------------------------------------------------
# 2. a hand history as one JSON document (pretty-printed) is read; an object is named


def test_a_pretty_printed_history_is_read_like_its_json_lines(tmp_path: Path) -> None:
    fair, lines, history = _session(tmp_path)
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(history, indent=2))
    one_line = tmp_path / "one.json"
    one_line.write_text(json.dumps(history))
    expected = guts("analyze", "--history", str(lines))
    assert expected.exit_code == 0
    for path in (pretty, one_line):
        result = guts("analyze", "--history", str(path))
        assert (result.exit_code, result.stdout) == (0, expected.stdout)
    result = guts("verify", str(fair), "--history", str(pretty))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "4 of 4 rounds verified"


def test_a_referee_file_as_a_history_says_which_format_is_expected() -> None:
    case = CASES / "seed-example-pot-5.json"
    line = assert_user_error(guts("analyze", "--history", str(case)))
    assert line == (f"error: {case} is one JSON document (an object with keys \"source\", "
                    "\"input\", \"expected\"), not a hand history: a hand history is JSON "
                    "Lines, one event object per line ('guts history ID --json'), or a JSON "
                    f"array of events; a referee file is checked with 'guts referee {case}'")


def test_an_array_item_that_is_not_an_event_is_named_by_its_place(tmp_path: Path) -> None:
    path = tmp_path / "arr.json"
    path.write_text('[{"type": "Declared", "seat": 0, "declaration": "in"},\n 7]')
    line = assert_user_error(guts("analyze", "--history", str(path)))
    assert line == (f"error: {path}: event 2 (item 2 of the JSON array): not a hand-history "
                    "event (a JSON object with a \"type\"): found 7")


# ---------------------------------------------------------------------------------------------
# 4. POST /api/rooms: a key given twice is refused, named; 6. referee.json before the start


def test_a_room_body_with_a_key_twice_is_refused(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'keys.db'}") as server:
        for body, key in (('{"host_name": "Ana", "buy_in": 5, "buy_in": 500}', "buy_in"),
                          ('{"host_name": "Ana", "rules": {"ante": 1, "ante": 5}}', "ante")):
            response = httpx.post(f"{server.http}/api/rooms", content=body, timeout=60,
                                  headers={"Origin": server.http,
                                           "Content-Type": "application/json"})
            assert response.status_code == 400
            assert response.json() == {"code": "bad_message", "message": (
                f"body: the key '{key}' appears twice in one object (give each field once)")}
        assert server.manager.rooms == {}
        # 6. a companion room's referee file before its session starts
        created = server.create_room(companion=True)
        response = server.get(f"/api/rooms/{created['room_id']}/referee.json"
                              f"?token={created['token']}")
        assert response.status_code == 409
        assert response.json() == {"detail": (
            "the session has not started yet: the referee file holds the session from its "
            "first deal (ask again once the host has started it)")}


# ---------------------------------------------------------------------------------------------
# 5. the referee refuses a chip amount beyond what a table may hold (2**53 - 1), naming the
# limit; a stack that grew past the largest buy-in (MAX_CHIPS) is a position it reads


@pytest.mark.parametrize(("where", "what", "got"), [
    ({"players": [{"name": "Ana", "stack": 10**100}, {"name": "Ben", "stack": 20}]},
     "stack of 'Ana'", "1000000000000000000000000000000000000000… (101 digits)"),
    ({"pot": 2**53}, "pot", "9007199254740992"),
])
def test_the_referee_refuses_chips_beyond_the_limit(tmp_path: Path, where: dict[str, object],
                                                    what: str, got: str) -> None:
    data: dict[str, object] = {"players": [{"name": "Ana", "stack": 20},
                                           {"name": "Ben", "stack": 20}],
                               "dealer": "Ana", "rounds": [], **where}
    path = tmp_path / "ref.json"
    path.write_text(json.dumps(data))
    line = assert_user_error(guts("referee", str(path)))
    assert line == (f"error: {what} must be at most 9007199254740991 chips (the most a table "
                    f"may hold), got {got}")


def test_the_referee_refuses_a_table_holding_more_than_the_limit(tmp_path: Path) -> None:
    half = 2**52  # each amount is within the bound, their sum (2**53) is not
    data = {"players": [{"name": "Ana", "stack": half}, {"name": "Ben", "stack": half}],
            "dealer": "Ana", "rounds": []}
    path = tmp_path / "ref.json"
    path.write_text(json.dumps(data))
    line = assert_user_error(guts("referee", str(path)))
    assert line == ("error: the stacks, pot and reserve hold 9007199254740992 chips in all; "
                    "a table holds at most 9007199254740991")


def test_the_referee_reads_a_stack_grown_past_the_largest_buy_in(tmp_path: Path) -> None:
    # A position mid-session: Ana won pots and holds 1,500,000 (past MAX_CHIPS = 1,000,000),
    # the pot carried over 1,200,000; no round to referee, so both stay as they are.
    data = {"players": [{"name": "Ana", "stack": 1_500_000}, {"name": "Ben", "stack": 20}],
            "dealer": "Ana", "pot": 1_200_000, "rounds": []}
    path = tmp_path / "ref.json"
    path.write_text(json.dumps(data))
    done = guts("referee", str(path))
    assert done.exit_code == 0, done.output
    assert "│ Ana    │ 1500000 │" in done.output
    assert "Pot: 1200000 · reserve: 0" in done.output


# ---------------------------------------------------------------------------------------------
# 7. a rules file with a TOML table, or with no house rules


@pytest.mark.parametrize(("text", "message"), [
    (" \n\t\n", "is empty: it holds no house rules (write key = value lines, e.g. "
                 "ante = 2; without --rules the defaults apply)"),
    ("", "is empty: it holds no house rules (write key = value lines, e.g. ante = 2; "
         "without --rules the defaults apply)"),
    ("ante = 2\n[section]\npot_cap = 5\n",
     ": '[section]' is a TOML table, not a house rule: write the house rules as key = value "
     "lines at the top of the file (or all of them under one [rules] table)"),
])
def test_a_rules_file_without_house_rules_is_refused(tmp_path: Path, text: str,
                                                     message: str) -> None:
    path = tmp_path / "house.toml"
    path.write_text(text)
    db = tmp_path / "g.db"
    for command in (("rules", "--rules", str(path)),
                    ("play", "--rules", str(path), "--db", str(db))):
        line = assert_user_error(guts(*command, input="q\n"))
        assert line == f"error: rules file {str(path)!r}{' ' if message[0] != ':' else ''}" \
                       f"{message}"
    assert not db.exists()


def test_a_rules_file_of_comments_only_means_the_defaults(tmp_path: Path) -> None:
    # written on purpose (docs/variants/examples/misdeal.toml: a misdeal needs no house
    # rule), unlike an empty file
    path = tmp_path / "house.toml"
    path.write_text("# a misdeal needs no house rule\n")
    assert load_rules(path) == Rules()


def test_house_rules_under_one_rules_table_are_read(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text("[rules]\nante = 2\n")
    result = guts("rules", "--rules", str(path), "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["ante"] == 2


# ---------------------------------------------------------------------------------------------
# 8. a negative number as a value; 9. digits with underscores; 10. guts --version


def test_a_negative_session_id_gets_a_hint_not_no_such_option(tmp_path: Path) -> None:
    db = str(tmp_path / "none.db")
    line = assert_user_error(guts("history", "-1", "--db", db))
    assert line == ("error: -1 is not an option of 'guts history': a value that starts with "
                    "'-' is read as an option; to give it anyway, put '--' before it: guts "
                    "history -- -1 (see 'guts history --help')")
    line = assert_user_error(guts("history", "--db", db, "--", "-1"))
    assert line == ("error: SESSION_ID -1 is out of range: it must be at least 1 (see 'guts "
                    "history --help')")
    assert not Path(db).exists()


@pytest.mark.parametrize(("args", "name", "value"), [
    (("sim", "--players", "1_0"), "--players", "1_0"),
    (("sim", "--rounds", "5", "--seed", "1_2"), "--seed", "1_2"),
    (("odds", "As Kd Qh", "--pot", "1_"), "--pot", "1_"),
    (("history", "1_0"), "SESSION_ID", "1_0"),
])
def test_digits_with_underscores_are_not_a_number(args: tuple[str, ...], name: str,
                                                  value: str) -> None:
    line = assert_user_error(guts(*args))
    assert line == (f"error: {name} {value!r} is not a number: write digits only, without "
                    "'_' (e.g. 1000, not 1_000)")


def test_guts_version_prints_the_package_version() -> None:
    from importlib.metadata import version

    result = guts("--version")
    assert (result.exit_code, result.stdout) == (0, f"guts {version('gutskit')}\n")
    assert version("gutskit") == "0.1.0"


# ---------------------------------------------------------------------------------------------
# 11. guts serve names GUTSKIT_DB when the database came from it


def test_serve_names_a_bad_gutskit_db(tmp_path: Path) -> None:
    from test_cli import RUNNER

    from gutskit.cli.app import app

    port = str(_free_port())
    result = RUNNER.invoke(app, ["serve", "--host", "127.0.0.1", "--port", port],
                           env={"GUTSKIT_DB": str(tmp_path)})
    assert assert_user_error(result) == (
        f"error: GUTSKIT_DB='{tmp_path}': cannot open database '{tmp_path}': it is a folder; "
        f"it takes a database file (e.g. '{tmp_path}/gutskit.db') or a URL (scheme://...)")
    result = RUNNER.invoke(app, ["serve", "--host", "127.0.0.1", "--port", port, "--db",
                                 str(tmp_path)],
                           env={"GUTSKIT_DB": str(tmp_path)})
    assert assert_user_error(result) == (
        f"error: cannot open database '{tmp_path}': it is a folder; --db takes a database "
        f"file (e.g. '{tmp_path}/gutskit.db') or a URL (scheme://...)")


# ---------------------------------------------------------------------------------------------
# 12. the private redis-server of guts serve --workers ends with guts serve


_HOLD_REDIS = """
import pathlib, sys
import redis
from gutskit.cli.workers import local_redis
with local_redis(pathlib.Path(sys.argv[1])) as url:
    print(redis.Redis.from_url(url).info("server")["process_id"], flush=True)
    sys.stdin.read()
"""


def _ended(pid: int) -> bool:
    """Whether the process ``pid`` has ended (gone, or a zombie nobody has reaped yet)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return status.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def test_the_private_redis_server_dies_with_guts_serve(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    child = subprocess.Popen([sys.executable, "-c", _HOLD_REDIS, str(tmp_path)], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    pid = int(child.stdout.readline())
    try:
        # its own session: Ctrl-C at the terminal (the process group) does not reach it
        assert os.getsid(pid) == pid != os.getsid(child.pid)
        child.kill()  # kill -9 of guts serve: no clean-up runs
        child.wait()
        deadline = time.monotonic() + 60  # waits for the event; a generous bound
        while not _ended(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _ended(pid)
    finally:
        if not _ended(pid):
            os.kill(pid, signal.SIGKILL)


# ---------------------------------------------------------------------------------------------
# 14. bench_eval without PokerKit says so (it printed "pokerkit: 0 evals/s")


def test_bench_eval_says_pokerkit_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    benchmarks = Path(__file__).resolve().parents[1] / "benchmarks"
    monkeypatch.syspath_prepend(str(benchmarks))
    import bench_eval

    monkeypatch.setitem(sys.modules, "pokerkit", None)  # import pokerkit: ImportError
    assert bench_eval.pokerkit_results([(0, 1, 2)], 1.0, 2.0) == ([], (
        "pokerkit: not installed, so no side-by-side figures (pip install pokerkit, or the "
        "dev extra: pip install -e '.[dev]')"))


# ---------------------------------------------------------------------------------------------
# 15. guts tournament measures exploitability only when asked


def test_the_tournament_skips_exploitability_unless_asked() -> None:
    result = guts("tournament", "--bots", "random,random", "--sessions", "1", "--rounds", "2")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "exploit." not in text and "Exploitability of" not in text
    assert text.endswith("Exploitability: not measured (--exploitability measures it: a "
                         "best-response search per bot, often longer than the tournament).")
    assert "[default: off]" in " ".join(guts("tournament", "--help").stdout.split())
