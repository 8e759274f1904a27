"""``guts verify``: check a room's deals from its revealed seeds.

Input: the room's ``fairness.json`` (``GET /api/rooms/<id>/fairness.json``: per round the
commitment published before the deal and, once revealed, the seed) and optionally the hand
history you downloaded (``history.jsonl``, your own view). For every revealed round the
check recomputes the deck from the seed (:func:`gutskit.server.fairness.deck_from_seed`)
and compares the commitment; with a history it also replays the session and checks that
every card you saw (your own hands, the hands shown at showdowns) is the card that deck
deals to that seat (:func:`gutskit.engine.hands_from_deck`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gutskit import engine
from gutskit.cards import format_cards
from gutskit.engine import GameState
from gutskit.events import CardsDealt, Event, Hand, RoundResolved
from gutskit.history import HistoryError, event_from_dict
from gutskit.server.fairness import FairnessError, deck_names, verify_commitment

__all__ = ["RoundCheck", "load_visible_history", "verify_rounds"]


@dataclass(frozen=True)
class RoundCheck:
    """The result for one round: ``status`` is ``"ok"`` or ``"unrevealed"``;
    ``cards_checked`` counts the cards compared with the history."""

    round: int
    status: str
    cards_checked: int
    top_cards: str


def load_visible_history(path: str | Path) -> list[Event]:
    """A downloaded hand history (JSON Lines); sealed declarations
    (``DeclarationSealed``) are skipped, unseen hands (``""``) read as ``()``.

    Raises:
        HistoryError: unreadable file or bad line (named).
    """
    events: list[Event] = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise HistoryError(f"cannot read hand history {str(path)!r}: {error.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if isinstance(data, dict) and data.get("type") == "DeclarationSealed":
                continue
            events.append(event_from_dict(data))
        except (json.JSONDecodeError, HistoryError) as error:
            raise HistoryError(f"{path}:{number}: {error}") from None
    return events


def _dealt_hands(events: Sequence[Event]) -> dict[int, tuple[GameState, list[Hand | None]]]:
    """Round number -> (state before its deal, every hand the history knows for it: the
    dealt hands it shows and the hands shown at the showdown)."""
    rounds: dict[int, tuple[GameState, list[Hand | None]]] = {}
    state: GameState | None = None
    for event in events:
        if isinstance(event, CardsDealt) and state is not None:
            number = state.round_number + 1
            rounds[number] = (state, list(event.hands))
        if isinstance(event, RoundResolved) and state is not None:
            known = rounds.get(state.round_number)
            if known is not None:
                for seat, shown in enumerate(event.shown):
                    if shown:
                        known[1][seat] = shown
        state = engine.evolve(state, event)
    return rounds


def verify_rounds(fairness: dict[str, Any], history: Sequence[Event] | None = None
                  ) -> list[RoundCheck]:
    """Check every round of ``fairness`` (the parsed ``fairness.json``).

    Raises:
        FairnessError: a malformed record, a commitment that does not match its seed, or
            a card in the history that the seed's deck does not deal (the message names the
            round, the seat and the cards).
    """
    records = fairness.get("rounds") if isinstance(fairness, dict) else None
    if not isinstance(records, list):
        raise FairnessError("a fairness file is an object with a \"rounds\" list")
    dealt = _dealt_hands(history) if history is not None else {}
    checks = []
    for record in records:
        if not isinstance(record, dict) or not isinstance(record.get("round"), int) \
                or not isinstance(record.get("commitment"), str):
            raise FairnessError(f"bad fairness record {record!r}")
        number = record["round"]
        seed = record.get("seed")
        if seed is None:
            checks.append(RoundCheck(number, "unrevealed", 0, ""))
            continue
        try:
            deck = verify_commitment(record["commitment"], str(seed))
        except FairnessError as error:
            raise FairnessError(f"round {number}: {error}") from None
        checked = 0
        if number in dealt:
            before, hands = dealt[number]
            expected = engine.hands_from_deck(before, deck)
            for seat, hand in enumerate(hands):
                if (hand is None) != (expected[seat] is None):
                    raise FairnessError(f"round {number}: seat {seat} dealt in/out differs "
                                        "from the deal the seed gives")
                if hand:
                    want = expected[seat]
                    assert want is not None
                    if tuple(hand) != tuple(want):
                        raise FairnessError(
                            f"round {number}: seat {seat} ({before.names[seat]!r}) holds "
                            f"{format_cards(hand)}, but the seed deals {format_cards(want)}")
                    checked += len(hand)
        checks.append(RoundCheck(number, "ok", checked, " ".join(deck_names(deck)[:6])))
    return checks
