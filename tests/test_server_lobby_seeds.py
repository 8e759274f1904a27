"""Client seeds sent in the lobby follow their sender when the seats renumber (audit3
finding 2), over WebSocket against a real server: a later join at a lower chair moves a
seeded player up one seat number, and a lobby kick moves the seats after it down one.
The seed must stay with the player who sent it (and leave with a kicked one): the
player now holding the old number may still send its own, the moved player may not send
a second one, and ``deal_seeds`` lists each seed under its sender's seat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server_support import Player, Server, running_server

ANN, BOB, CY = "a1" * 16, "b2" * 16, "c3" * 16


def join(server: Server, room_id: str, name: str, chair: int) -> Player:
    player = Player(server, room_id, protocol=2)
    player.send({"type": "join", "name": name, "seat": chair})
    seated = player.expect("seated")
    player.seat, player.token = seated["seat"], seated["token"]
    return player


def seed(player: Player, value: str) -> None:
    player.send({"type": "client_seed", "round": 1, "seed": value})


def refused(player: Player, value: str) -> tuple[str, str]:
    seed(player, value)
    error: dict[str, Any] = player.expect("error")
    return error["code"], error["message"]


def test_a_lobby_seed_follows_its_sender_when_a_lower_chair_is_taken(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'shift.db'}") as server:
        created = server.create_room("Host")
        host = Player(server, created["room_id"], created["token"], protocol=2)
        ann = join(server, created["room_id"], "Ann", chair=5)
        assert ann.seat == 1
        seed(ann, ANN)
        assert refused(ann, "00" * 16) == ("already_seeded",
                                           "seat 1 already sent its seed for round 1")
        bob = join(server, created["room_id"], "Bob", chair=2)
        assert bob.seat == 1  # Bob sits between the host (chair 0) and Ann (chair 5)
        assert ann.expect("welcome")["seat"] == 2
        seed(bob, BOB)  # seat 1's number held no seed of Bob's: taken
        assert refused(bob, "00" * 16) == ("already_seeded",
                                           "seat 1 already sent its seed for round 1")
        assert refused(ann, "00" * 16) == ("already_seeded",
                                           "seat 2 already sent its seed for round 1")
        host.send({"type": "start"})
        dealt = host.expect("deal_seeds")
        assert (dealt["round"], dealt["client_seeds"]) == (1, [None, BOB, ANN])


def test_a_kicked_lobby_seat_takes_its_seed_away(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'kick.db'}") as server:
        created = server.create_room("Host")
        host = Player(server, created["room_id"], created["token"], protocol=2)
        ann = join(server, created["room_id"], "Ann", chair=3)
        cy = join(server, created["room_id"], "Cy", chair=6)
        assert (ann.seat, cy.seat) == (1, 2)
        seed(ann, ANN)
        assert refused(ann, "00" * 16)[0] == "already_seeded"
        host.send({"type": "kick", "seat": 1})
        assert ann.expect("kicked")["seat"] == 1
        assert cy.expect("welcome")["seat"] == 1
        seed(cy, CY)  # Ann's seed left with her: Cy's own is taken
        assert refused(cy, "00" * 16) == ("already_seeded",
                                          "seat 1 already sent its seed for round 1")
        host.send({"type": "start"})
        dealt = host.expect("deal_seeds")
        assert (dealt["round"], dealt["client_seeds"]) == (1, [None, CY])
