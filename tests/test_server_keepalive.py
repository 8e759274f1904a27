"""A WebSocket client that stops reading is reset when the keepalive ping closes it (session
12 F2): a client of a busy room that read nothing was closed by the keepalive's timeout
(1011, about 40 s) before it reached the slow-client limits, and its socket stayed in
FIN-WAIT-1 holding about 580 KB of unsent frames for over a minute (``close`` waits for
the unread bytes). :class:`gutskit.server.sockets.GuardedWebSocketProtocol` resets it.
Over a real socket, the keepalive shortened (uvicorn's ``ws_ping_interval`` and
``ws_ping_timeout``); nothing timed: the test waits for conditions."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest
from server_support import (
    DB_KINDS,
    WAIT,
    Server,
    make_db_url,
    raw_websocket,
    running_server,
)

from gutskit.server import app as server_app
from gutskit.server.app import WsClient
from gutskit.server.rooms import Room
from gutskit.server.sockets import GuardedWebSocketProtocol, unsent

_T = TypeVar("_T")


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with make_db_url(request.param, tmp_path) as url:
        yield url


def _client_frame(text: str) -> bytes:
    """A masked WebSocket text frame (under 126 bytes) as a client sends it."""
    data = text.encode()
    mask = b"\x01\x02\x03\x04"
    return bytes([0x81, 0x80 | len(data)]) + mask + bytes(
        byte ^ mask[i % 4] for i, byte in enumerate(data))


def _on_loop(loop: asyncio.AbstractEventLoop, call: Callable[[], _T]) -> _T:
    """``call()`` run on the server's event loop ``loop``; its result."""
    async def run() -> _T:
        return call()

    return asyncio.run_coroutine_threadsafe(run(), loop).result(WAIT)


def _read_to_the_end(sock: socket.socket) -> tuple[bytes, bool]:
    """Everything ``sock`` still receives, and whether it ended in a reset (``False``: the
    server closed it in order, FIN)."""
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        return received, True
    return received, False


@dataclass
class _Unread:
    """A host connection that stopped reading in a table that keeps sending."""

    server: Server
    room: Room
    host: WsClient
    transport: asyncio.WriteTransport
    protocol: GuardedWebSocketProtocol
    sock: socket.socket
    deadline: float

    def wait(self, condition: Callable[[], bool], what: str) -> None:
        """Wait (polling) until ``condition()``; fail naming ``what`` past the deadline."""
        while not condition():
            assert time.monotonic() < self.deadline, what
            time.sleep(0.01)


@contextmanager
def _unread_host(db_url: str, loop: str, held_by: str, monkeypatch: pytest.MonkeyPatch,
                 ping_timeout: float = 0.5) -> Iterator[_Unread]:
    """The host of a table of bots (its decisions timed out every 0.1 s: a table that
    keeps sending) says hello, seats two bots, starts, then reads nothing and answers no
    ping; yielded once the server holds 16 KiB it has not read: in the transport's buffer
    (``held_by`` ``"transport"``: the server's socket buffer made small) or in the
    kernel's alone (``"kernel"``, F2's case). The slow-client limits are out of reach;
    the keepalive pings only when the test says (its interval an hour)."""
    monkeypatch.setattr(server_app, "QUEUE_LIMIT", 10**9)
    monkeypatch.setattr(server_app, "QUEUE_BYTES", 10**12)
    keepalive: dict[str, Any] = {"ws_ping_interval": 3600.0, "ws_ping_timeout": ping_timeout}
    with running_server(db_url, loop=loop, uvicorn_extra=keepalive) as server:
        # (1000 chips each: the session goes on for as long as any test needs)
        created = server.create_room(decision_seconds=0.1, buy_in=1000)
        room = server.manager.rooms[created["room_id"]]
        sock = raw_websocket(server, room.room_id)
        try:
            sock.sendall(_client_frame(json.dumps(
                {"type": "hello", "protocol": 1, "token": created["token"]})))
            deadline = time.monotonic() + WAIT
            while len(room.clients) < 1:
                assert time.monotonic() < deadline, "the connection did not reach the room"
                time.sleep(0.01)
            (host,) = cast(set[WsClient], room.clients)
            transport = cast(asyncio.WriteTransport, host.transport)
            protocol = transport.get_protocol()
            assert isinstance(protocol, GuardedWebSocketProtocol)  # guts serve's ws class
            if held_by == "transport":  # the kernel takes 4 KiB, the transport the rest
                transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET,
                                                              socket.SO_SNDBUF, 4096)
            sock.sendall(b"".join(_client_frame(json.dumps(message)) for message in (
                {"type": "add_bot"}, {"type": "add_bot"}, {"type": "start"})))
            unread = _Unread(server, room, host, transport, protocol, sock, deadline)
            unread.wait(lambda: _on_loop(protocol.loop, lambda: unsent(transport)) >= 16384,
                        "the table sent too little")
            yield unread
        finally:
            sock.close()


