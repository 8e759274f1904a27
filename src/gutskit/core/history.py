"""Hand histories as JSON: every event to a plain object and back.

One event is one JSON object with a ``"type"`` (the event class name) and its fields; cards
are written as space-separated names (``"As Kd Qh"``), declarations and outcomes as their
names, rules as the house-rule table. A history file is JSON Lines, one event per line.

A viewer's copy of a history (:func:`gutskit.core.views.redacted_history`: what a seat or a
spectator downloads) holds the same events with what it may not see left out, and three
*redactions* in place of events it may not read: :class:`DeclarationSealed`,
:class:`PassSealed`, :class:`PassSeen`. :func:`record_from_dict` reads both kinds;
:func:`event_from_dict` full histories only. Files are read and written by the shell
(:mod:`gutskit.io.files`: ``load_records``, ``load_history``, ``dump_history``), which
parses their text with :func:`parse_lines`.

>>> from gutskit.core.events import Declared, Declaration
>>> event_to_dict(Declared(2, Declaration.IN))
{'type': 'Declared', 'seat': 2, 'declaration': 'in'}
>>> event_from_dict({'type': 'Declared', 'seat': 2, 'declaration': 'in'})
Declared(seat=2, declaration=<Declaration.IN: 'in'>)
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeAlias

from pydantic import TypeAdapter, ValidationError

from gutskit.core.cards import Card, CardError, card_name, format_cards, parse_card, parse_cards
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
    HandShown,
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
from gutskit.core.limits import has_control_character
from gutskit.core.rules import Rules, RulesError, rules_from_mapping


@dataclass(frozen=True, slots=True)
class DeclarationSealed:
    """A viewer's copy of another seat's :class:`~gutskit.core.events.Declared` under sealed
    declaration: that seat has declared; what it declared is hidden until
    :class:`~gutskit.core.events.DeclarationsRevealed`."""

    seat: int


@dataclass(frozen=True, slots=True)
class PassSealed:
    """A viewer's copy of another seat's :class:`~gutskit.core.events.PassChosen` (Pass the
    Trash): that seat has chosen the card it passes; which card is hidden."""

    seat: int


@dataclass(frozen=True, slots=True)
class PassSeen:
    """A viewer's copy of :class:`~gutskit.core.events.CardsPassed` (Pass the Trash): the
    viewer's share of the exchange, the card ``seat`` passed and the card it received
    (both ``None`` for a seat not dealt in, and for a spectator, whose ``seat`` is -1)."""

    seat: int
    passed: Card | None
    received: Card | None


Redaction: TypeAlias = DeclarationSealed | PassSealed | PassSeen
"""What stands in a viewer's copy of a history for an event it may not read."""

Record: TypeAlias = Event | Redaction
"""A line of a hand history: an event, or (in a viewer's copy) a redaction."""

EVENT_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (SessionStarted, AntesPosted, CardsDealt, PassChosen, CardsPassed, Declared,
                DeclarationsRevealed, RoundResolved, Misdealt, Rebought, SatOut, SessionEnded,
                SeatAway, SeatBack, SeatLeft, SeatRemoved, CardsShown, WinnersNamed,
                RoundUndone, HandShown)
}

REDACTION_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls for cls in (DeclarationSealed, PassSealed, PassSeen)}

_CARD_FIELDS = frozenset({"card", "passed", "received"})
"""Single cards (``None`` = none, for ``passed`` and ``received``)."""

_HAND_FIELDS = frozenset({"ghost", "community", "hand"})
"""Single hands (``ghost``, ``community``: ``None`` = none; ``hand``: HandShown)."""


class HistoryError(GutsError):
    """A hand-history record that cannot be read; the message names the record."""


def _hand_out(hand: tuple[int, ...] | None) -> str | None:
    return None if hand is None else format_cards(hand)


def _hand_in(text: str | None) -> tuple[int, ...] | None:
    return None if text is None else parse_cards(text)


def _card_in(value: object) -> Card | None:
    """A card name (or, as written by gutskit 0.1's ``PassSeen``, a card code 0-51)."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 52:
        return value
    if not isinstance(value, str):
        raise CardError(f"{value!r} is not a card")
    return parse_card(value)


def _encode_plain(value: Any) -> Any:
    """The JSON form of a field without an encoder of its name's own."""
    if type(value) in _AS_IS or value is None:  # most fields: a seat, a count, a name
        return value
    if isinstance(value, Rules):
        return value.to_dict()
    if isinstance(value, Declaration | Outcome):
        return value.value
    if isinstance(value, tuple):
        return list(value)
    return value


_AS_IS = frozenset({int, str, bool, float})
"""The types (exactly these, not their subclasses, such as an enum) a field is written as."""


def _card_out(card: Card | None) -> str | None:
    return None if card is None else card_name(card)


