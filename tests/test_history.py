"""Hand histories (issue 2, part 4): every event to JSON and back, replay, bad records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import IN, OUT, assert_subset, bot_session

from gutskit.core.cards import parse_cards
from gutskit.core.engine import replay
from gutskit.core.events import (
    AntesPosted,
    CardsDealt,
    DeclarationsRevealed,
    Declared,
    Event,
    Outcome,
    RoundResolved,
    SessionEnded,
    SessionStarted,
)
from gutskit.core.history import (
    EVENT_TYPES,
    HistoryError,
    event_from_dict,
    event_to_dict,
)
from gutskit.core.rules import Rules, preset
from gutskit.io.files import dump_history, load_history

ONE_OF_EACH: list[Event] = [
    SessionStarted(rules=preset("indonesian").replace(pot_cap=40, pot_cap_mode="reserve"),
                   names=("Ana", "Ben", "Cleo"), stacks=(20, 0, 35), dealer=2, pot=5,
                   reserve=3),
    AntesPosted(amounts=(1, 0, 1), refill=3, new_game=True),
    CardsDealt(hands=(parse_cards("As Kd"), None, ())),
    Declared(0, IN),
    Declared(2, OUT),
    DeclarationsRevealed((IN, None, OUT)),
    RoundResolved(outcome=Outcome.SHOWDOWN, shown=(parse_cards("As Kd"), None, None),
                  winners=(0,), won=(7, 0, 0), matched=(0, 0, 7), eliminated=(2,),
                  to_reserve=1, pot_after=6, next_dealer=0, session_over=True),
    RoundResolved(outcome=Outcome.VOID, shown=(None, None, None), winners=(), won=(0, 0, 0),
                  matched=(0, 0, 0), eliminated=(), to_reserve=0, pot_after=3,
                  next_dealer=2, session_over=False),
    SessionEnded(reason="the table agreed to stop", payouts=(2, 0, 1)),
]


def test_every_event_type_of_the_standard_game_is_covered() -> None:
    # issue 2's records; the variants (issue 3) add their own
    assert {type(e).__name__ for e in ONE_OF_EACH} == {
        "SessionStarted", "AntesPosted", "CardsDealt", "Declared", "DeclarationsRevealed",
        "RoundResolved", "SessionEnded"}
    assert {type(e).__name__ for e in ONE_OF_EACH} <= set(EVENT_TYPES)


@pytest.mark.parametrize("event", ONE_OF_EACH, ids=lambda e: type(e).__name__)
def test_event_round_trip(event: Event) -> None:
    data = event_to_dict(event)
    assert data["type"] == type(event).__name__
    # through real JSON text, as a hand-history file holds it
    assert event_from_dict(json.loads(json.dumps(data))) == event


def test_event_records_by_hand() -> None:
    # only the standard game's keys are checked: variant fields may be added
    assert_subset(event_to_dict(ONE_OF_EACH[2]), {"type": "CardsDealt",
                                                  "hands": ["As Kd", None, ""]})
    assert_subset(event_to_dict(ONE_OF_EACH[5]), {"type": "DeclarationsRevealed",
                                                  "declarations": ["in", None, "out"]})
    resolved = event_to_dict(ONE_OF_EACH[6])
    assert_subset(resolved, {
        "type": "RoundResolved", "outcome": "showdown", "shown": ["As Kd", None, None],
        "winners": [0], "won": [7, 0, 0], "matched": [0, 0, 7], "eliminated": [2],
        "to_reserve": 1, "pot_after": 6, "next_dealer": 0, "session_over": True,
    })
    started = event_to_dict(ONE_OF_EACH[0])
    assert started["rules"]["declaration"] == "sequential"
    assert started["rules"]["pot_cap"] == 40
    assert (started["names"], started["stacks"], started["dealer"]) == (
        ["Ana", "Ben", "Cleo"], [20, 0, 35], 2)


def test_a_whole_session_round_trips_and_replays(tmp_path: Path) -> None:
    rules = Rules(cards_per_hand=2, pot_cap=30, pot_cap_mode="reserve", shortfall="debt")
    state, events = bot_session(rules, [30, 25, 40, 10], seed=8, max_rounds=40)
    kinds = {type(e) for e in events}
    assert {SessionStarted, AntesPosted, CardsDealt, DeclarationsRevealed, RoundResolved,
            SessionEnded} <= kinds
    decoded = [event_from_dict(json.loads(json.dumps(event_to_dict(e)))) for e in events]
    assert decoded == events
    assert replay(decoded) == state
    path = tmp_path / "session.jsonl"
    dump_history(events, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(events)
    assert json.loads(lines[0])["type"] == "SessionStarted"
    assert load_history(path) == events
    assert replay(load_history(path)) == state


def test_load_history_skips_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(json.dumps(event_to_dict(e)) for e in ONE_OF_EACH[:3]) + "\n\n",
                    encoding="utf-8")
    assert load_history(path) == ONE_OF_EACH[:3]


BAD_RECORDS: list[tuple[Any, str]] = [
    ({"type": "Shuffled"}, 'unknown hand-history event type "Shuffled"'),
    ({"seat": 1},
     'an object without a "type" is not a hand-history event: found {"seat": 1}'),
    ([1, 2], 'not a hand-history event (a JSON object with a "type"): found [1, 2]'),
    (None, 'not a hand-history event (a JSON object with a "type"): found null'),
    ({"type": "Declared", "seat": 1}, "the Declared event lacks the field 'declaration'"),
    ({"type": "AntesPosted"},
     "the AntesPosted event lacks the fields 'amounts', 'refill', 'new_game'"),
    ({"type": "Declared", "seat": 1, "declaration": "maybe"},
     "the Declared event's field 'declaration' is bad: 'maybe' is not a valid Declaration "
     '(found "maybe")'),
    ({"type": "CardsDealt", "hands": ["As Zz", None]},
     "the CardsDealt event's field 'hands' is bad: unknown card 'Zz'"),
    ({"type": "CardsDealt", "hands": ["As As", None]},
     "the CardsDealt event's field 'hands' is bad: duplicate card 'As' in 'As As' "
     '(found ["As As", null])'),
    ({"type": "RoundResolved", "outcome": "draw", "shown": [], "winners": [], "won": [],
      "matched": [], "eliminated": [], "to_reserve": 0, "pot_after": 0, "next_dealer": 0,
      "session_over": False},
     "the RoundResolved event's field 'outcome' is bad: 'draw' is not a valid Outcome"),
    ({"type": "SessionStarted", "rules": {"antes": 1}, "names": ["A", "B"], "stacks": [1, 1],
      "dealer": 0, "pot": 0, "reserve": 0},
     "the SessionStarted event's field 'rules' is bad: unknown house rule 'antes'"),
    ({"type": "DeclarationsRevealed", "declarations": ["in", "perhaps"]},
     "the DeclarationsRevealed event's field 'declarations' is bad: 'perhaps' is not a valid "
     'Declaration (found ["in", "perhaps"])'),
]


@pytest.mark.parametrize(("record", "message"), BAD_RECORDS)
def test_bad_records(record: Any, message: str) -> None:
    with pytest.raises(HistoryError) as info:
        event_from_dict(record)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_bad_lines_in_a_file_are_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = json.dumps(event_to_dict(ONE_OF_EACH[0]))
    path.write_text(good + "\n{not json\n", encoding="utf-8")
    with pytest.raises(HistoryError) as info:
        load_history(path)
    assert str(info.value) == (f"{path}: event 2 (line 2): not valid JSON (Expecting "
                               "property name enclosed in double quotes at column 2)")
    path.write_text(good + "\n\n" + json.dumps({"type": "Nope"}) + "\n", encoding="utf-8")
    with pytest.raises(HistoryError) as info:
        load_history(path)  # the blank line is skipped: event 2 is on line 3
    assert str(info.value) == f'{path}: event 2 (line 3): unknown hand-history event type "Nope"'
    antes = json.dumps({"type": "AntesPosted", "refill": 0, "new_game": True})
    path.write_text(good + "\n" + antes + "\n", encoding="utf-8")
    with pytest.raises(HistoryError) as info:
        load_history(path)
    assert str(info.value) == (f"{path}: event 2 (line 2): the AntesPosted event lacks the "
                               "field 'amounts'")


def test_missing_history_file(tmp_path: Path) -> None:
    with pytest.raises(HistoryError, match="cannot read hand history"):
        load_history(tmp_path / "missing.jsonl")


def test_a_field_of_the_wrong_type_is_a_history_error() -> None:
    """A corrupt record fails when read, naming the field, not later during replay."""
    with pytest.raises(HistoryError, match=r"field 'seat' is bad: .*\(found \"x\"\)"):
        event_from_dict({"type": "Declared", "seat": "x", "declaration": "in"})
