"""Rooms across processes and machines: ``guts serve --workers N`` / ``--redis URL``.

Every worker process (on one machine or many) serves the same ASGI application
(:func:`gutskit.server.app.create_app`) wrapped in :class:`ClusterApp`, and all of them share
one database (the rooms' events: SQLite in WAL mode on one machine, PostgreSQL across
machines) and one Redis server. Nothing else is shared.

**Ownership (single writer).** A room is run by exactly one worker at a time, its *owner*:
the one holding the room's lease, the Redis key ``gutskit:room:<id>`` whose value is the
owner's worker id, set with ``SET NX PX`` for :data:`LEASE_SECONDS` and renewed every
:data:`RENEW_SECONDS` (a compare-and-renew script: only the holder renews). The leases and
the worker's heartbeat are renewed by a thread of their own, not by the event loop: a loop
busy for seconds under load (its reveal latency then seconds too) still holds its rooms, so
a slow worker is not mistaken for a dead one; a loop that has not run at all for
:data:`STALL_SECONDS` lets them lapse (it is stuck, another worker should take over). The
owner
rebuilds the room from its stored events (:meth:`RoomManager.rebuild`, the same replay as a
restart) and runs it exactly as the one-process server does: the room's lock, the table
driver, the events stored before anything is sent. The first worker asked about a room
nobody owns takes its lease (a new room: the worker that created it). A worker that fails to
renew a lease (it stalled past the expiry and another took the room) drops the room at
once; a stale write would also be refused by the database, whose events are keyed by
``(session, seq)``.

**Message path.** Any worker accepts any HTTP request or WebSocket. For a room owned
elsewhere the accepting worker is a relay, like lila-ws in front of lila: it forwards the
ASGI messages of the connection (or the HTTP request) to the owner over Redis pub/sub (one
channel per worker, ``gutskit:w:<worker id>``; messages of one turn of the event loop go in
one ``PUBLISH`` per destination), and the owner runs the unchanged application on a
bridged connection, so the protocol, the limits and the per-viewer payloads are decided in
one place, by the owner, and its frames come back the same way. A room's broadcasts reach
every client wherever it is connected.

**Failover.** When an owner dies (``kill -9``), its leases expire after at most
:data:`LEASE_SECONDS`; relays whose room's lease names another owner, or nobody while the
owner's heartbeat is gone too, close those connections (code 1012, "service restart"; a
live owner whose lease lapsed while it was slow takes it back at its next renewal when
nobody took it meanwhile, :data:`_RENEW`), the clients reconnect (the browser
table does so by itself: ``static/net.js``), and the first worker asked takes the lease
and rebuilds the room from the stored events: the same deal, the same sealed declarations,
every chip (the round's timer restarts in full). An owner drops the bridged connections of
a relay whose heartbeat key (``gutskit:worker:<id>``, same lease time) expired.

**Limits.** The per-address limits are the cluster's: the room-creation rate is counted in
Redis by the :mod:`limits` library (:func:`gutskit.server.app.create_app`'s ``redis_url``),
the connections per address by :class:`ClusterQuota` (a sorted set of places per address,
renewed with the leases, so a killed worker's lapse within :data:`LEASE_SECONDS`). The
per-room, per-seat and per-connection limits are exact at the room's owner.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ctypes
import dataclasses
import json
import logging
import os
import re
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from gutskit.server import app as server_app
from gutskit.server.protocol import CreateRoom
from gutskit.server.quotas import ConnectionQuota, Held
from gutskit.server.rooms import Room, RoomManager, RoomSettings, ServerConfig
from gutskit.server.sockets import reset
from gutskit.server.store import ARCHIVED, SET_ASIDE, RoomStore, SeatRow, open_room_store

__all__ = [
    "CONFIG_ENV",
    "FORWARD_TIMEOUT",
    "LEASE_SECONDS",
    "RENEW_SECONDS",
    "SUPERVISOR_ENV",
    "ClusterApp",
    "ClusterQuota",
    "ClusterRoomManager",
    "Node",
    "WorkerSettings",
    "cluster_app",
    "cluster_mark",
    "die_with_parent",
    "forget_mark",
    "worker_app",
]

log = logging.getLogger("gutskit.server.cluster")

LEASE_SECONDS = 3.0
"""How long a room's lease (and a worker's heartbeat) lives without renewal: the longest a
room is without an owner after its owner dies."""
RENEW_SECONDS = 1.0
"""How often a worker renews its leases and heartbeat, and checks the owners it relays to."""
STALL_SECONDS = 30.0
"""How long a worker's event loop may go without running before its lease thread stops
renewing (the leases then lapse within :data:`LEASE_SECONDS` and other workers take the
rooms). A busy loop runs every few seconds at worst, well within this."""
FORWARD_TIMEOUT = 10.0
"""Seconds a relay waits for the owner to accept a forwarded connection or answer a
forwarded request (then: WebSocket closed with 1013, HTTP 503 ``room_moving``). A relay
waiting on an owner that died stops sooner: when the room's lease no longer names it."""
REDIS_CONNECTIONS = 64
"""Connections to Redis one worker keeps open at most; a command waits for a free one."""
REDIS_WAIT_SECONDS = 10.0
"""How long a command waits for a free connection to Redis before it fails."""
REDIS_SOCKET_SECONDS = 10.0
"""How long a command waits for Redis to answer (and a connection to open) before it
fails, set here: redis-py 8 defaults to 5 s, which a loaded machine's 300 takes at once
exceeded (a place then counted in the worker only)."""
CONFIG_ENV = "GUTSKIT_CLUSTER"
"""Environment variable carrying :class:`WorkerSettings` (JSON) to the worker processes."""

_ROOM_PATH = re.compile(r"^/(api/rooms|ws)/([A-Za-z0-9]{1,32})(?:/|$)")
_RENEW = ("local holder = redis.call('get', KEYS[1]) "
          "if holder == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) "
          "elseif not holder then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) "
          "return 2 else return 0 end")
