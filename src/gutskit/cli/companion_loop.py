"""The terminal companion (``guts companion``): one device on a real table.

The cards are dealt at the table; gutskit never sees them until the showdown. Round by round
:func:`companion_session` asks (one line at a time, so a pipe can drive it):

* between rounds: Enter deals the next round (the antes that are due are posted), ``undo``
  takes the last round back, ``rebuy NAME CHIPS``, ``end`` stops;
* the declarations: who is in (one line of names, ``none`` for nobody; Hi-Lo:
  ``Ana=high Ben=low``), or under sequential declaration each player in turn from the
  dealer's left; ``misdeal`` throws the cards in;
* at a showdown: the cards of each player in (``Ah Kd``), the ghost hand and the community
  card where the rules have them, or ``winner: NAME[, NAME]`` when the table agrees not to
  enter cards (then, under Hi-Lo, the low winners; under single loser, the worst hand).

Every entry is checked by the core (:mod:`gutskit.core.table`) before anything is applied: a
bad answer is quoted back with the reason and asked again. The chips move by the same
settlement as every other game; the events are narrated (:class:`~gutskit.cli.terminal.Narrator`)
and saved to the store round by round (``guts history`` lists the session; ``guts history
ID --json`` exports it; ``guts referee`` replays that file).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape
from rich.rule import Rule

from gutskit.cli.terminal import (
    HELP_WORDS,
    MAX_ECHO,
    HistorySink,
    Narrator,
    echoed,
    exit_code_of,
    not_saved,
    rules_summary,
    show_ledger,
    stop_reason,
)
from gutskit.cli.words import count
from gutskit.core import table as driver
from gutskit.core.cards import CardError, parse_cards
from gutskit.core.engine import (
    GameState,
    IllegalActionError,
    Phase,
    evolve,
    legal_declarations,
    start_event,
)
from gutskit.core.events import (
    IN_DECLARATIONS,
    Declaration,
    Event,
    Misdealt,
    RoundResolved,
    RoundUndone,
    SessionStarted,
)
from gutskit.core.limits import MAX_CHIPS, chips_problem
from gutskit.core.rules import Rules
from gutskit.core.table import Step
from gutskit.io.location import StorageError

__all__ = ["ANSWER_WORDS", "CompanionResult", "companion_session", "name_clash", "parse_names"]

_STOP = frozenset({"end", "quit", "q"})

COMPANION_HELP = (
    "Between rounds: Enter (or deal) deals the next round; undo takes back the last round; "
    "rebuy NAME CHIPS where the rules allow rebuys; end (or quit, q) stops and prints the "
    "ledger. Declarations: the names of the players who are in (Ana Ben), none for nobody; "
    "Hi-Lo Ana=high Ben=low; in turn, in or out. Showdown: each hand as dealt (Ah Kd 2c), "
    "or winner: NAME when the table agrees not to enter cards. Any time in a round: "
    "misdeal, undo, end. docs/companion.md has the whole list.")
"""What ``help`` or ``?`` at any prompt of companion mode prints (docs/companion.md)."""
_NOBODY = frozenset({"none", "nobody", "ghost", ""})

ANSWER_WORDS = frozenset({*_STOP, *_NOBODY, "deal", "d", "undo", "misdeal", "rebuy",
                          "winner", "winners"}) - {""}
"""Every word a companion prompt takes as a command (lower case): no player may be named
one of them (:func:`name_clash`), even where the prompt that takes it asks no name, so the
rule is one list. Not ``help`` or ``?`` (:data:`~gutskit.cli.terminal.HELP_WORDS`):
:meth:`_Session.ask` reads them as the player's name when a player is so named, so a
prompt never reads such a name as anything else (the table keeps the other help word)."""

_NAME_SEPARATORS = {",": "a comma", "=": "an =", ":": "a colon"}
"""The characters the "Who is in?" line splits a name on (besides whitespace): ``Ana
Ben``, ``Ana,Ben``, Hi-Lo ``Ana=high`` or ``Ana:high``."""


def name_clash(name: str) -> str | None:
    """Why the companion's prompts could not tell ``name`` (a player's name, stripped) from
    another answer, or ``None`` when they can.

    >>> name_clash("Ana Lee")
    'contains whitespace, and a line of names is split at whitespace'
    >>> name_clash("END"), name_clash("Ana")
    ('is a word the prompts take as an answer (end)', None)
    """
    if any(ch.isspace() for ch in name):
        return "contains whitespace, and a line of names is split at whitespace"
    for ch, what in _NAME_SEPARATORS.items():
        if ch in name:
            return (f"contains {what}, and the prompts split names and calls at "
                    f"{', '.join(repr(c) for c in _NAME_SEPARATORS)}")
    if name.lower() in ANSWER_WORDS:
        return f"is a word the prompts take as an answer ({name.lower()})"
    return None


@dataclass(frozen=True, slots=True)
class CompanionResult:
    """How a companion session ended: the final state, the saved session's id, why."""

    state: GameState
    session_id: int
    reason: str
    exit_code: int = 0
    """0, or 128 + the signal's number when Ctrl-C, SIGTERM or SIGHUP ended the session."""


