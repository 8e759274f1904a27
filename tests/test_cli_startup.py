"""The ``guts`` command starts at once and stops cleanly (issue 8): ``guts --help`` and
the first prompt of ``guts play`` load no heavy library, and Ctrl-C at any moment (while
the command loads, at a prompt) prints one line and exits with status 130, never a
traceback.

Each check runs ``guts`` in a fresh Python process (``python -c`` calling
:func:`gutskit.cli.main`), so the modules it loads are its own.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gutskit.cli.tournament import BOT_KIND_NAMES
from gutskit.strategy.strategies import BOT_KINDS

SRC = Path(__file__).resolve().parents[1] / "src"
HEAVY = ("numpy", "scipy", "pandas", "matplotlib", "sqlalchemy", "fastapi", "uvicorn",
         "starlette", "alembic", "numba", "dask", "distributed")
"""Libraries that ``guts --help`` must not import (each costs a tenth of a second or more)."""

REPORT_MODULES = """
import json, sys
from gutskit.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stderr.write(json.dumps(sorted(sys.modules)))
"""


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    env["GUTSKIT_DB"] = str(tmp_path / "guts.db")
    env["COLUMNS"] = "100"
    env.pop("FORCE_COLOR", None)
    return env


def _modules_after(tmp_path: Path, *args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", REPORT_MODULES, *args], env=_env(tmp_path),
                          capture_output=True, text=True, timeout=120, check=True)
    return {name.partition(".")[0] for name in json.loads(done.stderr)}


@pytest.mark.parametrize("args", [
    ("--help",), (), ("play", "--help"), ("sim", "--help"), ("tournament", "--help"),
    ("serve", "--help"), ("analyze", "--help"), ("solve", "--help"),
], ids=lambda args: " ".join(args) or "no arguments")
def test_help_imports_no_heavy_library(tmp_path: Path, args: tuple[str, ...]) -> None:
    loaded = _modules_after(tmp_path, *args)
    assert "typer" in loaded  # the probe works
    assert sorted(loaded & set(HEAVY)) == []


def test_the_help_names_the_bot_kinds_of_the_strategies_module() -> None:
    assert tuple(BOT_KINDS) == BOT_KIND_NAMES


def test_no_arguments_prints_the_help(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", "from gutskit.cli import main; main()"],
                          env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Usage: guts" in done.stdout + done.stderr
    assert "error:" not in done.stderr


def _read_until(process: subprocess.Popen[bytes], needle: bytes) -> bytes:
    """Read the process's stdout until ``needle`` appears (or it closes)."""
    assert process.stdout is not None
    seen = b""
    fd = process.stdout.fileno()
    while needle not in seen:
        ready, _, _ = select.select([fd], [], [], 60)
        assert ready, f"no {needle!r} after 60 s; got {seen[-500:]!r}"
        chunk = os.read(fd, 65536)
        assert chunk, f"the output ended before {needle!r}: {seen[-500:]!r}"
        seen += chunk
    return seen


def test_the_first_prompt_of_play_comes_before_the_database_library(tmp_path: Path) -> None:
    """At the first prompt none of the heavy libraries is loaded (the bots' numpy tables
    come later, the store after the first answer); the round is still saved."""
    probe = """
import sys
from gutskit.cli import play, terminal

real = terminal.ask_declaration
def ask(*args, **kwargs):
    heavy = sorted({m.partition('.')[0] for m in sys.modules}
                   & {'numpy', 'scipy', 'pandas', 'matplotlib', 'fastapi', 'uvicorn',
                      'sqlalchemy'})
    sys.stderr.write('LOADED ' + ' '.join(heavy) + '\\n')
    return real(*args, **kwargs)
terminal.ask_declaration = ask
play.BackgroundStore.start = lambda self: None  # no background loading
from gutskit.cli import main
main(sys.argv[1:])
"""
    # With the background thread disabled, the store opens in the main thread at the first
    # save: the second prompt sees SQLAlchemy, the first does not.
    done = subprocess.run([sys.executable, "-c", probe, "play", "--seed", "3", "-n", "3"],
                          env=_env(tmp_path), input="in\nquit\n", capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = [line for line in done.stderr.splitlines() if line.startswith("LOADED")]
    assert loaded[0] == "LOADED "
    # by the second prompt the store is open (and the equilibrium bot has its numpy tables)
    assert loaded[1] in ("LOADED sqlalchemy", "LOADED numpy sqlalchemy")
    assert "Hand history saved as session 1" in done.stdout


INTERRUPT_AT_IMPORT = """
import os, signal, sys
TARGET = sys.argv.pop(1)

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == TARGET:
            os.kill(os.getpid(), signal.SIGINT)  # as if Ctrl-C was pressed now
        return None

sys.meta_path.insert(0, Interrupt())
from gutskit.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize(("module", "args"), [
    ("typer", ["--help"]),
    ("gutskit.cli.app", ["rules"]),
    ("gutskit.core.rules", ["play", "--seed", "1"]),
    ("gutskit.core.engine", ["play", "--seed", "1"]),
    ("gutskit.strategy.bots", ["play", "--seed", "1"]),
    ("gutskit.strategy.simulation", ["sim", "-R", "10"]),
    ("scipy", ["tournament", "--sessions", "1", "--rounds", "5"]),
])
def test_ctrl_c_while_loading_prints_one_line(tmp_path: Path, module: str,
                                               args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", INTERRUPT_AT_IMPORT, module, *args],
                          env=_env(tmp_path), input="", capture_output=True, text=True,
                          timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert done.stderr.strip().splitlines()[-1] == "interrupted (Ctrl-C)"


def test_ctrl_c_at_the_prompt_ends_the_session_and_saves_it(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", "from gutskit.cli import main; main()", "play", "--seed", "2",
         "-n", "3"], env=_env(tmp_path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    try:
        _read_until(process, b"In or out?")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert b"Traceback" not in err, err.decode()
    assert process.returncode == 130
    assert b"Ledger" in out
    assert b"Hand history saved as session 1" in out


@pytest.mark.parametrize("module", ["play", "sim", "table", "strategy", "tournament",
                                    "analysis", "serve", "options", "errors", "terminal"])
def test_no_command_module_imports_the_app(tmp_path: Path, module: str) -> None:
    # The app imports the command modules; none leads back to it (no import cycle).
    code = (f"import sys, gutskit.cli.{module}; "
            f"sys.exit('gutskit.cli.app' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], env=_env(tmp_path),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
