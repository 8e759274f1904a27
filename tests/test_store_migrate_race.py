"""Two processes migrating one fresh database at the same moment (two ``guts serve`` on two
machines with one database URL, or two ``guts play`` on one file): one migrates, the other
waits for it and finds the schema at head; neither fails, and every table exists once.

Each round forks two processes that wait at a barrier, then open the same fresh database
(:func:`gutskit.server.store.open_room_store`: Alembic; :func:`gutskit.io.storage.open_store`:
``create_all``) at once. Runs on SQLite, and on PostgreSQL when GUTSKIT_TEST_PG_URL names
one (``scripts/test`` starts it)."""

from __future__ import annotations

import multiprocessing
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection as Pipe
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from server_support import DB_KINDS, make_db_url
from sqlalchemy import create_engine, inspect, text

from gutskit.io.storage import Base, open_store
from gutskit.server.store import MIGRATIONS, open_room_store

ROUNDS = 6
"""Rounds per database kind (each one a fresh database and two fresh processes)."""

SERVER_TABLES = {"sessions", "events", "rooms", "room_seats", "room_deals", "room_actions",
                 "room_asks", "served_by", "alembic_version"}


@pytest.fixture(params=DB_KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _head() -> str:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def _open_server(url: str) -> None:
    open_room_store(url).close()


def _open_play(url: str) -> None:
    open_store(url).engine.dispose()


def _child(opener: Callable[[str], None], url: str, barrier: Barrier, pipe: Pipe) -> None:
    """Wait for the other process, then open ``url``; send ``"ok"`` or the traceback."""
    try:
        barrier.wait(timeout=120)
        opener(url)
        pipe.send("ok")
    except BaseException:
        pipe.send(traceback.format_exc())
    finally:
        pipe.close()


def _race(opener: Callable[[str], None], url: str) -> list[str]:
    """Run ``opener(url)`` in two forked processes released together; their outcomes."""
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(2)
    pipes = [context.Pipe(duplex=False) for _ in range(2)]
    processes = [context.Process(target=_child, args=(opener, url, barrier, sender))
                 for _, sender in pipes]
    for process in processes:
        process.start()
    outcomes = []
    for (receiver, sender), process in zip(pipes, processes, strict=True):
        sender.close()
        outcomes.append(receiver.recv() if receiver.poll(300) else "no answer")
        process.join(60)
        assert process.exitcode == 0
    return outcomes


def _tables(url: str) -> tuple[set[str], list[str]]:
    """The tables of the database at ``url`` and the rows of ``alembic_version`` (if any)."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            tables = set(inspect(connection).get_table_names())
            versions = ([str(row[0]) for row in connection.execute(
                text("SELECT version_num FROM alembic_version"))]
                if "alembic_version" in tables else [])
    finally:
        engine.dispose()
    return tables, versions


def test_two_servers_migrating_one_fresh_database_at_once(kind: str, tmp_path: Path) -> None:
    """Both processes open the store; the database ends at the newest migration, recorded
    once, with every server table."""
    head = _head()
    for number in range(ROUNDS):
        folder = tmp_path / str(number)
        folder.mkdir()
        with make_db_url(kind, folder) as url:
            assert _race(_open_server, url) == ["ok", "ok"]
            tables, versions = _tables(url)
            assert tables == SERVER_TABLES
            assert versions == [head]


def test_two_plays_creating_one_fresh_database_at_once(kind: str, tmp_path: Path) -> None:
    """``guts play`` twice at once on a new database: both open it, and the tables
    :class:`~gutskit.io.storage.Base` knows (here with the server's: this process imported
    it) exist; a server then migrates it to the newest migration."""
    for number in range(ROUNDS):
        folder = tmp_path / str(number)
        folder.mkdir()
        with make_db_url(kind, folder) as url:
            assert _race(_open_play, url) == ["ok", "ok"]
            assert _tables(url) == (set(Base.metadata.tables), [])
            _open_server(url)
            assert _tables(url) == (SERVER_TABLES, [_head()])
