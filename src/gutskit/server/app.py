"""The ASGI application of ``guts serve`` (FastAPI): HTTP API, WebSocket, static files.

Routes:

* ``GET /`` and ``GET /r/<room_id>``: the browser table (``static/index.html``);
  ``/static/...``: its files.
* ``GET /api/rules``: presets and every house rule with its default and description.
* ``POST /api/rooms`` (:class:`~gutskit.server.protocol.CreateRoom`) ->
  :class:`~gutskit.server.protocol.CreatedRoom`.
* ``GET /api/rooms/<id>``: :class:`~gutskit.server.protocol.RoomInfo`.
* ``GET /api/rooms/<id>/ledger.csv``, ``/history.jsonl?token=...`` (the history as the
  token's seat may see it; a spectator's without a token), ``/fairness.json``.
* For the browser table (:mod:`gutskit.server.web`): ``GET /api/rooms/<id>/ledger.json``
  and ``GET /api/rooms/<id>/hands?cards=...`` (hand descriptions under the room's rules).
* ``WS /ws/<room_id>``: the protocol of :mod:`gutskit.server.protocol`.

The WebSocket refuses a browser ``Origin`` that is not the server's own (or one of
``allowed_origins``); clients without an ``Origin`` header (scripts, bots) are accepted.
Each connection may send :data:`RATE` messages per second on average (bursts of
:data:`BURST`); extra messages are refused with ``rate_limited``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ValidationError

from gutskit.core.engine import Phase
from gutskit.core.rules import PRESETS, Rules
from gutskit.server.exports import history_jsonl, ledger_csv
from gutskit.server.protocol import (
    CreatedRoom,
    CreateRoom,
    Error,
    Hello,
    ProtocolError,
    RoomInfo,
    describe_body_error,
    parse_client_message,
)
from gutskit.server.rooms import Room, RoomManager, ServerConfig
from gutskit.server.store import RoomStore, open_room_store
from gutskit.server.web import HandDescriptionError, describe_hand, ledger_json, rule_choices

__all__ = ["BURST", "RATE", "create_app"]

STATIC = Path(__file__).parent / "static"
RATE = 10.0
"""Messages per second a connection may send on average."""
BURST = 30.0
"""Messages a connection may send at once."""
QUEUE_LIMIT = 1000
"""Messages queued for a slow client before the server drops the connection."""


class WsClient:
    """One WebSocket connection: a queue of frames drained by a writer task, a token
    bucket.

    Under protocol 1 each message is a frame. Under protocol 2 the messages sent during
    one turn of the event loop (one change of the room: its events, the new view, the
    ack) are collected and queued as one frame, a JSON array of them, when the loop gets
    to the flush the first of them scheduled.
    """

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self.seat: int | None = None
        self.protocol = 1  # until a hello says otherwise
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.pending: list[str] = []
        self.tokens = BURST
        self.stamp = time.monotonic()
        self.overflow = False

    def send(self, message: BaseModel | str) -> None:
        """Queue ``message`` (a model, or its JSON text; the connection is dropped when
        the queue overflows: a client that far behind cannot catch up)."""
        if self.overflow:
            return
        text = message if isinstance(message, str) else message.model_dump_json()
        if self.protocol < 2:
            self._put(text)
            return
        if not self.pending:
            asyncio.get_running_loop().call_soon(self.flush)
        self.pending.append(text)

    def flush(self) -> None:
        """Queue the messages collected so far as one frame (protocol 2)."""
        texts, self.pending = self.pending, []
        if texts and not self.overflow:
            self._put("[" + ",".join(texts) + "]")

    def _put(self, frame: str) -> None:
        if self.queue.qsize() >= QUEUE_LIMIT:
            self.overflow = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(frame)

    def allow(self) -> bool:
        """Token bucket: may one more message be processed now?"""
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.stamp) * RATE)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def writer(self) -> None:
        """Send queued messages until ``None``."""
        while True:
            text = await self.queue.get()
            if text is None:
                if self.overflow:
                    await self.websocket.close(code=1008, reason="too slow")
                return
            await self.websocket.send_text(text)


def _origin_ok(websocket: WebSocket, allowed: Sequence[str]) -> bool:
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    host = websocket.headers.get("host", "")
    parts = urlsplit(origin)
    return parts.netloc == host or origin.rstrip("/") in allowed


def create_app(db: str | Path | None = None, *, config: ServerConfig | None = None,
               allowed_origins: Sequence[str] = (), store: RoomStore | None = None,
               manager: RoomManager | None = None) -> FastAPI:
    """The server application.

    Args:
        db: SQLAlchemy URL or SQLite path (default: :func:`gutskit.io.storage.default_db_path`);
            migrated to the newest schema when the app starts.
        config: server knobs (bot delay, base URL of invite links).
        allowed_origins: extra browser origins allowed to open the WebSocket.
        store: an already opened store.
        manager: an already made room manager (tests: fixed seeds); its rooms are loaded
            from its store when the app starts.

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
        yield
        rooms.close()
        rooms.store.close()

    app = FastAPI(title="gutskit", lifespan=lifespan)
    app.state.holder = holder

    def current() -> RoomManager:
        return holder["manager"]

    def room_or_404(room_id: str) -> Room:
        room = current().rooms.get(room_id)
        if room is None:
            raise HTTPException(404, f"no room {room_id!r}")
        return room

    @app.exception_handler(ProtocolError)
    async def _protocol_error(_request: Request, error: ProtocolError) -> JSONResponse:
        return JSONResponse({"code": error.code, "message": error.message}, status_code=400)

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
        return {"rules": fields, "presets": presets, "choices": rule_choices()}

    @app.post("/api/rooms")
    async def create_room(request: Request) -> CreatedRoom:
        try:
            body = CreateRoom.model_validate_json(await request.body())
        except ValidationError as error:
            raise ProtocolError("bad_message", describe_body_error(error)) from None
        room, token = current().create(body)
        base = current().config.base_url
        if not base:
            base = str(request.base_url).rstrip("/")
        return CreatedRoom(room_id=room.room_id, url=f"{base}/r/{room.room_id}", seat=0,
                           token=token)

    @app.get("/api/rooms/{room_id}")
    async def room_info(room_id: str) -> RoomInfo:
        return room_or_404(room_id).info()

    @app.get("/api/rooms/{room_id}/ledger.csv")
    async def ledger(room_id: str) -> PlainTextResponse:
        room = room_or_404(room_id)
        state = room.state
        if state is None:
            names = [s.name for s in room.seats]
            text = ledger_csv(names, [room.settings.buy_in] * len(names),
                              [room.settings.buy_in] * len(names), final=False)
        else:
            text = ledger_csv(state.names, state.buy_ins, state.stacks,
                              final=state.phase is Phase.OVER, pot=state.pot,
                              reserve=state.reserve)
        return PlainTextResponse(text, media_type="text/csv", headers={
            "Content-Disposition": f'attachment; filename="gutskit-{room_id}-ledger.csv"'})

    @app.get("/api/rooms/{room_id}/ledger.json")
    async def ledger_as_json(room_id: str) -> dict[str, Any]:
        room = room_or_404(room_id)
        state = room.state
        if state is None:
            names = [s.name for s in room.seats]
            buy_ins = [room.settings.buy_in] * len(names)
            return ledger_json(names, buy_ins, buy_ins, final=False)
        return ledger_json(state.names, state.buy_ins, state.stacks,
                           final=state.phase is Phase.OVER, pot=state.pot,
                           reserve=state.reserve)

    @app.get("/api/rooms/{room_id}/hands")
    async def describe_hands(room_id: str, cards: Annotated[list[str], Query()]
                             ) -> dict[str, Any]:
        room = room_or_404(room_id)
        try:
            return {"hands": [describe_hand(c, room.settings.rules) for c in cards[:12]]}
        except HandDescriptionError as error:
            raise ProtocolError("bad_message", str(error)) from None

    @app.get("/api/rooms/{room_id}/history.jsonl")
    async def history(room_id: str, token: str | None = None) -> PlainTextResponse:
        room = room_or_404(room_id)
        seat = None
        if token is not None:
            row = room.seat_of_token(token)
            if row is None:
                raise HTTPException(403, "this seat token is not valid in this room")
            seat = row.seat
        async with room.lock:
            text = history_jsonl(room.history_for(seat))
        return PlainTextResponse(text, media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="gutskit-{room_id}-history.jsonl"'})

    @app.get("/api/rooms/{room_id}/fairness.json")
    async def fairness(room_id: str, token: str | None = None) -> dict[str, Any]:
        room = room_or_404(room_id)
        seat = None
        if token is not None:
            row = room.seat_of_token(token)
            if row is None:
                raise HTTPException(403, "this seat token is not valid in this room")
            seat = row.seat
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
        try:
            if room is None:
                client.send(Error(code="no_room", message=f"no room {room_id!r}"))
                return
            await _serve(websocket, client, room)
        except WebSocketDisconnect:
            pass
        finally:
            if room is not None:
                await room.detach(client)
            client.flush()
            client.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 2)
            if room is None:
                with contextlib.suppress(Exception):
                    await websocket.close(code=4404)

    return app


async def _serve(websocket: WebSocket, client: WsClient, room: Room) -> None:
    attached = False
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000))
        data = frame.get("text")
        if data is None:
            data = frame.get("bytes") or b""
        if not client.allow():
            client.send(Error(code="rate_limited",
                              message=f"more than {RATE:g} messages per second"))
            continue
        action_id = None
        try:
            message = parse_client_message(data)
            action_id = getattr(message, "action_id", None)
            if not attached:
                if not isinstance(message, Hello):
                    raise ProtocolError("hello_required", "the first message must be hello")
                await room.attach(client, message)
                attached = True
            else:
                await room.handle(client, message)
        except ProtocolError as error:
            client.send(Error(code=error.code, message=error.message, action_id=action_id))



