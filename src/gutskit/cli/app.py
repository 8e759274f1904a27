"""The ``guts`` command line (typer + rich).

Commands: ``play`` (you against bots in the terminal), ``sim`` (bots only), ``compare`` (two
hands), ``referee`` (settle rounds played at a real table), ``rules`` (the effective house
rules, presets) and ``history`` (saved sessions). Other modules add theirs at the bottom of
this file ("Commands registered by other modules").

User mistakes never show a traceback: :class:`GutsGroup` turns every error listed in
:data:`USER_ERRORS` and every bad parameter into one line ``error: <message>`` on stderr and
exit status 2.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from typer.core import TyperGroup

from gutskit.core.cards import CardError, parse_cards, pretty_cards
from gutskit.core.engine import IllegalActionError
from gutskit.core.evaluation import compare as compare_hands
from gutskit.core.evaluation import evaluate
from gutskit.core.history import HistoryError, event_to_dict
from gutskit.core.referee import RefereeError, settle
from gutskit.core.rules import (
    PRESETS,
    Rules,
    RulesError,
    load_rules,
    parse_rule_assignment,
    preset,
    rules_from_mapping,
)
from gutskit.io.storage import StorageError, default_db_path, open_store

__all__ = ["USER_ERRORS", "GutsGroup", "UsageProblem", "app", "main", "resolve_rules"]


class UsageProblem(ValueError):
    """A command-line mistake found by a command (e.g. ``--preset`` with ``--rules``)."""


USER_ERRORS: tuple[type[BaseException], ...] = (
    UsageProblem, RulesError, CardError, RefereeError, HistoryError, IllegalActionError,
    StorageError, OSError,
)
"""Exceptions that mean "the user gave bad input": reported as ``error: <message>``, exit 2.
Modules that add commands may extend it (``cli.USER_ERRORS += (TheirError,)``)."""

EXIT_USER_ERROR = 2

_CLICK_EXCEPTION: type[Exception] = next(
    cls for cls in typer.BadParameter.__mro__ if cls.__name__ == "ClickException")
"""The base of typer's own usage errors (typer vendors click; found without importing it)."""


def _message(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror}"
    if isinstance(error, _CLICK_EXCEPTION):
        text = str(error.format_message())  # type: ignore[attr-defined]
        ctx = getattr(error, "ctx", None)
        if ctx is not None:
            text += f" (see '{ctx.command_path} --help')"
        return text
    return str(error)


def report_error(error: BaseException) -> NoReturn:
    """Print ``error: <message>`` on stderr and exit with status 2."""
    sys.stdout.flush()
    sys.stderr.write(f"error: {_message(error)}\n")
    sys.stderr.flush()
    raise SystemExit(EXIT_USER_ERROR)


