"""The server side of the online table people expect (issue 10, part 2): the invite QR
code, away / back next game, ..."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import segno
from server_support import Player, running_server, seat_three

from gutskit.server.web import invite_qr_svg


def test_the_invite_qr_code_is_the_rooms_link(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'qr.db'}") as server:
        created = server.create_room("Ana")
        response = server.get(f"/api/rooms/{created['room_id']}/qr.svg")
        assert response.status_code == 200
        assert response.headers["content-type"] == "image/svg+xml"
        # the same drawing as segno's for the room's invite link
        assert response.text == invite_qr_svg(created["url"])
        assert "<svg" in response.text and "<path" in response.text
        assert segno.make_qr(created["url"], error="m").designator == "3-M"  # small
        missing = server.get("/api/rooms/nosuchroom/qr.svg")
        assert missing.status_code == 404
        assert missing.json() == {"detail": "no room 'nosuchroom'"}


def _expect_flags(player: Player, seat: int, away: bool, back: bool) -> None:
    """Wait for the room to show ``seat`` away / coming back next game."""
    player.expect("room", lambda m: (m["room"]["seats"][seat]["away"],
                                     m["room"]["seats"][seat]["back_next_game"]) == (away, back))


def _table(player: Player, round_number: int, phase: str) -> dict[str, Any]:
    """The table view of ``round_number`` in ``phase`` (received already, or next)."""
    for message in player.log:
        table: dict[str, Any] = message.get("table") or {}
        if message["type"] == "state" and (table["round"], table["phase"]) == (
                round_number, phase):
            return table
    return player.state(lambda t: (t["round"], t["phase"]) == (round_number, phase))


def _events(player: Player, kind: str) -> list[dict[str, Any]]:
    return [m["event"] for m in player.log if m["type"] == "event"
            and m["event"]["type"] == kind]


def test_away_seat_is_dealt_out_and_comes_back_for_the_next_game(tmp_path: Path) -> None:
    # Seeds 1, 2, 3: three-card Guts, dealer Ana. Round 1: Ana (pair of tens) and Ben in,
    # Cleo out: Ben matches, the pot stays 3: the game goes on. Cleo goes away during
    # round 1 and comes back at once (she has missed no round: session 10), then goes away
    # again: she is dealt out of round 2 and, having missed a round, asks to come back:
    # listed (Ana in alone takes the pot: the game is won) and back for round 3, a new game.
    with running_server(f"sqlite:///{tmp_path / 'away.db'}", seed_numbers=(1, 2, 3)
                        ) as server:
        room_id, (ana, ben, cleo) = seat_three(server, seed_reveal="round")
        ana.send({"type": "start"})
        _table(cleo, 1, "declare")
        spectator = Player(server, room_id)
        spectator.send({"type": "sit_out"})
        assert spectator.expect("error")["code"] == "not_seated"
        cleo.send({"type": "sit_out"})
        _expect_flags(cleo, 2, True, False)
        assert _events(cleo, "SeatAway") == [{"type": "SeatAway", "seat": 2}]
        cleo.send({"type": "sit_out"})
        assert cleo.expect("error")["message"] == "'Cleo' is already away"
        cleo.send({"type": "come_back"})  # dealt into round 1: back at once, not listed
        _expect_flags(cleo, 2, False, False)
        cleo.send({"type": "sit_out"})
        _expect_flags(cleo, 2, True, False)
        assert cleo.declare(1, "out")["type"] == "ack"  # round 1 is played out
        assert ana.declare(1, "in")["type"] == "ack"
        assert ben.declare(1, "in")["type"] == "ack"
        table = _table(cleo, 1, "deal")
        assert table["pot"] == 3 and table["stacks"] == [22, 16, 19]
        table = _table(cleo, 2, "declare")
        assert table["dealt_in"] == [True, True, False] and table["hand"] is None
        cleo.send({"type": "come_back"})  # a round missed, the game goes on: the next one
        _expect_flags(cleo, 2, True, True)
        assert ana.declare(2, "in")["type"] == "ack"
        assert ben.declare(2, "out")["type"] == "ack"
        table = _table(cleo, 3, "declare")
        assert table["dealt_in"] == [True, True, True] and len(table["hand"]) == 3
        assert _events(cleo, "SeatBack") == [{"type": "SeatBack", "seat": 2}] * 2
        antes = _events(cleo, "AntesPosted")
        assert [a["amounts"] for a in antes] == [[1, 1, 1], [1, 1, 1]]  # rounds 1 and 3
        assert antes[-1]["new_game"]
        info = server.get(f"/api/rooms/{room_id}").json()
        assert [(s["away"], s["back_next_game"]) for s in info["seats"]] == [(False, False)] * 3
        cleo.send({"type": "come_back"})
        assert cleo.expect("error")["message"] == "'Cleo' is not away"
        for player in (ana, ben, cleo, spectator):
            player.close()


def test_bots_by_style_and_strength_play_and_show_their_style(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'bots.db'}", seed_numbers=(1, 2, 3)
                        ) as server:
        created = server.create_room("Ana")
        ana = Player(server, created["room_id"], created["token"])
        styles = ["equilibrium", "standard", "exploitative", "cautious", "loose"]
        for style in styles:
            ana.send({"type": "add_bot", "style": style})
        ana.send({"type": "add_bot", "style": "shark"})
        error = ana.expect("error")
        assert error["code"] == "bad_message" and "shark" in error["message"]
        info = server.get(f"/api/rooms/{created['room_id']}").json()
        assert [s["bot_style"] for s in info["seats"]] == [None, *styles]
        assert [s["name"] for s in info["seats"][1:3]] == ["Ava (bot)", "Bruno (bot)"]
        ana.send({"type": "start"})
        for number in (1, 2):  # every bot declares; the rounds resolve
            _table(ana, number, "declare")
            assert ana.declare(number, "out")["type"] == "ack"
            table = _table(ana, number, "deal")  # every bot declared: the round resolved
            assert len(_events(ana, "RoundResolved")) == number
            assert sum(table["stacks"]) + table["pot"] == 6 * 20  # no chip made or lost
        ana.close()


def test_chat_reactions_mute_and_the_chat_limits(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'chat.db'}",
                        # a window longer than a loaded machine takes to get from Ben's
                        # first line to his fourth (over 10 s at load 30 is possible)
                        chat_limit="3/600 seconds;100/minute") as server:
        room_id, (ana, ben, cleo) = seat_three(server)
        watcher = Player(server, room_id)
        ben.send({"type": "chat", "text": "  <b>hi</b> all  "})
        line = {"type": "chat", "seq": 1, "seat": 1, "name": "Ben", "text": "<b>hi</b> all",
                "emoji": None}
        for player in (ana, ben, cleo, watcher):  # everyone hears it, spectators too
            assert player.expect("chat") == line
        cleo.send({"type": "react", "emoji": "🔥"})
        assert watcher.expect("chat") == {"type": "chat", "seq": 2, "seat": 2,
                                          "name": "Cleo", "text": None, "emoji": "🔥"}
        # Spectators read but do not write; bad lines and reactions are refused.
        watcher.send({"type": "chat", "text": "let me in"})
        assert watcher.expect("error")["code"] == "not_seated"
        cleo.send({"type": "react", "emoji": "<script>"})
        assert cleo.expect("error")["code"] == "bad_message"
        cleo.send({"type": "chat", "text": "x" * 201})
        error = cleo.expect("error")
        assert error["code"] == "bad_message" and "at most 200 characters" in error["message"]
        cleo.send({"type": "chat", "text": "bell\u0007"})
        assert cleo.expect("error")["code"] == "bad_message"
        cleo.send({"type": "chat", "text": "   "})
        assert cleo.expect("error")["code"] == "bad_message"
        # The limit (3 per 600 s here) is per seat: Ben's fourth line is refused, Ana's
        # first is not.
        ben.send({"type": "chat", "text": "two"})
        ben.send({"type": "react", "emoji": "👍"})
        ben.send({"type": "chat", "text": "four"})
        error = ben.expect("error")
        assert error == {"type": "error", "code": "rate_limited",
                         "message": "a seat may chat at most 3 lines per 600 seconds: this "
                                    "line and the next are dropped (this error is sent at "
                                    "most once every 60 seconds)",
                         "action_id": None}
        ana.send({"type": "chat", "text": "calm down"})
        assert ana.expect("chat", lambda m: m["seat"] == 0)["seq"] == 5
        # The host mutes Cleo: the room says so and her lines are refused.
        ben.send({"type": "mute", "seat": 2})
        assert ben.expect("error")["code"] == "not_host"
        ana.send({"type": "mute", "seat": 2})
        ana.expect("room", lambda m: m["room"]["seats"][2]["muted"])
        cleo.send({"type": "chat", "text": "hello?"})
        assert cleo.expect("error") == {"type": "error", "code": "muted",
                                        "message": "the host muted your chat",
                                        "action_id": None}
        ana.send({"type": "mute", "seat": 0})
        assert ana.expect("error")["message"] == "the host cannot mute themself"
        ana.send({"type": "mute", "seat": 2, "muted": False})
        ana.expect("room", lambda m: not m["room"]["seats"][2]["muted"])
        cleo.send({"type": "chat", "text": "thanks"})
        assert cleo.expect("chat", lambda m: m["seat"] == 2)["text"] == "thanks"
        # A later connection gets the recent chat in its welcome; chat is not game state:
        # no event, nothing in the hand history.
        late = Player(server, room_id)
        chat = late.log[0]["chat"]
        assert [(c["seq"], c["text"], c["emoji"]) for c in chat] == [
            (1, "<b>hi</b> all", None), (2, None, "🔥"), (3, "two", None), (4, None, "👍"),
            (5, "calm down", None), (6, "thanks", None)]
        ana.send({"type": "start"})
        ana.expect("state")
        assert not [m for m in ana.log if m["type"] == "event" and "chat" in str(m).lower()]
        history = server.get(f"/api/rooms/{room_id}/history.jsonl").text
        assert "<b>" not in history and "thanks" not in history and "🔥" not in history
        for player in (ana, ben, cleo, watcher, late):
            player.close()


def test_the_decision_clock_is_sent_for_the_seats_to_act(tmp_path: Path) -> None:
    # Sequential declaration (the Indonesian rule book), dealer Ana: Ben, Cleo, Ana in
    # turn. Each turn has its own clock of decision_seconds (no time bank: unused time is
    # not kept); at zero the seat makes the table's default (out: core.table.time_out).
    # The clocks are long (60 s: a loaded machine answers well within them, and a clock
    # read a few seconds late is still told from a fresh one) but for Cleo's, made short
    # while she is to act (a resume restarts the clock with the room's setting).
    with running_server(f"sqlite:///{tmp_path / 'clock.db'}", seed_numbers=(1, 2)) as server:
        room_id, (ana, ben, cleo) = seat_three(server, rules={"preset": "indonesian"},
                                               decision_seconds=60)
        watcher = Player(server, room_id)
        ana.send({"type": "start"})
        first = watcher.state(lambda t: t["phase"] == "declare")
        assert first["to_act"] == [1] and 0 < first["time_left"] <= 60
        assert ben.declare(1, "in")["type"] == "ack"
        second = watcher.state(lambda t: t["to_act"] == [2])
        assert 50 < second["time_left"] <= 60  # Cleo's own clock, started in full
        room = server.manager.rooms[room_id]
        room.settings = dataclasses.replace(room.settings, decision_seconds=4)
        ana.send({"type": "pause"})
        ana.send({"type": "resume"})
        watcher.expect("room", lambda m: m["room"]["paused"])
        watcher.expect("room", lambda m: not m["room"]["paused"])  # Cleo's clock: 4 s
        room.settings = dataclasses.replace(room.settings, decision_seconds=60)  # Ana's
        timeout = watcher.expect("timeout")  # Cleo says nothing: the clock decides
        assert timeout == {"type": "timeout", "round": 1, "seats": [2]}
        # (the timeout message comes after the change's events and views)
        third = next(m["table"] for m in watcher.log if m["type"] == "state"
                     and m["table"]["to_act"] == [0] and m["table"]["round"] == 1)
        assert 50 < third["time_left"] <= 60 and third["declarations"][2] == "out"
        answer = ana.declare(1, "out")
        assert answer["type"] == "ack", answer
        between = watcher.state(lambda t: t["phase"] == "deal" and t["round"] == 1)
        assert between["time_left"] is None and between["to_act"] == []
        for player in (ana, ben, cleo, watcher):
            player.close()


def test_an_uncontested_winner_may_show_the_cards(tmp_path: Path) -> None:
    # Test seed 1, three cards, dealer Ana: Ana Ts Td Qc, Ben Qd Jh 7h, Cleo Ah 6c 2h.
    # Ana in alone takes the pot without showing (RULES.md "Resolve"); she then chooses
    # to show: everyone, spectators too, sees the HandShown event; nobody else may show.
    with running_server(f"sqlite:///{tmp_path / 'show.db'}", seed_numbers=(1, 2)) as server:
        room_id, (ana, ben, cleo) = seat_three(server, seed_reveal="round", reveal_seconds=30)
        watcher = Player(server, room_id)
        ana.send({"type": "start"})
        _table(ana, 1, "declare")
        assert ben.declare(1, "out")["type"] == "ack"
        assert cleo.declare(1, "out")["type"] == "ack"
        assert ana.declare(1, "in")["type"] == "ack"
        tables = [_table(p, 1, "deal") for p in (ana, ben, cleo, watcher)]
        assert [t["can_show"] for t in tables] == [True, False, False, False]
        assert tables[3]["last_result"]["shown"] == [None, None, None]  # won unseen
        ben.send({"type": "show_hand"})
        error = ben.expect("error")
        assert error["code"] == "illegal_action" and "did not win" in error["message"]
        ana.send({"type": "show_hand"})
        for player in (ana, ben, cleo, watcher):
            event = player.expect("event", lambda m: m["event"]["type"] == "HandShown")
            assert event["event"] == {"type": "HandShown", "seat": 0, "hand": "Ts Td Qc"}
        assert not ana.state()["can_show"]
        ana.send({"type": "show_hand"})
        assert ana.expect("error")["message"] == "'Ana' has already shown their cards"
        watcher.send({"type": "show_hand"})
        assert watcher.expect("error")["code"] == "not_seated"
        history = server.get(f"/api/rooms/{room_id}/history.jsonl").text  # a spectator's
        assert '{"type":"HandShown","seat":0,"hand":"Ts Td Qc"}' in history
        for player in (ana, ben, cleo, watcher):
            player.close()
