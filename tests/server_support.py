"""Helpers of the server tests: a real uvicorn server in a thread on 127.0.0.1 (random
port) and a synchronous WebSocket player that records every payload it receives."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from sqlalchemy import create_engine, text
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from gutskit.server.app import create_app, uvicorn_options
from gutskit.server.fairness import deck_from_seed
from gutskit.server.rooms import RoomManager, ServerConfig
from gutskit.server.store import RoomStore, open_room_store

PG_URL = os.environ.get("GUTSKIT_TEST_PG_URL")

WAIT = 60.0
"""Seconds a player waits for a message by default: generous, for a machine loaded far
beyond its cores (CI may be; a round of bots that solve their strategy took over 15 s on
the team's 2-core machine at load 28). A passing test waits only as long as it must."""


DB_KINDS = ["sqlite", *(["postgresql"] if PG_URL else [])]
"""The databases every server test runs on: SQLite, and PostgreSQL when the environment
variable GUTSKIT_TEST_PG_URL names one (CI installs Debian's PostgreSQL)."""


@contextmanager
def make_db_url(kind: str, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database of a kind of :data:`DB_KINDS` (test modules wrap it in a
    ``db_url`` fixture parametrized over :data:`DB_KINDS`). PostgreSQL: a new schema of the
    test database per test (safe under pytest-xdist), dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'server.db'}"
        return
    assert PG_URL is not None
    schema = f"t_{uuid.uuid4().hex[:16]}"
    engine = create_engine(PG_URL)
    with engine.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield f"{PG_URL}{'&' if '?' in PG_URL else '?'}options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        engine.dispose()


def seeds(*numbers: int) -> Callable[[], bytes]:
    """A seed source giving ``bytes([n]) * 32`` for each number in turn, then n + 100..."""
    queue = list(numbers)
    counter = [200]

    def next_seed() -> bytes:
        if queue:
            return bytes([queue.pop(0)]) * 32
        counter[0] = (counter[0] + 1) % 256
        return bytes([counter[0]]) * 32

    return next_seed


@dataclass
class Server:
    """A running server."""

    port: int
    manager: RoomManager
    store: RoomStore
    uvicorn: uvicorn.Server | None = None
    """The uvicorn server (:func:`running_server`; a test may stop it early)."""

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, room_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/{room_id}"

    def create_room(self, host: str = "Ana", **fields: Any) -> dict[str, Any]:
        """Create a room (``fields``: more :class:`CreateRoom` fields). Its declaration
        timer is 120 s unless ``fields`` set it: a test's seat must not be counted out
        while a loaded machine gets round to its turn (30 s could), and a turn a test's
        polling loop misses is still counted out well within that loop's bound (the
        tests of the timer set their own)."""
        body = {"host_name": host, "buy_in": 20, "decision_seconds": 120,
                "reveal_seconds": 0, **fields}
        response = self.post("/api/rooms", body)
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        return data

    def get(self, path: str) -> httpx.Response:
        return httpx.get(f"{self.http}{path}", timeout=WAIT)

    def post(self, path: str, body: Any) -> httpx.Response:
        """POST ``body`` as JSON from the server's own origin (as the browser table does)."""
        return httpx.post(f"{self.http}{path}", json=body, timeout=WAIT,
                          headers={"Origin": self.http})


@contextmanager
def running_server(db_url: str, *, seed_numbers: Sequence[int] = (), dealer: int = 0,
                   bot_delay: tuple[float, float] = (0.0, 0.0),
                   allowed_origins: Sequence[str] = (), loop: str = "auto",
                   uvicorn_extra: dict[str, Any] | None = None,
                   **limits: Any) -> Iterator[Server]:
    """Start ``guts serve``'s app on a random loopback port (on the event loop ``loop``,
    ``guts serve --loop``); stop it on exit. ``uvicorn_extra``: uvicorn settings over
    ``guts serve``'s (a test's short keepalive, ``ws_ping_interval``).

    ``limits``: :class:`ServerConfig` fields; by default the tests' fast timers (floors of
    0.1 s / 0 s) and no room creation limit to speak of."""
    store = open_room_store(db_url)
    knobs: dict[str, Any] = {"min_decision_seconds": 0.1, "min_reveal_seconds": 0.0,
                             "room_limit": "10000/minute", **limits}
    manager = RoomManager(store, ServerConfig(bot_delay=bot_delay, **knobs))
    manager.new_seed = seeds(*seed_numbers)
    manager.first_dealer = lambda n: dealer
    app = create_app(manager=manager, allowed_origins=allowed_origins)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error",
                            lifespan="on", **{**uvicorn_options(manager.config, loop),
                                              **(uvicorn_extra or {})})  # as guts serve
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60  # generous: a loaded machine starts slowly
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Server(port=port, manager=manager, store=store, uvicorn=server)
    finally:
        server.should_exit = True
        thread.join(60)  # (a bound: it returns once the server has stopped)
        store.close()


