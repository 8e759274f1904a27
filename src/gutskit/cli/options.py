"""Options shared by the ``guts`` commands, and how they become house rules.

Every command reads the house rules the same way: the annotated option types below
(``--preset``, ``--rules``, ``--rule KEY=VALUE``) and :func:`resolve_rules`. This module is
light on purpose (typer only): ``guts --help`` imports it, and the house-rules model is
loaded only when a command resolves its rules.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gutskit.cli.errors import UsageProblem, note_db_source
from gutskit.cli.words import count
from gutskit.core.limits import MAX_CHIPS, MAX_NAME, name_problem
from gutskit.io.location import SQLITE_HEADER

if TYPE_CHECKING:
    from gutskit.core.rules import Rules

__all__ = ["MODEL_CHIPS", "MODEL_CHIPS_TEXT", "SEED_MIN", "ChipsOpt", "DbOpt", "JsonOpt",
           "PresetOpt", "RuleOpt", "RulesFileOpt", "SeedOpt", "TournamentSeedOpt", "check_name",
           "check_output_path", "comma_list", "resolve_rules", "typed_hand_size"]

PresetOpt = Annotated[str | None, typer.Option(
    "--preset", "-p", metavar="NAME",
    help="Start from a named preset (see 'guts rules --list').")]


RulesFileOpt = Annotated[Path | None, typer.Option(
    "--rules", "-r", metavar="FILE",
    help="House rules from a TOML file of key = value lines.")]
RuleOpt = Annotated[list[str] | None, typer.Option(
    "--rule", metavar="KEY=VALUE",
    help="Set one house rule, e.g. --rule pot_cap=50 (repeatable; applied last).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
SEED_MIN = 0
"""The smallest seed: a seed is a non-negative integer (numpy's ``SeedSequence``, which the
fast simulator and the tournament's exploitability use, refuses a negative one, and
``random.Random(-n)`` would silently play the same run as ``n``). No upper bound: both
take any integer."""
SeedOpt = Annotated[int | None, typer.Option(
    "--seed", min=SEED_MIN,
    help="Seed a random.Random for a reproducible run: a whole number, 0 or more "
         "(default: OS randomness).")]
TournamentSeedOpt = Annotated[int, typer.Option(
    "--seed", min=SEED_MIN, help="The tournament's seed: a whole number, 0 or more.")]
ChipsOpt = Annotated[int, typer.Option(
    "--chips", min=1, max=MAX_CHIPS,
    help=f"Everyone's buy-in, in chips (1..{MAX_CHIPS}, gutskit's largest buy-in or "
         "rebuy; a stack that wins pots may grow past it).")]
MODEL_CHIPS = 10**12
"""The largest chip amount the strategy tools take (``guts odds`` / ``solve`` / ``advise``
``--pot``, ``guts tournament --chips``): they model a pot or a bankroll and play no table,
so :data:`gutskit.core.limits.MAX_CHIPS` (1,000,000, what a table's buy-in or rebuy may be:
``guts play`` / ``companion`` / ``sim``, the server) does not bound them. 10^12 keeps every
stack and pot far inside a float's exact integers (2^53) for a simulated session."""
MODEL_CHIPS_TEXT = "1..10^12, a model's amount: the 1,000,000 bound is for a table's buy-in"
"""How --help states :data:`MODEL_CHIPS`."""
DbOpt = Annotated[str | None, typer.Option(
    "--db", metavar="PATH|URL", envvar="GUTSKIT_DB", show_envvar=True,
    callback=note_db_source,
    help="Database file (SQLite) or SQLAlchemy URL "
         "[default: gutskit.db in your data folder; GUTSKIT_DB set but empty is "
         "refused].")]


def resolve_rules(preset_name: str | None = None, rules_file: Path | None = None,
                  assignments: Sequence[str] | None = None, *,
                  buy_in: int | None = None) -> Rules:
    """The effective rules of ``--preset`` / ``--rules`` (mutually exclusive) and
    ``--rule KEY=VALUE`` overrides; with ``buy_in`` (``--chips``, chips), also checked
    against it (:func:`gutskit.core.rules.check_buy_in`, as the server does).

    Raises:
        UsageProblem: both ``--preset`` and ``--rules`` are given.
        RulesError: an unknown preset, an unreadable file, an unknown or invalid rule, an
            ante above ``buy_in`` or ``buy_in`` below ``min_buy_in``.
    """
    from gutskit.core.rules import RulesError, preset_listing, rule_listing

    if preset_name is not None and rules_file is not None:
        raise UsageProblem("--preset and --rules cannot be used together; choose one")
    try:
        return _resolve_rules(preset_name, rules_file, assignments, buy_in)
    except RulesError as error:
        # The core lists every preset or house rule (300 characters): one short line
        # points to the command that lists them instead.
        message = str(error).replace(
            preset_listing(), "; see 'guts rules --list'").replace(
            rule_listing(), "; see 'guts rules'")
        raise RulesError(message) from None


