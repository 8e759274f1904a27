"""``guts odds``, ``guts solve`` and ``guts advise``: the strategy commands.

The logic lives in :mod:`gutskit.strategy.odds`, :mod:`gutskit.strategy.solver` and
:mod:`gutskit.strategy.certify`; this module only parses
options, calls them and prints. ``gutskit.cli.app`` registers the three functions as commands.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import time
from collections.abc import Callable
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec

import typer

from gutskit.cli.options import (
    MODEL_CHIPS,
    MODEL_CHIPS_TEXT,
    JsonOpt,
    check_output_path,
    resolve_rules,
    typed_hand_size,
)

if TYPE_CHECKING:
    from rich.table import Table

    from gutskit.core.rules import Rules
    from gutskit.core.views import SeatView
    from gutskit.strategy.odds import Odds, OpponentStrategy
    from gutskit.strategy.solver import Equilibrium, Model

__all__ = ["advise", "odds_command", "register", "solve"]

PresetOpt = Annotated[str | None, typer.Option(
    "--preset", "-p", metavar="NAME", help="Start from a named preset (see 'guts rules --list').")]
RuleOpt = Annotated[list[str] | None, typer.Option(
    "--rule", metavar="KEY=VALUE",
    help="Set one house rule, e.g. --rule all_out=carry (repeatable; applied last).")]
PlayersOpt = Annotated[int, typer.Option(
    "--players", "-n", min=2, max=10, show_default=True,
    help="Players at the table, you included (2..10).")]
P = ParamSpec("P")

ModelOpt = Annotated[str, typer.Option(
    "--model", "-m", metavar="one_round|recursive",
    help="recursive: the pot carries on until an uncontested win (the papers' game); "
         "one_round: a single round, matched chips counted as lost.")]


def _rules(preset_name: str | None, rule: list[str] | None, hand_text: str | None,
           cards: int | None = None) -> Rules:
    rules = resolve_rules(preset_name, None, rule)
    overridden = any(a.partition("=")[0].strip() == "cards_per_hand" for a in rule or [])
    size = cards
    if size is None and hand_text is not None and not overridden and preset_name is None:
        from gutskit.core.cards import parse_cards

        parse_cards(hand_text)  # an unknown card is named first
        size = typed_hand_size(hand_text)
    if cards is not None and overridden and cards != rules.cards_per_hand:
        from gutskit.core.rules import RulesError

        raise RulesError(f"--cards {cards} contradicts --rule cards_per_hand="
                         f"{rules.cards_per_hand}: give one of them")
    if size in (2, 3) and size != rules.cards_per_hand:
        rules = rules.replace(cards_per_hand=size)
    return rules


def _threshold_hand(key: int, description: str, rules: Rules) -> str:
    """The threshold hand (strength ``key`` under ``rules``) in words; when the suit
    tie-break splits hands of that description (``suit_tiebreak``, RULES.md "Hand
    rankings"), also its cards, e.g. ``'J♠ 7♣ (Jack-seven high)'``."""
    import numpy as np

    from gutskit.core.cards import pretty_cards
    from gutskit.strategy.tables import hand_table

    if rules.suit_tiebreak == "none":
        return description
    table = hand_table(rules.ranking)
    rank = int(np.searchsorted(table.rank_keys, key))
    members = np.flatnonzero(table.rank == rank)
    example = members[0]
    plain = hand_table(rules.replace(suit_tiebreak="none").ranking)
    if int(np.count_nonzero(plain.rank == plain.rank[example])) == members.size:
        return description
    cards = tuple(sorted((int(c) for c in table.cards[example]), reverse=True))
    return f"{pretty_cards(cards)} ({description})"


def _model(text: str) -> Model:
    from gutskit.strategy.solver import MODELS, SolverError

    for m in MODELS:
        if m == text:
            return m
    raise SolverError(f"--model must be 'one_round' or 'recursive', not {text!r}")


def _strategy(text: str, rules: Rules, players: int, pot: int | None) -> OpponentStrategy:
    """Parse ``--strategy``: equilibrium | rule-of-thumb | always-in | threshold:HAND |
    threshold:P (a percentile, as the bots' ``threshold:P``)."""
    from gutskit.core.cards import CardError, parse_cards
    from gutskit.core.evaluation import evaluate
    from gutskit.strategy.coach import equilibrium_strategy
    from gutskit.strategy.odds import OddsError, RuleOfThumbStrategy, ThresholdStrategy
    from gutskit.strategy.strategies import THRESHOLD_FORMS, threshold_percentile

    name = text.strip()
    if name == "equilibrium":  # the cell EquilibriumBot and the coach play
        opp, source = equilibrium_strategy(rules.cards_per_hand, players, rules, pot)
        return dataclasses.replace(opp, name=source)  # type: ignore[type-var]
    if name in ("rule-of-thumb", "rule_of_thumb"):
        return RuleOfThumbStrategy()
    if name in ("always-in", "always_in"):
        return ThresholdStrategy.everyone_in()
    if name.startswith("threshold:"):
        arg = name.partition(":")[2]
        percentile = threshold_percentile(arg, name)
        if percentile is not None:  # as a bot's threshold:P (guts play/tournament --bots)
            return _percentile_strategy(percentile, rules)
        try:
            hand = parse_cards(arg, count=rules.cards_per_hand)
        except CardError as error:
            raise OddsError(f"--strategy {name!r}: {error} (threshold: takes a hand, e.g. "
                            f"threshold:'7h 7d', or a percentile {THRESHOLD_FORMS})") from None
        value = evaluate(hand, rules.ranking)
        return ThresholdStrategy(key=value.key, name=f"in with {value.description} or better")
    raise OddsError(f"unknown strategy {text!r} (use equilibrium, rule-of-thumb, always-in "
                    f"or threshold:HAND|P, e.g. threshold:'7h 7d' or threshold:0.7)")


def _percentile_strategy(percentile: float, rules: Rules) -> OpponentStrategy:
    """Opponents in with a hand at ``percentile`` or better (0..1), as
    :class:`gutskit.strategy.strategies.ThresholdBot` plays: the weakest strength whose
    percentile reaches it and every stronger one (never in when none does)."""
    from gutskit.strategy.odds import ThresholdStrategy
    from gutskit.strategy.tables import hand_table

    table = hand_table(rules.ranking)
    rank = table.rank_at_percentile(percentile)
    label = f"in at percentile {percentile:g} or better"
    if rank >= table.n_ranks:
        return ThresholdStrategy(key=int(table.rank_keys[-1]), mix=0.0, name=label)
    return ThresholdStrategy(key=int(table.rank_keys[rank]), name=label)


def _pct(x: float | None, se: float | None = None, split: bool = False) -> str:
    """``x`` as a percent, ``± se`` beside it (on the next line with ``split``)."""
    if x is None or x != x:
        return "-"
    text = f"{100 * x:.2f}%"
    return text if se is None else f"{text}{chr(10) if split else ' '}± {100 * se:.2f}"


def _chips(x: float, se: float | None) -> str:
    return f"{x:+.3f}" if se is None else f"{x:+.3f} ± {se:.3f}"


def _how(result: Odds) -> str:
    """"exact" or the Monte Carlo sample, for the header line."""
    return "exact" if result.exact else "Monte Carlo, ± standard error"


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def odds_command(
    hand: Annotated[str, typer.Argument(metavar="HAND", help="Your cards, e.g. '7h 7d'.")],
    players: PlayersOpt = 2,
    pot: Annotated[int | None, typer.Option(
        "--pot", min=1, max=MODEL_CHIPS,
        help=f"Pot in chips ({MODEL_CHIPS_TEXT}): also print the expected value of in vs "
             "out.")] = None,
    strategy: Annotated[str, typer.Option(
        "--strategy", "-s", metavar="equilibrium|rule-of-thumb|always-in|threshold:HAND|P",
        help="How the opponents play: threshold:HAND is in with HAND or better (e.g. "
             "threshold:'9c 9d 2h'), threshold:P in at percentile P or better, as the bots' "
             "threshold:P (P from 0 to 1 or a percent: threshold:0.7, threshold:70%).")
    ] = "equilibrium",
    preset_name: PresetOpt = None,
    rule: RuleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Win / tie / lose odds of a hand, given how many opponents are in.

    Card removal is exact among all hands (yours, every opponent's, the ghost's) up to six
    players in 2-card and four in 3-card Guts (a ghost hand counts as a player); beyond,
    a seeded Monte Carlo estimate, every figure with its standard error.
    """
    from rich.table import Table

    from gutskit.cli.console import game_console, print_estimates
    from gutskit.core.cards import parse_cards, pretty_cards
    from gutskit.strategy.odds import odds

    rules = _rules(preset_name, rule, hand)
    cards = parse_cards(hand, count=rules.cards_per_hand)
    opp = _strategy(strategy, rules, players, pot)
    result = odds(cards, players=players, rules=rules, strategy=opp, pot=pot)
    data = result.to_dict()
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    out = game_console()
    out.print(f"{pretty_cards(cards)}  {result.description}   {players} players, opponents "
              f"play: {opp.name}   ({_how(result)})")

    def odds_table(header: str, split: bool) -> Table:
        table = Table(header)
        for key in ("probability", "win", "tie", "lose"):
            table.add_column(key, no_wrap=True)  # a figure never wraps
        for row in data["opponents_in"]:
            table.add_row(str(row["k"]),
                          *(_pct(row[key], row[f"{key}_se"], split)
                            for key in ("probability", "win", "tie", "lose")))
        return table

    # "value ± error" on one line (the header over two lines at 80 columns); where the
    # console is too narrow for that (60 columns), "± error" on the line under its value,
    # whole: never "100.00% ±" / "0.00", never cut.
    wide = out.options.update_width(1000)
    for header, split in (("opponents in", False), ("opponents\nin", False),
                          ("opponents\nin", True)):
        table = odds_table(header, split)
        if out.measure(table, options=wide).maximum <= out.width:
            break
    out.print(table)
    print_estimates(out, f"If you go in: win {_pct(result.win_total, data['win_se'])}, tie "
                         f"{_pct(result.tie_total, data['tie_se'])}, lose "
                         f"{_pct(result.lose_total, data['lose_se'])} "
                         f"(k = 0 counts as a win: uncontested).")
    if pot is not None:
        if result.ev:
            se = result.ev_se or {}
            print_estimates(out, f"Pot {pot}: in minus out = "
                            f"{_chips(result.ev['recursive'], se.get('recursive'))} chips "
                            f"(recursive game), "
                            f"{_chips(result.ev['one_round'], se.get('one_round'))}"
                            f" (one round){'; exact' if result.exact else ''}.")
        else:
            out.print(f"Pot {pot}: {result.ev_note}.")
    out.print(f"Method: {result.method}.")


def _solve_rows(rows: list[Equilibrium]) -> Table:
    from rich.table import Table

    table = Table("cards", "players", "threshold (weakest hand in)", "percentile",
                  "continuous", "mix", "in rate", "value†", "exploitability†", "how†")
    for e in rows:
        how = "exact card removal" if e.exact_card_removal else "approximate"
        table.add_row(str(e.cards_per_hand), str(e.players), e.threshold_description,
                      f"{e.threshold_percentile:.4f}", f"{e.continuous:.4f}",
                      f"{e.mixing:.3f}", f"{e.in_rate:.3f}", f"{e.value:+.3f}",
                      f"{e.exploitability:.2g}", how)
    return table


_TABLE_FOOTER = ("† threshold model: in rate, value and exploitability (best one-round "
                 "deviation) are exact heads-up (exact card removal); with 3 or more players "
                 "the opponents' hands are treated as independent, so these figures are "
                 "approximate. The certified figures (exact or ± standard error) are "
                 "'guts solve --export' and the certified table.")


def solve(
    cards: Annotated[int | None, typer.Option(
        "--cards", "-c", min=2, max=3,
        help="2 or 3 cards per hand [default: the rules' cards_per_hand, 3 unless a preset "
             "or --rule says otherwise].")] = None,
    players: PlayersOpt = 5,
    table: Annotated[bool, typer.Option(
        "--table", help="Solve every table: 2 and 3 cards, 2..10 players.")] = False,
    model: ModelOpt = "recursive",
    pot: Annotated[int | None, typer.Option(
        "--pot", min=1, max=MODEL_CHIPS,
        help=f"Pot in chips ({MODEL_CHIPS_TEXT}) [default: the opening pot, players x ante]. "
             "Matters only for best_pays_antes, losers_pay=worst and a pot cap.")] = None,
    plot: Annotated[Path | None, typer.Option(
        "--plot", metavar="FILE", help="With --table: plot the thresholds (PNG or SVG).")
    ] = None,
    export: Annotated[Path | None, typer.Option(
        "--export", metavar="FILE",
        help="Write the per-hand equilibrium (every hand's in-probability, its certificate) "
             "as JSON to FILE.")] = None,
    preset_name: PresetOpt = None,
    rule: RuleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The symmetric equilibrium of the in/out decision: the weakest hand that goes in.

    Value and exploitability are chips per round at the pot solved for (by default the
    opening pot). Exploitability is what the best one-round deviation of one seat gains.
    With --export: the certified per-hand equilibrium (exact for 2 and 3 players, else a
    sampled best response with a standard error). With --table (text): the certified
    per-hand table of docs/strategy.md first.
    """
    from gutskit.cli.console import game_console
    from gutskit.core.rules import Rules
    from gutskit.strategy.certify import (
        certified_rules,
        certified_table,
        load_strategy,
        markdown_table,
    )
    from gutskit.strategy.coach import cell_source
    from gutskit.strategy.solver import (
        SolverError,
        equilibrium,
        equilibrium_table,
        plot_thresholds,
    )

    rules = _rules(preset_name, rule, None, cards)
    cards = rules.cards_per_hand
    chosen = _model(model)
    if plot is not None and not table:
        raise SolverError("--plot needs --table")
    check_output_path(plot, "plot file", (".png", ".svg"))  # before the long solve
    start = time.perf_counter()
    if export is not None:
        if table or plot is not None or pot is not None:
            raise SolverError("--export writes one cell at its opening pot: it cannot be "
                              "combined with --table, --plot or --pot")
        strategy = load_strategy(cards, players, chosen, rules)
        data = strategy.to_contract(rules)
        try:
            export.write_text(json.dumps(data) + "\n", encoding="utf-8")
        except OSError as exc:
            raise SolverError(f"cannot write {str(export)!r}: {exc.strerror}") from exc
        se = ("" if strategy.standard_error is None
              else f" ± {strategy.standard_error:.2g}")
        sampled = strategy.certified != "exact"
        typer.echo(f"{len(data['strategy'])} hands written to {export}: {cards} cards, "
                   f"{players} players, {chosen} model, in rate (share of hands that go in) "
                   f"{strategy.in_rate:.6f}, exploitability "
                   f"{'lower-bound estimate ' if sampled else ''}"
                   f"{strategy.exploitability:.3g}{se} chips per round; "
                   f"{cell_source(strategy.certified)}")
        return
    if table:
        if pot is not None:
            raise SolverError("--pot cannot be used with --table (each table is solved at "
                              "its opening pot)")
        rows = equilibrium_table(rules=rules, model=chosen)
        seconds = time.perf_counter() - start
        if plot is not None:
            plot_thresholds(rows, plot)
        if as_json:
            typer.echo(json.dumps({"model": chosen, "seconds": round(seconds, 3),
                                   "figures": _TABLE_FOOTER,
                                   "rows": [r.to_dict() for r in rows]}, indent=2))
            return
        out = game_console()
        if rules.ranking == Rules(cards_per_hand=rules.cards_per_hand).ranking:
            certified_rules(rules, 2, chosen)
            typer.echo(f"Certified per-hand equilibria ({chosen} model, default ranking):\n")
            typer.echo(markdown_table(certified_table(chosen)))
            out.print("Threshold solutions (bisection solver; threshold model, opponents "
                      "independent: approximate for 3 or more players):")
        out.print(_solve_rows(rows))
        out.print(f"Model: {chosen}. Solved in {seconds:.2f} s. Value and exploitability in "
                  f"chips per round at the opening pot (players x ante).")
        out.print(_TABLE_FOOTER)
        if plot is not None:
            out.print(f"Plot written to {plot}.")
        return
    e = equilibrium(cards_per_hand=cards, players=players, rules=rules, model=chosen, pot=pot)
    cert = _certified(cards, players, chosen, rules, e.pot)
    if as_json:
        data = e.to_dict()
        data["certified"] = cert
        typer.echo(json.dumps(data, indent=2))
        return
    out = game_console()
    mix = ("" if e.mixing >= 1.0
           else f" (with that exact hand: in {100 * e.mixing:.1f}% of the time)")
    out.print(f"{cards}-card Guts, {players} players, {chosen} model, pot {e.pot}:")
    if cert is not None:
        how = cert["certified"]
        out.print(f"  {cell_source(how)}: in rate (share of hands that go in) "
                  f"{cert['in_rate']:.6f}; "
                  f"value {_certain(cert['value'], cert['value_standard_error'], True)} "
                  f"chips per round per seat; exploitability "
                  f"{'' if how == 'exact' else 'lower-bound estimate '}"
                  f"{_certain(cert['exploitability'], cert['standard_error'])} chips per round")
        if how == "sampled":
            out.print("  (sampled: an unbiased estimate, ± its standard error, of what one "
                      "per-hand deviation chosen from sampled gains wins; the best deviation "
                      "wins at least that)")
        if cert["threshold_exploitability"] is not None:
            out.print(f"  the threshold strategy below: exploitability "
                      f"{_certain(cert['threshold_exploitability'], None)} chips per round "
                      f"(per-hand best response)")
    threshold = _threshold_hand(e.threshold_key, e.threshold_description, rules)
    out.print(f"  threshold strategy: go in with {threshold} or better{mix}")
    out.print(f"  that is the strongest {100 * (1 - e.threshold_percentile):.2f}% of the "
              f"{comb(52, cards):,} {cards}-card hands (continuous Guts, hand strengths "
              f"uniform on [0, 1]: the strongest {100 * (1 - e.continuous):.2f}%)")
    figures = e.figures if e.exact_card_removal else (
        "threshold model, approximate (the opponents' hands treated as independent)")
    out.print(f"  {figures}: in rate {e.in_rate:.3f}; value {e.value:+.4f} chips per round "
              f"per seat (pot won minus matches this round); exploitability "
              f"{e.exploitability:.3g} chips per round (best one-round deviation of one seat)")
    if cert is None:
        out.print("  no certified figure for this cell (rules, ranking or pot outside "
                  "'guts solve --export')")


def _certain(x: float, se: float | None, sign: bool = False) -> str:
    """A certified figure with its label: ``'+0.4364 exact'`` or ``'0.0016 ± 0.0006'``."""
    text = f"{x:+.4f}" if sign else ("0" if x == 0.0 else f"{x:.2g}")
    return f"{text} exact" if se is None else f"{text} ± {se:.1g}"


def _certified(cards: int, players: int, model: Model, rules: Rules,
               pot: int) -> dict[str, Any] | None:
    """The stored certified figures of the cell (chips at this ante), or ``None`` when there
    are none: a pot other than the opening pot, a ranking other than the default (solving
    it would take minutes) or rules :func:`~gutskit.strategy.certify.certified_rules`
    refuses."""
    from gutskit.core.rules import Rules
    from gutskit.strategy.certify import CertifyError, certified_rules, load_strategy

    default = Rules(cards_per_hand=rules.cards_per_hand).ranking
    if pot != players * rules.ante or rules.ranking != default:
        return None
    try:
        certified_rules(rules, players, model)
    except CertifyError:
        return None
    s = load_strategy(cards, players, model, rules)
    scale = rules.ante / s.rules.ante  # every payoff is proportional to the ante here

    def chips(x: float | None) -> float | None:
        return None if x is None else float(f"{x * scale:.4g}")

    return {"certified": s.certified, "in_rate": round(s.in_rate, 6),
            "value": chips(s.value), "value_standard_error": chips(s.value_standard_error),
            "exploitability": chips(s.exploitability), "standard_error": chips(s.standard_error),
            "threshold_exploitability": (chips(s.threshold_exploitability)
                                         if s.certified == "exact" else None),
            "method": s.method}


def _rule_of_thumb_view(hand: tuple[int, ...], rules: Rules, players: int,
                        pot: int) -> SeatView:
    from gutskit.core.engine import Phase
    from gutskit.core.settlement import match_amount
    from gutskit.core.views import SeatView

    names = tuple(f"P{i + 1}" for i in range(players))
    return SeatView(
        0, rules, names, (10**9,) * players, (False,) * players, players - 1, pot, 0,
        Phase.DECLARE, hand, (None,) * players, (False,) * players, (True,) * players, 1, 1,
        match_amount(pot, rules), None,
    )


def advise(
    hand: Annotated[str, typer.Argument(metavar="HAND", help="Your cards, e.g. 'Qs Qh 7d'.")],
    players: PlayersOpt = 5,
    pot: Annotated[int, typer.Option("--pot", min=1, max=MODEL_CHIPS,
                                     help=f"The pot now, in chips ({MODEL_CHIPS_TEXT}).")
                   ] = 5,
    preset_name: PresetOpt = None,
    rule: RuleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """In or out? The equilibrium answer with the odds and expected value behind it, next
    to the seeds' rules of thumb.

    Opponents are assumed to play the equilibrium: the stored certified per-hand strategy
    of the cell where one applies (certified rules, default ranking: exact, or sampled with
    standard errors), else the threshold equilibrium. The expected value is that of going in
    minus staying out, in chips, in the recursive game (matches come back as shares of later
    pots) and in the one-round game.
    """
    from gutskit.cli.console import game_console, print_estimates
    from gutskit.core.cards import parse_cards, pretty_cards
    from gutskit.core.evaluation import evaluate
    from gutskit.core.events import Declaration
    from gutskit.strategy.bots import RuleOfThumbBot, hand_percentile, qualifies_by_rule_of_thumb
    from gutskit.strategy.coach import equilibrium_strategy
    from gutskit.strategy.odds import odds
    from gutskit.strategy.solver import equilibrium
    from gutskit.strategy.tables import hand_table

    rules = _rules(preset_name, rule, hand)
    cards = parse_cards(hand, count=rules.cards_per_hand)
    eq = equilibrium(cards_per_hand=rules.cards_per_hand, players=players, rules=rules,
                     pot=pot)
    opp, source = equilibrium_strategy(rules.cards_per_hand, players, rules, pot)
    result = odds(cards, players=players, rules=rules, strategy=opp, pot=pot)
    value = evaluate(cards, rules.ranking)
    table = hand_table(rules.ranking)
    eq_p = float(opp.in_weights(table)[table.index_of(tuple(cards))])
    ses = result.ev_se or {}
    gain = result.ev.get("recursive")
    gain_one = result.ev.get("one_round")
    verdict = ("in" if gain > 0 else "out") if gain is not None else (
        "in" if eq_p >= 0.5 else "out")
    se = result.standard_error or {}
    thumb = qualifies_by_rule_of_thumb(cards, rules.cards_per_hand)
    bot = RuleOfThumbBot()
    view = _rule_of_thumb_view(cards, rules, players, pot)
    bot_says = bot.declare(view, random.Random(0)) is Declaration.IN
    data: dict[str, Any] = {
        "hand": hand, "description": value.description, "players": players, "pot": pot,
        "advice": verdict,
        "ev_in_minus_out": _round(gain),
        "ev_in_minus_out_se": _round(ses.get("recursive")),
        "ev_in_minus_out_one_round": _round(gain_one),
        "ev_in_minus_out_one_round_se": _round(ses.get("one_round")),
        "win_if_in": round(result.win_total, 6), "tie_if_in": round(result.tie_total, 6),
        "lose_if_in": round(result.lose_total, 6),
        "uncontested": round(result.in_count[0], 6),
        "win_if_in_se": _round(se.get("win_total")), "tie_if_in_se": _round(se.get("tie_total")),
        "lose_if_in_se": _round(se.get("lose_total")),
        "uncontested_se": _round(se["in_count"][0] if se else None),
        "equilibrium": {"source": source, "threshold": eq.threshold_description,
                        "threshold_percentile": round(eq.threshold_percentile, 6),
                        "in_probability": eq_p},
        "rule_of_thumb": {"entry_rule_in": thumb,
                          "bot_in": bot_says,
                          "bot_threshold_percentile": round(bot.threshold(view), 6),
                          "hand_percentile": round(hand_percentile(cards, rules.ranking), 6)},
        "exact": result.exact, "method": result.method,
    }
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    out = game_console()
    out.print(f"{pretty_cards(cards)}  {value.description}   {players} players, pot {pot}"
              f"   ({_how(result)})")
    if gain is not None and gain_one is not None:
        print_estimates(out, f"[bold]Advice: {verdict.upper()}[/]  (in minus out: "
                             f"{_chips(gain, ses.get('recursive'))} chips over the game, your "
                             f"share of the pots a match builds counted; "
                             f"{_chips(gain_one, ses.get('one_round'))} counting this round "
                             "only)")
    else:
        out.print(f"[bold]Advice: {verdict.upper()}[/]  (what the equilibrium does; "
                  f"{result.ev_note})")
    print_estimates(out, f"  against equilibrium opponents: win "
                         f"{_pct(result.win_total, se.get('win_total'))}, tie "
                         f"{_pct(result.tie_total, se.get('tie_total'))}, lose "
                         f"{_pct(result.lose_total, se.get('lose_total'))} if you go in; "
                         "nobody else in "
                         f"{_pct(result.in_count[0], se['in_count'][0] if se else None)}")
    eq_text = ("in" if eq_p >= 1.0 else "out" if eq_p <= 0.0
               else f"in {100 * eq_p:.0f}% of the time")
    if "per-hand" in source:
        out.print(f"  equilibrium: {source} -> {eq_text}")
    else:
        threshold = _threshold_hand(eq.threshold_key, eq.threshold_description, rules)
        out.print(f"  equilibrium: in with {threshold} or better -> {eq_text}")
    rule_text = ("pair of tens or better" if rules.cards_per_hand == 2
                 else "pair or better with a jack or higher")
    out.print(f"  rule of thumb ({rule_text}): "
              f"{'in' if thumb else 'out'}; rule-of-thumb bot at this pot: "
              f"{'in' if bot_says else 'out'}")
    out.print(f"  method: {result.method}")



def _size_source(options: dict[str, Any]) -> str:
    """Where the number of cards a hand must have came from, for a hand of another size:
    ``" (set by --rule cards_per_hand=3)"``, ``" (--preset german-2card sets
    cards_per_hand = 2)"``, or ``""`` (the hand itself, or the default)."""
    from gutskit.core.rules import PRESETS, Rules

    name, given = options.get("preset_name"), options.get("rule")
    for assignment in reversed(given if isinstance(given, list) else []):
        if str(assignment).partition("=")[0].strip() == "cards_per_hand":
            return f" (set by --rule {assignment})"
    overrides = PRESETS[name][1] if isinstance(name, str) and name in PRESETS else {}
    if "cards_per_hand" in overrides:
        return f" (--preset {name} sets cards_per_hand = {overrides['cards_per_hand']})"
    if isinstance(name, str):
        return (f" (--preset {name} keeps the default, cards_per_hand = "
                f"{Rules().cards_per_hand})")
    return ""


def _naming_the_preset(command: Callable[P, None]) -> Callable[P, None]:
    """``command``, whose refusal of a house rule the solver does not model names the
    preset that set it (``--preset hi-lo sets hi_lo = true: hi_lo is not modelled by the
    solver``) when the rule came from ``--preset`` and not from a ``--rule``; a hand of the
    wrong size names where the number of cards came from (:func:`_size_source`)."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        from gutskit.core.cards import HandSizeError
        from gutskit.core.rules import PRESETS
        from gutskit.strategy.model import UnmodelledRule

        try:
            command(*args, **kwargs)
        except HandSizeError as error:
            raise HandSizeError(f"{error}{_size_source(kwargs)}") from None
        except UnmodelledRule as error:
            name, given = kwargs.get("preset_name"), kwargs.get("rule")
            overrides = PRESETS[name][1] if isinstance(name, str) and name in PRESETS else {}
            ruled = any(str(a).partition("=")[0].strip() == error.rule
                        for a in (given if isinstance(given, list) else []))
            if error.rule not in overrides or ruled:
                raise
            value = overrides[error.rule]
            shown = ("true" if value else "false") if isinstance(value, bool) else value
            raise UnmodelledRule(error.rule, f"--preset {name} sets {error.rule} = {shown}: "
                                             f"{error}") from None

    return run


def register(app: typer.Typer) -> None:
    """Add ``guts odds``, ``guts solve`` and ``guts advise`` to ``app``."""
    app.command("odds", epilog="Examples:\n\n"
                "    guts odds '7h 7d' --players 4\n\n"
                "    guts odds 'Qs Qh 7d' --players 3 --pot 9 --strategy threshold:'9c 9d 2h'\n\n"
                "    guts odds 'Ah Kd' --players 2 --strategy always-in --json")(
        _naming_the_preset(odds_command))
    app.command(epilog="Examples:\n\n"
                "    guts solve --cards 3 --players 5\n\n"
                "    guts solve --cards 2 --players 4 --model one_round --json\n\n"
                "    guts solve --table --plot thresholds.svg\n\n"
                "    guts solve --cards 2 --players 6 --rule all_out=best_pays_antes --pot 6")(
        _naming_the_preset(solve))
    app.command(epilog="Examples:\n\n"
                "    guts advise 'Qs Qh 7d' --players 5 --pot 15\n\n"
                "    guts advise 'Th Tc' --players 4 --pot 8 --json")(_naming_the_preset(advise))