_FIELD_ENCODERS: dict[str, Callable[[Any], Any]] = {
    "hands": lambda value: [_hand_out(h) for h in value],
    "shown": lambda value: [_hand_out(h) for h in value],
    "losers": lambda value: None if value is None else list(value),
    **{name: _hand_out for name in ("ghost", "community", "hand")},
    **{name: _card_out for name in ("card", "passed", "received")},
    "passes": lambda value: [_card_out(c) for c in value],
    "declarations": lambda value: [None if d is None else d.value for d in value],
}
"""The fields encoded by their name (cards, hands, declarations: the types their names
always hold in events and redactions); every other field by its value
(:func:`_encode_plain`)."""
assert _FIELD_ENCODERS.keys() >= _HAND_FIELDS | _CARD_FIELDS


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
    if name in _CARD_FIELDS:
        return _card_in(value)
    if name == "passes":
        return tuple(None if c is None else parse_card(c) for c in value)
    if name == "declarations":
        return tuple(None if d is None else Declaration(d) for d in value)
    if isinstance(value, list):
        return tuple(value)
    return value


_WRITTEN_WHEN_SET = frozenset({("SessionStarted", "companion"),
                               ("RoundResolved", "failed_high"), ("RoundResolved", "failed_low")})
"""Fields added later that are written only when they differ from their default (a
history without them reads the same, and older histories are written unchanged)."""


def event_to_dict(event: Record) -> dict[str, Any]:
    """A JSON-ready object for ``event`` (an event or a redaction)."""
    kind = type(event)
    plan = _PLANS.get(kind)
    if plan is None:
        plan = _PLANS[kind] = _plan_of(kind)
    out: dict[str, Any] = {"type": kind.__name__}
    for name, encoder, default in plan:
        value = getattr(event, name)
        if default is not _ALWAYS and value == default:
            continue
        out[name] = _encode_plain(value) if encoder is None else encoder(value)
    return out


_ALWAYS = object()
"""The default of a field that is written whatever its value (:data:`_PLANS`)."""

_PLANS: dict[type, tuple[tuple[str, Callable[[Any], Any] | None, Any], ...]] = {}
"""Event or redaction class -> its fields in order, each with its encoder (``None``: by
value) and the default it is left out at (:data:`_WRITTEN_WHEN_SET`; else
:data:`_ALWAYS`): worked out once per class, not once per event."""


def _plan_of(kind: type) -> tuple[tuple[str, Callable[[Any], Any] | None, Any], ...]:
    return tuple((field.name, _FIELD_ENCODERS.get(field.name),
                  field.default if (kind.__name__, field.name) in _WRITTEN_WHEN_SET
                  else _ALWAYS)
                 for field in dataclasses.fields(kind))


def event_from_dict(data: dict[str, Any]) -> Event:
    """The event written by :func:`event_to_dict`.

    Raises:
        HistoryError: not a JSON object with a known ``"type"``, a missing or bad field (the
            message names the event type and the field, and quotes what it found).
    """
    if not isinstance(data, dict) or data.get("type") not in EVENT_TYPES:
        kind = data.get("type") if isinstance(data, dict) else data
        if isinstance(kind, str) and kind in REDACTION_TYPES:
            raise HistoryError(f"{kind!r} is a redaction of a viewer's copy of a history, "
                               "not an event: this reader needs the full history")
        if not isinstance(data, dict):
            raise HistoryError("not a hand-history event (a JSON object with a \"type\"): "
                               f"found {found(data)}")
        if "type" not in data:
            raise HistoryError(f"an object without a \"type\" is not a hand-history event: "
                               f"found {found(data)}")
        raise HistoryError(f"unknown hand-history event type {found(kind)}")
    event: Event = _decoded(data, EVENT_TYPES[data["type"]])
    if isinstance(event, SessionStarted):
        for name in event.names:
            if has_control_character(name):  # it would reach a terminal or a page raw
                raise HistoryError(f"the SessionStarted event's field 'names' is bad: name "
                                   f"{found(name)} has a control character")
    return event


