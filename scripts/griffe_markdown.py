"""Griffe extension for the API reference (mkdocs.yml, mkdocstrings ``extensions``): the
docstrings are written for ``help()`` and doctest (Google sections, doctest examples,
Sphinx-style roles and ``::`` literal blocks); this turns the parts Markdown would misread
into Markdown before mkdocstrings renders them. The source files are not changed.

* a doctest example (``>>>`` lines and their output, up to a blank line) becomes a fenced
  ``pycon`` block (Markdown would read ``>>>`` as nested quotes and ``[...]`` in the output
  as links);
* a role such as ``:func:`~gutskit.core.engine.deal``` becomes the code span ``deal``;
* a paragraph ending in ``::`` ends in ``:`` (the indented block after it is code in
  Markdown too).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:func|class|meth|attr|data|mod|exc|obj):`(~?)([^`]+)`")


def _role(match: re.Match[str]) -> str:
    target = match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"


def to_markdown(text: str) -> str:
    """``text`` (a docstring) with doctests fenced, roles as code spans and ``::`` as ``:``."""
    lines = text.split("\n")
    out: list[str] = []
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith("```"):
            fenced = not fenced
        if not fenced and (stripped == ">>>" or stripped.startswith(">>> ")):
            indent = line[:len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(f"{indent}```")
            continue
        if not fenced:
            line = ROLE.sub(_role, line)
            if line.endswith("::") and i + 1 < len(lines) and not lines[i + 1].strip():
                line = line[:-1]
        out.append(line)
        i += 1
    return "\n".join(out)


class MarkdownDocstrings(griffe.Extension):
    """Rewrite each object's docstring with :func:`to_markdown` when it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)
