"""``guts verify``: replay a hand history through the engine and check a room's deals.

Inputs: any hand history gutskit writes (JSON Lines: the browser's ``history.jsonl`` with
its redactions, ``guts history --json``, ``guts tournament --history``: several sessions
one after the other) and, for a server room, its ``fairness.json``
(``GET /api/rooms/<id>/fairness.json``; with ``?token=...`` it also holds the openings of
your own dealt cards).

**The replay** (:func:`replay_history`, every history). Each round is played again by the
engine from the recorded actions: the deal (:func:`gutskit.core.engine.deal` with the
recorded hands; a hand the history does not show is "dealt, not recorded", ``()``, and a
hand shown at the showdown is the hand that seat played), the passes of Pass the Trash,
the revealed declarations (:func:`gutskit.core.engine.declare_all`), rebuys, misdeals and
the end of the session (:func:`gutskit.core.engine.end_session`). Every event the engine
produces must be the recorded one: the antes, every declaration (a sealed or public call
must agree with the reveal), the winners, every chip won and matched, the pot after the
round, the reserve, the next dealer, the payouts. The first difference fails with one line
that names the round.

**The deal** (:func:`verify_rounds`, with a fairness file).

* ``gutskit-deal-v2`` (``seed_reveal = "shown"``): the 52 leaves of each round hash to the
  commitment published before the deal; each opening matches its leaf; the client seeds
  give the deal order; every card the round's public result shows is opened, no other card
  is (an opening of a card nobody showed is a failure: it would leak it); each opened card
  was dealt to the seat that showed it (under Pass the Trash: to it or to the seat that
  passes to it), to the ghost hand or as the community card; your own dealt hands match
  your openings (``fairness.json?token=...``); every dealt round of the history has a
  commitment and, once the session is over, every round the file says was dealt is in the
  history and its leaves are published.
* ``gutskit-deck-v1`` (``"round"`` / ``"session"``): every revealed seed gives the deck
  its commitment names; the hands the history holds and shows are the hands that deck
  deals.

**The session header** (:func:`verify_session`, both versions): the ``SessionStarted``
committed before the first deal (``fairness.json`` ``"session"``: its hash, published live,
and the header) hashes to the commitment, and the history starts with it; a difference
names each field (each house rule by name).

A history without a fairness file is checked for internal consistency only: fairness is
not provable for it (the report says so).

Failures raise :class:`~gutskit.server.fairness.FairnessError` (one line, naming the round
or the header field);
input that cannot be read raises :class:`VerifyInputError`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gutskit.core import engine
from gutskit.core.cards import Card, card_name, format_cards
from gutskit.core.engine import ConservationError, GameState, IllegalActionError
from gutskit.core.errors import GutsError
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
    HandShown,
    Misdealt,
    PassChosen,
    Rebought,
    RoundResolved,
    RoundUndone,
    SeatAway,
    SeatBack,
    SeatLeft,
    SeatRemoved,
    SessionEnded,
    SessionStarted,
    WinnersNamed,
)
from gutskit.core.history import HistoryError, Record, parse_lines, record_from_dict
from gutskit.core.views import DeclarationSealed, PassSealed, PassSeen
from gutskit.io.files import read_text
from gutskit.server.fairness import (
    ALGORITHM_V1,
    ALGORITHM_V2,
    FairnessError,
    Opening,
    check_leaves,
    check_opening,
    deal_order,
    deck_names,
    session_hash,
    shown_cards,
    verify_commitment,
)

__all__ = ["ALGORITHM", "ALGORITHMS", "Record", "ReplayedRound", "RoundCheck",
           "VerifyInputError", "load_history", "load_visible_history", "parse_history",
           "replay_history", "verify_history", "verify_rounds",
           "verify_session"]

ALGORITHM = ALGORITHM_V1
"""The version-1 algorithm name (kept for callers of the first release)."""

ALGORITHMS = (ALGORITHM_V2, ALGORITHM_V1)
"""The deal algorithms this verifier checks (:mod:`gutskit.server.fairness`)."""



class VerifyInputError(GutsError):
    """Input ``guts verify`` cannot read (not JSON, wrong shape, unreadable history): a
    user mistake, not a failed check."""


@dataclass(frozen=True)
class RoundCheck:
    """The result for one round: ``status`` is ``"ok"`` (the deal checked against its
    commitment), ``"unrevealed"`` (not opened yet), ``"replayed"`` (no fairness file: only
    the replay) or ``"pending"`` (committed, not dealt); ``cards_checked`` counts the cards
    of the history compared with the deal; ``detail`` is the rest of the report line."""

    round: int
    status: str
    cards_checked: int
    top_cards: str
    detail: str = ""


# ---------------------------------------------------------------------------------------------
# Reading histories.


def load_history(path: str | Path) -> list[Record]:
    """Any hand history gutskit writes (JSON Lines), redactions included.

    Raises:
        VerifyInputError: unreadable file or bad line (named).
    """
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise VerifyInputError(f"cannot read hand history {str(path)!r}: {reason}") from None
    return parse_history(text, str(path))


def parse_history(text: str, name: str = "history") -> list[Record]:
    """:func:`load_history` of a text (:func:`gutskit.core.history.parse_lines`).

    Raises:
        VerifyInputError: a bad line: ``"NAME: event K (line N): ..."``, the field named.
    """
    try:
        records: list[Record] = parse_lines(text, name)
    except HistoryError as error:
        raise VerifyInputError(str(error)) from None
    return records


def load_visible_history(path: str | Path) -> list[Record]:
    """:func:`load_history` (the name of the first release)."""
    return load_history(path)


# ---------------------------------------------------------------------------------------------
# The replay.


@dataclass
class ReplayedRound:
    """What the replay learnt about one dealt round.

    Attributes:
        session: 1-based session of the file; number: round number in its session.
        several: the file holds several sessions (the label then names the session).
        before: the state before the deal (what the deal order depends on).
        dealt: the dealt hands as recorded (``()``: dealt, not shown to this copy).
        result: the round's result (``None``: thrown in by a misdeal or the end).
        givers: Pass the Trash: receiving seat -> the seat that passes to it.
        shown_after: seat -> the hand it showed by choice after its uncontested win
            (``HandShown``).
    """

    session: int
    number: int
    before: GameState
    dealt: tuple[Hand | None, ...]
    result: RoundResolved | None = None
    givers: dict[int, int] = field(default_factory=dict)
    shown_after: dict[int, Hand] = field(default_factory=dict)
    several: bool = False

    @property
    def label(self) -> str:
        """``"round 3"`` (``"session 1, round 3"``, ``"session 2, round 3"`` in a file of
        several sessions)."""
        return f"session {self.session}, round {self.number}" if self.several or \
            self.session > 1 else f"round {self.number}"


def _differences(recorded: object, produced: object) -> str:
    """The fields in which two events differ, as ``field: recorded X, engine Y``."""
    if type(recorded) is not type(produced):
        return (f"the history has {type(recorded).__name__} where the engine produces "
                f"{type(produced).__name__}")
    parts = []
    for item in dataclasses.fields(recorded):  # type: ignore[arg-type]
        a, b = getattr(recorded, item.name), getattr(produced, item.name)
        if a != b:
            parts.append(f"{item.name} {_show(a, item.name)} (the engine: "
                         f"{_show(b, item.name)})")
    return "; ".join(parts)


def _show(value: object, name: str) -> str:
    if name in ("shown", "hands") and isinstance(value, tuple):
        return "[" + ", ".join("-" if h is None else format_cards(h) for h in value) + "]"
    if name in ("ghost", "community") and isinstance(value, tuple):
        return format_cards(value)
    if isinstance(value, tuple) and value and isinstance(value[0], Declaration | None):
        return "[" + ", ".join("-" if d is None else d.value for d in value) + "]"
    if hasattr(value, "value"):
        return str(value.value)
    return str(list(value)) if isinstance(value, tuple) else repr(value)


class _Replay:
    """Replays a history (see the module doc); :attr:`rounds` and :attr:`sessions_over`
    collect what the fairness checks need."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.records = list(records)
        self.several = sum(isinstance(r, SessionStarted) for r in self.records) > 1
        self.rounds: list[ReplayedRound] = []
        self.sessions_over: list[bool] = []
        self.state: GameState | None = None
        self.expected: list[Event] = []
        self.current: ReplayedRound | None = None
        self.before_declare: GameState | None = None
        self.calls: dict[int, Declaration] = {}
        self.antes: AntesPosted | None = None
        self.dealt_at = 0

    def fail(self, message: str) -> FairnessError:
        where = self.current.label if self.current is not None else "before the first deal"
        if self.current is None and len(self.sessions_over) > 1:
            where = f"session {len(self.sessions_over)}, before the first deal"
        return FairnessError(f"{where}: {message}")

    def run(self) -> None:
        for index, record in enumerate(self.records):
            try:
                self.step(index, record)
            except (IllegalActionError, ConservationError) as error:
                name = type(record).__name__
                raise self.fail(f"the engine refuses the recorded {name} (line {index + 1}): "
                                f"{error}") from None
        self.finish_session()

    def finish_session(self) -> None:
        if self.expected:
            raise self.fail(f"the history stops where the engine produces "
                            f"{type(self.expected[0]).__name__}")
        if self.antes is not None:
            raise self.fail("antes are posted but no cards are dealt")

    def take_expected(self, record: Event) -> bool:
        """Compare ``record`` with the next event the engine produced, if any."""
        if not self.expected:
            return False
        want = self.expected.pop(0)
        if record != want:
            raise self.fail(f"the recorded {type(record).__name__} differs from the "
                            f"engine's: {_differences(record, want)}")
        return True

    def step(self, index: int, record: Record) -> None:
        if isinstance(record, SessionStarted):
            if self.state is not None:
                self.finish_session()
            self.state = engine.evolve(None, record)
            self.sessions_over.append(False)
            self.current = None
            return
        if self.state is None:
            raise FairnessError(f"line {index + 1}: the history must start with "
                                f"SessionStarted, not {type(record).__name__}")
        if isinstance(record, DeclarationSealed | PassSealed):
            return
        if self.expected and isinstance(record, Event):
            self.take_expected(record)
            if isinstance(record, CardsPassed):
                self.before_declare = self.state
            return
        if isinstance(record, AntesPosted):
            self.antes = record
        elif isinstance(record, CardsDealt):
            self.deal(index, record)
        elif isinstance(record, PassChosen):
            self.state, produced = engine.pass_card(self.state, record.seat, record.card)
            self.expected.extend(produced[1:])
        elif isinstance(record, CardsPassed):
            self.passes_all(record)
        elif isinstance(record, PassSeen):
            self.pass_seen(record)
        elif isinstance(record, Declared):
            self.declared(record)
        elif isinstance(record, DeclarationsRevealed):
            self.revealed(record)
        elif isinstance(record, Misdealt):
            self.state, produced = engine.misdeal(self.state, record.reason)
            self.take_produced(record, produced)
        elif isinstance(record, Rebought):
            self.state, produced = engine.rebuy(self.state, record.seat, record.chips)
            self.take_produced(record, produced)
        elif isinstance(record, SeatAway | SeatBack | SeatLeft | SeatRemoved):
            # seats coming and going (gutskit.core.table); what they owed this round
            # follows as recorded declarations / passes
            self.state = engine.evolve(self.state, record)
            if self.before_declare is not None:  # mid-round: the settlement sees it too
                self.before_declare = engine.evolve(self.before_declare, record)
        elif isinstance(record, HandShown):
            self.hand_shown(record)
        elif isinstance(record, CardsShown | WinnersNamed | RoundUndone):
            self.companion(record)
        elif isinstance(record, SessionEnded):
            self.state, produced = engine.end_session(self.state, record.reason)
            self.take_produced(record, produced)
            self.sessions_over[-1] = True
        else:  # RoundResolved, SatOut without the declarations that cause them
            raise self.fail(f"a {type(record).__name__} that no recorded action causes "
                            f"(line {index + 1})")

    def hand_shown(self, record: HandShown) -> None:
        """The uncontested winner showed its cards (no chip moves): the engine checks that
        it won the last round uncontested and, where this copy knows its hand, that the
        cards are it."""
        state = self.state
        assert state is not None
        seat = record.seat
        if (self.current is not None and seat < len(self.current.dealt)
                and self.current.dealt[seat] == ()):  # dealt unseen in this copy
            state = dataclasses.replace(state, hands=tuple(
                () if s == seat else h for s, h in enumerate(state.hands)))
        try:
            self.state = engine.evolve(state, record)
        except engine.IllegalActionError as error:
            raise self.fail(f"a HandShown the rules do not allow: {error}") from None
        if self.current is not None:
            self.current.shown_after[seat] = tuple(record.hand)

    def companion(self, record: CardsShown | WinnersNamed | RoundUndone) -> None:
        """Companion mode (docs/companion.md): the cards entered at the real table's
        showdown, the winners the table named, or the host's undo of the last round, each
        replayed through the engine's own operation; what it produces (the settlement, the
        chips given back) must be what is recorded next."""
        state = self.state
        assert state is not None
        if isinstance(record, CardsShown):
            hands = {seat: hand for seat, hand in enumerate(record.hands) if hand is not None}
            self.state, produced = engine.show_cards(state, hands, ghost=record.ghost,
                                                     community=record.community)
        elif isinstance(record, WinnersNamed):
            self.state, produced = engine.name_winners(
                state, record.winners, low_winners=record.low_winners, losers=record.losers)
        else:
            self.state, produced = engine.undo_round(state, record.reason)
        self.take_produced(record, produced)

    def take_produced(self, record: Event, produced: list[Event]) -> None:
        self.expected.extend(produced)
        if not self.take_expected(record):
            raise self.fail(f"the engine produces nothing for {type(record).__name__}")

    def deal(self, index: int, dealt: CardsDealt) -> None:
        state = self.state
        assert state is not None
        result = self.result_ahead(index)
        passing = state.rules.pass_the_trash
        hands = []
        for seat, hand in enumerate(dealt.hands):
            shown = result.shown[seat] if result is not None and seat < len(result.shown) \
                else None
            if hand == () and shown and not passing:
                hand = shown  # a hand shown at the showdown is the hand that was dealt
            hands.append(hand)

        def extra(recorded: Hand | None, shown: Hand | None) -> Hand | None:
            return shown if recorded == () and shown else recorded

        ghost = extra(dealt.ghost, result.ghost if result else None)
        community = extra(dealt.community, result.community if result else None)
        number = state.round_number + 1
        self.dealt_at = index
        self.current = ReplayedRound(len(self.sessions_over), number, state, dealt.hands,
                                     several=self.several)
        self.rounds.append(self.current)
        new, produced = engine.deal(state, hands, ghost=ghost, community=community)
        recorded_antes = [self.antes] if self.antes is not None else []
        produced_antes = [e for e in produced if isinstance(e, AntesPosted)]
        self.antes = None
        if recorded_antes != produced_antes:
            if not produced_antes:
                raise self.fail(f"antes {list(recorded_antes[0].amounts)} are recorded, but "
                                "none are due")
            if not recorded_antes:
                raise self.fail(f"the antes {list(produced_antes[0].amounts)} that are due "
                                "are not recorded")
            raise self.fail("the recorded antes differ from the engine's: "
                            + _differences(recorded_antes[0], produced_antes[0]))
        self.state = new
        self.before_declare = new if new.phase is engine.Phase.DECLARE else None
        self.calls = {}
        if passing:
            dealt_in = [s for s, h in enumerate(dealt.hands) if h is not None]
            self.current.givers = {seat: dealt_in[i - 1] for i, seat in enumerate(dealt_in)}

    def result_ahead(self, index: int) -> RoundResolved | None:
        """The result of the round dealt at ``index`` (``None``: it never resolves)."""
        for record in self.records[index + 1:]:
            if isinstance(record, RoundResolved):
                return record
            if isinstance(record, CardsDealt | Misdealt | SessionEnded | SessionStarted):
                return None
        return None

    def passes_all(self, record: CardsPassed) -> None:
        state = self.state
        assert state is not None
        chosen = state.passes or ()
        todo = {s: c for s, c in enumerate(record.passes)
                if c is not None and (s >= len(chosen) or chosen[s] is None)}
        self.state, produced = engine.pass_all(state, todo)
        if [record] != produced:
            raise self.fail("the recorded exchange differs from the engine's: "
                            + _differences(record, produced[0]))
        self.before_declare = self.state

    def pass_seen(self, record: PassSeen) -> None:
        """A seat's copy of the exchange: only its passed and received cards are known;
        the exchange is applied as far as it is known."""
        state = self.state
        assert state is not None and self.current is not None
        if state.phase is not engine.Phase.PASS:
            raise self.fail(f"an exchange of passed cards in the {state.phase.value} phase")
        passes: list[Card | None] = [None] * state.n_seats
        seat = record.seat if 0 <= record.seat < state.n_seats else None
        giver = self.current.givers.get(record.seat)
        if seat is not None and record.passed is not None:
            passes[seat] = record.passed
        if giver is not None and record.received is not None:
            passes[giver] = record.received
        hand = state.hands[seat] if seat is not None else None
        if hand and record.passed is not None and record.passed not in hand:
            raise self.fail(f"seat {record.seat} passed {card_name(record.passed)}, which is "
                            f"not in its hand ({format_cards(hand)})")
        self.state = engine.evolve(state, CardsPassed(tuple(passes)))
        self.before_declare = self.state

    def declared(self, record: Declared) -> None:
        if self.before_declare is None:
            raise self.fail(f"seat {record.seat} declares with no cards out")
        if record.seat in self.calls:
            raise self.fail(f"seat {record.seat} declares twice")
        self.calls[record.seat] = record.declaration

    def revealed(self, record: DeclarationsRevealed) -> None:
        state = self.before_declare
        if state is None or self.current is None:
            raise self.fail("declarations are revealed with no cards out")
        decls = record.declarations
        for seat, call in self.calls.items():
            said = decls[seat] if seat < len(decls) else None
            if said is not call:
                raise self.fail(f"seat {seat} ({state.names[seat]!r}) declared {call.value}, "
                                f"but the reveal says {'nothing' if said is None else said.value}")
        choices = {s: d for s, d in enumerate(decls) if d is not None}
        filled = self.fill_shown(state, decls)
        new, produced = engine.declare_all(filled, choices)
        self.state = new
        self.before_declare = None
        self.expected.extend(produced)
        self.take_expected(record)
        resolved = next((e for e in produced if isinstance(e, RoundResolved)), None)
        self.current.result = resolved

    def fill_shown(self, state: GameState, decls: Sequence[Declaration | None]
                   ) -> GameState:
        """The state the declarations are settled on: hands not recorded (``()``) of the
        seats the round's result shows are the shown hands (Pass the Trash: the hand after
        the exchange is known only when shown); an in seat whose hand is never shown (an
        uncontested win: the settlement does not read it) gets a stand-in hand of cards
        no recorded hand holds, because the engine wants a hand for every in player."""
        if not any(h == () for h in state.hands):
            return state
        result = self.result_ahead(self.dealt_at)
        shown = result.shown if result is not None else ()
        hands = [shown[s] if h == () and s < len(shown) and shown[s] else h
                 for s, h in enumerate(state.hands)]
        used = {c for h in hands if h for c in h}
        used.update(state.ghost or ())
        used.update(state.community or ())
        used.update(c for c in state.passes or () if c is not None)
        spare = [c for c in range(52) if c not in used]
        k = state.rules.cards_per_hand
        for seat, hand in enumerate(hands):
            call = decls[seat] if seat < len(decls) else None
            if hand == () and call is not None and call is not Declaration.OUT:
                hands[seat], spare = tuple(spare[:k]), spare[k:]
        return dataclasses.replace(state, hands=tuple(hands))


