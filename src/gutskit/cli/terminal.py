"""The terminal game (``guts play``) and the narration of a hand history.

:func:`play_session` seats you (seat 0) against bots
(:func:`gutskit.strategy.strategies.play_table`; ``--bots`` chooses them) and runs the
engine round after round: it deals (a CSPRNG shuffle unless a seeded ``random.Random`` is
given), asks for your declaration, lets the bots decide from their own
views only (:mod:`gutskit.core.views`), and narrates every event with :class:`Narrator`. Every
round's events are saved to a :class:`gutskit.io.storage.Store` as soon as the round is
resolved. When the session ends (the rules end it, you type ``quit``, the input ends or you
press Ctrl-C) the session is ended with :func:`gutskit.core.engine.end_session`, the last events
are saved and the ledger is printed.

:class:`Narrator` turns events into readable lines and tables; ``guts history`` uses it too.
It shows a seat only what that seat may know when ``me`` is set (own cards; others' cards
only at a showdown).
"""

from __future__ import annotations

import contextlib
import itertools
import random
import secrets
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rich.console import Console
from rich.markup import escape
from rich.rule import Rule
from rich.table import Table

from gutskit.cli.words import bot_names, count, second_person
from gutskit.cli.words import verb as verb_for
from gutskit.core import settlement
from gutskit.core import table as driver
from gutskit.core.cards import CardError, parse_card, pretty_cards
from gutskit.core.engine import GameState, Phase, evolve, legal_declarations, start_event
from gutskit.core.evaluation import HandValue, Ranking, evaluate
from gutskit.core.events import (
    AntesPosted,
    CardsDealt,
    CardsPassed,
    CardsShown,
    Declaration,
    DeclarationsRevealed,
    Declared,
    Event,
    Hand,
    Misdealt,
    Outcome,
    PassChosen,
    Rebought,
    RoundResolved,
    RoundUndone,
    SatOut,
    SeatAway,
    SeatBack,
    SeatLeft,
    SeatRemoved,
    SessionEnded,
    SessionStarted,
    WinnersNamed,
)
from gutskit.core.ledger import ledger, session_winners
from gutskit.core.limits import has_control_character
from gutskit.core.payments import settle_up
from gutskit.core.rules import PRESETS, Rules
from gutskit.core.table import Declare, PassCard, Step
from gutskit.core.views import view_for
from gutskit.io.location import StorageError
from gutskit.strategy.bots import Strategy, bot_action, bots_act

__all__ = [
    "MAX_ECHO",
    "ME",
    "HistorySink",
    "Narrator",
    "PlayResult",
    "Signalled",
    "ask_declaration",
    "ask_rebuy",
    "echoed",
    "ending_signals",
    "exit_code_of",
    "not_saved",
    "play_session",
    "rules_summary",
    "show_ledger",
    "stop_reason",
    "variant_names",
]

ME = 0
"""Your seat in ``guts play``."""

MAX_ECHO = 80
"""Characters of a typed answer that are echoed or quoted back; longer answers are cut."""


class HistorySink(Protocol):
    """Where :func:`play_session` saves the hand history: a
    :class:`gutskit.io.storage.Store`, or anything with its two writing methods."""

    def create_session(self, source: str, start: SessionStarted) -> int:
        """Save a new session with its first event; returns its id."""
        ...

    def append(self, session_id: int, events: Sequence[Event], *,
               end_reason: str | None = None) -> None:
        """Append events to a session (one transaction)."""
        ...


def _shown(answer: str) -> str:
    """A typed answer as echoed: at most :data:`MAX_ECHO` characters."""
    return answer if len(answer) <= MAX_ECHO else answer[:MAX_ECHO] + "…"


def echoed(answer: str) -> str:
    """A typed answer as a transcript shows it (input from a pipe), as rich markup: at most
    :data:`MAX_ECHO` characters, each control character written as Python writes it in a
    string (``\\x1b``: an ANSI escape piped in never reaches the terminal raw)."""
    text = "".join(repr(ch)[1:-1] if has_control_character(ch) else ch
                   for ch in _shown(answer))
    return escape(text)


def _not_an_answer(answer: str) -> str:
    """The complaint about a typed ``answer`` that is not one (rich markup, escaped): an
    empty line is asked for again, anything else is quoted back."""
    if not answer:
        return "[yellow]Please type an answer.[/]"
    return f"[yellow]Sorry, {escape(_shown(answer))!r} is not an answer.[/]"

def answers(rules: Rules) -> dict[str, Declaration | None]:
    """Typed answers (case-insensitive) under ``rules``: each legal declaration by its name
    or first letter (``in``/``i``, ``out``/``o``; Hi-Lo: ``high``/``h``, ``low``/``l``,
    ``both``/``b``), and ``quit``/``q`` (``None``)."""
    table: dict[str, Declaration | None] = {}
    for declaration in legal_declarations(rules):
        table[declaration.value] = table[declaration.value[0]] = declaration
    table["quit"] = table["q"] = None
    return table


def hint(rules: Rules) -> str:
    """The line that says what to type."""
    words = [f"[bold]{d.value}[/] ({d.value[0]})" for d in legal_declarations(rules)]
    return "Type " + ", ".join(words[:-1]) + f", {words[-1]} or [bold]quit[/] (q)."


