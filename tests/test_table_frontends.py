"""Every preset of ``guts rules --list`` plays whole sessions through every front end that
runs the table driver (gutskit.core.table): the terminal through a pipe (``guts play``),
``guts sim`` and ``guts tournament``; each hand history replays to the final state and no
chip is created or destroyed. (The server over WebSocket: tests/test_server_table.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gutskit.cli.app import app
from gutskit.core.engine import GameState, Phase, replay
from gutskit.core.events import Event, Rebought, SessionEnded, SessionStarted
from gutskit.core.ledger import ledger
from gutskit.core.rules import PRESETS, preset
from gutskit.io.storage import open_store
from gutskit.strategy.simulation import simulate
from gutskit.strategy.tournament import run_tournament

RUNNER = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": "120",
                        "GUTSKIT_DB": None})
ALL = sorted(PRESETS)


def _sessions(log: list[Event]) -> list[list[Event]]:
    """A log of sessions back to back, split at each SessionStarted."""
    sessions: list[list[Event]] = []
    for event in log:
        if isinstance(event, SessionStarted):
            sessions.append([])
        sessions[-1].append(event)
    return sessions


def _check_ended(events: list[Event]) -> GameState:
    """The session replays, is over, and every chip bought in is in a stack."""
    state = replay(events)
    assert state.phase is Phase.OVER
    assert state.pot == 0 and state.reserve == 0
    assert sum(state.stacks) == sum(state.buy_ins)
    assert sum(line.net for line in ledger(state)) == 0
    return state


@pytest.mark.parametrize("name", ALL)
def test_sim_plays_whole_sessions(name: str) -> None:
    log: list[Event] = []
    summary = simulate(players=4, rounds=60, rules=preset(name), chips=20, seed=3,
                       history=log)
    sessions = _sessions(log)
    assert len(sessions) == summary.sessions
    for events in sessions:
        _check_ended(events)
    assert sum(summary.final_stacks.values()) == 80


@pytest.mark.parametrize("name", ALL)
def test_tournament_plays_whole_sessions(name: str) -> None:
    log: list[Event] = []
    result = run_tournament(["rule-of-thumb", "random", "loose"], sessions=2, rounds=40,
                            chips=20, seed=5, rules=preset(name), exploitability=False,
                            history=log)
    sessions = _sessions(log)
    assert len(sessions) == 2
    for events in sessions:
        _check_ended(events)
    assert result.rounds_played == sum(
        1 for events in sessions for e in events if type(e).__name__ == "CardsDealt")


@pytest.mark.parametrize("name", ALL)
def test_terminal_through_a_pipe_plays_a_whole_session(name: str, tmp_path: Path) -> None:
    db = tmp_path / "guts.db"
    # Each prompt finds a valid answer within the cycle (the other lines are refused and
    # asked again): a card to pass, in (high), yes to a rebuy, out.
    rules = preset(name)
    cycle = [*(["1"] if rules.pass_the_trash else []), "high" if rules.hi_lo else "in",
             *(["y"] if rules.rebuys else []), "out"]
    script = "\n".join(cycle * 3000) + "\n"
    chips = str(rules.min_buy_in or 10)
    result = RUNNER.invoke(app, ["play", "--players", "3", "--chips", chips, "--preset", name,
                                 "--seed", "12", "--db", str(db)], input=script)
    assert result.exit_code == 0, result.output
    assert "Ledger" in result.output
    events = open_store(db).events(1)
    state = _check_ended(events)
    assert "end of input" not in (state.end_reason or ""), result.output[-2000:]
    assert isinstance(events[-1], SessionEnded) or state.end_reason


def test_terminal_offers_a_rebuy_when_the_rules_allow(tmp_path: Path) -> None:
    """buy-in-limits: minimum buy-in 20, up to 2 rebuys. Always out, the stack bleeds antes;
    below 20 the terminal offers a rebuy of the buy-in, twice, then no more."""
    db = tmp_path / "guts.db"
    result = RUNNER.invoke(app, ["play", "--players", "3", "--chips", "20", "--preset",
                                 "buy-in-limits", "--seed", "12", "--db", str(db)],
                           input="out\ny\n" * 3000)
    assert result.exit_code == 0, result.output
    events = open_store(db).events(1)
    state = _check_ended(events)
    rebuys = [e for e in events if isinstance(e, Rebought)]
    assert rebuys == [Rebought(0, 20), Rebought(0, 20)]
    assert result.output.count("Rebuy 20 chips? [y/n/q]") == 2
    assert "you may rebuy, 2 of 2 left" in result.output
    assert "you may rebuy, 1 of 2 left" in result.output
    assert state.buy_ins[0] == 60 and state.rebuys_used[0] == 2
