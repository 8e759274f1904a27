"""``guts analyze``: statistics, pot escalation, collusion and bluff signals from saved
hand histories (:mod:`gutskit.strategy.analysis`). Registered in :mod:`gutskit.cli.app`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from gutskit.cli.errors import finite, note_db_source
from gutskit.cli.options import JsonOpt, check_output_path
from gutskit.cli.words import count

__all__ = ["EPILOG", "analyze", "register"]

EPILOG = ("Examples:\n\n"
          "    guts analyze                       # every session in the default database\n\n"
          "    guts analyze --history game.jsonl --plot snowball.png\n\n"
          "    guts analyze --db club.db --json")


def _db_unless_history(ctx: Any, param: Any, value: str | None) -> str | None:
    """``guts analyze --db``'s callback: with ``--history FILE`` and no ``--db``, the
    database is not read at all, so ``GUTSKIT_DB`` is not either (``None``; set but empty
    is then no mistake); otherwise :func:`gutskit.cli.errors.note_db_source`.

    click processes the options given on the command line first, so ``--history`` is in
    ``ctx.params`` by the time a ``--db`` that was not given is processed.
    """
    source = getattr(ctx.get_parameter_source(param.name), "name", "")
    if source not in ("COMMANDLINE", "PROMPT") and ctx.params.get("history") is not None:
        return None
    return note_db_source(ctx, param, value)


def _column(table: Any, header: str, *, wrap: bool | None = None) -> None:
    """Add the column ``header`` to the rich ``table``: a name column (``player``, ``pair``)
    is left-justified, the others right; only ``wrap`` columns (default: the name column)
    are narrowed to fit the console, folding a long value over lines rather than cutting
    it with "…"; the other columns keep their width (short numbers)."""
    name = header in ("player", "pair")
    table.add_column(header, justify="left" if name else "right", overflow="fold",
                     no_wrap=not (name if wrap is None else wrap))


def analyze(
    db: Annotated[str | None, typer.Option(
        "--db", metavar="PATH|URL", envvar="GUTSKIT_DB", show_envvar=True,
        callback=_db_unless_history,
        help="Database file (SQLite) or SQLAlchemy URL [default: gutskit.db in your data "
             "folder, unless --history is given (GUTSKIT_DB too); GUTSKIT_DB set but empty "
             "is refused].")] = None,
    history: Annotated[Path | None, typer.Option(
        "--history", metavar="FILE", help="A JSON Lines hand-history file.")] = None,
    alpha: Annotated[float, typer.Option(
        "--alpha", min=0.0, max=1.0, callback=finite,
        help="Flag pairs whose Holm-adjusted p-value is below this.")] = 0.01,
    plot: Annotated[Path | None, typer.Option(
        "--plot", metavar="FILE",
        help="Save the pot snowball plot (.png, .svg or .pdf).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Analyse saved hand histories: per player in-rate, win rate, net by position;
    pot escalation against the rule books' "10 to 30 times the ante after 3 or 4 matched
    rounds"; a collusion report (pairs where a player's calls depend on the partner's
    cards beyond card removal, Holm-adjusted p-values; without recorded hands a stratified
    Fisher exact test of the calls) and bluff signals (weak hands shown at showdowns).
    """
    from rich.table import Table

    from gutskit.cli.console import game_console
    from gutskit.io.location import check_location, default_db_path
    from gutskit.strategy.analysis import AnalysisError, load_sessions
    from gutskit.strategy.analysis import analyze as run_analysis

    check_output_path(plot, "plot file", (".png", ".svg", ".pdf"))
    if history is None and db is None:
        if not default_db_path().exists():
            raise AnalysisError(f"no saved sessions yet ({default_db_path()} does not "
                                f"exist); play with 'guts play' or pass --history FILE")
        db = str(default_db_path())
    if history is None:
        check_location(db, must_exist=True)  # only read: never create an empty database
    sessions = load_sessions(history=history, db=db)
    report = run_analysis(sessions, alpha=alpha)
    if plot is not None:
        from gutskit.io.plots import snowball_plot

        snowball_plot(report.pots_by_matched, plot,
                      title=f"Pot snowball ({count(report.rounds, 'round')} played, "
                            f"{count(report.games, 'game')})")
    if as_json:
        data = report.to_dict()
        if plot is not None:
            data["plot"] = str(plot)
        typer.echo(json.dumps(data, indent=2))
        return
    out = game_console()
    players = Table(title=f"Players ({count(report.sessions, 'session')}, "
                          f"{count(report.rounds, 'round')} played, "
                          f"{count(report.games, 'game')})",
                    caption="net: the ledger's (final stack minus buy-ins, over the "
                            "sessions), as guts referee and the server's ledger show it; "
                            "net/round*: in the rounds only (pots won minus antes and "
                            "matches; not the pot and reserve shared at a session's end)")
    for col in ("player", "rounds", "in-rate", "win\nrate", "net", "net/round*",
                "net/round* by position (0 = dealer)"):
        _column(players, col, wrap=col.startswith(("player", "net/round* by")))
    for name, s in report.players.items():
        by_pos = " ".join(f"{p}:{v['net_per_round']:+.2f}"
                          for p, v in s["net_by_position"].items())
        players.add_row(name, str(s["rounds"]), f"{s['in_rate']:.3f}", f"{s['win_rate']:.3f}",
                        f"{s['net']:+d}", f"{s['net_per_round']:+.3f}", by_pos)
    out.print(players)
    pots = Table(title="Pot escalation: pot after antes, in antes, by matched rounds so far")
    for col in ("matched", "rounds", "median", "p25-p75", "mean", "max"):
        pots.add_column(col, justify="right")
    for k, v in report.escalation.items():
        pots.add_row(str(k), str(v["rounds"]), f"{v['median']:g}",
                     f"{v['p25']:g}-{v['p75']:g}", f"{v['mean']:.1f}", f"{v['max']:g}")
    out.print(pots)
    snow = report.snowball_check
    if snow.get("median_antes") is not None:
        out.print(f"Rule books: {snow['claim']}. Here after 3 or 4 matched rounds: median "
                  f"{snow['median_antes']:g} ante{'' if snow['median_antes'] == 1 else 's'}, "
                  f"{snow['share_within_10_to_30']:.0%} "
                  f"within 10-30, {snow['share_below_10']:.0%} below, "
                  f"{snow['share_above_30']:.0%} above "
                  f"({count(snow['rounds_after_3_or_4_matched'], 'round')}).")
    out.print(f"Games whose pot grew fivefold within three rounds: {report.fivefold_games}")
    coll = Table(title=f"Collusion: does a player's call depend on the partner's cards? "
                       f"(flag: Holm-adjusted p < {report.alpha:g})",
                 caption="z cards: the first player's calls against the second's cards, "
                         "then the reverse; '-' = hands not recorded, p from the calls "
                         "(agreement test); COLLUSION? under a pair: flagged")
    for col in ("pair", "rounds", "both\nin", "expected", "z\nagree", "z\ncards", "p",
                "p\n(Holm)"):  # 80 columns hold them: the pair and z cards take two lines
        _column(coll, col)
    for c in report.collusion:
        signal = "\n".join(f"{z:+.2f}" if n else "-"
                           for z, n in zip(c["signal"]["z"], c["signal"]["rounds"],
                                           strict=True))
        pair = " &\n".join(c["players"]) + ("\nCOLLUSION?" if c["flagged"] else "")
        coll.add_row(pair, str(c["rounds"]), str(c["both_in"]),
                     f"{c['expected_both_in']:.1f}", f"{c['z']:+.2f}", signal,
                     f"{c['p_value']:.2g}", f"{c['p_adjusted']:.2g}")
    out.print(coll)
    bluff = Table(title="Bluff signals: hands shown at showdowns")
    for col in ("player", "shown", "below median", "below rule of thumb", "weakest shown"):
        bluff.add_column(col, justify="left" if col in ("player", "weakest shown") else "right",
                         overflow="fold")
    for name, b in report.bluffs.items():
        weakest = b["weakest"]
        bluff.add_row(name, str(b["shown"]), str(b["below_median"]),
                      str(b["below_rule_of_thumb"]),
                      "" if weakest is None else
                      f"{weakest['hand']} ({weakest['percentile']:.0%})")
    out.print(bluff)
    if plot is not None:
        out.print(f"Pot snowball plot saved to {plot}")


def register(app: typer.Typer) -> None:
    """Add ``guts analyze`` to ``app``."""
    app.command(epilog=EPILOG)(analyze)
