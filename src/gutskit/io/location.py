"""Where hand histories are saved, checked without opening the database.

:func:`sqlite_url` turns a SQLite path or a SQLAlchemy URL into a URL;
:func:`check_location` checks a location cheaply (no SQLAlchemy import: the ``guts`` command
calls it before play starts, so a bad ``--db`` is reported at once while the database
library loads in the background). :class:`StorageError` is the error of the store
(:mod:`gutskit.io.storage`, which re-exports it).
"""

from __future__ import annotations

import re
from pathlib import Path

from platformdirs import user_data_dir

from gutskit.core.errors import GutsError

__all__ = ["SQLITE_HEADER", "StorageError", "check_location", "default_db_path", "is_url",
           "sqlite_url"]

SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


class StorageError(GutsError):
    """The database cannot be opened or read, or a session does not exist; the message
    names the database or the session."""


def default_db_path() -> Path:
    """``gutskit.db`` in the user's data folder (``platformdirs.user_data_dir("gutskit")``,
    e.g. ``~/.local/share/gutskit/gutskit.db`` on Linux)."""
    return Path(user_data_dir("gutskit")) / "gutskit.db"


def is_url(location: str | Path) -> bool:
    """Whether ``location`` is a URL (``scheme://...``) rather than a file path."""
    return "://" in str(location)


def shown(location: str | Path) -> str:
    """``location`` as an error message may quote it: a URL with its password hidden
    (``postgresql+psycopg://u:***@host/db``), a path as it is."""
    text = str(location)
    if not is_url(text):
        return text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(text).render_as_string(hide_password=True)
    except ArgumentError:
        return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", text)


def check_location(location: str | Path | None, *, must_exist: bool = False) -> None:
    """Check a database location without opening it.

    A URL must look like ``scheme://...`` (the driver is checked when it is opened). A file
    path must lie in an existing folder (the default path's folder is created when the store
    is opened), must not be a folder, and an existing non-empty file must be a SQLite
    database.

    Args:
        location: a SQLite file path, a SQLAlchemy URL, or ``None`` for
            :func:`default_db_path`.
        must_exist: refuse a file that does not exist (for commands that only read).

    Raises:
        StorageError: the location cannot be a database; the message quotes it.
    """
    if location is None:
        path = default_db_path()
        if must_exist and not path.exists():
            raise StorageError(f"no saved sessions yet ({path} does not exist)")
        if path.exists():
            _check_file(path, str(path))
        return
    text = str(location)
    if is_url(text):
        if not _URL.match(text):
            raise StorageError(f"bad database URL {text!r}: expected scheme://...")
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
        return
    _check_file(path, text)


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