def replay_history(records: Sequence[Record]) -> tuple[list[ReplayedRound], list[bool]]:
    """Replay ``records`` through the engine (see the module doc).

    Returns:
        The dealt rounds, and for each session of the file whether it ended.

    Raises:
        FairnessError: the history differs from what the engine does (one line naming the
            round and the first difference).
    """
    replay = _Replay(records)
    replay.run()
    return replay.rounds, replay.sessions_over


# ---------------------------------------------------------------------------------------------
# The deal against the commitments.


def _records(fairness: object) -> tuple[str, list[dict[str, Any]], bool]:
    """The algorithm, the validated round records and whether the file says the session
    is over.

    Raises:
        VerifyInputError: the shape is wrong.
        FairnessError: another algorithm, no rounds, a missing or repeated round.
    """
    records = fairness.get("rounds") if isinstance(fairness, dict) else None
    if not isinstance(fairness, dict) or not isinstance(records, list):
        raise VerifyInputError("a fairness file is a JSON object with a \"rounds\" list "
                               "(GET /api/rooms/<id>/fairness.json)")
    algorithm = fairness.get("algorithm")
    for record in records:
        if not isinstance(record, dict) or type(record.get("round")) is not int \
                or not isinstance(record.get("commitment"), str):
            raise VerifyInputError(f"bad fairness record {json.dumps(record)[:120]}: "
                                   "expected {\"round\": N, \"commitment\": \"...\", ...}")
        if algorithm == ALGORITHM_V1 and not isinstance(record.get("seed"), str | None):
            raise VerifyInputError(f"bad fairness record {json.dumps(record)[:120]}: "
                                   "\"seed\" is a hex string or null")
        if algorithm == ALGORITHM_V2 and not (
                isinstance(record.get("client_seeds"), list | None)
                and isinstance(record.get("leaves"), list | None)
                and isinstance(record.get("opened", []), list)
                and isinstance(record.get("own", []), list)):
            raise VerifyInputError(f"bad fairness record {json.dumps(record)[:120]}: "
                                   "\"client_seeds\" and \"leaves\" are lists or null, "
                                   "\"opened\" and \"own\" lists")
    if algorithm not in ALGORITHMS:
        raise FairnessError(f"algorithm {algorithm!r} is not {ALGORITHM_V2!r} or "
                            f"{ALGORITHM_V1!r}, the ones this verifier checks")
    if not records:
        raise FairnessError("the fairness file lists no rounds: nothing to verify")
    numbers = [r["round"] for r in records]
    if numbers != list(range(1, len(numbers) + 1)):
        missing = sorted(set(range(1, max(max(numbers), 1) + 1)) - set(numbers))
        problem = (f"round {missing[0]} is missing" if missing
                   else "a round is listed twice or out of order")
        raise FairnessError(f"the rounds must be 1 to N in order, each once: {problem} "
                            f"(rounds {numbers[:12]})")
    over = fairness.get("session_over", False)
    if not isinstance(over, bool):
        raise VerifyInputError(f"\"session_over\" must be true or false, not {over!r}")
    return str(algorithm), records, over


