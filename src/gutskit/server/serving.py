"""Which ``guts serve`` processes serve a database, so two servers never run one room twice.

A server without Redis (``guts serve``, one process) runs every open room of its database
in its own memory: a second one on the same database would load and run the same rooms
(attack6 L2: a declaration accepted by one, ``server_error`` on the other). The servers of a
cluster (``--workers N``, ``--redis URL``) share the rooms through Redis leases and may be
many. So a server without a shared Redis (one process, or ``--workers N`` with its
private ``redis-server``, which no other server reaches) holds its database *alone* and
the servers of a cluster on a shared Redis (``--redis URL``) hold it *shared*
(:func:`hold_database`): a second server without ``--redis``, or a ``--redis`` server
while one without runs, refuses to start with :class:`DatabaseServed`.

The hold is the operating system's, released the moment its process ends, also by
``kill -9`` (a restart is never kept waiting):

* SQLite: a ``flock`` of the database file itself, the file SQLite opened (``PRAGMA
  database_list``: a relative path, a symbolic link, an SQLite URI filename
  ``sqlite:///file:PATH?uri=true``, all name it), so the lock is keyed on the file's
  identity (device and inode, which is what ``flock`` locks) and every path to the file,
  a hard link too, meets it (attack7 L1, L2: a lock file ``<database>.serving`` next to
  the name given was missed through a hard link, and was built from the text of a URI
  filename). One machine: SQLite's own locking does not work across machines either. A
  ``flock`` is not one of SQLite's POSIX (``fcntl``) locks, but closing any descriptor of
  the file drops those of the process, so the hold is released (its descriptor closed)
  only after the server's store is closed (``guts serve`` does).
* PostgreSQL: a session advisory lock (``pg_try_advisory_lock``, shared:
  ``pg_try_advisory_lock_shared``; :data:`ADVISORY_KEY`) on a connection of its own kept
  for the server's life; across machines.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool

from gutskit.io.location import StorageError, shown

__all__ = ["ADVISORY_KEY", "DatabaseServed", "Hold", "hold_database", "raise_open_files",
           "redis_identity"]

ADVISORY_KEY = 0x67757473  # "guts"
"""The PostgreSQL advisory lock of a served database: this key and the hash of the schema
its tables are in (one PostgreSQL database may hold several gutskit schemas)."""


class DatabaseServed(StorageError):
    """Another live ``guts serve`` serves the database in a way this one cannot share."""


class Hold:
    """A database held by this process (:func:`hold_database`); :meth:`release` lets go
    (the process ending does too)."""

    def __init__(self, release: Callable[[], None] | None = None) -> None:
        self._release = release

    def release(self) -> None:
        """Let go of the database (once; never raises)."""
        release, self._release = self._release, None
        if release is not None:
            with contextlib.suppress(Exception):
                release()


def redis_identity(url: str) -> str:
    """Which Redis ``url`` names, as recorded in the database (:func:`hold_database`):
    ``redis://HOST:PORT/DB`` (host in lower case, port 6379 and database 0 when not
    said) or ``unix://PATH?db=DB``; never a user name or password.

    >>> redis_identity("redis://:secret@Cache.example:6379")
    'redis://cache.example:6379/0'
    """
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    if parts.scheme == "unix":
        return f"unix://{parts.path}?db={query.get('db', ['0'])[0]}"
    db = parts.path.strip("/") or query.get("db", ["0"])[0]
    host = (parts.hostname or "localhost").lower()
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}:{parts.port or 6379}/{db}"


SETTLE_SECONDS = 5.0
"""How long a cluster server starting retries the hold while another one holds it alone
for a moment (while it records its Redis) before it gives up."""


def hold_database(engine: Engine, location: str, *, alone: bool,
                  redis: str | None = None) -> Hold:
    """Hold the database of ``engine`` for this server: ``alone`` (a server without Redis),
    or shared with the other servers of a cluster.

    A cluster's server (``redis``: :func:`redis_identity` of its ``--redis``) records its
    Redis in the database (``served_by``) when no other server holds the database (it
    holds it alone for that moment), and refuses to start when servers on another Redis
    hold it (attack9 M2: two clusters on one database both ran the same room).

    Args:
        engine: the database (SQLite or PostgreSQL; an in-memory SQLite is not held).
        location: the database as the user named it (for the message).
        alone: no other server may serve it meanwhile.
        redis: the Redis of this server's cluster (not ``alone``), or ``None``.

    Returns:
        The hold, kept until the server stops; release it only after the store on the
        database is closed (SQLite: its descriptor of the file is closed then).

    Raises:
        DatabaseServed: another live server holds it alone, or (``alone``) holds it at all,
            or (``redis``) servers on another Redis hold it; the message names the
            database (and both Redis) and what to do.
        StorageError: the database file or the lock cannot be opened or taken for another
            reason.
    """
    backend = engine.url.get_backend_name()
    taken = None
    claim = None if alone or redis is None else _claim(engine, location, redis)
    if backend == "sqlite":
        database = _sqlite_file(engine, location)
        if database is not None:
            taken = _flock(database, alone, location, claim)
    elif backend == "postgresql":
        try:
            taken = _advisory(engine, alone, location, claim)
        except SQLAlchemyError as error:
            reason = getattr(error, "orig", None) or error
            raise StorageError(f"cannot lock database {shown(location)!r}: {reason}") from None
    return Hold(taken)


def _refusal(location: str, alone: bool) -> DatabaseServed:
    location = shown(location)
    if alone:
        return DatabaseServed(
            f"database {location!r} is already served by another running guts serve; two "
            "servers without --redis would run the same rooms twice: stop the other one, "
            "or use --workers N (one machine) or --redis URL on every server for several "
            "processes")
    return DatabaseServed(
        f"database {location!r} is served by a running guts serve without --redis; stop "
        "it first (or start it with --redis URL too)")


def _sqlite_file(engine: Engine, location: str) -> Path | None:
    """The file of the SQLite database of ``engine`` as SQLite itself opened it (its
    ``main`` database in ``PRAGMA database_list``), ``None`` for a database in memory.

    Raises:
        StorageError: the database cannot be opened.
    """
    try:
        with engine.connect() as connection:
            rows = connection.exec_driver_sql("PRAGMA database_list").all()
    except SQLAlchemyError as error:
        reason = getattr(error, "orig", None) or error
        raise StorageError(f"cannot open database {shown(location)!r}: {reason}") from None
    files = [str(row[2]) for row in rows if row[1] == "main" and row[2]]
    return Path(files[0]) if files else None


Claim = Callable[[bool], None]
"""Records this cluster's Redis (``True``: no other server holds the database) or checks
it against the one recorded (``False``), raising :class:`DatabaseServed`."""


def _claim(engine: Engine, location: str, redis: str) -> Claim:
    def claim(first: bool) -> None:
        with engine.begin() as connection:
            recorded = connection.execute(
                text("SELECT redis FROM served_by WHERE id = 1")).scalar()
            if not first and recorded is not None and recorded != redis:
                raise DatabaseServed(
                    f"database {shown(location)!r} is served by running guts serve "
                    f"--redis servers on Redis {recorded!r}, not this server's {redis!r}: "
                    "two clusters would run the same rooms twice; give every server of a "
                    "database the same --redis URL (or stop the others first)")
            if recorded != redis:
                connection.execute(text("DELETE FROM served_by"))
                connection.execute(text("INSERT INTO served_by (id, redis) VALUES (1, :r)"),
                                   {"r": redis})
    return claim


def _flock(database: Path, alone: bool, location: str,
           claim: Claim | None = None) -> Callable[[], None] | None:
    try:
        import fcntl
    except ImportError:  # not a POSIX system: no hold
        return None
    try:
        descriptor = os.open(database, os.O_RDONLY)
    except OSError as error:
        raise StorageError(f"cannot open database {shown(location)!r} "
                           f"({str(database)!r}): {error.strerror}") from None
    try:
        _take_flock(fcntl, descriptor, alone, location, claim)
    except BaseException:
        os.close(descriptor)
        raise

    def release() -> None:
        os.close(descriptor)

    return release


def _take_flock(fcntl: Any, descriptor: int, alone: bool, location: str,
                claim: Claim | None) -> None:
    if claim is None:
        try:
            fcntl.flock(descriptor, (fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
                        | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _refusal(location, alone) from None
        return
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        with contextlib.suppress(BlockingIOError):
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            claim(True)  # no other server: this cluster's Redis is recorded
            with contextlib.suppress(BlockingIOError):  # (not atomic: may lose it)
                fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return
        with contextlib.suppress(BlockingIOError):
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
            claim(False)  # servers of a cluster run: theirs must be this one's
            return
        if time.monotonic() > deadline:  # held alone all along: a server without Redis
            raise _refusal(location, alone)
        time.sleep(0.05)  # another cluster server recording its Redis for a moment


def _advisory(engine: Engine, alone: bool, location: str,
              claim: Claim | None = None) -> Callable[[], None]:
    own = create_engine(engine.url, poolclass=NullPool)  # a connection of its own
    connection = own.connect()
    try:
        got = _take_advisory(connection, alone, claim)
    except BaseException:
        connection.close()
        own.dispose()
        raise
    if not got:
        connection.close()
        own.dispose()
        raise _refusal(location, alone)

    def release() -> None:
        connection.close()
        own.dispose()

    return release


def _take_advisory(connection: Connection, alone: bool, claim: Claim | None) -> bool:
    key = {"key": ADVISORY_KEY}
    alone_lock = "(:key, hashtext(current_schema()))"

    def take(function: str) -> bool:
        got = connection.execute(text(f"SELECT {function}{alone_lock}"), key).scalar()
        connection.commit()  # a session lock outlives the transaction; none stays open
        return bool(got)

    if claim is None:
        return take("pg_try_advisory_lock" if alone else "pg_try_advisory_lock_shared")
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        if take("pg_try_advisory_lock"):  # no other server: record this cluster's Redis
            try:
                claim(True)
            finally:  # the shared hold taken before the exclusive one is let go
                take("pg_try_advisory_lock_shared")
                take("pg_advisory_unlock")
            return True
        if take("pg_try_advisory_lock_shared"):
            claim(False)  # servers of a cluster run: theirs must be this one's
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


UNLIMITED_FILES = 65_536
"""The open files asked for when the hard limit is unlimited (macOS's ``launchctl``
default: setting the soft limit to "unlimited" is refused there)."""


def raise_open_files() -> int | None:
    """Raise this process's soft limit of open files (``RLIMIT_NOFILE``: every
    connection is one) to its hard limit, or :data:`UNLIMITED_FILES` when that is
    unlimited, as far as the system allows; the workers of ``guts serve --workers`` inherit
    it. Returns the soft limit now in force (``None``: no such limit, e.g. Windows).

    Each connection is a file: at Linux's usual soft limit of 1,024, a thousand idle
    connections lock every other client out (attack9 M1).
    """
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = UNLIMITED_FILES if hard == resource.RLIM_INFINITY else hard
    if soft == resource.RLIM_INFINITY or soft >= want:
        return None if soft == resource.RLIM_INFINITY else soft
    for limit in (want, 10_240):  # macOS refuses more than OPEN_MAX (10,240) at times
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
            return limit
        except (ValueError, OSError):
            continue
    return soft
