"""What a fresh user found in session 12 (cli12) in the terminal, at 80 columns: option names
cut in ``--help``, ... Every message is asserted word for word."""

from __future__ import annotations

import re

import pytest
import typer
from test_cli import guts

from gutskit.cli.app import app

COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


# --- 1. --help at 80 columns: option names whole -------------------------------------------

@pytest.mark.parametrize("command", COMMANDS)
def test_help_at_80_columns_shows_every_option_name_whole(command: str) -> None:
    group = typer.main.get_command(app)
    params = group.commands[command].params  # type: ignore[attr-defined]
    result = guts(command, "--help", columns=80)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) == 80
    assert not [line for line in lines if "…" in line]  # nothing cut, descriptions wrap
    names = [name for param in params for name in (*param.opts, *param.secondary_opts)
             if name.startswith("-")]
    for name in names:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", result.stdout), name


def test_serve_help_folds_a_long_example_instead_of_cutting_it() -> None:
    text = guts("serve", "--help", columns=80).stdout
    for name in ("--max-connections-per-room", "--max-connections-per-address",
                 "--max-sockets-per-address", "--max-sockets-per-network"):
        assert f"│ {name} " in text
    # The --db example is folded at the description column's edge, never cut with "…".
    lines = text.splitlines()
    at = lines.index("│" + " " * 59 + "postgresql+psycopg │")
    assert lines[at + 1] == "│" + " " * 59 + "://user:pw@host/db │"
