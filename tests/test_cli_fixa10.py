"""A terminal game never ends without its ledger (fresh user, session 10): SIGTERM and
SIGHUP end ``guts play`` / ``guts companion`` as Ctrl-C does; a database that cannot be
written is refused before the first deal; a save that fails later ends the game with its
ledger, then the error."""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gutskit.cli.app import app
from gutskit.cli.terminal import play_session
from gutskit.core.engine import replay
from gutskit.core.events import Event, SessionStarted
from gutskit.core.ledger import ledger
from gutskit.core.rules import Rules
from gutskit.io.storage import StorageError, Store, open_store

SRC = Path(__file__).resolve().parents[1] / "src"
MAIN = "import sys; from gutskit.cli import main; main(sys.argv[1:])"
RUNNER = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": "120",
                        "GUTSKIT_DB": None})


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["COLUMNS"] = "120"
    env.pop("GUTSKIT_DB", None)
    return env


def _until(process: subprocess.Popen[bytes], text: str, times: int) -> str:
    """Read the process's stdout until ``text`` has appeared ``times`` times (at most 60 s
    without output)."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    seen = b""
    while seen.count(text.encode()) < times:
        ready, _, _ = select.select([fd], [], [], 60)
        assert ready, f"no {text!r} within 60 s; output so far: {seen.decode()!r}"
        chunk = os.read(fd, 65536)
        assert chunk, f"the process ended before {text!r}: {seen.decode()!r}"
        seen += chunk
    return seen.decode()


def _signalled(tmp_path: Path, args: Sequence[str], answers: str, prompt: str,
               times: int, signum: int) -> tuple[int, str, str]:
    """Run ``guts ARGS``, type ``answers``, wait for the ``times``-th ``prompt`` (the one no
    answer is typed for), send ``signum``; returns the exit status, all of stdout and
    stderr."""
    process = subprocess.Popen([sys.executable, "-c", MAIN, *args], env=_env(tmp_path),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        assert process.stdin is not None
        process.stdin.write(answers.encode())
        process.stdin.flush()  # stdin stays open: the game waits at the prompt
        head = _until(process, prompt, times)
        process.send_signal(signum)
        rest, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, head + rest.decode(), err.decode()


def _history(tmp_path: Path, db: Path) -> list[dict[str, object]]:
    done = subprocess.run([sys.executable, "-c", MAIN, "history", "--json", "--db", str(db)],
                          env=_env(tmp_path), capture_output=True, text=True, timeout=120,
                          check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def _assert_ledger(text: str, db: Path, chips: int) -> None:
    """The printed ledger has each player's final stack and net, as the saved session
    replays; no chip was created or destroyed."""
    state = replay(open_store(db).events(1))
    assert sum(state.stacks) == chips
    ledger_text = text[text.index("Ledger"):]
    for line in ledger(state):
        net = f"{line.net:+d}" if line.net else "0"
        assert f"{line.stack} │" in ledger_text and net in ledger_text, ledger_text


@pytest.mark.parametrize(("signum", "name"), [(signal.SIGTERM, "SIGTERM"),
                                              (signal.SIGHUP, "SIGHUP")])
def test_play_ends_with_its_ledger_on_sigterm_and_sighup(tmp_path: Path, signum: int,
                                                          name: str) -> None:
    db = tmp_path / "guts.db"
    # Round 1 answered, then the signal at round 2's prompt.
    code, out, err = _signalled(tmp_path, ["play", "--seed", "1", "-n", "3", "--db", str(db)],
                                "in\n", "In or out?", 2, signum)
    assert code == 128 + signum, err
    assert f"The session ends: interrupted ({name})." in out
    assert "Ledger" in out
    assert "Hand history saved as session 1" in out
    _assert_ledger(out, db, 300)
    [info] = _history(tmp_path, db)
    assert info["status"] == "finished"
    assert info["end_reason"] == f"interrupted ({name})"
    assert "Round 2" in out  # dealt, then ended by the signal: its pot shared out


def test_companion_ends_with_its_ledger_on_sigterm(tmp_path: Path) -> None:
    db = tmp_path / "guts.db"
    code, out, err = _signalled(tmp_path, ["companion", "-n", "Ana,Ben", "--chips", "20",
                                           "--db", str(db)], "\n", "Who is in?",
                                1, signal.SIGTERM)
    assert code == 143, err
    assert "The session ends: interrupted (SIGTERM)." in out
    assert "Hand history saved as session 1" in out
    _assert_ledger(out, db, 40)
    [info] = _history(tmp_path, db)
    assert info["status"] == "finished"
    assert info["end_reason"] == "interrupted (SIGTERM)"


def test_a_database_that_cannot_be_written_is_refused_before_the_first_deal(
        tmp_path: Path) -> None:
    for command in (["play", "--seed", "1"], ["companion", "-n", "Ana,Ben"]):
        done = subprocess.run([sys.executable, "-c", MAIN, *command, "--db", "/proc/x.db"],
                              env=_env(tmp_path), input="in\n", capture_output=True,
                              text=True, timeout=120, check=False)
        assert done.returncode == 2
        assert done.stdout == ""  # nothing dealt
        assert done.stderr.startswith("error: cannot open database '/proc/x.db' for writing")
    data = tmp_path / "file"
    data.write_text("not a folder")
    env = _env(tmp_path) | {"XDG_DATA_HOME": str(data)}
    done = subprocess.run([sys.executable, "-c", MAIN, "play", "--seed", "1"], env=env,
                          input="in\n", capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(
        f"error: cannot create the folder of database '{data}/gutskit/gutskit.db'")


class _FullAfter:
    """A store whose ``append`` fails (as on a full disk) after ``good`` appends."""

    def __init__(self, store: Store, good: int) -> None:
        self.store = store
        self.good = good

    def create_session(self, source: str, start: SessionStarted) -> int:
        return self.store.create_session(source, start)

    def append(self, session_id: int, events: Sequence[Event], *,
               end_reason: str | None = None) -> None:
        if self.good == 0:
            raise StorageError(f"cannot save to {self.store.location!r}: database or disk "
                               "is full")
        self.good -= 1
        self.store.append(session_id, events, end_reason=end_reason)


def test_play_ends_with_its_ledger_when_a_save_fails(tmp_path: Path) -> None:
    store = open_store(tmp_path / "g.db")
    console = Console(record=True, width=120, file=open(os.devnull, "w"))  # noqa: SIM115
    with pytest.raises(StorageError) as caught:
        play_session(console=console, read=lambda prompt: "in", store=_FullAfter(store, 1),
                     rules=Rules(), players=3, chips=30, rng=random.Random(2))
    console.file.close()
    assert str(caught.value) == (f"cannot save to {str(tmp_path / 'g.db')!r}: database or "
                                 "disk is full; the hand history could not be saved")
    text = console.export_text()
    assert "The session ends: the hand history could not be saved." in text
    assert "Ledger" in text
    # Round 1 was saved; round 2 was played but not saved (its save failed).
    assert "Round 2" in text and "Round 3" not in text
    assert store.session(1).status == "playing"


def test_guts_play_and_companion_print_the_ledger_then_the_error_on_a_full_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = Store.append
    calls = {"n": 0}

    def append(self: Store, session_id: int, events: Sequence[Event], *,
               end_reason: str | None = None) -> None:
        calls["n"] += 1
        if calls["n"] > 1:
            raise StorageError(f"cannot save to {self.location!r}: database or disk is full")
        real(self, session_id, events, end_reason=end_reason)

    monkeypatch.setattr(Store, "append", append)
    db = tmp_path / "g.db"
    result = RUNNER.invoke(app, ["play", "--seed", "1", "-n", "3", "--db", str(db)],
                           input="in\nin\nin\n")
    assert result.exit_code == 2, result.output
    assert "The session ends: the hand history could not be saved." in result.output
    assert "Ledger" in result.output
    assert "Settle up:" in result.output
    assert "Hand history saved" not in result.output
    assert (f"error: cannot save to {str(db)!r}: database or disk is full; the hand "
            "history could not be saved") in result.output
    calls["n"] = 0
    db2 = tmp_path / "c.db"
    result = RUNNER.invoke(app, ["companion", "-n", "Ana,Ben", "--db", str(db2)],
                           input="\nAna\n\nBen\n\n")
    assert result.exit_code == 2, result.output
    assert "The session ends: the hand history could not be saved." in result.output
    assert "Ledger" in result.output
    assert (f"error: cannot save to {str(db2)!r}: database or disk is full; the hand "
            "history could not be saved") in result.output