class Player:
    """A WebSocket client that records every message it receives (``log``; ``raw``: the
    frames as received). ``protocol`` 2 and 3: each frame is a JSON array of messages (a
    frame that is a single object, an error before the hello, is taken as one). Protocol
    3: the player keeps its table (``table``) and applies each ``patch`` to it, as the
    browser does; the patch is logged as the ``state`` it makes, ``{"type": "state",
    "table": <the table patched>, "patch": <the patch's fields>}``, so the helpers below
    read the tables of every protocol alike."""

    def __init__(self, server: Server, room_id: str, token: str | None = None, *,
                 hello: bool = True, origin: str | None = None, protocol: int = 1) -> None:
        headers = {"Origin": origin} if origin else None
        # No flow control and no keep-alive pings of our own: a test that leaves a
        # player unread for a while (more than 16 frames) must not stop its answers to the
        # server's pings, and a loaded machine must not close it for a late pong ("keepalive
        # ping timeout"); a dead server shows as a recv timeout.
        self.ws: ClientConnection = connect(server.ws_url(room_id), open_timeout=WAIT,
                                            additional_headers=headers, max_queue=None,
                                            ping_interval=None).__enter__()
        self.log: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.inbox: list[dict[str, Any]] = []
        self.token = token
        self.seat: int | None = None
        self.table: dict[str, Any] | None = None
        if hello:
            self.send({"type": "hello", "protocol": protocol, "token": token})
            welcome = self.expect("welcome")
            self.seat = welcome["seat"]

    def send(self, message: dict[str, Any] | str) -> None:
        self.ws.send(message if isinstance(message, str) else json.dumps(message))

    def recv(self, timeout: float = WAIT) -> dict[str, Any]:
        if not self.inbox:
            text = self.ws.recv(timeout=timeout)
            assert isinstance(text, str)
            self.raw.append(text)
            data = json.loads(text)
            self.inbox = data if isinstance(data, list) else [data]
            assert self.inbox, "an empty frame"
        message: dict[str, Any] = self.inbox.pop(0)
        if message["type"] in ("welcome", "state"):
            self.table = message["table"]
        elif message["type"] == "patch":
            assert self.table is not None, f"a patch before any table: {message}"
            assert message["table"], "an empty patch"
            self.table = {**self.table, **message["table"]}
            message = {"type": "state", "table": self.table, "patch": message["table"]}
        self.log.append(message)
        return message

    def expect(self, kind: str, predicate: Callable[[dict[str, Any]], bool] | None = None,
               timeout: float = WAIT) -> dict[str, Any]:
        """Receive until a message of type ``kind`` (matching ``predicate``) arrives."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind!r} message; last: {self.log[-3:]}"
            message = self.recv(left)
            if message["type"] == kind and (predicate is None or predicate(message)):
                return message

    def drain(self, quiet: float = 0.15) -> list[dict[str, Any]]:
        """Receive until nothing arrives for ``quiet`` seconds."""
        got = []
        while True:
            try:
                got.append(self.recv(quiet))
            except TimeoutError:
                return got

    def state(self, predicate: Callable[[dict[str, Any]], bool] | None = None
              ) -> dict[str, Any]:
        """The next table view matching ``predicate``."""
        message = self.expect("state", None if predicate is None
                              else lambda m: predicate(m["table"]))
        table: dict[str, Any] = message["table"]
        return table

    def reach(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first table view received so far that matches ``predicate``, or else the
        next one that does (waiting for it). Read a connection's log only after this:
        what another connection received says nothing of what this one has received yet
        (each connection is read by a thread of its own, late on a loaded machine), and
        a pause of no message for a while (:meth:`drain`) is no proof that all came."""
        for message in self.log:
            if message["type"] == "state" and predicate(message["table"]):
                table: dict[str, Any] = message["table"]
                return table
        return self.state(predicate)

    def last_state(self) -> dict[str, Any]:
        """The last table view received so far."""
        table: dict[str, Any] = next(m for m in reversed(self.log)
                                     if m["type"] == "state")["table"]
        return table

    def declare(self, round_number: int, declaration: str, action_id: str | None = None
                ) -> dict[str, Any]:
        """Send a declaration and return the ack or error (the ack comes after the
        events and the new state)."""
        action = action_id or f"{self.seat}-{round_number}"
        self.send({"type": "declare", "round": round_number, "action_id": action,
                   "declaration": declaration})
        return self.expect_any(("ack", "error"))

    def expect_any(self, kinds: Sequence[str], timeout: float = WAIT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"none of {kinds}; last: {self.log[-3:]}"
            message = self.recv(left)
            if message["type"] in kinds:
                return message

    def close(self) -> None:
        with suppress(ConnectionClosed):
            self.ws.close()


def seat_three(server: Server, **room: Any) -> tuple[str, list[Player]]:
    """A room with Ana (host), Ben and Cleo seated; not started."""
    created = server.create_room("Ana", **room)
    room_id = created["room_id"]
    players = [Player(server, room_id, created["token"])]
    for name in ("Ben", "Cleo"):
        player = Player(server, room_id)
        player.send({"type": "join", "name": name})
        seated = player.expect("seated")
        player.seat, player.token = seated["seat"], seated["token"]
        players.append(player)
    return room_id, players


def deck(number: int) -> list[int]:
    """The deck of test seed ``number``."""
    return deck_from_seed(bytes([number]) * 32)


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends on raw socket ``sock`` until it closes or resets the
    connection (the socket's own timeout bounds each read)."""
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def raw_websocket(server: Server, room_id: str) -> socket.socket:
    """A WebSocket to ``room_id`` opened by hand (a client library would read, and answer
    pings, by itself) on a socket with a 2 KiB receive buffer: the handshake done, nothing
    said yet. For tests of clients that stop reading."""
    sock = socket.socket()
    sock.settimeout(WAIT)  # (a bound, not a clock)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)  # (before the connect)
    sock.connect(("127.0.0.1", server.port))
    sock.sendall(f"GET /ws/{room_id} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                 "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        byte = sock.recv(1)
        assert byte, f"closed before the handshake's answer ended: {answer!r}"
        answer += byte
    assert answer.startswith(b"HTTP/1.1 101"), answer
    return sock


class FrameSocket:
    """An in-memory WebSocket for a :class:`gutskit.server.app.WsClient` whose frames are
    kept, decoded (``frames``: one list of messages per frame)."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] = {}  # no transport kept (app.transport_of)
        self.frames: list[Any] = []

    async def send_text(self, text: str) -> None:
        self.frames.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        return None


def held_table(frames: list[Any]) -> dict[str, Any]:
    """The table a client applying ``frames`` (lists of messages) in order holds
    (welcome/state whole, patch merged), without ``time_left`` (it counts down)."""
    held: dict[str, Any] = {}
    for message in (m for f in frames for m in f):
        if message["type"] in ("welcome", "state") and message["table"]:
            held = dict(message["table"])
        elif message["type"] == "patch":
            held.update(message["table"])
    held.pop("time_left", None)
    return held
