"""Session 8's robustness fixes of ``guts serve`` and the CLI (attack7 L1-L3, the foreign
database, the listening socket, the relay's import). Reproducers: /work/audit7/t4_lock.py
(L1), t13_uri.sh (L2), t11_left_tab.py (L3)."""

from __future__ import annotations

import ast
import inspect
import os
import socket
import sqlite3
from pathlib import Path

import httpx
import pytest
from server_support import Player, Server, running_server, seat_three
from sqlalchemy import create_engine
from test_cli import guts
from test_cluster import Split, free_port, in_process_worker, redis_url
from test_serve_one_database import refusal, serving

from gutskit.cli.serve import _listen
from gutskit.io.location import STORE_TABLES, StorageError
from gutskit.io.storage import Base, open_store
from gutskit.server import cluster
from gutskit.server.serving import DatabaseServed, hold_database
from gutskit.server.store import open_room_store

__all__ = ["redis_url"]  # the fixture, imported for the tests below


def test_every_path_to_the_database_meets_the_hold(tmp_path: Path) -> None:
    """attack7 L1: a hard link to the database got past the lock file ``<db>.serving``.
    The hold is a ``flock`` of the database file itself (its device and inode): a hard
    link, a symbolic link, a relative path and an SQLite URI filename all meet it."""
    folder = tmp_path / "data"
    folder.mkdir()
    store = open_room_store(str(folder / "x.db"))
    os.link(folder / "x.db", tmp_path / "hard.db")  # another folder, the same file
    (tmp_path / "sym.db").symlink_to(folder / "x.db")
    others = [f"sqlite:///{tmp_path / 'hard.db'}", f"sqlite:///{tmp_path / 'sym.db'}",
              f"sqlite:///file:{folder / 'x.db'}?uri=true&mode=rw",
              f"sqlite:///{folder}/../data/x.db"]
    try:
        hold = hold_database(store.engine, "x.db", alone=True)
        assert not (folder / "x.db.serving").exists()  # no lock file beside it
        for url in others:  # (another process would open them: a plain engine here)
            engine = create_engine(url)
            for alone in (True, False):
                with pytest.raises(DatabaseServed, match=r"^database 'other' is"):
                    hold_database(engine, "other", alone=alone)
            engine.dispose()
        hold.release()
        engine = create_engine(others[0])
        hold_database(engine, "hard", alone=True).release()  # free again
        engine.dispose()
    finally:
        store.close()


def test_an_sqlite_uri_filename_is_served_and_held(tmp_path: Path) -> None:
    """attack7 L2: ``guts serve --db "sqlite:///file:PATH?uri=true"`` exited 2 (``cannot
    open 'file:PATH.serving'``: the lock was built from the URI's text). The file is the
    one SQLite opened: the URI form serves, and the path form is refused meanwhile."""
    db = tmp_path / "x.db"
    ports = free_port(), free_port()
    with serving(ports[0], f"sqlite:///file:{db}?uri=true"):
        origin = f"http://127.0.0.1:{ports[0]}"
        created = httpx.post(f"{origin}/api/rooms", headers={"Origin": origin}, timeout=30,
                             json={"host_name": "Ana", "buy_in": 20})
        assert created.status_code == 200
        assert refusal(ports[1], str(db)) == (
            f"error: database {str(db)!r} is already served by another running guts serve; "
            "two servers without --redis would run the same rooms twice: stop the other "
            "one, or use --workers N (one machine) or --redis URL on every server for "
            "several processes")
    with sqlite3.connect(db) as connection:  # the room is in that file
        rooms = connection.execute("SELECT count(*) FROM rooms").fetchone()
    assert rooms == (1,)


def _leave_with_tabs(server: Server, tab_server: Server) -> None:
    """Ben leaves mid-round from one tab; his other tabs (protocols 1 to 4, on
    ``tab_server``) all become spectators: seat -1, no hand, their actions refused."""
    room_id, (ana, ben, cleo) = seat_three(server)
    tabs = [Player(tab_server, room_id, ben.token, protocol=p) for p in (1, 2, 3, 4)]
    assert [tab.seat for tab in tabs] == [1, 1, 1, 1]
    ana.send({"type": "start"})
    for player in (ana, ben, cleo, *tabs):
        player.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
    assert [tab.last_state()["seat"] for tab in tabs] == [1, 1, 1, 1]
    ben.send({"type": "leave"})
    assert ben.state(lambda t: t["seat"] == -1)["hand"] is None
    for tab in tabs:
        table = tab.state(lambda t: t["seat"] == -1)  # attack7 L3: it kept seat 1
        assert table["hand"] is None and table["my_turn"] is False
        tab.declare(1, "in", action_id=f"late-{id(tab)}")
        assert tab.log[-1]["type"] == "error"
        assert tab.log[-1]["code"] == "not_seated"
    info = server.get(f"/api/rooms/{room_id}").json()
    assert info["spectators"] == 5  # Ben's five connections now watch
    for player in (ana, ben, cleo, *tabs):
        player.close()


