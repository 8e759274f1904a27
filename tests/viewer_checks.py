"""The oracle of the viewer tests: what each viewer may know at each point of a session,
worked out from the session's full hand history without :mod:`gutskit.core.views`.

A viewer is a seat number or ``None`` (a spectator). Round by round (RULES.md "Antes,
declaration, resolution"; "Variants"), a seat may know its own dealt cards (not under No
Peek), the card it passes and, after the exchange, the card it receives (Pass the Trash);
after the round's resolution everyone may know the cards its public result shows (the
showdown hands, the ghost hand, the community card, the hands compared in a void round
under ``all_out = "best_pays_antes"``). A spectator knows nothing private. Other seats'
declarations are hidden until the reveal unless the declaration is sequential.

Cards of different rounds are different deals, so a card is judged against the round the
payload belongs to; :func:`cards_in` finds card names in any JSON text (as whole words:
hex strings and names do not match).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gutskit.core.cards import Card, card_name, parse_card
from gutskit.core.events import (
    IN_DECLARATIONS,
    CardsDealt,
    CardsPassed,
    CardsShown,
    DeclarationsRevealed,
    Event,
    HandShown,
    Misdealt,
    Outcome,
    PassChosen,
    RoundResolved,
    SessionEnded,
    SessionStarted,
)
from gutskit.core.history import event_to_dict

CARD_WORD = re.compile(r"(?<![0-9A-Za-z_-])([2-9TJQKA][shdc])(?![0-9A-Za-z_-])")
"""A card name standing alone (``"As"``, ``"Td"``; not inside a hex string, a word or a
URL-safe token: a seat token ``"8c-BnanR..."`` holds no card)."""


def cards_in(data: Any) -> set[Card]:
    """Every card named anywhere in ``data`` (strings, nested lists and objects; card codes
    as integers are not cards here)."""
    found: set[Card] = set()
    if isinstance(data, str):
        found.update(parse_card(m) for m in CARD_WORD.findall(data))
    elif isinstance(data, dict):
        for key, value in data.items():
            found |= cards_in(key) | cards_in(value)
    elif isinstance(data, list | tuple):
        for value in data:
            found |= cards_in(value)
    return found


def event_cards(event: Any) -> set[Card]:
    """The cards an event (or a redaction) carries."""
    return cards_in(event_to_dict(event))


@dataclass
class Round:
    """One dealt round of the full history."""

    number: int
    dealt_at: int
    hands: tuple[tuple[int, ...] | None, ...]
    ghost: tuple[int, ...] | None
    community: tuple[int, ...] | None
    passes: tuple[Card | None, ...] | None = None
    passed_at: int | None = None
    chosen_at: dict[int, int] = field(default_factory=dict)
    result: RoundResolved | None = None
    result_at: int | None = None
    shown: CardsShown | None = None
    """Companion mode: the cards shown at the real table (public once entered)."""
    shown_at: int | None = None
    volunteered: dict[int, tuple[int, set[Card]]] = field(default_factory=dict)
    """Seat -> (index, cards) of a HandShown: the winner chose to show them."""
    end: int = 10**9

    def dealt_cards(self) -> set[Card]:
        cards = {c for h in self.hands if h for c in h}
        return cards | set(self.ghost or ()) | set(self.community or ())

    def public_cards(self) -> set[Card]:
        """What the round's public result shows."""
        if self.result is None:
            return set()
        shown = {c for h in self.result.shown if h for c in h}
        return (shown | set(self.result.ghost or ()) | set(self.result.community or ())
                | self.companion_cards())

    def companion_cards(self) -> set[Card]:
        """Companion mode: the cards shown at the showdown (:class:`CardsShown`)."""
        if self.shown is None:
            return set()
        cards = {c for h in self.shown.hands if h for c in h}
        return cards | set(self.shown.ghost or ()) | set(self.shown.community or ())


