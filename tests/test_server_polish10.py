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
