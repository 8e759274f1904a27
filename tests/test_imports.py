"""The import graph of ``gutskit``: no cycle between modules, and the packages import only
downwards (docs/design.md "Layout"): cli -> server -> strategy -> io -> core, with the
variants between the core's small types and its engine. Every ``import`` counts, at module
level or inside a function (a lazy import is still a dependency)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import gutskit

SRC = Path(gutskit.__file__).parent

BASE = {"gutskit.core.cards", "gutskit.core.evaluation", "gutskit.core.rules",
        "gutskit.core.events", "gutskit.core.settlement"}
"""The core's small types, the only modules the variants may import."""

MAY_IMPORT = {
    "core": ("core", "variants"),
    "variants": ("core", "variants"),  # the small types only: see BASE
    "io": ("core", "variants", "io"),
    "strategy": ("core", "variants", "io", "strategy"),
    "server": ("core", "variants", "io", "strategy", "server"),
    "cli": ("core", "variants", "io", "strategy", "server", "cli"),
    "envs": ("core", "variants", "envs"),
}
"""Package -> the packages its modules may import."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in SRC.rglob("*.py")}


def imports_of(name: str) -> set[str]:
    """The ``gutskit`` modules that module ``name`` imports (anywhere in its body)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from package import module`` depends on the module; otherwise on ``base``
            subs = [f"{base}.{alias.name}" for alias in node.names]
            targets = [t for t in subs if t in MODULES] or [base]
        else:
            continue
        found.update(t for t in targets if t in MODULES and t != name)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def find_cycle(within: str = "gutskit") -> list[str] | None:
    """One import cycle among the modules whose name starts with ``within`` (a list of
    modules, the first repeated at the end), or ``None``."""
    state: dict[str, int] = {}  # 1 = on the path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(GRAPH[node]):
            if not nxt.startswith(within):
                continue
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(GRAPH):
        if start.startswith(within) and start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def test_the_walker_sees_imports() -> None:
    assert "gutskit.variants" in GRAPH["gutskit.core.engine"]
    assert "gutskit.core.engine" in GRAPH["gutskit.core.views"]
    assert GRAPH["gutskit.variants.hi_lo"] >= {"gutskit.core.settlement",
                                              "gutskit.variants.base"}


@pytest.mark.parametrize("package", ["gutskit.core", "gutskit.variants", "gutskit.io",
                                     "gutskit.server", "gutskit.cli", "gutskit.envs"])
def test_no_import_cycle(package: str) -> None:
    assert find_cycle(package) is None


@pytest.mark.parametrize("package", ["gutskit.strategy", "gutskit"])
def test_no_import_cycle_in_strategy_and_overall(package: str) -> None:
    assert find_cycle(package) is None


def package_of(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 2 or name in ("gutskit.core", "gutskit.variants") or (
        len(parts) == 2 and f"{name}" in MODULES and MODULES[name].name == "__init__.py"
    ) else ""


def test_packages_import_only_downwards() -> None:
    wrong = []
    for name, targets in GRAPH.items():
        package = package_of(name)
        if package not in MAY_IMPORT:
            continue  # gutskit/__init__.py (the public API) and the package roots
        for target in targets:
            if package_of(target) not in MAY_IMPORT[package]:
                wrong.append(f"{name} -> {target}")
    assert wrong == []


def test_variants_see_only_the_small_core_types() -> None:
    wrong = [f"{name} -> {target}" for name, targets in GRAPH.items()
             if name.startswith("gutskit.variants")
             for target in targets
             if not target.startswith("gutskit.variants") and target not in BASE]
    assert wrong == []