def _question(rules: Rules) -> str:
    names = [d.value for d in legal_declarations(rules)]
    letters = "/".join(n[0] for n in names)
    question = ", ".join(names[:-1]).capitalize() + f" or {names[-1]}?"
    return f"{question} \\[{letters}/q] "


def best_hand(hand: Hand, community: Hand | None, ranking: Ranking) -> HandValue:
    """The hand's value, for display: with a community card (Monte Carlo Guts) the best
    ``cards_per_hand`` cards of the hand plus the community card."""
    if not community:
        return evaluate(hand, ranking)
    options = itertools.combinations((*hand, *community), ranking.cards_per_hand)
    return max((evaluate(cards, ranking) for cards in options), key=lambda v: v.key)


VARIANT_PRESETS = ("hi-lo", "monte-carlo", "pass-the-trash", "no-peek", "ghost-hand",
                   "single-loser", "all-out-penalty", "drop")
"""The presets (:data:`gutskit.core.rules.PRESETS`) that name a variant of play; the banner
of ``guts play`` names each one the house rules include."""


def variant_names(rules: Rules) -> list[str]:
    """The variants of play ``rules`` include, by the name of their preset's description
    (e.g. ``"Hi-Lo Guts"``, ``"Monte Carlo Guts"``), in :data:`VARIANT_PRESETS` order."""
    chosen = rules.to_dict()
    names = []
    for name in VARIANT_PRESETS:
        description, overrides = PRESETS[name]
        if overrides and all(chosen[key] == value for key, value in overrides.items()):
            names.append(description.partition(":")[0])
    return names


def rules_summary(rules: Rules) -> str:
    """A one-line summary of the house rules that matter most at the table: the variants
    of play (:func:`variant_names`), then the main house rules."""
    parts = [*variant_names(rules), f"{rules.cards_per_hand}-card Guts", f"ante {rules.ante}",
             f"{rules.declaration} declaration", f"all out: {rules.all_out}"]
    if rules.pot_cap is not None:
        parts.append(f"pot cap {rules.pot_cap} ({rules.pot_cap_mode})")
    parts.append(f"shortfall: {rules.shortfall}")
    if rules.require_cover:
        parts.append("in only with cover")
    if rules.ante_every_round:
        parts.append("ante every round")
    if rules.end_on_uncontested:
        parts.append("ends on an uncontested win")
    return ", ".join(parts)


def _hand_text(hand: Hand, rules: Rules) -> str:
    return f"{pretty_cards(hand)}  ({evaluate(hand, rules.ranking).description})"


def _seen_hand(state: GameState, seat: int) -> Hand | None:
    """What ``seat`` sees of its own hand now (``()`` when it may not look: No Peek)."""
    return view_for(state, seat).hand