class GutsGroup(TyperGroup):
    """The ``guts`` command group: runs a command and reports user errors as one line."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        try:
            result = super().main(args=args, prog_name=prog_name, complete_var=complete_var,
                                  standalone_mode=False, windows_expand_args=windows_expand_args,
                                  **extra)
        except USER_ERRORS as error:
            report_error(error)
        except typer.Abort:
            sys.stderr.write("Aborted.\n")
            raise SystemExit(1) from None
        except Exception as error:
            if not isinstance(error, _CLICK_EXCEPTION):
                raise
            code = getattr(error, "exit_code", EXIT_USER_ERROR)
            if code == 0:  # --help and friends
                raise SystemExit(0) from None
            report_error(error)
        code = result if isinstance(result, int) else 0
        if not standalone_mode:
            return code
        raise SystemExit(code)


app = typer.Typer(
    cls=GutsGroup,
    name="guts",
    help="Guts poker: play in the terminal, simulate, compare hands, referee a real table.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _out() -> Console:
    return Console(highlight=False)


def _echo_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


# ---------------------------------------------------------------------------------------------
# Shared options. Other commands may reuse these annotated types and resolve_rules().

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
SeedOpt = Annotated[int | None, typer.Option(
    "--seed", help="Seed a random.Random for a reproducible run (default: OS randomness).")]
ChipsOpt = Annotated[int, typer.Option("--chips", min=1, help="Everyone's buy-in, in chips.")]
DbOpt = Annotated[str | None, typer.Option(
    "--db", metavar="PATH|URL", envvar="GUTSKIT_DB", show_envvar=True,
    help="Database file (SQLite) or SQLAlchemy URL "
         "[default: gutskit.db in your data folder].")]


def resolve_rules(preset_name: str | None = None, rules_file: Path | None = None,
                  assignments: Sequence[str] | None = None) -> Rules:
    """The effective rules of ``--preset`` / ``--rules`` (mutually exclusive) and
    ``--rule KEY=VALUE`` overrides.

    Raises:
        UsageProblem: both ``--preset`` and ``--rules`` are given.
        RulesError: an unknown preset, an unreadable file, an unknown or invalid rule.
    """
    if preset_name is not None and rules_file is not None:
        raise UsageProblem("--preset and --rules cannot be used together; choose one")
    if preset_name is not None:
        rules = preset(preset_name)
    elif rules_file is not None:
        rules = load_rules(rules_file)
    else:
        rules = Rules()
    if assignments:
        overrides = dict(parse_rule_assignment(text) for text in assignments)
        rules = rules_from_mapping(overrides, base=rules)
    return rules


def _db_location(db: str | None) -> str:
    return str(default_db_path()) if db is None else db


# ---------------------------------------------------------------------------------------------
# guts play


@app.command(epilog="Examples:\n\n"
             "  guts play\n\n"
             "  guts play --players 3 --preset german-2card --chips 50\n\n"
             "  guts play --preset indonesian --seed 7 --db ./guts.db\n\n"
             "  printf 'in\\nout\\nquit\\n' | guts play --seed 1")
def play(
    players: Annotated[int, typer.Option("--players", "-n", min=2, max=10,
                                         help="Seats at the table, you included.")] = 5,
    preset_name: PresetOpt = None,
    rules_file: RulesFileOpt = None,
    rule: RuleOpt = None,
    seed: SeedOpt = None,
    chips: ChipsOpt = 100,
    name: Annotated[str, typer.Option("--name", help="Your name at the table.")] = "You",
    db: DbOpt = None,
) -> None:
    """Play Guts in the terminal: you (seat 0) against bots.

    Each round shows your cards, the pot, then asks **in** or **out** (also
    **i**, **o**; **quit** or **q** stops). All declarations are revealed
    at once (under sequential declaration you see the calls made before yours), then the
    showdown, who matched, and the stacks. At the end (or on quit, Ctrl-C or the end of the
    input) the ledger is printed. Every session is saved to the database (see
    'guts history').
    """
    from gutskit.cli.play import play_session

    rules = resolve_rules(preset_name, rules_file, rule)
    location = _db_location(db)
    store = open_store(location)
    console = _out()
    interactive = sys.stdin.isatty()

    def read(prompt: str) -> str:
        return console.input(prompt)

    rng = random.Random(seed) if seed is not None else None
    result = play_session(console=console, read=read, store=store, rules=rules,
                          players=players, chips=chips, rng=rng, name=name,
                          echo=not interactive)
    console.print(f"Hand history saved as session {result.session_id} in {escape(location)} "
                  f"(see: guts history {result.session_id}"
                  f"{'' if db is None else ' --db ' + escape(db)}).")
    if result.interrupted:
        raise typer.Exit(130)


# ---------------------------------------------------------------------------------------------
# guts sim


@app.command(epilog="Examples:\n\n"
             "  guts sim --players 5 --rounds 10000 --seed 1\n\n"
             "  guts sim -n 6 -R 2000 --preset estonian --json\n\n"
             "  guts sim -n 4 -R 500 --rule pot_cap=20 --rule shortfall=table_stakes")
def sim(
    players: Annotated[int, typer.Option("--players", "-n", min=2, max=10,
                                         help="Bots at the table.")] = 5,
    rounds: Annotated[int, typer.Option("--rounds", "-R", min=0,
                                        help="Rounds (deals) to play.")] = 1000,
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
    from gutskit.strategy.simulation import simulate

    rules = resolve_rules(preset_name, rules_file, rule)
    err = Console(stderr=True)
    show_bar = not as_json and err.is_terminal
    start = time.monotonic()
    bar: Progress | None = None
    task = None

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
        _echo_json(summary.to_dict())
        return
    out = _out()
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
                   f"(over {summary.completed_games} completed games)")
    out.print(f"Rounds: {summary.rounds} ({summary.outcomes['showdown']} showdowns, "
              f"{summary.outcomes['uncontested']} uncontested, {summary.outcomes['void']} void)")
    out.print(f"Games: {summary.games} · sessions: {summary.sessions}")
    out.print(f"Largest pot: {summary.largest_pot}")
    out.print(f"Mean pot growth per game: {growth}")
    if seed is not None:
        out.print(f"Seed: {seed}")


# ---------------------------------------------------------------------------------------------
# guts compare


@app.command(epilog="Examples:\n\n"
             "  guts compare '9c Th Jd' 'Ac Kc 7c'\n\n"
             "  guts compare 'Ah 2s 3c' 'Ad Kc 9h' --rule ace_low_straight=false\n\n"
             "  guts compare 'Ah Kd' 'As Kc' --rule suit_tiebreak=none --json")
def compare(
    first: Annotated[str, typer.Argument(metavar="HAND", help="First hand, e.g. 'As Kd Qh'.")],
    second: Annotated[str, typer.Argument(metavar="HAND", help="Second hand.")],
    cards: Annotated[int | None, typer.Option(
        "--cards", "-c", min=2, max=3,
        help="2 or 3 cards per hand [default: the length of the hands].")] = None,
    preset_name: PresetOpt = None,
    rule: RuleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Which of two hands wins under the house rules.

    Cards are written like As, Td, 10d or A♠; a hand is space-separated (quote it).
    """
    rules = resolve_rules(preset_name, None, rule)
    size = cards
    overridden = any(a.partition("=")[0].strip() == "cards_per_hand" for a in rule or [])
    if size is None and not overridden and preset_name is None:
        size = len(first.replace(",", " ").split())
        if size not in (2, 3):
            raise CardError(f"hand {first!r} has {size} cards; Guts hands have 2 or 3")
    if size is not None:
        rules = rules.replace(cards_per_hand=size)
    k = rules.cards_per_hand
    hands = (parse_cards(first, count=k), parse_cards(second, count=k))
    verdict = compare_hands(hands[0], hands[1], rules.ranking)
    values = [evaluate(h, rules.ranking) for h in hands]
    winner = {1: "first", -1: "second", 0: "tie"}[verdict]
    if as_json:
        _echo_json({"winner": winner,
                    "hands": [{"category": v.category.label, "description": v.description}
                              for v in values]})
        return
    out = _out()
    for label, hand, value in zip(("First ", "Second"), hands, values, strict=True):
        out.print(f"{label}  {pretty_cards(hand)}  {value.description}")
    if verdict == 0:
        out.print("[bold]Tie[/]: the pot is split.")
    else:
        win, lose = (values[0], values[1]) if verdict > 0 else (values[1], values[0])
        why = (f"{win.category.label.replace('_', ' ')} beats "
               f"{lose.category.label.replace('_', ' ')}"
               if win.category != lose.category else
               "same category, higher cards" if (win.key >> 8) != (lose.key >> 8) else
               f"equal ranks, broken by suit (suit_tiebreak = {rules.suit_tiebreak})")
        out.print(f"[bold]{winner.capitalize()} hand wins[/]: {why}.")


