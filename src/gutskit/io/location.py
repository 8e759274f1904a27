"""Where hand histories are saved, checked without opening the database.

:func:`sqlite_url` turns a SQLite path or a SQLAlchemy URL into a URL;
:func:`check_location` checks a location cheaply (no SQLAlchemy import: the ``guts`` command
calls it before play starts, so a bad ``--db`` is reported at once while the database
library loads in the background). :class:`StorageError` is the error of the store
(:mod:`gutskit.io.storage`, which re-exports it).
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Callable, Collection
from pathlib import Path

from platformdirs import user_data_dir

from gutskit.core.errors import GutsError

__all__ = ["SQLITE_HEADER", "STORE_TABLES", "StorageError", "check_location",
           "check_not_foreign", "default_db_path", "is_url", "sqlite_url"]

SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""

STORE_COLUMNS: dict[str, frozenset[str]] = {
    "sessions": frozenset({"id", "created_at", "source", "rules", "players", "status",
                           "end_reason"}),
    "events": frozenset({"session_id", "seq", "type", "payload"}),
}
"""The columns of the tables every gutskit database holds (:mod:`gutskit.io.storage`'s
models, which ``tests/test_storage_foreign.py`` checks against this; here without
SQLAlchemy, so :func:`check_location` stays cheap)."""

STORE_TABLES = frozenset(STORE_COLUMNS)
"""The tables every gutskit database holds (:mod:`gutskit.io.storage`'s; the server's
store migrates them in first)."""

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_IN_MEMORY = re.compile(r"^sqlite(\+[A-Za-z0-9_]+)?://(/(:memory:)?)?(\?.*)?$", re.IGNORECASE)
"""A SQLite URL of an in-memory database (``sqlite://``, ``sqlite:///:memory:``)."""


class StorageError(GutsError):
    """The database cannot be opened or read, or a session does not exist; the message
    names the database or the session."""


def _in_memory(text: str) -> bool:
    """Whether the database URL ``text`` names an in-memory SQLite database: ``sqlite://``,
    ``sqlite:///:memory:`` (also percent-encoded), or a URI filename of one
    (``sqlite:///file::memory:?uri=true``, ``...?mode=memory&uri=true``)."""
    if _IN_MEMORY.match(text):
        return True
    if not text.lower().startswith("sqlite"):
        return False
    from sqlalchemy.engine import make_url  # only for a SQLite URL (startup: no SQLAlchemy)
    from sqlalchemy.exc import ArgumentError
    try:
        url = make_url(text)
    except (ArgumentError, ValueError):
        return False
    database = url.database or ""
    mode = url.query.get("mode", "")
    modes = (mode,) if isinstance(mode, str) else tuple(mode)
    return (database in ("", ":memory:") or database.startswith("file::memory:")
            or "memory" in (m.lower() for m in modes))


def check_not_foreign(tables: Collection[str], location: str | Path, *,
                      columns_of: Callable[[str], Collection[str]]) -> None:
    """Refuse another program's database: one that holds tables or views (``tables``, their
    names), none of them gutskit's (:data:`STORE_TABLES`), or a table named as one of gutskit's
    without gutskit's columns (:data:`STORE_COLUMNS`; ``columns_of(name)`` gives a present
    table's column names). An empty database, or one with no table yet, is not refused
    (gutskit creates its tables in it). The one rule for ``guts play``, ``guts serve`` and
    every store (fresh7: ``guts play --db OTHER.db`` added its tables to another program's
    file; fresh8: and to one whose own ``sessions`` table has other columns).

    Raises:
        StorageError: it is another program's database; the message quotes ``location``
            and says what to do.
    """
    if tables and not STORE_TABLES & set(tables):
        held = (f"{len(tables)} table or view" if len(tables) == 1
                else f"{len(tables)} tables or views")  # the names of both come in one list
        raise StorageError(
            f"{shown(location)!r} is another program's database (it holds {held}, none of "
            "gutskit's): give a new file or a gutskit database")
    for name in sorted(STORE_TABLES & set(tables)):
        missing = STORE_COLUMNS[name] - set(columns_of(name))
        if missing:
            raise StorageError(
                f"{shown(location)!r} is another program's database (its table {name!r} "
                f"has no column {', '.join(repr(c) for c in sorted(missing))}, which "
                "gutskit's has): give a new file or a gutskit database")


def default_db_path() -> Path:
    """``gutskit.db`` in the user's data folder (``platformdirs.user_data_dir("gutskit")``,
    e.g. ``~/.local/share/gutskit/gutskit.db`` on Linux)."""
    return Path(user_data_dir("gutskit")) / "gutskit.db"


def is_url(location: str | Path) -> bool:
    """Whether ``location`` is a URL (``scheme://...``) rather than a file path."""
    return "://" in str(location)


ACCEPTED_LOCATIONS = "a file, sqlite:///FILE or postgresql+psycopg://..."
"""The database locations gutskit takes (README "Saving games", docs/deploy.md)."""


def unknown_scheme(location: str | Path) -> str:
    """The message for a URL whose scheme names no database SQLAlchemy knows
    (``notascheme://x``; SQLAlchemy's words: "Can't load plugin:
    sqlalchemy.dialects:notascheme"): the bad scheme, then what is taken."""
    scheme = str(location).split("://", 1)[0]
    return (f"bad database URL {shown(location)!r}: unknown scheme {scheme!r}; use "
            f"{ACCEPTED_LOCATIONS}")


def shown(location: str | Path) -> str:
    """``location`` as an error message may quote it: a URL with its password hidden
    (``postgresql+psycopg://u:***@host/db``), a path as it is."""
    text = str(location)
    if not is_url(text):
        return text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(text)
    except ArgumentError:
        return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", text)
    if url.password is None:  # as given (rendering would quote, e.g., file%3A)
        return text
    return url.render_as_string(hide_password=True)


def check_location(location: str | Path | None, *, must_exist: bool = False,
                   writable: bool = False) -> None:
    """Check a database location without opening it.

    A URL must look like ``scheme://...`` (the driver is checked when it is opened). A file
    path must lie in an existing folder (the default path's folder is created when the store
    is opened), must not be a folder, and an existing non-empty file must be a SQLite
    database.

    Args:
        location: a SQLite file path, a SQLAlchemy URL, or ``None`` for
            :func:`default_db_path`.
        must_exist: refuse a file that does not exist (for commands that only read).
        writable: also check that the file can be written, before play (``guts play``,
            ``guts companion``): the default folder is created, a missing file is created
            (empty: SQLite makes it a database) and an existing one opened for writing.

    Raises:
        StorageError: the location cannot be a database; the message quotes it.
    """
    if location is None:
        path = default_db_path()
        if must_exist and not path.exists():
            raise StorageError(f"no saved sessions yet ({path} does not exist)")
        if writable:
            sqlite_url(None)  # creates the folder, or says why it cannot
        if path.exists():
            _check_file(path, str(path))
        if writable:
            _check_writable(path, str(path))
        return
    text = str(location)
    if is_url(text):
        if not _URL.match(text):
            raise StorageError(f"bad database URL {text!r}: expected scheme://...")
        if _in_memory(text):
            raise StorageError(f"{shown(text)!r} is an in-memory database: it keeps "
                               "nothing, and each connection would see its own empty one; "
                               "give a file (a path or sqlite:///PATH)")
        return
    if not text.strip():
        raise StorageError("the database path is empty")
    path = Path(text).expanduser()
    if not path.parent.is_dir():
        raise StorageError(f"cannot open database {text!r}: the folder {str(path.parent)!r} "
                           f"does not exist")
    if not path.exists():
        if must_exist:
            raise StorageError(f"database {text!r} does not exist")
    else:
        _check_file(path, text)
    if writable:
        _check_writable(path, text)


def _check_writable(path: Path, text: str) -> None:
    """Create ``path`` if it is missing (an empty file, which SQLite makes a database; it is
    not removed, as another process may be opening it), or open it for writing.

    Raises:
        StorageError: it cannot be created or written; the message quotes ``text``.
    """
    try:
        with path.open("ab"):
            pass
    except OSError as error:
        raise StorageError(f"cannot open database {text!r} for writing: "
                           f"{error.strerror or error}") from None


def _check_file(path: Path, text: str) -> None:
    if path.is_dir():
        example = str(Path(text) / "gutskit.db")
        raise StorageError(f"cannot open database {text!r}: it is a folder; --db takes a "
                           f"database file (e.g. {example!r}) or a URL (scheme://...)")
    try:
        with path.open("rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except OSError as error:
        raise StorageError(f"cannot open database {text!r}: {error.strerror}") from None
    if head and head != SQLITE_HEADER:
        raise StorageError(f"cannot open database {text!r}: file is not a database")
    if head:
        check_not_foreign(_sqlite_tables(path), text,
                          columns_of=functools.partial(_sqlite_columns, path))


def _sqlite_tables(path: Path) -> list[str]:
    """The tables and views of the SQLite file ``path``, read only (nothing is written to it; the
    standard library's ``sqlite3``, not SQLAlchemy, so it is cheap); none when it cannot be
    read now (the store says why when it opens it)."""
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    try:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type IN ('table', "
                                  "'view') AND name NOT LIKE 'sqlite~_%' ESCAPE '~'"
                                  ).fetchall()
    except sqlite3.Error:
        return []
    finally:
        connection.close()
    return [str(row[0]) for row in rows]


def _sqlite_columns(path: Path, table: str) -> list[str]:
    """The column names of ``table`` in the SQLite file ``path``, read only; none when it
    cannot be read now."""
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    try:
        rows = connection.execute("SELECT name FROM pragma_table_info(?)", (table,)).fetchall()
    except sqlite3.Error:
        return []
    finally:
        connection.close()
    return [str(row[0]) for row in rows]


def sqlite_url(location: str | Path | None) -> str:
    """The SQLAlchemy URL of ``location``: a URL as given, a path as ``sqlite:///ABSOLUTE``
    (``None``: :func:`default_db_path`, whose folder is created).

    Raises:
        StorageError: a file path in a folder that does not exist (it is not created), or
            the default folder cannot be created.
    """
    if location is not None and is_url(location):
        return str(location)
    if location is None:
        path = default_db_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StorageError(f"cannot create the folder of database {str(path)!r}: "
                               f"{error.strerror}") from None
    else:
        path = Path(location).expanduser()
        if not path.parent.is_dir():
            raise StorageError(f"cannot open database {str(location)!r}: the folder "
                               f"{str(path.parent)!r} does not exist")
    return f"sqlite:///{path.resolve()}"
