"""The optional compiled engine (``scripts/build_compiled.py``: the engine's hot modules
compiled by mypyc) gives the same hand histories as the pure Python engine: it is built
(or a current build reused, ``build/compiled``), then the golden sessions (SHA-1 of every
event of seeded sessions under every preset), the engine, variant, table and property tests
run against it in a fresh interpreter, and the bot tests (the rule-of-thumb bot's hot path,
``strategy/rule_of_thumb.py``, is compiled too). Needs a C compiler: ``scripts/test`` installs
Debian's gcc when it is missing; without one this test fails, naming what is missing.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "scripts" / "build_compiled.py"
COMPILED = ("core.cards", "core.evaluation", "core.settlement", "core.engine", "core.views",
            "strategy.rule_of_thumb")
TESTS = ("tests/test_golden_sessions.py", "tests/test_engine.py", "tests/test_engine_speed.py",
         "tests/test_variants.py", "tests/test_table.py", "tests/test_properties.py",
         "tests/test_bots.py")


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
        *(f"print(importlib.import_module('gutskit.{name}').__file__)"
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
        package, module = name.split(".")
        assert Path(path).parent == out / "gutskit" / package, path
        assert Path(path).name.startswith(f"{module}.") and path.endswith(".so"), path
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-o", "addopts=", *TESTS],
        cwd=ROOT, capture_output=True, text=True, check=False, env=_env(out))
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in summary and "failed" not in summary and "skipped" not in summary, \
        summary


def test_a_current_build_is_reused_without_mypy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                 ) -> None:
    """fresh9: ``bench_engine.py`` needed mypy even with a current ``build/compiled``. A
    build of the same sources is reused when mypy is not installed (by whatever mypy made
    it), and is stale for another mypy when one is installed."""
    spec = importlib.util.spec_from_file_location("build_compiled", BUILD)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "compiled"
    out.mkdir()
    (out / "BUILD-STAMP").write_text(f"{script._sources()} mypy 0.1\n")
    monkeypatch.setattr(script, "_mypy_version", lambda: None)
    assert script.is_current(out)
    assert script.build(out) == out  # reused: no compiler, no mypy asked for
    monkeypatch.setattr(script, "_mypy_version", lambda: "0.2")
    assert not script.is_current(out)
    monkeypatch.setattr(script, "_mypy_version", lambda: "0.1")
    assert script.is_current(out)
    (out / "BUILD-STAMP").write_text(f"{'0' * 64} mypy 0.1\n")  # other sources
    assert not script.is_current(out)
