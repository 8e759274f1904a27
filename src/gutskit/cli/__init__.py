"""The ``guts`` command line: one module per command group (``app`` holds the typer app),
and the terminal game (``play``). :func:`main` is the ``guts`` entry point."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Run the ``guts`` command with ``argv`` (default: ``sys.argv[1:]``); exits the process."""
    from gutskit.cli.app import main as run

    run(argv)
