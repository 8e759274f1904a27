"""Every benchmark script takes ``--help`` (argparse: prints its usage and purpose, exit 0,
runs nothing) and states its targets plainly (fresh user, session 7: ``bench_engine.py
--help`` ran the benchmark; labels said "issue 11 target")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py")
                 if 'if __name__ == "__main__":' in p.read_text())
"""The benchmarks' scripts: not the modules they import (common.py, and server_probe.py,
which load_server.py loads into the server)."""


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_prints_its_help_and_runs_nothing(script: str) -> None:
    done = subprocess.run([sys.executable, script, "--help"], cwd=BENCHMARKS,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: {script} [-h]")
    assert "== " not in done.stdout  # no benchmark header: nothing was run
    assert done.stderr == ""


def test_the_scripts_are_all_listed() -> None:
    assert {"bench_engine.py", "bench_eval.py", "bench_fast.py", "bench_solver.py",
            "bench_certify.py", "run_all.py", "play_table_vs_always_in.py"} <= set(SCRIPTS)
    assert "common.py" not in SCRIPTS and "server_probe.py" not in SCRIPTS


def test_a_target_is_printed_plainly_with_its_number(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setattr(sys, "argv", ["bench_engine.py"])
    from common import emit, result

    emit([result("engine, pure Python: rounds/s", 7486.0, "rounds/s", target=50_000),
          result("solver: full table, cold (CPU s)", 1.475, "s", target=10.0,
                 higher_is_better=False),
          result("batch: (n, 3) int8 array -> keys", 1.094e8, "hands/s", target=5e7)])
    assert capsys.readouterr().out.splitlines() == [
        "engine, pure Python: rounds/s: 7,486 rounds/s  (target >= 50,000 rounds/s: NOT met)",
        "solver: full table, cold (CPU s): 1.475 s  (target < 10 s: met)",
        "batch: (n, 3) int8 array -> keys: 109,400,000 hands/s  (target >= 50,000,000 "
        "hands/s: met)"]