class Narrator:
    """Prints a session's events as they happen.

    Args:
        console: where to print.
        me: the seat whose eyes we look through (only its own cards are shown before a
            showdown), or ``None`` for the full record (every dealt hand).
    """

    def __init__(self, console: Console, me: int | None = None) -> None:
        self.console = console
        self.me = me
        self._last: Event | None = None
        self._told_no_chips: set[int] = set()  # seats said to be out of chips (once each)

    def name(self, state: GameState, seat: int) -> str:
        """A seat's display name (markup-escaped)."""
        return escape(state.names[seat])

    def subject(self, state: GameState, seat: int, verb: str, you_verb: str) -> str:
        """``"Ava is"`` / ``"You are"``: a seat as the subject of a sentence."""
        if seat == self.me:
            return f"You {you_verb}"
        return f"{self.name(state, seat)} {verb_for(state.names[seat], verb, you_verb)}"

    def verb(self, state: GameState, seat: int, verb: str, you_verb: str) -> str:
        """``verb`` for a seat as the subject, ``you_verb`` for you (or a player named
        "You")."""
        return verb_for(state.names[seat], verb, you_verb, you=seat == self.me)

    def event(self, before: GameState | None, event: Event, after: GameState) -> None:
        """Narrate ``event``, which took ``before`` to ``after``."""
        out = self.console.print
        if isinstance(event, SessionStarted):
            stacks = ", ".join(f"{escape(n)} {s}" for n, s in zip(after.names, after.stacks,
                                                                    strict=True))
            out(f"Table: {stacks}. Dealer: {self.name(after, after.dealer)}.")
            if after.pot:
                out(f"The pot holds {after.pot} from a game in progress.")
        elif isinstance(event, AntesPosted):
            assert before is not None
            self._header(before)
            self._antes(before, event, after)
        elif isinstance(event, CardsDealt):
            assert before is not None
            if not isinstance(self._last, AntesPosted):
                self._header(before)
            self._dealt(event, after)
        elif isinstance(event, PassChosen):
            if self.me is None:
                out(f"  {self.name(after, event.seat)} "
                    f"{self.verb(after, event.seat, 'passes', 'pass')} "
                    f"{pretty_cards((event.card,))}.")
        elif isinstance(event, CardsPassed):
            self._passed(event, after)
        elif isinstance(event, Misdealt):
            # one form for every source: "misdeal called at the table" (guts companion),
            # "misdeal called by the host" (a server room) -> "Misdeal (called ...)"
            out(f"Misdeal ({escape(event.reason.removeprefix('misdeal '))}): the cards are "
                "thrown in; the antes stay in the pot and the same dealer deals again.")
        elif isinstance(event, Rebought):
            chips = count(event.chips, "more chip", "more chips")
            out(f"{self.subject(after, event.seat, 'buys', 'buy')} {chips}.")
        elif isinstance(event, SeatAway):
            out(f"{self.subject(after, event.seat, 'is', 'are')} away: dealt out until "
                f"{'you come' if event.seat == self.me else 'they come'} back.")
        elif isinstance(event, SeatBack):
            out(f"{self.subject(after, event.seat, 'is', 'are')} back and dealt in from the "
                "next deal.")
        elif isinstance(event, SeatLeft):
            out(f"{self.subject(after, event.seat, 'leaves', 'leave')} the table for good "
                f"(keeping {after.stacks[event.seat]} chips in the ledger).")
        elif isinstance(event, SeatRemoved):
            out(f"{self.subject(after, event.seat, 'is', 'are')} removed from the table "
                f"({escape(event.reason)}), keeping {after.stacks[event.seat]} chips in the "
                "ledger.")
        elif isinstance(event, SatOut):
            out(f"{self.subject(after, event.seat, 'is', 'are')} sat out for the rest of the "
                f"session: {escape(event.reason)}.")
        elif isinstance(event, Declared):
            if after.rules.declaration == "sequential":
                call = event.declaration.value.upper()
                out(f"  {self.subject(after, event.seat, 'declares', 'declare')} "
                    f"[bold]{call}[/].")
        elif isinstance(event, DeclarationsRevealed):
            calls = [f"{self.name(after, s)} " + ("[dim]out[/]" if d is Declaration.OUT
                                                  else f"[bold green]{d.value.upper()}[/]")
                     for s, d in enumerate(event.declarations) if d is not None]
            out("Reveal: " + " · ".join(calls))
        elif isinstance(event, CardsShown):
            out("Cards shown at the table: " + " · ".join(
                f"{self.name(after, s)} {pretty_cards(h)}" for s, h in enumerate(event.hands)
                if h is not None) + "".join(
                f" · {label} {pretty_cards(extra)}" for label, extra in (
                    ("ghost hand", event.ghost), ("community card", event.community))
                if extra))
        elif isinstance(event, WinnersNamed):
            named = " and ".join(self.name(after, s) for s in event.winners) or "nobody"
            text = f"The table names the result without cards: {named}"
            if event.low_winners or after.rules.hi_lo:
                low = " and ".join(self.name(after, s) for s in event.low_winners)
                text = (f"The table names the result without cards: high {named}, low "
                        f"{low or 'nobody'}")
            if event.losers:
                text += "; worst hand: " + " and ".join(self.name(after, s)
                                                      for s in event.losers)
            out(text + ".")
        elif isinstance(event, RoundUndone):
            # "undone at the table" (guts companion), "undone by the host" (a server room)
            out(f"[bold]Round {event.round} is undone[/] "
                f"({escape(event.reason.removeprefix('undone '))}): every chip goes back; "
                f"pot {event.pot}.")
        elif isinstance(event, RoundResolved):
            assert before is not None
            self._resolved(before, event, after)
        elif isinstance(event, SessionEnded):
            out(Rule("Session over"))
            if not (isinstance(self._last, RoundResolved) and self._last.session_over
                    and before is not None and event.reason == before.end_reason):
                out(f"The session ends: {escape(event.reason)}.")
            if any(event.payouts):
                shares = ", ".join(f"{self.name(after, s)} +{p}"
                                   for s, p in enumerate(event.payouts) if p)
                out(f"What was left in the pot and reserve is shared: {shares}.")
        self._last = event

    def _header(self, state: GameState) -> None:
        game = state.game_number + (1 if state.pot == 0 else 0)
        self.console.print(Rule(f"Round {state.round_number + 1} · game {game} · "
                                f"dealer {self.name(state, state.dealer)}"))

    def _antes(self, before: GameState, event: AntesPosted, after: GameState) -> None:
        payers = [s for s, a in enumerate(event.amounts) if a]
        paid = [event.amounts[s] for s in payers]
        if before.ante_payers:  # all_out = "best_pays_antes": what the engine charged
            total = sum(paid)
            names = [self.name(after, s) for s in payers]
            shown = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1
                                 else names)
            split = ("" if len(payers) < 2 else "; " + ", ".join(
                f"{name} {a}" for name, a in zip(names, paid, strict=True)))
            pays = self.verb(after, payers[0], "pays", "pay") if len(payers) == 1 else "pay"
            self.console.print(
                f"{shown} {pays} the "
                f"{count(total, 'ante', 'antes')} (all-out penalty{split}). "
                f"Pot: [bold]{after.pot}[/].")
            return
        if paid and min(paid) == max(paid) and tuple(payers) == before.seats_in_play:
            who = f"everyone in play antes {paid[0]}"
        else:
            who = "antes: " + ", ".join(f"{self.name(after, s)} {a}"
                                        for s, a in zip(payers, paid, strict=True))
        if event.new_game:
            lead = "[bold]A new game starts[/]: "
        elif before.reante_due:
            lead = "Re-ante after the void round: "
        else:
            lead = "Antes (every round): "
        refill = (f" The reserve refills the pot with {event.refill}."
                  if event.refill else "")
        self.console.print(f"{lead}{who}.{refill} Pot: [bold]{after.pot}[/].")

    def _dealt(self, event: CardsDealt, after: GameState) -> None:
        rules = after.rules
        if self.me is None:
            for seat, hand in enumerate(event.hands):
                if hand:
                    self.console.print(f"  {self.name(after, seat)}: "
                                       f"{_hand_text(hand, rules)}")
            return
        hand = _seen_hand(after, self.me) if event.hands[self.me] is not None else None
        if hand is None:
            self.console.print("You are not dealt in.")
        elif not hand:
            self.console.print("Your cards are dealt face down: No Peek, you declare blind.")
        else:
            self.console.print(f"Your cards: [bold]{pretty_cards(hand)}[/]  "
                               f"({evaluate(hand, rules.ranking).description})")

    def _passed(self, event: CardsPassed, after: GameState) -> None:
        if self.me is None:
            self.console.print("The passed cards move to the left.")
            for seat, hand in enumerate(after.hands):
                if hand:
                    self.console.print(f"  {self.name(after, seat)}: "
                                       f"{_hand_text(hand, after.rules)}")
            return
        view = view_for(after, self.me)
        if view.passed is None or view.received is None:
            return
        text = (f"You pass {pretty_cards((view.passed,))} to the left and receive "
                f"{pretty_cards((view.received,))}.")
        if view.hand:
            text += (f" Your cards: [bold]{pretty_cards(view.hand)}[/]  "
                     f"({evaluate(view.hand, after.rules.ranking).description})")
        self.console.print(text)

    def _resolved(self, before: GameState, event: RoundResolved, after: GameState) -> None:
        out = self.console.print
        rules = after.rules
        pot = before.pot
        if event.community:
            out(f"Community card: [bold]{pretty_cards(event.community)}[/]")
        if event.outcome is Outcome.VOID:
            then = {"reante": "everyone antes again and the pot grows",
                    "carry": "the pot stays as it is",
                    "best_pays_antes": "the best hand pays everyone's ante"}[rules.all_out]
            out(f"Nobody is in: the round is void; {then}. "
                f"{self.subject(after, after.dealer, 'deals', 'deal')} again.")
            for seat in event.ante_payers:
                hand = event.shown[seat]
                shown = f" ({_hand_text(hand, rules)})" if hand else ""
                out(f"{self.subject(after, seat, 'holds', 'hold')} the best hand{shown} and "
                    f"{self.verb(after, seat, 'pays', 'pay')} the antes.")
        elif event.outcome is Outcome.UNCONTESTED:
            winner = event.winners[0]
            who = self.subject(after, winner, "is", "are")
            takes = self.verb(after, winner, "takes", "take")
            out(f"[bold]{who}[/] the only one in and {takes} the pot of {pot} uncontested.")
        else:
            table = Table(title=f"Showdown for a pot of {pot}", title_justify="left")
            table.add_column("Player")
            table.add_column("Cards")
            table.add_column("Hand")
            table.add_column("Result")
            named = before.phase is Phase.SHOWDOWN and not any(event.shown)  # companion
            for seat, hand in enumerate(event.shown):
                if hand is None and not (named and before.declarations[seat] is not None
                                         and before.declarations[seat] is not
                                         Declaration.OUT):
                    continue
                if seat in event.winners:
                    share = event.won[seat]
                    result = f"[bold green]wins {share}[/]"
                elif seat in event.eliminated:
                    result = ("[red]cannot match: eliminated[/]" if not event.matched[seat]
                              else f"[red]pays {event.matched[seat]}, eliminated[/]")
                else:
                    result = f"matches {event.matched[seat]}"
                table.add_row(self.name(after, seat),
                              pretty_cards(hand) if hand else "not shown",
                              best_hand(hand, event.community, rules.ranking).description
                              if hand else "", result)
            if event.ghost:
                table.add_row("[italic]ghost hand[/]", pretty_cards(event.ghost),
                              best_hand(event.ghost, event.community,
                                        rules.ranking).description,
                              "[bold]best: nobody takes the pot[/]" if event.ghost_won
                              else "beaten")
            out(table)
            if event.ghost_won and not event.ghost:
                out("The ghost hand was best: nobody takes the pot.")
            if event.high_winners or event.low_winners:
                for side, pot_part, seats in (("High", event.high_pot, event.high_winners),
                                              ("Low", event.low_pot, event.low_winners)):
                    if not pot_part and not seats:
                        continue
                    who = " and ".join(self.name(after, s) for s in seats) or "nobody"
                    out(f"{side} pot ({pot_part}): {who}.")
            for seat in sorted(set(event.failed_high) | set(event.failed_low)):
                out(self._both_failed(after, event, seat))
            if len(event.winners) > 1 and not (event.high_winners or event.low_winners):
                names = " and ".join(self.name(after, s) for s in event.winners)
                out(f"Tie: {names} split the pot.")
            extra = f", {event.to_reserve} to the reserve" if event.to_reserve else ""
            out(f"Next pot: [bold]{event.pot_after}[/]{extra}.")
        for seat in event.eliminated:
            out(f"[red]{self.subject(after, seat, 'is', 'are')} eliminated[/] for the rest "
                f"of the session (keeping {count(after.stacks[seat], 'chip')}).")
        for seat in range(after.n_seats):
            if not _out_of_chips(after, seat) or event.session_over:
                self._told_no_chips.discard(seat)  # a rebuy: said again if broke again
            elif seat not in self._told_no_chips:
                self._told_no_chips.add(seat)
                out(f"{self.subject(after, seat, 'has', 'have')} no chips left: not dealt "
                    "in (out).")
        if event.outcome is not Outcome.VOID and event.pot_after == 0 and not event.session_over:
            out("The pot is empty: the next round starts a new game.")
        self._stacks(after)
        if event.session_over:  # said once: a SessionEnded that follows does not repeat it
            out(f"The session ends: {escape(after.end_reason or '')}.")

    def _both_failed(self, state: GameState, event: RoundResolved, seat: int) -> str:
        """Hi-Lo: why a seat that declared both loses both ways: the side(s) the core found
        its hand did not win or tie (``RoundResolved.failed_high`` / ``failed_low``; RULES.md
        "Hi-Lo Guts": both must win both ways), in the browser's words (``res_both_failed_on``
        of static/i18n/en.json)."""
        sides = []
        for side, failed, winners in (("high", event.failed_high, event.high_winners),
                                      ("low", event.failed_low, event.low_winners)):
            if seat in failed:
                who = " and ".join(self.name(state, s) for s in winners) or "nobody"
                sides.append(f"{side} (won by {who})")
        paid = event.matched[seat]
        tail = (f" and {self.verb(state, seat, 'matches', 'match')} {paid}" if paid
                else "")
        return (f"{self.subject(state, seat, 'declared', 'declared')} Both but did not win or "
                f"tie {' or '.join(sides)}, so {self.verb(state, seat, 'loses', 'lose')} "
                f"both ways{tail}.")

    def _stacks(self, state: GameState) -> None:
        parts = []
        for seat, stack in enumerate(state.stacks):
            text = f"{self.name(state, seat)} {stack}"
            if state.eliminated[seat] or _out_of_chips(state, seat):
                text += " (out)"
            parts.append(text)
        self.console.print("Stacks: " + " · ".join(parts))


