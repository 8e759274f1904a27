"""Saved hand histories (gutskit.io.storage), the ledger and the simulation summary."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from conftest import IN, OUT, play_round, table

from gutskit.core.engine import deal_from_rng, declare_all, end_session, evolve, replay, start_event
from gutskit.core.events import SessionEnded
from gutskit.core.ledger import ledger, session_winners
from gutskit.core.rules import Rules
from gutskit.io.storage import StorageError, open_store
from gutskit.strategy.simulation import simulate


def test_events_are_appended_per_round_and_replay_rebuilds_the_state(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match=r"the folder .*dir' does not exist"):
        open_store(tmp_path / "sub" / "dir" / "guts.db")  # a missing folder is not created
    assert not (tmp_path / "sub").exists()
    db = tmp_path / "guts.db"
    store = open_store(db)
    start = start_event(["Ana", "Ben", "Cleo"], 20, dealer=2, rules=Rules(cards_per_hand=2))
    session_id = store.create_session("play", start)
    state = evolve(None, start)
    rng = random.Random(4)
    for _ in range(6):
        state, dealt = deal_from_rng(state, rng)
        state, resolved = declare_all(state, {s: rng.choice([IN, OUT]) for s in state.dealt})
        store.append(session_id, dealt + resolved)
        # A new connection sees every finished round.
        assert replay(open_store(db).events(session_id)) == state
    info = open_store(db).session(session_id)
    assert (info.status, info.rounds, info.source) == ("playing", 6, "play")
    state, ended = end_session(state, "time to go home")
    store.append(session_id, ended)
    info = store.session(session_id)
    assert (info.status, info.end_reason) == ("finished", "time to go home")
    assert replay(store.events(session_id)) == state
    assert info.rules["cards_per_hand"] == 2
    assert info.players == ["Ana", "Ben", "Cleo"]


def test_a_session_that_ends_with_nothing_to_share_is_finished_by_reason() -> None:
    store = open_store("sqlite://")
    start = start_event(["Ana", "Ben"], 5)
    session_id = store.create_session("sim", start)
    store.append(session_id, [], end_reason="fewer than two players left with chips")
    info = store.session(session_id)
    assert (info.status, info.end_reason, info.events) == (
        "finished", "fewer than two players left with chips", 1)


def test_sessions_are_listed_oldest_first(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")  # a URL works as well as a path
    ids = [store.create_session(source, start_event(["A", "B"], 10))
           for source in ("play", "sim", "play")]
    assert ids == [1, 2, 3]
    assert [(i.id, i.source, i.rounds, i.events) for i in store.sessions()] == [
        (1, "play", 0, 1), (2, "sim", 0, 1), (3, "play", 0, 1)]


def test_storage_errors(tmp_path: Path) -> None:
    store = open_store(tmp_path / "g.db")
    with pytest.raises(StorageError, match="no session 4"):
        store.events(4)
    with pytest.raises(StorageError, match="no session 4"):
        store.session(4)
    with pytest.raises(StorageError, match="no session 4"):
        store.append(4, [])
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite at all " * 100)
    with pytest.raises(StorageError, match=r"cannot open database .*junk\.db"):
        open_store(junk)
    with pytest.raises(StorageError, match="bad database URL"):
        open_store("nosuchdialect://x")
    # fresh user, session 5: the error quoted the URL's password
    with pytest.raises(StorageError) as refused:
        open_store("postgresql+psycopg://ana:hunter2@127.0.0.1:1/guts")
    assert "cannot open database 'postgresql+psycopg://ana:***@127.0.0.1:1/guts'" in str(
        refused.value) and "hunter2" not in str(refused.value)
    with pytest.raises(StorageError) as refused:
        open_store("nosuchdialect://ana:hunter2@host/x")
    assert "bad database URL 'nosuchdialect://ana:***@host/x'" in str(refused.value)


def test_a_corrupt_stored_event_is_reported(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    store = open_store(db)
    session_id = store.create_session("play", start_event(["A", "B"], 10))
    with sqlite3.connect(db) as con:
        con.execute("UPDATE events SET payload = '{\"type\": \"Bluff\"}'")
    from gutskit.core.history import HistoryError

    with pytest.raises(HistoryError, match="Bluff"):
        store.events(session_id)


def test_ledger_after_a_played_session() -> None:
    # Ana wins a 3-chip pot uncontested (+2 net), then Ben beats Cleo at showdown for a new
    # 3-chip pot and Cleo matches 3; the session ends and the 3 left in the pot are shared
    # one each.
    state = table(3, [10, 10, 10], dealer=2, cards_per_hand=2)
    state, _ = play_round(state, {0: "As Ad", 1: "2c 3d", 2: "4h 6s"}, ins=[0])
    state, _ = play_round(state, {0: "2s 4d", 1: "Ks Kd", 2: "Qs Qd"}, ins=[1, 2])
    state, events = end_session(state)
    assert isinstance(events[0], SessionEnded) and events[0].payouts == (1, 1, 1)
    lines = ledger(state)
    assert [(ln.name, ln.buy_in, ln.stack, ln.net) for ln in lines] == [
        ("Ana", 10, 12, 2), ("Ben", 10, 12, 2), ("Cleo", 10, 6, -4)]
    assert sum(ln.net for ln in lines) == 0
    assert session_winners(state) == ["Ana", "Ben"]


def test_ledger_marks_eliminated_players() -> None:
    # Cleo (2 chips after the ante) loses a showdown for a pot of 3 and cannot match:
    # eliminated, keeps her 2 chips.
    state = table(3, [10, 10, 3], dealer=2, cards_per_hand=2)
    state, _ = play_round(state, {0: "As Ad", 1: "2c 3d", 2: "4h 6s"}, ins=[0, 2])
    assert state.eliminated == (False, False, True)
    state, _ = end_session(state)
    assert [(ln.stack, ln.net, ln.eliminated) for ln in ledger(state)] == [
        (12, 2, False), (9, -1, False), (2, -1, True)]


def test_simulate_same_seed_same_summary_and_conservation() -> None:
    a = simulate(players=4, rounds=250, seed=17, chips=30)
    b = simulate(players=4, rounds=250, seed=17, chips=30)
    assert a == b
    assert sum(a.final_stacks.values()) == 120
    assert sum(a.outcomes.values()) == 250
    assert a.largest_pot >= 4


def test_simulate_sequential_rules() -> None:
    summary = simulate(players=5, rounds=120, seed=1, rules=Rules(declaration="sequential",
                                                                  cards_per_hand=2))
    assert summary.rounds == 120
    assert sum(summary.final_stacks.values()) == 500


def test_simulate_rejects_negative_rounds() -> None:
    with pytest.raises(ValueError, match="-1"):
        simulate(players=3, rounds=-1)
