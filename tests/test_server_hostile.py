"""Regression tests of what a hostile tester found in online play (issue 5): a kick of a
seat that has already declared, rules that cannot start a session, engine refusals in
host commands, acks of host commands, error formats of ``POST /api/rooms``, look-alike
names and ``pass_card`` outside Pass the Trash."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import (
    DB_KINDS,
    Player,
    Server,
    make_db_url,
    running_server,
    seat_three,
)
from websockets.exceptions import InvalidStatus

from gutskit.core.rules import rules_from_mapping


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh SQLite database, and PostgreSQL when GUTSKIT_TEST_PG_URL is set."""
    with make_db_url(request.param, tmp_path) as url:
        yield url


def post_room(server: Server, **fields: Any) -> httpx.Response:
    body = {"host_name": "Ana", "buy_in": 20, "decision_seconds": 30, "reveal_seconds": 0,
            **fields}
    return server.post("/api/rooms", body)


def test_kicking_a_seat_that_has_declared(db_url: str) -> None:
    # Seed 1, dealer Ana: Ben Qd Jh 7h, Cleo Ah 6c 2h, Ana Ts Td Qc; antes: pot 3.
    with running_server(db_url, seed_numbers=(1,)) as server:
        room_id, (ana, ben, cleo) = seat_three(server)
        ana.send({"type": "start"})
        for player in (ana, ben, cleo):
            player.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
        assert ben.declare(1, "in")["type"] == "ack"
        ana.send({"type": "kick", "seat": 1})
        room = ana.expect("room", lambda m: m["room"]["seats"][1]["kicked"])["room"]
        assert room["status"] == "playing"
        assert ben.expect("kicked") == {"type": "kicked", "seat": 1}
        assert cleo.expect("room", lambda m: m["room"]["seats"][1]["kicked"])
        # Ben's call stands; the round goes on and resolves: Ana's tens beat Ben's queen.
        assert ana.declare(1, "in")["type"] == "ack"
        assert cleo.declare(1, "out")["type"] == "ack"
        resolved = ana.expect("event", lambda m: m["event"]["type"] == "RoundResolved")
        assert resolved["event"]["won"] == [3, 0, 0]
        assert resolved["event"]["matched"] == [0, 3, 0]
        assert server.manager.rooms[room_id].state is not None


@pytest.mark.parametrize(("rules", "message"), [
    ({"min_buy_in": 50}, "min_buy_in: the buy-in of 20 is below the minimum buy-in of 50"),
    ({"ante": 30}, "ante: an ante of 30 is more than the buy-in of 20"),
])
def test_rules_that_cannot_start_are_refused_at_creation(
        db_url: str, rules: dict[str, Any], message: str) -> None:
    with running_server(db_url) as server:
        response = post_room(server, rules=rules)
        assert response.status_code == 400
        assert response.json() == {"code": "bad_rules", "message": message}
        assert server.manager.rooms == {}


def test_an_engine_refusal_in_a_host_command_is_an_error_message(db_url: str) -> None:
    with running_server(db_url) as server:
        room_id, (ana, _ben, _cleo) = seat_three(server)
        room = server.manager.rooms[room_id]
        # A room stored before the creation checks existed: its rules cannot start.
        room.settings = dataclasses.replace(
            room.settings, rules=rules_from_mapping({"min_buy_in": 50}))
        ana.send({"type": "start"})
        error = ana.expect("error")
        assert error == {"type": "error", "code": "illegal_action", "action_id": None,
                         "message": "buy-in of 'Ana' is 20 chips, below the minimum "
                                    "buy-in of 50"}
        ana.send({"type": "ping"})
        assert ana.expect("pong") == {"type": "pong"}
        assert room.status == "lobby" and room.state is None


def test_create_room_errors_are_one_line_naming_the_field(db_url: str) -> None:
    with running_server(db_url) as server:
        response = post_room(server, buy_in=0, decision_seconds="30")
        assert response.status_code == 400
        assert response.json() == {"code": "bad_message", "message": (
            "buy_in: input should be greater than or equal to 1 (got 0); decision_seconds: "
            'input should be a valid number (got "30")')}
        response = httpx.post(f"{server.http}/api/rooms", content=b"[1]", timeout=60,
                              headers={"Origin": server.http,
                                       "Content-Type": "application/json"})
        assert response.status_code == 400
        assert response.json() == {"code": "bad_message",
                                   "message": "body: input should be an object (got [1])"}
        # The WebSocket's Origin check is an HTTP 403 at the handshake (docs/protocol.md).
        room_id = post_room(server).json()["room_id"]
        with pytest.raises(InvalidStatus) as refused:
            Player(server, room_id, origin="http://evil.example")
        assert refused.value.response.status_code == 403


