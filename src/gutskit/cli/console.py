"""The console every ``guts`` command prints its text and tables on: rich's, on standard
output, as wide as the terminal (80 columns when the output is not a terminal, or
``COLUMNS``); when standard output is a pipe or a file, lines reach it without the spaces
rich pads a table's title or caption with (:class:`TrimmedLines`)."""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO, cast

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

__all__ = ["ESTIMATE", "TrimmedLines", "game_console", "print_estimates"]

ESTIMATE = re.compile(r"[-+]?\d[\d.,]*%? ± [-+]?\d[\d.]*\S*|\S+")
"""A word of :func:`print_estimates`: ``value ± error`` (``48.16% ± 0.16,``) is one."""


class TrimmedLines:
    """A text stream that drops the spaces at the end of every line written to it (rich
    pads a table's title to the table's width and leaves a space where it wraps a line):
    the game's printout, piped or saved, has no trailing spaces. Spaces not yet followed
    by anything are held (a prompt's ``[i/o/q] ``): written when more text follows on the
    line, dropped at its end. Everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._held = ""

    def write(self, text: str) -> int:
        lines = (self._held + text).split("\n")
        last = lines[-1].rstrip(" ")
        self._held = lines[-1][len(last):]
        self._stream.write("\n".join([line.rstrip(" ") for line in lines[:-1]] + [last]))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding...
        return getattr(self._stream, name)


def game_console() -> Console:
    """The console of every command (the terminal game, the companion, the reports and
    tables): rich's, on standard output, the terminal's width; when that is not a terminal
    (a pipe, a file), through :class:`TrimmedLines`."""
    if sys.stdout.isatty():
        return Console(highlight=False)
    return Console(highlight=False, file=cast(TextIO, TrimmedLines(sys.stdout)))


def print_estimates(out: Console, markup: str) -> None:
    """Print the rich ``markup`` on ``out`` wrapped to its width as rich wraps it (at
    spaces), but never inside ``value ± error``: ``-0.184 ± 0.016`` stays on one line
    (rich would break at any space, a non-breaking one too)."""
    text = Text.from_markup(markup)
    plain = text.plain
    breaks: list[int] = []
    start = 0  # where the current line starts
    for word in ESTIMATE.finditer(plain):
        if word.start() > start and cell_len(plain[start:word.end()]) > out.width:
            breaks.append(word.start())
            start = word.start()
    lines = text.divide(breaks)
    for line in lines:
        line.rstrip()
    out.print(Text("\n").join(lines), highlight=False, overflow="fold")
