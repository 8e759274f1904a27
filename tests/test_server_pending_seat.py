"""A lobby seat request still waiting for the host when the session starts becomes a
request for the next session, and the requester is told so (audit3 finding 3): a second
``seat_pending`` with ``next_game: true``, over WebSocket against a real server."""

from __future__ import annotations

from pathlib import Path

from server_support import Player, running_server


def test_a_pending_lobby_request_is_told_it_waits_for_the_next_session(
        tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'pending.db'}") as server:
        created = server.create_room("Ana", approve_seats=True)
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"])
        ana.send({"type": "add_bot", "style": "cautious"})
        ana.expect("room", lambda m: len(m["room"]["seats"]) == 2)
        ben = Player(server, room_id)
        ben.send({"type": "join", "name": "Ben", "seat": 3})
        pending = ben.expect("seat_pending")
        assert pending == {"type": "seat_pending", "request": 1, "chair": 3,
                           "next_game": False, "token": pending["token"]}
        assert len(pending["token"]) == 32  # secrets.token_urlsafe(24)
        ana.expect("room", lambda m: m["room"]["seat_requests"])
        ana.send({"type": "start"})
        assert ben.expect("seat_pending") == {"type": "seat_pending", "request": 1,
                                              "chair": 3, "next_game": True,
                                              "token": pending["token"]}  # the same request
        room = ana.expect("room", lambda m: m["room"]["status"] == "playing")["room"]
        assert room["seat_requests"] == [{"request": 1, "name": "Ben", "chair": 3,
                                          "next_game": True, "approved": False}]
        assert ben.seat is None
