"""Each limit of the server attacked (docs/protocol.md, "Limits"; issue 9, problem 9): every
one answers with a clear error, and the server goes on serving."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import DB_KINDS, Player, make_db_url, running_server
from websockets.exceptions import ConnectionClosed

from gutskit.server.app import STATIC


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
            player.ws.recv(timeout=15)
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
            "message": "this address may create at most 3 per 1 minute rooms; try again "
                       "later"}
        assert len(server.manager.rooms) == 3
        # The rooms made still work, and reading is not limited.
        room_id = answers[0].json()["room_id"]
        assert server.get(f"/api/rooms/{room_id}").status_code == 200


def test_request_body_size_is_limited_on_every_endpoint(db_url: str) -> None:
    with running_server(db_url, max_body_bytes=2048) as server:
        big = room_body(rules={"preset": "standard", "x": "y" * 4000})
        response = server.post("/api/rooms", big)
        assert response.status_code == 413
        assert response.json() == {"code": "too_large",
                                   "message": "the request body is larger than 2048 bytes"}
        # A GET with a body, and a body without Content-Length (chunked), are counted too.
        response = httpx.request("GET", f"{server.http}/api/rules", content=b"x" * 3000)
        assert response.status_code == 413

        def chunks() -> Iterator[bytes]:
            for _ in range(10):
                yield b" " * 500

        response = httpx.post(f"{server.http}/api/rooms", content=chunks(), headers={
            "Origin": server.http, "Content-Type": "application/json"})
        assert response.status_code == 413
        assert response.json()["code"] == "too_large"
        assert server.manager.rooms == {}


def test_state_changing_requests_need_json_and_the_servers_origin(db_url: str) -> None:
    with running_server(db_url) as server:
        url = f"{server.http}/api/rooms"
        body = '{"host_name": "Mallory"}'
        # What a cross-site form or fetch(..., {mode: "no-cors"}) can send: text/plain.
        response = httpx.post(url, content=body, headers={
            "Origin": "http://evil.example", "Content-Type": "text/plain"})
        assert response.status_code == 415
        assert response.json() == {"code": "bad_content_type", "message":
                                   "Content-Type must be application/json (got 'text/plain')"}
        response = httpx.post(url, content=body, headers={
            "Origin": server.http, "Content-Type": "application/x-www-form-urlencoded"})
        assert response.status_code == 415
        response = httpx.post(url, content=body, headers={
            "Origin": "http://evil.example", "Content-Type": "application/json"})
        assert (response.status_code, response.json()) == (403, {
            "code": "bad_origin", "message": "origin 'http://evil.example' is not allowed"})
        response = httpx.post(url, content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 403
        assert response.json()["code"] == "bad_origin"
        assert server.manager.rooms == {}
        response = httpx.post(url, content=body, headers={
            "Origin": server.http, "Content-Type": "application/json; charset=utf-8"})
        assert response.status_code == 200


def test_an_allowed_origin_may_create_rooms(db_url: str) -> None:
    with running_server(db_url, allowed_origins=["http://friend.example"]) as server:
        response = httpx.post(f"{server.http}/api/rooms", json=room_body(),
                              headers={"Origin": "http://friend.example"})
        assert response.status_code == 200


def test_deep_json_is_a_clean_error_over_http_and_websocket(db_url: str) -> None:
    with running_server(db_url) as server:
        deep = '{"host_name": "Ana", "rules": ' + "[" * 2000 + "]" * 2000 + "}"
        response = httpx.post(f"{server.http}/api/rooms", content=deep, headers={
            "Origin": server.http, "Content-Type": "application/json"})
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
        refused = Player(server, first, hello=False)
        assert refused.recv() == {
            "type": "error", "code": "too_many_connections", "action_id": None,
            "message": "this room already has 2 connections, the most it takes"}
        assert closed_code(refused) == 1008
        c = Player(server, second)
        refused = Player(server, second, hello=False)
        assert refused.recv()["message"] == (
            "your address already has 3 connections open, the most one address may hold")
        assert closed_code(refused) == 1008
        # A closed connection frees its place.
        a.close()
        b.send({"type": "ping"})
        b.expect("pong")
        again = Player(server, second)
        for player in (b, c, again):
            player.send({"type": "ping"})
            assert player.expect("pong") == {"type": "pong"}


def test_a_connection_that_never_says_hello_is_closed(db_url: str) -> None:
    with running_server(db_url, hello_timeout=0.3) as server:
        room_id = server.create_room()["room_id"]
        silent = Player(server, room_id, hello=False)
        assert silent.recv() == {"type": "error", "code": "hello_timeout", "action_id": None,
                                 "message": "no hello within 0.3 seconds of connecting"}
        assert closed_code(silent) == 1008
        # A bad hello does not reset the clock.
        stubborn = Player(server, room_id, hello=False)
        stubborn.send({"type": "hello", "protocol": 1, "token": "nope"})
        assert stubborn.recv()["code"] == "bad_token"
        assert stubborn.recv()["code"] == "hello_timeout"
        # Whoever said hello stays.
        polite = Player(server, room_id)
        silent2 = Player(server, room_id, hello=False)
        assert silent2.recv()["code"] == "hello_timeout"
        polite.send({"type": "ping"})
        assert polite.expect("pong") == {"type": "pong"}
