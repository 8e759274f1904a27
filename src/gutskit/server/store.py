"""Persistence of the server's rooms, on the tables of :mod:`gutskit.io.storage`.

A room's game is a session of :mod:`gutskit.io.storage` (``sessions`` / ``events``, source
``"server"``): the hand history *is* the room's state, and :func:`gutskit.core.engine.replay`
rebuilds it after a restart. Five more tables hold what is not a game event:

* ``rooms``: id, settings (JSON: rules, buy-in, timers), status, paused, session id;
* ``room_seats``: name, bot style, host flag, kicked flag and the SHA-256 of the secret seat
  token (the token itself is never stored);
* ``room_deals``: per round, the fairness commitment and the server seed (version 1:
  secret until ``revealed``; version 2: never published), the client seeds mixed into the
  deal (``null`` until dealt) and the positions opened (``null`` until opened);
* ``room_actions``: client action ids already applied (duplicates are acknowledged, not
  applied again, also after a restart);
* ``room_asks``: requests to sit down waiting for the host or the next session (the
  SHA-256 of each request's token, with which its requester takes it back).

What a seat has pending is kept on its ``room_seats`` row (:data:`PENDING_FIELDS`: a return
asked for during a game, the host's mute, a rebuy asked for / approved, the fairness client
seed sent for the next deal), so a restarted server or a worker taking a room over has it
all (migration 0004).

Every write is one transaction; the room authority (:mod:`gutskit.server.rooms`) writes the
events of an action *before* it sends anything about them. The schema is created and
upgraded by Alembic (:func:`upgrade`, migrations in ``gutskit/server/migrations``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import hashlib
import logging
import operator
import sqlite3
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Insert,
    Integer,
    String,
    Update,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker
from sqlalchemy.pool import PoolProxiedConnection

from gutskit.core.events import Event, SessionEnded, SessionStarted
from gutskit.core.history import event_from_dict, event_to_dict
from gutskit.io.location import shown, sqlite_url, unknown_scheme
from gutskit.io.storage import (
    SQLITE_SCHEMA_WAIT_MS,
    Base,
    EventRecord,
    SessionRecord,
    StorageError,
    default_db_path,
    schema_lock,
    tables_of,
)

__all__ = [
    "ARCHIVED",
    "PENDING_FIELDS",
    "SET_ASIDE",
    "AskRow",
    "DealRow",
    "LoadedRoom",
    "RoomStore",
    "SeatRow",
    "hash_token",
    "open_room_store",
    "upgrade",
]

MIGRATIONS = Path(__file__).parent / "migrations"


class RoomRecord(Base):
    """A room."""

    __tablename__ = "rooms"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16))
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    session_id: Mapped[int | None] = mapped_column(
        ForeignKey("sessions.id", ondelete="SET NULL"), default=None)
    ask_count: Mapped[int] = mapped_column(Integer, default=0)
    """Requests to sit down made so far (the last one's number)."""


class SeatRecord(Base):
    """A seat of a room."""

    __tablename__ = "room_seats"

    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str | None] = mapped_column(String(64), default=None, index=True)
    bot_style: Mapped[str | None] = mapped_column(String(16), default=None)
    host: Mapped[bool] = mapped_column(Boolean, default=False)
    kicked: Mapped[bool] = mapped_column(Boolean, default=False)
    chair: Mapped[int | None] = mapped_column(Integer, default=None)
    back_next_game: Mapped[bool] = mapped_column(Boolean, default=False)
    muted: Mapped[bool] = mapped_column(Boolean, default=False)
    rebuy_chips: Mapped[int | None] = mapped_column(Integer, default=None)
    rebuy_approved: Mapped[bool] = mapped_column(Boolean, default=False)
    client_seed: Mapped[str | None] = mapped_column(String(128), default=None)


class DealRecord(Base):
    """The fairness record of one round of a room."""

    __tablename__ = "room_deals"

    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    commitment: Mapped[str] = mapped_column(String(64))
    seed: Mapped[str] = mapped_column(String(64))
    revealed: Mapped[bool] = mapped_column(Boolean, default=False)
    client_seeds: Mapped[list[str | None] | None] = mapped_column(JSON, default=None)
    opened: Mapped[list[int] | None] = mapped_column(JSON, default=None)


class AskRecord(Base):
    """A request to sit down waiting for the host or for the next session."""

    __tablename__ = "room_asks"

    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    chair: Mapped[int] = mapped_column(Integer)
    next_game: Mapped[bool] = mapped_column(Boolean, default=False)
    approved: Mapped[bool] = mapped_column(Boolean, default=False)
    token_hash: Mapped[str] = mapped_column(String(64))


class ActionRecord(Base):
    """A client action applied in a room (for duplicate detection)."""

    __tablename__ = "room_actions"

    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    action_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    round: Mapped[int] = mapped_column(Integer)


class ServedByRecord(Base):
    """The Redis of the cluster that serves the database (one row, ``id`` 1; none until a
    server with ``--redis`` started on it): :func:`gutskit.server.serving.hold_database`
    refuses a server of another cluster while one of this cluster runs (attack9 M2)."""

    __tablename__ = "served_by"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    redis: Mapped[str] = mapped_column(String(512))


