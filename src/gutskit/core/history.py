"""Hand histories as JSON: every event to a plain object and back.

One event is one JSON object with a ``"type"`` (the event class name) and its fields; cards
are written as space-separated names (``"As Kd Qh"``), declarations and outcomes as their
names, rules as the house-rule table. A history file is JSON Lines, one event per line.

>>> from gutskit.core.events import Declared, Declaration
>>> event_to_dict(Declared(2, Declaration.IN))
{'type': 'Declared', 'seat': 2, 'declaration': 'in'}
>>> event_from_dict({'type': 'Declared', 'seat': 2, 'declaration': 'in'})
Declared(seat=2, declaration=<Declaration.IN: 'in'>)
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from gutskit.core.cards import CardError, card_name, format_cards, parse_card, parse_cards
from gutskit.core.errors import GutsError
from gutskit.core.events import (
    AntesPosted,
    CardsDealt,
    CardsPassed,
    Declaration,
    DeclarationsRevealed,
    Declared,
    Event,
    Misdealt,
    Outcome,
    PassChosen,
    Rebought,
    RoundResolved,
    SatOut,
    SessionEnded,
    SessionStarted,
)
from gutskit.core.rules import Rules, RulesError, rules_from_mapping

EVENT_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (SessionStarted, AntesPosted, CardsDealt, PassChosen, CardsPassed, Declared,
                DeclarationsRevealed, RoundResolved, Misdealt, Rebought, SatOut, SessionEnded)
}

_HAND_FIELDS = frozenset({"ghost", "community"})
"""Optional single hands (``None`` = none)."""


class HistoryError(GutsError):
    """A hand-history record that cannot be read; the message names the record."""


def _hand_out(hand: tuple[int, ...] | None) -> str | None:
    return None if hand is None else format_cards(hand)


def _hand_in(text: str | None) -> tuple[int, ...] | None:
    return None if text is None else parse_cards(text)


def _encode(value: Any, name: str) -> Any:
    if isinstance(value, Rules):
        return value.to_dict()
    if isinstance(value, Declaration | Outcome):
        return value.value
    if name in ("hands", "shown"):
        return [_hand_out(h) for h in value]
    if name in _HAND_FIELDS:
        return _hand_out(value)
    if name == "card":
        return card_name(value)
    if name == "passes":
        return [None if c is None else card_name(c) for c in value]
    if name == "declarations":
        return [None if d is None else d.value for d in value]
    if isinstance(value, tuple):
        return list(value)
    return value


def _decode(value: Any, name: str) -> Any:
    if name == "rules":
        return rules_from_mapping(value)
    if name == "declaration":
        return Declaration(value)
    if name == "outcome":
        return Outcome(value)
    if name in ("hands", "shown"):
        return tuple(_hand_in(h) for h in value)
    if name in _HAND_FIELDS:
        return _hand_in(value)
    if name == "card":
        return parse_card(value)
    if name == "passes":
        return tuple(None if c is None else parse_card(c) for c in value)
    if name == "declarations":
        return tuple(None if d is None else Declaration(d) for d in value)
    if isinstance(value, list):
        return tuple(value)
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready object for ``event``."""
    out: dict[str, Any] = {"type": type(event).__name__}
    for field in dataclasses.fields(event):
        out[field.name] = _encode(getattr(event, field.name), field.name)
    return out


def event_from_dict(data: dict[str, Any]) -> Event:
    """The event written by :func:`event_to_dict`.

    Raises:
        HistoryError: unknown type, missing or bad field.
    """
    if not isinstance(data, dict) or data.get("type") not in EVENT_TYPES:
        kind = data.get("type") if isinstance(data, dict) else data
        raise HistoryError(f"unknown hand-history event {kind!r}")
    cls: Any = EVENT_TYPES[data["type"]]
    try:
        # Fields added by later versions have defaults: older histories leave them out.
        kwargs = {f.name: _decode(data[f.name], f.name) for f in dataclasses.fields(cls)
                  if f.name in data or (f.default is dataclasses.MISSING
                                        and f.default_factory is dataclasses.MISSING)}
        event: Event = _adapter(cls).validate_python(kwargs)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(p) for p in problem["loc"])
        raise HistoryError(f"bad {data['type']} event: {where}: {problem['msg']} "
                           f"(got {problem.get('input')!r})") from None
    except (KeyError, TypeError, ValueError, CardError, RulesError) as error:
        raise HistoryError(f"bad {data['type']} event: {error}") from None
    return event


@cache
def _adapter(cls: Any) -> TypeAdapter[Any]:
    """A pydantic validator of the event class's field types (seat numbers are ints, hands
    are tuples of card codes, ...), so a corrupt record fails here, not during replay."""
    return TypeAdapter(cls)


def dump_history(events: Iterable[Event], path: str | Path) -> None:
    """Write ``events`` as JSON Lines to ``path``."""
    with Path(path).open("w", encoding="utf-8") as handle:
        for event in events:
            handle.write(json.dumps(event_to_dict(event)) + "\n")


def load_history(path: str | Path) -> list[Event]:
    """Read a JSON Lines hand history.

    Raises:
        HistoryError: the file cannot be read or a line is not a valid event (the message
            names the line).
    """
    events: list[Event] = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise HistoryError(f"cannot read hand history {str(path)!r}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise HistoryError(f"hand history {str(path)!r} is not a UTF-8 text file") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            events.append(event_from_dict(json.loads(line)))
        except (json.JSONDecodeError, HistoryError) as error:
            raise HistoryError(f"{path}:{number}: {error}") from None
    return events