def _out_of_chips(state: GameState, seat: int) -> bool:
    """Whether ``seat`` is not dealt in for want of chips: not in play (the core's
    ``in_play``), yet neither eliminated nor away."""
    return not (state.in_play(seat) or state.eliminated[seat]
                or (state.away and state.away[seat]))


def show_ledger(console: Console, state: GameState) -> None:
    """Print the ledger of ``state`` (buy-in, final stack, net per player) and the session
    winner."""
    table = Table(title="Ledger", title_justify="left")
    table.add_column("Player")
    table.add_column("Buy-in", justify="right")
    table.add_column("Final stack", justify="right")
    table.add_column("Net", justify="right")
    for line in ledger(state):
        style = "green" if line.net > 0 else "red" if line.net < 0 else ""
        name = escape(line.name) + (" (left)" if line.left else
                                    " (eliminated)" if line.eliminated else "")
        table.add_row(name, str(line.buy_in), str(line.stack),
                      f"[{style}]{line.net:+d}[/]" if style else "0")
    console.print(table)
    winners = session_winners(state)
    nets = {line.name: line.net for line in ledger(state)}
    if len(winners) == len(nets) and len(nets) > 1:
        console.print(f"Most chips: nobody; every player has {state.stacks[0]}.")
    else:
        console.print(f"Most chips: {', '.join(escape(w) for w in winners)}.")
    if any(nets.values()) and sum(nets.values()) == 0:  # who pays whom, fewest transfers
        payments = "; ".join(f"{escape(p.payer)} {verb_for(p.payer, 'pays', 'pay')} "
                             f"{escape(p.payee)} {p.chips}"
                             for p in settle_up(nets))
        console.print(f"Settle up: {payments}.")


