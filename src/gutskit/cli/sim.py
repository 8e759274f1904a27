"""``guts sim``: bots play many rounds (:func:`gutskit.strategy.simulation.simulate`) and
the command prints a summary."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Annotated

import typer

from gutskit.cli.options import (
    ChipsOpt,
    JsonOpt,
    PresetOpt,
    RuleOpt,
    RulesFileOpt,
    SeedOpt,
    resolve_rules,
)
from gutskit.cli.words import count

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

__all__ = ["register", "sim"]


def sim(
    players: Annotated[int, typer.Option("--players", "-n", min=2, max=10,
                                         help="Bots at the table.")] = 5,
    rounds: Annotated[int, typer.Option("--rounds", "-R", min=1, max=10_000_000,
                                        help="Rounds (deals) to play (1..10000000).")] = 1000,
    preset_name: PresetOpt = None,
    rules_file: RulesFileOpt = None,
    rule: RuleOpt = None,
    seed: SeedOpt = None,
    chips: ChipsOpt = 100,
    as_json: JsonOpt = False,
) -> None:
    """Let bots play many rounds and summarise them.

    The summary: final stacks, rounds, games, sessions, largest pot and pot growth.
    When a session ends (fewer than two players with chips, or end_on_uncontested) a new
    one starts with fresh buy-ins and the counts go on. A *game* starts when antes
    go into an empty pot; its *pot growth* is the pot at stake in its last round
    divided by its opening pot (after the first antes); the mean is over games that ended
    with the pot won. Same seed, same result.
    """
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.table import Table

    from gutskit.cli.console import game_console
    from gutskit.strategy.simulation import simulate

    rules = resolve_rules(preset_name, rules_file, rule, buy_in=chips)
    err = Console(stderr=True)
    show_bar = not as_json and err.is_terminal
    start = time.monotonic()
    bar: Progress | None = None
    task: TaskID | None = None

    def tick(done: int) -> None:
        nonlocal bar, task
        if not show_bar or done % 200:
            return
        if bar is None:
            if time.monotonic() - start < 1.0:
                return
            bar = Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(),
                           TimeRemainingColumn(), console=err, transient=True)
            bar.start()
            task = bar.add_task("sim", total=rounds)
        assert task is not None
        bar.update(task, completed=done)

    try:
        summary = simulate(players=players, rounds=rounds, rules=rules, chips=chips, seed=seed,
                           progress=tick)
    finally:
        if bar is not None:
            bar.stop()
    if as_json:
        typer.echo(json.dumps(summary.to_dict(), indent=2, ensure_ascii=False))
        return
    out = game_console()
    out.print("Final stacks (last session):")
    table = Table()
    table.add_column("Player")
    table.add_column("Stack", justify="right")
    table.add_column("Net", justify="right")
    for bot, stack in summary.final_stacks.items():
        table.add_row(bot, str(stack), f"{stack - summary.chips:+d}")
    out.print(table)
    growth = ("n/a (no game completed)" if summary.mean_pot_growth is None
              else f"{summary.mean_pot_growth:.2f}x the opening pot "
                   f"(over {count(summary.completed_games, 'completed game')})")
    out.print(f"Rounds: {summary.rounds} ({count(summary.outcomes['showdown'], 'showdown')}, "
              f"{summary.outcomes['uncontested']} uncontested, {summary.outcomes['void']} void)")
    out.print(f"Games: {summary.games} · sessions: {summary.sessions}")
    out.print(f"Largest pot: {summary.largest_pot}")
    out.print(f"Mean pot growth per game: {growth}")
    if seed is not None:
        out.print(f"Seed: {seed}")


def register(app: typer.Typer) -> None:
    """Add ``guts sim`` to ``app``."""
    app.command(epilog="Examples:\n\n"
                "  guts sim --players 5 --rounds 10000 --seed 1\n\n"
                "  guts sim -n 6 -R 2000 --preset estonian --json\n\n"
                "  guts sim -n 4 -R 500 --rule pot_cap=20 --rule shortfall=table_stakes")(sim)
