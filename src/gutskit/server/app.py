"""The ASGI application of ``guts serve`` (FastAPI): HTTP API, WebSocket, static files.

Routes:

* ``GET /`` and ``GET /r/<room_id>``: the browser table (``static/index.html``);
  ``/static/...``: its files.
* ``GET /api/rules``: presets and every house rule with its default and description, and
  the largest chip amount a client may send (``max_chips``).
* ``POST /api/rooms`` (:class:`~gutskit.server.protocol.CreateRoom`) ->
  :class:`~gutskit.server.protocol.CreatedRoom`.
* ``GET /api/rooms/<id>``: :class:`~gutskit.server.protocol.RoomInfo`.
* ``GET /api/rooms/<id>/qr.svg``: the invite link as a QR code (SVG, :mod:`segno`).
* ``GET /api/rooms/<id>/ledger.csv``, ``/history.jsonl?token=...`` (the history as the
  token's seat may see it; a spectator's without a token), ``/fairness.json``; companion
  rooms: ``/referee.json?token=...`` (the session as a ``guts referee`` file).
* For the browser table (:mod:`gutskit.server.web`): ``GET /api/rooms/<id>/ledger.json``
  and ``GET /api/rooms/<id>/hands?cards=...`` (hand descriptions under the room's rules).
* ``WS /ws/<room_id>``: the protocol of :mod:`gutskit.server.protocol`.

Every request and WebSocket must name one of :attr:`ServerConfig.allowed_hosts` in its
``Host`` header (Starlette's ``TrustedHostMiddleware``: HTTP 400 otherwise), so the
server's own origin and its invite links never come from an arbitrary ``Host``.
The WebSocket refuses a browser ``Origin`` that is not the server's own (or the public
URL's, or one of ``allowed_origins``); clients without an ``Origin`` header (scripts,
bots) are accepted.
Each connection may send :data:`MESSAGE_LIMIT` (a moving window kept with the connection:
:data:`RATE` messages per second on average, bursts of :data:`BURST`); extra messages are
dropped, with one ``rate_limited`` error per window however many are dropped in it; a
dropped action (a message of :data:`~gutskit.server.protocol.ACTION_TYPES` with an
``action_id``) gets its own ``rate_limited`` error naming that ``action_id``, so its
client knows to send it again: at most :data:`BURST` of those a window, the others
dropped as the rest are.

Every limit of :class:`~gutskit.server.rooms.ServerConfig` answers with a clear error
(``docs/protocol.md``, "Limits"): :class:`HttpGuard` (body size, JSON content type and
``Origin`` on state-changing requests, the security headers of every response), the room
creation rate per client address (:mod:`limits`; with ``redis_url``, in the shared Redis:
one count per address across every worker of ``guts serve --workers N`` / ``--redis``) and
the open rooms of the server
(:meth:`RoomManager.create`), connections per room and per address (the latter counted by
:class:`~gutskit.server.quotas.ConnectionQuota`: in the shared Redis under a cluster) and
the hello timeout (the WebSocket handler), the JSON nesting depth
(:func:`~gutskit.server.protocol.check_json_depth`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import math
import time
import weakref
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from pathlib import Path
from typing import Annotated, Any, Protocol, cast, runtime_checkable
from urllib.parse import urlsplit

import limits
from fastapi import FastAPI, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ValidationError
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from gutskit.core import views
from gutskit.core.engine import Phase
from gutskit.core.errors import quoted
from gutskit.core.referee import RefereeError, referee_file
from gutskit.core.rules import PRESETS, Rules
from gutskit.server.exports import history_jsonl, ledger_csv
from gutskit.server.gctuning import RECLAIM_SECONDS, GcTuning
from gutskit.server.protocol import (
    ACTION_TYPES,
    MAX_CHIPS,
    MAX_MESSAGE_BYTES,
    NOTICES_HELD_FROM,
    Ack,
    Chat,
    ClientSeed,
    CreatedRoom,
    CreateRoom,
    Error,
    Hello,
    ProtocolError,
    React,
    RoomInfo,
    check_json_depth,
    describe_body_error,
    parse_client_message,
)
from gutskit.server.quotas import CONNECTIONS, OVERFLOW, WAITING, ConnectionQuota, Held
from gutskit.server.rooms import MAX_SEATS, Room, RoomManager, ServerConfig
from gutskit.server.sockets import GuardedWebSocketProtocol, protocol_for, reset
from gutskit.server.store import SET_ASIDE, RoomStore, open_room_store
from gutskit.server.web import (
    HandDescriptionError,
    describe_hand,
    invite_qr_svg,
    ledger_json,
    rule_choices,
)

__all__ = ["ADDRESS_OVERFLOW", "BURST", "LOOPS", "MESSAGE_LIMIT", "RATE", "SECURITY_HEADERS",
           "UVICORN_OPTIONS", "HttpGuard", "Transport", "create_app", "uvicorn_options"]

STATIC = Path(__file__).parent / "static"
SERVICE_RESTART = 1012
"""WebSocket close code of a connection the server closes because it shuts down (uvicorn,
every implementation): the room keeps that connection's seat request for its requester
to take back after the restart (:meth:`Room.detach`)."""
RATE = 10
"""Messages per second a connection may send on average."""
BURST = 30
"""Messages a connection may send at once."""
MESSAGE_LIMIT = limits.RateLimitItemPerSecond(BURST, BURST // RATE)
"""The messages one WebSocket connection may send: :data:`BURST` in any moving window of
``BURST / RATE`` seconds (30 per 3 seconds: 10 per second on average, bursts of 30). The
window is the times of the connection's last :data:`BURST` accepted messages, kept with the
connection (:meth:`WsClient.allow`): the :mod:`limits` library's in-memory moving window
scans every key of every connection from a timer thread it restarts every 10 ms, which
cost the server about a tenth of its CPU under load."""
QUEUE_LIMIT = 1000
"""Frames waiting for a slow client (behind what its connection's buffers hold: uvicorn's
send waits once 64 KiB are unread) before the server closes the connection (1008 "too
slow") and drops it :data:`SLOW_GRACE` seconds later if the client has not taken them."""
QUEUE_BYTES = 4 * 1024 * 1024
"""Characters of frames (JSON text: about as many bytes) waiting for a slow client, as
:data:`QUEUE_LIMIT` counts frames: past either the connection is closed "too slow"
(attack11 H1: errors of one loop turn share a frame, so a client that never read held
thousands of them in each of its frames, 190 MB in all, under the frame count)."""
SLOW_GRACE = 5.0
"""Seconds a client past :data:`QUEUE_LIMIT` has to read what was sent to it and the close
before its connection is dropped (reset, :func:`~gutskit.server.sockets.reset`: a client
that reads nothing gets no close frame, and its buffers, the kernel's too, are freed at
once)."""

NOTICE_DELAY = 0.3
"""Seconds a notice (:meth:`WsClient.notice`: that another seat declared, sealed, while the
round is still being declared; nothing a viewer must answer) may wait to share its frame
with the notices after it, each frame being a send through uvicorn and the websockets
library and a ``write`` system call. Anything else sent to the connection before the delay
is over (its turn, its own declaration's ack, the reveal) takes the notices with it at
once, in order. 0.3 s, not 0.1 s (session 9): about 18% fewer frames per six-seat round
when the players think up to 3 s (``benchmarks/bench_rooms.py --think 3``: 44.5 frames at
0.1 s, 41.1 at 0.2 s, 36.7 at 0.3 s), at the price of another seat's "declared" mark
showing up to 0.3 s after it declared (docs/protocol.md, version 2)."""

SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""Headers of every HTTP response: the browser table runs only its own files (no inline
script or style, no other origin), no page may frame it, no type sniffing, and no
``Referer`` (a history link carries a seat token)."""

STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})

LOOPS = ("auto", "uvloop", "asyncio")
"""The event loops ``guts serve --loop`` runs on: ``auto`` is uvloop's (libuv) when the
``uvloop`` package is installed (a dependency, on every platform but Windows), asyncio's
own otherwise; ``asyncio`` falls back to the standard library's."""

UVICORN_OPTIONS: dict[str, Any] = {
    "proxy_headers": False, "ws_max_size": 65536, "ws_per_message_deflate": False,
    "http": "h11", "loop": "auto", "ws": GuardedWebSocketProtocol}
"""The uvicorn settings ``guts serve`` runs the app with (one process or workers; the
tests' servers too; ``loop`` is replaced by ``--loop``, :data:`LOOPS`). ``proxy_headers``
off: uvicorn would otherwise believe an ``X-Forwarded-For`` from any local peer (its
default trusts ``127.0.0.1``), so one client could make up a new address per request and
escape every per-address limit; the app trusts proxies only when told
(:attr:`ServerConfig.forwarded_allow_ips`). WebSocket frames over 64 KiB close the
connection. No permessage-deflate: compressing every small JSON frame per recipient cost
more server CPU than anything else in the load test (``benchmarks/load_server.py``).
The event loop is uvloop's when installed (``auto``: the WebSocket stack's CPU per frame
about a quarter lower, ``benchmarks/ws_floor.py``). The HTTP parser stays h11 even when
httptools is installed: it parses only each request and each WebSocket's opening
handshake, never a frame, and under httptools a WebSocket opened with two ``Host``
headers (an allowed one and another) was refused 403 by the ``Origin`` check, not 400 by
the allow-listed ``Host`` (``tests/test_server_limits.py``): not the same header wins.
``guts serve`` replaces ``http`` with its guarded h11 protocol (:func:`uvicorn_options`:
request deadlines, connections per address). The WebSocket protocol is uvicorn's
sans-I/O one (what its ``auto`` chooses) resetting a client that has not read what it was
sent when its keepalive ping goes unanswered or it does not answer the server's close
(:class:`~gutskit.server.sockets.GuardedWebSocketProtocol`)."""


def uvicorn_options(config: ServerConfig, loop: str = "auto") -> dict[str, Any]:
    """:data:`UVICORN_OPTIONS` for a server run with ``config`` on the event loop ``loop``
    (:data:`LOOPS`): its ``http`` protocol is uvicorn's h11 one with the request deadlines
    and the per-address connection cap of ``config``
    (:class:`~gutskit.server.sockets.GuardedH11Protocol`)."""
    return {**UVICORN_OPTIONS, "loop": loop, "http": protocol_for(config)}


def _same_origin(origin: str, host: str, allowed: Sequence[str]) -> bool:
    return urlsplit(origin).netloc == host or origin.rstrip("/") in allowed


class HttpGuard:
    """ASGI middleware: the limits every HTTP request meets before a handler runs, and the
    :data:`SECURITY_HEADERS` of every response.

    * A body over ``max_body_bytes`` (by ``Content-Length``, or counted as it arrives):
      413 ``too_large``.
    * A state-changing request (``POST``, ``PUT``, ``PATCH``, ``DELETE``) must say
      ``Content-Type: application/json`` (else 415 ``bad_content_type``: a cross-site
      form or ``text/plain`` post is refused, and a cross-site JSON post needs a CORS
      preflight this server never grants) and carry an ``Origin`` that is the server's own
      or one of ``allowed`` (else 403 ``bad_origin``).

    Errors are JSON ``{"code", "message"}``. A client gone before its body was read
    (Starlette's ``ClientDisconnect``) ends the request quietly: no traceback in the log.
    """

    def __init__(self, app: ASGIApp, *, max_body_bytes: int,
                 allowed: Sequence[str] = ()) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.allowed = tuple(o.rstrip("/") for o in allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope["headers"]}
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                extra = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        problem = self._check(scope["method"], headers)
        if problem is not None:
            await _json_error(send_with_headers, *problem)
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise _BodyTooLarge
            return message

        try:
            await self.app(scope, limited_receive, send_with_headers)
        except _BodyTooLarge:
            if not started:
                await _json_error(send_with_headers, *self._too_large())
        except ClientDisconnect:  # gone mid-body (or closed by its body deadline):
            pass  # no one to answer, and nothing went wrong here (attack9 L3)

    def _too_large(self) -> tuple[int, str, str]:
        return (413, "too_large", f"the request body is larger than {self.max_body_bytes} "
                "bytes")

    def _check(self, method: str, headers: dict[str, str]) -> tuple[int, str, str] | None:
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body_bytes):
            return self._too_large()
        if method not in STATE_CHANGING:
            return None
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return (415, "bad_content_type", f"Content-Type must be application/json "
                    f"(got {kind or 'none'!r})")
        origin = headers.get("origin")
        if origin is None:
            return (403, "bad_origin", "an Origin header is required (the server's own "
                    "origin, e.g. http://HOST:PORT)")
        if not _same_origin(origin, headers.get("host", ""), self.allowed):
            host = headers.get("host", "")[:80]
            return (403, "bad_origin", f"origin {origin[:80]!r} is not allowed: this "
                    f"request reached the server as {host!r}, so its origin is "
                    f"'http://{host}' (or 'https://{host}')")
        return None


