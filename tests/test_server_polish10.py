"""A chat flood gets one ``rate_limited`` error per window, as any flood does (attack9 L2:
one error frame per dropped chat line)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server_support import running_server, seat_three


def test_a_chat_flood_gets_one_error_not_one_per_dropped_line(tmp_path: Path) -> None:
    # 3 lines per 600 s (a window no loaded machine outlasts): Ben's lines 4 to 8 (chat
    # and reactions) are dropped with one error; his ping after them is answered (the
    # replies to one connection's messages come in the order it sent them).
    with running_server(f"sqlite:///{tmp_path / 'flood.db'}",
                        chat_limit="3/600 seconds;100/minute") as server:
        _, (ana, ben, cleo) = seat_three(server)
        for number in range(1, 4):
            ben.send({"type": "chat", "text": f"line {number}"})
        for number in range(4, 9):
            ben.send({"type": "chat", "text": f"line {number}"} if number % 2
                     else {"type": "react", "emoji": "👍"})
        ben.send({"type": "ping"})
        replies: list[dict[str, Any]] = []
        while not replies or replies[-1]["type"] != "pong":
            replies.append(ben.expect_any(("error", "pong")))
        assert replies == [
            {"type": "error", "code": "rate_limited", "action_id": None,
             "message": "a seat may chat at most 3 lines per 600 seconds: this line and the "
                        "next are dropped (this error is sent at most once every 60 "
                        "seconds)"},
            {"type": "pong"}]
        # the dropped lines took no place in the chat: Ana's next line is the fourth
        ana.send({"type": "chat", "text": "calm down"})
        assert ana.expect("chat", lambda m: m["seat"] == 0)["seq"] == 4
        for player in (ana, ben, cleo):
            player.close()


def test_a_client_seed_with_an_action_id_is_acknowledged(tmp_path: Path) -> None:
    # attack9 O1: a seed was never acknowledged. With an action_id it is answered ack once
    # taken and stored; a refused one echoes its id; one without an id gets no answer (the
    # ping sent after it is answered first); both seeds are mixed into round 1's deal.
    with running_server(f"sqlite:///{tmp_path / 'seed.db'}", seed_numbers=(1,)) as server:
        _, (ana, ben, cleo) = seat_three(server)
        # round 1 is committed in the lobby, at the room's creation: seeds are taken now
        ana.send({"type": "client_seed", "round": 1, "seed": "a1" * 16, "action_id": "s1"})
        assert ana.expect_any(("ack", "error")) == {
            "type": "ack", "action_id": "s1", "duplicate": False}
        ana.send({"type": "client_seed", "round": 1, "seed": "b2" * 16, "action_id": "s2"})
        assert ana.expect_any(("ack", "error")) == {
            "type": "error", "code": "already_seeded", "action_id": "s2",
            "message": "seat 0 already sent its seed for round 1"}
        ben.send({"type": "client_seed", "round": 1, "seed": "c3" * 16})
        ben.send({"type": "ping"})
        assert ben.expect_any(("ack", "error", "pong")) == {"type": "pong"}
        ana.send({"type": "start"})
        dealt = ana.expect("deal_seeds")
        assert dealt["round"] == 1 and dealt["client_seeds"] == ["a1" * 16, "c3" * 16, None]
        for player in (ana, ben, cleo):
            player.close()
