"""Each limit of the server attacked (docs/protocol.md, "Limits"; issue 9, problem 9): every
one answers with a clear error, and the server goes on serving."""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
import logging
import re
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import limits
import pytest
from server_support import (
    DB_KINDS,
    Player,
    Server,
    make_db_url,
    raw_websocket,
    running_server,
    seat_three,
)
from sqlalchemy import create_engine, text
from typer.testing import CliRunner
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from gutskit.cli.app import app
from gutskit.cli.serve import allowed_hosts
from gutskit.server import app as server_app
from gutskit.server.app import STATIC, WsClient
from gutskit.server.cluster import WorkerSettings
from gutskit.server.protocol import CreateRoom, Hello
from gutskit.server.rooms import PRESENCE_DELAY, RoomManager, ServerConfig
from gutskit.server.store import ARCHIVED, open_room_store
from gutskit.server.web import invite_qr_svg


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh SQLite database, and PostgreSQL when GUTSKIT_TEST_PG_URL is set."""
    with make_db_url(request.param, tmp_path) as url:
        yield url


def room_body(**fields: Any) -> dict[str, Any]:
    return {"host_name": "Ana", "buy_in": 20, "decision_seconds": 30, "reveal_seconds": 1,
            **fields}


def closed_code(player: Player) -> int | None:
    """Receive until the server closes the connection; its close code."""
    with pytest.raises(ConnectionClosed):
        while True:
            player.ws.recv(timeout=60)
    return player.ws.close_code


def test_decision_and_reveal_floors(db_url: str) -> None:
    # The defaults of ServerConfig: 1 s and 0.5 s.
    with running_server(db_url, min_decision_seconds=1.0, min_reveal_seconds=0.5) as server:
        response = server.post("/api/rooms", room_body(decision_seconds=1e-9))
        assert response.status_code == 400
        assert response.json() == {"code": "bad_message", "message":
                                   "decision_seconds: 1e-09 s is below this server's "
                                   "minimum of 1 s"}
        response = server.post("/api/rooms", room_body(reveal_seconds=0.1))
        assert response.json() == {"code": "bad_message", "message":
                                   "reveal_seconds: 0.1 s is below this server's "
                                   "minimum of 0.5 s"}
        assert server.manager.rooms == {}
        assert server.post("/api/rooms", room_body(decision_seconds=1,
                                                   reveal_seconds=0.5)).status_code == 200


def test_room_creation_per_address_is_rate_limited(db_url: str) -> None:
    with running_server(db_url, room_limit="3/minute;100/hour") as server:
        answers = [server.post("/api/rooms", room_body()) for _ in range(5)]
        assert [a.status_code for a in answers] == [200, 200, 200, 429, 429]
        assert answers[3].json() == {
            "code": "rate_limited",
            "message": "this address may create at most 3 rooms per minute; try again "
                       "later"}
        assert len(server.manager.rooms) == 3
        # The rooms made still work, and reading is not limited.
        room_id = answers[0].json()["room_id"]
        assert server.get(f"/api/rooms/{room_id}").status_code == 200


def test_refused_room_requests_do_not_count_against_the_rate(db_url: str) -> None:
    """Fresh user (session 6): five refused requests (HTTP 400: a bad buy-in, a bad rule,
    a name with a control character, a floor, not JSON) used up a limit of 3 rooms a
    minute. Only a request that passes every check counts: the three good ones after
    them are made, the fourth is refused."""
    with running_server(db_url, room_limit="3/minute", min_decision_seconds=1.0) as server:
        bad = [room_body(buy_in=0), room_body(rules={"ante": 0}),
               room_body(host_name="\x1b[2J"), room_body(decision_seconds=0.5),
               room_body(rules={"min_buy_in": 5_000_000})]
        codes = [server.post("/api/rooms", body).json()["code"] for body in bad]
        assert codes == ["bad_message", "bad_rules", "bad_name", "bad_message", "bad_rules"]
        answers = [server.post("/api/rooms", room_body()) for _ in range(4)]
        assert [a.status_code for a in answers] == [200, 200, 200, 429]
        assert len(server.manager.rooms) == 3


def test_request_body_size_is_limited_on_every_endpoint(db_url: str) -> None:
    with running_server(db_url, max_body_bytes=2048) as server:
        big = room_body(rules={"preset": "standard", "x": "y" * 4000})
        response = server.post("/api/rooms", big)
        assert response.status_code == 413
        assert response.json() == {"code": "too_large",
                                   "message": "the request body is larger than 2048 bytes"}
        # A GET with a body, and a body without Content-Length (chunked), are counted too.
        response = httpx.request("GET", f"{server.http}/api/rules", content=b"x" * 3000, timeout=60)
        assert response.status_code == 413

        def chunks() -> Iterator[bytes]:
            for _ in range(10):
                yield b" " * 500

        response = httpx.post(f"{server.http}/api/rooms", content=chunks(), headers={
            "Origin": server.http, "Content-Type": "application/json"}, timeout=60)
        assert response.status_code == 413
        assert response.json()["code"] == "too_large"
        assert server.manager.rooms == {}


def test_state_changing_requests_need_json_and_the_servers_origin(db_url: str) -> None:
    with running_server(db_url) as server:
        url = f"{server.http}/api/rooms"
        host = server.http.removeprefix("http://")  # what httpx sends as Host
        body = '{"host_name": "Mallory"}'
        # What a cross-site form or fetch(..., {mode: "no-cors"}) can send: text/plain.
        response = httpx.post(url, content=body, headers={
            "Origin": "http://evil.example", "Content-Type": "text/plain"}, timeout=60)
        assert response.status_code == 415
        assert response.json() == {"code": "bad_content_type", "message":
                                   "Content-Type must be application/json (got 'text/plain')"}
        response = httpx.post(url, content=body, headers={
            "Origin": server.http, "Content-Type": "application/x-www-form-urlencoded"}, timeout=60)
        assert response.status_code == 415
        response = httpx.post(url, content=body, headers={
            "Origin": "http://evil.example", "Content-Type": "application/json"}, timeout=60)
        assert (response.status_code, response.json()) == (403, {
            "code": "bad_origin", "message": (
                f"origin 'http://evil.example' is not allowed: this request reached the "
                f"server as {host!r}, so its origin is 'http://{host}' (or "
                f"'https://{host}')")})
        response = httpx.post(url, content=body, headers={"Content-Type": "application/json"},
                              timeout=60)
        assert response.status_code == 403
        assert response.json()["code"] == "bad_origin"
        assert server.manager.rooms == {}
        response = httpx.post(url, content=body, headers={
            "Origin": server.http, "Content-Type": "application/json; charset=utf-8"}, timeout=60)
        assert response.status_code == 200


def test_an_allowed_origin_may_create_rooms(db_url: str) -> None:
    with running_server(db_url, allowed_origins=["http://friend.example"]) as server:
        response = httpx.post(f"{server.http}/api/rooms", json=room_body(),
                              headers={"Origin": "http://friend.example"}, timeout=60)
        assert response.status_code == 200


def test_deep_json_is_a_clean_error_over_http_and_websocket(db_url: str) -> None:
    with running_server(db_url) as server:
        deep = '{"host_name": "Ana", "rules": ' + "[" * 2000 + "]" * 2000 + "}"
        response = httpx.post(f"{server.http}/api/rooms", content=deep, headers={
            "Origin": server.http, "Content-Type": "application/json"}, timeout=60)
        assert (response.status_code, response.json()) == (400, {
            "code": "too_deep", "message": "JSON nested more than 32 levels deep"})
        room_id = server.create_room()["room_id"]
        spectator = Player(server, room_id)
        spectator.send("[" * 2000 + "]" * 2000)  # 4,000 bytes: under the size limit
        error = spectator.expect("error")
        assert error == {"type": "error", "code": "too_deep", "action_id": None,
                         "message": "JSON nested more than 32 levels deep"}
        spectator.send('{"type": "ping", "x": ' + "{" * 40 + "}" * 40 + "}")
        assert spectator.expect("error")["code"] == "too_deep"
        # Brackets inside strings are not nesting.
        spectator.send('{"type": "join", "name": "' + "[" * 40 + '"}')
        assert spectator.expect("error")["code"] == "bad_name"
        spectator.send({"type": "ping"})
        assert spectator.expect("pong") == {"type": "pong"}


def test_websocket_messages_over_the_size_limit_are_refused(db_url: str) -> None:
    with running_server(db_url) as server:
        room_id = server.create_room()["room_id"]
        spectator = Player(server, room_id)
        spectator.send('{"type": "ping", "pad": "' + "x" * 5000 + '"}')
        error = spectator.expect("error")
        assert (error["code"], error["message"]) == (
            "too_large", "message of 5027 bytes; the limit is 4096")
        spectator.send({"type": "ping"})
        assert spectator.expect("pong") == {"type": "pong"}
        # Over the transport's limit (64 KiB) the connection is closed: 1009.
        spectator.send("x" * 70_000)
        assert closed_code(spectator) == 1009


def test_ledger_csv_cells_cannot_be_formulas(db_url: str) -> None:
    with running_server(db_url) as server:
        created = server.create_room('=HYPERLINK("x.example")')
        room_id = created["room_id"]
        names = ["+1+1", "-2", "@SUM(A1)"]
        for name in names:
            guest = Player(server, room_id)
            guest.send({"type": "join", "name": name})
            guest.expect("seated")
        text = server.get(f"/api/rooms/{room_id}/ledger.csv").text
        rows = list(csv.reader(io.StringIO(text)))
        assert [row[1] for row in rows[1:5]] == [
            "'=HYPERLINK(\"x.example\")", "'+1+1", "'-2", "'@SUM(A1)"]
        assert rows[1] == ["0", "'=HYPERLINK(\"x.example\")", "20", "20", "0"]


def test_pages_carry_the_security_headers(db_url: str) -> None:
    with running_server(db_url) as server:
        for path in ("/", "/r/abc", "/static/app.js", "/api/rules", "/api/rooms/nope"):
            headers = server.get(path).headers
            csp = headers["content-security-policy"]
            assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
            assert "style-src 'self'" in csp and "unsafe-inline" not in csp
            assert headers["x-frame-options"] == "DENY"
            assert headers["x-content-type-options"] == "nosniff"
            assert headers["referrer-policy"] == "no-referrer"
        # FastAPI's generated pages are not served (the protocol is docs/protocol.md).
        for path in ("/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"):
            assert server.get(path).status_code == 404, path
    # Nothing inline that the policy would block: no <script> or <style> element without
    # a file, no style="..." or on...= attribute, in the page or in what app.js writes.
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>|<style\b", page)
    for script in STATIC.glob("*.js"):
        code = script.read_text(encoding="utf-8")
        assert not re.search(r"""\sstyle=["'$]|\son[a-z]+=["']""", code), script.name


def test_connections_per_room_and_per_address(db_url: str) -> None:
    with running_server(db_url, max_connections_per_room=2,
                        max_connections_per_address=3) as server:
        first = server.create_room()["room_id"]
        second = server.create_room("Ben")["room_id"]
        a, b = Player(server, first), Player(server, first)
        refused = Player(server, first, hello=False)  # refused at its hello (no seat token)
        refused.send({"type": "hello", "protocol": 1, "token": None})
        assert refused.recv() == {
            "type": "error", "code": "too_many_connections", "action_id": None,
            "message": "this room already has 2 connections, the most it takes"}
        assert closed_code(refused) == 1008
        # (the server lets go of a closed connection a moment after its client sees it
        # closed: a connection that needs its place waits until it is welcomed)
        c = _welcomed_soon(server, second)
        refused = Player(server, second, hello=False)
        refused.send({"type": "hello", "protocol": 1, "token": None})
        assert refused.recv()["message"] == (
            "your address already has 3 connections open, the most one address may hold")
        assert closed_code(refused) == 1008
        # A closed connection frees its place (once the server has seen it end).
        a.close()
        b.send({"type": "ping"})
        b.expect("pong")
        again = _welcomed_soon(server, second)
        for player in (b, c, again):
            player.send({"type": "ping"})
            assert player.expect("pong") == {"type": "pong"}


def test_spectators_cannot_fill_a_room_against_a_seated_player(db_url: str) -> None:
    """The audit's specflood.py: spectators filled the room's and the address's limits and a
    seated player who dropped could never come back. A seat's token always gets in, up to
    ``SEAT_OVERFLOW`` (2) connections beyond the limits per seat (one more replaces the
    oldest); spectators are refused."""
    with running_server(db_url, max_connections_per_room=3,
                        max_connections_per_address=3) as server:
        created = server.create_room()
        room_id = created["room_id"]
        host = Player(server, room_id, created["token"])
        ben = Player(server, room_id)
        ben.send({"type": "join", "name": "Ben"})
        token = ben.expect("seated")["token"]
        ben.close()  # (its place is free once the server has seen it end)
        watchers = [_welcomed_soon(server, room_id) for _ in range(2)]  # the room is full
        spectator = Player(server, room_id, hello=False)
        spectator.send({"type": "hello", "protocol": 1, "token": None})
        assert spectator.recv()["code"] == "too_many_connections"
        assert closed_code(spectator) == 1008
        # One hello after the other: the server takes the hellos of different connections
        # in no set order, and the third must find the first two in.
        back = [Player(server, room_id, token, hello=False) for _ in range(3)]
        for player in back[:2]:
            player.send({"type": "hello", "protocol": 1, "token": token})
            message = player.recv()
            assert (message["type"], message.get("seat")) == ("welcome", 1)
        back[2].send({"type": "hello", "protocol": 1, "token": token})
        # a third connection of the seat replaces its oldest one beyond the limits
        assert (back[2].recv()["type"], back[0].expect("error")["code"]) == (
            "welcome", "too_many_connections")
        assert closed_code(back[0]) == 1008
        for player in (host, *watchers, *back[1:]):
            player.send({"type": "ping"})
            assert player.expect("pong") == {"type": "pong"}
        for player in (host, *watchers, *back[1:]):
            player.close()


def _hello(server: Server, room_id: str, token: str | None) -> tuple[Player, dict[str, Any]]:
    """Connect, say hello with ``token``; the connection and the server's first answer."""
    player = Player(server, room_id, hello=False)
    player.send({"type": "hello", "protocol": 1, "token": token})
    return player, player.recv()


def _welcomed_soon(server: Server, room_id: str, token: str | None = None) -> Player:
    """Connect until welcomed (a place given back is free once the server has seen its
    connection end: a moment after the client closed it)."""
    deadline = time.monotonic() + 60
    while True:
        player, first = _hello(server, room_id, token)
        if first["type"] == "welcome":
            return player
        assert first["code"] == "too_many_connections", first
        player.close()
        assert time.monotonic() < deadline, "no place came free"
        time.sleep(0.05)


def test_seat_tokens_do_not_lift_the_address_limit(db_url: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """attack6 M1 (t17_token_overflow.py): with a limit of 3, one address holding 30 seat
    tokens held 63 connections (2 per seat beyond the limits). The connections beyond the
    limits are capped per address (``app.ADDRESS_OVERFLOW``, 20; 3 here): past it, a seat
    with a connection of this address beyond the limits takes that one's place (the
    oldest is replaced, as a second tab replaces the first); another seat is refused."""
    monkeypatch.setattr(server_app, "ADDRESS_OVERFLOW", 3)
    with running_server(db_url, max_connections_per_address=1) as server:
        created = server.create_room()
        room_id, host_token = created["room_id"], created["token"]
        tokens = []
        for name in ("Ben", "Cleo"):  # the address collects two more seats
            joiner = _welcomed_soon(server, room_id)
            joiner.send({"type": "join", "name": name})
            tokens.append(joiner.expect("seated")["token"])
            joiner.close()
        watcher = _welcomed_soon(server, room_id)  # the address's one place
        ben1, ben2, cleo1 = (_welcomed_soon(server, room_id, token)
                             for token in (tokens[0], tokens[0], tokens[1]))
        # The address holds 1 + 3: the host's token finds no place beyond the limits.
        host, first = _hello(server, room_id, host_token)
        assert first == {"type": "error", "code": "too_many_connections", "action_id": None,
                         "message": "your address already holds 3 connections beyond the "
                                    "limits, the most one address may hold"}
        assert closed_code(host) == 1008
        # A seat that has one comes back all the same: its oldest is replaced.
        replaced = {"type": "error", "code": "too_many_connections", "action_id": None,
                    "message": "replaced by a newer connection of your seat"}
        cleo2, first = _hello(server, room_id, tokens[1])
        assert (first["type"], first["seat"]) == ("welcome", 2)
        assert cleo1.expect("error") == replaced
        assert closed_code(cleo1) == 1008
        ben3, first = _hello(server, room_id, tokens[0])
        assert (first["type"], first["seat"]) == ("welcome", 1)
        assert ben1.expect("error") == replaced
        assert closed_code(ben1) == 1008
        alive = [watcher, ben2, ben3, cleo2]
        for player in alive:
            player.send({"type": "ping"})
            assert player.expect("pong") == {"type": "pong"}
        # A connection beyond the limits that ends gives its place back: the host gets in.
        ben2.close()
        host = _welcomed_soon(server, room_id, host_token)
        for player in (watcher, ben3, cleo2, host):
            player.send({"type": "ping"})
            assert player.expect("pong") == {"type": "pong"}
            player.close()


def _raw_websocket(server: Server, room_id: str) -> socket.socket:
    """A WebSocket opened by hand on a socket with a 2 KiB receive buffer
    (:func:`server_support.raw_websocket`), hello said."""
    sock = raw_websocket(server, room_id)
    sock.sendall(_client_frame(json.dumps({"type": "hello", "protocol": 1, "token": None})))
    return sock


def _client_frame(text: str) -> bytes:
    """A masked WebSocket text frame (under 126 bytes) as a client sends it."""
    data = text.encode()
    mask = b"\x01\x02\x03\x04"
    return bytes([0x81, 0x80 | len(data)]) + mask + bytes(
        byte ^ mask[i % 4] for i, byte in enumerate(data))


@pytest.mark.parametrize("limit", ["frames", "bytes"])
@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_a_client_that_stops_reading_is_dropped(db_url: str, loop: str, limit: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """attack6 (t2c_slow_queue.py): a client that sent pings and read nothing was cut off
    by the keepalive ping's timeout after about 40 s (1011), not by the documented queue
    limit (uvicorn's send waits once 64 KiB are unread, the frames after it waited in the
    connection's queue past QUEUE_LIMIT and the close waited behind them for ever). Past
    the limit the connection is now dropped (its transport aborted, SLOW_GRACE seconds
    after the close was queued); the room goes on for the others. On both event loops
    ``guts serve --loop`` runs (session 11: uvloop's transport is the one kept too). The
    limit is the frames waiting (QUEUE_LIMIT) or their characters (QUEUE_BYTES, attack11
    H1: a frame may hold many messages)."""
    if limit == "frames":
        monkeypatch.setattr(server_app, "QUEUE_LIMIT", 20)
    else:  # the frames never reach the count: their characters do
        monkeypatch.setattr(server_app, "QUEUE_LIMIT", 10**9)
        monkeypatch.setattr(server_app, "QUEUE_BYTES", 2000)
    monkeypatch.setattr(server_app, "SLOW_GRACE", 0.2)
    # Every ping answered with a pong: no message limit in the way (a flood past it gets
    # one rate_limited error per window, too few frames to fill the queue).
    monkeypatch.setattr(server_app, "MESSAGE_LIMIT", limits.RateLimitItemPerSecond(10**6, 1))
    with running_server(db_url, loop=loop) as server:
        room_id = server.create_room()["room_id"]
        room = server.manager.rooms[room_id]
        watcher = Player(server, room_id)
        sock = _raw_websocket(server, room_id)
        deadline = time.monotonic() + 60
        while len(room.clients) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        slow = next(c for c in cast(set[WsClient], room.clients)
                    if c.websocket.client is not None
                    and c.websocket.client.port == sock.getsockname()[1])
        assert slow.transport is not None  # kept by app.KeepTransport
        assert type(slow.transport).__module__.startswith("uvloop") == (loop == "uvloop")
        # The server's socket buffer made small: its kernel takes 4 KiB, not megabytes,
        # before the transport holds what the client has not read.
        slow.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET,
                                                           socket.SO_SNDBUF, 4096)
        pings = _client_frame(json.dumps({"type": "ping"})) * 100  # each one answered
        sock.settimeout(0.5)
        with pytest.raises((ConnectionResetError, BrokenPipeError)):
            while True:  # until the server drops it
                assert time.monotonic() < deadline, "the client was not dropped"
                with contextlib.suppress(TimeoutError):
                    sock.sendall(pings)
        sock.close()
        assert slow.overflow
        while slow in room.clients:  # detached from the room
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert len(room.clients) == 1  # the watcher
        watcher.send({"type": "ping"})
        assert watcher.expect("pong") == {"type": "pong"}
        watcher.close()


def test_a_connection_that_never_says_hello_is_closed(db_url: str) -> None:
    # A timeout a loaded machine meets with a prompt hello; the silent connections wait it
    # out together.
    with running_server(db_url, hello_timeout=4.0) as server:
        room_id = server.create_room()["room_id"]
        silent = Player(server, room_id, hello=False)
        stubborn = Player(server, room_id, hello=False)
        stubborn.send({"type": "hello", "protocol": 1, "token": "nope"})
        assert stubborn.recv()["code"] == "bad_token"
        polite = Player(server, room_id)  # whoever said hello stays
        silent2 = Player(server, room_id, hello=False)
        assert silent.recv() == {"type": "error", "code": "hello_timeout", "action_id": None,
                                 "message": "no hello within 4 seconds of connecting"}
        assert closed_code(silent) == 1008
        # A bad hello does not reset the clock.
        assert stubborn.recv()["code"] == "hello_timeout"
        assert closed_code(stubborn) == 1008
        assert silent2.recv()["code"] == "hello_timeout"
        polite.send({"type": "ping"})
        assert polite.expect("pong") == {"type": "pong"}


def test_a_locked_database_does_not_delay_other_rooms(tmp_path: Path) -> None:
    """Another process holds the SQLite write lock: the room that writes waits for it, and
    meanwhile an unrelated room answers its ping and HTTP is served (issue 9, problem 10).
    The order is asserted, not a time: the lock is held until the pong has arrived."""
    path = tmp_path / "locked.db"
    with running_server(f"sqlite:///{path}") as server:
        busy_id = server.create_room("Ana")["room_id"]
        calm_id = server.create_room("Ben")["room_id"]
        busy_room = server.manager.rooms[busy_id]
        joiner = Player(server, busy_id)
        calm = Player(server, calm_id)
        other = sqlite3.connect(path, isolation_level=None, timeout=0)
        other.execute("BEGIN EXCLUSIVE")  # what a backup or a second writer would hold
        try:
            joiner.send({"type": "join", "name": "Cleo"})  # a write: the new seat
            while not busy_room.lock.locked():  # the join is in the room, its write waits
                time.sleep(0.01)
            calm.send({"type": "ping"})
            assert calm.expect("pong") == {"type": "pong"}
            assert server.get(f"/api/rooms/{calm_id}").status_code == 200
            assert busy_room.lock.locked() and len(busy_room.seats) == 1
        finally:
            other.execute("ROLLBACK")
            other.close()
        seated = joiner.expect("seated")
        assert seated["seat"] == 1 and [s.name for s in busy_room.seats] == ["Ana", "Cleo"]


def test_a_room_that_fails_to_replay_is_set_aside(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    url = f"sqlite:///{tmp_path / 'broken.db'}"
    with running_server(url, seed_numbers=(1, 2, 3)) as server:
        broken_id, players = seat_three(server)
        players[0].send({"type": "start"})
        players[0].state(lambda t: t["phase"] == "declare")
        unreadable_id, players2 = seat_three(server)
        players2[0].send({"type": "start"})
        players2[0].state(lambda t: t["phase"] == "declare")
        good_id, good = seat_three(server)
        good[0].send({"type": "start"})
        good_view = good[0].state(lambda t: t["phase"] == "declare")
        sessions = {room_id: server.manager.rooms[room_id].session_id
                    for room_id in (broken_id, unreadable_id)}
        for player in (*players, *players2, *good):
            player.close()
    engine = create_engine(url)
    with engine.begin() as connection:
        # The first room's history lost its SessionStarted: it does not replay. The
        # second's antes are no event at all: it cannot even be read.
        connection.execute(text("DELETE FROM events WHERE session_id = :s AND seq = 0"),
                           {"s": sessions[broken_id]})
        connection.execute(text("UPDATE events SET payload = :p WHERE session_id = :s "
                                "AND seq = 1"),
                           {"p": '{"type": "Nonsense"}', "s": sessions[unreadable_id]})
    engine.dispose()
    with caplog.at_level(logging.ERROR, logger="gutskit.server"), \
            running_server(url) as server:
        assert set(server.manager.rooms) == {good_id}
        ana = Player(server, good_id, good[0].token)
        assert ana.log[0]["table"]["hand"] == good_view["hand"]
        for room_id in (broken_id, unreadable_id):
            assert server.store.room_status(room_id) == "set_aside"
            response = server.get(f"/api/rooms/{room_id}")
            assert (response.status_code, response.json()) == (503, {
                "code": "room_set_aside", "message": f"room {room_id!r} could not be "
                "rebuilt from its stored events and is set aside"})
            spectator = Player(server, room_id, hello=False)
            assert spectator.recv()["code"] == "room_set_aside"
    logged = [r.getMessage() for r in caplog.records if r.name == "gutskit.server"]
    assert len(logged) == 2
    assert any(m.startswith(f"room {broken_id} set aside") for m in logged)
    assert any(m.startswith(f"room {unreadable_id} set aside: its stored events cannot "
                            "be rebuilt (HistoryError") for m in logged), logged
    # The next start does not try them again.
    with running_server(url) as server:
        assert set(server.manager.rooms) == {good_id}


def test_idle_rooms_are_closed_archived_and_still_downloadable(db_url: str) -> None:
    with running_server(db_url, seed_numbers=(1, 2), idle_minutes=0.01) as server:
        lobby_id = server.create_room("Ana")["room_id"]
        created = server.create_room("Ben", buy_in=100)
        playing_id = created["room_id"]
        ben = Player(server, playing_id, created["token"])
        ben.send({"type": "add_bot"})
        ben.send({"type": "start"})
        ben.state(lambda t: t["phase"] == "declare")  # then Ben leaves mid-round
        ben.close()
        deadline = time.monotonic() + 60
        while server.manager.rooms:
            assert time.monotonic() < deadline, "the idle rooms were not closed"
            time.sleep(0.05)
        for room_id in (lobby_id, playing_id):
            assert server.store.room_status(room_id) == "archived"
        info = server.get(f"/api/rooms/{playing_id}").json()
        assert info["status"] == "over"
        history = [json.loads(line) for line in
                   server.get(f"/api/rooms/{playing_id}/history.jsonl").text.splitlines()]
        assert history[-1]["type"] == "SessionEnded"
        assert history[-1]["reason"] == "the room was idle for 0.01 minutes"
        ledger = server.get(f"/api/rooms/{playing_id}/ledger.csv").text
        assert "(session in play)" not in ledger
        stacks = [int(row[3]) for row in csv.reader(io.StringIO(ledger.split("\n\n")[0]))
                  if row[0].isdigit()]
        assert sum(stacks) == 200  # the pot of the unfinished round was shared out
        assert server.get(f"/api/rooms/{playing_id}/fairness.json").status_code == 200
        late = Player(server, playing_id, hello=False)
        error = late.recv()
        assert (error["code"], error["message"]) == (
            "room_closed", f"room {playing_id!r} was closed after being idle; its ledger, "
            "history and fairness records can still be downloaded")
        assert closed_code(late) == 4404
        assert server.get(f"/api/rooms/{lobby_id}").json()["status"] == "over"
    # Archived rooms are not loaded at start-up; their exports are still served.
    with running_server(db_url) as server:
        assert server.manager.rooms == {}
        assert server.get(f"/api/rooms/{playing_id}/ledger.csv").text == ledger


def test_a_room_of_bots_with_nobody_connected_does_not_play_on(db_url: str) -> None:
    # The fastest timers the test server allows, bots that answer at once: with somebody
    # connected it deals round after round; with nobody, it stops before the next deal.
    with running_server(db_url, seed_numbers=(1,)) as server:
        created = server.create_room("Ana", buy_in=1000, decision_seconds=0.1)
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"])
        ana.send({"type": "add_bot"})
        ana.send({"type": "add_bot"})
        ana.send({"type": "start"})
        ana.state(lambda t: t["round"] >= 2)
        ana.close()
        room = server.manager.rooms[room_id]
        deadline = time.monotonic() + 60
        while not (room.state is not None and room.state.phase.value == "deal"
                   and room._next_deal is None and not room.clients):
            assert time.monotonic() < deadline, "the table did not stop"
            time.sleep(0.02)
        # Nothing is scheduled: no deal, no timer, no bot.
        assert room._timer is None or room._timer.done()
        assert all(task.done() for task in room._bot_tasks.values())
        stopped_at = room.state.round_number
        # A spectator connects: the table deals again.
        watcher = Player(server, room_id)
        watcher.expect("event", lambda m: m["event"]["type"] == "CardsDealt")
        assert room.state.round_number > stopped_at


def test_a_connect_sends_the_newcomer_its_state_and_the_others_one_small_update(
        tmp_path: Path) -> None:
    """Cost of connects grows linearly: each of k spectators costs its own welcome, and
    the others receive one ``presence`` per quarter second however many came."""

    class Recorder:
        def __init__(self) -> None:
            self.seat: int | None = None
            self.protocol = 1
            self.got: list[Any] = []

        def send(self, message: Any) -> None:
            self.got.append(json.loads(message if isinstance(message, str)
                                       else message.model_dump_json()))

    async def scenario() -> list[Recorder]:
        store = open_room_store(f"sqlite:///{tmp_path / 'presence.db'}")
        manager = RoomManager(store, ServerConfig(min_reveal_seconds=0))
        room, _ = await manager.create(CreateRoom(host_name="Ana"))
        clients = [Recorder() for _ in range(50)]
        for client in clients:
            await room.attach(client, Hello(protocol=1))
        # Each newcomer got its welcome (and the commitment of round 1); nobody else got
        # anything about it.
        assert [[m["type"] for m in c.got] for c in clients] == [
            ["welcome", "commitment"]] * 50
        await asyncio.sleep(PRESENCE_DELAY * 4)
        await room.detach(clients[0])
        await asyncio.sleep(PRESENCE_DELAY * 4)
        manager.close()
        store.close()
        return clients

    clients = asyncio.run(scenario())
    presence = {"type": "presence", "connected": [False], "spectators": 50}
    assert clients[0].got[2:] == [presence]
    for client in clients[1:]:
        assert client.got[2:] == [presence, {**presence, "spectators": 49}]


def test_chip_amounts_from_clients_are_bounded(db_url: str) -> None:
    """The auditor's rebuy of 10**40 chips (approved, it made a stack no browser holds
    exactly): every chip amount a client sends is 1..MAX_CHIPS (1,000,000), the buy-in,
    the rebuy and the whole numbers of the house rules."""
    huge = 10**30  # (10**40 is quoted cut to 40 digits)
    with running_server(db_url) as server:
        response = server.post("/api/rooms", room_body(buy_in=1_000_001))
        assert (response.status_code, response.json()) == (400, {
            "code": "bad_message",
            "message": "buy_in: input should be less than or equal to 1000000 (got 1000001)"})
        # The house rules' whole numbers: refused by the core's Rules, with the message
        # of every front end (guts play --rule, a rules file).
        response = server.post("/api/rooms", room_body(rules={"pot_cap": huge}))
        assert (response.status_code, response.json()) == (400, {
            "code": "bad_rules", "message": f"pot_cap: must be at most 1000000 (got {huge})"})
        response = server.post("/api/rooms", room_body(rules={"rebuys": True,
                                                              "max_rebuys": 1_000_001}))
        assert response.json()["message"] == ("max_rebuys: must be at most 1000000 "
                                              "(got 1000001)")
        response = server.post("/api/rooms", room_body(rules={"min_buy_in": 5_000_000}))
        assert response.json() == {"code": "bad_rules", "message":
                                   "min_buy_in: must be at most 1000000 (got 5000000)"}
        assert server.manager.rooms == {}
        assert server.get("/api/rules").json()["max_chips"] == 1_000_000
        room_id, players = seat_three(server, rules={"preset": "buy-in-limits"})
        ana, ben = players[0], players[1]
        ana.send({"type": "start"})
        ben.state(lambda t: t["phase"] == "declare")
        for chips in (huge, 1_000_001):
            ben.send({"type": "rebuy", "chips": chips})
            error = ben.expect("error")
            assert error == {"type": "error", "code": "bad_message", "action_id": None,
                             "message": "rebuy.chips: input should be less than or equal "
                                        f"to 1000000 (got {chips})"}
        assert server.manager.rooms[room_id].rebuys == {}
        # The largest amount is taken (buy-in-limits: a stack below 20 may buy back in).
        ana.send({"type": "rebuy", "chips": 1_000_000})
        room = ana.expect("room", lambda m: m["room"]["rebuy_requests"] != [])["room"]
        assert room["rebuy_requests"] == [{"seat": 0, "chips": 1_000_000, "approved": False}]
        for player in players:
            player.close()


def _posts_with_forged_addresses(server: Server, count: int) -> list[int]:
    """The auditor's xff_room_limit_bypass.sh: one client, a new X-Forwarded-For each
    time."""
    return [httpx.post(f"{server.http}/api/rooms", json=room_body(), timeout=60, headers={
        "Origin": server.http, "X-Forwarded-For": f"10.66.{i}.1"}).status_code
        for i in range(count)]


def _sockets_with_forged_addresses(server: Server, room_id: str, count: int
                                   ) -> list[str]:
    """The auditor's xff_conn_limit.py: what the server answers each of ``count``
    connections that say hello with a new X-Forwarded-For (``welcome`` or an error
    code); all are closed at the end."""
    answers, sockets = [], []
    try:
        for i in range(count):
            ws = connect(server.ws_url(room_id), open_timeout=60, additional_headers={
                "X-Forwarded-For": f"10.77.{i}.1"}).__enter__()
            sockets.append(ws)
            with contextlib.suppress(ConnectionClosed):  # a refused one is closed at once
                ws.send(json.dumps({"type": "hello", "protocol": 1, "token": None}))
            message = json.loads(ws.recv(timeout=60))
            answers.append(message.get("code") or message["type"])
    finally:
        for ws in sockets:
            ws.close()
    return answers


def test_a_forged_x_forwarded_for_escapes_no_per_address_limit(db_url: str) -> None:
    """By default the client address is the TCP peer: X-Forwarded-For from anyone (also
    from 127.0.0.1, which uvicorn would trust by default) is ignored, so a made-up address
    per request creates no more rooms and holds no more connections."""
    with running_server(db_url, room_limit="3/minute", max_connections_per_address=4,
                        max_connections_per_room=40) as server:
        assert _posts_with_forged_addresses(server, 5) == [200, 200, 200, 429, 429]
        room_id = next(iter(server.manager.rooms))
        assert _sockets_with_forged_addresses(server, room_id, 6) == [
            "welcome"] * 4 + ["too_many_connections"] * 2


def test_a_trusted_proxy_names_the_client(db_url: str) -> None:
    """guts serve --forwarded-allow-ips: behind a trusted proxy (here 127.0.0.1) each
    forwarded address has its own limits; the proxy's own requests still count."""
    with running_server(db_url, room_limit="3/minute", max_connections_per_address=4,
                        forwarded_allow_ips=("127.0.0.1",)) as server:
        assert _posts_with_forged_addresses(server, 5) == [200] * 5
        room_id = next(iter(server.manager.rooms))
        assert _sockets_with_forged_addresses(server, room_id, 6) == ["welcome"] * 6
    with running_server(db_url, room_limit="3/minute",
                        forwarded_allow_ips=("10.0.0.0/8",)) as server:  # not this peer
        assert _posts_with_forged_addresses(server, 5) == [200, 200, 200, 429, 429]


def test_open_rooms_are_capped_for_the_whole_server(db_url: str) -> None:
    """Many addresses together cannot open rooms without limit: max_rooms open at once
    (archived rooms do not count)."""
    with running_server(db_url, max_rooms=2) as server:
        first = server.create_room()["room_id"]
        server.create_room("Ben")
        response = server.post("/api/rooms", room_body(host_name="Cleo"))
        assert (response.status_code, response.json()) == (503, {
            "code": "server_full", "message": "this server already has 2 open rooms, the "
            "most it holds; try again later (a room closes after 60 idle minutes)"})
        assert len(server.manager.rooms) == 2
        server.store.set_status(first, ARCHIVED)  # what the idle expiry does
        assert server.post("/api/rooms", room_body(host_name="Cleo")).status_code == 200


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.parametrize("trusted", [False, True])
def test_guts_serve_trusts_no_proxy_unless_told(tmp_path: Path, trusted: bool) -> None:
    """The real command (uvicorn as guts serve configures it): a forged X-Forwarded-For
    from 127.0.0.1 escapes no limit; with --forwarded-allow-ips 127.0.0.1 it names the
    client."""
    port = _free_port()
    args = [sys.executable, "-m", "gutskit.cli.app", "serve", "--port", str(port),
            "--db", str(tmp_path / "serve.db"), "--room-limit", "2/minute"]
    if trusted:
        args += ["--forwarded-allow-ips", "127.0.0.1"]
    serve = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        server = Server(port=port, manager=cast(Any, None), store=cast(Any, None))
        deadline = time.monotonic() + 120
        while True:
            assert serve.poll() is None, serve.stderr.read() if serve.stderr else ""
            assert time.monotonic() < deadline, "guts serve did not start"
            with contextlib.suppress(httpx.HTTPError):
                if server.get("/api/rules").status_code == 200:
                    break
            time.sleep(0.2)
        want = [200] * 4 if trusted else [200, 200, 429, 429]
        assert _posts_with_forged_addresses(server, 4) == want
    finally:
        serve.terminate()
        serve.wait(30)


def test_forwarded_allow_ips_are_checked(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--port", str(_free_port()), "--db",
                                      str(tmp_path / "x.db"), "--forwarded-allow-ips",
                                      "10.0.0.1,proxy.example"])
    assert result.exit_code == 2
    assert "error: --forwarded-allow-ips: 'proxy.example' is not an IP address, a network " \
           "such as 10.0.0.0/8, or '*'" in result.output


def test_the_workers_of_guts_serve_get_the_same_limits() -> None:
    """guts serve --workers N hands its ServerConfig to every worker process (JSON in the
    environment): the trusted proxies, the open-room cap, the allowed host names and the
    public URL arrive unchanged."""
    config = ServerConfig(forwarded_allow_ips=("10.0.0.1", "192.168.0.0/16"), max_rooms=7,
                          allowed_hosts=("localhost", "guts.example.org"),
                          base_url="https://guts.example.org")
    text = WorkerSettings(redis_url="unix:///tmp/r.sock", db=None, config=config).to_json()
    assert WorkerSettings.from_json(text).config == config


def test_the_host_header_is_allow_listed(db_url: str) -> None:
    """The auditor's host_header.sh: with Host: evil.example (and a matching Origin) a room
    was created with an invite link and QR code on http://evil.example, and a WebSocket
    opened (DNS rebinding). Only the allowed names are answered; links are built on them."""
    evil = {"Host": "evil.example", "Origin": "http://evil.example"}
    with running_server(db_url) as server:
        response = httpx.post(f"{server.http}/api/rooms", json=room_body(), headers=evil,
                              timeout=60)
        assert (response.status_code, response.text) == (400, "Invalid host header")
        assert server.manager.rooms == {}
        created = server.create_room()
        room_id = created["room_id"]
        assert created["url"] == f"{server.http}/r/{room_id}"
        qr = f"{server.http}/api/rooms/{room_id}/qr.svg"
        assert httpx.get(qr, headers={"Host": "evil.example"}, timeout=60).status_code == 400
        assert httpx.get(qr, timeout=60).text == invite_qr_svg(created["url"])
        for host in ("evil.example", f"evil.example:{server.port}"):
            with pytest.raises(InvalidStatus) as refused:
                connect(server.ws_url(room_id), open_timeout=60, additional_headers={
                    "Host": host, "Origin": f"http://{host}"})
            assert refused.value.response.status_code == 400
        # The names of the machine the server runs on are answered.
        response = httpx.get(f"http://localhost:{server.port}/api/rooms/{room_id}", timeout=60)
        assert response.status_code == 200


def test_invite_links_use_the_public_url(db_url: str) -> None:
    """guts serve --public-url https://guts.example.org (behind a proxy that passes the
    Host on): the invite link and its QR code are on it, and its origin is the server's."""
    with running_server(db_url, base_url="https://guts.example.org",
                        allowed_hosts=("127.0.0.1", "guts.example.org")) as server:
        headers = {"Host": "guts.example.org", "Origin": "https://guts.example.org"}
        response = httpx.post(f"{server.http}/api/rooms", json=room_body(), headers=headers,
                              timeout=60)
        assert response.status_code == 200, response.text
        room_id = response.json()["room_id"]
        assert response.json()["url"] == f"https://guts.example.org/r/{room_id}"
        # Asked by its own address (the proxy rewrote the Host), still the public link.
        assert server.create_room("Ben")["url"].startswith("https://guts.example.org/r/")
        qr = httpx.get(f"{server.http}/api/rooms/{room_id}/qr.svg", timeout=60).text
        assert qr == invite_qr_svg(f"https://guts.example.org/r/{room_id}")
        Player(server, room_id, origin="https://guts.example.org").close()


def test_guts_serve_answers_its_own_names(tmp_path: Path) -> None:
    """The allow-list guts serve builds: the loopback names, the --host address (on
    0.0.0.0: this machine's name and addresses), the --public-url host, --allowed-host."""
    assert allowed_hosts("127.0.0.1", "", []) == ("localhost", "127.0.0.1", "::1")
    assert allowed_hosts("192.168.1.5", "http://guts.lan:8000", ["Cards.Example"]) == (
        "localhost", "127.0.0.1", "::1", "192.168.1.5", "guts.lan", "cards.example")
    lan = allowed_hosts("0.0.0.0", "", [])
    assert socket.gethostname().lower() in lan and "0.0.0.0" not in lan
    result = CliRunner().invoke(app, ["serve", "--port", str(_free_port()), "--db",
                                      str(tmp_path / "x.db"), "--public-url", "guts.org"])
    assert result.exit_code == 2
    assert "error: --public-url: 'guts.org' is not an http:// or https:// URL such as " \
           "https://guts.example.org" in result.output


def test_a_relay_bounds_the_frames_queued_for_a_client_that_stopped_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """attack7 M1: a relay (``guts serve --redis``, a room owned by another worker) queued
    every frame for a client that never read (its send waits once 64 KiB are unread), so
    its memory grew 3.5 MB/s. Frames are now bounded where they arrive: at QUEUE_LIMIT the
    close 1008 is queued, later frames are dropped, the transport aborted SLOW_GRACE later."""
    from gutskit.server.cluster import _Proxy

    monkeypatch.setattr(server_app, "QUEUE_LIMIT", 3)
    monkeypatch.setattr(server_app, "SLOW_GRACE", 0.05)

    class Transport(asyncio.Transport):
        aborted = 0

        def abort(self) -> None:
            Transport.aborted += 1

    async def play() -> list[object]:
        proxy = _Proxy("room", "worker-b")
        proxy.transport = Transport()
        for n in range(10):
            proxy.deliver({"type": "websocket.send", "text": str(n)})
        await asyncio.sleep(0.2)
        return [proxy.inbox.get_nowait() for _ in range(proxy.inbox.qsize())]

    queued = asyncio.run(play())
    assert queued == [{"type": "websocket.send", "text": "0"},
                      {"type": "websocket.send", "text": "1"},
                      {"type": "websocket.send", "text": "2"},
                      {"type": "websocket.close", "code": 1008, "reason": "too slow"}]
    assert Transport.aborted == 1