class _Stop(Exception):
    """The table typed end."""


class _Undo(Exception):
    """The host typed undo in the middle of a round."""


class _Misdeal(Exception):
    """The table typed misdeal."""


def _shown(answer: str) -> str:
    return answer if len(answer) <= MAX_ECHO else answer[:MAX_ECHO] + "…"


def parse_names(state: GameState, text: str) -> list[int]:
    """The seats of the players named in ``text`` (space or comma separated, any case).

    Raises:
        ValueError: a name that is not at the table (quoted), or a name given twice.
    """
    seats: list[int] = []
    lower = {name.lower(): seat for seat, name in enumerate(state.names)}
    for word in text.replace(",", " ").split():
        seat = lower.get(word.lower())
        if seat is None:
            raise ValueError(f"{_shown(word)!r} is not a player at this table "
                             f"({', '.join(state.names)})")
        if seat in seats:
            raise ValueError(f"{state.names[seat]!r} is named twice")
        seats.append(seat)
    return seats


def _declaration_words(rules: Rules) -> dict[str, Declaration]:
    words: dict[str, Declaration] = {}
    for declaration in legal_declarations(rules):
        words[declaration.value] = words[declaration.value[0]] = declaration
    return words


class _Session:
    """The loop's state: the table, the console, the history saved so far."""

    def __init__(self, console: Console, read: Callable[[str], str], store: HistorySink,
                 start: SessionStarted, echo: bool) -> None:
        self.console = console
        self._read = read
        self.store = store
        self.state = evolve(None, start)
        self.echo = echo
        self.narrator = Narrator(console)
        self.pending: list[Event] = []
        self.misdealt: set[int] = set()
        """The rounds thrown in by a misdeal (not undone): counted among the rounds dealt."""
        self.session_id: int | None = None
        self.start = start

    # -- input ----------------------------------------------------------------------------

    def ask(self, prompt: str) -> str:
        """The next line typed at ``prompt``, stripped; ``help`` or ``?`` (unless it is a
        player's name) prints :data:`COMPANION_HELP` and asks again."""
        while True:
            answer = self._read(prompt).strip()
            if self.echo:
                self.console.print(echoed(answer))
            word = answer.lower()
            if word in HELP_WORDS and word not in (n.lower() for n in self.state.names):
                self.console.print(escape(COMPANION_HELP))
                continue
            return answer

    def warn(self, message: str) -> None:
        """Print what is wrong in one form: a sentence (capital first, full stop last),
        then what to type, if anything (``Type X again.``)."""
        text = message[:1].upper() + message[1:]
        if text and text[-1] not in ".?!":
            text += "."
        self.console.print(f"[yellow]{escape(text)}[/]")

    def ask_in_round(self, prompt: str) -> str:
        """A line asked during a round: ``misdeal``, ``undo`` and ``end`` always work."""
        answer = self.ask(prompt)
        word = answer.lower()
        if word in _STOP:
            raise _Stop
        if word == "undo":
            raise _Undo
        if word == "misdeal":
            raise _Misdeal
        return answer

    # -- applying -------------------------------------------------------------------------

    def apply(self, step: tuple[GameState, list[Event]]) -> None:
        new, events = step
        current = self.state
        for event in events:
            nxt = evolve(current, event)
            self.narrator.event(current, event, nxt)
            if isinstance(event, Misdealt):
                self.misdealt.add(current.round_number)
            elif isinstance(event, RoundUndone):
                self.misdealt.discard(event.round)
            current = nxt
        self.state = new
        self.pending.extend(events)
        if new.phase in (Phase.DEAL, Phase.OVER):
            self.save()

    def save(self, end_reason: str | None = None) -> int:
        if self.session_id is None:
            self.session_id = self.store.create_session("companion", self.start)
        self.store.append(self.session_id, self.pending, end_reason=end_reason)
        self.pending = []
        return self.session_id

    # -- the steps ------------------------------------------------------------------------

    def between_rounds(self) -> None:
        state = self.state
        status = driver.status(state)
        if status.step is Step.END:
            raise _Stop
        undo = " undo," if driver.can_undo_round(state) is None else ""
        can_deal = status.step is Step.DEAL
        deal = f"Enter = deal round {state.round_number + 1}," if can_deal else ""
        if not can_deal:
            self.warn(f"No deal is possible now: {status.reason}.")
        rebuy = " rebuy NAME CHIPS," if state.rules.rebuys else ""
        answer = self.ask(f"{deal}{undo}{rebuy} end? ")
        word = answer.lower()
        if word in _STOP:
            raise _Stop
        if word in ("", "deal", "d") and can_deal:
            self.apply(driver.deal(state))
            self.console.print(f"{escape(self.state.names[self.state.dealer])} deals the cards "
                               "at the table.")
        elif word == "undo":
            self.undo()
        elif word.startswith("rebuy ") or word == "rebuy":
            self.rebuy(answer[6:])  # the core says why not (e.g. the rules have no rebuys)
        else:
            self.warn(f"Sorry, {_shown(answer)!r} is not an answer here.")

    def undo(self) -> None:
        problem = driver.can_undo_round(self.state)
        if problem is not None:
            self.warn(problem)
            return
        self.apply(driver.undo_round(self.state, "undone at the table"))
        self.console.print("Stacks: " + " · ".join(
            f"{escape(n)} {s}" for n, s in zip(self.state.names, self.state.stacks,
                                               strict=True))
            + f" · next dealer: [bold]{escape(self.state.names[self.state.dealer])}[/]")

    def rebuy(self, text: str) -> None:
        parts = text.split()
        try:
            if len(parts) != 2:
                raise ValueError(f"type rebuy NAME CHIPS, not {_shown('rebuy ' + text)!r}")
            (seat,) = parse_names(self.state, parts[0])
            if not (parts[1].isascii() and parts[1].isdigit()):
                raise ValueError(f"{_shown(parts[1])!r} is not a number of chips")
            digits = parts[1].lstrip("0") or "0"
            # More digits than the largest amount: too many chips (and int() refuses more
            # than 4300 digits with a message that would not say so).
            chips = int(digits) if len(digits) <= len(str(MAX_CHIPS)) else MAX_CHIPS + 1
            problem = chips_problem(chips)
            if problem is not None:
                raise ValueError(f"{_shown(parts[1])!r} chips: a rebuy {problem}")
            self.apply(driver.rebuy(self.state, seat, chips))
        except (ValueError, IllegalActionError) as error:
            self.warn(str(error))

    def declarations(self) -> None:
        state = self.state
        waiting = driver.waiting_for(state)
        words = _declaration_words(state.rules)
        if state.variants.in_turn:  # sequential: one seat at a time, from the dealer's left
            seat = waiting[0]
            options = "/".join(d.value for d in legal_declarations(state.rules))
            answer = self.ask_in_round(f"{state.names[seat]}: {options}? ").lower()
            choice = words.get(answer)
            if choice is None:
                self.warn(f"Sorry, {_shown(answer)!r} is not a declaration ({options}).")
                return
            self.try_apply(lambda: driver.declare(state, seat, choice))
            return
        hi_lo = Declaration.IN not in words.values()
        prompt = ("Who is in? Names with high, low or both (Ana=high Ben=low), or none: "
                  if hi_lo else "Who is in? Names, or none: ")
        answer = self.ask_in_round(prompt)
        try:
            calls = self.parse_calls(answer, waiting, words, hi_lo)
        except ValueError as error:
            self.warn(str(error))
            return
        self.try_apply(lambda: driver.declare_all(state, calls))

    def parse_calls(self, answer: str, waiting: Sequence[int], words: dict[str, Declaration],
                    hi_lo: bool) -> dict[int, Declaration]:
        state = self.state
        calls = dict.fromkeys(waiting, Declaration.OUT)
        if answer.lower() == "none":
            return calls
        if not answer:
            raise ValueError("type the names of the players who are in, or none")
        named: set[int] = set()
        for word in answer.replace(",", " ").split():
            name, sep, value = word.partition("=") if "=" in word else word.partition(":")
            if hi_lo and not sep:
                raise ValueError(f"{_shown(word)!r}: say high, low or both, e.g. {name}=high")
            (seat,) = parse_names(state, name)
            if seat not in waiting:
                raise ValueError(f"{state.names[seat]!r} was not dealt in")
            if seat in named:  # "Ana=high Ana=low": which call counts is not guessed
                raise ValueError(f"{state.names[seat]!r} is named twice: name each player "
                                 "once")
            named.add(seat)
            choice = words.get(value.lower()) if sep else Declaration.IN
            if choice is None or choice not in IN_DECLARATIONS:
                raise ValueError(f"{_shown(word)!r}: {_shown(value)!r} is not " + (
                    "high, low or both" if hi_lo else
                    "a call here: type only the names of the players who are in"))
            calls[seat] = choice
        return calls

    def showdown(self) -> None:
        state = self.state
        needs = driver.showdown_needs(state)
        assert needs is not None
        rules = state.rules
        if needs.in_seats:
            who = ", ".join(state.names[s] for s in needs.seats)
            self.console.print(f"Showdown: {escape(who)}. Type each hand as dealt (e.g. "
                               f"{'Ah Kd 2c' if rules.cards_per_hand == 3 else 'Ah Kd'}), "
                               "or winner: NAME when the table agrees not to enter cards.")
        else:
            self.console.print("Everyone is out: the best hand pays everyone's ante. Type "
                               "every hand, or winner: NAME (who holds the best hand).")
        hands: dict[int, tuple[int, ...]] = {}
        for seat in needs.seats:
            while seat not in hands:  # a wrong hand is asked again, alone
                answer = self.ask_in_round(f"{state.names[seat]}'s cards: ")
                if answer.lower().startswith("winner"):
                    self.named(answer)
                    return
                try:
                    hands[seat] = parse_cards(answer, count=rules.cards_per_hand)
                except CardError as error:
                    self.warn(f"{state.names[seat]}: {error}. Type {state.names[seat]}'s "
                              "cards again.")
        extras: dict[str, tuple[int, ...]] = {}
        for label, key, needed, size in (("Ghost hand", "ghost", needs.ghost,
                                          rules.cards_per_hand),
                                         ("Community card", "community", needs.community, 1)):
            if not needed:
                continue
            while key not in extras:
                answer = self.ask_in_round(f"{label}: ")
                try:
                    extras[key] = parse_cards(answer, count=size)
                except CardError as error:
                    self.warn(f"{label}: {error}. Type the {label.lower()} again.")
        self.try_apply(lambda: driver.show_cards(state, hands, ghost=extras.get("ghost"),
                                                 community=extras.get("community")),
                       again="Type the showdown again.")

    def named(self, answer: str) -> None:
        """``winner: NAME[, NAME]`` (``none``: nobody beat the ghost hand)."""
        state = self.state
        needs = driver.showdown_needs(state)
        assert needs is not None
        match = re.fullmatch(r"winners?\s*:?\s*(.*)", answer, re.IGNORECASE | re.DOTALL)
        text = match.group(1).strip() if match else answer
        try:
            winners = [] if text.lower() in _NOBODY else parse_names(state, text)
            low: list[int] = []
            losers: list[int] | None = None
            if Declaration.LOW in legal_declarations(state.rules):
                reply = self.ask_in_round("Low winner(s)? Names, or none: ")
                low = [] if reply.lower() in _NOBODY else parse_names(state, reply)
            if state.variants.picks_losers and set(needs.in_seats) - set(winners):
                reply = self.ask_in_round("Who holds the worst hand (matches the pot)? ")
                losers = parse_names(state, reply)
        except ValueError as error:
            self.warn(f"{error}. Type the showdown again.")
            return
        self.try_apply(lambda: driver.name_winners(state, winners, low_winners=low,
                                                   losers=losers),
                       again="Type the showdown again.")

    def misdeal(self) -> None:
        problem = driver.can_misdeal(self.state)
        if problem is not None:
            self.warn(problem)
            return
        self.apply(driver.misdeal(self.state, "misdeal called at the table"))

    def try_apply(self, step: Callable[[], tuple[GameState, list[Event]]],
                  again: str = "") -> None:
        try:
            result = step()
        except IllegalActionError as error:
            self.warn(f"{error}. {again}".strip())
            return
        self.apply(result)
        if any(isinstance(e, RoundResolved) for e in result[1]) and (
                self.state.phase is Phase.DEAL):
            self.console.print(f"Pot: [bold]{self.state.pot}[/]"
                               + (f" · reserve {self.state.reserve}"
                                  if self.state.reserve else "")
                               + f" · next dealer: [bold]"
                               f"{escape(self.state.names[self.state.dealer])}[/]")


