"""A hand history with seats away, back and gone, and a hand shown after an uncontested
win, replays through the referee file (:func:`gutskit.core.referee.referee_file`) and
``guts referee`` to the same stacks (issue 10). Every stack is worked out by hand against
/work/shared/RULES.md (the table rules of away/leave: docs/companion.md, core/table.py)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_referee
from typer.testing import CliRunner

from gutskit.cli.app import app
from gutskit.core import table as driver
from gutskit.core.cards import parse_cards
from gutskit.core.engine import GameState, deal, evolve, start_event
from gutskit.core.events import Declaration, Event
from gutskit.core.referee import referee_file
from gutskit.io.files import dump_history

IN, OUT = Declaration.IN, Declaration.OUT


class Table:
    """A session driven through the table driver, its history kept."""

    def __init__(self, names: list[str], stacks: int, *, companion: bool = False) -> None:
        start = start_event(names, stacks, companion=companion)
        self.state: GameState = evolve(None, start)
        self.events: list[Event] = [start]

    def do(self, result: tuple[GameState, list[Event]]) -> None:
        self.state, events = result
        self.events.extend(events)

    def seat(self, name: str) -> int:
        return self.state.names.index(name)

    def stacks(self) -> dict[str, int]:
        return dict(zip(self.state.names, self.state.stacks, strict=True))


def test_a_companion_session_with_seats_away_back_and_gone_replays() -> None:
    t = Table(["Ana", "Ben", "Cleo", "Dan"], 20, companion=True)
    # 1. Ana deals: antes 1 each -> 19 x 4, pot 4. Ben alone in: +4 (23). Pot 0.
    t.do(driver.deal(t.state))
    t.do(driver.declare_all(t.state, {0: OUT, 1: IN, 2: OUT, 3: OUT}))
    # Dan goes away between rounds: dealt out from the next deal.
    t.do(driver.sit_out(t.state, 3))
    # 2. Ben deals Ana, Ben, Cleo: antes -> 18, 22, 18 (Dan 19), pot 3. Ana and Cleo in:
    #    Cleo's queens beat Ana's ace high: Cleo +3 (21), Ana matches 3 (15). Pot 3.
    t.do(driver.deal(t.state))
    t.do(driver.declare_all(t.state, {0: IN, 1: OUT, 2: IN}))
    t.do(driver.show_cards(t.state, {0: parse_cards("Ah Kd 2c"), 2: parse_cards("Qh Qc 3d")}))
    assert t.stacks() == {"Ana": 15, "Ben": 22, "Cleo": 21, "Dan": 19} and t.state.pot == 3
    # Dan may not come back in the middle of a game (the pot of 3 is still played).
    assert driver.can_come_back(t.state, 3) is not None
    # 3. Cleo deals; no ante (pot 3). Ben leaves for good during the round (his
    #    declaration: out); Ana's aces beat Cleo's kings: Ana +3 (18), Cleo matches 3 (18).
    t.do(driver.deal(t.state))
    t.do(driver.leave(t.state, 1))
    t.do(driver.declare_all(t.state, {0: IN, 1: OUT, 2: IN}))
    t.do(driver.show_cards(t.state, {0: parse_cards("As Ad 2s"), 2: parse_cards("Kh Kd 3c")}))
    assert t.stacks() == {"Ana": 18, "Ben": 22, "Cleo": 18, "Dan": 19} and t.state.pot == 3
    # 4. Ana and Cleo dealt (Dan away, Ben gone); Ana alone in: +3 (21). Pot 0.
    t.do(driver.deal(t.state))
    assert [h is not None for h in t.state.hands] == [True, False, True, False]
    t.do(driver.declare_all(t.state, {0: IN, 2: OUT}))
    assert t.stacks() == {"Ana": 21, "Ben": 22, "Cleo": 18, "Dan": 19} and t.state.pot == 0
    # A new game: Dan comes back. 5. Antes from Ana, Cleo, Dan -> 20, 17, 18, pot 3; Dan
    #    alone in: +3 (21). Pot 0.
    t.do(driver.come_back(t.state, 3))
    t.do(driver.deal(t.state))
    t.do(driver.declare_all(t.state, {0: OUT, 2: OUT, 3: IN}))
    # Cleo leaves after the last round; the table ends: nothing left to share.
    t.do(driver.leave(t.state, 2))
    t.do(driver.end(t.state, "the table agreed to stop"))
    final = {"Ana": 20, "Ben": 22, "Cleo": 17, "Dan": 21}  # 80 chips, as bought in
    assert t.stacks() == final
    data = referee_file(t.events)
    assert [r.get("away") for r in data["rounds"]] == [None, ["Dan"], None, None, None]
    assert [r.get("back") for r in data["rounds"]] == [None, None, None, None, ["Dan"]]
    assert data["rounds"][2]["left_during"] == ["Ben"] and data["left"] == ["Cleo"]
    settled = run_referee(data)
    assert settled["stacks"] == final
    assert settled["ledger"]["Cleo"] == {"buy_in": 20, "stack": 17, "net": -3}
    assert [r["antes"] for r in settled["rounds"]][1] == {"Ana": 1, "Ben": 1, "Cleo": 1}


def test_a_hand_shown_after_an_uncontested_win_replays(tmp_path: Path) -> None:
    t = Table(["Ana", "Ben"], 10)
    # 1. Antes -> 9, 9, pot 2. Ana alone in takes it (11) and shows her pair of kings.
    t.do(deal(t.state, [parse_cards("Kh Kd 4c"), parse_cards("7s 5d 2h")]))
    t.do(driver.declare_all(t.state, {0: IN, 1: OUT}))
    t.do(driver.show_hand(t.state, 0))
    # 2. Antes -> 10, 8, pot 2. Both in: Ben's straight beats Ana's ace high: Ben +2 (10),
    #    Ana matches 2 (8). Pot 2.
    t.do(deal(t.state, [parse_cards("Ah 9d 3c"), parse_cards("4s 5s 6d")]))
    t.do(driver.declare_all(t.state, {0: IN, 1: IN}))
    assert t.stacks() == {"Ana": 8, "Ben": 10} and t.state.pot == 2
    data = referee_file(t.events)
    assert data["rounds"][0]["shown"] == {"Ana": "Kh Kd 4c"}
    settled = run_referee(data)
    assert settled["stacks"] == {"Ana": 8, "Ben": 10} and settled["pot"] == 2
    assert settled["rounds"][0]["shown"] == {"Ana": "Kh Kd 4c"}
    # a shown hand she did not hold is refused, naming it
    data["rounds"][0]["shown"] = {"Ana": "As Ad 4c"}
    runner = CliRunner()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    result = runner.invoke(app, ["referee", str(bad)])
    assert result.exit_code == 2
    assert "round 1: shown by 'Ana': 'Ana' did not hold those cards" in result.output
    # guts referee reads the hand history itself
    history = tmp_path / "history.jsonl"
    dump_history(t.events, history)
    result = runner.invoke(app, ["referee", str(history), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["stacks"] == {"Ana": 8, "Ben": 10}
