"""``guts play`` (you against bots in the terminal) and ``guts history`` (the sessions it
saved).

The game itself is :mod:`gutskit.cli.terminal`. This module stays light: the first prompt
of ``guts play`` appears before the database library is loaded. The ``--db`` location is
checked at once without SQLAlchemy, the file created or opened for writing
(:func:`gutskit.io.location.check_location`); the store
is opened in a background thread while you read your first cards, and every round is saved
to it as soon as the round is resolved.
"""

from __future__ import annotations

import json
import random
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from gutskit.cli.errors import UsageProblem
from gutskit.cli.options import (
    ChipsOpt,
    DbOpt,
    JsonOpt,
    PresetOpt,
    RuleOpt,
    RulesFileOpt,
    SeedOpt,
    check_name,
    comma_list,
    resolve_rules,
)
from gutskit.cli.tournament import BOT_KIND_NAMES
from gutskit.cli.words import bot_names, odd_characters
from gutskit.core.limits import MAX_NAME

if TYPE_CHECKING:
    from gutskit.core.events import Event, SessionStarted
    from gutskit.io.storage import Store

__all__ = ["BackgroundStore", "history", "play", "register"]

class BackgroundStore:
    """A :class:`gutskit.io.storage.Store` opened in a background thread.

    :meth:`start` begins opening it (importing SQLAlchemy takes a good part of a second);
    the first :meth:`create_session` or :meth:`append` waits for it (or opens it, if it was
    not started) and raises its :class:`~gutskit.io.location.StorageError` if it could not
    be opened.

    Args:
        location: a SQLite path or SQLAlchemy URL; ``None``: the default database.
    """

    def __init__(self, location: str | None) -> None:
        self.location = location
        self._thread: threading.Thread | None = None
        self._store: Store | None = None
        self._error: BaseException | None = None

    def start(self) -> None:
        """Start opening the store (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._open, name="gutskit-store",
                                            daemon=True)
            self._thread.start()

    def _open(self) -> None:
        try:
            from gutskit.io.storage import open_store

            self._store = open_store(self.location)
        except BaseException as error:  # re-raised in the main thread by store()
            self._error = error

    def store(self) -> Store:
        """The opened store (waits for the background thread, or opens it now).

        Raises:
            StorageError: the database cannot be opened.
        """
        if self._thread is None:
            self._open()  # never started: open it here
        else:
            self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._store is not None
        return self._store

    def create_session(self, source: str, start: SessionStarted) -> int:
        """:meth:`gutskit.io.storage.Store.create_session`, once the store is open."""
        return self.store().create_session(source, start)

    def append(self, session_id: int, events: Sequence[Event], *,
               end_reason: str | None = None) -> None:
        """:meth:`gutskit.io.storage.Store.append`, once the store is open."""
        self.store().append(session_id, events, end_reason=end_reason)


def play(
    players: Annotated[int, typer.Option("--players", "-n", min=2, max=10,
                                         help="Seats at the table, you included.")] = 5,
    preset_name: PresetOpt = None,
    rules_file: RulesFileOpt = None,
    rule: RuleOpt = None,
    seed: SeedOpt = None,
    chips: ChipsOpt = 100,
    name: Annotated[str, typer.Option(
        "--name", help=f"Your name at the table (1 to {MAX_NAME} printable characters).")] = "You",
    db: DbOpt = None,
    bots: Annotated[str | None, typer.Option(
        "--bots", "-b", metavar="KIND[,KIND...]",
        help="Your opponents, repeated to fill the seats: " + ", ".join(BOT_KIND_NAMES)
             + " (threshold:P plays percentile P or better: P from 0 to 1 or 0% to 100%, "
               "e.g. threshold:0.7 or threshold:70%; a percentile, not a hand) "
               "[default: equilibrium,loose,rule-of-thumb,exploitative,...].")] = None,
    coach: Annotated[bool, typer.Option(
        "--coach", help="After each declaration, show what the equilibrium does with your "
                        "hand, with the EV of in vs out behind it.")] = False,
) -> None:
    """Play Guts in the terminal: you (seat 0) against bots.

    Each round shows your cards, the pot, then asks **in** or **out** (also
    **i**, **o**; **quit** or **q** stops; **away** sits you out from the next deal, seat
    and chips kept, and **back** brings you back: for the next round if you have missed
    none, else for the next game; **help** at any prompt explains it). All declarations are
    revealed at once (under sequential declaration you see the calls made before yours),
    then the showdown, who matched, and the stacks.

    With rebuys allowed (--rule rebuys=true, or --preset buy-in-limits), a stack below the
    minimum buy-in (below the ante when there is none) is asked **Rebuy C chips? [y/n/q]**
    between rounds (C: --chips, or the minimum buy-in if larger): **y** buys them, **n**
    plays on with your stack (at 0 it ends the session), **q** quits. The bots never
    rebuy (rebuys=true allows a rebuy, it obliges no one): a bot out of chips is out for
    the session, which ends when fewer than two players have chips.

    At the end (or on quit, Ctrl-C or the end of the input) the ledger is
    printed. Every session is saved to the database (see 'guts history').
    """
    from rich.markup import escape

    from gutskit.io.location import check_location, default_db_path, is_url
    from gutskit.strategy.strategies import parse_bot_kinds, play_table

    rules = resolve_rules(preset_name, rules_file, rule, buy_in=chips)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageProblem(f"--name {name!r} is not valid UTF-8 text") from None
    name = check_name("--name", name)
    if bots is not None:
        comma_list("--bots", bots, "bot kind")  # an empty kind is named, not dropped
    kinds = parse_bot_kinds(bots) if bots is not None else None
    table = play_table(players - 1, kinds)  # more kinds than seats: an error before play
    names = bot_names(table)
    labels = [bot.name for bot in table]
    # "ava" or "Аva" beside the bot Ava, or "Ava (equilibrium)" (its label): the same
    # look-alike rule as guts companion -n Ana,ana and the server (gutskit.server.names)
    from gutskit.server.names import confusable_with

    other = confusable_with(name, [*names, *labels])
    inside = name.rpartition("(")[2].removesuffix(")") if name.endswith(")") else ""
    kind = confusable_with(inside.strip(), [*BOT_KIND_NAMES, *(label.partition(" (")[2][:-1]
                                                               for label in labels)])
    if other is None and kind is not None:  # "Zed (loose)": a bot's label, not a person's
        raise UsageProblem(f"--name {name!r} reads as a bot's label (a name with the bot's "
                           f"kind, {kind!r}, beside it, as the bots "
                           f"{', '.join(labels)}): choose another name with --name")
    if other == name and name in labels:
        raise UsageProblem(f"--name {name!r} is the label of the bot {names[labels.index(name)]!r}"
                           f" at this table (the bots are {', '.join(names)}, named in seat "
                           "order): choose another name with --name")
    if other == name:  # the engine refuses two players of one name at the table
        raise UsageProblem(f"--name {name!r} is a bot's name at this table (the bots are "
                           f"{', '.join(names)}, named in seat order): choose another "
                           "name with --name")
    if other is not None:
        raise UsageProblem(f"--name {name!r} looks like the bot {other!r}"
                           f"{odd_characters(name, other)} (the bots are {', '.join(names)}, "
                           "named in seat order): choose another name with --name")
    check_location(db, writable=True)  # before the first deal: a file that can be written
    store = BackgroundStore(db)
    if db is not None and is_url(db):
        store.store()  # a server database: check its driver and connection before play
    from gutskit.cli.console import game_console
    from gutskit.cli.terminal import ending_signals

    console = game_console()
    interactive = sys.stdin.isatty()

    def read(prompt: str) -> str:
        store.start()  # load the database library while the player thinks
        return console.input(prompt)

    from gutskit.cli.terminal import play_session

    rng = random.Random(seed) if seed is not None else None
    with ending_signals():  # SIGTERM, SIGHUP: the game ends as at Ctrl-C
        result = play_session(console=console, read=read, store=store, rules=rules,
                              players=players, chips=chips, rng=rng, name=name,
                              echo=not interactive, bots=kinds, coach=coach)
    location = str(default_db_path()) if db is None else db
    console.print(f"Hand history saved as session {result.session_id} in {escape(location)} "
                  f"(see: guts history {result.session_id}"
                  f"{'' if db is None else ' --db ' + escape(db)}).")
    if result.interrupted:
        raise typer.Exit(result.exit_code or 130)


LEFT_COLUMNS = ("Started (UTC)", "Source", "Players", "Status")
"""The columns of ``guts history``'s list read from the left (the numbers: from the right)."""


