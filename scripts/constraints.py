"""Write constraints.txt: the exact version of every package of gutskit's dependency tree
(``gutskit[dev]``, the extras it pulls in included) as installed in this Python's
environment, so ``scripts/test`` (``pip install -c constraints.txt -e '.[dev]'``) installs
the same versions on every machine and CI run, not whatever the registry holds that day.

Refresh it after a deliberate upgrade, from the repository root::

    .venv/bin/pip install -U -e '.[dev]'       # newest versions the ranges in pyproject allow
    .venv/bin/python scripts/constraints.py    # rewrite constraints.txt from that venv
    ./scripts/test                             # then run every test on them and commit both

Only the packages reachable from ``gutskit[dev]`` are written: the requirements of
pyproject.toml (read from the file, not from the venv's possibly stale copy of gutskit's
metadata), then each installed package's own requirements (markers evaluated for this
interpreter), so tools installed beside them by hand (py-spy, ...) are left out.
``--check`` exits 1 if the file is not what would be written.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "constraints.txt"
PROJECT = "gutskit"
HEADER = """\
# The versions every test runs on: scripts/test installs with
#   pip install -c constraints.txt -e '.[dev]'
# Made by `python scripts/constraints.py` from a working venv (see its docstring to refresh).
# Do not edit by hand.
"""


def _applies(requirement: Requirement, extras: frozenset[str]) -> bool:
    """Whether ``requirement`` is needed when its dependent is installed with ``extras``."""
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate({"extra": extra}) for extra in extras | {""})


def project_requirements(extras: frozenset[str] = frozenset({"dev"})) -> list[Requirement]:
    """The requirements of pyproject.toml's ``[project]`` installed with ``extras``: the
    dependencies and those extras' lists, a self-reference (``gutskit[research]``)
    expanded into that extra's list."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    optional: dict[str, list[str]] = project.get("optional-dependencies", {})
    found: list[Requirement] = []
    done: set[str] = set()
    todo = [str(text) for text in project["dependencies"]]
    todo += [text for extra in sorted(extras) for text in optional[extra]]
    done |= extras
    while todo:
        requirement = Requirement(todo.pop(0))
        if canonicalize_name(requirement.name) != PROJECT:
            found.append(requirement)
            continue
        for extra in sorted(requirement.extras - done):
            done.add(extra)
            todo += optional[extra]
    return found


def pinned() -> dict[str, str]:
    """The installed version of every distribution reachable from
    :func:`project_requirements` through the installed packages' requirements.

    Returns ``{name: version}`` without the project itself. Raises
    ``metadata.PackageNotFoundError`` when a needed distribution is not installed."""
    versions: dict[str, str] = {}
    names: dict[str, str] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    queue = [r for r in project_requirements() if _applies(r, frozenset())]
    while queue:
        requirement = queue.pop()
        key = canonicalize_name(requirement.name)
        extras = frozenset(requirement.extras)
        if (key, extras) in seen:
            continue
        seen.add((key, extras))
        distribution = metadata.distribution(requirement.name)
        names[key] = distribution.metadata["Name"]
        versions[key] = distribution.version
        for text in distribution.requires or []:
            child = Requirement(text)
            if _applies(child, extras):
                queue.append(child)
    return {names[key]: version for key, version in versions.items()}


def render(versions: dict[str, str]) -> str:
    """The constraints file's text: the header, then ``name==version`` lines by name."""
    lines = [f"{name}=={versions[name]}" for name in sorted(versions, key=str.lower)]
    return HEADER + "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if constraints.txt differs from this environment")
    args = parser.parse_args(argv)
    text = render(pinned())
    if args.check:
        same = TARGET.exists() and TARGET.read_text(encoding="utf-8") == text
        print("constraints.txt is up to date" if same else "constraints.txt is out of date")
        return 0 if same else 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.name}: {text.count('==')} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
