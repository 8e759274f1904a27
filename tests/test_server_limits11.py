"""Session 11's limits (attack10's open findings): a write deadline for HTTP answers a
client does not read, a cap per network (IPv4 /24, IPv6 /48) alongside the per-address
one, and a dropped action answered by name.

Real sockets against the app as ``guts serve`` runs it (:func:`server_support.running_server`
uses :func:`gutskit.server.app.uvicorn_options`). No test expects a close at a given time:
each waits for the condition (a log line, the close, the answer) with a generous limit.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import limits
import pytest
import uvicorn
from server_support import Player, Server, read_until_closed, running_server
from uvicorn.server import ServerState
from websockets.exceptions import ConnectionClosed

from gutskit.server import app as server_app
from gutskit.server.sockets import (
    NETWORK_REFUSAL,
    REFUSAL,
    GuardedH11Protocol,
    SocketGuard,
    network_key,
)

WAIT = 60.0
APP_JS = (Path(server_app.STATIC) / "app.js").stat().st_size


def _db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'rooms.db'}"


def _connect(server: Server, source: str = "127.0.0.1", rcvbuf: int = 0) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:  # set before connecting: the window the client offers stays small
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(WAIT)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", server.port))
    return sock



def _get(server: Server, path: str) -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n").encode()


def _answer(server: Server, source: str, path: str = "/api/rules") -> bytes:
    """The head of the answer to one GET from ``source``, once admitted (a connection
    refused meanwhile, its place not yet given back by the server, is tried again for
    ``WAIT`` seconds)."""
    deadline = time.monotonic() + WAIT
    while True:
        sock = _connect(server, source)
        sock.sendall(_get(server, path))
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(65536)
            if not chunk:
                break
            head += chunk
        sock.close()
        if not head.startswith(b"HTTP/1.1 503") or time.monotonic() > deadline:
            return head.split(b"\r\n", 1)[0]
        time.sleep(0.05)


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")

    def wait_for(self, start: str) -> str:
        """The first line that starts with ``start``, waited for ``WAIT`` seconds."""
        deadline = time.monotonic() + WAIT
        while True:
            found = [line for line in self.lines if line.startswith(start)]
            if found:
                return found[0]
            assert time.monotonic() < deadline, f"no log line {start!r}: {self.lines}"
            time.sleep(0.02)


@contextmanager
def _logged() -> Iterator[_Records]:
    """What ``gutskit.server`` logs meanwhile (attached after the server started:
    uvicorn's logging configuration drops the handlers it finds)."""
    records = _Records()
    logger = logging.getLogger("gutskit.server")
    logger.addHandler(records)
    try:
        yield records
    finally:
        logger.removeHandler(records)


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_a_client_that_never_reads_its_answer_is_aborted(tmp_path: Path, loop: str) -> None:
    """attack10 HIGH-1 (the rest): a complete request whose answer is never read held its
    socket and its open file for ever. 200 pipelined requests for app.js (16 MB of
    answers, far beyond what the kernel's buffers hold) and not one byte read: once the
    transport's buffer is full, the client has ``write_seconds`` to drain it, then the
    connection is reset; the address's one place (cap 1) is given back."""
    total = 200 * APP_JS
    with running_server(_db(tmp_path), loop=loop, write_seconds=0.5,
                        max_sockets_per_address=1) as server, _logged() as log:
        sock = _connect(server, "127.0.0.2", rcvbuf=4096)
        sock.sendall(_get(server, "/static/app.js") * 200)
        line = log.wait_for("gutskit.server: closed a connection from 127.0.0.2: it did "
                            "not read its answer within 0.5 s (")
        assert line.endswith(" bytes unread)")
        received = read_until_closed(sock)  # what the kernels held: then the reset
        sock.close()
        assert received.startswith(b"HTTP/1.1 200 OK\r\n")
        assert len(received) < total
        # the place is given back: the same address (cap 1) is answered again
        assert _answer(server, "127.0.0.2") == b"HTTP/1.1 200 OK"


def test_a_network_is_capped_above_its_addresses(tmp_path: Path) -> None:
    """attack10 HIGH-1: many addresses of one /24, each under its cap, filled the
    process's cap. With 2 per address and 3 per network: 127.0.0.2 holds 2, 127.0.0.3
    one, then 127.0.0.4 (same /24) is refused for its network, 127.0.0.2 for its address,
    and 127.0.1.5 (another /24) is answered."""
    with running_server(_db(tmp_path), max_sockets_per_address=2, max_sockets_per_network=3,
                        header_seconds=2 * WAIT) as server, _logged() as log:
        held = [_connect(server, source) for source in ("127.0.0.2", "127.0.0.2", "127.0.0.3")]
        for sock in held:
            sock.sendall(b"GET /api/rules HTTP/1.1\r\n")  # headers never finished
        over = _connect(server, "127.0.0.4")
        assert read_until_closed(over) == NETWORK_REFUSAL
        over.close()
        again = _connect(server, "127.0.0.2")
        assert read_until_closed(again) == REFUSAL
        again.close()
        assert _answer(server, "127.0.1.5") == b"HTTP/1.1 200 OK"
        for sock in held:
            sock.close()
        # the places come back: the network is answered again once they are
        assert _answer(server, "127.0.0.4") == b"HTTP/1.1 200 OK"
    assert ("gutskit.server: refused connections from the network 127.0.0.0/24 over its 3 "
            "open connections (max_sockets_per_network)") in log.lines


def test_socket_guard_counts_networks_and_spares_proxies() -> None:
    guard = SocketGuard(10.0, 30.0, 2, ("10.0.0.0/8",), max_total=0, max_per_network=3)
    assert [guard.admit(a) for a in ("203.0.113.1", "203.0.113.1", "203.0.113.2",
                                     "203.0.113.3", "203.0.114.1")] == [
        True, True, True, False, True]
    assert guard.networks == {"203.0.113.0/24": 3, "203.0.114.0/24": 1}
    assert guard.refusal("203.0.113.3") == NETWORK_REFUSAL
    assert guard.refusal("203.0.113.1") == REFUSAL  # its address's cap first
    guard.release("203.0.113.1")
    assert guard.admit("203.0.113.3") is True
    assert guard.networks["203.0.113.0/24"] == 3 and guard.total == 4
    # IPv6: addresses counted by /64, networks by /48
    guard6 = SocketGuard(10.0, 30.0, 2, max_total=0, max_per_network=3)
    assert [guard6.admit(a) for a in ("2001:db8:1:1::1", "2001:db8:1:2::1", "2001:db8:1:3::1",
                                      "2001:db8:1:4::1", "2001:db8:2::1")] == [
        True, True, True, False, True]
    assert all(guard.admit("10.9.9.9") for _ in range(10))  # a proxy: never capped
    assert "10.9.9.0/24" not in guard.networks
    assert SocketGuard(10.0, 30.0, 0, max_total=0).admit("203.0.113.1") is True


def test_network_key() -> None:
    assert network_key("198.51.100.200") == "198.51.100.0/24"
    assert network_key("::ffff:198.51.100.200") == "198.51.100.0/24"
    assert network_key("2001:db8:aa:bb:cc::1") == "2001:db8:aa::/48"
    assert network_key("testclient") == "testclient"


def test_a_dropped_action_is_answered_by_its_action_id(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """attack10 LOW-3: a declaration dropped in its player's own flood got no answer (one
    rate_limited error per window, without an action_id). Two messages per hour here: the
    hello and a ping are taken, everything after is dropped; each dropped message with an
    action_id gets its own error naming it, the others one error per window."""
    monkeypatch.setattr(server_app, "MESSAGE_LIMIT", limits.RateLimitItemPerHour(2))
    with running_server(_db(tmp_path)) as server:
        created = server.create_room("Ana")
        ana = Player(server, created["room_id"], created["token"])
        ana.send({"type": "ping"})
        assert ana.expect("pong") == {"type": "pong"}
        dropped = {"type": "error", "code": "rate_limited", "message": (
            "more than 30 messages in 3 seconds: this action was dropped, not taken; send "
            "it again")}
        ana.send({"type": "declare", "round": 1, "action_id": "a1", "declaration": "in"})
        assert ana.expect("error") == {**dropped, "action_id": "a1"}
        ana.send({"type": "ping"})  # no action_id: the window's one error
        assert ana.expect("error") == {
            "type": "error", "code": "rate_limited", "action_id": None,
            "message": "more than 30 messages in 3 seconds: this one and the next are "
                       "dropped (this error is sent at most once every 3 seconds)"}
        ana.send({"type": "ping"})  # answered by nothing (the window's error was sent)
        ana.send({"type": "pass_card", "round": 2, "action_id": "p2", "card": "2c"})
        assert ana.expect("error") == {**dropped, "action_id": "p2"}
        ana.close()


def test_action_id_of_a_dropped_message() -> None:
    action_id_of = server_app._action_id_of
    assert action_id_of(b'{"type": "declare", "action_id": "x-1"}') == "x-1"
    assert action_id_of('{"type": "ping"}') is None
    assert action_id_of('{"type": "declare", "action_id": ""}') is None  # not one taken
    assert action_id_of('{"type": "declare", "action_id": "' + "y" * 65 + '"}') is None
    assert action_id_of('{"type": "declare", "action_id": 7}') is None
    assert action_id_of('{"type": "pass_card", "action_id": "a", "x": ' + "[" * 40 + "]" * 40
                        + "}") is None  # too deep: not parsed
    assert action_id_of('{"type": "declare", "action_id": "a"' + " " * 5000
                        + "}") is None  # too large
    assert action_id_of("action_id") is None  # not JSON
    assert action_id_of('{"action_id": "a"}') is None  # not an action: no type
    assert action_id_of('{"type": "chat", "action_id": "a"}') is None  # not an action


def test_dropped_actions_are_answered_by_name_at_most_burst_a_window() -> None:
    """attack11 H1: a flood of dropped messages each naming an action_id got an error
    each (62.7 MB of errors for 10 MB in). In a window of 3 s (30 messages: BURST) the
    first 30 dropped actions are answered by name, the 31st and later share the window's
    one error with every other dropped message; a message with an action_id but no
    action type (``{"action_id": ...}``) is not an action. A new window answers by name
    again."""
    answers = server_app.DroppedAnswers()
    declare = '{{"type": "declare", "round": 1, "action_id": "a{}", "declaration": "in"}}'
    named = [answers.answer(declare.format(n), 100.0 + n / 100) for n in range(30)]
    assert [a.action_id for a in named if a is not None] == [f"a{n}" for n in range(30)]
    over = answers.answer(declare.format(30), 100.5)
    assert over is not None and over.action_id is None and over.message.startswith(
        "more than 30 messages in 3 seconds: this one and the next are dropped")
    assert answers.answer(declare.format(31), 100.6) is None
    assert answers.answer('{"action_id": "x"}', 100.7) is None
    assert answers.answer('{"type": "ping"}', 102.9) is None
    again = answers.answer(declare.format(32), 103.0)  # 3 s after the window opened
    assert again is not None and again.action_id == "a32"
    bare = server_app.DroppedAnswers()
    first = bare.answer('{"action_id": "x"}', 0.0)
    assert first is not None and first.action_id is None
    assert [bare.answer('{"action_id": "x"}', t / 10) for t in range(1, 30)] == [None] * 29


def test_a_connection_flooding_past_ten_windows_is_closed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """attack11b F1: connections sending about 100,000 tiny messages a second, each read
    and dropped, held every room back about 5 s until the keepalive closed them. Past
    FLOOD (300) messages dropped in one window the connection is closed, 1008, after an
    error saying so. Two messages per hour here: the hello and a ping are taken; of the
    301 pings after them the first is answered by the window's one error, the 301st
    closes the connection."""
    monkeypatch.setattr(server_app, "MESSAGE_LIMIT", limits.RateLimitItemPerHour(2))
    with running_server(_db(tmp_path)) as server:
        room_id = server.create_room("Ana")["room_id"]
        flooder = Player(server, room_id)
        flooder.send({"type": "ping"})
        assert flooder.expect("pong") == {"type": "pong"}
        for _ in range(301):
            flooder.send({"type": "ping"})
        errors = []
        with pytest.raises(ConnectionClosed):
            while True:
                message = flooder.recv()
                if message["type"] == "error":
                    errors.append(message["message"])
        assert errors == [
            "more than 30 messages in 3 seconds: this one and the next are dropped (this "
            "error is sent at most once every 3 seconds)",
            "more than 300 messages dropped in 3 seconds: the connection is closed"]
        assert flooder.ws.close_code == 1008
        watcher = Player(server, room_id)  # the room goes on
        watcher.send({"type": "ping"})
        assert watcher.expect("pong") == {"type": "pong"}
        watcher.close()


def test_flooding_counts_the_messages_dropped_in_one_window() -> None:
    answers = server_app.DroppedAnswers()
    for n in range(300):
        answers.answer('{"type": "ping"}', 10.0 + n / 1000)
    assert not answers.flooding  # 300: not more than FLOOD
    answers.answer('{"type": "ping"}', 10.5)
    assert answers.flooding
    answers.answer('{"type": "ping"}', 13.0)  # a new window: counted afresh
    assert not answers.flooding and answers.dropped == 1


class _Transport:
    """What :class:`GuardedH11Protocol`'s write deadline asks of a transport."""

    def __init__(self, unread: int, closing: bool) -> None:
        self.unread = unread
        self.closing = closing
        self.protocol: object = None
        self.aborted = asyncio.Event()

    def is_closing(self) -> bool:
        return self.closing

    def get_protocol(self) -> object:
        return self.protocol

    def get_write_buffer_size(self) -> int:
        return self.unread

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default  # no socket: sockets.reset only aborts

    def abort(self) -> None:
        self.aborted.set()


def test_a_connection_closed_with_unread_bytes_too_few_to_pause_it_is_aborted() -> None:
    """The close of a complete answer (``Connection: close``, the keep-alive timeout)
    waits for the bytes still in the transport's buffer: fewer than its 64 KiB, writing
    was never paused, so the pause's deadline never started, and a client that reads
    nothing held the socket for ever (found by reading the code after the test above:
    the kernel's buffers must hold all but the last few KiB, which a client can aim at
    with pipelined small requests). Such a close now has the write deadline too."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        """(never called)"""

    async def run() -> list[bool]:
        guard = SocketGuard(10.0, 30.0, 0, max_total=0, write_seconds=0.01)
        config = uvicorn.Config(app)
        armed = []
        for unread, closing in ((100, True), (0, True), (100, False)):
            protocol = GuardedH11Protocol(config, ServerState(), {}, guard=guard,
                                          _loop=asyncio.get_running_loop())
            transport = _Transport(unread, closing)
            transport.protocol = protocol
            protocol.transport = cast(asyncio.Transport, transport)
            protocol._closed_unread()
            armed.append(protocol.unread is not None)
            if protocol.unread is not None:
                await asyncio.wait_for(transport.aborted.wait(), WAIT)
        return armed

    # armed (then aborted) only for a closing transport with bytes unread
    assert asyncio.run(run()) == [True, False, False]