class _BodyTooLarge(Exception):
    pass


NOTICE_HOLD = 2.0
"""Protocol 5: seconds a notice (:meth:`WsClient.notice`) may be held for the next frame
the connection gets anyway (its own ack, a deal, the reveal, a chat line): only when none
comes within this bound is it sent in a frame of its own. A seat that declared first, or
a spectator, still sees who is left to declare within 2 s. Six-seat rounds with players
thinking up to 3 s (``benchmarks/bench_rooms.py --think 3``): 31.5 frames a round at
0.5 s, 25.4 at 1 s, 20.9 at 2 s (protocol 4: 38.4); docs/protocol.md (version 5) and
docs/performance.md ("Session 11") have the trade-off."""
HOLD_STEP = 0.1
"""Protocol 5: held notices fall due in steps of this many seconds (one timer per step
for every connection whose hold ends in it, :meth:`_Flusher.hold`), each never later than
:data:`NOTICE_HOLD` after the first notice it holds."""


async def _json_error(send: Send, status: int, code: str, message: str) -> None:
    body = JSONResponse({"code": code, "message": message}).body
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


FLUSH_BATCH = 64
"""The most connections one callback of :class:`_Flusher` flushes (a frame each): more
wait for the next turn of the event loop, so that a burst (a notice window over every
table, many rooms' changes committed together) never makes one long turn that everything
else, a reveal's frames included, waits behind (at 200 tables a notice flush held up to
515 frames, about 30 ms over real WebSockets)."""


