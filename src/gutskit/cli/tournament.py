"""``guts tournament``: bots against each other over many seeded sessions
(:mod:`gutskit.strategy.tournament`). Registered in :mod:`gutskit.cli.app`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from gutskit.cli.errors import UsageProblem
from gutskit.cli.options import (
    MODEL_CHIPS,
    MODEL_CHIPS_TEXT,
    JsonOpt,
    PresetOpt,
    RuleOpt,
    RulesFileOpt,
    TournamentSeedOpt,
    check_output_path,
    comma_list,
    resolve_rules,
)
from gutskit.cli.words import count

__all__ = ["BOT_KIND_NAMES", "EPILOG", "register", "tournament"]

BOT_KIND_NAMES = ("equilibrium", "rule-of-thumb", "cautious", "loose", "exploitative",
                  "random", "threshold")
"""The bot kinds named in ``--help`` (the keys of
:data:`gutskit.strategy.strategies.BOT_KINDS`, written here so that the help does not load
the strategies; a test checks they agree)."""

EPILOG = ("Examples:\n\n"
          "    guts tournament\n\n"
          "    guts tournament --bots equilibrium,rule-of-thumb,exploitative,random "
          "--sessions 200 --rounds 200 --seed 7 --plot bankroll.png\n\n"
          "    guts tournament --bots equilibrium,threshold:0.3 --players 6 --exploitability\n\n"
          "    guts tournament --sessions 20 --history games.jsonl && guts analyze "
          "--history games.jsonl\n\n"
          "    guts tournament --sessions 1000 --processes 2\n\n"
          "    guts tournament --sessions 10000 --cluster tcp://scheduler:8786")


def tournament(
    bots: Annotated[str, typer.Option(
        "--bots", "-b", metavar="KIND,KIND,...",
        help="Bot kinds, comma-separated, repeated to fill the seats: "
             + ", ".join(BOT_KIND_NAMES) + " (threshold:P plays percentile P or better: P "
               "from 0 to 1 or 0% to 100%, e.g. threshold:0.7 or threshold:70%; a "
               "percentile, not a hand).")
    ] = "equilibrium,rule-of-thumb,exploitative,random",
    players: Annotated[int | None, typer.Option(
        "--players", "-n", min=2, max=10,
        help="Seats at the table [default: one per bot kind].")] = None,
    sessions: Annotated[int, typer.Option(
        "--sessions", "-S", min=1, max=100_000,
        help="Independent seeded sessions (1..100000).")] = 100,
    rounds: Annotated[int, typer.Option(
        "--rounds", "-R", min=1, max=1_000_000,
        help="Rounds per session (1..1000000).")] = 200,
    seed: TournamentSeedOpt = 0,
    chips: Annotated[int, typer.Option(
        "--chips", min=1, max=MODEL_CHIPS,
        help=f"Every seat's buy-in, in chips ({MODEL_CHIPS_TEXT}).")] = 10_000,
    preset_name: PresetOpt = None,
    rules_file: RulesFileOpt = None,
    rule: RuleOpt = None,
    exploitability: Annotated[bool, typer.Option(
        "--exploitability/--no-exploitability",
        help="Also measure each bot's exploitability (a best-response search with the "
             "vectorized simulator: often longer than the tournament itself) [default: "
             "off].", show_default=False)] = False,
    plot: Annotated[Path | None, typer.Option(
        "--plot", metavar="FILE", help="Save bankroll curves (.png, .svg or .pdf).")] = None,
    history: Annotated[Path | None, typer.Option(
        "--history", metavar="FILE",
        help="Save every session's hand history (JSON Lines) for 'guts analyze'; an "
        "existing file is replaced.")] = None,
    processes: Annotated[int, typer.Option(
        "--processes", "-P", min=1,
        help="Play the sessions in N local processes (same results as 1).")] = 1,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", metavar="ADDRESS",
        help="Play the sessions on a Dask distributed cluster (scheduler address, e.g. "
             "tcp://host:8786; same results as 1 process).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Play bots against each other and report chips per round with 95% confidence
    intervals (and, with --exploitability, each bot's exploitability).

    Session s rotates the seats by s, uses fresh bots and its own seed. The interval is
    Student's t over sessions (one value per session and bot kind: net chips per round per
    seat). Exploitability (--exploitability, off by default: it is slow): the chips per
    round a best threshold response wins against copies of the bot (vectorized simulator,
    same rules, buy-in and session length).
    """
    from rich.table import Table

    from gutskit.cli.console import game_console
    from gutskit.core.events import Event
    from gutskit.io.files import dump_history
    from gutskit.strategy.tournament import CI_METHOD, TableSizeError, run_tournament

    rules = resolve_rules(preset_name, rules_file, rule, buy_in=chips)
    check_output_path(plot, "plot file", (".png", ".svg", ".pdf"))
    check_output_path(history, "history file")
    for path in (plot, history):  # every output can be written before any is
        _probe_writable(path)
    log: list[Event] | None = [] if history is not None else None
    kinds = comma_list("--bots", bots, "bot kind")
    try:
        result = run_tournament(kinds, players=players, sessions=sessions,
                                rounds=rounds, seed=seed, rules=rules, chips=chips,
                                exploitability=exploitability, history=log,
                                processes=processes, cluster=cluster)
    except TableSizeError as error:
        if players is not None:
            raise
        raise UsageProblem(f"--bots {bots!r} names {count(len(kinds), 'bot kind')}, one "
                           f"per seat: {error} (or give --players N: the kinds are repeated "
                           "to fill the seats)") from None
    if history is not None and log is not None:
        try:
            dump_history(log, history)
        except OSError as error:  # e.g. a full disk: the message names the file
            if error.filename is None:
                error.filename = str(history)
            raise
    if plot is not None:
        from gutskit.io.plots import bankroll_plot

        bankroll_plot(result.bankroll, plot, bands=result.bankroll_half,
                      title=f"Bankroll by bot ({count(sessions, 'session')}, 95% t band)")
    if as_json:
        data = result.to_dict()
        if plot is not None:
            data["plot"] = str(plot)
        typer.echo(json.dumps(data, indent=2))
        return
    out = game_console()
    table = Table(title=f"Tournament: {' '.join(result.lineup)}; "
                        f"{count(sessions, 'session')} x {count(rounds, 'round')}, "
                        f"{count(result.rounds_played, 'round')} played, seed {seed}")
    columns = ("bot", "seats", "chips/round", "95% CI", "in-rate")
    for col in columns + (("exploit.", "s.e.", "BR") if exploitability else ()):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for r in result.results:
        ex = r.exploitability
        if not exploitability:
            exploit: tuple[str, ...] = ()
        elif ex.chips_per_round is None:
            exploit = ("n/a", "", "")
        else:
            exploit = (f"{ex.chips_per_round:.3f}",
                       "exact" if ex.standard_error is None else f"{ex.standard_error:.3f}",
                       "-" if ex.best_response is None else f"{ex.best_response:.2f}")
        table.add_row(r.kind, str(r.seats), f"{r.chips_per_round:+.3f}",
                      f"[{r.ci_low:+.2f}, {r.ci_high:+.2f}]", f"{r.in_rate:.3f}", *exploit)
    out.print(table)
    out.print(f"CI: {CI_METHOD}.")
    if not exploitability:
        out.print("Exploitability: not measured (--exploitability measures it: a "
                  "best-response search per bot, often longer than the tournament).")
    else:
        out.print("exploit.: chips per round a best threshold response (BR: its "
                  "percentile) wins against copies of the bot; s.e.: its standard error.")
    kinds_by_note: dict[str, list[str]] = {}
    for r in result.results if exploitability else ():
        kinds_by_note.setdefault(r.exploitability.note, []).append(r.kind)
    for note, kinds in kinds_by_note.items():  # labelled with the bots each note is about
        out.print(f"Exploitability of {', '.join(kinds)}: {note}.")
    if plot is not None:
        out.print(f"Bankroll plot saved to {plot}")
    if history is not None:
        out.print(f"Hand histories saved to {history}")


def _probe_writable(path: Path | None) -> None:
    """Open ``path`` for appending (its contents are left as they are; a file the probe
    created is removed again).

    Raises:
        OSError: ``path`` cannot be written (the error names it).
    """
    if path is None:
        return
    existed = path.exists()
    with path.open("a"):
        pass
    if not existed:
        path.unlink(missing_ok=True)


def register(app: typer.Typer) -> None:
    """Add ``guts tournament`` to ``app``."""
    app.command(epilog=EPILOG)(tournament)