@dataclass(frozen=True, slots=True)
class PlayResult:
    """How a terminal game ended.

    Attributes:
        state: the final state (after :func:`gutskit.core.engine.end_session`).
        session_id: the saved session's id.
        reason: why play stopped.
        interrupted: Ctrl-C was pressed (or SIGTERM / SIGHUP came: see ``exit_code``).
        exit_code: the command's exit status: 0, or 128 + the signal's number (130 for
            Ctrl-C, 143 for SIGTERM, 129 for SIGHUP).
    """

    state: GameState
    session_id: int
    reason: str
    interrupted: bool
    exit_code: int = 0


class Signalled(KeyboardInterrupt):
    """SIGTERM or SIGHUP came during a terminal game (see :func:`ending_signals`): the game
    ends as at Ctrl-C. ``signum`` is the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def ending_signals() -> Iterator[None]:
    """While in the block, SIGTERM and SIGHUP (``kill``, a closed terminal) raise
    :class:`Signalled` in the main thread, so a terminal game ends as at Ctrl-C (pot shared
    out, ledger printed and saved) rather than dying with its session left ``playing``;
    after the first, both are ignored until the block ends (the ending is not cut short).
    The previous handlers are restored afterwards; outside the main thread it does
    nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    fired: list[int] = []

    def handler(signum: int, frame: object) -> None:
        if fired:  # a second signal (a closing terminal sends SIGHUP, then maybe SIGTERM)
            return  # must not cut the ending short
        fired.append(signum)
        raise Signalled(signum)

    previous: dict[int, Any] = {}
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, handler)
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


