"""The ``guts`` command line: one module per command group (:mod:`gutskit.cli.app` holds
the typer app and lists them), and the terminal game (:mod:`gutskit.cli.terminal`).
:func:`main` is the ``guts`` entry point."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["interrupted", "main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Run the ``guts`` command with ``argv`` (default: ``sys.argv[1:]``); exits the process.

    Ctrl-C at any moment (while the command loads, at a prompt, during a long run) prints
    one line ``interrupted`` on stderr and exits with status 130, never a traceback.
    """
    for stream in (sys.stdout, sys.stderr):
        # Text that cannot be encoded (a lone surrogate from a non-UTF-8 argument, say) is
        # printed as \\udcff rather than ending the command with a traceback.
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    try:
        from gutskit.cli.app import main as run

        run(argv)
    except KeyboardInterrupt:
        interrupted()


def interrupted() -> NoReturn:
    """Say ``interrupted (Ctrl-C)`` on stderr (one line) and exit with status 130."""
    with contextlib.suppress(OSError, ValueError):  # a closed or broken pipe
        sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):
        # After the terminal's "^C" echo, start a fresh line.
        sys.stderr.write(("\n" if sys.stderr.isatty() else "") + "interrupted (Ctrl-C)\n")
        sys.stderr.flush()
    raise SystemExit(130)