"""Renew a lease held here (1); take it again if it lapsed and nobody took it meanwhile (2:
nobody else ran the room, it stays here); 0 when another worker holds it."""
_RELEASE = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
            "return redis.call('del', KEYS[1]) else return 0 end")
_NOW = ("local t = redis.call('time') "
        "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) ")
_TAKE = (_NOW + "redis.call('zremrangebyscore', KEYS[1], '-inf', now - tonumber(ARGV[3])) "
         "if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end "
         "redis.call('zadd', KEYS[1], now, ARGV[1]) "
         "redis.call('pexpire', KEYS[1], ARGV[3]) return 1")
"""Take a place (:class:`ClusterQuota`): KEYS[1] the address's sorted set of places, each
scored by its holder's last renewal (Redis's clock, milliseconds); ARGV: the place's id,
the limit, the lease (ms). Places not renewed for a lease are dropped first (their worker
died); 1 if the place was taken, 0 if the address holds the limit."""
_REFRESH = (_NOW + "local i = 2 for k = 1, #KEYS do local n = tonumber(ARGV[i]) i = i + 1 "
            "local scored = {} for j = 1, n do scored[2 * j - 1] = now "
            "scored[2 * j] = ARGV[i] i = i + 1 end "
            "redis.call('zadd', KEYS[k], unpack(scored)) "
            "redis.call('pexpire', KEYS[k], ARGV[1]) end return #KEYS")
"""Renew the places a worker holds (on its lease thread, with its room leases): KEYS the
addresses' sets; ARGV: the lease (ms), then for each key the number of its places held
here (at least 1) and their ids. A place that lapsed while the thread was late is added
again."""
REFRESH_CHUNK = 64
"""Places renewed by one script (:data:`_REFRESH`; a renewal sends as many as it needs in
its one round trip): Redis runs one script at a time, so a worker holding thousands of
connections holds up the others' messages for well under a millisecond at a time (0.1 to
0.7 ms per script, ``benchmarks/bench_quotas.py``)."""

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGI = Callable[[Scope, Receive, Send], Awaitable[None]]


def connect_redis(url: str) -> Any:
    """An asyncio Redis client (``redis.asyncio.Redis``, strings decoded) for ``url`` whose
    commands wait for a free connection (at most :data:`REDIS_CONNECTIONS`, waiting up to
    :data:`REDIS_WAIT_SECONDS`; each answer waited for :data:`REDIS_SOCKET_SECONDS`) rather
    than fail: redis-py's default pool raises "Too many
    connections" past 100 commands in flight, which 1,200 clients arriving at once reached
    (each taking a place, ``load_server.py --workers 2 --tables 200``).

    Raises:
        ValueError: ``url`` is not a Redis URL.
    """
    import redis.asyncio as aioredis
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff

    # A command on a connection Redis closed (Redis restarted) connects again and is sent
    # once more (redis-py's asyncio default is not to: every pooled connection then failed
    # one command, a relayed request answered 500); once only, so a Redis that does not
    # answer fails a command within twice REDIS_SOCKET_SECONDS.
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=REDIS_CONNECTIONS, timeout=REDIS_WAIT_SECONDS,
        socket_timeout=REDIS_SOCKET_SECONDS, socket_connect_timeout=REDIS_SOCKET_SECONDS,
        decode_responses=True, retry=Retry(ExponentialBackoff(cap=1.0, base=0.1), 1))
    return aioredis.Redis.from_pool(pool)


CLUSTER_MARK_KEY = "gutskit:cluster"
"""The Redis key holding the cluster's random mark (:func:`cluster_mark`)."""


def cluster_mark(url: str) -> tuple[str, bool]:
    """The random mark of the cluster whose Redis is at ``url``, and whether this call made
    it: made by the first server to ask (``SET NX`` of :data:`CLUSTER_MARK_KEY`, 16 hex
    digits), read back by the others. Two Redis servers that one URL names on two machines
    (``redis://127.0.0.1`` on each) have two marks, so the database's record of its cluster
    (:func:`gutskit.server.serving.hold_database`) tells them apart (attack10 M2).

    A mark is never overwritten, only made where there is none: here, and by the workers
    of a running cluster at every lease renewal (:meth:`Node._renew`), so a Redis that lost
    its data (restarted without persistence, flushed, the key evicted) has the running
    cluster's mark again within a renewal period (:data:`RENEW_SECONDS`) and a server that
    joins then finds it. A server that made a mark and is then refused by the database
    takes it away again (:func:`forget_mark`), so that it does not stand in the way of the
    running cluster's renewal.

    Raises:
        ValueError: ``url`` is not a Redis URL, or the Redis there cannot be reached
            (the message names it and why).
    """
    import redis

    client = redis.Redis.from_url(url, socket_timeout=REDIS_SOCKET_SECONDS,
                                  socket_connect_timeout=REDIS_SOCKET_SECONDS,
                                  decode_responses=True)
    made = secrets.token_hex(8)
    try:
        created = client.set(CLUSTER_MARK_KEY, made, nx=True)
        mark = client.get(CLUSTER_MARK_KEY)
    except redis.RedisError as error:
        raise ValueError(f"cannot reach Redis: {error}") from None
    finally:
        client.close()
    return str(mark), bool(created) and mark == made


