"""Two clusters (``guts serve --redis``, different Redis) on one database: the second
refuses to start while the first runs (attack9 M2: both ran the same room).

The holds in one process, as ``guts serve`` takes them (SQLite: ``flock`` of the database
file, one open file description per hold; PostgreSQL: session advisory locks, one
connection per hold), on every database of :data:`server_support.DB_KINDS`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from server_support import DB_KINDS, make_db_url
from sqlalchemy import text

from gutskit.server import serving
from gutskit.server.serving import DatabaseServed, hold_database, redis_identity
from gutskit.server.store import open_room_store

A = "redis://10.0.0.5:6379/0"
B = "redis://10.0.0.6:6379/0"


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with make_db_url(request.param, tmp_path) as url:
        yield url


def test_a_second_cluster_is_refused_while_the_first_runs(db_url: str) -> None:
    store = open_room_store(db_url)
    try:
        first = hold_database(store.engine, "db", alone=False, redis=A)
        with store.engine.connect() as connection:
            assert connection.execute(text("SELECT id, redis FROM served_by")).all() == [
                (1, A)]
        with pytest.raises(DatabaseServed) as refused:
            hold_database(store.engine, "db", alone=False, redis=B)
        assert str(refused.value) == (
            f"database 'db' is served by running guts serve --redis servers on Redis {A!r}, "
            f"not this server's {B!r}: two clusters would run the same rooms twice; give "
            "every server of a database the same --redis URL (or stop the others first)")
        same = hold_database(store.engine, "db", alone=False, redis=A)  # one cluster: fine
        with pytest.raises(DatabaseServed, match=r"^database 'db' is already served by"):
            hold_database(store.engine, "db", alone=True)  # no server without Redis either
        first.release()
        with pytest.raises(DatabaseServed):  # one server of cluster A still runs
            hold_database(store.engine, "db", alone=False, redis=B)
        same.release()
        # cluster A has stopped: cluster B may take the database (a new Redis) and records it
        moved = hold_database(store.engine, "db", alone=False, redis=B)
        with store.engine.connect() as connection:
            assert connection.execute(text("SELECT id, redis FROM served_by")).all() == [
                (1, B)]
        with pytest.raises(DatabaseServed, match=r"on Redis 'redis://10.0.0.6:6379/0', not "
                                                 r"this server's 'redis://10.0.0.5:6379/0'"):
            hold_database(store.engine, "db", alone=False, redis=A)
        moved.release()
    finally:
        store.close()


def test_a_cluster_server_waits_a_moment_then_gives_up_on_a_server_without_redis(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serving, "SETTLE_SECONDS", 0.2)
    store = open_room_store(db_url)
    try:
        alone = hold_database(store.engine, "db", alone=True)
        with pytest.raises(DatabaseServed, match=r"^database 'db' is served by a running "
                                                 r"guts serve without --redis"):
            hold_database(store.engine, "db", alone=False, redis=A)
        alone.release()
        hold_database(store.engine, "db", alone=False, redis=A).release()
    finally:
        store.close()


def test_redis_identity_names_the_server_never_the_password() -> None:
    assert redis_identity("redis://:secret@Cache.Example:6379") == (
        "redis://cache.example:6379/0")
    assert redis_identity("redis://user:pw@10.0.0.5/3") == "redis://10.0.0.5:6379/3"
    assert redis_identity("rediss://[::1]:6380/1") == "rediss://[::1]:6380/1"
    assert redis_identity("unix:///tmp/r.sock?db=2") == "unix:///tmp/r.sock?db=2"
    assert redis_identity("redis://localhost") == redis_identity("redis://localhost:6379/0")