def found(value: object, limit: int = 60) -> str:
    """``value`` as the JSON text a user wrote (``null``, ``[1, 2]``, ``"Ben"``), cut to
    about ``limit`` characters: how an error message quotes what it found in a file."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def record_from_dict(data: dict[str, Any]) -> Record:
    """An event or a redaction, as written by :func:`event_to_dict`.

    >>> record_from_dict({"type": "PassSeen", "seat": 1, "passed": "2c", "received": "As"})
    PassSeen(seat=1, passed=0, received=51)

    Raises:
        HistoryError: unknown type, missing or bad field.
    """
    kind = data.get("type") if isinstance(data, dict) else None
    if isinstance(kind, str) and kind in REDACTION_TYPES:
        record: Redaction = _decoded(data, REDACTION_TYPES[kind])
        return record
    return event_from_dict(data)


def _decoded(data: dict[str, Any], cls: Any) -> Any:
    kind = data["type"]
    fields = dataclasses.fields(cls)
    # Fields added by later versions have defaults: older histories leave them out.
    missing = [f.name for f in fields if f.name not in data
               and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    if missing:
        raise HistoryError(f"the {kind} event lacks the field{'s' if len(missing) > 1 else ''} "
                           + ", ".join(repr(name) for name in missing))
    kwargs = {}
    for f in fields:
        if f.name not in data:
            continue
        try:
            kwargs[f.name] = _decode(data[f.name], f.name)
        except (KeyError, TypeError, ValueError, AttributeError, CardError,
                RulesError) as error:
            raise HistoryError(f"the {kind} event's field {f.name!r} is bad: {error} "
                               f"(found {found(data[f.name])})") from None
    try:
        record = _adapter(cls).validate_python(kwargs)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(p) for p in problem["loc"])
        raise HistoryError(f"the {kind} event's field {where!r} is bad: {problem['msg']} "
                           f"(found {found(problem.get('input'))})") from None
    return record


@cache
def _adapter(cls: Any) -> TypeAdapter[Any]:
    """A pydantic validator of the event class's field types (seat numbers are ints, hands
    are tuples of card codes, ...), so a corrupt record fails here, not during replay."""
    return TypeAdapter(cls)


def json_error(error: json.JSONDecodeError, *, line: bool = True) -> str:
    """Where and why a text is not JSON, in words: ``Expecting value at line 1, column 5``;
    a message that already ends in "at" (``Unterminated string starting at``) is not given
    a second one.

    >>> try:
    ...     json.loads('["ab')
    ... except json.JSONDecodeError as error:
    ...     print(json_error(error), "/", json_error(error, line=False))
    Unterminated string starting at line 1, column 2 / Unterminated string starting at column 2
    """
    at = "" if error.msg.endswith(" at") else " at"
    where = f"line {error.lineno}, column {error.colno}" if line else f"column {error.colno}"
    return f"{error.msg}{at} {where}"


def parse_lines(text: str, where: str,
                read: Callable[[Any], Any] = record_from_dict) -> list[Any]:
    """The records of a hand history ``text``: JSON Lines, one event per line (blank lines
    skipped), or one JSON document that is an array of events (a pretty-printed history,
    fresh8's ``case.json``).

    Args:
        text: the file's text.
        where: how messages name the file (its path, ``"stdin"``).
        read: one line's JSON value -> its record (default :func:`record_from_dict`: events
            and redactions; :func:`event_from_dict`: full histories only).

    Raises:
        HistoryError: one line, ``"FILE: event K (line N): ..."``, naming the first line
            that is not JSON or not a valid record, and the field that is missing or bad;
            for a JSON document over several lines that is not an array of events
            (a referee file, say): ``"FILE is one JSON document (an object ...), not a hand
            history: ..."``.
    """
    document = _document(text, where)
    if document is not None:
        records: list[Any] = []
        for number, value in enumerate(document, 1):
            try:
                records.append(read(value))
            except HistoryError as error:
                raise HistoryError(f"{where}: event {number} (item {number} of the JSON "
                                   f"array): {error}") from None
        return records
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        here = f"{where}: event {len(records) + 1} (line {number})"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise HistoryError(f"{here}: not valid JSON ({json_error(error, line=False)})"
                               ) from None
        except (RecursionError, ValueError):
            raise HistoryError(f"{here}: not a hand-history event (nested too deeply, "
                               "or a number too long)") from None
        try:
            records.append(read(value))
        except HistoryError as error:
            raise HistoryError(f"{here}: {error}") from None
    return records


def _document(text: str, where: str) -> list[Any] | None:
    """The events of ``text`` when it is one JSON document: an array (its items, on one
    line or several), or ``None`` for JSON Lines (or for text that is JSON in neither form:
    the line reader names the bad line).

    Raises:
        HistoryError: the document is an object over several lines (a referee file, say);
            the message names its first keys and the forms a history may have.
    """
    start = text.lstrip()[:1]
    lines = [line for line in text.splitlines() if line.strip()]
    if start != "[" and (start != "{" or len(lines) < 2):
        return None
    if start == "{":
        try:
            json.loads(lines[0])
            return None  # the first line is JSON by itself: JSON Lines
        except (ValueError, RecursionError):
            pass
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, list):
        return value
    if not isinstance(value, dict):
        return None
    keys = ", ".join(found(key, 20) for key in list(value)[:4]) + (
        ", ..." if len(value) > 4 else "")
    hint = (f"; a referee file is checked with 'guts referee {where}'"
            if "input" in value or "players" in value else "")
    raise HistoryError(f"{where} is one JSON document (an object with keys {keys}), not a "
                       "hand history: a hand history is JSON Lines, one event object per "
                       f"line ('guts history ID --json'), or a JSON array of events{hint}")