def _who(known: ReplayedRound, seat: int) -> str:
    return f"seat {seat} ({known.before.names[seat]!r})"


def _check_v1(number: int, record: dict[str, Any], known: ReplayedRound | None,
              over: bool) -> RoundCheck:
    """A version-1 round: the revealed seed, the hands it deals."""
    seed = record.get("seed")
    if seed is None:
        if over:
            raise FairnessError(f"round {number}: the session is over but its seed was "
                                "not revealed")
        checked = _shown_vs_dealt(known, None) if known is not None else 0
        return RoundCheck(number, "unrevealed", checked, "")
    try:
        deck = verify_commitment(record["commitment"], seed)
    except FairnessError as error:
        raise FairnessError(f"round {number}: {error}") from None
    checked = 0
    if known is not None:
        expected = engine.hands_from_deck(known.before, deck)
        for seat, hand in enumerate(known.dealt):
            if (hand is None) != (expected[seat] is None):
                raise FairnessError(f"round {number}: seat {seat} dealt in/out differs "
                                    "from the deal the seed gives")
            want = expected[seat]
            if hand and want is not None:
                if tuple(hand) != tuple(want):
                    raise FairnessError(f"round {number}: {_who(known, seat)} holds "
                                        f"{format_cards(hand)}, but the seed deals "
                                        f"{format_cards(want)}")
                checked += len(hand)
        checked += _shown_vs_dealt(known, expected)
        for seat, shown in known.shown_after.items():
            want = expected[seat] if seat < len(expected) else None
            if not known.givers and (want is None or tuple(want) != tuple(shown)):
                raise FairnessError(f"round {number}: {_who(known, seat)} showed "
                                    f"{format_cards(shown)} after the uncontested win, but "
                                    f"the seed deals {format_cards(want or ())}")
    return RoundCheck(number, "ok", checked, " ".join(deck_names(deck)[:6]))


