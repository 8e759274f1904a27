"""Whose turn it is (``gutskit.core.table.turn``): only under in-turn declaration. Under
simultaneous declaration and 1-2-3 drop the seat left to declare has no "turn": the
browser said "Ana's turn to declare." during a companion drop count (the last fist not in
read as a turn), because it took a single seat in ``to_act`` for a turn."""

from __future__ import annotations

import random
from pathlib import Path

from gutskit.core import table as driver
from gutskit.core.engine import new_session
from gutskit.core.events import Declaration
from gutskit.core.rules import Rules
from gutskit.core.views import seat_viewer, view
from gutskit.server.rooms import table_fields

NAMES = ["Ana", "Ben", "Cleo"]
OUT = Declaration.OUT


def test_sequential_declaration_has_a_turn_from_the_dealers_left() -> None:
    """Cleo deals (seat 2): Ana (her left) declares first, then Ben; Cleo last."""
    state = new_session(NAMES, 10, dealer=2, rules=Rules(declaration="sequential"))
    assert driver.turn(state) is None  # between rounds
    state, _ = driver.deal(state, rng=random.Random(1))
    assert driver.turn(state) == 0
    state, _ = driver.declare(state, 0, OUT)
    assert driver.turn(state) == 1
    state, _ = driver.declare(state, 1, OUT)
    assert driver.turn(state) == 2 and driver.waiting_for(state) == (2,)


def test_no_turn_under_simultaneous_or_drop_declaration_even_with_one_seat_left() -> None:
    for rules, companion in ((Rules(), False), (Rules(declaration="drop"), True)):
        state = new_session(NAMES, 10, dealer=2, rules=rules, companion=companion)
        state, _ = driver.deal(state, rng=random.Random(1))
        state, _ = driver.declare(state, 0, OUT)
        state, _ = driver.declare(state, 1, OUT)
        assert driver.waiting_for(state) == (2,)  # the table still waits for Cleo
        assert driver.turn(state) is None, rules.declaration
        fields = table_fields(state, view(state, seat_viewer(0)), None)
        assert (fields["to_act"], fields["turn"], fields["my_turn"]) == ([2], None, False)


def test_the_browser_names_a_turn_only_from_turn() -> None:
    app = (Path(__file__).parent.parent / "src" / "gutskit" / "server" / "static"
           / "app.js").read_text(encoding="utf-8")
    assert 't("turn_of", { name: table.names[table.turn] })' in app
    assert "toAct.length === 1" not in app