# ---------------------------------------------------------------------------------------------
# guts referee


def _read_referee_input(file: str) -> Any:
    if file == "-":
        text = sys.stdin.read()
        where = "standard input"
    else:
        path = Path(file)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise RefereeError(f"{file}: not a UTF-8 text file") from None
        except OSError as error:
            raise RefereeError(f"cannot read {file!r}: {error.strerror}") from None
        where = file

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in pairs:
            if key in seen:
                raise RefereeError(f"{where}: duplicate key {key!r} in a JSON object")
            seen[key] = value
        return seen

    try:
        return json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as error:
        raise RefereeError(f"{where} is not valid JSON: {error.msg} at line {error.lineno}, "
                           f"column {error.colno}") from None
    except RecursionError:
        raise RefereeError(f"{where} is nested too deeply to be a referee file") from None
    except ValueError as error:  # e.g. an integer of thousands of digits
        raise RefereeError(f"{where} is not a valid referee file: {error}") from None


@app.command(epilog="Examples:\n\n"
             "  guts referee night.json\n\n"
             "  guts referee night.json --json\n\n"
             "  cat night.json | guts referee - --json\n\n"
             "The file format is documented in docs/referee.md.")
def referee(
    file: Annotated[str, typer.Argument(metavar="FILE",
                                        help="A referee file (JSON), or - for stdin.")],
    as_json: JsonOpt = False,
) -> None:
    """Settle rounds played at a real table: antes, who won, who matched, stacks.

    Input: a JSON object with the house rules, the players (clockwise) with their stacks,
    the first dealer, an optional starting pot, and the rounds (hands and in/out
    declarations). Invalid input exits with status 2 and one message on stderr.
    """
    data = _read_referee_input(file)
    result = settle(data)
    if as_json:
        _echo_json(result)
        return
    out = _out()
    final_stacks = dict(result["stacks"])
    # From the buy-ins, round by round (rebuys before their round's deal).
    stacks = {p["name"]: p["stack"] for p in data["players"]}
    given_rounds = data.get("rounds") or []
    if len(given_rounds) != len(result["rounds"]):  # e.g. rounds that settle nothing
        given_rounds = [{} for _ in result["rounds"]]
    for number, (rnd, given) in enumerate(zip(result["rounds"], given_rounds, strict=True), 1):
        table = Table(title=f"Round {number} · dealer {escape(rnd['dealer'])} · "
                            f"pot {rnd['pot_before']} → {rnd['pot_after']} · {rnd['outcome']}",
                      title_justify="left")
        for column in ("Player", "Ante", "Declared", "Hand", "Result", "Change", "Stack"):
            table.add_column(column, justify="right" if column in ("Ante", "Change", "Stack")
                             else "left")
        for name, chips in rnd.get("rebuys", {}).items():
            stacks[name] += chips
        for name, delta in rnd["deltas"].items():
            stacks[name] += delta
            hand = given.get("hands", {}).get(name)
            results = []
            if name in rnd["winners"]:
                results.append("wins")
            elif (name in rnd["in"] and rnd["outcome"] == "showdown"
                  and name not in rnd["eliminated"]):
                results.append("matches")
            if name in rnd["eliminated"]:
                results.append("eliminated")
            table.add_row(escape(name), str(rnd["antes"].get(name, "")),
                          escape(str(given.get("declarations", {}).get(name, "-"))),
                          pretty_cards(parse_cards(hand)) if hand else "",
                          ", ".join(results), f"{delta:+d}" if delta else "0",
                          str(stacks[name]))
        out.print(table)
        for line in _variant_lines(rnd):
            out.print(line)
    final = Table(title="Final stacks", title_justify="left")
    final.add_column("Player")
    final.add_column("Stack", justify="right")
    for name, stack in final_stacks.items():
        final.add_row(escape(name), str(stack))
    out.print(final)
    over = " · the session is over" if result["session_over"] else ""
    out.print(f"Pot: {result['pot']} · reserve: {result['reserve']}{over}")
    if result.get("payments"):
        out.print("Settle up: " + "; ".join(
            f"{escape(p['from'])} pays {escape(p['to'])} {p['chips']}"
            for p in result["payments"]) + ".")