def _shown_vs_dealt(known: ReplayedRound, expected: tuple[Hand | None, ...] | None) -> int:
    """Version 1: the hands shown at the showdown against the seed's deal; the cards of
    the history compared that its dealt hands did not show."""
    result = known.result
    if result is None:
        return 0
    checked = 0
    passing = bool(known.givers)
    dealt_cards = {c for h in (expected or ()) if h for c in h}
    for seat, shown in enumerate(result.shown):
        if not shown:
            continue
        who = f"round {known.number}: {_who(known, seat)}"
        if expected is not None:
            if passing and not set(shown) <= dealt_cards:
                raise FairnessError(f"{who} showed {format_cards(shown)}, cards the seed "
                                    "does not deal in this round")
            want = expected[seat]
            if not passing and (want is None or tuple(want) != tuple(shown)):
                raise FairnessError(f"{who} showed {format_cards(shown)}, but the seed "
                                    f"deals {format_cards(want or ())}")
        if not (seat < len(known.dealt) and known.dealt[seat]):
            checked += len(shown)
    return checked


def _openings(number: int, items: list[Any], leaf_hashes: Sequence[str]) -> list[Opening]:
    openings = []
    for item in items:
        try:
            opening = Opening.from_json(item)
            check_opening(leaf_hashes, opening)
        except FairnessError as error:
            raise FairnessError(f"round {number}: {error}") from None
        openings.append(opening)
    return openings