def exit_code_of(stop: KeyboardInterrupt) -> int:
    """The exit status after ``stop``: 128 + the signal's number (130 for Ctrl-C)."""
    return 128 + (stop.signum if isinstance(stop, Signalled) else signal.SIGINT)


def stop_reason(stop: KeyboardInterrupt) -> str:
    """Why play stopped, for the session's end: ``interrupted (Ctrl-C)`` or
    ``interrupted (SIGTERM)``."""
    if isinstance(stop, Signalled):
        return f"interrupted ({signal.Signals(stop.signum).name})"
    return "interrupted (Ctrl-C)"


def not_saved(error: StorageError) -> StorageError:
    """The error a terminal game ends with when a save failed (after its ledger)."""
    return StorageError(f"{error}; the hand history could not be saved")


class _Quit(Exception):
    """The player typed quit."""


class _Away(Exception):
    """The player typed away (:func:`gutskit.core.table.can_sit_out` allows it)."""


class _Back(Exception):
    """The player, away, typed back while the round in progress still needs their
    declaration."""


AWAY_WORD = "away"
BACK_WORDS = ("back", "b")
HELP_WORDS = ("help", "?")
"""What asks a prompt of the game for its help (``h`` is Hi-Lo's high, so not a help word)."""


def ask_declaration(console: Console, read: Callable[[str], str], state: GameState,
                    seat: int, *, echo: bool) -> Declaration:
    """Ask ``seat`` for its declaration (in or out; Hi-Lo: high, low, both or out) until the
    answer is valid and legal.

    Args:
        read: reads one line after printing the prompt (raises EOFError at end of input).
        echo: print the answer (when the input is not a terminal, so a transcript reads
            well).

    Raises:
        EOFError: the input ended.
        _Quit: the player typed quit.
        _Away: the player typed away and may go away now (the round in progress still
            needs their declaration).
        _Back: the player is away and typed back (the round still needs their
            declaration).
    """
    owed = settlement.match_amount(state.pot, state.rules)
    # The core says whether a loss would put you out (shortfall = eliminate, a short stack:
    # after a rebuy, say); the prompt says it only then.
    out = any(quote.eliminated for quote in driver.match_quotes(state, seat))
    console.print(f"Pot {state.pot} · if you go in and lose you match {owed} · "
                  f"your stack {state.stacks[seat]}"
                  + (" (losing puts you out)" if out else ""))
    table = answers(state.rules)
    while True:
        typed = read(_question(state.rules)).strip()
        answer = typed.lower()
        if echo:
            console.print(echoed(typed))
        if answer in BACK_WORDS and answer not in table and state.away and state.away[seat]:
            raise _Back
        if answer == AWAY_WORD:  # sit out from the next deal (the table driver decides)
            problem = driver.can_sit_out(state, seat)
            if problem is None:
                raise _Away
            console.print(f"[yellow]{escape(second_person(problem, state.names[seat]))}[/]")
            continue
        if answer in HELP_WORDS and answer not in table:
            console.print(f"{hint(state.rules)} Going in plays for the pot: if you lose "
                          "you match it (the line above says how much). "
                          f"[bold]{AWAY_WORD}[/] sits you out from the next deal, seat and "
                          "chips kept; [bold]back[/] brings you back.")
            continue
        if answer not in table:
            console.print(f"{_not_an_answer(typed)} {hint(state.rules)} "
                          f"([bold]{AWAY_WORD}[/] sits out from the next deal.)")
            continue
        choice = table[answer]
        if choice is None:
            raise _Quit
        problem = driver.can_declare(state, seat, choice)
        if problem is not None:
            console.print(f"[yellow]{escape(second_person(problem, state.names[seat]))}[/]")
            continue
        return choice


def ask_pass(console: Console, read: Callable[[str], str], state: GameState, seat: int, *,
             echo: bool) -> int:
    """Pass the Trash: ask ``seat`` which card it passes to the left (its position 1, 2, 3
    in the hand, or the card itself, e.g. ``7h``).

    Raises:
        EOFError: the input ended.
        _Quit: the player typed quit.
    """
    hand = _seen_hand(state, seat) or ()
    choices = "/".join(str(i) for i in range(1, len(hand) + 1))
    console.print("Pass the Trash: choose a card to pass to the player on your left: "
                  + ", ".join(f"{i} = {pretty_cards((c,))}" for i, c in enumerate(hand, 1)))
    while True:
        answer = read(f"Pass which card? \\[{choices}/q] ").strip()
        if echo:
            console.print(echoed(answer))
        if answer.lower() in ("q", "quit"):
            raise _Quit
        if answer.lower() in HELP_WORDS:
            console.print(f"Type {choices} (the card's place in your hand) or the card, "
                          "e.g. 7h, to pass it to the player on your left, or quit (q).")
            continue
        card: int | None = None
        positions = [str(i) for i in range(1, len(hand) + 1)]
        if answer in positions:  # never int() of a typed "²" (a digit to str.isdigit)
            card = hand[positions.index(answer)]
        else:
            try:
                card = parse_card(answer)
            except CardError:
                card = None
        problem = (f"{_shown(answer)!r} is not one of your cards" if card is None
                   else driver.can_pass_card(state, seat, card))
        if problem is not None:
            problem = second_person(problem, state.names[seat])
        if problem is None and card is not None:
            return card
        console.print(f"[yellow]{escape(problem or '')}.[/] Type {choices} or the card, "
                      "e.g. 7h, or quit (q).")


