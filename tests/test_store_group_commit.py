"""The group commit of :mod:`gutskit.server.store` (its database thread): the rows the raw
``sqlite3`` path writes are exactly those SQLAlchemy writes, a failing write is reported
to its own submitter only, and the store's other jobs run in order with the writes."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import insert, text
from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import IntegrityError

from gutskit.server import store as store_module
from gutskit.server.store import DealRow, RoomStore, SeatRow, open_room_store

TABLES = ("events", "room_deals", "room_actions", "room_seats", "sessions", "rooms")
"""The tables a commit writes (``sessions``/``rooms``: a session's end)."""


def _prepared(path: Path) -> RoomStore:
    """A store with room ``r1`` (seats 0 and 1), its session 1 and round 1's deal."""
    store = open_room_store(path)
    with store.engine.begin() as connection:
        connection.execute(insert(store_module._SESSIONS).values(
            id=1, created_at=datetime(2026, 1, 2, tzinfo=UTC), source="server", rules={},
            players=["Ana", "Ben"], status="playing", end_reason=None))
        connection.execute(insert(store_module._ROOMS).values(
            id="r1", created_at=datetime(2026, 1, 2, tzinfo=UTC), settings={},
            status="playing", paused=False, session_id=1, ask_count=0))
        for seat in (0, 1):
            connection.execute(insert(store_module._SEATS).values(
                room_id="r1", seat=seat, name=f"p{seat}", host=seat == 0, kicked=False))
        connection.execute(insert(store_module._DEALS).values(
            room_id="r1", round=1, commitment="c1", seed="s1", revealed=False))
    return store


def _batch() -> list[store_module._Rows]:
    """Two writes of room r1: a deal with its events, then a round's end."""
    first = store_module._append_rows(
        "r1", 1, 1, [], DealRow(round=2, commitment="c2", seed="s2", revealed=False),
        ("a1", 1, 1), [1], [DealRow(round=1, commitment="c1", seed="s1", revealed=True,
                                    client_seeds=["ab" * 16, None], opened=[3, 7])],
        payloads=[],
        pending=[SeatRow(seat=1, name="p1", token_hash=None, bot_style=None, host=False,
                         kicked=False, rebuy_chips=40, client_seed="cd" * 16)])
    first.events = [{"session_id": 1, "seq": 1, "type": "Declared",
                     "payload": {"type": "Declared", "seat": 1, "in": True}},
                    {"session_id": 1, "seq": 2, "type": "Declared",
                     "payload": {"type": "Declared", "seat": 0, "in": False}}]
    second = store_module._Rows()
    second.events = [{"session_id": 1, "seq": 3, "type": "SessionEnded",
                      "payload": {"type": "SessionEnded", "reason": "done"}}]
    second.ended = [("r1", 1, "done")]
    return [first, second]


def _dump(store: RoomStore) -> dict[str, list[tuple[object, ...]]]:
    """Every row of :data:`TABLES` as stored: each value with its SQLite type."""
    with store.engine.connect() as connection:
        return _dump_with(lambda sql: [tuple(row) for row in
                                       connection.exec_driver_sql(sql)])


def _dump_with(query: Callable[[str], list[tuple[Any, ...]]]
               ) -> dict[str, list[tuple[object, ...]]]:
    """:func:`_dump` through ``query`` (SQL to rows: inside a transaction, what it sees)."""
    out = {}
    for table in TABLES:
        columns = [row[1] for row in query(f"PRAGMA table_info({table})")]
        shown = ", ".join(f"{c}, typeof({c})" for c in columns)
        out[table] = query(f"SELECT {shown} FROM {table} ORDER BY 1, 3")
    return out


def test_raw_sqlite_rows_are_sqlalchemys(tmp_path: Path) -> None:
    by_sqlalchemy = _prepared(tmp_path / "a.db")
    by_driver = _prepared(tmp_path / "b.db")
    with by_sqlalchemy.engine.begin() as connection:
        store_module._write(connection, _batch())
    assert by_driver.writer._commit(_batch()) == [None, None]
    stored = _dump(by_driver)
    assert stored == _dump(by_sqlalchemy)
    # worked out by hand: the JSON as json.dumps writes it, None as the JSON null
    assert stored["events"][0][6:8] == ('{"type": "Declared", "seat": 1, "in": true}', "text")
    deals = {row[2]: row for row in stored["room_deals"]}
    assert deals[1][8:14] == (1, "integer", '["abababababababababababababababab", null]',
                              "text", "[3, 7]", "text")
    assert deals[2][10:14] == ("null", "text", "null", "text")
    assert stored["room_actions"] == [("r1", "text", "a1", "text", 1, "integer", 1,
                                       "integer")]
    assert stored["sessions"][0][10:14] == ("finished", "text", "done", "text")
    assert [row[6] for row in stored["rooms"]] == ["over"]
    for store in (by_sqlalchemy, by_driver):
        store.close()


def test_a_failing_write_fails_alone_and_jobs_keep_their_order(tmp_path: Path) -> None:
    store = _prepared(tmp_path / "c.db")

    async def play() -> tuple[list[BaseException | None], str]:
        good, clash = _batch()
        clash.events[0]["seq"] = 1  # the seq of the first write's first event
        outcomes = await asyncio.gather(store.writer.submit(good),
                                        store.writer.submit(clash),
                                        return_exceptions=True)
        status = await store.run(store.room_status, "r1")
        assert status is not None
        return list(outcomes), status

    outcomes, status = asyncio.run(play())
    assert outcomes[0] is None
    assert isinstance(outcomes[1], IntegrityError)
    assert status == "playing"  # nothing of the clashing write (its session end) applied
    with store.engine.connect() as connection:
        assert list(connection.execute(text("SELECT seq FROM events ORDER BY seq"))) == [
            (1,), (2,)]
    store.close()
    with pytest.raises(RuntimeError, match="closed"):
        asyncio.run(store.run(store.room_status, "r1"))


def test_idle_jobs_wait_for_the_writes_and_jobs_queued_after_them(tmp_path: Path) -> None:
    store = _prepared(tmp_path / "d.db")
    order: list[tuple[str, int]] = []

    def events() -> int:
        with store.engine.connect() as connection:
            return int(connection.execute(text("SELECT count(*) FROM events")).scalar_one())

    async def play() -> None:
        release = threading.Event()
        blocked = store.writer.call(release.wait)  # the thread is busy until released
        idle = store.writer.call(lambda: order.append(("idle", events())), idle=True)
        write = store.writer.submit(_batch()[0])
        job = store.writer.call(lambda: order.append(("job", events())))
        release.set()
        await asyncio.gather(blocked, idle, write, job)

    asyncio.run(play())
    store.close()
    # queued after the idle job, the write (2 events) and the job ran first
    assert order == [("job", 2), ("idle", 2)]


def test_the_database_thread_is_named_by_its_identifier(tmp_path: Path) -> None:
    """``thread_id`` is the identifier of the thread that runs the jobs (what
    bench_rooms.py reads that thread's CPU clock by): none before the first job and
    after close."""
    store = _prepared(tmp_path / "t.db")
    assert store.writer.thread_id is None

    async def play() -> tuple[int, str]:
        return await store.writer.call(
            lambda: (threading.get_ident(), threading.current_thread().name))

    ident, name = asyncio.run(play())
    assert name == "gutskit-db"
    assert store.writer.thread_id == ident != threading.get_ident()
    store.close()
    assert store.writer.thread_id is None


def test_the_raw_statements_are_sqlalchemys_compiled_from_the_tables() -> None:
    # one list of statements for both paths, each compiled by SQLAlchemy for SQLite from
    # the Table objects: the schema lives in the tables only
    assert list(store_module._SQLITE) == list(store_module._STATEMENTS)
    dialect = sqlite.dialect()
    for name, (statement, columns) in store_module._STATEMENTS.items():
        compiled = statement.compile(dialect=dialect,
                                     column_keys=None if columns is None else list(columns))
        assert store_module._SQLITE[name].sql == str(compiled)
    # worked out by hand: two of them, and what a row becomes
    assert store_module._SQLITE["events"].sql == (
        "INSERT INTO events (session_id, seq, type, payload) VALUES (?, ?, ?, ?)")
    reveal = store_module._SQLITE["reveal"]
    assert reveal.sql == ("UPDATE room_deals SET revealed=? WHERE room_deals.room_id = ? "
                          "AND room_deals.round = ?")
    assert reveal.row({"r_room": "r1", "r_round": 4}) == (1, "r1", 4)
    assert store_module._SQLITE["update_deal"].row(
        {"u_room": "r1", "u_round": 2, "u_seeds": ["ab", None], "u_opened": None}) == (
        '["ab", null]', "null", "r1", 2)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RoomStore]:
    store = _prepared(tmp_path_factory.mktemp("random") / "e.db")
    yield store
    store.close()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=6)