def _variant_lines(rnd: dict[str, Any]) -> list[str]:
    """The variant keys of a referee round, in words (docs/variants/)."""
    lines = []
    if "rebuys" in rnd:
        lines.append("Rebuys before the deal: " + ", ".join(
            f"{escape(n)} {c}" for n, c in rnd["rebuys"].items()))
    if "community" in rnd:
        lines.append(f"Community card: {pretty_cards(parse_cards(rnd['community']))}")
    if "ghost" in rnd:
        beaten = "the ghost hand is best: nobody takes the pot" if rnd["ghost_won"] else (
            "beaten")
        ghost = pretty_cards(parse_cards(rnd["ghost"])) if rnd["ghost"] else "?"
        lines.append(f"Ghost hand: {ghost} ({beaten})")
    for side in ("high", "low"):
        if side in rnd:
            who = ", ".join(escape(n) for n in rnd[side]["winners"]) or "nobody"
            lines.append(f"{side.capitalize()} pot ({rnd[side]['pot']}): {who}")
    if "pays_antes" in rnd:
        lines.append("Best hand, pays everyone's ante for the re-deal: "
                     + ", ".join(escape(n) for n in rnd["pays_antes"]))
    for why in rnd.get("sat_out", {}).values():
        lines.append(f"Sat out: {escape(why)}")
    return lines


