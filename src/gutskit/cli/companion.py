"""``guts companion``: gutskit as the companion of a real table (issue 10).

The cards are dealt at the table; this one device asks round by round who is in and, at a
showdown, the cards of those in (or the winners the table names), moves the chips by the
rules, says who deals next, offers undo, and at the end prints the ledger and who pays whom.
The session is saved like ``guts play`` (``guts history``). The loop itself is
:mod:`gutskit.cli.companion_loop`; this module stays light (typer only at the top).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from gutskit.cli.errors import UsageProblem
from gutskit.cli.options import (
    ChipsOpt,
    DbOpt,
    PresetOpt,
    RuleOpt,
    RulesFileOpt,
    check_name,
    comma_list,
    resolve_rules,
)
from gutskit.cli.words import odd_characters
from gutskit.core.limits import MAX_NAME

__all__ = ["companion", "register"]


def companion(
    players: Annotated[str, typer.Option(
        "--players", "-n", metavar="NAME,NAME,...",
        help="The players at the table, clockwise, separated by commas (each name 1 to "
             f"{MAX_NAME} printable characters).")],
    dealer: Annotated[str | None, typer.Option(
        "--dealer", metavar="NAME", help="Who deals first [default: the first player].")
    ] = None,
    chips: ChipsOpt = 100,
    preset_name: PresetOpt = None,
    rules_file: RulesFileOpt = None,
    rule: RuleOpt = None,
    db: DbOpt = None,
) -> None:
    """Run the chips of a real table: the cards are dealt at the table, gutskit asks who is
    in and, at a showdown, the cards of those in (e.g. **Ah Kd 2c**) or
    **winner: NAME**, and moves the chips by the house rules.

    Between rounds: Enter deals, **undo** takes the last round back, **end** stops.
    During a round: **misdeal**, **undo**, **end**. At the end the ledger and who pays whom
    are printed and the hand history is saved (see 'guts history'; 'guts history ID --json'
    exports it and 'guts referee FILE' replays the export).
    """
    from rich.markup import escape

    from gutskit.cli.play import BackgroundStore
    from gutskit.io.location import check_location, default_db_path, is_url
    from gutskit.server.names import confusable_with

    rules = resolve_rules(preset_name, rules_file, rule, buy_in=chips)
    from gutskit.cli.companion_loop import name_clash

    names = [check_name("--players", name, players)
             for name in comma_list("--players", players, "name")]
    for name in names:  # "Ana Lee", "none", "end": typed at a prompt, not read as the name
        clash = name_clash(name)
        if clash is not None:
            raise UsageProblem(f"--players {players!r}: name {name!r} {clash}; give each "
                               "player a one-word name that is not an answer")
    if len(names) < 2:
        raise UsageProblem(f"--players {players!r}: name 2 to 10 players separated by commas")
    for position, name in enumerate(names):
        other = confusable_with(name, names[:position])
        if other == name:
            raise UsageProblem(f"--players {players!r}: {name!r} is named twice; give each "
                               "player a different name")
        if other is not None:  # "ANA" typed at the table could not tell them apart
            raise UsageProblem(f"--players {players!r}: {name!r} looks like {other!r}"
                               f"{odd_characters(name, other)}; give each player a name the "
                               "table can tell apart")
    seat = 0
    if dealer is not None:
        lower = [n.lower() for n in names]
        if dealer.strip().lower() not in lower:
            raise UsageProblem(f"--dealer {dealer!r} is not one of the players "
                               f"({', '.join(names)})")
        seat = lower.index(dealer.strip().lower())
    check_location(db, writable=True)  # before the first deal: a file that can be written
    store = BackgroundStore(db)
    store.start()
    if db is not None and is_url(db):
        store.store()
    from gutskit.cli.console import game_console
    from gutskit.cli.terminal import ending_signals

    console = game_console()

    from gutskit.cli.companion_loop import companion_session

    with ending_signals():  # SIGTERM, SIGHUP: the session ends as at Ctrl-C or "end"
        result = companion_session(console=console, read=console.input, store=store,
                                   rules=rules, names=names, chips=chips, dealer=seat,
                                   echo=not sys.stdin.isatty())
    location = str(default_db_path()) if db is None else db
    console.print(f"Hand history saved as session {result.session_id} in {escape(location)} "
                  f"(see: guts history {result.session_id}"
                  f"{'' if db is None else ' --db ' + escape(db)}).")
    if result.exit_code:
        raise typer.Exit(result.exit_code)


def register(app: typer.Typer) -> None:
    """Add ``guts companion`` to ``app``."""
    app.command(epilog="Examples:\n\n"
                "  guts companion --players Ana,Ben,Cleo --chips 20\n\n"
                "  guts companion --players Ana,Ben,Cleo,Dan --preset estonian --chips 60\n\n"
                "  guts companion -n Ana,Ben --rule hi_lo=true --dealer Ben\n\n"
                "  printf '\\nAna Ben\\nAh Kd 2c\\nQh Qc 3d\\nend\\n' | "
                "guts companion -n Ana,Ben,Cleo")(companion)