def hash_token(token: str) -> str:
    """SHA-256 (hex) of a seat token: what the database keeps."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class SeatRow:
    """A seat as stored."""

    seat: int
    name: str
    token_hash: str | None
    bot_style: str | None
    host: bool
    kicked: bool
    chair: int | None = None
    """The chair around the table (0-9 clockwise; ``None`` in rooms stored before chairs:
    the seat number)."""
    back_next_game: bool = False
    """Away, and its return asked for during a game: dealt in again when the next game
    starts (:func:`gutskit.core.table.can_come_back`)."""
    muted: bool = False
    """The host muted this seat's chat."""
    rebuy_chips: int | None = None
    """A rebuy asked for and not yet applied (chips), else ``None``."""
    rebuy_approved: bool = False
    """The host approved :attr:`rebuy_chips` (applied at the next break the rules allow)."""
    client_seed: str | None = None
    """Fairness version 2: the client seed (hex) this seat sent for the next deal."""

    def pending(self) -> tuple[bool, bool, int | None, bool, str | None]:
        """What the seat has pending, in the order of :data:`PENDING_FIELDS`."""
        return (self.back_next_game, self.muted, self.rebuy_chips, self.rebuy_approved,
                self.client_seed)


PENDING_FIELDS = ("back_next_game", "muted", "rebuy_chips", "rebuy_approved", "client_seed")
"""The fields of :class:`SeatRow` that hold what a seat has pending (rewritten by
:meth:`RoomStore.put_pending` and :meth:`RoomStore.append` ``pending``)."""


@dataclass
class AskRow:
    """A request to sit down as stored: its number, the name and chair asked for, whether
    it is for the next session and approved, and the SHA-256 of the request's secret token
    (with which the requester takes it back after reconnecting; once granted, the seat's
    token)."""

    number: int
    name: str
    chair: int
    next_game: bool
    approved: bool
    token_hash: str


@dataclass
class DealRow:
    """A round's fairness record as stored (:mod:`gutskit.server.fairness`): ``seed`` is
    the server's secret seed; version 2 adds the client seeds mixed in (``None`` until
    the round is dealt) and the committed positions opened (``None`` until opened)."""

    round: int
    commitment: str
    seed: str
    revealed: bool
    client_seeds: list[str | None] | None = None
    opened: list[int] | None = None


@dataclass
class LoadedRoom:
    """Everything stored about a room: enough to rebuild it."""

    room_id: str
    settings: dict[str, Any]
    status: str
    paused: bool
    session_id: int | None
    seats: list[SeatRow]
    events: list[Event] = field(default_factory=list)
    deals: list[DealRow] = field(default_factory=list)
    actions: dict[str, tuple[int, int]] = field(default_factory=dict)
    asks: list[AskRow] = field(default_factory=list)
    ask_count: int = 0


def upgrade(engine: Engine) -> None:
    """Bring the database to the newest schema (``alembic upgrade head``), under
    :func:`gutskit.io.storage.schema_lock`: of servers starting at once on one new database
    (e.g. on two machines), one migrates and the others wait, then find it at head.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: the database cannot be opened or migrated (nothing of
            a failed migration stays: it runs in one transaction).
    """
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with schema_lock(engine) as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def open_room_store(target: str | Path | None = None) -> RoomStore:
    """Open the database at a SQLAlchemy URL or SQLite path (default:
    :func:`gutskit.io.storage.default_db_path`) and migrate it to the newest schema.

    Raises:
        StorageError: bad URL, or the database cannot be opened or migrated.
    """
    location = default_db_path() if target is None else target
    try:
        url = make_url(sqlite_url(target))
        engine = create_engine(url)
        tables_of(engine, location)  # another program's database: refused, untouched
        engine.dispose()  # (its connection had none of the pragmas below)
        if url.get_backend_name() == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas)
        upgrade(engine)
    except NoSuchModuleError:  # an unknown scheme (a subclass of ArgumentError)
        raise StorageError(unknown_scheme(location)) from None
    except ArgumentError as error:
        raise StorageError(f"bad database URL {shown(location)!r}: {error}") from None
    except (SQLAlchemyError, OSError) as error:
        reason = getattr(error, "orig", None) or error
        raise StorageError(f"cannot open database {shown(location)!r}: {reason}") from None
    return RoomStore(engine, str(location))


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # A new database's switch to WAL takes its exclusive lock: wait for another server's
    # migration holding the write lock (storage.schema_lock) as long as schema_lock waits,
    # not pysqlite's 5 s, then 5 s again. SQLite may still answer "database is locked" at
    # once while another process opens or switches the same new file (two servers started
    # together: tests/test_store_migrate_race.py, 2 runs in 6). WAL is the file's own
    # setting, made by that process or at this store's next connection; this connection
    # works meanwhile in the journal mode the file has.
    cursor.execute(f"PRAGMA busy_timeout = {SQLITE_SCHEMA_WAIT_MS}")
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
    except sqlite3.OperationalError as error:
        if "locked" not in str(error):
            raise
    cursor.execute("PRAGMA busy_timeout = 5000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


@dataclass
class _Rows:
    """The rows of one :meth:`RoomStore.append` (SQLAlchemy Core: no ORM overhead on the
    hot path). Several are written in one transaction with one ``executemany`` per
    statement (:func:`_write`)."""

    events: list[dict[str, Any]] = field(default_factory=list)
    deals: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    reveals: list[dict[str, Any]] = field(default_factory=list)
    ended: list[tuple[str, int, str]] = field(default_factory=list)
    deal_updates: list[dict[str, Any]] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)


