"""The console every ``guts`` command prints its text and tables on: rich's, on standard
output, as wide as the terminal (80 columns when the output is not a terminal, or
``COLUMNS``); when standard output is a pipe or a file, lines reach it without the spaces
rich pads a table's title or caption with (:class:`TrimmedLines`)."""

from __future__ import annotations

import sys
from typing import Any, TextIO, cast

from rich.console import Console

__all__ = ["TrimmedLines", "game_console"]


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