# ---------------------------------------------------------------------------------------------
# guts rules


@app.command("rules", epilog="Examples:\n\n"
             "  guts rules\n\n"
             "  guts rules --preset indonesian\n\n"
             "  guts rules --rules house.toml --json\n\n"
             "  guts rules --list")
def rules_command(
    preset_name: PresetOpt = None,
    rules_file: RulesFileOpt = None,
    rule: RuleOpt = None,
    list_presets: Annotated[bool, typer.Option("--list", "-l",
                                               help="List the presets.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Print the effective house rules (name, value, default, what it does), or the presets.

    A rules file is TOML, one house rule per line, e.g. cards_per_hand = 2 and
    pot_cap = 50; preset = "estonian" starts from a preset.
    """
    if list_presets:
        if as_json:
            _echo_json({name: {"description": text, "rules": overrides}
                        for name, (text, overrides) in PRESETS.items()})
            return
        table = Table(title="Presets", title_justify="left")
        table.add_column("Preset")
        table.add_column("Description")
        table.add_column("Differs from the defaults")
        for name, (text, overrides) in PRESETS.items():
            diff = ", ".join(f"{k} = {_show(v)}" for k, v in overrides.items()) or "-"
            table.add_row(name, text, diff)
        _out().print(table)
        return
    rules = resolve_rules(preset_name, rules_file, rule)
    values = rules.to_dict()
    if as_json:
        _echo_json(values)
        return
    defaults = Rules().to_dict()
    table = Table(title="House rules", title_justify="left")
    table.add_column("Rule")
    table.add_column("Value")
    table.add_column("Default")
    table.add_column("What it does")
    for key, field in Rules.model_fields.items():
        value = values[key]
        shown = _show(value) if value == defaults[key] else f"[bold]{_show(value)}[/]"
        table.add_row(key, shown, _show(defaults[key]), escape(field.description or ""))
    _out().print(table)


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ---------------------------------------------------------------------------------------------
# guts history


@app.command(epilog="Examples:\n\n"
             "  guts history\n\n"
             "  guts history 3\n\n"
             "  guts history 3 --json > session3.jsonl\n\n"
             "  guts history --db ./guts.db --json")
def history(
    session_id: Annotated[int | None, typer.Argument(
        metavar="[SESSION_ID]", help="Show this session's hand history.")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List saved sessions, or print one session's hand history.

    With --json: one JSON object per session, or the hand history as JSON Lines (one event
    per line, the format of gutskit.core.history, readable by gutskit.core.history.load_history).
    """
    location = _db_location(db)
    if "://" not in location and not Path(location).expanduser().exists():
        # Nothing saved there yet: say so without creating an empty database.
        if session_id is not None:
            raise StorageError(f"no session {session_id} in {location!r}")
        if not as_json:
            _out().print(f"No saved sessions in {escape(location)} yet; "
                         "play one with 'guts play'.")
        return
    store = open_store(location)
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
            _out().print(f"No saved sessions in {escape(location)}.")
            return
        table = Table(title=f"Sessions in {escape(location)}", title_justify="left")
        for column in ("Id", "Started (UTC)", "Source", "Players", "Rounds", "Status"):
            table.add_column(column, justify="right" if column in ("Id", "Rounds") else "left")
        for info in infos:
            status = info.status + (f": {info.end_reason}" if info.end_reason else "")
            table.add_row(str(info.id), info.created_at.strftime("%Y-%m-%d %H:%M"),
                          info.source, escape(", ".join(info.players)), str(info.rounds),
                          escape(status))
        _out().print(table)
        return
    events = store.events(session_id)
    if as_json:
        for event in events:
            typer.echo(json.dumps(event_to_dict(event), ensure_ascii=False))
        return
    from gutskit.cli.play import narrate_history, show_ledger
    from gutskit.core.ledger import ledger

    out = _out()
    info = store.session(session_id)
    out.print(f"Session {info.id} ({info.source}, started "
              f"{info.created_at.strftime('%Y-%m-%d %H:%M')} UTC, {info.status})")
    state = narrate_history(out, events)
    if state is not None and ledger(state):
        show_ledger(out, state)


# ---------------------------------------------------------------------------------------------
# Commands registered by other modules.
#
# Add one line per command or sub-app here, importing from your own module so this file
# stays a thin shell, e.g.
#
#     from gutskit.odds_cli import odds            # guts odds
#     app.command(epilog="Examples: ...")(odds)
#
#     from gutskit.cli.serve import serve_app     # guts serve ...
#     app.add_typer(serve_app, name="serve")
#
# Reuse resolve_rules() and the shared option types above (PresetOpt, RulesFileOpt, RuleOpt,
# JsonOpt, SeedOpt, DbOpt) so every command reads rules the same way, and raise a ValueError
# subclass listed in USER_ERRORS (or add yours to it) for user mistakes: GutsGroup reports
# it as "error: <message>" with exit status 2.
# ---------------------------------------------------------------------------------------------

from gutskit.cli.serve import serve, verify  # noqa: E402  (guts serve, guts verify)

app.command(epilog="Examples:\n\n"
            "    guts serve\n\n"
            "    guts serve --host 0.0.0.0 --port 8080 --db postgresql+psycopg://u:pw@db/guts")(
    serve)
app.command(epilog="Examples:\n\n"
            "    guts verify fairness.json --history history.jsonl\n\n"
            "    guts verify --commitment 1217... --seed 00ab...")(verify)

from gutskit.cli.strategy import advise, odds_command, solve  # noqa: E402  (strategy)
from gutskit.strategy.odds import OddsError  # noqa: E402
from gutskit.strategy.solver import SolverError  # noqa: E402

USER_ERRORS += (OddsError, SolverError)
app.command("odds", epilog="Examples:\n\n"
            "    guts odds '7h 7d' --players 4\n\n"
            "    guts odds 'Qs Qh 7d' --players 3 --pot 9 --strategy threshold:'9c 9d 2h'\n\n"
            "    guts odds 'Ah Kd' --players 2 --strategy always-in --json")(odds_command)
app.command(epilog="Examples:\n\n"
            "    guts solve --cards 3 --players 5\n\n"
            "    guts solve --cards 2 --players 4 --model one_round --json\n\n"
            "    guts solve --table --plot thresholds.svg\n\n"
            "    guts solve --cards 2 --players 6 --rule all_out=best_pays_antes --pot 6")(solve)
app.command(epilog="Examples:\n\n"
            "    guts advise 'Qs Qh 7d' --players 5 --pot 15\n\n"
            "    guts advise 'Th Tc' --players 4 --pot 8 --json")(advise)

# guts tournament, guts analyze (gutskit.cli.tournament, gutskit.cli.analysis)
from gutskit.cli.analysis import EPILOG as ANALYZE_EPILOG  # noqa: E402
from gutskit.cli.analysis import analyze  # noqa: E402
from gutskit.cli.tournament import EPILOG as TOURNAMENT_EPILOG  # noqa: E402
from gutskit.cli.tournament import tournament  # noqa: E402
from gutskit.io.plots import PlotError  # noqa: E402
from gutskit.strategy.analysis import AnalysisError  # noqa: E402
from gutskit.strategy.fast import UnsupportedRulesError  # noqa: E402
from gutskit.strategy.tournament import TournamentError  # noqa: E402

USER_ERRORS += (TournamentError, AnalysisError, PlotError, UnsupportedRulesError)
app.command(epilog=TOURNAMENT_EPILOG)(tournament)
app.command(epilog=ANALYZE_EPILOG)(analyze)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``guts`` command (``pyproject.toml`` [project.scripts])."""
    app(args=list(argv) if argv is not None else None, prog_name="guts")