class _Flusher:
    """The connections of one event loop with messages collected this turn
    (:meth:`WsClient.send`, protocol 2 and later): flushed together, by one callback per
    turn rather than one per connection (a change of a room reaches each of its
    connections); and the connections holding only notices (:meth:`WsClient.notice`),
    flushed together by one timer :data:`NOTICE_DELAY` seconds after the first of them
    (those that got anything else meanwhile were flushed with it)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.clients: list[WsClient] = []
        self.waiting: list[WsClient] = []
        self.held: dict[int, list[WsClient]] = {}
        """Protocol 5: the connections holding only notices, by the step
        (:data:`HOLD_STEP`) their hold ends in."""

    def add(self, client: WsClient) -> None:
        """Flush ``client`` at the end of this turn of the loop."""
        if not self.clients:
            self.loop.call_soon(self.run)
        self.clients.append(client)

    def later(self, client: WsClient) -> None:
        """Flush ``client`` within :data:`NOTICE_DELAY` seconds (unless something else
        flushes it first)."""
        if not self.waiting:
            self.loop.call_later(NOTICE_DELAY, self.run_waiting)
        self.waiting.append(client)

    def hold(self, client: WsClient) -> None:
        """Protocol 5: flush ``client`` at most :data:`NOTICE_HOLD` seconds from now (unless
        something else flushes it first), by the timer of the :data:`HOLD_STEP` its hold
        ends in (shared by every connection whose hold ends in that step)."""
        step = math.floor((self.loop.time() + NOTICE_HOLD) / HOLD_STEP)
        client.held_until = step
        clients = self.held.get(step)
        if clients is None:
            clients = self.held[step] = []
            self.loop.call_at(step * HOLD_STEP, self.run_held, step)
        clients.append(client)

    def run_held(self, step: int) -> None:
        """Flush the connections whose hold ends in ``step`` and still hold only notices
        (the timer of :meth:`hold`)."""
        clients = [client for client in self.held.pop(step, ())
                   if client.held_until == step]
        self._flush_waiting(clients, 0)

    def run(self) -> None:
        """Flush the connections due this turn, at most :data:`FLUSH_BATCH` of them: the
        rest in the next turn, after what became ready meanwhile (their messages wait
        in order; one that gets more meanwhile sends them in the same frame)."""
        clients = self.clients
        if len(clients) > FLUSH_BATCH:
            self.clients = clients[FLUSH_BATCH:]
            self.loop.call_soon(self.run)
            clients = clients[:FLUSH_BATCH]
        else:
            self.clients = []
        for client in clients:
            client.flush()

    def run_waiting(self) -> None:
        """Flush the connections holding only notices (the timer of :meth:`later`)."""
        clients, self.waiting = self.waiting, []
        self._flush_waiting(clients, 0)

    def _flush_waiting(self, clients: list[WsClient], start: int) -> None:
        """Flush ``clients[start:]`` that still hold only notices, at most
        :data:`FLUSH_BATCH` in this callback, the rest in the next turns."""
        end = start + FLUSH_BATCH
        if end < len(clients):
            self.loop.call_soon(self._flush_waiting, clients, end)
        for client in clients[start:end]:
            if client.scheduled == _LATER:  # (else flushed already, or due this turn)
                client.flush()


_NONE, _LATER, _SOON = 0, 1, 2
"""When a connection's collected messages are due (:attr:`WsClient.scheduled`): none
collected, within :data:`NOTICE_DELAY` (notices only), at the end of this turn."""


_FLUSHERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Flusher] = (
    weakref.WeakKeyDictionary())


def _flusher() -> _Flusher:
    """The running event loop's :class:`_Flusher`."""
    loop = asyncio.get_running_loop()
    flusher = _FLUSHERS.get(loop)
    if flusher is None:
        flusher = _FLUSHERS[loop] = _Flusher(loop)
    return flusher