def test_look_alike_names_are_taken(db_url: str) -> None:
    """Full-width letters (NFKC), case and homoglyphs from another script (audit 2: a
    Cyrillic "Аna" sat beside "Ana") are taken; a human may not take a bot's name."""
    with running_server(db_url) as server:
        created = server.create_room("Host")
        guest = Player(server, created["room_id"])

        def refused(name: str) -> tuple[str, str]:
            guest.send({"type": "join", "name": name})
            error = guest.expect("error")
            return error["code"], error["message"]

        assert refused("\uff28\uff4f\uff53\uff54") == (  # full-width Host
            "name_taken", "another seat is called 'Host', which looks like "
            "'\uff28\uff4f\uff53\uff54'")
        assert refused("host") == ("name_taken", "another seat is called 'Host', which "
                                   "looks like 'host'")
        assert refused("H\u0301ost") == (  # a combining accent (audit3 finding 5)
            "name_taken", "another seat is called 'Host', which looks like 'H\u0301ost'")
        guest.send({"type": "join", "name": "Ana"})
        assert guest.expect("seated")["seat"] == 1
        other = Player(server, created["room_id"])
        other.send({"type": "join", "name": "\u0410na"})  # Cyrillic capital A
        error = other.expect("error")
        assert (error["code"], error["message"]) == (
            "name_taken", "another seat is called 'Ana', which looks like '\u0410na'")
        for name in ("Zed (bot)", "Zed [BOT]", "Zed (b0t)", "Zed (\u0299\u1d0f\u1d1b)",
                     "Bot 3"):
            other.send({"type": "join", "name": name})
            error = other.expect("error")
            assert (error["code"], error["message"]) == (
                "bad_name", f"name {name!r} reads as a bot's name: only the server's bots "
                'are called "... (bot)" or "Bot N"'), name
        other.send({"type": "join", "name": "Abbot"})  # a name, not a bot
        assert other.expect("seated")["seat"] == 2
        # the host's name too, when the room is created
        answer = post_room(server, host_name="Zed (bot)")
        assert answer.status_code == 400
        assert "name 'Zed (bot)' reads as a bot's name" in answer.text
        for player in (guest, other):
            player.close()


def test_pass_card_outside_pass_the_trash_is_an_illegal_action(db_url: str) -> None:
    # Seed 1 commits round 1 of the first room, 2 its round 2, 1 round 1 of the second.
    with running_server(db_url, seed_numbers=(1, 2, 1)) as server:
        _, players = seat_three(server)
        players[0].send({"type": "start"})
        players[1].state(lambda t: t["phase"] == "declare")
        players[1].send({"type": "pass_card", "round": 1, "action_id": "p1", "card": "Qd"})
        error = players[1].expect("error")
        assert (error["code"], error["message"]) == (
            "illegal_action", "this room does not pass cards (Pass the Trash is off)")

        # Pass the Trash, seed 1: Ben Qd Jh 7h, Cleo Ah 6c 2h, Ana Ts Td Qc. After the
        # exchange round 1 is declared: a pass now is not a late one, it is the wrong phase.
        _, players = seat_three(server, rules={"pass_the_trash": True})
        players[0].send({"type": "start"})
        for player, card in zip(players, ("Ts", "7h", "2h"), strict=True):
            player.state(lambda t: t["phase"] == "pass")
            player.send({"type": "pass_card", "round": 1, "action_id": f"p{player.seat}",
                         "card": card})
            assert player.expect_any(("ack", "error"))["type"] == "ack"
        ben = players[1]
        ben.state(lambda t: t["phase"] == "declare")
        ben.send({"type": "pass_card", "round": 1, "action_id": "again", "card": "Qd"})
        error = ben.expect("error")
        assert (error["code"], error["message"]) == (
            "illegal_action", "round 1 is not in the pass phase (it is in the declare phase)")