def _resolve_rules(preset_name: str | None, rules_file: Path | None,
                   assignments: Sequence[str] | None, buy_in: int | None) -> Rules:
    """:func:`resolve_rules` once ``--preset`` and ``--rules`` are known not to clash."""
    from gutskit.core.rules import (
        Rules,
        RulesError,
        check_buy_in,
        parse_rule_assignment,
        preset,
        rules_from_mapping,
    )
    from gutskit.io.files import load_rules

    if preset_name is not None:
        rules = preset(preset_name)
    elif rules_file is not None:
        rules = load_rules(rules_file)
    else:
        rules = Rules()
    if assignments:
        overrides = {}
        for text in assignments:
            try:
                key, value = parse_rule_assignment(text)
            except RulesError as error:
                raise RulesError(f"--rule: {error}") from None
            overrides[key] = value
        try:
            rules = rules_from_mapping(overrides, base=rules)
        except RulesError as error:
            given = " ".join(f"--rule {text if len(text) <= 40 else text[:39] + '…'}"
                             for text in assignments)
            raise RulesError(f"{given}: {error}") from None
    if buy_in is not None:
        check_buy_in(rules, buy_in)
    return rules


def typed_hand_size(typed: str, hint: str = "") -> int:
    """The number of cards of a hand as typed (``guts compare``, ``odds``, ``advise``, when
    no option sets it): 2 or 3, the sizes of a Guts hand. Call it once the cards parse,
    so that an unknown card is named first.

    Raises:
        CardError: another number of cards, in one message for every command
            (``hand '7h 7d 2c 3c' has 4 cards; Guts hands have 2 or 3``), ``hint`` after.
    """
    size = len(typed.replace(",", " ").split())
    if size not in (2, 3):
        from gutskit.core.cards import CardError

        raise CardError(f"hand {typed!r} has {count(size, 'card')}; Guts hands have 2 or "
                        f"3{hint}")
    return size


def check_output_path(path: Path | None, what: str,
                      suffixes: Sequence[str] | None = None) -> None:
    """Check, before a long run, that ``path`` can be written later: its folder exists,
    it is not a folder, it (or, when it is new, its folder) is writable, it is not a
    SQLite database (an existing file is replaced; a database is never: fresh8's
    ``--history`` over a ``--db`` file), and (with ``suffixes``) it ends in one of them.

    Args:
        path: the file to write (``None``: nothing to check).
        what: how the message names it, e.g. ``"plot file"``.
        suffixes: the allowed file endings, e.g. ``(".png", ".svg", ".pdf")``.

    Raises:
        UsageProblem: the file cannot be written there; the message quotes the path.
    """
    if path is None:
        return
    if suffixes is not None and path.suffix.lower() not in suffixes:
        allowed = ", ".join(suffixes[:-1]) + f" or {suffixes[-1]}"
        raise UsageProblem(f"{what} {str(path)!r} must end in {allowed}")
    if path.is_dir():
        raise UsageProblem(f"{what} {str(path)!r} is a folder")
    folder = path.expanduser().parent
    if not folder.is_dir():
        raise UsageProblem(f"{what} {str(path)!r}: the folder {str(folder)!r} does not exist")
    target = path.expanduser()
    writable = os.access(target, os.W_OK) if target.exists() else os.access(folder, os.W_OK)
    if not writable:
        raise UsageProblem(f"{what} {str(path)!r} cannot be written (permission denied)")
    if target.is_file() and _starts_with(target, SQLITE_HEADER):
        raise UsageProblem(f"{what} {str(path)!r} is a SQLite database: it would be "
                           "overwritten; give another file name")


def _starts_with(path: Path, head: bytes) -> bool:
    """Whether the file ``path`` begins with ``head`` (``False`` when it cannot be read)."""
    try:
        with path.open("rb") as file:
            return file.read(len(head)) == head
    except OSError:
        return False


def comma_list(option: str, text: str, what: str) -> list[str]:
    """The items of a comma-separated option value, each stripped of spaces
    (``"Ana, Ben"`` -> ``["Ana", "Ben"]``); an empty item is refused, never dropped.

    Args:
        option: the option as the user typed it, e.g. ``"--players"``.
        text: its value.
        what: what one item is, e.g. ``"name"`` or ``"bot kind"``.

    Raises:
        UsageProblem: the value is empty, or an item is (``"Ana,,Ben"``: item 2 of 3); the
            message quotes the value and names the position.
    """
    items = [item.strip() for item in text.split(",")]
    if not any(items):
        raise UsageProblem(f"{option} {text!r} has no {what}")
    for position, item in enumerate(items, start=1):
        if not item:
            raise UsageProblem(f"{option} {text!r}: {what} {position} of {len(items)} is "
                               f"empty (separate them by single commas)")
    return items


def check_name(option: str, name: str, shown: str | None = None) -> str:
    """``name`` stripped, once it may be a player's name (the rule:
    :func:`gutskit.core.limits.name_problem`: 1 to ``MAX_NAME`` characters, no control
    character such as an ANSI escape).

    Args:
        option: the option as the user typed it, e.g. ``"--name"``.
        name: the name.
        shown: the option's whole value when the name is one item of it (``--players``).

    Raises:
        UsageProblem: the name breaks the rule; the message quotes it with ``repr`` (a
            control character shows escaped, ``'\\x1b[2J'``) and says why.
    """
    problem = name_problem(name)
    if problem is None:
        return name.strip()
    where = f"{option} {name!r}" if shown is None else f"{option} {shown!r}: name {name!r}"
    raise UsageProblem(f"{where} {problem} (a player's name is 1 to {MAX_NAME} printable "
                       "characters)")