class WsClient:
    """One WebSocket connection: its frames in order, and its message rate
    (:data:`MESSAGE_LIMIT`).

    Under protocol 1 each message is a frame. Under protocol 2 the messages sent during
    one turn of the event loop (one change of the room: its events, the new view, the
    ack) are collected and sent as one frame, a JSON array of them, when the loop gets
    to the flush the first of them scheduled (one flush per turn of the loop for every
    connection with messages waiting: :class:`_Flusher`). Notices (:meth:`notice`) wait up
    to :data:`NOTICE_DELAY` seconds for that flush, so that several share a frame.

    A frame is written at once when nothing is waiting before it: the WebSocket's send
    runs to its end without suspending (uvicorn's implementations write to the transport
    and return), so it needs no task switch. Only when a send does suspend (uvicorn's
    waits while the transport holds more than 64 KiB the client has not read) do the frames
    after it wait in :attr:`queue` for the writer task (:meth:`writer`), which sends them
    in order; more than :data:`QUEUE_LIMIT` waiting (or :data:`QUEUE_BYTES` of them) close
    the connection (1008 "too slow",
    after the frames already queued) and drop it :data:`SLOW_GRACE` seconds later (its
    transport reset, :func:`transport_of`): a client that stopped reading is cut off
    then, not by the keepalive ping's timeout (about 40 s, code 1011; which resets a
    client that left frames unread too:
    :class:`~gutskit.server.sockets.GuardedWebSocketProtocol`).
    """

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self.seat: int | None = None
        self.protocol = 1  # until a hello says otherwise
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.pending: list[str] = []
        self.scheduled = _NONE
        """When :attr:`pending` is due (:class:`_Flusher`)."""
        self.recent: collections.deque[float] = collections.deque(maxlen=MESSAGE_LIMIT.amount)
        """When the last accepted messages came (monotonic seconds; :meth:`allow`)."""
        self.overflow = False
        self.queued_bytes = 0
        """Characters of the frames in :attr:`queue` (:data:`QUEUE_BYTES`)."""
        self.busy = False
        """A send suspended: it and the frames after it are the writer task's until its
        queue is empty."""
        self.failed = False
        """A send failed (the connection is closing): later frames are dropped."""
        self.transport = transport_of(websocket.scope)
        """The connection's transport (``None``: not served by uvicorn here)."""
        self.raw_send = raw_send_of(websocket.scope)
        """uvicorn's ``send`` of the connection (``None``: not served by uvicorn here;
        frames go through ``websocket.send_text``)."""
        self.address = ""
        """The client's address (what the per-address limits count)."""
        self.held_until = -1
        """Protocol 5: the step (:data:`HOLD_STEP`) the hold of its notices ends in
        (:meth:`_Flusher.hold`)."""
        self.deferred: Callable[[WsClient], str | None] | None = None
        """Protocol 5: what makes the table patch its held notices leave out
        (:meth:`defer_patch`), made when its frame goes."""
        self.beyond: Held | None = None
        """The connection's place among its address's connections beyond the limits
        (:data:`ADDRESS_OVERFLOW`), when a seat's token got it in over them."""

    def send(self, message: BaseModel | str) -> None:
        """Queue ``message`` (a model, or its JSON text; the connection is dropped when
        the queue overflows: a client that far behind cannot catch up)."""
        if self.overflow:
            return
        text = message if isinstance(message, str) else message.model_dump_json()
        if self.protocol < 2:
            self._put(text)
            return
        if self.scheduled != _SOON:
            self.scheduled = _SOON
            _flusher().add(self)
        self.pending.append(text)

    def notice(self, text: str) -> None:
        """Queue ``text`` (JSON), a message the client need not see at once (another
        seat's sealed declaration and the table's change with it, its turn unchanged): it
        may wait :data:`NOTICE_DELAY` seconds for a frame shared with later messages
        (protocol 2 and later; under protocol 1 each message is a frame: sent as
        :meth:`send` does)."""
        if self.overflow:
            return
        if self.protocol < 2:
            self._put(text)
            return
        if self.scheduled == _NONE:
            self.scheduled = _LATER
            if self.protocol >= NOTICES_HELD_FROM:
                _flusher().hold(self)
            else:
                _flusher().later(self)
        self.pending.append(text)

    def defer_patch(self, make: Callable[[WsClient], str | None]) -> None:
        """Protocol 5: the table's change that goes with a notice is not sent now:
        ``make(self)`` makes it when the connection's frame goes (:meth:`flush`), one patch
        from the table the connection holds for all the changes of the notices it held
        (the room's bookkeeping: ``rooms.Room._held_patch``; ``None``: nothing changed)."""
        if self.overflow:
            return
        self.deferred = make
        if self.scheduled == _NONE:
            self.scheduled = _LATER
            _flusher().hold(self)

    def flush(self) -> None:
        """Queue the messages collected so far as one frame (protocol 2); under protocol 5
        the deferred table patch last (:meth:`defer_patch`)."""
        make = self.deferred
        if make is not None:
            self.deferred = None
            text = make(self)
            if text is not None:
                self.pending.append(text)
        texts, self.pending = self.pending, []
        self.scheduled = _NONE
        if texts and not self.overflow:
            self._put("[" + ",".join(texts) + "]")

    def _put(self, frame: str) -> None:
        if self.failed:
            return
        if not self.busy:
            self._send_now(frame)
            return
        if (self.queue.qsize() >= QUEUE_LIMIT
                or self.queued_bytes + len(frame) > QUEUE_BYTES):
            self.overflow = True
            self.queue.put_nowait(None)
            if self.transport is not None:  # a client that reads nothing more is dropped
                asyncio.get_running_loop().call_later(SLOW_GRACE, reset, self.transport)
            return
        self.queued_bytes += len(frame)
        self.queue.put_nowait(frame)

    def _send_now(self, frame: str) -> None:
        """Run the WebSocket's send of ``frame``; if it suspends, the writer task runs
        the rest of it (:attr:`busy`) before any later frame."""
        sending = self._sending(frame)
        try:
            waiting = sending.send(None)
        except StopIteration:
            return
        except Exception:  # the connection is closing: as a failed writer, send no more
            self.failed = True
            return
        self.busy = True
        self.queue.put_nowait(_Resume(sending, waiting))  # type: ignore[arg-type]

    def _sending(self, frame: str) -> Coroutine[Any, Any, None]:
        """The send of text ``frame`` (uvicorn's own when kept: the same message Starlette's
        ``WebSocket.send_text`` passes down to it)."""
        if self.raw_send is not None:
            return cast(Coroutine[Any, Any, None],
                        self.raw_send({"type": "websocket.send", "text": frame}))
        return self.websocket.send_text(frame)

    def allow(self) -> bool:
        """May one more message be processed now (:data:`MESSAGE_LIMIT`, counted if so)?
        Not when :data:`BURST` were accepted in the last ``BURST / RATE`` seconds."""
        now = time.monotonic()
        recent = self.recent
        if len(recent) == MESSAGE_LIMIT.amount and now - recent[0] < MESSAGE_LIMIT.get_expiry():
            return False
        recent.append(now)
        return True

    async def writer(self) -> None:
        """Send the frames queued behind a send that suspended, in order, until ``None``."""
        while True:
            item: str | _Resume | None = await self.queue.get()
            try:
                if item is None:
                    if self.overflow:
                        await self.websocket.close(code=1008, reason="too slow")
                    return
                if isinstance(item, _Resume):
                    await item.finish()
                else:
                    self.queued_bytes -= len(item)
                    await self._sending(item)
            except Exception:
                self.failed = True
                raise
            finally:
                if self.queue.empty():
                    self.busy = False


TRANSPORT = "gutskit.transport"
"""Key of a WebSocket's transport in its ASGI scope's ``state`` (:class:`KeepTransport`)."""
RAW_SEND = "gutskit.send"
"""Key of a WebSocket's uvicorn ``send`` in its ASGI scope's ``state``
(:class:`KeepTransport`)."""


