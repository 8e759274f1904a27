"""constraints.txt (the versions ``scripts/test`` installs, written by
``scripts/constraints.py``) agrees with pyproject.toml: one exact pin per line, and every pin
of a direct requirement inside the range pyproject.toml asks for (a pin outside it makes
CI's ``pip install -c constraints.txt -e '.[dev]'`` fail before any test runs)."""

from __future__ import annotations

import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from constraints import TARGET, project_requirements, render  # noqa: E402


def pins() -> dict[str, Version]:
    """``{canonical name: pinned version}`` of constraints.txt."""
    found: dict[str, Version] = {}
    for line in TARGET.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, version = line.partition("==")
        assert name and version, f"not name==version: {line!r}"
        key = canonicalize_name(name)
        assert key not in found, f"pinned twice: {name}"
        found[key] = Version(version)
    return found


def test_every_pin_is_inside_the_range_of_pyproject() -> None:
    pinned = pins()
    assert "gutskit" not in pinned
    assert {"fastapi", "starlette", "pytest", "playwright", "numpy"} <= set(pinned)
    for requirement in project_requirements():
        version = pinned.get(canonicalize_name(requirement.name))
        if version is not None:
            assert requirement.specifier.contains(version, prereleases=True), (
                f"constraints.txt pins {requirement.name}=={version}, outside pyproject's "
                f"{requirement}: run scripts/constraints.py in an up-to-date venv")


def test_the_file_is_sorted_with_its_header() -> None:
    pinned = {Requirement(line).name: str(next(iter(Requirement(line).specifier)).version)
              for line in TARGET.read_text(encoding="utf-8").splitlines()
              if line and not line.startswith("#")}
    assert TARGET.read_text(encoding="utf-8") == render(pinned)


def test_self_references_expand_into_their_extras() -> None:
    names = {canonicalize_name(r.name) for r in project_requirements()}
    assert {"dask", "pettingzoo", "pytest"} <= names  # gutskit[cluster], [research], dev
    assert "gutskit" not in names
