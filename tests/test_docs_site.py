"""The documentation site (issue 8, item 4): ``mkdocs build --strict`` builds the docs and the
API reference from the docstrings, every warning an error (a docstring that documents a
parameter the function does not have, a broken link or cross-reference, ...).

Rebuild it by hand with ``.venv/bin/mkdocs build --strict`` (or ``mkdocs serve``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from griffe_markdown import to_markdown  # noqa: E402  (scripts/ is not a package)


def test_mkdocs_build_strict_builds_a_page_per_package(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
         str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    # README.md is the home page; the docs are pages
    assert "Guts" in (site / "index.html").read_text(encoding="utf-8")
    for page in ("rules", "referee", "strategy", "design", "variants/hi-lo"):
        assert (site / page / "index.html").is_file(), page
    # one API page per package, each holding every module of it (found on disk)
    packages = sorted(p.parent for p in (ROOT / "src" / "gutskit").glob("*/__init__.py"))
    assert {p.name for p in packages} >= {"core", "strategy", "io", "server", "cli"}
    for package in packages:
        html = (site / "api" / package.name / "index.html").read_text(encoding="utf-8")
        for module in package.glob("[!_]*.py"):
            assert f'id="gutskit.{package.name}.{module.stem}"' in html, module
    engine = (site / "api" / "core" / "index.html").read_text(encoding="utf-8")
    assert 'id="gutskit.core.engine.new_session"' in engine
    assert '<span class="gp">&gt;&gt;&gt; </span>' in engine  # doctests rendered as code


def test_docstrings_become_markdown() -> None:
    text = ("Deal (see :func:`~gutskit.core.engine.deal` and :class:`Rules`).\n\n"
            "    >>> deal([1])\n    [1, 2]\n\nOutput::\n\n    {\"pot\": 8}\n")
    assert to_markdown(text) == (
        "Deal (see `deal` and `Rules`).\n\n"
        "    ```pycon\n    >>> deal([1])\n    [1, 2]\n    ```\n\nOutput:\n\n"
        "    {\"pot\": 8}\n")
    fenced = "```\n>>> x\n:func:`y`\n```"
    assert to_markdown(fenced) == fenced
    assert re.search("pycon", to_markdown(">>> 1\n1")) is not None
