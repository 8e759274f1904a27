"""Saved hand histories: sessions and their events in a database (SQLAlchemy 2).

An embedded SQLite file is the default (:func:`default_db_path`, in the user's data
folder); any SQLAlchemy URL works (``postgresql+psycopg://...``). Two tables:

* ``sessions``: one row per session: ``id``, ``created_at`` (UTC), ``source`` (who played it:
  ``"play"``, ``"sim"``, ...), ``rules`` (the house rules, JSON), ``players`` (names, JSON),
  ``status`` (``"playing"`` or ``"finished"``) and ``end_reason``;
* ``events``: the hand history: ``session_id``, ``seq`` (0, 1, 2, ...), ``type`` (the event
  class name) and ``payload`` (the event as :func:`gutskit.core.history.event_to_dict` writes it).

Events are appended as they happen, one transaction per call (the terminal game calls it once
per round), so a session interrupted at any point keeps every finished round, and
:func:`gutskit.core.engine.replay` of :meth:`Store.events` rebuilds the state.

To add tables (e.g. rooms for the server), subclass :class:`Base` in another module and
call ``Base.metadata.create_all`` (or migrate with Alembic); :func:`open_store` creates the
tables it knows about. Whoever creates or migrates tables does it under
:func:`schema_lock`, so two processes opening one new database at once (two ``guts serve``
on two machines, two ``guts play``) do not both create them: one does, the other waits and
finds them.

>>> from gutskit.core.engine import end_session, evolve, replay, start_event
>>> store = open_store("sqlite://")  # in memory
>>> start = start_event(["Ana", "Ben"], 10)
>>> session_id = store.create_session("play", start)
>>> state = evolve(None, start)
>>> state, events = end_session(state)
>>> store.append(session_id, events)
>>> replay(store.events(session_id)) == state
True
>>> store.session(session_id).status
'finished'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Integer,
    String,
    create_engine,
    func,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from gutskit.core.events import CardsDealt, Event, SessionEnded, SessionStarted
from gutskit.core.history import event_from_dict, event_to_dict
from gutskit.io.location import (
    STORE_TABLES,
    StorageError,
    check_not_foreign,
    default_db_path,
    shown,
    sqlite_url,
    unknown_scheme,
)

__all__ = [
    "Base",
    "EventRecord",
    "SessionInfo",
    "SessionRecord",
    "StorageError",
    "Store",
    "default_db_path",
    "open_store",
    "schema_lock",
    "tables_of",
]

SCHEMA_LOCK_KEY = 0x6775_7473_6B69_74  # "gutskit"
"""The PostgreSQL advisory lock of :func:`schema_lock` (a 64-bit key, one per database)."""

SQLITE_SCHEMA_WAIT_MS = 60_000
"""How long :func:`schema_lock` waits for SQLite's write lock (milliseconds): a migration
by another process, or a write of a running server, holds it meanwhile."""


@contextmanager
def schema_lock(engine: Engine) -> Iterator[Connection]:
    """A connection of ``engine`` in a transaction holding the database's schema lock: create
    or migrate tables on it (it commits when the block ends, rolls back if the block
    raises). Another process asking for the lock waits until that transaction ends, then
    sees the tables (so it finds nothing left to do).

    * SQLite: ``BEGIN IMMEDIATE`` (the database file's write lock, waited for up to
      :data:`SQLITE_SCHEMA_WAIT_MS`); the DDL runs in that transaction, all or nothing.
    * PostgreSQL: ``pg_advisory_xact_lock(SCHEMA_LOCK_KEY)``, released at commit or rollback
      (PostgreSQL's DDL is transactional too).
    * Any other database: a plain transaction (no lock).

    Raises:
        sqlalchemy.exc.SQLAlchemyError: the database cannot be opened, or (SQLite) its write
            lock stayed held for :data:`SQLITE_SCHEMA_WAIT_MS` ("database is locked").
    """
    backend = engine.dialect.name
    with engine.connect() as connection:
        if backend == "sqlite":
            busy = connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one()
            connection.exec_driver_sql(f"PRAGMA busy_timeout = {SQLITE_SCHEMA_WAIT_MS}")
            try:
                connection.exec_driver_sql("BEGIN IMMEDIATE")
                yield connection
                connection.commit()
            finally:
                connection.rollback()  # nothing left to roll back after the commit
                connection.exec_driver_sql(f"PRAGMA busy_timeout = {int(busy)}")
            return
        with connection.begin():
            if backend == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                   {"key": SCHEMA_LOCK_KEY})
            yield connection


class Base(DeclarativeBase):
    """Declarative base of every gutskit table."""


class SessionRecord(Base):
    """A saved session."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    source: Mapped[str] = mapped_column(String(32))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    players: Mapped[list[str]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default="playing")
    end_reason: Mapped[str | None] = mapped_column(String(200), default=None)


class EventRecord(Base):
    """One hand-history event of a session."""

    __tablename__ = "events"

    session_id: Mapped[int] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"),
                                            primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(40))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A saved session's summary.

    Attributes:
        id: the session id (``guts history ID``).
        created_at: when it started (UTC).
        source: ``"play"``, ``"sim"``, ...
        rules: the house rules (JSON object).
        players: names in seat order.
        status: ``"playing"`` (not ended, e.g. interrupted) or ``"finished"``.
        end_reason: why it ended.
        events: number of saved events.
        rounds: number of rounds dealt.
    """

    id: int
    created_at: datetime
    source: str
    rules: dict[str, Any]
    players: list[str]
    status: str
    end_reason: str | None
    events: int
    rounds: int


def open_store(url_or_path: str | Path | None = None, *, create: bool = True) -> Store:
    """Open (and create if needed) the store at a SQLAlchemy URL or a SQLite file path
    (default: :func:`default_db_path`). Missing tables are created (under
    :func:`schema_lock`: safe when another process opens the same new database at once;
    a database with every table is opened without the lock).

    Args:
        url_or_path: where the store is.
        create: ``False`` for a command that only reads (``guts history``, ``guts
            analyze``): a database holding none of gutskit's tables (an empty file, another
            program's database) is refused, never turned into a store.

    Raises:
        StorageError: the URL is malformed, the file's folder does not exist (only the
            default folder is created), the database cannot be opened (e.g. the file is
            not a SQLite database), it holds another program's tables and none of
            gutskit's or, with ``create=False``, it is not a gutskit store.
    """
    target = default_db_path() if url_or_path is None else url_or_path
    url = sqlite_url(url_or_path)
    try:
        engine = create_engine(make_url(url))
        present = tables_of(engine, target)  # no lock when nothing is missing (readers)
        missing = set(Base.metadata.tables) - present
        if not create and missing == set(Base.metadata.tables):
            engine.dispose()
            raise StorageError(f"{shown(target)!r} is not a gutskit database: it holds no "
                               "saved sessions table (an empty file, or another program's)")
        if missing:
            with schema_lock(engine) as connection:
                Base.metadata.create_all(connection)
    except NoSuchModuleError:  # an unknown scheme (a subclass of ArgumentError)
        raise StorageError(unknown_scheme(target)) from None
    except ArgumentError as error:
        raise StorageError(f"bad database URL {shown(target)!r}: {error}") from None
    except ImportError as error:  # a URL whose driver is not installed
        raise StorageError(f"cannot open database {shown(target)!r}: its driver is not "
                           f"installed ({error.name or error})") from None
    except SQLAlchemyError as error:
        raise StorageError(f"cannot open database {shown(target)!r}: "
                           f"{_reason(error)}") from None
    return Store(engine, str(target))


def tables_of(engine: Engine, location: str | Path) -> set[str]:
    """The tables of the database of ``engine`` (read only: nothing is written), after
    :func:`~gutskit.io.location.check_not_foreign` (the store of ``guts play`` and the
    server's, before it is migrated).

    Raises:
        StorageError: it is another program's database (the engine is disposed).
        sqlalchemy.exc.SQLAlchemyError: it cannot be opened.
    """
    with engine.connect() as connection:
        inspector = inspect(connection)
        present = set(inspector.get_table_names()) | set(inspector.get_view_names())
        columns = {name: [column["name"] for column in inspector.get_columns(name)]
                   for name in present & STORE_TABLES}
    try:
        check_not_foreign(present, location, columns_of=columns.__getitem__)
    except StorageError:
        engine.dispose()
        raise
    return present


def _reason(error: SQLAlchemyError) -> str:
    orig = getattr(error, "orig", None)
    return str(orig) if orig is not None else str(error).splitlines()[0]


class Store:
    """Saved sessions in one database. Create with :func:`open_store`.

    Attributes:
        engine: the SQLAlchemy engine.
        location: the path or URL it was opened with (for messages).
    """

    def __init__(self, engine: Engine, location: str) -> None:
        self.engine = engine
        self.location = location
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    def _db(self) -> Session:
        return self._sessions()

    def create_session(self, source: str, start: SessionStarted) -> int:
        """Save a new session and its :class:`~gutskit.core.events.SessionStarted` event.

        Args:
            source: who plays it (``"play"``, ``"sim"``, ...).
            start: the session's first event (:func:`gutskit.core.engine.start_event`).

        Returns:
            The new session's id.

        Raises:
            StorageError: the database cannot be written.
        """
        record = SessionRecord(created_at=datetime.now(UTC), source=source,
                               rules=start.rules.to_dict(), players=list(start.names),
                               status="playing", end_reason=None)
        try:
            with self._db() as db, db.begin():
                db.add(record)
                db.flush()
                db.add(EventRecord(session_id=record.id, seq=0, type="SessionStarted",
                                   payload=event_to_dict(start)))
        except SQLAlchemyError as error:
            raise StorageError(f"cannot save to {self.location!r}: {_reason(error)}") from None
        return record.id

    def append(self, session_id: int, events: Sequence[Event], *,
               end_reason: str | None = None) -> None:
        """Append ``events`` to a session's history in one transaction.

        The session becomes ``"finished"`` when ``events`` hold a
        :class:`~gutskit.core.events.SessionEnded` or ``end_reason`` is given (a session that
        ended with nothing left to share has no SessionEnded event).

        Raises:
            StorageError: no such session, or the database cannot be written.
        """
        try:
            with self._db() as db, db.begin():
                record = db.get(SessionRecord, session_id)
                if record is None:
                    raise StorageError(f"no session {session_id} in {self.location!r}")
                seq = db.scalar(select(func.count()).select_from(EventRecord)
                                .where(EventRecord.session_id == session_id)) or 0
                for offset, event in enumerate(events):
                    payload = event_to_dict(event)
                    db.add(EventRecord(session_id=session_id, seq=seq + offset,
                                       type=payload["type"], payload=payload))
                    if isinstance(event, SessionEnded):
                        record.status = "finished"
                        record.end_reason = event.reason
                if end_reason is not None:
                    record.status = "finished"
                    record.end_reason = record.end_reason or end_reason
        except SQLAlchemyError as error:
            raise StorageError(f"cannot save to {self.location!r}: {_reason(error)}") from None

    def events(self, session_id: int) -> list[Event]:
        """A session's hand history, in order.

        Raises:
            StorageError: no such session, or a stored event cannot be read.
        """
        if not 0 < session_id < 2**63:  # beyond any row id (and SQLite's integers)
            raise StorageError(f"no session {session_id} in {self.location!r}")
        try:
            with self._db() as db:
                if db.get(SessionRecord, session_id) is None:
                    raise StorageError(f"no session {session_id} in {self.location!r}")
                payloads = db.scalars(select(EventRecord.payload)
                                      .where(EventRecord.session_id == session_id)
                                      .order_by(EventRecord.seq)).all()
        except SQLAlchemyError as error:
            raise StorageError(f"cannot read {self.location!r}: {_reason(error)}") from None
        return [event_from_dict(dict(p)) for p in payloads]

    def sessions(self) -> list[SessionInfo]:
        """Every saved session, oldest first."""
        return self._infos(None)

    def session(self, session_id: int) -> SessionInfo:
        """One session's summary.

        Raises:
            StorageError: no such session.
        """
        infos = self._infos(session_id) if 0 < session_id < 2**63 else []
        if not infos:
            raise StorageError(f"no session {session_id} in {self.location!r}")
        return infos[0]

    def _infos(self, session_id: int | None) -> list[SessionInfo]:
        counts = (select(EventRecord.session_id,
                         func.count().label("events"),
                         func.count().filter(EventRecord.type == CardsDealt.__name__)
                         .label("rounds"))
                  .group_by(EventRecord.session_id).subquery())
        query = (select(SessionRecord, counts.c.events, counts.c.rounds)
                 .outerjoin(counts, counts.c.session_id == SessionRecord.id)
                 .order_by(SessionRecord.id))
        if session_id is not None:
            query = query.where(SessionRecord.id == session_id)
        try:
            with self._db() as db:
                rows = db.execute(query).all()
        except SQLAlchemyError as error:
            raise StorageError(f"cannot read {self.location!r}: {_reason(error)}") from None
        return [SessionInfo(id=r.id, created_at=r.created_at, source=r.source,
                            rules=dict(r.rules), players=list(r.players), status=r.status,
                            end_reason=r.end_reason, events=events or 0, rounds=rounds or 0)
                for r, events, rounds in rows]
