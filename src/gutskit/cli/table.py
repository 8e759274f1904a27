"""The commands for a real table: ``guts compare`` (which of two hands wins), ``guts referee``
(settle rounds played with real cards: :func:`gutskit.core.referee.settle`) and
``guts rules`` (the effective house rules, the presets)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from gutskit.cli.errors import UsageProblem
from gutskit.cli.options import (
    JsonOpt,
    PresetOpt,
    RuleOpt,
    RulesFileOpt,
    resolve_rules,
    typed_hand_size,
)
from gutskit.cli.words import count, verb

__all__ = ["compare", "referee", "register", "rules_command"]


def _echo_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


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
    from gutskit.cli.console import game_console
    from gutskit.core.cards import CardError, parse_cards, pretty_cards
    from gutskit.core.evaluation import compare as compare_hands
    from gutskit.core.evaluation import evaluate

    rules = resolve_rules(preset_name, None, rule)
    for typed in (first, second):
        parse_cards(typed)  # an unknown card first (quoted, cut short), then the sizes
    size = cards
    overridden = any(a.partition("=")[0].strip() == "cards_per_hand" for a in rule or [])
    if size is None and not overridden and preset_name is None:
        single = len(first.replace(",", " ").split()) == 1
        size = typed_hand_size(first, '; quote each hand, e.g. guts compare "Ah Kh Qh" '
                                      '"As Ks Qs"' if single else "")
    if size is not None:
        rules = rules.replace(cards_per_hand=size)
    k = rules.cards_per_hand
    sizes = [len(h.replace(",", " ").split()) for h in (first, second)]
    if size is not None and cards is None and not overridden and sizes[0] != sizes[1]:
        raise CardError(f"the hands differ in size: {first!r} has "
                        f"{count(sizes[0], 'card')}, {second!r} has "
                        f"{count(sizes[1], 'card')}; compare hands of the same size")
    hands = (parse_cards(first, count=k), parse_cards(second, count=k))
    verdict = compare_hands(hands[0], hands[1], rules.ranking)
    values = [evaluate(h, rules.ranking) for h in hands]
    winner = {1: "first", -1: "second", 0: "tie"}[verdict]
    # Hi-Lo (RULES.md "Hi-Lo Guts"): the low pot goes to the lowest hand, the one the
    # comparison ranks below the other.
    low_winner = {1: "second", -1: "first", 0: "tie"}[verdict] if rules.hi_lo else None
    if as_json:
        data: dict[str, Any] = {"winner": winner}
        if low_winner is not None:
            data["low_winner"] = low_winner
        data["hands"] = [{"category": v.category.label, "description": v.description}
                         for v in values]
        _echo_json(data)
        return
    out = game_console()
    for label, hand, value in zip(("First ", "Second"), hands, values, strict=True):
        out.print(f"{label}  {pretty_cards(hand)}  {value.description}")
    if verdict == 0:
        out.print("[bold]Tie[/]: the high pot is split." if low_winner is not None
                  else "[bold]Tie[/]: the pot is split.")
    else:
        win, lose = (values[0], values[1]) if verdict > 0 else (values[1], values[0])
        why = (f"{win.category.label.replace('_', ' ')} beats "
               f"{lose.category.label.replace('_', ' ')}"
               if win.category != lose.category else
               "same category, higher cards" if (win.key >> 8) != (lose.key >> 8) else
               f"equal ranks, broken by suit (suit_tiebreak = {rules.suit_tiebreak})")
        side = " the high pot" if low_winner is not None else ""
        out.print(f"[bold]{winner.capitalize()} hand wins{side}[/]: {why}.")
    if low_winner == "tie":
        out.print("[bold]Tie[/] for the low pot too: it is split.")
    elif low_winner is not None:
        out.print(f"[bold]{low_winner.capitalize()} hand wins the low pot[/]: it is the "
                  "lower hand.")


class _RefereeInput:
    """What ``guts referee`` read: the referee file, the hand history it was built from
    (``None`` for a referee file), the ``expected`` values of a worked case (``None`` for
    anything else)."""

    def __init__(self, data: Any, events: list[Any] | None = None,
                 expected: Any = None) -> None:
        self.data, self.events, self.expected = data, events, expected


CASE_KEYS = frozenset({"input", "expected", "source"})
"""The keys of a worked case (/work/shared/cases/*.json: ``input`` is a referee file,
``expected`` the values the referee's ``--json`` output must have)."""


def _read_referee_input(file: str) -> _RefereeInput:
    from gutskit.core.referee import RefereeError
    from gutskit.io.files import read_text

    if file == "-":
        where = "standard input"
        try:
            text = read_text(None)
        except UnicodeDecodeError:
            raise RefereeError(f"{where}: not UTF-8 text") from None
    else:
        path = Path(file)
        try:
            text = read_text(path)
        except UnicodeDecodeError:
            raise RefereeError(f"{file!r} is not a UTF-8 text file") from None
        except OSError as error:
            raise RefereeError(f"cannot read {file!r}: {error.strerror}") from None
        where = file

    if not text.strip():
        raise RefereeError(f"{where} is empty: give a referee file (a JSON object) or a hand "
                           "history (JSON Lines)")
    history = _history_file(text, where)
    if history is not None:
        return history

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in pairs:
            if key in seen:
                raise RefereeError(f"{where}: duplicate key {key!r} in a JSON object")
            seen[key] = value
        return seen

    try:
        data = json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as error:
        from gutskit.core.history import json_error

        raise RefereeError(f"{where} is not valid JSON: {json_error(error)}") from None
    except RecursionError:
        raise RefereeError(f"{where} is nested too deeply to be a referee file") from None
    except RefereeError:  # a duplicate key (no_duplicates)
        raise
    except ValueError:  # an integer longer than int() reads
        raise RefereeError(f"{where} is not a valid referee file: it holds a number with "
                           f"more than {sys.get_int_max_str_digits()} digits") from None
    from gutskit.core.history import found

    if not isinstance(data, dict):
        raise RefereeError(f"{where} is neither a referee file (a JSON object) nor a hand "
                           f"history (JSON Lines): it holds {found(data)}")
    if "input" in data and "expected" in data and set(data) <= CASE_KEYS:
        # A worked case: settle its input, then check the output against its expected.
        if not isinstance(data["input"], dict):
            raise RefereeError(f"{where} is a worked case whose 'input' (the referee file) "
                               f"is not a JSON object: it holds {found(data['input'])}")
        return _RefereeInput(data["input"], expected=data["expected"])
    return _RefereeInput(data)


def _history_file(text: str, where: str) -> _RefereeInput | None:
    """A hand history in JSON Lines (``guts history ID --json``, a companion session; also
    a viewer's copy, the ``history.jsonl`` download of a companion room) as a referee file
    (:func:`gutskit.core.referee.referee_file`) with its events, or ``None`` when ``text``
    is not one (its first line is not a JSON object with a ``"type"``: an event).

    Raises:
        RefereeError: the first line is an event but not a ``SessionStarted``, or an event
            of an unknown type (named as such, not as an unknown key of a referee file).
    """
    first = text.lstrip().partition("\n")[0]
    if not first.startswith("{") or '"type"' not in first:
        return None
    from gutskit.core.history import EVENT_TYPES, Record, found, parse_lines
    from gutskit.core.referee import RefereeError

    try:
        head = json.loads(first)
    except (ValueError, RecursionError):
        if '"SessionStarted"' not in first:
            return None  # e.g. a referee file's first line
        head = None
        parse_lines(first, where)  # a broken first event: the error names it
    if not (isinstance(head, dict) and "type" in head):
        return None
    kind = head["type"]
    if kind != "SessionStarted":
        if isinstance(kind, str) and kind in EVENT_TYPES:
            raise RefereeError(f"{where}: event 1 (line 1): a hand history starts with a "
                               f"SessionStarted event, not {found(kind)}")
        parse_lines(first, where)  # an unknown event type: the error names it
        raise RefereeError(f"{where}: event 1 (line 1) is not a hand-history event")
    from gutskit.core.referee import referee_file

    events: list[Record] = parse_lines(text, where)
    return _RefereeInput(referee_file(events), events)


def _mismatches(actual: Any, expected: Any, where: str = "") -> list[str]:
    """Where the referee's output differs from a worked case's ``expected`` (only the keys
    present in ``expected`` are compared; lists item by item), as
    ``rounds[0].pot_after: 10 (the case expects 12)``."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where or 'the output'}: {json.dumps(actual)} (the case expects an "
                    "object)"]
        return [line for key, value in expected.items()
                for line in ([f"{where}.{key}".lstrip(".") + ": missing"] if key not in actual
                             else _mismatches(actual[key], value, f"{where}.{key}"))]
    if isinstance(expected, list) and isinstance(actual, list) and len(actual) == len(
            expected):
        return [line for i, (a, e) in enumerate(zip(actual, expected, strict=True))
                for line in _mismatches(a, e, f"{where}[{i}]")]
    if actual != expected:
        return [f"{where.lstrip('.')}: {json.dumps(actual)} (the case expects "
                f"{json.dumps(expected)})"]
    return []


def _check_referee_input(given: _RefereeInput, result: dict[str, Any]) -> None:
    """After the settlement is shown: a hand history whose recorded results differ from the
    referee's (the replay of ``guts verify``: :func:`gutskit.server.verify.verify_history`),
    or a worked case whose ``expected`` values differ, is said on stderr (``warning: ...``)
    and the command exits with status 1."""
    problem = ""
    if given.events is not None:
        from gutskit.server.fairness import FairnessError
        from gutskit.server.verify import verify_history

        try:
            verify_history(given.events)
        except FairnessError as error:
            problem = (f"the hand history does not match the referee's result: {error} "
                       "(the referee settles the recorded hands and declarations; see "
                       "guts verify)")
    elif given.expected is not None:
        differ = _mismatches(result, given.expected)
        if not differ:
            typer.echo("The worked case's expected values match.")
            return
        problem = "the worked case's expected values differ: " + "; ".join(differ)
    if problem:
        sys.stdout.flush()
        sys.stderr.write(f"warning: {problem}\n")
        raise SystemExit(1)


def referee(
    file: Annotated[str, typer.Argument(metavar="FILE",
                                        help="A referee file (JSON), or - for stdin.")],
    as_json: JsonOpt = False,
) -> None:
    """Settle rounds played at a real table: antes, who won, who matched, stacks.

    Input: a JSON object with the house rules, the players (clockwise) with their stacks,
    the first dealer, an optional starting pot, and the rounds (hands and in/out
    declarations); or a hand history in JSON Lines ('guts history ID --json', e.g. of a
    'guts companion' session), replayed to the same stacks; or a worked case (its 'input'
    settled, then checked against its 'expected'). Invalid input exits with status 2 and
    one message on stderr; a hand history whose recorded results differ from the
    referee's, or a worked case whose expected values differ, exits with status 1 after
    the settlement (warning: ... on stderr).
    """
    from rich.markup import escape
    from rich.table import Table

    from gutskit.cli.console import game_console
    from gutskit.core.cards import parse_cards, pretty_cards
    from gutskit.core.referee import settle

    read = _read_referee_input(file)
    data = read.data
    result = settle(data)
    if as_json:
        _echo_json(result)
        _check_referee_input(read, result)
        return
    out = game_console()
    passed = result.get("dealer_passed")
    if passed:
        out.print(f"{escape(passed['from'])} has no chips and is not dealt in: the deal "
                  f"passes to {escape(passed['to'])}.")
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
            f"{escape(p['from'])} {verb(p['from'], 'pays', 'pay')} {escape(p['to'])} "
            f"{p['chips']}"
            for p in result["payments"]) + ".")
    _check_referee_input(read, result)


def _variant_lines(rnd: dict[str, Any]) -> list[str]:
    """The variant keys of a referee round, in words (docs/variants/)."""
    from rich.markup import escape

    from gutskit.core.cards import parse_cards, pretty_cards

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


def rules_command(
    preset_name: PresetOpt = None,
    rules_file: RulesFileOpt = None,
    rule: RuleOpt = None,
    list_presets: Annotated[bool, typer.Option("--list", "-l",
                                               help="List every preset (alone: not with --preset, "
                                                    "--rules or --rule).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Print the effective house rules (name, value, default, what it does), or the presets.

    A rules file is TOML, one house rule per line, e.g. cards_per_hand = 2 and
    pot_cap = 50; preset = "estonian" starts from a preset.
    """
    from rich.markup import escape
    from rich.table import Table

    from gutskit.cli.console import game_console
    from gutskit.core.rules import PRESETS, Rules

    if list_presets:
        given = [name for name, value in (("--preset", preset_name), ("--rules", rules_file),
                                          ("--rule", rule)) if value]
        if given:
            raise UsageProblem(f"--list lists every preset and cannot be used with "
                               f"{' or '.join(given)}; to see one preset's rules, leave "
                               f"out --list (guts rules --preset NAME)")
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
        game_console().print(table)
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
    game_console().print(table)


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)




def register(app: typer.Typer) -> None:
    """Add ``guts compare``, ``guts referee`` and ``guts rules`` to ``app``."""
    app.command(epilog="Examples:\n\n"
                "  guts compare '9c Th Jd' 'Ac Kc 7c'\n\n"
                "  guts compare 'Ah 2s 3c' 'Ad Kc 9h' --rule ace_low_straight=false\n\n"
                "  guts compare 'Ah Kd' 'As Kc' --rule suit_tiebreak=none --json")(compare)
    app.command(epilog="Examples:\n\n"
                "  guts referee night.json\n\n"
                "  guts referee night.json --json\n\n"
                "  cat night.json | guts referee - --json\n\n"
                "  guts history 3 --json | guts referee -\n\n"
                "The file format is documented in docs/referee.md.")(referee)
    app.command("rules", epilog="Examples:\n\n"
                "  guts rules\n\n"
                "  guts rules --preset indonesian\n\n"
                "  guts rules --rules house.toml --json\n\n"
                "  guts rules --list")(rules_command)
