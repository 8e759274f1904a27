"""The ``guts`` command line (placeholder; see cli package work)."""

from __future__ import annotations


def main() -> None:
    """Entry point of the ``guts`` command."""
    raise SystemExit("guts: the command line is being built")