@pytest.mark.parametrize("held_by", ["transport", "kernel"])
@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_a_client_closed_by_the_keepalive_with_unread_frames_is_reset(
        db_url: str, loop: str, held_by: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that stopped reading (:func:`_unread_host`) is pinged (on a loaded machine
    a ping at a fixed interval could come before it holds frames unread: sent here once it
    does) and the pong's deadline passes: the connection is reset. The client reads what
    its own buffer held, then ECONNRESET (before: a close frame 1011 and FIN after every
    unread byte, the server's socket holding them meanwhile, or, with bytes in the
    transport's buffer, the connection never closed at all), and the server's transport
    holds nothing."""
    with _unread_host(db_url, loop, held_by, monkeypatch) as unread:
        _on_loop(unread.protocol.loop, unread.protocol.send_keepalive_ping)
        unread.wait(lambda: unread.host not in unread.room.clients,  # closed, detached
                    "the client was not closed")
        assert not unread.host.overflow  # not the slow-client limit
        assert unread.room.status == "playing" and unread.room.events  # the table played
        assert unread.transport.is_closing()
        assert unread.transport.get_write_buffer_size() == 0
        received, was_reset = _read_to_the_end(unread.sock)
    assert received  # what the client's buffer held
    assert was_reset, f"closed in order after {len(received)} bytes, not reset"


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_a_client_that_does_not_answer_the_servers_close_is_reset(
        db_url: str, loop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server closes a client that stopped reading (the application's
    ``websocket.close``, 1008, as a second tab of its seat or a flood makes it), its
    frames held by the kernel: the close frame is written behind them, and when uvicorn's
    close timeout (made 0.5 s here) passes unanswered the connection is reset, not closed
    (FIN after every unread byte, before). With bytes in the transport's own buffer the
    close frame is never written (uvicorn's send waits for the buffer to drain): the
    keepalive resets such a client (the test above)."""
    with _unread_host(db_url, loop, "kernel", monkeypatch) as unread:
        protocol = unread.protocol

        def close() -> None:
            protocol.close_timeout = 0.5
            protocol.loop.create_task(unread.host.websocket.close(code=1008, reason="test"))

        _on_loop(protocol.loop, close)
        unread.wait(lambda: protocol.disconnected, "the connection was not dropped")
        assert unread.transport.get_write_buffer_size() == 0
        received, was_reset = _read_to_the_end(unread.sock)
    assert received
    assert was_reset, f"closed in order after {len(received)} bytes, not reset"


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_a_client_that_stopped_reading_does_not_keep_the_server_from_stopping(
        db_url: str, loop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server stops (SIGTERM: uvicorn's shutdown writes a close frame, 1012, to every
    WebSocket and closes it, then waits for every connection to end) while a client that
    stopped reading has bytes in the transport's own buffer: that close waited for them,
    and the server for it, for ever. The connection is reset once uvicorn's close timeout
    (made 0.5 s here) has passed."""
    with _unread_host(db_url, loop, "transport", monkeypatch) as unread:
        protocol = unread.protocol

        def shorten() -> None:
            protocol.close_timeout = 0.5

        _on_loop(protocol.loop, shorten)
        assert unread.server.uvicorn is not None
        unread.server.uvicorn.should_exit = True
        unread.wait(lambda: protocol.disconnected,
                    "the connection kept the server from stopping")
        received, was_reset = _read_to_the_end(unread.sock)
    assert received
    assert was_reset, f"closed in order after {len(received)} bytes, not reset"
