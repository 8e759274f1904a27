"""A WebSocket's frames written straight to the transport (``app.DirectWriter``) on
uvicorn's websockets-sansio implementation, what ``guts serve`` runs, and through uvicorn's
own send on its other implementation or whenever that send would not just write (the
transport over its high-water mark): the client gets the same bytes, in order."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from websockets.frames import Frame, Opcode
from websockets.sync.client import connect

from gutskit.server.app import (
    UVICORN_OPTIONS,
    DirectWriter,
    KeepTransport,
    WsClient,
    direct_writer,
    text_frame,
)

WAIT = 60.0
"""Seconds to wait for a frame (a loaded machine is slow; a passing test waits no longer
than it must)."""

TEXTS = ["x", "a" * 125, "b" * 126, "c" * 65535, "d" * 65536, "e" * 70000, "é" * 100,
         '[{"type":"ack","action_id":"7"}]']
"""Frames of every length encoding (7, 16 and 64 bits; the 126-byte edge) and non-ASCII
text (200 bytes for 100 characters)."""


@pytest.mark.parametrize("text", ["", *TEXTS])
def test_a_direct_frame_is_the_websockets_librarys_own(text: str) -> None:
    expected = Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[])
    assert text_frame(text) == expected


def test_a_direct_frame_by_hand() -> None:
    assert text_frame("hi") == b"\x81\x02hi"
    assert text_frame("é") == b"\x81\x02\xc3\xa9"
    assert text_frame("z" * 126)[:4] == b"\x81\x7e\x00\x7e"
    assert text_frame("z" * 65536)[:10] == b"\x81\x7f\x00\x00\x00\x00\x00\x01\x00\x00"


def test_no_direct_writer_for_what_is_not_uvicorns_sansio_protocol() -> None:
    class Imitation:
        def __init__(self) -> None:
            self.writable = asyncio.Event()
            self.disconnected = self.close_sent = False
            self.handshake_complete = True
            self.initial_response = None
            self.conn = self.transport = None

        async def send(self, message: Any) -> None:
            """A send with every attribute the writer reads, of another class."""

    async def plain(message: Any) -> None:
        """A send that is no method."""

    assert direct_writer(Imitation().send) is None
    assert direct_writer(plain) is None
    assert direct_writer(None) is None


class _Seen:
    """What the test app saw of its one connection, set before the frames that follow it
    are sent (read by the test's thread once the client got them)."""

    def __init__(self) -> None:
        self.client: WsClient | None = None
        self.stalled: tuple[bool, bool, int] | None = None
        """While stalled: the direct write's answer, ``busy``, frames queued."""


def _app(seen: _Seen) -> Any:
    app = FastAPI()

    @app.websocket("/ws")
    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        client = WsClient(websocket)
        seen.client = client
        writer = asyncio.create_task(client.writer())
        try:
            while True:
                command = await websocket.receive_text()
                if command == "texts":
                    for text in TEXTS:
                        client.send(text)
                elif command == "stall":  # as when the client's buffers are full
                    assert client.direct is not None
                    writable = client.direct.writable
                    writable.clear()
                    refused = client.direct("never")
                    client.send("first")
                    client.send("second")
                    seen.stalled = (refused, client.busy, client.queue.qsize())
                    writable.set()  # the writer task sends them, then this one
                    client.send("third")
                elif command == "resumed":
                    assert client.direct is not None
                    busy = client.busy
                    written = client.direct("fourth")
                    client.send(f"busy {busy}, written {written}")  # after the frame
        except WebSocketDisconnect:
            pass
        finally:
            client.queue.put_nowait(None)
            await writer

    return KeepTransport(app)


@contextmanager
def _serving(ws: str, loop: str, seen: _Seen) -> Iterator[int]:
    config = uvicorn.Config(_app(seen), host="127.0.0.1", port=0, log_level="error",
                            lifespan="off", **{**UVICORN_OPTIONS, "ws": ws, "loop": loop})
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.01)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(60)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # uvicorn's legacy "websockets"
@pytest.mark.filterwarnings("ignore:The `websockets` implementation is deprecated")
@pytest.mark.parametrize(("ws", "loop", "direct"), [
    ("auto", "uvloop", True), ("websockets-sansio", "asyncio", True),
    ("websockets", "uvloop", False)])
def test_frames_arrive_whole_and_in_order_by_either_path(ws: str, loop: str,
                                                         direct: bool) -> None:
    seen = _Seen()
    with _serving(ws, loop, seen) as port, \
            connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as connection:
        connection.send("texts")
        assert [connection.recv(timeout=WAIT) for _ in TEXTS] == TEXTS
        assert seen.client is not None
        assert isinstance(seen.client.direct, DirectWriter) is direct
        if direct:
            connection.send("stall")
            got = [connection.recv(timeout=WAIT) for _ in range(3)]
            assert got == ["first", "second", "third"]
            # Stalled, the direct write refused and wrote nothing; the first frame's send
            # suspended (uvicorn's, waiting for the transport) and the second queued.
            assert seen.stalled == (False, True, 2)
            connection.send("resumed")
            assert connection.recv(timeout=WAIT) == "fourth"
            assert connection.recv(timeout=WAIT) == "busy False, written True"