def _check_v2(number: int, record: dict[str, Any], known: ReplayedRound | None,
              over: bool, own_seat: object = None) -> RoundCheck:
    """A version-2 round: leaves, openings, the deal order and who held each card;
    ``own_seat`` (the file's ``"seat"``) owns the round's ``"own"`` openings, each of which
    must be dealt to that seat under the published client seeds (:func:`_own_placed`)."""
    seeds = record.get("client_seeds")
    if seeds is None:
        if known is not None:
            raise FairnessError(f"round {number}: the hand history deals it, but the "
                                "fairness file says it was never dealt")
        return RoundCheck(number, "pending", 0, "", "committed, not dealt")
    leaf_hashes = record.get("leaves")
    if leaf_hashes is None:
        if over:
            raise FairnessError(f"round {number}: the session is over but its leaves were "
                                "not published")
        return RoundCheck(number, "unrevealed", 0, "")
    try:
        check_leaves(record["commitment"], leaf_hashes)
    except FairnessError as error:
        raise FairnessError(f"round {number}: {error}") from None
    opened = _openings(number, record.get("opened", []), leaf_hashes)
    own = _openings(number, record.get("own", []), leaf_hashes)
    given = sum(s is not None for s in seeds)
    seeds_text = f"{given} client seed{'' if given == 1 else 's'}"
    if known is None:
        return RoundCheck(number, "ok", 0, "", _opened(opened, seeds_text))
    try:
        order = deal_order(record["commitment"], seeds)
    except (TypeError, AttributeError):
        raise VerifyInputError(f"round {number}: client seeds {seeds!r} are not hex "
                               "strings or null") from None
    dealt_at = {base: j for j, base in enumerate(order)}
    hands, ghost, community = engine.deal_from_deck(known.before, list(range(52)))
    owner: dict[int, int | str] = {}
    for seat, hand in enumerate(hands):
        for j in hand or ():
            owner[j] = seat
    for label, extra in (("the ghost hand", ghost), ("the community card", community)):
        for j in extra or ():
            owner[j] = label
    card_owner = {o.card: owner.get(dealt_at[o.position], "nobody") for o in (*opened, *own)}
    card_at = {dealt_at[o.position]: o.card for o in (*opened, *own)}
    shown = shown_cards(known.result) if known.result is not None else set()
    opened_cards = {o.card for o in opened}
    for seat, hand in known.shown_after.items():
        missing = [c for c in hand if c not in opened_cards]
        if missing:
            raise FairnessError(f"round {number}: {_who(known, seat)} showed "
                                f"{format_cards(hand)} after the uncontested win, but "
                                f"{format_cards(missing)} {'is' if len(missing) == 1 else 'are'}"
                                " not opened in the fairness file: not the dealt cards, or "
                                "the openings were removed")
        shown |= set(hand)
    leaked = sorted(opened_cards - shown)
    if leaked:
        raise FairnessError(f"round {number}: the server opened {format_cards(leaked)}, "
                            "never shown: a card nobody may see")
    unopened = sorted(shown - opened_cards)
    if unopened:
        raise FairnessError(f"round {number}: the shown cards {format_cards(unopened)} are "
                            "not opened")
    checked = 0
    result = known.result
    if result is not None:
        shows = [*((s, h, "") for s, h in enumerate(result.shown)),
                 *((s, h, " after the uncontested win") for s, h in known.shown_after.items())]
        for seat, hand, when in shows:
            if not hand:
                continue
            allowed: set[int | str] = {seat}
            giver = known.givers.get(seat)
            if giver is not None:
                allowed.add(giver)
            owners = [card_owner[c] for c in hand]
            if any(o not in allowed for o in owners) or (
                    giver is not None and owners.count(giver) > 1 and giver != seat):
                held = ", ".join(f"{card_name(c)} to {_name(known, o)}"
                                 for c, o in zip(hand, owners, strict=True))
                raise FairnessError(f"round {number}: {_who(known, seat)} showed "
                                    f"{format_cards(hand)}{when}, but the deal gave {held}")
            if not (seat < len(known.dealt) and known.dealt[seat]):
                checked += len(hand)
        for label, extra in (("the ghost hand", result.ghost),
                             ("the community card", result.community)):
            if extra and any(card_owner[c] != label for c in extra):
                raise FairnessError(f"round {number}: {label} shows {format_cards(extra)}, "
                                    "cards the deal did not put there")
    if own:
        _own_placed(number, known, own_seat, own, dealt_at, hands, owner)
    for seat, hand in enumerate(known.dealt):
        if not hand:
            continue
        positions = hands[seat] or ()
        for j, card in zip(positions, hand, strict=False):
            committed = card_at.get(j)
            if committed is None:
                continue
            if committed != card:
                want = " ".join("??" if card_at.get(p) is None else card_name(card_at[p])
                                for p in positions)
                raise FairnessError(f"round {number}: {_who(known, seat)} holds "
                                    f"{format_cards(hand)}, but the deal gave it {want}")
            checked += 1
    return RoundCheck(number, "ok", checked, "", _opened(opened, seeds_text))