def ask_back(console: Console, read: Callable[[str], str], *, echo: bool) -> bool:
    """You are away: watch the next round (Enter) or come back (``back``/``b``)?

    Raises:
        EOFError: the input ended.
        _Quit: the player typed quit.
    """
    while True:
        answer = read("You are away. Enter = watch the next round, back (b) = come back, "
                      "quit (q): ").strip()
        typed, answer = answer, answer.lower()
        if echo:
            console.print(echoed(typed))
        if answer in ("q", "quit"):
            raise _Quit
        if answer in BACK_WORDS:
            return True
        if not answer:
            return False
        if answer in HELP_WORDS:
            console.print("You are away: your seat and chips are kept and you are dealt no "
                          "cards. Press Enter to watch the next round, type back (b) to "
                          "come back, or quit (q).")
            continue
        console.print(f"{_not_an_answer(typed)} Press Enter, or type back (b) or quit (q).")


def _coach(console: Console, state: GameState) -> None:
    """The coach's line for your hand (your own view only)."""
    from gutskit.strategy.coach import advice

    said = advice(view_for(state, ME))
    if said is not None:
        console.print(f"[cyan]{escape(said.line())}[/]")


def ask_rebuy(console: Console, read: Callable[[str], str], state: GameState, seat: int,
              chips: int, *, echo: bool) -> bool:
    """Offer ``seat`` a rebuy of ``chips`` (the rules allow one now:
    :func:`gutskit.core.table.legal_actions`); ``True`` when it says yes.

    Raises:
        EOFError: the input ended.
        _Quit: the player typed quit.
    """
    rules = state.rules
    left = ("" if rules.max_rebuys is None
            else f", {rules.max_rebuys - state.rebuys_used[seat]} of {rules.max_rebuys} left")
    console.print(f"Your stack is {state.stacks[seat]}: you may rebuy{left}.")
    if state.stacks[seat] > 0:
        no_means = ("n (no) to play on with your stack (you are asked again when it "
                    "changes)")
        no_short = "n (play on without)"
    else:  # no chips to play on with: declining ends the session (play_session)
        no_means = "n (no) to end the session: you have no chips to play on with"
        no_short = "n (end the session)"
    while True:
        typed = read(f"Rebuy {chips} chips? \\[y/n/q] ").strip()
        answer = typed.lower()
        if echo:
            console.print(echoed(typed))
        if answer in ("y", "yes"):
            return True
        if answer in ("n", "no"):
            return False
        if answer in ("q", "quit"):
            raise _Quit
        if answer in HELP_WORDS:
            console.print(f"Your stack of {state.stacks[seat]} is low enough to buy chips "
                          f"again. Type y (yes) to buy {chips} chips now (the ledger adds "
                          f"them to your buy-in), {no_means}, or quit (q) to end the "
                          "session.")
            continue
        console.print(f"{_not_an_answer(typed)} "
                      f"Type y (rebuy), {no_short} or quit (q); help explains.")