def test_leaving_turns_every_tab_of_the_seat_into_a_spectator(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'tabs.db'}", seed_numbers=(1, 2)) as server:
        _leave_with_tabs(server, server)


def test_leaving_turns_relayed_tabs_into_spectators(tmp_path: Path, redis_url: str) -> None:
    """The same across workers (``--redis``): the room runs on its owner, the other tabs
    are relayed to it by another worker."""
    db_url = f"sqlite:///{tmp_path / 'cluster.db'}"
    with (in_process_worker(db_url, redis_url, seed_numbers=(1, 2)) as (owner, app),
          in_process_worker(db_url, redis_url) as (relay, _)):
        direct = Server(port=owner, manager=app.node.manager, store=app.node.manager.store)
        relayed = Split(port=owner, manager=app.node.manager, store=app.node.manager.store,
                        relay_port=relay)
        _leave_with_tabs(direct, relayed)


def test_the_store_tables_are_in_every_gutskit_database() -> None:
    assert set(Base.metadata.tables) >= STORE_TABLES


def _foreign(path: Path) -> bytes:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (x)")
    return path.read_bytes()


MESSAGE = ("is another program's database (it holds 1 table or view, none of gutskit's): "
           "give a new file or a gutskit database")


def test_serve_refuses_another_programs_database_untouched(tmp_path: Path) -> None:
    """``guts serve --db OTHER.db`` migrated the server's tables into another program's
    file (open_store refused it since fresh7, the server's store did not): the same
    check now, before anything is written (no WAL either)."""
    other = tmp_path / "other.db"
    before = _foreign(other)
    for db in (str(other), f"sqlite:///{other}", f"sqlite:///file:{other}?uri=true"):
        for extra in ((), ("--workers", "2")):
            result = guts("serve", "--db", db, "--port", str(free_port()), *extra)
            assert result.exit_code == 2, result.output
            assert result.stderr.splitlines() == [f"error: {db!r} {MESSAGE}"]
    with pytest.raises(StorageError, match="another program's database"):
        open_room_store(str(other))
    assert other.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_play_refuses_another_programs_database_before_dealing(tmp_path: Path) -> None:
    """``guts play --db OTHER.db`` refused it only when the background store opened, after
    round 1 was dealt: now at once (``check_location``, read only), no card shown."""
    other = tmp_path / "other.db"
    before = _foreign(other)
    played = guts("play", "--db", str(other), "--seed", "7", input="in\nquit\n")
    assert played.exit_code == 2
    assert played.stdout == ""  # no table, no cards
    assert played.stderr.splitlines() == [f"error: {str(other)!r} {MESSAGE}"]
    assert other.read_bytes() == before
    # An empty SQLite database (no table yet) and a gutskit one are taken.
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    open_store(empty).engine.dispose()
    assert guts("play", "--db", str(empty), "--seed", "7", input="quit\n").exit_code == 0


def test_the_port_answers_before_the_server_is_ready() -> None:
    """``guts serve`` listens when it binds (``cli.serve._listen``): a client connecting
    while the server or its workers still start waits in the backlog, it is not refused,
    so a worker is never announced in Redis before its port answers (the failover test of
    tests/test_cluster.py connects as soon as both workers' keys are there)."""
    listener = _listen("127.0.0.1", 0)
    try:
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
            accepted, _ = listener.accept()  # what a worker does once it runs
            accepted.close()
            assert client.getpeername()[1] == port
    finally:
        listener.close()


def test_the_relay_does_not_import_per_frame() -> None:
    """``_Proxy.deliver`` (every relayed frame) imported ``gutskit.server.app`` in its
    body; it is imported once with the module (no cycle: tests/test_imports.py)."""
    tree = ast.parse(inspect.getsource(cluster))
    inner = [node for function in ast.walk(tree)
             if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
             for node in ast.walk(function)
             if isinstance(node, ast.ImportFrom) and node.module
             and node.module.startswith("gutskit.server")]
    assert [ast.unparse(node) for node in inner] == []