def _own_placed(number: int, known: ReplayedRound, seat: object, own: Sequence[Opening],
                dealt_at: dict[int, int], hands: Sequence[Sequence[int] | None],
                owner: dict[int, int | str]) -> None:
    """The openings of the checking seat's own cards sit exactly at the deal indices the
    published client seeds and the committed order give that seat, and cover every card
    of its hand the history shows (docs/fairness.md, "Your own cards were committed").

    Raises:
        VerifyInputError: own openings but no seat of the table named.
        FairnessError: an own card dealt elsewhere (to another seat, the ghost hand, the
            community card or nobody), or a card of the seat's hand with no opening.
    """
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(hands):
        raise VerifyInputError(f"round {number}: the fairness file opens own cards but its "
                               f"\"seat\" {seat!r} is not a seat of the table")
    positions = tuple(hands[seat] or ())
    misplaced = [o for o in own if dealt_at[o.position] not in positions]
    if misplaced:
        where = ", ".join(
            f"{card_name(o.card)} (committed position {o.position}) is dealt at index "
            f"{dealt_at[o.position]}, to {_name(known, owner.get(dealt_at[o.position], 'nobody'))}"
            for o in misplaced)
        raise FairnessError(f"round {number}: {_who(known, seat)}'s own cards are not at "
                            f"its dealt positions {list(positions)} under the published "
                            f"client seeds and the committed order: {where}")
    hand = known.dealt[seat] if seat < len(known.dealt) else None
    covered = {dealt_at[o.position] for o in own}
    missing = [j for j in positions[:len(hand or ())] if j not in covered]
    if missing:
        raise FairnessError(f"round {number}: {_who(known, seat)} holds "
                            f"{format_cards(hand or ())}, but its dealt "
                            f"{'position' if len(missing) == 1 else 'positions'} {missing} "
                            f"{'has' if len(missing) == 1 else 'have'} no opening of its own "
                            "cards in the fairness file")


