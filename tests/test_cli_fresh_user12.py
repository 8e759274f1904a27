"""What a fresh user found in session 12 (cli12) in the terminal, at 80 columns: option names
cut in ``--help``; 300-character errors for an unknown preset or rule; an empty
``--allowed-host`` accepted; SQLAlchemy's words for an unknown database scheme; ``{HAND}``
and ``[[FILE]]`` in usage lines and "expected 3" for a hand of 4 cards; broke seats not
marked out; the bots' rebuy policy unstated. Every message is asserted word for word."""

from __future__ import annotations

import re
from pathlib import Path

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


# --- 2. an unknown preset or house rule: one short line ------------------------------------

def test_an_unknown_preset_or_rule_is_one_short_line_pointing_to_the_lists() -> None:
    result = guts("play", "--preset", "nope", columns=80)
    assert result.exit_code == 2
    # was 317 characters: every preset
    assert result.stderr == (
        "error: unknown preset 'nope'; see 'guts rules --list'\n")
    result = guts("play", "--rule", "foo=1", columns=80)
    assert result.exit_code == 2
    # was 343 characters: every house rule
    assert result.stderr == (
        "error: --rule foo=1: unknown house rule 'foo'; see 'guts rules'\n")
    result = guts("sim", "--rule", "antes=1", columns=80)
    assert result.stderr == ("error: --rule antes=1: unknown house rule 'antes' (did you mean "
                             "'ante'?); see 'guts rules'\n")
    # Both lists are where the line says.
    assert "german-3card" in guts("rules", "--list").stdout
    assert "pot_cap" in guts("rules").stdout


# --- 4. a database URL of an unknown scheme ------------------------------------------------

def test_an_unknown_database_scheme_is_named_with_what_is_accepted() -> None:
    expected = ("error: bad database URL 'notascheme://x': unknown scheme 'notascheme'; use "
                "a file, sqlite:///FILE or postgresql+psycopg://...\n")
    # was "Can't load plugin: sqlalchemy.dialects:notascheme"
    for command in ("play", "history"):
        result = guts(command, "--db", "notascheme://x", input="q\n", columns=80)
        assert result.exit_code == 2
        assert result.stderr == expected
    result = guts("serve", "--db", "notascheme://x", "--port", "1", columns=80)
    assert result.exit_code == 2
    assert result.stderr == expected


# --- 3. an empty --allowed-host ------------------------------------------------------------

@pytest.mark.parametrize("name", ["", "  "])
def test_an_empty_allowed_host_is_refused_by_name(name: str) -> None:
    result = guts("serve", "--allowed-host", name, "--port", "1", columns=80)
    assert result.exit_code == 2
    assert result.stderr == (f"error: --allowed-host {name!r}: the host name is empty "
                             "(e.g. guts.example.org)\n")


# --- 5. usage lines and the size of a typed hand -------------------------------------------

@pytest.mark.parametrize(("command", "usage"), [
    ("verify", "Usage: guts verify [OPTIONS] [FILE]"),  # was [[FILE]]
    ("history", "Usage: guts history [OPTIONS] [SESSION_ID]"),
    ("odds", "Usage: guts odds [OPTIONS] HAND"),  # was {HAND}
    ("advise", "Usage: guts advise [OPTIONS] HAND"),
    ("compare", "Usage: guts compare [OPTIONS] HAND HAND"),
    ("referee", "Usage: guts referee [OPTIONS] FILE"),
])
def test_usage_lines_write_arguments_plainly(command: str, usage: str) -> None:
    assert guts(command, "--help", columns=80).stdout.splitlines()[1].strip() == usage


@pytest.mark.parametrize(("args", "message"), [
    (["odds", ""], "hand '' has 0 cards; Guts hands have 2 or 3"),  # was "expected 3"
    (["odds", "7h 7d 2c 3c"], "hand '7h 7d 2c 3c' has 4 cards; Guts hands have 2 or 3"),
    (["advise", "Ah"], "hand 'Ah' has 1 card; Guts hands have 2 or 3"),
    (["compare", "Ah", "Kh Kd"], "hand 'Ah' has 1 card; Guts hands have 2 or 3; quote each "
                                 'hand, e.g. guts compare "Ah Kh Qh" "As Ks Qs"'),
    (["odds", "Zz 7d"], "unknown card 'Zz' (expected e.g. 'As', 'Td', '10d' or 'A♠')"),
])
def test_a_hand_of_another_size_gets_one_message(args: list[str], message: str) -> None:
    result = guts(*args, columns=80)
    assert result.exit_code == 2
    assert result.stderr == f"error: {message}\n"


def test_a_two_card_hand_is_still_read_as_two_card_guts() -> None:
    result = guts("odds", "7h 7d", columns=80)
    assert result.exit_code == 0
    assert result.stdout.startswith("7♥ 7♦  Pair of sevens   2 players")


# --- 6. terminal play: every seat out of chips is marked (out), said once --------------------

def test_every_seat_out_of_chips_is_marked_out_and_said_once(tmp_path: Path) -> None:
    result = guts("play", "--players", "5", "--seed", "1", "--chips", "2", "--rule",
                  "rebuys=true", "--db", str(tmp_path / "g.db"),
                  input="i\ni\ny\ni\ni\nq\n", columns=80)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    # Round 2 (worked out from the seeded deal): Ava cannot match and is eliminated; You,
    # Bruno and Dara lose their last chips (was: "Bruno 0 · Dara 0", never marked).
    at = lines.index("Ava is eliminated for the rest of the session (keeping 0 chips).")
    assert lines[at + 1:at + 5] == [
        "You have no chips left: not dealt in (out).",
        "Bruno has no chips left: not dealt in (out).",
        "Dara has no chips left: not dealt in (out).",
        "Stacks: You 0 (out) · Ava 0 (out) · Bruno 0 (out) · Chen 5 · Dara 0 (out)",
    ]
    # After your rebuy the others stay marked, and nobody is said to be out again.
    assert "Stacks: You 7 · Ava 0 (out) · Bruno 0 (out) · Chen 5 · Dara 0 (out)" in lines
    assert "Stacks: You 8 · Ava 0 (out) · Bruno 0 (out) · Chen 4 · Dara 0 (out)" in lines
    assert sum("no chips left" in line for line in lines) == 3
    # A stack that cannot cover the match is told a loss puts it out (shortfall eliminate:
    # the core's match_quotes); your rebought 2 chips against a pot of 5, then 6 against 2.
    prompts = [line for line in lines if line.startswith("Pot ")]
    assert prompts == [
        "Pot 5 · if you go in and lose you match 5 · your stack 1 (losing puts you out)",
        "Pot 5 · if you go in and lose you match 5 · your stack 5",
        "Pot 5 · if you go in and lose you match 5 · your stack 2 (losing puts you out)",
        "Pot 2 · if you go in and lose you match 2 · your stack 6",
        "Pot 2 · if you go in and lose you match 2 · your stack 7",
    ]


# --- 7. the bots' rebuy policy is stated ---------------------------------------------------

def test_play_help_says_the_bots_never_rebuy() -> None:
    text = " ".join(guts("play", "--help", columns=80).stdout.split())
    assert ("The bots never rebuy (rebuys=true allows a rebuy, it obliges no one): a bot out "
            "of chips is out for the session, which ends when fewer than two players have "
            "chips.") in text