def history(
    session_id: Annotated[int | None, typer.Argument(
        metavar="SESSION_ID", min=1,
        help="Show this session's hand history (its number: 1 or more).")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List saved sessions, or print one session's hand history.

    With --json: one JSON object per session, or the hand history as JSON Lines (one event
    per line, the format of gutskit.core.history, readable by gutskit.io.files.load_history).
    """
    from datetime import UTC

    from rich.markup import escape
    from rich.table import Table

    from gutskit.cli.console import game_console
    from gutskit.io.location import check_location, default_db_path

    location = str(default_db_path()) if db is None else db
    out = game_console()
    check_location(db, must_exist=True)  # only read (as 'guts analyze'): never create one
    from gutskit.io.storage import open_store

    store = open_store(db, create=False)
    if session_id is None:
        infos = store.sessions()
        if as_json:
            for info in infos:
                typer.echo(json.dumps({
                    "id": info.id, "created_at": info.created_at.replace(tzinfo=UTC).isoformat(),
                    "source": info.source, "players": info.players, "status": info.status,
                    "end_reason": info.end_reason, "rounds": info.rounds,
                    "rules": info.rules}, ensure_ascii=False))
            return
        if not infos:
            out.print(f"No saved sessions in {escape(location)}.")
            return
        table = Table(title=f"Sessions in {escape(location)}", title_justify="left")
        for column in ("Id", "Started (UTC)", "Source", "Players", "Rounds dealt", "Status"):
            table.add_column(column, justify="left" if column in LEFT_COLUMNS else "right")
        for info in infos:
            status = info.status + (f": {info.end_reason}" if info.end_reason else "")
            table.add_row(str(info.id), info.created_at.strftime("%Y-%m-%d %H:%M"),
                          info.source, escape(", ".join(info.players)), str(info.rounds),
                          escape(status))
        out.print(table)
        return
    events = store.events(session_id)
    if as_json:
        from gutskit.core.history import event_to_dict

        for event in events:
            typer.echo(json.dumps(event_to_dict(event), ensure_ascii=False))
        return
    from gutskit.cli.terminal import narrate_history, show_ledger
    from gutskit.core.ledger import ledger

    info = store.session(session_id)
    out.print(f"Session {info.id} ({info.source}, started "
              f"{info.created_at.strftime('%Y-%m-%d %H:%M')} UTC, {info.status})")
    state = narrate_history(out, events)
    if state is not None and ledger(state):
        show_ledger(out, state)


def register(app: typer.Typer) -> None:
    """Add ``guts play`` and ``guts history`` to ``app``."""
    app.command(epilog="Examples:\n\n"
                "  guts play\n\n"
                "  guts play --players 3 --preset german-2card --chips 50\n\n"
                "  guts play --preset indonesian --seed 7 --db ./guts.db\n\n"
                "  guts play --players 4 --bots equilibrium,loose,cautious --coach\n\n"
                "  printf 'in\\nout\\nquit\\n' | guts play --seed 1")(play)
    app.command(epilog="Examples:\n\n"
                "  guts history\n\n"
                "  guts history 3\n\n"
                "  guts history 3 --json > session3.jsonl\n\n"
                "  guts history --db ./guts.db --json")(history)