def _pending_rows(room_id: str, seats: Sequence[SeatRow]) -> list[dict[str, Any]]:
    """The parameters of :data:`_PENDING` for ``seats``."""
    return [{"p_room": room_id, "p_seat": seat.seat,
             **{name: getattr(seat, name) for name in PENDING_FIELDS}} for seat in seats]


def _append_rows(room_id: str, session_id: int, first_seq: int, events: Sequence[Event],
                 deal: DealRow | None, action: tuple[str, int, int] | None,
                 reveal: Sequence[int], deal_updates: Sequence[DealRow] = (),
                 payloads: Sequence[dict[str, Any]] | None = None,
                 pending: Sequence[SeatRow] = ()) -> _Rows:
    """The rows of :meth:`RoomStore.append` (``payloads``: the events'
    :func:`~gutskit.core.history.event_to_dict`, when the caller has them)."""
    rows = _Rows()
    for offset, item in enumerate(events):
        payload = event_to_dict(item) if payloads is None else payloads[offset]
        rows.events.append({"session_id": session_id, "seq": first_seq + offset,
                            "type": payload["type"], "payload": payload})
        if isinstance(item, SessionEnded):
            rows.ended.append((room_id, session_id, item.reason))
    if deal is not None:
        rows.deals.append({"room_id": room_id, **vars(deal)})
    if action is not None:
        rows.actions.append({"room_id": room_id, "action_id": action[0], "seat": action[1],
                             "round": action[2]})
    rows.reveals.extend({"r_room": room_id, "r_round": number} for number in reveal)
    rows.deal_updates.extend({"u_room": room_id, "u_round": d.round,
                              "u_seeds": d.client_seeds, "u_opened": d.opened}
                             for d in deal_updates)
    rows.pending.extend(_pending_rows(room_id, pending))
    return rows


_EVENTS = Base.metadata.tables[EventRecord.__tablename__]
_DEALS = Base.metadata.tables[DealRecord.__tablename__]
_ACTIONS = Base.metadata.tables[ActionRecord.__tablename__]
_SESSIONS = Base.metadata.tables[SessionRecord.__tablename__]
_ROOMS = Base.metadata.tables[RoomRecord.__tablename__]
# The hot path's statements, built once on the Core tables (no ORM plugin, no statement
# built per call; SQLAlchemy caches each one's compiled form), each run once per commit
# with the rows of every room (``executemany``).
_INSERT_EVENTS = insert(_EVENTS)
_INSERT_DEALS = insert(_DEALS)
_INSERT_ACTIONS = insert(_ACTIONS)
_REVEAL = (update(_DEALS)
           .where(_DEALS.c.room_id == bindparam("r_room"),
                  _DEALS.c.round == bindparam("r_round"))
           .values(revealed=True))
_UPDATE_DEAL = (update(_DEALS)
                .where(_DEALS.c.room_id == bindparam("u_room"),
                       _DEALS.c.round == bindparam("u_round"))
                .values(client_seeds=bindparam("u_seeds"), opened=bindparam("u_opened")))
_END_SESSION = (update(_SESSIONS).where(_SESSIONS.c.id == bindparam("e_session"))
                .values(status="finished", end_reason=bindparam("e_reason")))
_ROOM_OVER = update(_ROOMS).where(_ROOMS.c.id == bindparam("e_room")).values(status="over")
_SEATS = Base.metadata.tables[SeatRecord.__tablename__]
_PENDING = (update(_SEATS)
            .where(_SEATS.c.room_id == bindparam("p_room"),
                   _SEATS.c.seat == bindparam("p_seat"))
            .values({name: bindparam(name) for name in PENDING_FIELDS}))


_STATEMENTS: dict[str, tuple[Insert | Update, tuple[str, ...] | None]] = {
    "events": (_INSERT_EVENTS, ("session_id", "seq", "type", "payload")),
    "end_session": (_END_SESSION, None),
    "room_over": (_ROOM_OVER, None),
    "deals": (_INSERT_DEALS, ("room_id", "round", "commitment", "seed", "revealed",
                              "client_seeds", "opened")),
    "actions": (_INSERT_ACTIONS, ("room_id", "action_id", "seat", "round")),
    "reveal": (_REVEAL, None),
    "update_deal": (_UPDATE_DEAL, None),
    "pending": (_PENDING, None),
}
"""The hot path's statements in the order a commit runs them (events first: a session's
end comes after its events), with the columns an insert's rows give (an update's
parameters are its bound names)."""


def _parameters(batch: Sequence[_Rows]) -> list[tuple[str, list[dict[str, Any]]]]:
    """What a commit of ``batch`` runs: each statement of :data:`_STATEMENTS` that has
    rows, in that order, with the rows of the whole batch (events in the order given, so
    each session's ``seq`` ascends)."""
    ended = [item for rows in batch for item in rows.ended]
    every = {
        "events": [row for rows in batch for row in rows.events],
        "end_session": [{"e_session": session_id, "e_reason": reason}
                        for _, session_id, reason in ended],
        "room_over": [{"e_room": room_id} for room_id, _, _ in ended],
        "deals": [row for rows in batch for row in rows.deals],
        "actions": [row for rows in batch for row in rows.actions],
        "reveal": [row for rows in batch for row in rows.reveals],
        "update_deal": [row for rows in batch for row in rows.deal_updates],
        "pending": [row for rows in batch for row in rows.pending],
    }
    return [(name, every[name]) for name in _STATEMENTS if every[name]]


