"""The optional compiled engine (``scripts/build_compiled.py``: the engine's hot modules
compiled by mypyc) gives the same hand histories as the pure Python engine: it is built
(or a current build reused, ``build/compiled``), then the golden sessions (SHA-1 of every
event of seeded sessions under every preset), the engine, variant, table and property tests
run against it in a fresh interpreter. Needs a C compiler: ``scripts/test`` installs
Debian's gcc when it is missing; without one this test fails, naming what is missing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "scripts" / "build_compiled.py"
COMPILED = ("cards", "evaluation", "settlement", "engine", "views")
TESTS = ("tests/test_golden_sessions.py", "tests/test_engine.py", "tests/test_engine_speed.py",
         "tests/test_variants.py", "tests/test_table.py", "tests/test_properties.py")


def _env(out: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(out), "PYTHONHASHSEED": "0"}


def _build() -> Path:
    done = subprocess.run([sys.executable, str(BUILD)], capture_output=True, text=True,
                          check=False, env={**os.environ, "PYTHONPATH": ""})
    assert done.returncode == 0, done.stdout + done.stderr
    return Path(done.stdout.strip().splitlines()[-1])


def test_compiled_engine_gives_the_same_events() -> None:
    out = _build()
    # the compiled modules are the ones imported (not the .py beside them, nor src/)
    probe = "; ".join([
        "import importlib",
        *(f"print(importlib.import_module('gutskit.core.{name}').__file__)"
          for name in COMPILED)])
    probe += ("; from gutskit.core import engine; "
              "print(engine._NATIVE, hasattr(engine.new_session(['a', 'b'], 5), '__dict__'))")
    *files, native, has_dict = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True,
        env=_env(out)).stdout.split()
    # GameState is a mypyc native class there (its fields in a C struct, copied by
    # compiled code); the engine tests below check it stays a frozen, comparable value
    assert (native, has_dict) == ("True", "False")
    assert len(files) == len(COMPILED)
    for name, path in zip(COMPILED, files, strict=True):
        assert Path(path).parent == out / "gutskit" / "core", path
        assert Path(path).name.startswith(f"{name}.") and path.endswith(".so"), path
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-o", "addopts=", *TESTS],
        cwd=ROOT, capture_output=True, text=True, check=False, env=_env(out))
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in summary and "failed" not in summary and "skipped" not in summary, \
        summary