class KeepTransport:
    """ASGI middleware, outermost: keeps the transport under uvicorn's WebSocket send (every
    uvicorn implementation's send is a method of its protocol, which holds ``transport``) in
    the scope's ``state`` (:data:`TRANSPORT`), so :class:`WsClient` can drop a client that
    stopped reading (:data:`QUEUE_LIMIT`). Nothing when there is none (a test client, a
    connection relayed from another worker: its relay watches it, ``cluster.Node``).

    Also keeps that ``send`` itself (:data:`RAW_SEND`): :class:`WsClient` writes its frames
    with it, not through Starlette's ``WebSocket.send`` and the middleware's wrappers of
    ``send`` (a ``websocket.send`` message passes through all of them unchanged; they add
    three coroutine calls to every frame)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and "state" in scope:
            transport = transport_under(send)
            if transport is not None:
                scope["state"][TRANSPORT] = transport
                scope["state"][RAW_SEND] = send
        await self.app(scope, receive, send)


@runtime_checkable
class Transport(Protocol):
    """What :class:`WsClient` and the cluster's relay use of a connection's transport:
    asyncio's own (``asyncio.WriteTransport``) and uvloop's (``uvloop.loop.TCPTransport``,
    which is not registered as a subclass of asyncio's abstract classes) both have it."""

    def abort(self) -> None:
        """Close the connection at once, dropping what is buffered."""

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """What the transport knows about the connection (``"socket"``, ``"peername"``)."""


def transport_under(send: Any) -> Transport | None:
    """The transport of the uvicorn protocol whose method ``send`` is, if it is one (on
    asyncio's loop or uvloop's)."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    return transport if isinstance(transport, Transport) else None


def raw_send_of(scope: Scope) -> Send | None:
    """The uvicorn ``send`` :class:`KeepTransport` kept for a WebSocket's ``scope``, if
    any."""
    send: Send | None = scope.get("state", {}).get(RAW_SEND)
    return send


def transport_of(scope: Scope) -> Transport | None:
    """The transport :class:`KeepTransport` kept for a WebSocket's ``scope``, if any."""
    transport = scope.get("state", {}).get(TRANSPORT)
    return transport if isinstance(transport, Transport) else None


class _Resume:
    """A send that suspended (:meth:`WsClient._send_now`): the coroutine and what it
    waits for, finished by the writer task."""

    def __init__(self, sending: Coroutine[Any, Any, None], waiting: Any) -> None:
        self.sending = sending
        self.waiting = waiting

    async def finish(self) -> None:
        """Go on with the send where it suspended, until it ends."""
        while True:
            try:
                if self.waiting is None:  # a bare yield (asyncio.sleep(0))
                    await asyncio.sleep(0)
                else:  # a future the send waits for: as a task would, take it over
                    self.waiting._asyncio_future_blocking = False
                    await self.waiting
            except BaseException as error:  # a cancelled writer cancels the send too
                step = functools.partial(self.sending.throw, error)
            else:
                step = functools.partial(self.sending.send, None)
            try:
                self.waiting = step()
            except StopIteration:
                return


def _origin_ok(websocket: WebSocket, allowed: Sequence[str]) -> bool:
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    return _same_origin(origin, websocket.headers.get("host", ""), allowed)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook``: an object, once no key appears twice in it.

    Raises:
        ProtocolError: ``bad_message``, naming the repeated key.
    """
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ProtocolError("bad_message", f"body: the key {quoted(key)} appears twice "
                                "in one object (give each field once)")
        seen[key] = value
    return seen


def check_unique_keys(text: bytes) -> None:
    """Refuse a request body in which a JSON object repeats a key (``{"buy_in": 5,
    "buy_in": 500}``: a JSON parser keeps the last one silently; fresh8). Text that is not
    JSON is left to the model's parser, which names the problem.

    Raises:
        ProtocolError: ``bad_message`` (HTTP 400), naming the key.
    """
    try:
        json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except ProtocolError:
        raise
    except (ValueError, RecursionError):  # not JSON: the model's parser says why
        return


def _address(connection: Request | WebSocket) -> str:
    """The client's address: the peer of the TCP connection, or what a trusted reverse
    proxy says it is (:attr:`ServerConfig.forwarded_allow_ips`)."""
    return connection.client.host if connection.client is not None else "unknown"


def _seat_of(room: Room, token: str | None) -> int | None:
    """The seat a download's ``token`` names (``None``: no token, the spectator's copy); a
    seat that left or was kicked during the session still downloads its own records.

    Raises:
        HTTPException: 403, the token is not a seat's in this room.
    """
    if token is None:
        return None
    row = room.record_seat_of_token(token)
    if row is None:
        raise HTTPException(403, "this seat token is not valid in this room")
    return row.seat


async def _reclaim_every(tuning: GcTuning, seconds: float) -> None:
    """:meth:`GcTuning.reclaim` every ``seconds`` (until cancelled)."""
    while True:
        await asyncio.sleep(seconds)
        tuning.reclaim()


def create_app(db: str | Path | None = None, *, config: ServerConfig | None = None,
               allowed_origins: Sequence[str] = (), store: RoomStore | None = None,
               manager: RoomManager | None = None, redis_url: str | None = None,
               redis_prefix: str = "gutskit", quota: ConnectionQuota | None = None
               ) -> FastAPI:
    """The server application.

    Args:
        db: SQLAlchemy URL or SQLite path (default: :func:`gutskit.io.storage.default_db_path`);
            migrated to the newest schema when the app starts.
        config: server knobs (bot delay, base URL of invite links).
        allowed_origins: extra browser origins allowed to open the WebSocket.
        store: an already opened store.
        manager: an already made room manager (tests: fixed seeds); its rooms are loaded
            from its store when the app starts.
        redis_url: the Redis of a cluster (``redis://...``, ``unix:///...``;
            :mod:`gutskit.server.cluster`): the per-address room creation rate is counted
            there (the :mod:`limits` library's Redis storage, keys under ``redis_prefix``),
            so it holds across workers; ``None``: in this process's memory.
        redis_prefix: the cluster's Redis key prefix.
        quota: where the connections per address are counted (default: this process,
            :class:`~gutskit.server.quotas.ConnectionQuota`; a cluster's workers: the
            shared Redis, :class:`~gutskit.server.cluster.ClusterQuota`).

    Raises:
        StorageError: the database cannot be opened (when the app starts).
    """
    holder: dict[str, RoomManager] = {}

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        rooms = manager or RoomManager(store or open_room_store(db), config)
        holder["manager"] = rooms
        for room in rooms.load():
            await room.resume_after_restart()
        rooms.start_expiry()
        tuning = GcTuning() if rooms.config.tune_gc else None
        reclaimer = None
        if tuning is not None:
            tuning.install()  # after the rooms are loaded: they are frozen with the rest
            reclaimer = asyncio.get_running_loop().create_task(
                _reclaim_every(tuning, RECLAIM_SECONDS))
        yield
        if tuning is not None and reclaimer is not None:
            reclaimer.cancel()
            tuning.remove()
        await rooms.aclose()  # the rooms' tasks ended before the store closes
        rooms.store.close()

    settings = (manager.config if manager is not None else config) or ServerConfig()
    if settings.base_url:  # the public URL's origin is the server's own
        public = urlsplit(settings.base_url)
        allowed_origins = (*allowed_origins, f"{public.scheme}://{public.netloc}")
    # No /docs, /redoc or /openapi.json: the protocol is documented in docs/protocol.md.
    app = FastAPI(title="gutskit", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.holder = holder
    app.add_middleware(HttpGuard, max_body_bytes=settings.max_body_bytes,
                       allowed=tuple(allowed_origins))
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts),
                       www_redirect=False)
    if settings.forwarded_allow_ips:  # outside every check: each sees the client
        app.add_middleware(ProxyHeadersMiddleware,
                           trusted_hosts=list(settings.forwarded_allow_ips))
    app.add_middleware(KeepTransport)  # sees uvicorn's own send
    room_rates = limits.parse_many(settings.room_limit)
    room_limiter = limits.aio.strategies.MovingWindowRateLimiter(_limits_storage(
        redis_url, redis_prefix))
    connections: Counter[str] = Counter()  # "room <id>" -> its connections (exact here)
    places = quota or ConnectionQuota()  # connections per address
    over_limits: dict[str, list[WsClient]] = {}  # seat -> its connections beyond the limits

    def current() -> RoomManager:
        return holder["manager"]

    async def room_or_404(room_id: str) -> Room:
        """The room (an archived one rebuilt for reading: its exports stay downloadable).

        Raises:
            ApiError: 503 ``room_set_aside``.
            HTTPException: 404, no such room.
        """
        manager = current()
        room = manager.rooms.get(room_id)
        if room is not None:
            return room
        gone = await manager.stored_room(room_id)
        if isinstance(gone, Room):
            return gone
        if gone == SET_ASIDE:
            raise ApiError(503, "room_set_aside", _set_aside_text(room_id))
        raise HTTPException(404, f"no room {room_id!r}")

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, error: ApiError) -> JSONResponse:
        return JSONResponse({"code": error.code, "message": error.message},
                            status_code=error.status)

    @app.exception_handler(ProtocolError)
    async def _protocol_error(_request: Request, error: ProtocolError) -> JSONResponse:
        status = {"rate_limited": 429, "server_full": 503}.get(error.code, 400)
        return JSONResponse({"code": error.code, "message": error.message},
                            status_code=status)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/r/{room_id}", include_in_schema=False)
    async def room_page(room_id: str) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/rules")
    async def rules() -> dict[str, Any]:
        fields = {name: {"default": f.default, "description": f.description}
                  for name, f in Rules.model_fields.items()}
        presets = {name: {"description": text, "rules": Rules(**rules).to_dict()}
                   for name, (text, rules) in PRESETS.items()}
        return {"rules": fields, "presets": presets, "choices": rule_choices(),
                "max_chips": MAX_CHIPS}

    @app.post("/api/rooms")
    async def create_room(request: Request) -> CreatedRoom:
        address = _address(request)
        for rate in room_rates:
            if not await room_limiter.test(rate, "rooms", address):
                raise ProtocolError("rate_limited", f"this address may create at most "
                                    f"{_per(rate, 'room')}; try again later")
        text = await request.body()
        check_json_depth(text)
        check_unique_keys(text)
        try:
            body = CreateRoom.model_validate_json(text)
        except ValidationError as error:
            raise ProtocolError("bad_message", describe_body_error(error)) from None
        current().check_request(body)  # a refused request (HTTP 400) is not counted
        for rate in room_rates:
            if not await room_limiter.hit(rate, "rooms", address):  # another came first
                raise ProtocolError("rate_limited", f"this address may create at most "
                                    f"{_per(rate, 'room')}; try again later")
        room, token = await current().create(body)
        return CreatedRoom(room_id=room.room_id, url=invite_url(request, room.room_id),
                           seat=0, token=token)

    def invite_url(request: Request, room_id: str) -> str:
        """The invite link: on the public URL, else on the address the request came to
        (its ``Host`` passed the allow-list, :attr:`ServerConfig.allowed_hosts`)."""
        base = settings.base_url.rstrip("/") or str(request.base_url).rstrip("/")
        return f"{base}/r/{room_id}"

    @app.get("/api/rooms/{room_id}/qr.svg")
    async def invite_qr(room_id: str, request: Request) -> Response:
        await room_or_404(room_id)
        return Response(invite_qr_svg(invite_url(request, room_id)),
                        media_type="image/svg+xml")

    @app.get("/api/rooms/{room_id}")
    async def room_info(room_id: str) -> RoomInfo:
        return (await room_or_404(room_id)).info()

    @app.get("/api/rooms/{room_id}/ledger.csv")
    async def ledger(room_id: str) -> PlainTextResponse:
        room = await room_or_404(room_id)
        state = room.state
        if state is None:
            names = [s.name for s in room.seats]
            text = ledger_csv(names, [room.settings.buy_in] * len(names),
                              [room.settings.buy_in] * len(names), final=False,
                              carried=room.settings.carried)
        else:
            text = ledger_csv(state.names, state.buy_ins, state.stacks,
                              final=state.phase is Phase.OVER, pot=state.pot,
                              reserve=state.reserve, carried=room.settings.carried)
        return PlainTextResponse(text, media_type="text/csv", headers={
            "Content-Disposition": f'attachment; filename="gutskit-{room_id}-ledger.csv"'})

    @app.get("/api/rooms/{room_id}/ledger.json")
    async def ledger_as_json(room_id: str) -> dict[str, Any]:
        room = await room_or_404(room_id)
        state = room.state
        if state is None:
            names = [s.name for s in room.seats]
            buy_ins = [room.settings.buy_in] * len(names)
            return ledger_json(names, buy_ins, buy_ins, final=False,
                               carried=room.settings.carried)
        return ledger_json(state.names, state.buy_ins, state.stacks,
                           final=state.phase is Phase.OVER, pot=state.pot,
                           reserve=state.reserve, carried=room.settings.carried)

    @app.get("/api/rooms/{room_id}/hands")
    async def describe_hands(room_id: str, cards: Annotated[list[str], Query()]
                             ) -> dict[str, Any]:
        room = await room_or_404(room_id)
        try:
            return {"hands": [describe_hand(c, room.settings.rules) for c in cards[:12]]}
        except HandDescriptionError as error:
            raise ProtocolError("bad_message", str(error)) from None

    @app.get("/api/rooms/{room_id}/history.jsonl")
    async def history(room_id: str, token: str | None = None) -> PlainTextResponse:
        room = await room_or_404(room_id)
        seat = _seat_of(room, token)
        async with room.lock:
            text = history_jsonl(room.history_for(seat))
        return PlainTextResponse(text, media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="gutskit-{room_id}-history.jsonl"'})

    @app.get("/api/rooms/{room_id}/referee.json")
    async def referee(room_id: str, token: str | None = None) -> dict[str, Any]:
        """Companion rooms: the session as a referee file (``guts referee FILE`` settles it
        to the same stacks), from the token's seat's copy of the history."""
        room = await room_or_404(room_id)
        if not room.settings.companion:
            raise HTTPException(404, "only a companion room has a referee file (a dealt "
                                "room's history holds hands its viewers may not see)")
        seat = _seat_of(room, token)
        async with room.lock:
            records = views.redacted_history(room.events, room.viewer(seat))
        if not records:
            raise HTTPException(409, "the session has not started yet: the referee file "
                                "holds the session from its first deal (ask again once the "
                                "host has started it)")
        try:
            return referee_file(records)
        except RefereeError as error:
            raise HTTPException(409, str(error)) from None

    @app.get("/api/rooms/{room_id}/fairness.json")
    async def fairness(room_id: str, token: str | None = None) -> dict[str, Any]:
        room = await room_or_404(room_id)
        seat = _seat_of(room, token)
        async with room.lock:
            return room.fairness_record(seat)

    @app.websocket("/ws/{room_id}")
    async def websocket(websocket: WebSocket, room_id: str) -> None:
        if not _origin_ok(websocket, allowed_origins):
            await websocket.close(code=1008, reason="origin not allowed")
            return
        await websocket.accept()
        client = WsClient(websocket)
        writer = asyncio.get_running_loop().create_task(client.writer())
        room = current().rooms.get(room_id)
        address = client.address = _address(websocket)
        close_code: int | None = None
        counted = restarting = False
        held: Held | None = None  # the connection's place in its address's count
        waiting: Held | None = None  # over the limits: a place among the waiting ones
        seat_key: str | None = None
        try:
            if room is None:
                gone = await current().stored_room(room_id)
                if gone == SET_ASIDE:
                    client.send(Error(code="room_set_aside", message=_set_aside_text(room_id)))
                elif isinstance(gone, Room):
                    client.send(Error(code="room_closed", message=f"room {room_id!r} was "
                                      "closed after being idle; its ledger, history and "
                                      "fairness records can still be downloaded"))
                else:
                    client.send(Error(code="no_room", message=f"no room {room_id!r}"))
                close_code = 4404
                return
            held = await places.take(CONNECTIONS, address,
                                     settings.max_connections_per_address)
            refusal = _connection_refusal(settings, connections, room_id, held is not None)
            if refusal is None:
                connections[f"room {room_id}"] += 1
                counted = True
            else:  # over the limits: only a seat's token gets in (decided at its hello)
                if held is not None:
                    places.give_back(held)
                    held = None
                waiting = await places.take(WAITING, address, ADDRESS_OVERFLOW)
                if waiting is None:
                    client.send(Error(code="too_many_connections", message=refusal))
                    close_code = 1008
                    return

            async def admit(hello: Hello) -> str | None:
                nonlocal waiting, seat_key
                if refusal is None:
                    return None
                if waiting is not None:
                    places.give_back(waiting)
                    waiting = None
                row = None if hello.token is None else room.seat_of_token(hello.token)
                if row is None:
                    return refusal
                place = await places.take(OVERFLOW, address, ADDRESS_OVERFLOW)
                key = f"{room_id} {row.seat}"
                seat = over_limits.setdefault(key, [])  # the seat's, oldest first
                if place is None:  # the address's places beyond the limits are all taken:
                    # a connection of this seat from this address hands its place over
                    mine = [c for c in seat if c.address == address and c.beyond is not None]
                    if not mine:
                        if not seat:
                            del over_limits[key]
                        return (f"your address already holds {ADDRESS_OVERFLOW} connections "
                                "beyond the limits, the most one address may hold")
                    place, mine[0].beyond = mine[0].beyond, None
                    _replace(seat, mine[0])
                elif len(seat) >= SEAT_OVERFLOW:  # the seat's oldest such connection goes
                    _replace(seat, seat[0])
                client.beyond = place
                seat.append(client)
                seat_key = key
                return None

            if not await _serve(websocket, client, room, settings.hello_timeout, admit):
                close_code = 1008
        except WebSocketDisconnect as closed:
            restarting = closed.code == SERVICE_RESTART
        finally:
            for place in (held, waiting, client.beyond):
                if place is not None:
                    places.give_back(place)
            client.beyond = None
            if counted:
                connections[f"room {room_id}"] -= 1
            if seat_key is not None and client in over_limits.get(seat_key, []):
                over_limits[seat_key].remove(client)
                if not over_limits[seat_key]:
                    del over_limits[seat_key]
            for key in list(connections):
                if connections[key] <= 0:
                    del connections[key]
            if room is not None:
                await room.detach(client, restarting=restarting)
            client.flush()
            client.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 2)
            if close_code is not None:
                with contextlib.suppress(Exception):
                    await websocket.close(code=close_code)

    return app


class ApiError(Exception):
    """An HTTP error answered as JSON ``{"code", "message"}`` with ``status``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def _limits_storage(redis_url: str | None, prefix: str) -> limits.aio.storage.Storage:
    """Where the per-address rates are counted: the cluster's Redis (the :mod:`limits`
    library's asynchronous Redis storage on redis-py, keys ``<prefix>:limits...``), or this
    process's memory when there is no Redis.

    >>> type(_limits_storage(None, "gutskit")).__name__
    'MemoryStorage'
    """
    if redis_url is None:
        return limits.aio.storage.MemoryStorage()
    uri = "redis+unix://" + redis_url.removeprefix("unix://") \
        if redis_url.startswith("unix://") else redis_url
    return limits.aio.storage.RedisStorage(uri, implementation="redispy",
                                           key_prefix=f"{prefix}:limits")


def _per(rate: limits.RateLimitItem, thing: str) -> str:
    """A rate in words.

    >>> [_per(rate, "room") for rate in limits.parse_many("5/minute;1/2 hours")]
    ['5 rooms per minute', '1 room per 2 hours']
    """
    unit = rate.GRANULARITY.name
    window = unit if rate.multiples == 1 else f"{rate.multiples} {unit}s"
    return f"{rate.amount} {thing}{'' if rate.amount == 1 else 's'} per {window}"


def _set_aside_text(room_id: str) -> str:
    return f"room {room_id!r} could not be rebuilt from its stored events and is set aside"


SEAT_OVERFLOW = 2
"""Connections a seat's token may hold beyond the room's and the address's limits
(``docs/protocol.md``, "Limits"): spectators cannot fill a room so that a seated player who
dropped cannot come back; one more connection of the seat replaces (closes) its oldest one
beyond the limits. At most :data:`ADDRESS_OVERFLOW` connections of one address may wait
for their hello beyond the limits."""
ADDRESS_OVERFLOW = SEAT_OVERFLOW * MAX_SEATS
"""Connections beyond the limits one address may hold at once, whatever seat tokens it
collected (attack6 M1: with a limit of 3, one address holding 30 seat tokens held 63
connections). Counted like the per-address limit (across the workers of a cluster); when
the address holds them all, a seat's token still gets in by taking over the place of the
oldest connection of its seat from that address (which is closed, as a second tab
replaces the first), else it is refused."""


def _replace(seat: list[WsClient], oldest: WsClient) -> None:
    """Close ``oldest``, one of a seat's connections beyond the limits (``seat``), replaced
    by a newer connection of the seat: ``too_many_connections``, then closed 1008."""
    seat.remove(oldest)
    oldest.send(Error(code="too_many_connections", message="replaced by a newer connection "
                      "of your seat"))
    oldest.queue.put_nowait(None)
    asyncio.get_running_loop().create_task(oldest.websocket.close(code=1008,
                                                                  reason="replaced"))


def _action_id_of(data: str | bytes) -> str | None:
    """The ``action_id`` of a client message dropped by :data:`MESSAGE_LIMIT` (``None``:
    it names none, or is not an action the server would read: too large, too deep, not a
    JSON object, a ``type`` not among :data:`~gutskit.server.protocol.ACTION_TYPES`, an
    ``action_id`` that is not 1 to 64 characters). Parsed only when the text holds the
    word ``action_id``.

    >>> _action_id_of('{"type": "declare", "round": 1, "action_id": "a7", "declaration": "in"}')
    'a7'
    >>> _action_id_of('{"type": "ping"}') is None, _action_id_of('["action_id"]') is None
    (True, True)
    >>> _action_id_of('{"action_id": "a7"}') is None  # no action: no answer of its own
    True
    """
    if len(data) > MAX_MESSAGE_BYTES:
        return None
    text = data if isinstance(data, str) else data.decode("utf-8", "replace")
    if "action_id" not in text:
        return None
    try:
        check_json_depth(text)
        message = json.loads(text)
    except (ProtocolError, ValueError):
        return None
    if not isinstance(message, dict) or message.get("type") not in ACTION_TYPES:
        return None
    action_id = message.get("action_id")
    if isinstance(action_id, str) and 1 <= len(action_id) <= 64:
        return action_id
    return None


FLOOD = 10 * BURST
"""Messages dropped in one window of :data:`MESSAGE_LIMIT` past which the connection is
closed (:attr:`DroppedAnswers.flooding`): ten times what the window takes."""


class DroppedAnswers:
    """How one connection answers the messages :data:`MESSAGE_LIMIT` drops.

    A dropped action (:func:`_action_id_of`: a message of
    :data:`~gutskit.server.protocol.ACTION_TYPES` with an ``action_id``) gets its own
    ``rate_limited`` error naming that ``action_id``, so its client knows to send it again
    (attack10 LOW-3: a declaration dropped in a flood went unanswered), at most
    :data:`BURST` of those in a window of ``BURST / RATE`` seconds, as many as the
    messages taken in one (attack11 H1: a flood of ``{"action_id": ...}`` got an error
    each, about 8 times its bytes back, and a client that did not read them held them in
    the server's memory: 190 MB for 1.2 M messages). Any other dropped message, and an
    action past that budget, shares one ``rate_limited`` error per window, however many
    are dropped in it (attack8 O3: 33,121 errors for 33,150 pings)."""

    __slots__ = ("dropped", "named", "named_until", "told_until")

    def __init__(self) -> None:
        self.told_until = -math.inf
        """No error of the window before this (monotonic seconds)."""
        self.named_until = -math.inf
        """The end of the window of :attr:`named` (monotonic seconds)."""
        self.named = 0
        """Dropped actions answered by name in the window ending at :attr:`named_until`."""
        self.dropped = 0
        """Messages dropped in that window (:attr:`flooding`)."""

    @property
    def flooding(self) -> bool:
        """More than :data:`FLOOD` messages dropped in one window: the connection is
        closed (1008 "message flood"), rather than read and dropped message by message
        (attack11b F1: 20 connections sending about 100,000 tiny messages a second each
        held every room's messages back about 5 s until the keepalive closed them)."""
        return self.dropped > FLOOD

    def answer(self, data: str | bytes, now: float) -> Error | None:
        """The error answering dropped message ``data`` at monotonic time ``now``
        (seconds); ``None``: it is dropped unanswered (the window's error was sent)."""
        window = MESSAGE_LIMIT.get_expiry()
        action_id = _action_id_of(data)
        if now >= self.named_until:
            self.named_until, self.named, self.dropped = now + window, 0, 0
        self.dropped += 1
        if action_id is not None and self.named < BURST:
            self.named += 1
            return Error(code="rate_limited", action_id=action_id, message=(
                f"more than {BURST} messages in {BURST // RATE} seconds: this action was "
                "dropped, not taken; send it again"))
        if now < self.told_until:
            return None
        self.told_until = now + window
        return Error(code="rate_limited", message=(
            f"more than {BURST} messages in {BURST // RATE} seconds: this one and the next "
            f"are dropped (this error is sent at most once every {BURST // RATE} seconds)"))


def _connection_refusal(config: ServerConfig, connections: Counter[str], room_id: str,
                        address_has_room: bool) -> str | None:
    """Why one more connection to ``room_id`` is refused (``None``: it is not):
    :attr:`ServerConfig.max_connections_per_room`, then
    :attr:`ServerConfig.max_connections_per_address` (``address_has_room``: the address
    got a place, :class:`~gutskit.server.quotas.ConnectionQuota`)."""
    if connections[f"room {room_id}"] >= config.max_connections_per_room:
        return (f"this room already has {config.max_connections_per_room} connections, "
                "the most it takes")
    if not address_has_room:
        return (f"your address already has {config.max_connections_per_address} "
                "connections open, the most one address may hold")
    return None


async def _serve(websocket: WebSocket, client: WsClient, room: Room,
                 hello_timeout: float, admit: Callable[[Hello], Awaitable[str | None]]
                 ) -> bool:
    """Read and handle the connection's messages until it closes (``True``) or sends no
    accepted ``hello`` within ``hello_timeout`` seconds of connecting (``False``, after an
    ``error`` ``hello_timeout``), or ``admit`` refuses its hello (``False``, after an
    ``error`` ``too_many_connections`` quoting ``admit``'s reason), or it floods: more
    than :data:`FLOOD` messages dropped in a window (``False``, after an ``error``
    ``rate_limited``; its transport is aborted :data:`SLOW_GRACE` seconds later)."""
    attached = False
    hello_deadline = asyncio.get_running_loop().time() + hello_timeout
    dropped_answers = DroppedAnswers()
    chat_told_until = -math.inf  # the same for chat lines and reactions (chat_limit)
    while True:
        if attached:
            frame = await websocket.receive()
        else:
            left = hello_deadline - asyncio.get_running_loop().time()
            try:
                frame = await asyncio.wait_for(websocket.receive(), max(left, 0.0))
            except TimeoutError:
                client.send(Error(code="hello_timeout", message=f"no hello within "
                                  f"{hello_timeout:g} seconds of connecting"))
                return False
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000))
        data = frame.get("text")
        if data is None:
            data = frame.get("bytes") or b""
        if not client.allow():
            answer = dropped_answers.answer(data, time.monotonic())
            if dropped_answers.flooding:  # closed (1008), reset if it reads nothing
                client.send(Error(code="rate_limited", message=(
                    f"more than {FLOOD} messages dropped in {BURST // RATE} seconds: the "
                    "connection is closed")))
                if client.transport is not None:
                    asyncio.get_running_loop().call_later(SLOW_GRACE, reset, client.transport)
                return False
            if answer is not None:
                client.send(answer)
            continue
        action_id = None
        message = None
        try:
            message = parse_client_message(data)
            action_id = getattr(message, "action_id", None)
            if not attached:
                if not isinstance(message, Hello):
                    raise ProtocolError("hello_required", "the first message must be hello")
                refused = await admit(message)
                if refused is not None:
                    client.send(Error(code="too_many_connections", message=refused))
                    return False
                await room.attach(client, message)
                attached = True
            else:
                await room.handle(client, message)
                if isinstance(message, ClientSeed) and message.action_id is not None:
                    client.send(Ack(action_id=message.action_id))  # taken and stored
        except ProtocolError as error:
            if error.code == "rate_limited" and attached and isinstance(message, Chat | React):
                # One error per window of the chat limit, however many lines are dropped in
                # it, as for a flood of messages (attack9 L2: one error per dropped line).
                now = time.monotonic()
                if now < chat_told_until:
                    continue
                window = min(rate.get_expiry() for rate in room.manager.chat_rates)
                chat_told_until = now + window
                client.send(Error(code=error.code, action_id=action_id, message=(
                    f"{error.message}: this line and the next are dropped (this error is "
                    f"sent at most once every {window:g} seconds)")))
                continue
            client.send(Error(code=error.code, message=error.message, action_id=action_id))
