"""MkDocs hooks for the gutskit site (mkdocs.yml ``hooks:``).

* the home page ``index.md`` is README.md, its links into ``docs/`` made relative to the site;
* one API reference page per package of ``src/gutskit`` (a directory with ``__init__.py``),
  ``api/<package>.md`` holding ``::: gutskit.<package>``: mkdocstrings renders the package
  and, with ``show_submodules``, every module in it. The pages are found on disk, so a new
  package or module is in the reference without editing mkdocs.yml.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "gutskit"


def packages() -> list[str]:
    """The names of gutskit's packages (``core``, ``strategy``, ...), sorted."""
    return sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))


def api_page(package: str) -> str:
    """The Markdown of the API reference page of ``gutskit.<package>``."""
    return f"::: gutskit.{package}\n"


def home_page() -> str:
    """README.md with its ``docs/...`` links made relative to the docs folder."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.sub(r"\]\(docs/", "](", readme)


def on_config(config: MkDocsConfig, **_: Any) -> MkDocsConfig:
    """Add the API reference section (one page per package) to the navigation."""
    api = [{"gutskit": "api/index.md"}] + [{f"gutskit.{p}": f"api/{p}.md"} for p in packages()]
    config.nav = [*(config.nav or []), {"API reference": api}]
    return config


def on_files(files: Files, config: MkDocsConfig, **_: Any) -> Files:
    """Add the generated pages: the home page and the API reference."""
    files.append(File.generated(config, "index.md", content=home_page()))
    files.append(File.generated(config, "api/index.md", content="::: gutskit\n    options:\n"
                                "      show_submodules: false\n"))
    for package in packages():
        files.append(File.generated(config, f"api/{package}.md", content=api_page(package)))
    return files