class Oracle:
    """What each viewer may know, from the full history ``events`` of one session."""

    def __init__(self, events: Sequence[Event]) -> None:
        assert events and isinstance(events[0], SessionStarted)
        self.events = list(events)
        self.rules = events[0].rules
        self.n = len(events[0].names)
        self.rounds: list[Round] = []
        current: Round | None = None
        for index, event in enumerate(events):
            if isinstance(event, CardsDealt):
                if current is not None:
                    current.end = index
                current = Round(len(self.rounds) + 1, index, event.hands, event.ghost,
                                event.community)
                self.rounds.append(current)
            elif isinstance(event, PassChosen) and current is not None:
                current.chosen_at[event.seat] = index
            elif isinstance(event, CardsPassed) and current is not None:
                current.passes, current.passed_at = event.passes, index
            elif isinstance(event, RoundResolved) and current is not None:
                current.result, current.result_at = event, index
            elif isinstance(event, CardsShown) and current is not None:
                current.shown, current.shown_at = event, index
            elif isinstance(event, HandShown) and current is not None:
                assert current.result is not None and event.seat in current.result.winners
                assert current.result.outcome is Outcome.UNCONTESTED
                current.volunteered[event.seat] = (index, set(event.hand))
            elif isinstance(event, Misdealt | SessionEnded) and current is not None:
                current.end = index
        self.results = [event_to_dict(e) for e in events if isinstance(e, RoundResolved)]

    @property
    def sealed(self) -> bool:
        """Other seats' declarations are hidden until the reveal."""
        return self.rules.declaration != "sequential"

    def round_at(self, index: int) -> Round | None:
        """The round event ``index`` belongs to (``None`` before the first deal)."""
        found = None
        for r in self.rounds:
            if r.dealt_at <= index:
                found = r
        return found

    def giver(self, r: Round, seat: int) -> int | None:
        """The seat dealt in on ``seat``'s right, who passes to it."""
        dealt = [s for s, h in enumerate(r.hands) if h is not None]
        if seat not in dealt or len(dealt) < 2:
            return None
        return dealt[dealt.index(seat) - 1]

    def allowed(self, r: Round | None, viewer: int | None, index: int) -> set[Card]:
        """The cards of round ``r`` that ``viewer`` may know once event ``index`` (of the
        full history) has happened."""
        if r is None or index < r.dealt_at:
            return set()
        known: set[Card] = set()
        own = r.hands[viewer] if viewer is not None and viewer < len(r.hands) else None
        if own and not self.rules.no_peek:
            known |= set(own)
            if r.passes is not None and r.passed_at is not None and index >= r.passed_at:
                giver = self.giver(r, viewer) if viewer is not None else None
                if giver is not None and r.passes[giver] is not None:
                    known.add(r.passes[giver])  # type: ignore[arg-type]
        if r.result_at is not None and index >= r.result_at:
            known |= r.public_cards()
        if r.shown_at is not None and index >= r.shown_at:
            known |= r.companion_cards()
        for at, cards in r.volunteered.values():  # shown by the winner's choice
            if index >= at:
                known |= cards
        return known

    def allowed_in_phase(self, number: int, viewer: int | None, phase: str) -> set[Card]:
        """The cards of round ``number`` ``viewer`` may know while it is in ``phase``
        (``"pass"``: before the exchange; ``"declare"``: after it, before the reveal;
        ``"deal"``/``"over"``: after the round)."""
        r = self.round(number)
        if r is None:
            return set()
        if phase == "pass":
            return self.allowed(r, viewer, r.dealt_at)
        if phase == "declare":
            at = r.passed_at if r.passed_at is not None else r.dealt_at
            return self.allowed(r, viewer, at)
        return self.allowed(r, viewer, len(self.events))

    def round(self, number: int) -> Round | None:
        return self.rounds[number - 1] if 1 <= number <= len(self.rounds) else None

    # -- checks ---------------------------------------------------------------------------

    def check_public_results(self) -> None:
        """The public result of a round shows only what the rules show: the hands of the
        seats in at a showdown, the hands compared in a void round whose best hand pays
        the antes (``all_out = "best_pays_antes"``)."""
        for r in self.rounds:
            result = r.result
            if result is None:
                continue
            declared = next((e for e in self.events[r.dealt_at:r.result_at]
                             if isinstance(e, DeclarationsRevealed)), None)
            assert declared is not None
            for seat, hand in enumerate(result.shown):
                if hand is None:
                    continue
                was_in = declared.declarations[seat] in IN_DECLARATIONS
                if result.outcome is Outcome.SHOWDOWN:
                    assert was_in, f"round {r.number}: seat {seat} was out and is shown"
                else:  # everyone out under best_pays_antes: the hands are compared
                    assert result.outcome is Outcome.VOID and result.ante_payers, (
                        f"round {r.number}: seat {seat} is shown in a {result.outcome.value} "
                        "round")

    def check_record(self, index: int, record: Any, viewer: int | None, where: str) -> None:
        """``record`` is ``viewer``'s copy of event ``index``."""
        data = record if isinstance(record, dict) else event_to_dict(record)
        kind = data["type"]
        original = type(self.events[index]).__name__
        assert kind == original or (kind, original) in {
            ("DeclarationSealed", "Declared"), ("PassSealed", "PassChosen"),
            ("PassSeen", "CardsPassed")}, f"{where}: {kind} stands for {original}"
        if kind == "Declared" and self.sealed:
            assert data["seat"] == viewer, (
                f"{where}: seat {viewer} sees seat {data['seat']}'s sealed declaration")
        if kind == "PassChosen":
            assert data["seat"] == viewer, f"{where}: {viewer} sees another seat's pass"
        assert kind != "CardsPassed", f"{where}: the whole exchange is shown to {viewer}"
        r = self.round_at(index)
        leaked = cards_in(data) - self.allowed(r, viewer, index)
        assert not leaked, (f"{where}: {viewer} may not see {sorted(map(card_name, leaked))} "
                            f"(event {index}, {original})")

    def check_history(self, records: Sequence[Any], viewer: int | None, where: str) -> None:
        """A whole copy of the history (one record per event)."""
        assert len(records) == len(self.events), f"{where}: {len(records)} records"
        for index, record in enumerate(records):
            self.check_record(index, record, viewer, f"{where} line {index + 1}")

    def check_table(self, table: dict[str, Any], viewer: int | None, where: str) -> None:
        """A :class:`~gutskit.server.protocol.TableView` (JSON) sent to ``viewer``."""
        phase, number = table["phase"], table["round"]
        assert table["seat"] == (-1 if viewer is None else viewer), where
        private = {k: table.get(k) for k in ("hand", "passed_card", "received_card")}
        leaked = cards_in(private) - self.allowed_in_phase(number, viewer, phase)
        assert not leaked, f"{where}: {viewer} may not see {sorted(map(card_name, leaked))}"
        if phase in ("deal", "over"):
            assert table["hand"] is None and table.get("passed_card") is None, where
        if phase == "pass":
            assert table.get("received_card") is None, where
        result = table["last_result"]
        if result is not None:
            assert result in self.results, f"{where}: a last_result that is not public"
            public = cards_in(result)
            extra = cards_in({k: table.get(k) for k in ("ghost", "community")}) - public
            assert not extra, f"{where}: ghost/community not from the public result"
        else:
            assert not table.get("ghost") and not table.get("community"), where
        if phase == "declare" and self.sealed:
            for seat, decl in enumerate(table["declarations"]):
                assert decl is None or seat == viewer, (
                    f"{where}: {viewer} sees seat {seat}'s sealed declaration {decl}")
        rest = {k: v for k, v in table.items() if k not in (
            "hand", "passed_card", "received_card", "last_result", "ghost", "community",
            "companion")}
        assert not cards_in(rest), f"{where}: cards in {rest}"
        self.check_companion(table.get("companion"), viewer, where)

    def check_companion(self, companion: dict[str, Any] | None, viewer: int | None,
                        where: str) -> None:
        """Companion mode: the cards entered at a showdown before it is settled are seen
        only by whoever entered them (a seat its own; the host, seat 0, also those it
        entered for others); everything else in the companion view is free of cards."""
        if companion is None:
            return
        showdown = companion.get("showdown")
        if showdown is None:
            assert not cards_in(companion), f"{where}: cards in {companion}"
            return
        entries = {k: showdown.get(k) for k in ("mine", "my_ghost", "my_community")}
        rest = {k: v for k, v in showdown.items() if k not in entries}
        assert not cards_in(rest), f"{where}: cards in {rest}"
        if viewer is None:
            assert not cards_in(entries), f"{where}: a spectator sees entries {entries}"
        elif viewer != 0:
            assert all(e["seat"] == viewer for e in showdown["mine"]), (
                f"{where}: seat {viewer} sees another seat's entry {showdown['mine']}")
            assert showdown.get("my_ghost") is None and showdown.get("my_community") is None

    def check_view(self, index: int, view: Any, viewer: int | None, where: str) -> None:
        """A :class:`~gutskit.core.views.SeatView` of the state after event ``index``."""
        cards = set(view.hand or ()) | {c for c in (view.passed, view.received)
                                         if c is not None}
        leaked = cards - self.allowed(self.round_at(index), viewer, index)
        assert not leaked, f"{where}: {viewer} may not see {sorted(map(card_name, leaked))}"
        results = [e for e in self.events[:index + 1] if isinstance(e, RoundResolved)]
        assert view.last_result == (results[-1] if results else None), where
        if self.sealed:
            for seat, decl in enumerate(view.declarations):
                assert decl is None or seat == viewer, (
                    f"{where}: {viewer} sees seat {seat}'s sealed declaration")
        if viewer is None:
            assert view.hand is None and view.passed is None and view.received is None

    def check_opening(self, number: int, opened: Iterable[dict[str, Any]], where: str
                      ) -> None:
        """The public opening of round ``number``: only cards its result shows, and the
        hand its uncontested winner chose to show (a ``HandShown``: its positions are added
        to the round's opening, ``Room._open_shown``)."""
        r = self.round(number)
        cards = {parse_card(o["card"]) for o in opened}
        public = set() if r is None else r.public_cards().union(
            *(hand for _, hand in r.volunteered.values()))
        leaked = cards - public
        assert not leaked, f"{where}: round {number} opens {sorted(map(card_name, leaked))}"

    def check_own_openings(self, number: int, own: Iterable[dict[str, Any]],
                           viewer: int | None, where: str) -> None:
        """A seat's openings of its own cards: only cards it may know."""
        cards = {parse_card(o["card"]) for o in own}
        leaked = cards - self.allowed_in_phase(number, viewer, "over")
        assert not leaked, f"{where}: round {number} opens {sorted(map(card_name, leaked))}"