def play_session(*, console: Console, read: Callable[[str], str], store: HistorySink,
                 rules: Rules, players: int = 5, chips: int = 100,
                 rng: random.Random | None = None, name: str = "You",
                 echo: bool = False, bots: tuple[str, ...] | None = None,
                 coach: bool = False) -> PlayResult:
    """Play one session in the terminal: ``name`` in seat 0 against ``players - 1`` bots.

    Args:
        console: where the table is shown.
        read: prints a prompt and returns one typed line (``EOFError`` at end of input).
        store: where the hand history is saved: the session is created with the first
            save, after the first round is resolved (or when play stops before that), then
            one transaction per round.
        rules: the house rules.
        players: seats at the table, 2 to 10.
        chips: everyone's buy-in.
        rng: a seeded generator for reproducible games; ``None`` shuffles with the OS
            CSPRNG.
        name: your name.
        echo: print typed answers (input from a pipe).
        bots: the opponents' kinds (:data:`gutskit.strategy.strategies.BOT_KINDS`), repeated
            to fill the seats; default :data:`gutskit.strategy.strategies.PLAY_TABLE`.
        coach: after each of your declarations, print what the equilibrium does with your
            hand and the EV behind it (:func:`gutskit.strategy.coach.advice`).

    Returns:
        The final state, the session id and why play stopped.

    Raises:
        IllegalActionError: a bad table (seat count, chips, a name clash with a bot).
        StorageError: the hand history cannot be saved (raised after the game is ended
            as at Ctrl-C and its ledger printed).
    """
    from gutskit.strategy.strategies import play_table

    table: list[Strategy] = play_table(players - 1, bots, rules)
    names = [name, *bot_names(table)]
    picker = rng if rng is not None else random.Random(secrets.randbits(64))
    start = start_event(names, chips, dealer=picker.randrange(players), rules=rules)
    state = evolve(None, start)
    session_id: int | None = None

    def save(events: Sequence[Event], end_reason: str | None = None) -> int:
        nonlocal session_id
        if session_id is None:
            session_id = store.create_session("play", start)
        store.append(session_id, events, end_reason=end_reason)
        return session_id

    others = dict(enumerate(table, 1))
    narrator = Narrator(console, me=ME)
    console.print(f"[bold]Guts[/] — {rules_summary(rules)}.")
    console.print("Opponents: " + ", ".join(escape(b.name) for b in table) + ".")
    console.print(hint(rules))
    narrator.event(None, start, state)
    pending: list[Event] = []
    declined: int | None = None
    returning = False  # you asked to come back in the middle of a game: at the next one
    reason = ""
    interrupted = False
    exit_code = 0
    failed: StorageError | None = None

    def apply(step: tuple[GameState, list[Event]], before: GameState) -> GameState:
        new, events = step
        current = before
        for event in events:
            nxt = evolve(current, event)
            narrator.event(current, event, nxt)
            current = nxt
        pending.extend(events)
        return new

    try:
        while state.phase is not Phase.OVER:
            status = driver.status(state)
            between = status.step in (Step.DEAL, Step.WAIT, Step.END)
            if between and state.away and state.away[ME]:
                if not returning:
                    returning = ask_back(console, read, echo=echo)
                    if returning and driver.can_come_back(state, ME) is not None:
                        console.print("You come back when the next game starts (the pot of "
                                      f"{state.pot} is played out by those who anted it).")
                if returning and driver.can_come_back(state, ME) is None:
                    returning = False
                    state = apply(driver.come_back(state, ME), state)  # narrated
                    continue
            if status.step in (Step.DEAL, Step.WAIT, Step.END):
                offer = driver.legal_actions(state, ME).rebuy
                if offer is not None and state.stacks[ME] != declined:
                    chips_back = max(chips, offer)
                    if ask_rebuy(console, read, state, ME, chips_back, echo=echo):
                        state = apply(driver.rebuy(state, ME, chips_back), state)
                        continue
                    declined = state.stacks[ME]  # asked again only when the stack changes
                if not state.in_play(ME) and not (state.away and state.away[ME]):
                    reason = ("you were eliminated" if state.eliminated[ME]
                              else "you have no chips left")
                    break
                if status.step is not Step.DEAL:
                    reason = status.reason or "no deal is possible"
                    break
                state = apply(driver.deal(state, rng=rng), state)
                continue
            waiting = status.seats
            if ME not in waiting:
                state = apply(bots_act(state, others, picker), state)
            elif status.step is Step.PASS:
                card = ask_pass(console, read, state, ME, echo=echo)
                passes = {ME: card}
                for seat in waiting:
                    if seat != ME:
                        action = bot_action(table[seat - 1], state, seat, picker)
                        assert isinstance(action, PassCard)
                        passes[seat] = action.card
                state = apply(driver.pass_all(state, passes), state)
            else:
                try:
                    mine = ask_declaration(console, read, state, ME, echo=echo)
                except _Away:
                    state = apply(driver.sit_out(state, ME), state)
                    console.print("Your seat and chips are kept; type back to come back. "
                                  "This round still needs your declaration.")
                    continue
                except _Back:  # come back now, or at the next deal the driver allows
                    if driver.can_come_back(state, ME) is None:  # no round missed yet
                        state = apply(driver.come_back(state, ME), state)  # narrated
                        console.print("This round still needs your declaration.")
                        continue
                    returning = True
                    console.print("Welcome back: you are dealt in again when the table "
                                  "allows it (when the next game starts, if a pot is in "
                                  "play). This round still needs your declaration.")
                    continue
                if coach:
                    _coach(console, state)
                if len(waiting) == 1:  # sequential: my turn alone
                    state = apply(driver.declare(state, ME, mine), state)
                else:  # simultaneous: everyone's sealed choice at once
                    calls = {ME: mine}
                    for seat in waiting:
                        if seat != ME:
                            action = bot_action(table[seat - 1], state, seat, picker)
                            assert isinstance(action, Declare)
                            calls[seat] = action.declaration
                    state = apply(driver.declare_all(state, calls), state)
            if state.phase is not Phase.PASS and state.phase is not Phase.DECLARE:
                save(pending)
                pending.clear()
    except _Quit:
        reason = f"{name} quit"
    except EOFError:
        console.print()
        reason = "end of input"
    except KeyboardInterrupt as stop:
        console.print()
        reason = stop_reason(stop)
        interrupted = True
        exit_code = exit_code_of(stop)
    except StorageError as error:  # a round could not be saved: end as at Ctrl-C
        console.print()
        reason = "the hand history could not be saved"
        failed = error
    final, ended = driver.end(state, reason or "the table agreed to stop")
    for event in ended:
        narrator.event(state, event, final)
    if not ended and not isinstance(narrator._last, SessionEnded):
        console.print(Rule("Session over"))
    saved_as = 0
    if failed is None:
        try:
            saved_as = save([*pending, *ended], end_reason=final.end_reason or reason)
        except StorageError as error:
            failed = error
    show_ledger(console, final)
    if failed is not None:
        raise not_saved(failed)
    return PlayResult(final, saved_as, final.end_reason or reason, interrupted, exit_code)


def narrate_history(console: Console, events: Sequence[Event], me: int | None = None
                    ) -> GameState | None:
    """Narrate a whole saved hand history; returns the final state (``None`` if empty)."""
    narrator = Narrator(console, me=me)
    state: GameState | None = None
    for event in events:
        new = evolve(state, event)
        narrator.event(state, event, new)
        state = new
    return state
