"""Build the optional compiled engine: the rules engine's hot modules compiled by mypyc
(part of mypy) into C extension modules, in a tree of its own.

The pure Python package stays the source of truth and the default: nothing here touches
``src/``. The build copies ``src/gutskit`` into ``OUT/gutskit`` and compiles
:data:`MODULES` there (the ``.py`` files stay beside the ``.so`` files; Python imports the
``.so``). Put ``OUT`` first on ``PYTHONPATH`` to run with it; remove ``OUT`` to be rid of
it. A build is kept while the sources, the Python and mypy versions and this list are the
same (``OUT/BUILD-STAMP``); two builds at once wait for each other (a lock file).

Needs a C compiler (``cc``; Debian's ``gcc``) and the Python headers; mypy (with mypyc)
and setuptools come with the ``dev`` extra. docs/performance.md says what it gains.

    .venv/bin/python scripts/build_compiled.py                  # -> build/compiled
    PYTHONPATH=build/compiled .venv/bin/python benchmarks/bench_engine.py
    rm -rf build/compiled                                        # back to pure Python only
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import platform
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "gutskit"
DEFAULT_OUT = ROOT / "build" / "compiled"

MODULES = (
    "gutskit/core/cards.py",
    "gutskit/core/evaluation.py",
    "gutskit/core/settlement.py",
    "gutskit/core/engine.py",
    "gutskit/core/views.py",
    "gutskit/strategy/rule_of_thumb.py",
)
"""What is compiled: the modules of an engine round that mypyc compiles cleanly.

Left interpreted: ``core/events.py`` (its frozen dataclasses would get an interpreted
``__init__`` of one ``object.__setattr__`` per field as native classes, slower than now),
``core/rules.py`` (pydantic models), ``variants/`` (subclassed at run time),
``strategy/bots.py`` (``runtime_checkable`` protocols fail to import compiled: the
rule-of-thumb bot's hot path is ``strategy/rule_of_thumb.py``, compiled).
``GameState`` is a native class in the compiled engine (its fields in a C struct; the
engine copies a state by compiled stores, ``engine._draft``)."""


def _mypy_version() -> str | None:
    """The installed mypy's version (``None``: not installed)."""
    try:
        return metadata.version("mypy")
    except metadata.PackageNotFoundError:
        return None


def _sources() -> str:
    """SHA-256 over every source file of the package, :data:`MODULES` and the Python
    version."""
    digest = hashlib.sha256()
    digest.update(f"{platform.python_version()} {sys.implementation.cache_tag} "
                  f"{MODULES}".encode())
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def fingerprint() -> str:
    """The sources' SHA-256 (every source file of the package, :data:`MODULES`, the Python
    version), then the mypy version: a build with the same fingerprint is the same build."""
    return f"{_sources()} mypy {_mypy_version() or '-'}"


def is_current(out: Path) -> bool:
    """Whether ``out`` holds a finished build of the sources as they are now (by the mypy
    installed; without mypy, a build of the same sources by any mypy: it is reused, not
    rebuilt, so a benchmark runs it without mypy installed)."""
    stamp = out / "BUILD-STAMP"
    if not stamp.is_file():
        return False
    sources, _, version = stamp.read_text().strip().partition(" mypy ")
    installed = _mypy_version()
    return sources == _sources() and (installed is None or version == installed)


class BuildError(SystemExit):
    """The build cannot be made: ``error: ...`` (the message), exit status
    :attr:`status` (2: the environment or ``--out`` is wrong; 1: mypyc failed). Uncaught
    (a benchmark calling :func:`build`) it ends the program with its message, as
    ``SystemExit`` does."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def build(out: Path = DEFAULT_OUT, *, force: bool = False) -> Path:
    """Build the compiled tree into ``out`` (kept when current, unless ``force``).

    Returns:
        ``out``, the folder to put first on ``PYTHONPATH``.

    Raises:
        BuildError: no C compiler, no mypy, ``out`` cannot be written (status 2), or mypyc
            failed (status 1; its output's tail is in the message).
    """
    try:
        return _build(out, force=force)
    except OSError as error:
        where = str(error.filename if error.filename is not None else out)
        reason = (f"{where!r} is a file, not a folder" if isinstance(
            error, FileExistsError | NotADirectoryError) and Path(where).is_file()
                  else f"{where!r}: {error.strerror or error}")
        raise BuildError(f"error: cannot build into {str(out)!r}: {reason}") from None


def _build(out: Path, *, force: bool) -> Path:
    out = out.resolve()
    if not force and is_current(out):  # reused as it is (no compiler nor mypy needed)
        return out
    compiler = os.environ.get("CC", "cc")
    if shutil.which(compiler) is None:
        raise BuildError(f"error: no C compiler {compiler!r} on PATH: the compiled build "
                         "needs one (Debian: apt-get install gcc)")
    if _mypy_version() is None:
        raise BuildError("error: mypy (with mypyc) is not installed in this environment: "
                         "the compiled build needs it (pip install -e '.[dev]')")
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another build of the same tree: wait for it
        if not force and is_current(out):
            return out
        stamp = fingerprint()
        work = out.with_name(out.name + ".partial")
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(PACKAGE, work / "gutskit",
                        ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        done = subprocess.run([sys.executable, "-m", "mypyc", *MODULES], cwd=work,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise BuildError(f"error: mypyc failed (exit {done.returncode}); the end of its "
                             f"output:\n{(done.stdout + done.stderr)[-3000:]}", status=1)
        shutil.rmtree(work / "build")  # mypyc's setup.py, the generated C, object files
        (work / "BUILD-STAMP").write_text(stamp + "\n")
        shutil.rmtree(out, ignore_errors=True)
        work.rename(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="the folder to build into (default: build/compiled)")
    parser.add_argument("--force", action="store_true", help="rebuild even when current")
    args = parser.parse_args()
    try:
        print(build(args.out, force=args.force))
    except BuildError as error:
        sys.stderr.write(f"{error.code}\n")
        raise SystemExit(error.status) from None


if __name__ == "__main__":
    main()