def _name(known: ReplayedRound, owner: int | str) -> str:
    return known.before.names[owner] if isinstance(owner, int) else str(owner)


def verify_session(fairness: dict[str, Any], history: Sequence[Record] | None = None
                   ) -> str | None:
    """Check the commitment to the session header (``fairness["session"]``: the ``hash``
    published before the first deal and the ``started`` header it commits to;
    :func:`gutskit.server.fairness.session_hash`) and, when given, that the hand history
    starts with that header.

    Returns:
        A report line, or ``None`` when the file has no session commitment (a room not
        started yet, or made by a server older than the commitment).

    Raises:
        VerifyInputError: ``"session"`` is not ``{"hash", "started"}``.
        FairnessError: the header does not hash to the commitment, or the history's
            ``SessionStarted`` differs from it (naming each field that changed).
    """
    session = fairness.get("session")
    if session is None:
        return None
    started = session.get("started") if isinstance(session, dict) else None
    digest = session.get("hash") if isinstance(session, dict) else None
    if not isinstance(started, dict) or not isinstance(digest, str):
        raise VerifyInputError("\"session\" must be {\"hash\": \"...\", \"started\": {...}} "
                               "or null")
    if session_hash(started) != digest.strip().lower():
        raise FairnessError(f"the session header does not hash to its commitment {digest} "
                            f"(it hashes to {session_hash(started)})")
    try:
        committed = record_from_dict(started)
    except HistoryError as error:
        raise VerifyInputError(f"the committed session header: {error}") from None
    if not isinstance(committed, SessionStarted):
        raise VerifyInputError("the committed session header is not a SessionStarted")
    if history is None:
        return "session header: committed before the first deal"
    first = next((r for r in history if isinstance(r, SessionStarted)), None)
    if first != committed:
        changed = _header_changes(first, committed) if first is not None else \
            "the hand history has no SessionStarted"
        raise FairnessError("the session header of the hand history differs from the one "
                            f"committed before the first deal: {changed}")
    return ("session header: the hand history's names, seats, stacks, first dealer and "
            "rules are the ones committed before the first deal")


