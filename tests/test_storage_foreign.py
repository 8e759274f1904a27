"""Another program's database whose tables share a name with gutskit's (fresh8): a file
whose own ``sessions`` (or ``events``) table has other columns was taken for a gutskit
database; ``guts history``/``analyze`` added the missing table to it, ``guts play`` played a
round and then failed to save, ``guts serve`` migrated its tables in. Now the columns of
gutskit's tables are part of the one check (``io.location.check_not_foreign``)."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest
from test_cli import assert_user_error, guts

from gutskit.io.location import STORE_COLUMNS, STORE_TABLES
from gutskit.io.storage import Base, StorageError, open_store
from gutskit.server.store import open_room_store


def test_the_marking_columns_are_the_stores_own() -> None:
    """``STORE_COLUMNS`` (kept without SQLAlchemy, for the cheap check) is what the store's
    models define."""
    assert set(Base.metadata.tables) >= STORE_TABLES  # (the server adds its own)
    for name, columns in STORE_COLUMNS.items():
        assert columns == {column.name for column in Base.metadata.tables[name].columns}


def _other(path: Path, table: str) -> bytes:
    with sqlite3.connect(path) as connection:
        connection.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, foo TEXT)")
        connection.execute(f"INSERT INTO {table} (foo) VALUES ('theirs')")
    connection.close()
    return path.read_bytes()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.parametrize(("table", "missing"), [
    ("sessions", "'created_at', 'end_reason', 'players', 'rules', 'source', 'status'"),
    ("events", "'payload', 'seq', 'session_id', 'type'"),
])
def test_a_table_named_like_gutskits_without_its_columns_is_refused(
        tmp_path: Path, table: str, missing: str) -> None:
    other = tmp_path / "other.db"
    before = _other(other, table)
    message = (f"is another program's database (its table {table!r} has no column "
               f"{missing}, which gutskit's has): give a new file or a gutskit database")
    for args in (("history",), ("analyze",)):
        assert_user_error(guts(*args, "--db", str(other)), f"{str(other)!r} {message}")
    played = guts("play", "--db", str(other), "--seed", "7", input="in\nquit\n")
    assert played.stdout == ""  # refused before any card is dealt
    assert_user_error(played, f"{str(other)!r} {message}")
    assert_user_error(guts("serve", "--db", str(other), "--port", str(_free_port())),
                      f"{str(other)!r} {message}")
    with pytest.raises(StorageError, match="has no column"):
        open_store(other)
    with pytest.raises(StorageError, match="has no column"):
        open_room_store(str(other))
    assert other.read_bytes() == before  # nothing added, nothing changed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_a_gutskit_database_is_still_taken(tmp_path: Path) -> None:
    db = tmp_path / "mine.db"
    assert guts("play", "--db", str(db), "--seed", "7", input="quit\n").exit_code == 0
    assert guts("history", "--db", str(db)).exit_code == 0
    open_store(db).engine.dispose()


@pytest.mark.parametrize("url", [
    "sqlite://", "sqlite:///:memory:", "sqlite+pysqlite://",
    # URI filenames and percent-encoding (attack9 L1: these were served, then lost)
    "sqlite:///file::memory:?uri=true", "sqlite:///file:memdb1?mode=memory&cache=shared&uri=true",
    "sqlite:///file:%3Amemory%3A?uri=true", "sqlite:///%3Amemory%3A"])
def test_an_in_memory_database_is_refused_before_play(url: str) -> None:
    """``guts play --db sqlite://`` played round 1, then failed to save (fresh8): an
    in-memory database keeps nothing and each connection sees its own, so it is refused
    before anything is dealt."""
    message = (f"{url!r} is an in-memory database: it keeps nothing, and each connection "
               "would see its own empty one; give a file (a path or sqlite:///PATH)")
    played = guts("play", "--db", url, "--seed", "7", input="in\nquit\n")
    assert played.stdout == ""
    assert_user_error(played, message)
    assert_user_error(guts("serve", "--db", url, "--port", str(_free_port())), message)


def test_an_output_file_never_overwrites_a_database(tmp_path: Path) -> None:
    """``guts tournament --history o1.db`` turned a SQLite database into JSON Lines
    (fresh8): an output file that is a SQLite database is refused before the run; any other
    existing file is replaced, as ``--help`` says."""
    db = tmp_path / "o1.db"
    before = _other(db, "t")
    result = guts("tournament", "--sessions", "2", "--rounds", "5", "--no-exploitability",
                  "--history", str(db))
    assert_user_error(result, f"history file {str(db)!r} is a SQLite database: it would be "
                      "overwritten; give another file name")
    assert db.read_bytes() == before
    old = tmp_path / "old.jsonl"
    old.write_text("old\n")
    assert guts("tournament", "--sessions", "2", "--rounds", "5", "--no-exploitability",
                "--history", str(old)).exit_code == 0
    assert old.read_text().splitlines()[0].startswith("{")


def test_a_database_of_views_only_is_another_programs(tmp_path: Path) -> None:
    """attack8 L1: a database holding only a view was taken for an empty one and the
    server's tables were added beside it."""
    other = tmp_path / "view.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE VIEW theirs AS SELECT 1 AS x")
    connection.close()
    before = other.read_bytes()
    message = ("is another program's database (it holds 1 table or view, none of gutskit's): "
               "give a new file or a gutskit database")
    assert_user_error(guts("serve", "--db", str(other), "--port", str(_free_port())),
                      f"{str(other)!r} {message}")
    with pytest.raises(StorageError, match="another program's database"):
        open_room_store(f"sqlite:///{other}")
    assert other.read_bytes() == before