def _write(connection: Connection, batch: Sequence[_Rows]) -> None:
    """Write ``batch`` on ``connection`` (inside its transaction): one ``executemany``
    per statement of :func:`_parameters`."""
    for name, rows in _parameters(batch):
        connection.execute(_STATEMENTS[name][0], rows)


@dataclass(frozen=True, slots=True)
class _RawStatement:
    """A statement of :data:`_STATEMENTS` compiled once for the raw ``sqlite3`` driver:
    its SQL (``qmark`` parameters), the parameters' names in order, the values bound in
    the statement itself (``status = 'finished'``) and each parameter's bind processor
    (the column type's, as SQLAlchemy runs it: ``JSON`` serialized, ``Boolean`` as 0/1)."""

    sql: str
    names: tuple[str, ...]
    constants: dict[str, Any]
    processors: tuple[tuple[int, Callable[[Any], Any]], ...]
    take: Callable[[dict[str, Any]], Any] = field(init=False, repr=False, compare=False)
    """The parameters' values in order (``operator.itemgetter``)."""

    def __post_init__(self) -> None:
        take = operator.itemgetter(*self.names)
        if len(self.names) == 1:  # itemgetter of one name gives the value, not a tuple
            object.__setattr__(self, "take", lambda row: (take(row),))
        else:
            object.__setattr__(self, "take", take)

    def row(self, parameters: dict[str, Any]) -> tuple[Any, ...]:
        """The positional parameters of one row."""
        values: tuple[Any, ...] = self.take(
            {**self.constants, **parameters} if self.constants else parameters)
        if not self.processors:
            return values
        processed = list(values)
        for index, process in self.processors:
            processed[index] = process(processed[index])
        return tuple(processed)


def _raw_statement(statement: Insert | Update, columns: tuple[str, ...] | None) -> _RawStatement:
    """``statement`` compiled for SQLite (SQLAlchemy's compiler, the same SQL as its own
    execution sends), with what :meth:`_RawStatement.row` needs."""
    dialect = sqlite.dialect()
    compiled = statement.compile(dialect=dialect,
                                 column_keys=None if columns is None else list(columns))
    names = tuple(compiled.positiontup or ())
    constants = {name: compiled.binds[name].value for name in names
                 if not compiled.binds[name].required}
    processors = []
    for index, name in enumerate(names):
        process = compiled.binds[name].type.bind_processor(dialect)
        if process is not None:
            processors.append((index, process))
    return _RawStatement(str(compiled), names, constants, tuple(processors))


_SQLITE = {name: _raw_statement(statement, columns)
           for name, (statement, columns) in _STATEMENTS.items()}
""":data:`_STATEMENTS` for the raw ``sqlite3`` driver (:func:`_write_sqlite`)."""


def _write_sqlite(connection: sqlite3.Connection, batch: Sequence[_Rows]) -> None:
    """:func:`_write` on the raw ``sqlite3`` connection (inside the transaction its first
    statement begins): the same statements (:data:`_SQLITE`, compiled from the same
    tables) and rows, without SQLAlchemy's per-statement work (compiling the parameters,
    result objects), a quarter of the CPU of a commit."""
    cursor = connection.cursor()
    try:
        for name, rows in _parameters(batch):
            raw = _SQLITE[name]
            cursor.executemany(raw.sql, [raw.row(row) for row in rows])
    finally:
        cursor.close()


_P = ParamSpec("_P")
_T = TypeVar("_T")