@st.composite
def _batches(draw: st.DrawFn) -> list[store_module._Rows]:
    """1-3 writes of room r1 (session 1; seats 0 and 1; round 1's deal stored)."""
    seq, round_number, action = 1, 2, 0
    batch = []
    for _ in range(draw(st.integers(1, 3))):
        rows = store_module._Rows()
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["Declared", "CardsDealt", "RoundResolved"]))
            rows.events.append({"session_id": 1, "seq": seq, "type": kind,
                                "payload": {"type": kind, "data": draw(_JSON)}})
            seq += 1
        if draw(st.booleans()):
            rows.deals.append({"room_id": "r1", "round": round_number,
                               "commitment": draw(st.text(max_size=8)), "seed": "s",
                               "revealed": draw(st.booleans()),
                               "client_seeds": draw(st.none() | st.lists(
                                   st.none() | st.text(max_size=4), max_size=3)),
                               "opened": draw(st.none() | st.lists(st.integers(0, 51)))})
            round_number += 1
        if draw(st.booleans()):
            rows.actions.append({"room_id": "r1", "action_id": f"a{action}",
                                 "seat": draw(st.integers(0, 1)), "round": 1})
            action += 1
        if draw(st.booleans()):
            rows.reveals.append({"r_room": "r1", "r_round": 1})
        if draw(st.booleans()):
            rows.deal_updates.append({"u_room": "r1", "u_round": 1,
                                      "u_seeds": draw(st.none() | st.lists(
                                          st.none() | st.text(max_size=4), max_size=3)),
                                      "u_opened": draw(st.none() | st.lists(
                                          st.integers(0, 51), max_size=3))})
        for seat in draw(st.lists(st.integers(0, 1), max_size=2, unique=True)):
            rows.pending.append({"p_room": "r1", "p_seat": seat,
                                 "back_next_game": draw(st.booleans()),
                                 "muted": draw(st.booleans()),
                                 "rebuy_chips": draw(st.none() | st.integers(1, 10**6)),
                                 "rebuy_approved": draw(st.booleans()),
                                 "client_seed": draw(st.none() | st.text(max_size=8))})
        if draw(st.integers(0, 4)) == 0:
            rows.ended.append(("r1", 1, draw(st.text(max_size=6))))
        batch.append(rows)
    return batch


@settings(max_examples=40, deadline=None)
@given(batch=_batches())
def test_any_batch_is_written_alike_by_both_paths(prepared: RoomStore,
                                                  batch: list[store_module._Rows]) -> None:
    # each path inside a transaction rolled back: the same database for every example
    with prepared.engine.connect() as connection, connection.begin() as transaction:
        store_module._write(connection, batch)
        by_sqlalchemy = _dump_with(
            lambda sql: [tuple(row) for row in connection.exec_driver_sql(sql)])
        transaction.rollback()
    raw = prepared.engine.raw_connection()
    try:
        driver = raw.driver_connection
        assert isinstance(driver, sqlite3.Connection)
        store_module._write_sqlite(driver, batch)
        by_driver = _dump_with(lambda sql: [tuple(row) for row in driver.execute(sql)])
        driver.rollback()
    finally:
        raw.close()
    assert by_driver == by_sqlalchemy
    # and the batch's own rows are there (worked out from the batch itself)
    assert len(by_driver["events"]) == sum(len(rows.events) for rows in batch)
    assert len(by_driver["room_actions"]) == sum(len(rows.actions) for rows in batch)