def companion_session(*, console: Console, read: Callable[[str], str], store: HistorySink,
                      rules: Rules, names: Sequence[str], chips: int | Sequence[int],
                      dealer: int = 0, echo: bool = False) -> CompanionResult:
    """Run a companion session in the terminal until the table ends it.

    Args:
        console: where the table is shown.
        read: prints a prompt and returns one typed line (``EOFError`` at end of input).
        store: where the hand history is saved (one transaction per round).
        rules: the house rules.
        names: the players, clockwise.
        chips: everyone's buy-in, or one per player.
        dealer: the first dealer's seat.
        echo: print typed answers (input from a pipe).

    Returns:
        The final state (after the ledger's end of session), the session id, why it ended.

    Raises:
        IllegalActionError: a bad table (seat count, names, chips).
        StorageError: the hand history cannot be saved (raised after the session is ended
            and its ledger printed).
    """
    start = start_event(names, chips, dealer=dealer, rules=rules, companion=True)
    session = _Session(console, read, store, start, echo)
    console.print(f"[bold]Guts companion[/] — {rules_summary(rules)}. The cards are dealt "
                  "at the table; gutskit moves the chips.")
    session.narrator.event(None, start, session.state)
    reason = "the table agreed to stop"
    exit_code = 0
    failed: StorageError | None = None
    try:
        while session.state.phase is not Phase.OVER:
            phase = session.state.phase
            try:
                if phase is Phase.DEAL:
                    session.between_rounds()
                elif phase is Phase.SHOWDOWN:
                    session.showdown()
                else:
                    session.declarations()
            except _Undo:
                session.undo()
            except _Misdeal:
                session.misdeal()
    except _Stop:
        pass
    except EOFError:
        console.print()
        reason = "end of input"
    except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM, SIGHUP: end as at "end"
        console.print()
        reason = stop_reason(stop)
        exit_code = exit_code_of(stop)
    except StorageError as error:  # a round could not be saved: end the same way
        console.print()
        reason = "the hand history could not be saved"
        failed = error
    state = session.state
    final, ended = driver.end(state, reason)
    for event in ended:
        session.narrator.event(state, event, final)
    if not ended:
        console.print(Rule("Session over"))
    session.state = final
    session.pending.extend(ended)
    saved = 0
    if failed is None:
        try:
            saved = session.save(end_reason=final.end_reason or reason)
        except StorageError as error:
            failed = error
    show_ledger(console, final)
    thrown = len(session.misdealt)
    misdeals = (f" ({count(thrown, 'misdeal')}: thrown in and dealt again under the next "
                "number)" if thrown else "")
    console.print(f"{count(final.round_number, 'round')} dealt{misdeals}.")
    if failed is not None:
        raise not_saved(failed)
    return CompanionResult(final, saved, final.end_reason or reason, exit_code)