class GroupWriter:
    """The store's database thread: group commit off the event loop, and every other job
    of the store (:meth:`RoomStore.run`), one at a time in the order submitted (one writer:
    no two transactions of this server wait for each other's lock).

    Writes (:meth:`submit`, from any room) are queued for the thread, which takes
    everything queued each time it is free: consecutive writes are committed together in
    one transaction, one ``executemany`` per statement, and each submitter resumes once its
    rows are committed. So a write never waits for the event loop to start its commit (the
    thread starts the next commit as soon as the previous one ends), and the outcomes of a
    whole batch go back to the loop in one callback (one wake-up of the loop, however many
    rooms wait); a job marked ``idle`` (:meth:`call`) runs only when nothing else is
    queued. While a commit runs (a slow or locked database) the loop goes on serving
    every other room; the writes submitted meanwhile are the next batch. If the transaction
    fails, each write is retried alone, so one room's failure is reported to that room
    only. The thread starts at the first job (a store only read, e.g. by the CLI, has
    none)."""

    def __init__(self, engine: Engine, name: str = "gutskit-db") -> None:
        self.engine = engine
        self.name = name
        self._queue: list[_Job] = []
        self._idle: list[_Job] = []
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closing = False
        self._raw: PoolProxiedConnection | None = None
        """The SQLite connection of the thread's commits (taken at the first one)."""
        self.commits = 0
        """Transactions committed (or tried) so far: one per batch (:meth:`_commit`)."""
        self.writes = 0
        """Writes (:meth:`submit`) committed so far."""

    def submit(self, rows: _Rows, then: Callable[[], None] | None = None
               ) -> asyncio.Future[None]:
        """Queue ``rows``; the future is done once they are committed (or failed).

        ``then``: run on the loop once the rows are committed, in the callback that hands
        the batch back, before the future is done (its exception, if it raises, is the
        future's): what the submitter does with a committed write is done then, with no
        turn of the loop in between, instead of when its task resumes (a turn later: the
        task's wake-up is scheduled by the future). Not run when the write failed or the
        future was cancelled."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._put(_Job(loop, _settler(loop), future, rows, None, then))
        return future

    def call(self, job: Callable[[], _T], *, idle: bool = False) -> asyncio.Future[_T]:
        """Run ``job`` on the database thread, after everything queued before it; the
        future holds its result or its exception. ``idle``: work that nobody waits for
        yet (the next round's fairness commitment), run only when no write or other job
        is queued, so it never delays one; skipped if its future is cancelled before it
        starts."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_T] = loop.create_future()
        self._put(_Job(loop, _settler(loop), future, None, job), idle)
        return future

    def _put(self, job: _Job, idle: bool = False) -> None:
        with self._ready:
            if self._closing:
                raise RuntimeError("the store is closed")
            (self._idle if idle else self._queue).append(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self.name,
                                                daemon=True)
                self._thread.start()
            self._ready.notify()

    @property
    def thread_id(self) -> int | None:
        """The database thread's identifier (``None`` before its first job or once
        closed): what a benchmark reads that thread's CPU clock by
        (:func:`time.pthread_getcpuclockid`), so the thread keeps no clock of its own."""
        thread = self._thread
        return None if thread is None else thread.ident

    def close(self) -> None:
        """Run what is still queued, then stop the thread (waits for it)."""
        with self._ready:
            self._closing = True
            thread, self._thread = self._thread, None
            self._ready.notify()
        if thread is not None:
            thread.join()

    def _serve(self) -> None:
        """The database thread: take what is queued (else one idle job), run it, hand
        each commit's or job's outcomes back as soon as it is done."""
        while True:
            with self._ready:
                while True:
                    idle = self._idle
                    while idle and idle[0].future.cancelled():  # nobody wants it any more
                        del idle[0]
                    if self._queue or idle or self._closing:
                        break
                    self._ready.wait()
                if self._queue:
                    jobs, self._queue = self._queue, []
                else:
                    jobs = self._idle[:1]
                    del self._idle[:1]
            if not jobs:
                self._release()
                return  # closing, nothing left
            start = 0
            while start < len(jobs):
                end = start
                while end < len(jobs) and jobs[end].rows is not None:
                    end += 1
                if end > start:  # consecutive writes: one transaction
                    batch = jobs[start:end]
                    errors = self._commit([job.rows for job in batch if job.rows is not None])
                    _hand_back([(job, None, error)
                                for job, error in zip(batch, errors, strict=True)])
                    start = end
                    continue
                job = jobs[start]
                assert job.call is not None
                try:
                    outcome: tuple[_Job, Any, BaseException | None] = (job, job.call(), None)
                except Exception as error:
                    outcome = (job, None, error)
                _hand_back([outcome])
                start += 1

    def _commit(self, batch: Sequence[_Rows]) -> list[BaseException | None]:
        """Write ``batch`` (on the database thread); the error of each write, if any."""
        try:
            return self._commit_batch(batch)
        finally:
            self.commits += 1
            self.writes += len(batch)

    def _commit_batch(self, batch: Sequence[_Rows]) -> list[BaseException | None]:
        """One transaction for ``batch``; if it fails, one per write."""
        try:
            self._transaction(batch)
            return [None] * len(batch)
        except Exception:
            errors: list[BaseException | None] = []
            for rows in batch:
                try:
                    self._transaction([rows])
                    errors.append(None)
                except Exception as failure:
                    errors.append(failure)
            return errors

    def _transaction(self, batch: Sequence[_Rows]) -> None:
        """Write and commit ``batch``: on SQLite with the raw driver on the connection
        this thread keeps (:func:`_write_sqlite`), elsewhere through SQLAlchemy.

        Raises:
            sqlalchemy.exc.SQLAlchemyError: the transaction failed (rolled back; a
                ``sqlite3`` error is wrapped as SQLAlchemy wraps it).
        """
        if self.engine.dialect.name != "sqlite":
            with self.engine.begin() as connection:
                _write(connection, batch)
            return
        if self._raw is None:
            self._raw = self.engine.raw_connection()
        raw = self._raw
        driver = raw.driver_connection
        assert isinstance(driver, sqlite3.Connection)
        try:
            _write_sqlite(driver, batch)
            driver.commit()
        except sqlite3.Error as error:
            try:
                driver.rollback()
            except sqlite3.Error:  # the connection is unusable: a new one next time
                raw.invalidate()
                self._raw = None
            raise DBAPIError.instance("group commit", None, error, sqlite3.Error) from None

    def _release(self) -> None:
        """Give the thread's connection back to the pool (the thread is ending)."""
        raw, self._raw = self._raw, None
        if raw is not None:
            with contextlib.suppress(Exception):
                raw.close()


@dataclass(slots=True)
class _Job:
    """A job of the database thread: rows to commit or a call, and the future (of the
    loop ``loop``) that gets its outcome."""

    loop: asyncio.AbstractEventLoop
    settler: _Settler
    """Settles the future on ``loop`` (:func:`_hand_back`)."""
    future: asyncio.Future[Any]
    rows: _Rows | None
    call: Callable[[], Any] | None
    then: Callable[[], None] | None = None
    """Run on the loop once the rows are committed (:meth:`GroupWriter.submit`)."""


def _hand_back(outcomes: Sequence[tuple[_Job, Any, BaseException | None]]) -> None:
    """Settle the futures of ``outcomes`` on their loops: one callback per loop (from the
    database thread: :meth:`_Settler.take`)."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[_Job, Any, BaseException | None]]] = {}
    for outcome in outcomes:
        by_loop.setdefault(outcome[0].loop, []).append(outcome)
    for loop, some in by_loop.items():
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            loop.call_soon_threadsafe(some[0][0].settler.take, some)


SETTLE_BATCH = 8
"""The most outcomes the database thread's hand-backs settle in one turn of an event loop
(each committed write's ``then``: a room's change applied and sent,
:meth:`GroupWriter.submit`); the rest wait for the next turns, in order, so commits of
many rooms' writes never make one long turn of the loop that everything else (a reveal's
frames, other connections' messages) waits behind: at 200 tables one hand-back held up
to 65 rooms' changes, about 9 ms of CPU unloaded and 40 ms and more on a starved loop."""


class _Settler:
    """The outcomes handed back to one event loop (used on that loop's thread only):
    settled in the order they came, at most :data:`SETTLE_BATCH` per turn of the loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.backlog: collections.deque[tuple[_Job, Any, BaseException | None]] = (
            collections.deque())
        self.used = 0
        """Outcomes settled in this turn of the loop."""

    def take(self, outcomes: Sequence[tuple[_Job, Any, BaseException | None]]) -> None:
        """Settle ``outcomes`` after those waiting, as many now as this turn allows."""
        waiting = bool(self.backlog)  # (then a later turn's settle is scheduled)
        self.backlog.extend(outcomes)
        if not waiting:
            self._settle()

    def _new_turn(self) -> None:
        self.used = 0

    def _settle(self) -> None:
        if not self.used:
            self.loop.call_soon(self._new_turn)  # the first callback of the next turn
        backlog = self.backlog
        try:
            while backlog and self.used < SETTLE_BATCH:
                job, result, error = backlog.popleft()
                self.used += 1
                if error is None and job.then is not None and not job.future.cancelled():
                    try:
                        job.then()
                    except Exception as failure:  # the submitter's: raised where it awaits
                        error = failure
                _settle(job.future, result, error)
        finally:  # (whatever was raised, the rest is not left waiting for ever)
            if backlog:
                self.loop.call_soon(self._settle)


_SETTLERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Settler] = (
    weakref.WeakKeyDictionary())


def _settler(loop: asyncio.AbstractEventLoop) -> _Settler:
    """``loop``'s :class:`_Settler` (called on the loop's thread)."""
    settler = _SETTLERS.get(loop)
    if settler is None:
        settler = _SETTLERS[loop] = _Settler(loop)
    return settler


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # cancelled (or, never, settled already)
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


ARCHIVED = "archived"
"""Status of a room closed after being idle (:attr:`ServerConfig.idle_minutes`): not loaded
at start-up, its exports still served."""
SET_ASIDE = "set_aside"
"""Status of a room whose stored events failed to load or replay: not loaded at start-up
(the error is logged); its rows are kept for a human to look at."""

log = logging.getLogger("gutskit.server")


class RoomStore:
    """Rooms in one database. Every method is one transaction. The server calls the
    writing methods through :meth:`run` (and :meth:`append_async`), on one database
    thread, so a slow database never holds up the event loop.

    Raises (every method):
        StorageError: the database cannot be read or written.
    """

    def __init__(self, engine: Engine, location: str) -> None:
        self.engine = engine
        self.location = location
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self.writer = GroupWriter(engine)
        """The group commit of :meth:`append_async` (its counters: ``commits`` and
        ``writes``, read by ``benchmarks/bench_rooms.py``)."""

    async def run(self, method: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """Run a method of this store on its database thread (writes there are done one at a
        time, in the order submitted) and return its result; the event loop serves other
        rooms meanwhile.

        Raises:
            StorageError: as ``method`` does.
        """
        return await self.writer.call(functools.partial(method, *args, **kwargs))

    def _db(self) -> Session:
        return self._sessions()

    def _fail(self, error: SQLAlchemyError) -> StorageError:
        reason = getattr(error, "orig", None) or str(error).splitlines()[0]
        return StorageError(f"cannot write {self.location!r}: {reason}")

    def create_room(self, room_id: str, settings: dict[str, Any], host: SeatRow,
                    *others: SeatRow) -> None:
        """Save a new room (status ``"lobby"``) with its host's seat (and, for a rematch,
        the other seats carried over)."""
        try:
            with self._db() as db, db.begin():
                db.add(RoomRecord(id=room_id, created_at=datetime.now(UTC), settings=settings,
                                  status="lobby", paused=False, session_id=None))
                db.flush()
                for seat in (host, *others):
                    db.add(SeatRecord(room_id=room_id, **vars(seat)))
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    def put_settings(self, room_id: str, settings: dict[str, Any]) -> None:
        """Replace the room's settings (JSON; the link to its rematch is added to them)."""
        try:
            with self._db() as db, db.begin():
                record = db.get(RoomRecord, room_id)
                assert record is not None
                record.settings = settings
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    def put_deal(self, room_id: str, deal: DealRow) -> None:
        """Save a new fairness record (a round committed to in the lobby)."""
        try:
            with self.engine.begin() as connection:
                connection.execute(insert(DealRecord), [{"room_id": room_id, **vars(deal)}])
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    def put_seat(self, room_id: str, seat: SeatRow) -> None:
        """Insert or replace a seat."""
        try:
            with self._db() as db, db.begin():
                db.merge(SeatRecord(room_id=room_id, **vars(seat)))
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    def delete_seats(self, room_id: str, seats: Sequence[SeatRow]) -> None:
        """Replace the room's seats by ``seats`` (renumbered seats after a leave/kick in
        the lobby)."""
        try:
            with self._db() as db, db.begin():
                for record in db.scalars(select(SeatRecord)
                                         .where(SeatRecord.room_id == room_id)).all():
                    db.delete(record)
                db.flush()
                for seat in seats:
                    db.add(SeatRecord(room_id=room_id, **vars(seat)))
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    def set_paused(self, room_id: str, paused: bool) -> None:
        """Record the pause flag."""
        try:
            with self._db() as db, db.begin():
                record = db.get(RoomRecord, room_id)
                assert record is not None
                record.paused = paused
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    def put_pending(self, room_id: str, seats: Sequence[SeatRow]) -> None:
        """Record what ``seats`` have pending (:data:`PENDING_FIELDS`: a return asked for,
        a mute, a rebuy, a client seed)."""
        if not seats:
            return
        try:
            with self.engine.begin() as connection:
                connection.execute(_PENDING, _pending_rows(room_id, seats))
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    def put_asks(self, room_id: str, asks: Sequence[AskRow], ask_count: int) -> None:
        """Replace the room's requests to sit down by ``asks`` (and the count of requests
        made so far)."""
        try:
            with self.engine.begin() as connection:
                connection.execute(delete(AskRecord).where(AskRecord.room_id == room_id))
                if asks:
                    connection.execute(insert(AskRecord),
                                       [{"room_id": room_id, **vars(ask)} for ask in asks])
                connection.execute(update(RoomRecord).where(RoomRecord.id == room_id)
                                   .values(ask_count=ask_count))
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    def start_session(self, room_id: str, start: SessionStarted) -> int:
        """Create the room's session with its ``SessionStarted`` event (seq 0); the room
        becomes ``"playing"``. Returns the session id."""
        try:
            with self._db() as db, db.begin():
                session = SessionRecord(created_at=datetime.now(UTC), source="server",
                                        rules=start.rules.to_dict(), players=list(start.names),
                                        status="playing", end_reason=None)
                db.add(session)
                db.flush()
                db.add(EventRecord(session_id=session.id, seq=0, type="SessionStarted",
                                   payload=event_to_dict(start)))
                room = db.get(RoomRecord, room_id)
                assert room is not None
                room.session_id = session.id
                room.status = "playing"
                return session.id
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    def append(self, room_id: str, session_id: int, first_seq: int, events: Sequence[Event],
               *, deal: DealRow | None = None, action: tuple[str, int, int] | None = None,
               reveal: Sequence[int] = (), deal_updates: Sequence[DealRow] = (),
               pending: Sequence[SeatRow] = ()) -> None:
        """Append events ``first_seq, first_seq + 1, ...`` and the records that go with
        them, all in one transaction.

        Args:
            deal: the fairness record of a round being dealt.
            action: ``(action_id, seat, round)`` of the client action that caused them.
            reveal: rounds whose seeds are now revealed.
            deal_updates: fairness records whose client seeds or openings changed.
            pending: seats whose pending requests changed with these events
                (:data:`PENDING_FIELDS`; a rebuy applied, a return made).
        """
        rows = _append_rows(room_id, session_id, first_seq, events, deal, action, reveal,
                            deal_updates, pending=pending)
        try:
            with self.engine.begin() as connection:
                _write(connection, [rows])
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    async def append_async(self, room_id: str, session_id: int, first_seq: int,
                           events: Sequence[Event], *, deal: DealRow | None = None,
                           action: tuple[str, int, int] | None = None,
                           reveal: Sequence[int] = (),
                           deal_updates: Sequence[DealRow] = (),
                           payloads: Sequence[dict[str, Any]] | None = None,
                           pending: Sequence[SeatRow] = (),
                           then: Callable[[], None] | None = None) -> None:
        """:meth:`append`, committed together with the appends of the other rooms in the
        same turn of the event loop (group commit, :class:`GroupWriter`); the caller
        resumes once its rows are committed. ``payloads``: the events'
        :func:`~gutskit.core.history.event_to_dict` when the caller has them (not copied:
        neither side may change them). ``then``: run on the loop as soon as the rows are
        committed, before the caller resumes (:meth:`GroupWriter.submit`); what it raises,
        the caller does."""
        rows = _append_rows(room_id, session_id, first_seq, events, deal, action, reveal,
                            deal_updates, payloads, pending)
        try:
            await self.writer.submit(rows, then)
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    def close(self) -> None:
        """Commit the pending writes and close the connections."""
        self.writer.close()
        self.engine.dispose()

    def set_status(self, room_id: str, status: str) -> None:
        """Record the room status (``"over"`` when a session ends with nothing to share;
        ``"playing"`` again when a companion round that ended it is undone: the session is
        then no longer finished)."""
        try:
            with self._db() as db, db.begin():
                room = db.get(RoomRecord, room_id)
                assert room is not None
                room.status = status
                if status in ("over", "playing") and room.session_id is not None:
                    session = db.get(SessionRecord, room.session_id)
                    if session is not None and status == "over":
                        session.status = "finished"
                    elif session is not None:
                        session.status, session.end_reason = "playing", None
        except SQLAlchemyError as error:
            raise self._fail(error) from None

    def load_rooms(self) -> list[LoadedRoom]:
        """Every stored room with its seats, events, deals and applied actions, except the
        :data:`ARCHIVED` and :data:`SET_ASIDE` ones. A room that cannot be read (a stored
        event that is not a valid event) is logged, marked :data:`SET_ASIDE` and left out.
        """
        loaded = []
        for room_id in self.room_ids():
            try:
                room = self.load_room(room_id)
            except Exception as error:  # one bad room must not stop the others
                self.set_aside(room_id, error)
                continue
            if room is not None:
                loaded.append(room)
        return loaded

    def count_rooms(self, exclude: Sequence[str] = (ARCHIVED, SET_ASIDE)) -> int:
        """How many stored rooms have a status not in ``exclude`` (the open rooms).

        Raises:
            StorageError: the database cannot be read.
        """
        try:
            with self._db() as db:
                return db.scalar(select(func.count()).select_from(RoomRecord)
                                 .where(RoomRecord.status.not_in(list(exclude)))) or 0
        except SQLAlchemyError as error:
            raise StorageError(f"cannot read {self.location!r}: {error}") from None

    def room_ids(self, exclude: Sequence[str] = (ARCHIVED, SET_ASIDE)) -> list[str]:
        """The ids of the stored rooms whose status is not in ``exclude``, oldest first."""
        try:
            with self._db() as db:
                return list(db.scalars(select(RoomRecord.id)
                                       .where(RoomRecord.status.not_in(list(exclude)))
                                       .order_by(RoomRecord.created_at)))
        except SQLAlchemyError as error:
            raise StorageError(f"cannot read {self.location!r}: {error}") from None

    def load_room(self, room_id: str) -> LoadedRoom | None:
        """One stored room (any status), or ``None`` when there is none with this id.

        Raises:
            StorageError: the database cannot be read.
            gutskit.core.history.HistoryError: a stored event is not a valid event.
        """
        try:
            with self._db() as db:
                room = db.get(RoomRecord, room_id)
                return None if room is None else self._load(db, room)
        except SQLAlchemyError as error:
            raise StorageError(f"cannot read {self.location!r}: {error}") from None

    def room_status(self, room_id: str) -> str | None:
        """The stored status of a room (``None``: no such room)."""
        try:
            with self._db() as db:
                room = db.get(RoomRecord, room_id)
                return None if room is None else room.status
        except SQLAlchemyError as error:
            raise StorageError(f"cannot read {self.location!r}: {error}") from None

    def set_aside(self, room_id: str, error: BaseException) -> None:
        """Log that room ``room_id`` cannot be rebuilt (``error``) and mark it
        :data:`SET_ASIDE` so the next start does not try again."""
        log.error("room %s set aside: its stored events cannot be rebuilt (%s: %s)",
                  room_id, type(error).__name__, error)
        try:
            with self._db() as db, db.begin():
                record = db.get(RoomRecord, room_id)
                if record is not None:
                    record.status = SET_ASIDE
        except SQLAlchemyError as failure:
            log.error("room %s could not be marked set aside: %s", room_id, failure)

    def _load(self, db: Session, room: RoomRecord) -> LoadedRoom:
        seats = [SeatRow(seat=s.seat, name=s.name, token_hash=s.token_hash,
                         bot_style=s.bot_style, host=s.host, kicked=s.kicked,
                         chair=s.seat if s.chair is None else s.chair,
                         back_next_game=bool(s.back_next_game), muted=bool(s.muted),
                         rebuy_chips=s.rebuy_chips, rebuy_approved=bool(s.rebuy_approved),
                         client_seed=s.client_seed)
                 for s in db.scalars(select(SeatRecord).where(SeatRecord.room_id == room.id)
                                     .order_by(SeatRecord.seat))]
        loaded = LoadedRoom(room_id=room.id, settings=dict(room.settings), status=room.status,
                            paused=room.paused, session_id=room.session_id, seats=seats,
                            ask_count=room.ask_count or 0)
        loaded.asks = [AskRow(number=a.number, name=a.name, chair=a.chair,
                              next_game=a.next_game, approved=a.approved,
                              token_hash=a.token_hash)
                       for a in db.scalars(select(AskRecord).where(AskRecord.room_id == room.id)
                                           .order_by(AskRecord.number))]
        if room.session_id is not None:
            payloads = db.scalars(select(EventRecord.payload)
                                  .where(EventRecord.session_id == room.session_id)
                                  .order_by(EventRecord.seq)).all()
            loaded.events = [event_from_dict(dict(p)) for p in payloads]
        loaded.deals = [DealRow(round=d.round, commitment=d.commitment, seed=d.seed,
                                revealed=d.revealed,
                                client_seeds=None if d.client_seeds is None
                                else list(d.client_seeds),
                                opened=None if d.opened is None else list(d.opened))
                        for d in db.scalars(select(DealRecord)
                                            .where(DealRecord.room_id == room.id)
                                            .order_by(DealRecord.round))]
        loaded.actions = {a.action_id: (a.seat, a.round)
                          for a in db.scalars(select(ActionRecord)
                                              .where(ActionRecord.room_id == room.id))}
        return loaded