def _header_changes(recorded: SessionStarted, committed: SessionStarted) -> str:
    """``field: the history has X, the commitment Y`` for each field that differs (each
    house rule by name)."""
    parts = []
    for item in dataclasses.fields(recorded):
        a, b = getattr(recorded, item.name), getattr(committed, item.name)
        if a == b:
            continue
        if item.name == "rules":
            mine, theirs = a.to_dict(), b.to_dict()
            parts += [f"rules.{key}: the history has {mine.get(key)!r}, the commitment "
                      f"{theirs.get(key)!r}" for key in sorted(set(mine) | set(theirs))
                      if mine.get(key) != theirs.get(key)]
        else:
            parts.append(f"{item.name}: the history has {_show(a, item.name)}, the "
                         f"commitment {_show(b, item.name)}")
    return "; ".join(parts)


def verify_rounds(fairness: dict[str, Any], history: Sequence[Record] | None = None
                  ) -> list[RoundCheck]:
    """Check every round of ``fairness`` (the parsed ``fairness.json``) and, when given,
    replay ``history`` (one session) and check its cards against the deal (see the
    module doc).

    Raises:
        VerifyInputError: ``fairness`` is not a fairness file, or the history holds
            several sessions.
        FairnessError: a check failed (the message names the round).
    """
    algorithm, records, over = _records(fairness)
    verify_session(fairness, history)
    rounds: list[ReplayedRound] = []
    if history is not None:
        rounds, ended = replay_history(history)
        if len(ended) > 1:
            raise VerifyInputError(f"the hand history holds {len(ended)} sessions; a room's "
                                   "fairness file goes with one")
        over = over or any(ended)
    known = {r.number: r for r in rounds}
    listed = {r["round"] for r in records}
    missing = sorted(set(known) - listed)
    if missing:
        raise FairnessError(f"round {missing[0]} of the hand history has no commitment "
                            "in the fairness file")
    if history is not None and algorithm == ALGORITHM_V2 and over:
        dropped = [r["round"] for r in records
                   if r.get("client_seeds") is not None and r["round"] not in known]
        if dropped:
            raise FairnessError(f"round {dropped[0]} was dealt (the fairness file) but is "
                                "not in the hand history")
    if algorithm == ALGORITHM_V2:
        seat = fairness.get("seat")
        return [_check_v2(r["round"], r, known.get(r["round"]), over, seat) for r in records]
    return [_check_v1(r["round"], r, known.get(r["round"]), over) for r in records]


def verify_history(history: Sequence[Record]) -> list[RoundCheck]:
    """Replay a history without commitments: internal consistency only.

    Raises:
        FairnessError: see :func:`replay_history`.
    """
    rounds, _ = replay_history(history)
    return [RoundCheck(r.number, "replayed", 0, "", r.label) for r in rounds]


def _opened(opened: Sequence[object], seeds_text: str) -> str:
    return f"{len(opened)} card{'' if len(opened) == 1 else 's'} opened, {seeds_text}"