def forget_mark(url: str, mark: str) -> None:
    """Delete the cluster mark in the Redis at ``url`` if it is still ``mark`` (a server
    refused by its database takes back the mark it made, :func:`cluster_mark`); nothing
    when Redis cannot be reached (never raises for it)."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=REDIS_SOCKET_SECONDS,
                                      socket_connect_timeout=REDIS_SOCKET_SECONDS,
                                      decode_responses=True)
    except ValueError:
        return
    try:
        client.eval(_RELEASE, 1, CLUSTER_MARK_KEY, mark)
    except redis.RedisError:
        pass
    finally:
        client.close()


@dataclass(frozen=True)
class WorkerSettings:
    """What every worker of ``guts serve --workers N`` is started with.

    Attributes:
        redis_url: the shared Redis (``redis://host:port/0``, ``unix:///path``).
        db: the shared database (SQLAlchemy URL or SQLite path).
        config: the server knobs (:class:`ServerConfig`).
        allowed_origins: extra browser origins allowed to open the WebSocket.
        prefix: prefix of every Redis key and channel (several clusters on one Redis).
        mark: the cluster's mark (:func:`cluster_mark`) the database records for this
            cluster, which the workers put back in a Redis that lost it (``None``: a
            private ``redis-server``, no mark).
    """

    redis_url: str
    db: str | None
    config: ServerConfig = dataclasses.field(default_factory=ServerConfig)
    allowed_origins: tuple[str, ...] = ()
    prefix: str = "gutskit"
    mark: str | None = None

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> WorkerSettings:
        data = json.loads(text)
        knobs = dict(data["config"])
        knobs["bot_delay"] = tuple(knobs["bot_delay"])
        for name in ("forwarded_allow_ips", "allowed_hosts"):  # JSON lists back to tuples
            if name in knobs:
                knobs[name] = tuple(knobs[name])
        return cls(redis_url=data["redis_url"], db=data["db"], config=ServerConfig(**knobs),
                   allowed_origins=tuple(data["allowed_origins"]), prefix=data["prefix"],
                   mark=data.get("mark"))


def _pack(value: Any) -> Any:
    """An ASGI message or scope as JSON-able data (bytes as ``{"b64": ...}``)."""
    if isinstance(value, bytes | bytearray):
        return {"b64": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        return {k: _pack(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_pack(v) for v in value]
    return value


def _unpack(value: Any) -> Any:
    """The inverse of :func:`_pack`."""
    if isinstance(value, dict):
        if len(value) == 1 and "b64" in value:
            return base64.b64decode(value["b64"])
        return {k: _unpack(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unpack(v) for v in value]
    return value


_SCOPE_KEYS = ("type", "asgi", "http_version", "method", "scheme", "path", "raw_path",
               "query_string", "root_path", "headers", "client", "server", "subprotocols")


def _scope_data(scope: Scope) -> Any:
    """The part of an ASGI scope that travels to the owner."""
    return _pack({key: scope[key] for key in _SCOPE_KEYS if key in scope})


def _scope_from(data: Any) -> Scope:
    scope: Scope = _unpack(data)
    scope["headers"] = [(bytes(k), bytes(v)) for k, v in scope.get("headers", [])]
    if scope.get("client") is not None:
        scope["client"] = tuple(scope["client"])
    if scope.get("server") is not None:
        scope["server"] = tuple(scope["server"])
    scope["state"] = {}
    return scope


class _Handle:
    """A WebSocket the owner runs for one of its rooms (accepted here or bridged from a
    relay); :meth:`kill` ends it (the room moved or its relay died)."""

    def __init__(self, origin: str | None) -> None:
        self.origin = origin
        """The relay's worker id (``None``: the socket is in this process)."""
        self.killed = asyncio.Event()


class _Proxy:
    """A WebSocket accepted here for a room owned by another worker."""

    def __init__(self, room_id: str, owner: str) -> None:
        self.room_id = room_id
        self.owner = owner
        self.inbox: asyncio.Queue[Message | None] = asyncio.Queue()
        self.transport: server_app.Transport | None = None
        """The client's connection here (to cut a client that stopped reading)."""
        self.too_slow = False
        """The client let :data:`gutskit.server.app.QUEUE_LIMIT` frames queue unread: the
        close (1008) is queued, later frames are dropped, the transport is aborted
        :data:`gutskit.server.app.SLOW_GRACE` seconds later."""

    def deliver(self, out: Message) -> None:
        """Queue a frame from the owner for the client (the same bound as
        ``app.WsClient`` on one process: a relay's send waits while the client does not
        read, so the bound is checked here, where frames arrive, not where they are sent:
        attack7 M1, a relay's memory grew 3.5 MB/s with 20 clients that never read)."""
        if self.too_slow:
            return
        if self.inbox.qsize() >= server_app.QUEUE_LIMIT and out["type"] != "websocket.close":
            self.too_slow = True
            if self.transport is not None:
                asyncio.get_running_loop().call_later(server_app.SLOW_GRACE, reset,
                                                      self.transport)
            out = {"type": "websocket.close", "code": 1008, "reason": "too slow"}
        self.inbox.put_nowait(out)


class ClusterRoomManager(RoomManager):
    """The rooms of one worker: only those whose lease it holds (taken on demand by
    :class:`Node`, not all at start)."""

    node: Node | None = None

    def load(self) -> list[Room]:
        """No room at start: each is taken when first asked for (:meth:`Node.owner_of`)."""
        return []

    async def create(self, request: CreateRoom) -> tuple[Room, str]:
        """:meth:`RoomManager.create`, then take the new room's lease."""
        room, token = await super().create(request)
        if self.node is not None and not await self.node.claim(room.room_id):
            # another worker took the new room first (asked about it at once): it runs it
            self.rooms.pop(room.room_id, None)
            room.close()
        return room, token

    async def open_rematch(self, settings: RoomSettings, seats: list[SeatRow]) -> Room:
        """:meth:`RoomManager.open_rematch`, then take the new room's lease."""
        room = await super().open_rematch(settings, seats)
        if self.node is not None and not await self.node.claim(room.room_id):
            self.rooms.pop(room.room_id, None)
            room.close()
        return room


class ClusterQuota(ConnectionQuota):
    """Places per client address (:class:`~gutskit.server.quotas.ConnectionQuota`) counted across
    the cluster, in the shared Redis: one sorted set per kind and address
    (``<prefix>:conns:<address>``, ``<prefix>:waiting:<address>``,
    ``<prefix>:overflow:<address>``) whose members are the places (``<worker id> <random>``),
    each scored with the Redis clock's time of its last renewal. The worker's lease thread
    renews every place it holds with its room leases (:meth:`Node._renew`, every
    :data:`RENEW_SECONDS`); a place not renewed for :data:`LEASE_SECONDS` is dropped by the
    next :meth:`take` of that address, so the places of a worker killed with ``kill -9`` (or
    whose event loop is stuck, :data:`STALL_SECONDS`) are free again within
    :data:`LEASE_SECONDS`. When Redis cannot be reached, a place is counted in this worker only
    (logged).

    Args:
        node: the worker (its Redis connection, key prefix and lease time).
    """

    def __init__(self, node: Node) -> None:
        super().__init__()
        self.node = node
        self.places: dict[tuple[str, str], set[str]] = {}
        """Places held here in Redis: (kind, address) -> their ids."""
        self._lock = threading.Lock()  # the lease thread copies :attr:`places`

    def key(self, kind: str, address: str) -> str:
        return f"{self.node.prefix}:{kind}:{address}"

    async def take(self, kind: str, address: str, limit: int) -> Held | None:
        """Take a place of ``kind`` for ``address`` if it holds fewer than ``limit`` over
        the whole cluster (one round trip to Redis; :data:`_TAKE`); ``None`` if not."""
        member = f"{self.node.worker_id} {secrets.token_hex(6)}"
        try:
            taken = await self.node.redis.eval(_TAKE, 1, self.key(kind, address), member,
                                               limit, self.node.lease_ms)
        except Exception as error:  # Redis away: this worker's own count meanwhile
            log.warning("worker %s could not count a connection in Redis (%s); counted "
                        "in this worker only", self.node.worker_id, error)
            return await super().take(kind, address, limit)
        if not taken:
            return None
        with self._lock:
            self.places.setdefault((kind, address), set()).add(member)
        return Held(kind, address, member)

    def give_back(self, held: Held) -> None:
        """Give back a place: forgotten here at once (no longer renewed) and removed from
        Redis in the background (if that fails, it lapses within :data:`LEASE_SECONDS`)."""
        if not held.member:
            super().give_back(held)
            return
        key = (held.kind, held.address)
        with self._lock:
            members = self.places.get(key)
            if members is None or held.member not in members:
                return
            members.discard(held.member)
            if not members:
                del self.places[key]
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no event loop (the worker stopped): it lapses
            return
        self.node._spawn(self._remove(self.key(*key), held.member))

    async def _remove(self, key: str, member: str) -> None:
        try:
            await self.node.redis.zrem(key, member)
        except Exception as error:
            log.warning("worker %s could not give back a connection's place (%s); it "
                        "lapses in %.0f s", self.node.worker_id, error,
                        self.node.lease_ms / 1000)

    def snapshot(self) -> list[tuple[str, list[str]]]:
        """The places held here, for a renewal: (Redis key, place ids) per address."""
        with self._lock:
            return [(self.key(*key), sorted(members)) for key, members in self.places.items()]

    async def give_back_all(self) -> None:
        """Remove every place held here from Redis (the worker stops)."""
        with self._lock:
            held, self.places = self.places, {}
        async with self.node.redis.pipeline(transaction=False) as pipe:
            for key, members in held.items():
                pipe.zrem(self.key(*key), *members)
            await pipe.execute()


class Node:
    """This worker in the cluster: its Redis connection, its leases, its channel.

    Args:
        manager: the worker's rooms.
        redis_url: the shared Redis.
        prefix: key prefix.
        lease_seconds: lease and heartbeat time (:data:`LEASE_SECONDS`).
        renew_seconds: renewal period (:data:`RENEW_SECONDS`).
        stall_seconds: how long the event loop may not run before the leases are let
            lapse (:data:`STALL_SECONDS`).
        mark: the cluster's mark (:func:`cluster_mark`), put back at every renewal when
            Redis has none (``None``: nothing put back).
    """

    def __init__(self, manager: ClusterRoomManager, redis_url: str, *, prefix: str = "gutskit",
                 lease_seconds: float = LEASE_SECONDS,
                 renew_seconds: float = RENEW_SECONDS,
                 stall_seconds: float = STALL_SECONDS, mark: str | None = None) -> None:
        self.manager = manager
        manager.node = self
        self.redis_url = redis_url
        self.prefix = prefix
        self.lease_ms = int(lease_seconds * 1000)
        self.renew_seconds = renew_seconds
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.app: ASGI | None = None
        self.redis: Any = None
        self.owned: set[str] = set()
        self.handles: dict[str, set[_Handle]] = {}
        self.bridges: dict[str, tuple[str, asyncio.Queue[Message]]] = {}
        """Bridged connections this worker owns: connection id -> (relay, inbox)."""
        self.proxies: dict[str, _Proxy] = {}
        self.replies: dict[str, asyncio.Future[list[Any]]] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._outbox: dict[str, list[Any]] = {}
        self._flush_due = False
        self._outgoing: asyncio.Queue[dict[str, list[Any]]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._background: set[asyncio.Task[None]] = set()
        self.stall_seconds = stall_seconds
        self.loop_seen = time.monotonic()
        """When the event loop last ran this node's beat (monotonic seconds): the lease
        thread renews only while it is recent (:data:`STALL_SECONDS`)."""
        self._leases: threading.Thread | None = None
        self._stopping = threading.Event()
        self._sync_redis: Any = None
        self.mark = mark
        """The cluster's mark as the database records it (passed down from ``guts serve``,
        :class:`WorkerSettings`): set again at every renewal where Redis has none."""
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop this node runs on (set by :meth:`start`)."""
        self.quota = ClusterQuota(self)
        """The connections per address, counted in Redis and renewed with the leases."""

    # -- keys ----------------------------------------------------------------------------

    def lease_key(self, room_id: str) -> str:
        return f"{self.prefix}:room:{room_id}"

    def channel(self, worker_id: str) -> str:
        return f"{self.prefix}:w:{worker_id}"

    def heartbeat_key(self, worker_id: str) -> str:
        return f"{self.prefix}:worker:{worker_id}"

    # -- life ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect to Redis, subscribe to this worker's channel, start renewing.

        Raises:
            redis.exceptions.ConnectionError: Redis cannot be reached.
        """
        import redis

        self.redis = connect_redis(self.redis_url)
        self._sync_redis = redis.Redis.from_url(self.redis_url, decode_responses=True)
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(self.channel(self.worker_id))
        await self.redis.set(self.heartbeat_key(self.worker_id), str(os.getpid()),
                             px=self.lease_ms)
        loop = self.loop = asyncio.get_running_loop()
        self.loop_seen = time.monotonic()
        self._tasks = [loop.create_task(self._listen(pubsub)),
                       loop.create_task(self._publisher()),
                       loop.create_task(self._beat_forever())]
        self._stopping.clear()
        self._leases = threading.Thread(target=self._renew_forever, args=(loop,),
                                        name="gutskit-leases", daemon=True)
        self._leases.start()
        log.info("worker %s joined the cluster at %s", self.worker_id, self.redis_url)

    async def stop(self) -> None:
        """Release every lease (another worker takes the rooms at once) and disconnect."""
        self._stopping.set()
        if self._leases is not None:
            await asyncio.to_thread(self._leases.join)
            self._leases = None
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        if self._sync_redis is not None:
            self._sync_redis.close()
            self._sync_redis = None
        if self.redis is None:
            return
        with contextlib.suppress(Exception):
            for room_id in list(self.owned):
                await self.redis.eval(_RELEASE, 1, self.lease_key(room_id), self.worker_id)
            await self.quota.give_back_all()
            await self.redis.delete(self.heartbeat_key(self.worker_id))
        self.owned.clear()
        await self.redis.aclose()

    # -- ownership -----------------------------------------------------------------------

    async def claim(self, room_id: str) -> bool:
        """Take the lease of ``room_id`` if nobody holds it; whether this worker holds it."""
        taken = await self.redis.set(self.lease_key(room_id), self.worker_id, nx=True,
                                     px=self.lease_ms)
        if taken:
            self.owned.add(room_id)
        return bool(taken)

    async def owner_of(self, room_id: str) -> str | None:
        """Who runs ``room_id`` now: ``None`` when this worker does (or when the room is not
        open: the application answers from the store), else the owner's worker id.
        Takes the lease and rebuilds the room from the store when nobody holds it."""
        if room_id in self.owned and room_id in self.manager.rooms:
            return None
        lock = self._loading.setdefault(room_id, asyncio.Lock())
        try:
            async with lock:
                for _ in range(3):
                    if room_id in self.owned and room_id in self.manager.rooms:
                        return None
                    holder = await self.redis.get(self.lease_key(room_id))
                    if holder is not None and holder != self.worker_id:
                        return str(holder)
                    if holder is None and not await self.claim(room_id):
                        continue  # another worker was quicker: ask again who
                    self.owned.add(room_id)
                    if not await self._open(room_id):
                        await self._release(room_id)
                    return None
            return None
        finally:
            if not lock.locked():  # no lock kept per room id asked about (unknown ids)
                self._loading.pop(room_id, None)

    async def _open(self, room_id: str) -> bool:
        """Rebuild ``room_id`` from the store (this worker holds its lease); ``False`` when
        it is not an open room (none, archived, set aside)."""
        if room_id in self.manager.rooms:  # made here a moment ago (created, not claimed)
            return True
        store: RoomStore = self.manager.store
        loaded = await store.run(store.load_room, room_id)
        if loaded is None or loaded.status in (ARCHIVED, SET_ASIDE):
            return False
        try:
            room = self.manager.rebuild(loaded)
        except Exception as error:  # one bad room must not stop the worker
            store.set_aside(room_id, error)
            return False
        self.manager.rooms[room_id] = room
        await room.resume_after_restart()
        log.info("worker %s took room %s", self.worker_id, room_id)
        return True

    async def _release(self, room_id: str) -> None:
        self.owned.discard(room_id)
        await self.redis.eval(_RELEASE, 1, self.lease_key(room_id), self.worker_id)

    def _drop(self, room_id: str) -> None:
        """Stop running ``room_id`` (its lease was lost): its tasks stop, its connections
        close so their clients reconnect to the new owner."""
        self.owned.discard(room_id)
        room = self.manager.rooms.pop(room_id, None)
        if room is not None:
            room.close()
        for handle in self.handles.get(room_id, set()):
            handle.killed.set()
        log.warning("worker %s lost room %s", self.worker_id, room_id)

    async def _beat_forever(self) -> None:
        """On the event loop, every renewal period: show the lease thread the loop runs
        (:attr:`loop_seen`) and release the leases of rooms no longer open here."""
        while True:
            await asyncio.sleep(self.renew_seconds)
            self.loop_seen = time.monotonic()
            try:
                for room_id in [r for r in self.owned if r not in self.manager.rooms]:
                    if not self._loading.get(room_id, asyncio.Lock()).locked():
                        await self._release(room_id)  # archived (idle) or closed
            except Exception as error:  # Redis away: try again next period
                log.warning("worker %s could not release a lease: %s", self.worker_id, error)

    def _renew_forever(self, loop: asyncio.AbstractEventLoop) -> None:
        """The lease thread: every renewal period, renew (:meth:`_renew`) while the event
        loop is seen running, and hand what it found to the loop (:meth:`_renewed`)."""
        last = time.monotonic()
        while not self._stopping.wait(self.renew_seconds):
            if time.monotonic() - self.loop_seen > self.stall_seconds:
                continue  # the loop is stuck: the leases lapse, other workers take over
            try:
                found = self._renew()
            except Exception as error:  # Redis away: try again next period
                if self._stopping.is_set():  # stopping: stop() releases the leases
                    return
                log.warning("worker %s could not renew its leases: %s", self.worker_id, error)
                continue
            now = time.monotonic()
            gaps = (now - last, now - self.loop_seen)
            last = now
            try:
                loop.call_soon_threadsafe(self._renewed, *found, gaps)
            except RuntimeError:  # the loop is closed: the worker is stopping
                return

    def _renew(self) -> tuple[list[str], list[Any], dict[str, Any], dict[str, Any]]:
        """Renew the heartbeat, the leases of the rooms held here and the connections'
        places (:class:`ClusterQuota`, :data:`_REFRESH`) (on the lease thread, one round
        trip); returns the rooms and what renewing each gave (:data:`_RENEW`), the holders
        of the rooms relayed from here and whether the workers at the other end of this
        worker's relayed and bridged connections are alive."""
        places = self.quota.snapshot()
        owned = sorted(self.owned)  # copies made at once (the loop changes these)
        proxies = list(self.proxies.values())
        relayed = sorted({p.room_id for p in proxies})
        origins = sorted({origin for origin, _ in list(self.bridges.values())}
                         | {p.owner for p in proxies})  # the workers at the other ends
        with self._sync_redis.pipeline(transaction=False) as pipe:
            pipe.set(self.heartbeat_key(self.worker_id), str(os.getpid()), px=self.lease_ms)
            for room_id in owned:
                pipe.eval(_RENEW, 1, self.lease_key(room_id), self.worker_id, self.lease_ms)
            for room_id in relayed:
                pipe.get(self.lease_key(room_id))
            for origin in origins:
                pipe.exists(self.heartbeat_key(origin))
            for chunk in _chunks(places, REFRESH_CHUNK):
                pipe.eval(_REFRESH, len(chunk), *_refresh_args(chunk, self.lease_ms))
            if self.mark is not None:  # (last: the results above keep their places)
                # A Redis that lost its data (restarted without persistence, flushed,
                # evicted) lost the mark, and a server of this cluster starting then made a
                # new one and was refused by the database (session 11's attack on 0992a62),
                # every later one too. Put back where there is none, never over another:
                # the first mark made after the loss stays, so two live clusters on one
                # Redis (two databases) never take turns overwriting theirs, and a server
                # refused takes back the mark it made (forget_mark).
                pipe.set(CLUSTER_MARK_KEY, self.mark, nx=True)
            results = pipe.execute()
        renewed = results[1:1 + len(owned)]
        holders = dict(zip(relayed, results[1 + len(owned):1 + len(owned) + len(relayed)],
                           strict=True))
        start = 1 + len(owned) + len(relayed)
        alive = dict(zip(origins, results[start:start + len(origins)], strict=True))
        return owned, renewed, holders, alive

    def _renewed(self, owned: list[str], renewed: list[Any], holders: dict[str, Any],
                 alive: dict[str, Any], gaps: tuple[float, float] = (0.0, 0.0)) -> None:
        """On the event loop, after a renewal: drop the rooms whose lease was lost; close
        relayed connections whose room moved; end bridged connections whose relay died.
        ``gaps``: seconds since the previous renewal and since the loop was last seen, when
        this one ran (logged with the rooms lost)."""
        lost = [room_id for room_id, ok in zip(owned, renewed, strict=True)
                if not ok and room_id in self.owned]
        retaken = sum(ok == 2 for ok in renewed)
        if lost or retaken:
            log.warning("worker %s: %d lease(s) lost to another worker, %d lapsed and taken "
                        "again (renewed %.1f s after the previous renewal; event loop seen "
                        "%.1f s before)", self.worker_id, len(lost), retaken, *gaps)
        for room_id in lost:
            self._drop(room_id)
        for proxy in list(self.proxies.values()):
            holder = holders.get(proxy.room_id, proxy.owner)
            # moved, or nobody holds it and its owner is dead (a live owner takes back a
            # lease that lapsed while it was slow: its connections stay)
            if holder != proxy.owner and (holder is not None
                                          or not alive.get(proxy.owner, True)):
                proxy.inbox.put_nowait({"type": "websocket.close", "code": 1012})
        for conn, (origin, inbox) in list(self.bridges.items()):
            if not alive.get(origin, True):
                inbox.put_nowait({"type": "websocket.disconnect", "code": 1006})
                self.bridges.pop(conn, None)

    # -- messages between workers --------------------------------------------------------

    def post(self, worker_id: str, message: dict[str, Any]) -> None:
        """Queue ``message`` for ``worker_id``; the messages of one turn of the event loop
        leave together, in order, one ``PUBLISH`` per destination."""
        self._outbox.setdefault(worker_id, []).append(message)
        if not self._flush_due:
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_due = False
        batch, self._outbox = self._outbox, {}
        if batch:
            self._outgoing.put_nowait(batch)

    async def _publisher(self) -> None:
        """Publish the batches one after another (one connection, so order holds)."""
        while True:
            batch = await self._outgoing.get()
            while not self._outgoing.empty():  # a backlog goes out in one round trip
                for worker_id, messages in self._outgoing.get_nowait().items():
                    batch.setdefault(worker_id, []).extend(messages)
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for worker_id, messages in batch.items():
                        pipe.publish(self.channel(worker_id), json.dumps(messages))
                    await pipe.execute()
            except Exception as error:
                log.warning("worker %s could not publish: %s", self.worker_id, error)

    async def _listen(self, pubsub: Any) -> None:
        """Receive this worker's messages for ever: a lost connection to Redis (Redis
        restarted) is made again, subscribed again, every renewal period until it is (it
        ended the listener, and the worker then received nothing more: every request it
        relayed answered 503 ``room_moving`` until it was restarted)."""
        while True:
            try:
                async for item in pubsub.listen():
                    if item.get("type") != "message":
                        continue
                    for message in json.loads(item["data"]):
                        try:
                            self._receive(message)
                        except Exception:  # a bad message must not stop the listener
                            log.exception("worker %s: bad cluster message", self.worker_id)
            except Exception as error:  # (CancelledError is not one: stop() ends it)
                log.warning("worker %s lost its channel in Redis (%s); subscribing again",
                            self.worker_id, error)
            await asyncio.sleep(self.renew_seconds)  # (never a busy loop)

    def _receive(self, message: dict[str, Any]) -> None:
        op = message["op"]
        if op == "ws_out":
            proxy = self.proxies.get(message["conn"])
            if proxy is not None:
                proxy.deliver(_unpack(message["msg"]))
        elif op == "ws_in":
            bridge = self.bridges.get(message["conn"])
            if bridge is not None:
                bridge[1].put_nowait(_unpack(message["msg"]))
        elif op == "ws_open":
            # registered now: the connection's first frames may follow in this very batch
            inbox: asyncio.Queue[Message] = asyncio.Queue()
            self.bridges[message["conn"]] = (message["from"], inbox)
            self._spawn(self._run_bridge(message, inbox))
        elif op == "http":
            self._spawn(self._run_http(message))
        elif op == "http_reply":
            future = self.replies.pop(message["req"], None)
            if future is not None and not future.done():
                future.set_result(message["messages"])

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- owner side ----------------------------------------------------------------------

    async def run_local(self, room_id: str, scope: Scope, receive: Receive, send: Send,
                        origin: str | None = None) -> None:
        """Run the application on a WebSocket of a room this worker owns; a kill (the room
        moved) ends it with 1012 so the client reconnects."""
        assert self.app is not None
        handle = _Handle(origin)
        self.handles.setdefault(room_id, set()).add(handle)
        killer = asyncio.ensure_future(handle.killed.wait())

        async def receive_or_kill() -> Message:
            if handle.killed.is_set():
                return {"type": "websocket.disconnect", "code": 1012}
            getter = asyncio.ensure_future(receive())
            done, _ = await asyncio.wait({getter, killer},
                                         return_when=asyncio.FIRST_COMPLETED)
            if getter in done:
                return getter.result()
            getter.cancel()
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close", "code": 1012})
            return {"type": "websocket.disconnect", "code": 1012}

        try:
            await self.app(scope, receive_or_kill, send)
        finally:
            killer.cancel()
            handles = self.handles.get(room_id)
            if handles is not None:
                handles.discard(handle)
                if not handles:
                    del self.handles[room_id]

    async def _run_bridge(self, message: dict[str, Any], inbox: asyncio.Queue[Message]
                          ) -> None:
        """A WebSocket relayed from another worker: run the application on it here."""
        conn, origin = message["conn"], message["from"]
        scope = _scope_from(message["scope"])
        closed = False

        async def send(out: Message) -> None:
            nonlocal closed
            if closed:
                return
            if out["type"] == "websocket.close":
                closed = True
            self.post(origin, {"op": "ws_out", "conn": conn, "msg": _pack(out)})

        room_id = _room_of(scope["path"])[1] or ""
        try:
            await self.run_local(room_id, scope, inbox.get, send, origin=origin)
        finally:
            self.bridges.pop(conn, None)
            if not closed:
                self.post(origin, {"op": "ws_out", "conn": conn,
                                   "msg": {"type": "websocket.close", "code": 1000}})

    async def _run_http(self, message: dict[str, Any]) -> None:
        """An HTTP request relayed from another worker: answer it here."""
        assert self.app is not None
        scope = _scope_from(message["scope"])
        body = base64.b64decode(message["body"])
        sent: list[Any] = []
        given = False

        async def receive() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # no disconnect: the relay holds the client
            raise AssertionError  # pragma: no cover

        async def send(out: Message) -> None:
            sent.append(_pack(out))

        try:
            await self.app(scope, receive, send)
        except Exception:
            log.exception("worker %s: relayed request failed", self.worker_id)
            sent = _error_response(500, "server_error", "the request failed on the room's "
                                   "worker")
        self.post(message["from"], {"op": "http_reply", "req": message["req"],
                                    "messages": sent})

    # -- relay side ----------------------------------------------------------------------

    async def relay_ws(self, room_id: str, owner: str, scope: Scope, receive: Receive,
                       send: Send) -> None:
        """Forward a WebSocket accepted here to the room's owner and its frames back."""
        conn = secrets.token_hex(8)
        proxy = _Proxy(room_id, owner)
        self.proxies[conn] = proxy
        self.post(owner, {"op": "ws_open", "conn": conn, "from": self.worker_id,
                          "scope": _scope_data(scope)})

        async def upstream() -> None:
            while True:
                incoming = await receive()
                self.post(owner, {"op": "ws_in", "conn": conn, "msg": _pack(incoming)})
                if incoming["type"] == "websocket.disconnect":
                    return

        proxy.transport = server_app.transport_under(send)

        async def downstream() -> None:
            accepted = False
            while True:
                try:
                    out = await (proxy.inbox.get() if accepted else
                                 asyncio.wait_for(proxy.inbox.get(), FORWARD_TIMEOUT))
                except TimeoutError:  # the owner did not answer: try again shortly
                    out = {"type": "websocket.close", "code": 1013}
                if out is None:
                    return
                accepted = True
                with contextlib.suppress(Exception):
                    await send(out)
                if out["type"] == "websocket.close":
                    return

        tasks = [asyncio.ensure_future(upstream()), asyncio.ensure_future(downstream())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            if tasks[1] in done and not tasks[0].done():
                # closed by the owner (or the owner is gone): the owner forgets it too
                self.post(owner, {"op": "ws_in", "conn": conn,
                                  "msg": {"type": "websocket.disconnect", "code": 1012}})
        finally:
            for task in tasks:
                task.cancel()
            self.proxies.pop(conn, None)

    async def relay_http(self, owner: str, scope: Scope, receive: Receive,
                         send: Send) -> None:
        """Forward an HTTP request to the room's owner and send back its answer."""
        chunks = []
        while True:
            incoming = await receive()
            chunks.append(incoming.get("body", b""))
            if not incoming.get("more_body"):
                break
        req = secrets.token_hex(8)
        future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self.replies[req] = future
        self.post(owner, {"op": "http", "req": req, "from": self.worker_id,
                          "scope": _scope_data(scope),
                          "body": base64.b64encode(b"".join(chunks)).decode("ascii")})
        try:
            messages = await asyncio.wait_for(future, FORWARD_TIMEOUT)
        except TimeoutError:
            self.replies.pop(req, None)
            messages = _error_response(503, "room_moving", "the room's worker did not "
                                       "answer; it is moving to another worker, try again "
                                       "in a few seconds")
        for out in messages:
            await send(_unpack(out))


def _chunks(places: list[tuple[str, list[str]]], size: int
            ) -> list[list[tuple[str, list[str]]]]:
    """``places`` (key, ids) in groups of at most ``size`` ids (a key's ids split if need be).

    >>> _chunks([("a", ["1", "2", "3"]), ("b", ["4"])], 2)
    [[('a', ['1', '2'])], [('a', ['3']), ('b', ['4'])]]
    """
    groups: list[list[tuple[str, list[str]]]] = []
    group: list[tuple[str, list[str]]] = []
    room = size
    for key, members in places:
        while members:
            part, members = members[:room], members[room:]
            group.append((key, part))
            room -= len(part)
            if room == 0:
                groups.append(group)
                group, room = [], size
    if group:
        groups.append(group)
    return groups


def _refresh_args(chunk: list[tuple[str, list[str]]], lease_ms: int) -> list[str | int]:
    """The keys and arguments of :data:`_REFRESH` for ``chunk`` (key, place ids).

    >>> _refresh_args([("a", ["1", "2"]), ("b", ["3"])], 3000)
    ['a', 'b', 3000, 2, '1', '2', 1, '3']
    """
    args: list[str | int] = [key for key, _ in chunk]
    args.append(lease_ms)
    for _, members in chunk:
        args.append(len(members))
        args.extend(members)
    return args


def _error_response(status: int, code: str, text: str) -> list[Any]:
    body = json.dumps({"code": code, "message": text}).encode()
    return [_pack({"type": "http.response.start", "status": status,
                   "headers": [(b"content-type", b"application/json")]}),
            _pack({"type": "http.response.body", "body": body})]


def _room_of(path: str) -> tuple[str | None, str | None]:
    """``("api/rooms" | "ws", room id)`` of a room's path, else ``(None, None)``."""
    match = _ROOM_PATH.match(path)
    return (None, None) if match is None else (match.group(1), match.group(2))


class ClusterApp:
    """ASGI wrapper of the application for a worker of a cluster (:class:`Node`): a
    request or WebSocket for a room is run here when this worker owns the room (taking
    the lease when nobody holds it), else relayed to the owner. The lifespan starts and
    stops the node around the application's own."""

    def __init__(self, app: ASGI, node: Node) -> None:
        self.app = app
        self.node = node
        node.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(scope, receive, send)
            return
        _, room_id = _room_of(scope.get("path", ""))
        if room_id is None or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        owner = await self.node.owner_of(room_id)
        if scope["type"] == "websocket":
            if owner is None:
                await self.node.run_local(room_id, scope, receive, send)
            else:
                await self.node.relay_ws(room_id, owner, scope, receive, send)
        elif owner is None:
            await self.app(scope, receive, send)
        else:
            await self.node.relay_http(owner, scope, receive, send)

    async def _lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def receive_lifespan() -> Message:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self.node.start()
            return message

        async def send_lifespan(message: Message) -> None:
            if message["type"] == "lifespan.shutdown.complete":
                await self.node.stop()
            await send(message)

        await self.app(scope, receive_lifespan, send_lifespan)


def cluster_app(store: RoomStore, redis_url: str, *, config: ServerConfig | None = None,
                allowed_origins: Sequence[str] = (), prefix: str = "gutskit",
                lease_seconds: float = LEASE_SECONDS, renew_seconds: float = RENEW_SECONDS,
                stall_seconds: float = STALL_SECONDS, mark: str | None = None) -> ClusterApp:
    """One worker's application: :func:`gutskit.server.app.create_app` on a
    :class:`ClusterRoomManager`, wrapped in :class:`ClusterApp`.

    Args:
        store: the shared database (opened and migrated).
        redis_url: the shared Redis.
        config: server knobs.
        allowed_origins: extra browser origins allowed to open the WebSocket.
        prefix: Redis key prefix.
        lease_seconds: lease time (:data:`LEASE_SECONDS`).
        renew_seconds: renewal period (:data:`RENEW_SECONDS`).
        stall_seconds: :data:`STALL_SECONDS`.
        mark: the cluster's mark, put back in a Redis that lost it (:class:`Node`).
    """
    manager = ClusterRoomManager(store, config)
    node = Node(manager, redis_url, prefix=prefix, lease_seconds=lease_seconds,
                renew_seconds=renew_seconds, stall_seconds=stall_seconds, mark=mark)
    app = server_app.create_app(manager=manager, allowed_origins=allowed_origins,
                                redis_url=redis_url, redis_prefix=prefix, quota=node.quota)
    return ClusterApp(app, node)  # type: ignore[arg-type]


SUPERVISOR_ENV = "GUTSKIT_SUPERVISOR"
"""The environment variable holding the process id of ``guts serve --workers N``'s main
process (the supervisor of its workers), set for the workers it starts."""


def die_with_parent(parent: int) -> None:
    """End this process (``SIGKILL``) as soon as its parent, the process ``parent``, ends:
    Linux's ``prctl(PR_SET_PDEATHSIG)``; at once if it has already ended. A worker whose
    supervisor was killed (``kill -9``, the OOM killer) would otherwise go on serving its
    rooms after the supervisor's hold on the database is gone, beside a new server on the
    same database (attack8 M1). Nothing on other systems.

    Raises:
        OSError: the kernel refuses the request.
    """
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
    if os.getppid() != parent:  # it ended before the request
        os.kill(os.getpid(), signal.SIGKILL)


_PR_SET_PDEATHSIG = 1
"""``PR_SET_PDEATHSIG`` of Linux's ``<sys/prctl.h>``."""


def worker_app() -> ClusterApp:
    """The application of one worker process of ``guts serve --workers N`` (a uvicorn
    factory): :class:`WorkerSettings` from the environment variable :data:`CONFIG_ENV`.
    A worker started by a supervisor (:data:`SUPERVISOR_ENV`) ends with it
    (:func:`die_with_parent`).

    Raises:
        KeyError: the variable is not set.
        StorageError: the database cannot be opened.
    """
    supervisor = os.environ.get(SUPERVISOR_ENV)
    if supervisor:
        die_with_parent(int(supervisor))
    settings = WorkerSettings.from_json(os.environ[CONFIG_ENV])
    store = open_room_store(settings.db)
    return cluster_app(store, settings.redis_url, config=settings.config,
                       allowed_origins=settings.allowed_origins, prefix=settings.prefix,
                       mark=settings.mark)
