"""Fault tests of the server: restart (graceful and kill -9) with no chip lost, dropped
clients, malformed / oversized / out-of-turn / duplicated / stale / forged messages (each
refused with a clear error, nothing changes), timers, host controls, rate limit, Origin
check, and a hypothesis fuzz of random messages."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_support import (
    DB_KINDS,
    Player,
    Server,
    make_db_url,
    running_server,
    seat_three,
)
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from gutskit.core.engine import GameState


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh SQLite database, and PostgreSQL when GUTSKIT_TEST_PG_URL is set."""
    with make_db_url(request.param, tmp_path) as url:
        yield url


def snapshot(server: Server, room_id: str) -> tuple[GameState | None, int, str, bool, int]:
    room = server.manager.rooms[room_id]
    return room.state, len(room.events), room.status, room.paused, len(room.seats)


def start_round(players: list[Player], number: int = 1) -> list[dict[str, Any]]:
    players[0].send({"type": "start"})
    return [p.state(lambda t: t["phase"] == "declare" and t["round"] == number)
            for p in players]


def test_restart_rebuilds_rooms_mid_round(db_url: str) -> None:
    with running_server(db_url, seed_numbers=(1, 2)) as server:
        room_id, players = seat_three(server)
        views = start_round(players)
        assert players[0].declare(1, "in", "ana-1")["type"] == "ack"
        before = players[0].last_state()
        assert before["declared"] == [True, False, False]
        for player in players:
            player.close()
    # A new server on the same database: the room, the cards, the sealed declaration.
    with running_server(db_url, seed_numbers=(3,)) as server:
        info = server.get(f"/api/rooms/{room_id}").json()
        assert info["status"] == "playing"
        ana = Player(server, room_id, players[0].token)
        ben = Player(server, room_id, players[1].token)
        cleo = Player(server, room_id, players[2].token)
        welcome = ana.log[0]["table"]
        assert welcome["hand"] == views[0]["hand"] == ["Ts", "Td", "Qc"]
        assert welcome["stacks"] == before["stacks"] == [19, 19, 19]
        assert welcome["pot"] == 3 and welcome["declarations"] == ["in", None, None]
        assert ben.log[0]["table"]["declarations"] == [None, None, None]
        assert ben.log[0]["table"]["declared"] == [True, False, False]
        # A retry of Ana's action after the restart is a duplicate: applied once.
        assert ana.declare(1, "in", "ana-1") == {"type": "ack", "action_id": "ana-1",
                                                  "duplicate": True}
        assert ben.declare(1, "in")["type"] == "ack"
        assert cleo.declare(1, "out")["type"] == "ack"
        after = ana.state(lambda t: t["round"] == 2)
        # Ana's pair of tens beats Ben's queen high: +3 for Ana, Ben matches 3.
        assert after["last_result"]["won"] == [3, 0, 0]
        assert after["last_result"]["matched"] == [0, 3, 0]
        assert sum(after["stacks"]) + after["pot"] == 60


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _spawn(db: str, port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-c", "import typer; from gutskit.cli.serve import serve; "
         "typer.run(serve)", "--port", str(port), "--db", db, "--bot-delay", "0",
         "--min-reveal-seconds", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90  # a loaded 2-core machine starts slowly
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/rules", timeout=5)
            return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError("guts serve did not start")


def test_kill_9_mid_round_loses_nothing(tmp_path: Path) -> None:
    """A real ``guts serve`` process killed with SIGKILL in the middle of a round."""
    db = f"sqlite:///{tmp_path / 'kill.db'}"
    port = _free_port()
    server = _spawn(db, port)
    try:
        base = f"http://127.0.0.1:{port}"
        # Ana's timer far off: however long the restart takes on a loaded machine, her
        # turn is still open after it (the test is about the restart, not the timer).
        created = httpx.post(f"{base}/api/rooms", headers={"Origin": base}, timeout=30, json={
            "host_name": "Ana", "buy_in": 20, "reveal_seconds": 0,
            "decision_seconds": 600}).json()
        room_id = created["room_id"]
        with connect(f"ws://127.0.0.1:{port}/ws/{room_id}", open_timeout=60) as ws:
            ws.send(json.dumps({"type": "hello", "protocol": 1, "token": created["token"]}))
            ws.send(json.dumps({"type": "add_bot"}))
            ws.send(json.dumps({"type": "add_bot"}))
            ws.send(json.dumps({"type": "start"}))
            hand = None
            while hand is None:
                message = json.loads(ws.recv(timeout=30))
                if message["type"] == "state" and message["table"]["my_turn"]:
                    hand = message["table"]["hand"]
                    table = message["table"]
        # Bots (delay 0) have declared by now or soon; Ana has not: the round is open.
        os.kill(server.pid, signal.SIGKILL)
        server.wait(10)
        server = _spawn(db, port)
        with connect(f"ws://127.0.0.1:{port}/ws/{room_id}", open_timeout=60) as ws:
            ws.send(json.dumps({"type": "hello", "protocol": 1, "token": created["token"]}))
            welcome = json.loads(ws.recv(timeout=30))
            assert welcome["type"] == "welcome" and welcome["seat"] == 0
            again = welcome["table"]
            assert again["hand"] == hand and again["round"] == table["round"]
            assert again["stacks"] == table["stacks"] and again["pot"] == table["pot"]
            ws.send(json.dumps({"type": "declare", "round": again["round"],
                                "action_id": "a", "declaration": "out"}))
            while True:
                message = json.loads(ws.recv(timeout=30))
                if message["type"] == "state" and message["table"]["round"] > again["round"]:
                    final = message["table"]
                    break
            assert sum(final["stacks"]) + final["pot"] + final["reserve"] == 60
    finally:
        server.kill()
        server.wait(10)


def test_bad_messages_are_refused_and_change_nothing(db_url: str) -> None:
    with running_server(db_url, seed_numbers=(1,)) as server:
        room_id, players = seat_three(server, rules={"declaration": "sequential"})
        ana, ben, cleo = players
        start_round(players)
        before = snapshot(server, room_id)

        def refused(player: Player, message: dict[str, Any] | str, code: str,
                    text: str = "") -> None:
            player.send(message)
            error = player.expect_any(("error", "ack"))
            assert error["type"] == "error", error
            assert error["code"] == code, error
            assert text in error["message"], error
            assert snapshot(server, room_id) == before

        refused(ana, "{not json", "bad_message", "not JSON")
        refused(ana, "[1, 2]", "bad_message", "JSON object")
        refused(ana, {"type": "fold"}, "bad_message", "unknown message type 'fold'")
        refused(ana, {"round": 1}, "bad_message", "\"type\"")
        refused(ana, {"type": "declare", "round": "1", "action_id": "x", "declaration": "in"},
                "bad_message", "declare.round")
        refused(ana, {"type": "declare", "round": 1, "action_id": "x", "declaration": "maybe"},
                "illegal_action", "\"maybe\" is not a declaration: this table's are in, out")
        refused(ana, {"type": "declare", "round": 1, "action_id": "x", "declaration": "in",
                      "seat": 2}, "bad_message", "declare.seat")
        refused(ana, "x" * 5000, "too_large", "5000 bytes")
        refused(ana, {"type": "hello", "protocol": 1}, "bad_message", "already")
        # Dealer Ana: Ben (seat 1) declares first under sequential declaration.
        refused(cleo, {"type": "declare", "round": 1, "action_id": "c", "declaration": "in"},
                "illegal_action", "Ben's turn")
        refused(ben, {"type": "declare", "round": 0, "action_id": "b0", "declaration": "in"},
                "stale_round", "round 0 is not open: round 1 is being declared")
        refused(ben, {"type": "declare", "round": 2, "action_id": "b2", "declaration": "in"},
                "stale_round", "round 2")
        # A 4000-digit round is refused without echoing it whole (attack12 F5): the message
        # is cut to protocol.MESSAGE_LIMIT (300) characters, the last one "…".
        ben.send({"type": "declare", "round": int("9" * 4000), "action_id": "b9",
                  "declaration": "in"})
        long_error = ben.expect_any(("error", "ack"))
        assert long_error["code"] == "stale_round", long_error
        assert long_error["message"].startswith("round 999")
        assert len(long_error["message"]) == 300 and long_error["message"].endswith("…")
        assert snapshot(server, room_id) == before
        refused(ben, {"type": "start"}, "not_host", "only the host")
        refused(ben, {"type": "kick", "seat": 0}, "not_host")
        refused(ben, {"type": "join", "name": "Ben2"}, "already_seated")
        refused(ana, {"type": "add_bot"}, "not_in_lobby")
        refused(ana, {"type": "kick", "seat": 0}, "illegal_action", "host cannot kick")
        refused(ana, {"type": "kick", "seat": 7}, "illegal_action", "no seat 7")

        # A spectator, a forged token, another room's token, no hello.
        spectator = Player(server, room_id)
        refused(spectator, {"type": "declare", "round": 1, "action_id": "s",
                            "declaration": "in"}, "not_seated")
        forged = Player(server, room_id, hello=False)
        refused(forged, {"type": "hello", "protocol": 1, "token": "forged-token"}, "bad_token")
        refused(forged, {"type": "declare", "round": 1, "action_id": "f",
                         "declaration": "in"}, "hello_required")
        refused(forged, {"type": "hello", "protocol": 6}, "unsupported_version")
        other = server.create_room("Zed")
        refused(forged, {"type": "hello", "protocol": 1, "token": other["token"]}, "bad_token")

        # Duplicates: applied once.
        assert ben.declare(1, "in", "ben-1")["type"] == "ack"
        during = snapshot(server, room_id)
        assert ben.declare(1, "in", "ben-1") == {"type": "ack", "action_id": "ben-1",
                                                 "duplicate": True}
        assert ben.declare(1, "out", "ben-1")["duplicate"] is True
        assert snapshot(server, room_id) == during
        ben.send({"type": "declare", "round": 1, "action_id": "ben-again",
                  "declaration": "out"})
        error = ben.expect("error")
        assert error["code"] == "illegal_action" and "already declared" in error["message"]
        assert error["action_id"] == "ben-again"
        assert snapshot(server, room_id) == during

        # A frame over the transport limit (64 KiB) closes that connection only.
        big = Player(server, room_id)
        big.send("x" * 70000)
        with pytest.raises(ConnectionClosed):
            # What was sent to it before the close may come first (the fairness records,
            # room updates, a presence notice whenever one falls due): anything but an
            # error, and the close within a few frames.
            for _ in range(30):
                assert big.recv(30)["type"] != "error"
        ana.send({"type": "ping"})
        assert ana.expect("pong") == {"type": "pong"}


def test_timer_silent_seats_count_as_out(db_url: str) -> None:
    with running_server(db_url, seed_numbers=(1,)) as server:
        room_id, players = seat_three(server, decision_seconds=30)
        start_round(players)
        assert players[0].declare(1, "in")["type"] == "ack"
        # Ana has declared: the clock is made short now (a resume restarts it with the
        # room's setting), so it ends for Ben and Cleo alone however slowly the machine runs.
        room = server.manager.rooms[room_id]
        room.settings = dataclasses.replace(room.settings, decision_seconds=0.6)
        players[0].send({"type": "pause"})
        players[0].send({"type": "resume"})
        revealed = players[1].expect("event", lambda m: m["event"]["type"]
                                     == "DeclarationsRevealed", timeout=30)
        assert revealed["event"]["declarations"] == ["in", "out", "out"]
        resolved = players[1].expect("event", lambda m: m["event"]["type"] == "RoundResolved")
        assert resolved["event"]["outcome"] == "uncontested"
        assert resolved["event"]["won"] == [3, 0, 0]


def test_host_controls_pause_kick_bots_end(db_url: str) -> None:
    with running_server(db_url, seed_numbers=(1, 2, 3, 4, 5)) as server:
        created = server.create_room("Ana", decision_seconds=30)
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"])
        ben = Player(server, room_id)
        ben.send({"type": "join", "name": "Ben"})
        ben_token = ben.expect("seated")["token"]
        ana.send({"type": "add_bot", "style": "cautious"})
        room = ana.expect("room", lambda m: len(m["room"]["seats"]) == 3)["room"]
        assert room["seats"][2] == {"seat": 2, "name": "Ava (bot)", "bot": True, "host": False,
                                    "connected": True, "kicked": False,
                                    "bot_style": "cautious", "away": False,
                                    "back_next_game": False, "muted": False, "chair": 2}
        ana.send({"type": "start"})
        ana.state(lambda t: t["phase"] == "declare" and t["round"] == 1)

        ana.send({"type": "pause"})
        paused = ana.state(lambda t: t["time_left"] is None)
        assert paused["phase"] == "declare"
        assert server.manager.rooms[room_id].paused
        ana.send({"type": "resume"})
        running = ana.state(lambda t: t["time_left"] is not None)
        assert 29 < running["time_left"] <= 30

        # Kick Ben mid-round: his connection becomes a spectator, his token is revoked,
        # and his seat declares out from now on (chips stay his).
        ana.send({"type": "kick", "seat": 1})
        assert ben.expect("kicked") == {"type": "kicked", "seat": 1}
        assert ana.declare(1, "in")["type"] == "ack"
        after = ana.state(lambda t: t["round"] == 2 and t["phase"] == "declare")
        result = after["last_result"]
        assert ben.state()["seat"] == -1
        retry = Player(server, room_id, hello=False)
        retry.send({"type": "hello", "protocol": 1, "token": ben_token})
        assert retry.expect("error")["code"] == "bad_token"
        revealed = [m["event"]["declarations"] for m in ana.log if m["type"] == "event"
                    and m["event"]["type"] == "DeclarationsRevealed"]
        assert revealed[0][0] == "in" and revealed[0][1] == "out"
        assert result["won"][1] == 0 and result["matched"][1] == 0

        ana.send({"type": "end_session"})
        final = ana.state(lambda t: t["phase"] == "over")
        assert sum(final["stacks"]) == 60
        info = server.get(f"/api/rooms/{room_id}").json()
        assert info["status"] == "over" and info["seats"][1]["kicked"] is True
        # His token no longer plays, but still downloads his own records (audit3 finding
        # 4): his seat's view of the history (his hands only) and the openings of his cards.
        mine = server.get(f"/api/rooms/{room_id}/history.jsonl?token={ben_token}")
        assert mine.status_code == 200
        assert [json.loads(line) for line in mine.text.splitlines()] == \
            server.manager.rooms[room_id].history_for(1)
        dealt = [json.loads(line) for line in mine.text.splitlines()
                 if json.loads(line)["type"] == "CardsDealt"]
        assert dealt[0]["hands"][0] == "" and len(dealt[0]["hands"][1].split()) == 3
        papers = server.get(f"/api/rooms/{room_id}/fairness.json?token={ben_token}").json()
        assert papers["seat"] == 1
        assert sorted(o["card"] for o in papers["rounds"][0]["own"]) == \
            sorted(dealt[0]["hands"][1].split())
        assert server.get(f"/api/rooms/{room_id}/fairness.json?token=x{ben_token}"
                          ).status_code == 403
        retry = Player(server, room_id, hello=False)
        retry.send({"type": "hello", "protocol": 1, "token": ben_token})
        assert retry.expect("error")["code"] == "bad_token"
        ana.send({"type": "end_session"})
        assert ana.expect("error")["code"] == "not_playing"


class _FrozenClock:
    """The ``time`` module as :mod:`gutskit.server.app` sees it, with ``monotonic`` at a
    value the test sets (the connections' message windows; asyncio keeps the real one)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def test_rate_limit_and_origin(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import gutskit.server.app as app_module

    clock = _FrozenClock()
    monkeypatch.setattr(app_module, "time", clock)
    with running_server(db_url) as server:
        created = server.create_room("Ana")
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"])
        for _ in range(60):
            ana.send({"type": "ping"})
        clock.now += 0.5  # still in the window: the 60th ping is dropped unanswered
        ana.send({"type": "ping"})
        # A burst of 30 (the hello took one); one error for the 32 dropped after them.
        replies = [ana.expect_any(("pong", "error")) for _ in range(30)]
        assert replies == [{"type": "pong"}] * 29 + [{
            "type": "error", "code": "rate_limited", "action_id": None,
            "message": "more than 30 messages in 3 seconds: this one and the next are "
                       "dropped (this error is sent at most once every 3 seconds)"}]
        clock.now += 3  # the window has passed: a ping is answered again
        ana.send({"type": "ping"})
        assert ana.expect_any(("pong", "error")) == {"type": "pong"}

        with pytest.raises(InvalidStatus):
            Player(server, room_id, origin="http://evil.example")
        own = Player(server, room_id, origin=server.http)
        assert own.seat is None
        missing = Player(server, "no-such-room", hello=False)
        assert missing.recv()["code"] == "no_room"


def test_fuzz_random_messages_change_nothing(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'fuzz.db'}", seed_numbers=(1,)) as server:
        room_id, players = seat_three(server)
        start_round(players)
        ben = players[1]
        assert ben.declare(1, "in", "ben-1")["type"] == "ack"
        # The host pauses: no declaration timer can end the round while the messages go
        # in, however slowly they do on a loaded machine (Ben cannot resume: not_host).
        players[0].send({"type": "pause"})
        ben.expect("room", lambda m: m["room"]["paused"])
        ben.drain()
        before = snapshot(server, room_id)
        assert before[3] is True  # paused
        scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=8))
        messages = st.fixed_dictionaries(
            # ("leave" in play is a real action: the seat leaves for good, test_server_table)
            {"type": st.sampled_from(["hello", "join", "declare", "pass_card",
                                      "add_bot", "kick", "start", "pause", "resume",
                                      "end_session", "bogus", "ping"])},
            optional={"round": scalars, "action_id": scalars, "declaration": st.sampled_from(
                ["in", "out", "high", "IN", ""]), "name": scalars, "seat": scalars,
                "card": scalars, "token": scalars, "protocol": scalars})

        @settings(max_examples=40, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture,
                                         HealthCheck.too_slow])
        @given(message=messages)
        def check(message: dict[str, Any]) -> None:
            time.sleep(0.15)  # well under the rate limit (30 messages in 3 s, with the
            # hello, join and declare before): a dropped message would get no answer
            ben.send(message)
            reply = ben.expect_any(("error", "ack", "pong"))
            if reply["type"] == "ack":
                assert reply["duplicate"] is True
            assert snapshot(server, room_id) == before

        check()
