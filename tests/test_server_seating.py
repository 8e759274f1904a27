"""Seating and rematch of the online table (issue 10, part 2), over WebSocket against a
real server: seat choice when joining (chairs 0-9 clockwise), host approval of who sits
down, spectators who ask to sit for the next session, and the rematch with the ledger
carried or reset. Stacks and ledgers are worked out by hand in the comments (default
rules: ante 1 from every seat when the pot is empty, one player in takes the pot
uncontested; buy-in 20; the first dealer is seat 0). Each session's downloads pass
``guts verify``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server_support import Player, Server, running_server
from typer.testing import CliRunner

from gutskit.cli.app import app

RUNNER = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": "120",
                        "GUTSKIT_DB": None})


def join(server: Server, room_id: str, name: str, seat: int | None = None) -> Player:
    """A spectator who joins as ``name`` (at chair ``seat``) and is seated at once."""
    player = Player(server, room_id)
    message: dict[str, Any] = {"type": "join", "name": name}
    if seat is not None:
        message["seat"] = seat
    player.send(message)
    seated = player.expect("seated")
    player.seat, player.token = seated["seat"], seated["token"]
    return player


def error_of(player: Player, message: dict[str, Any]) -> tuple[str, str]:
    player.send(message)
    error = player.expect("error")
    return error["code"], error["message"]


def room_of(player: Player) -> dict[str, Any]:
    """The room as the last ``room``/``welcome`` message said."""
    last = next(m for m in reversed(player.log) if m["type"] in ("room", "welcome"))
    room: dict[str, Any] = last["room"]
    return room


def chairs(room: dict[str, Any]) -> list[tuple[int, str, int]]:
    return [(s["seat"], s["name"], s["chair"]) for s in room["seats"]]


def table(player: Player, round_number: int, phase: str) -> dict[str, Any]:
    for message in player.log:
        view: dict[str, Any] = message.get("table") or {}
        if message["type"] == "state" and (view["round"], view["phase"]) == (
                round_number, phase):
            return view
    return player.state(lambda t: (t["round"], t["phase"]) == (round_number, phase))


def verify(server: Server, room_id: str, token: str, tmp_path: Path) -> list[str]:
    """``guts verify`` of the room's downloads (fairness.json and history.jsonl with the
    seat's token); the report's lines."""
    folder = tmp_path / room_id
    folder.mkdir()
    fairness = server.get(f"/api/rooms/{room_id}/fairness.json?token={token}")
    history = server.get(f"/api/rooms/{room_id}/history.jsonl?token={token}")
    assert fairness.status_code == history.status_code == 200
    (folder / "fairness.json").write_text(fairness.text)
    (folder / "history.jsonl").write_text(history.text)
    done = RUNNER.invoke(app, ["verify", str(folder / "fairness.json"), "--history",
                               str(folder / "history.jsonl")])
    assert done.exit_code == 0, done.output
    return done.stdout.splitlines()


def test_a_joining_player_picks_a_free_seat_and_the_seat_order_is_clockwise(
        tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'chairs.db'}") as server:
        created = server.create_room("Ana")
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"])
        ben = join(server, room_id, "Ben", seat=4)
        assert ben.seat == 1
        cleo = join(server, room_id, "Cleo", seat=2)
        # Cleo sits between Ana and Ben: she is seat 1 of the seat order, Ben moves to 2
        assert cleo.seat == 1
        assert ben.expect("welcome")["seat"] == 2
        assert chairs(ana.expect("room", lambda m: len(m["room"]["seats"]) == 3)["room"]) == [
            (0, "Ana", 0), (1, "Cleo", 2), (2, "Ben", 4)]
        dee = Player(server, room_id)
        assert error_of(dee, {"type": "join", "name": "Dee", "seat": 4}) == (
            "seat_taken", "seat 4 is taken by 'Ben'")
        assert error_of(dee, {"type": "join", "name": "Dee", "seat": 12}) == (
            "bad_message", "join.seat: input should be less than or equal to 9 (got 12)")
        assert error_of(dee, {"type": "join", "name": "Dee", "seat": "3"}) == (
            "bad_message", 'join.seat: input should be a valid integer (got "3")')
        assert error_of(dee, {"type": "join", "name": "Dee", "seat": -1})[0] == "bad_message"
        # no seat asked for: the lowest free chair (1)
        dee.send({"type": "join", "name": "Dee"})
        assert dee.expect("seated")["seat"] == 1
        assert chairs(ana.expect("room", lambda m: len(m["room"]["seats"]) == 4)["room"]) == [
            (0, "Ana", 0), (1, "Dee", 1), (2, "Cleo", 2), (3, "Ben", 4)]
        # Cleo leaves the lobby: her chair is free again, the others keep theirs
        cleo.send({"type": "leave"})
        assert chairs(ana.expect("room", lambda m: len(m["room"]["seats"]) == 3)["room"]) == [
            (0, "Ana", 0), (1, "Dee", 1), (2, "Ben", 4)]
        # Ben's reconnect with his token finds his seat number as it is now
        again = Player(server, room_id, ben.token)
        assert again.seat == 2
        ana.send({"type": "start"})
        started = ana.expect("event", lambda m: m["event"]["type"] == "SessionStarted")
        # the session's seat order is the clockwise order of the chairs
        assert started["event"]["names"] == ["Ana", "Dee", "Ben"]
        late = Player(server, room_id)
        assert error_of(late, {"type": "join", "name": "Eve", "seat": 4}) == (
            "seat_taken", "seat 4 is taken by 'Ben'")
        # seat requests count against the connection's message limit like any other
        # (one rate_limited error for the requests dropped in a window; 100 at once, so
        # that more than 30 reach the server within 3 s however slowly it reads them)
        for _ in range(100):
            late.send({"type": "join", "name": "Eve", "seat": 4})
        codes = [late.expect("error")["code"]]
        while codes[-1] != "rate_limited":
            codes.append(late.expect("error")["code"])
        assert set(codes[:-1]) == {"seat_taken"}


def test_host_approval_of_who_sits_down(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'approve.db'}") as server:
        created = server.create_room("Ana", approve_seats=True)
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"])
        assert room_of(ana)["approve_seats"] is True
        ben = Player(server, room_id)
        ben.send({"type": "join", "name": "Ben", "seat": 3})
        pending = ben.expect("seat_pending")
        assert pending == {"type": "seat_pending", "request": 1, "chair": 3,
                           "next_game": False, "token": pending["token"]}
        assert ben.seat is None
        # the host and the table see the request: a name and a chair
        asked = ana.expect("room", lambda m: m["room"]["seat_requests"])["room"]
        assert asked["seat_requests"] == [{"request": 1, "name": "Ben", "chair": 3,
                                           "next_game": False, "approved": False}]
        assert len(asked["seats"]) == 1
        assert error_of(ben, {"type": "join", "name": "Ben", "seat": 4}) == (
            "already_asked", "this connection already waits for an answer to its seat request")
        cleo = Player(server, room_id)
        assert error_of(cleo, {"type": "join", "name": "Cleo", "seat": 3}) == (
            "seat_taken", "seat 3 is taken by 'Ben'")
        assert error_of(cleo, {"type": "join", "name": "ben"})[0] == "name_taken"
        assert error_of(cleo, {"type": "approve_seat", "request": 1}) == (
            "not_host", "only the host may approve seat")
        assert error_of(ana, {"type": "approve_seat", "request": 9}) == (
            "illegal_action", "there is no seat request 9")
        assert error_of(ana, {"type": "approve_seat", "request": "1"})[0] == "bad_message"
        ana.send({"type": "approve_seat", "request": 1})
        seated = ben.expect("seated")
        assert seated["seat"] == 1
        assert seated["token"] == pending["token"]  # the request's token holds the seat
        room = ana.expect("room", lambda m: len(m["room"]["seats"]) == 2)["room"]
        assert room["seat_requests"] == []
        assert chairs(room) == [(0, "Ana", 0), (1, "Ben", 3)]
        # Cleo asks and is refused: she watches on, and may ask again
        cleo.send({"type": "join", "name": "Cleo"})
        pending = cleo.expect("seat_pending")
        assert pending["chair"] == 1  # the lowest free chair
        ana.send({"type": "deny_seat", "request": pending["request"]})
        assert cleo.expect("seat_refused") == {
            "type": "seat_refused", "request": 2, "reason": "the host did not give you a seat"}
        assert ana.expect("room", lambda m: not m["room"]["seat_requests"])
        cleo.send({"type": "chat", "text": "hello"})
        assert cleo.expect("error")["code"] == "not_seated"  # a spectator still
        cleo.send({"type": "join", "name": "Cleo", "seat": 7})
        assert cleo.expect("seat_pending")["request"] == 3
        # a request lives with its connection: Cleo closes her tab, it is gone
        cleo.close()
        assert ana.expect("room", lambda m: not m["room"]["seat_requests"])
        # the host's own seat needs no approval and the host cannot be asked for twice
        ana.send({"type": "join", "name": "Zed"})
        assert ana.expect("error")["code"] == "already_seated"


def test_a_spectator_asks_to_sit_and_the_rematch_carries_the_ledger(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'rematch.db'}") as server:
        created = server.create_room("Ana")
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"])
        ben = join(server, room_id, "Ben", seat=4)
        cleo = join(server, room_id, "Cleo", seat=2)
        ana.send({"type": "start"})
        # Session 1: Ana (chair 0), Cleo (2), Ben (4) = seats 0, 1, 2; each antes 1: pot 3.
        table(ana, 1, "declare")
        assert error_of(ana, {"type": "rematch", "ledger": "carried"}) == (
            "illegal_action", "a rematch opens once the session is over")
        assert error_of(ana, {"type": "rematch", "ledger": "kept"}) == (
            "bad_message", "rematch.ledger: input should be 'carried' or 'reset' (got \"kept\")")
        # Dee watches and asks for a seat for the next session, at chair 2 (Cleo's: taken)
        dee = Player(server, room_id)
        assert error_of(dee, {"type": "join", "name": "Dee", "seat": 2}) == (
            "seat_taken", "seat 2 is taken by 'Cleo'")
        cleo.send({"type": "leave"})  # Cleo leaves for good: her chair is free next time
        ana.expect("event", lambda m: m["event"]["type"] == "SeatLeft")
        dee.send({"type": "join", "name": "Dee", "seat": 1})
        pending = dee.expect("seat_pending")
        assert pending == {"type": "seat_pending", "request": 1, "chair": 1,
                           "next_game": True, "token": pending["token"]}
        room = ana.expect("room", lambda m: m["room"]["seat_requests"])["room"]
        # no approval in this room: granted, it takes effect at the next session
        assert room["seat_requests"] == [{"request": 1, "name": "Dee", "chair": 1,
                                          "next_game": True, "approved": True}]
        assert [s["name"] for s in room["seats"]] == ["Ana", "Cleo", "Ben"]
        assert dee.seat is None
        # Round 1: Cleo (left) is out; Ana in alone takes the pot of 3 uncontested.
        assert ana.declare(1, "in")["type"] == "ack"
        assert ben.declare(1, "out")["type"] == "ack"
        assert table(ana, 1, "deal")["stacks"] == [22, 19, 19]
        # Round 2 (Ana and Ben ante 1 each: pot 2), then the host ends the session: the
        # pot is shared evenly between the two still seated: 22, 19, 19 again. (Round 2
        # is dealt before the end is sent: the server's deal and the host's end would race.)
        table(ana, 2, "declare")
        ana.send({"type": "end_session"})
        over = ana.state(lambda t: t["phase"] == "over")
        assert over["stacks"] == [22, 19, 19]
        ledger = server.get(f"/api/rooms/{room_id}/ledger.json").json()
        assert [(r["name"], r["net"]) for r in ledger["rows"]] == [
            ("Ana", 2), ("Cleo", -1), ("Ben", -1)]
        assert error_of(ben, {"type": "rematch", "ledger": "carried"}) == (
            "not_host", "only the host may rematch")
        ana.send({"type": "rematch", "ledger": "carried"})
        opened = ana.expect("rematch")
        new_id = opened["room_id"]
        assert opened == {"type": "rematch", "room_id": new_id, "ledger": "carried",
                          "token": None}
        assert ben.expect("rematch")["token"] is None
        dee_token = dee.expect("rematch")["token"]
        assert isinstance(dee_token, str) and len(dee_token) >= 32
        assert cleo.expect("rematch")["token"] is None  # she left: she watches
        assert room_of(ana)["next_room"] is None
        ana.expect("room", lambda m: m["room"]["next_room"] == new_id)
        assert error_of(ana, {"type": "rematch", "ledger": "reset"}) == (
            "illegal_action", f"the rematch is already open in room {new_id!r}")
        assert error_of(Player(server, room_id), {"type": "join", "name": "Eve"}) == (
            "illegal_action", f"the next session is open in room {new_id!r}: join there")
        assert server.get(f"/api/rooms/{room_id}").json()["next_room"] == new_id

        # Session 2, in the new room: Ana (chair 0), Dee (1), Ben (4); the same tokens.
        ana2 = Player(server, new_id, created["token"])
        assert ana2.seat == 0
        ben2 = Player(server, new_id, ben.token)
        dee2 = Player(server, new_id, dee_token)
        assert (ben2.seat, dee2.seat) == (2, 1)
        info = room_of(ana2)
        assert chairs(info) == [(0, "Ana", 0), (1, "Dee", 1), (2, "Ben", 4)]
        assert (info["previous_room"], info["ledger_carried"], info["status"]) == (
            room_id, True, "lobby")
        # a token of a seat that left, and a forged one, are refused
        for token in (cleo.token, "forged-token-of-nobody"):
            refused = Player(server, new_id, hello=False)
            refused.send({"type": "hello", "protocol": 1, "token": token})
            assert refused.expect("error")["code"] == "bad_token"
        # before the session: the carried nets and this session's zeros
        lobby = server.get(f"/api/rooms/{new_id}/ledger.json").json()
        assert [(r["seat"], r["name"], r["net"], r["carried"], r["total"])
                for r in lobby["rows"]] == [
            (0, "Ana", 0, 2, 2), (1, "Dee", 0, 0, 0), (2, "Ben", 0, -1, -1),
            (None, "Cleo", 0, -1, -1)]
        # a newcomer may not take the name of a player of the carried ledger
        assert error_of(Player(server, new_id), {"type": "join", "name": "cleo"})[0] == (
            "name_taken")
        ana2.send({"type": "start"})
        started = ana2.expect("event", lambda m: m["event"]["type"] == "SessionStarted")
        assert (started["event"]["names"], started["event"]["stacks"]) == (
            ["Ana", "Dee", "Ben"], [20, 20, 20])
        # Round 1: pot 3; Ben in alone takes it: 19, 19, 22.
        table(ana2, 1, "declare")
        assert ana2.declare(1, "out")["type"] == "ack"
        assert dee2.declare(1, "out")["type"] == "ack"
        assert ben2.declare(1, "in")["type"] == "ack"
        assert table(ana2, 1, "deal")["stacks"] == [19, 19, 22]
        table(ana2, 2, "declare")  # dealt before the end is sent (they would race)
        ana2.send({"type": "end_session"})  # round 2's antes (3) shared back evenly
        assert ana2.state(lambda t: t["phase"] == "over")["stacks"] == [19, 19, 22]
        final = server.get(f"/api/rooms/{new_id}/ledger.json").json()
        # totals: Ana 2 - 1 = 1, Dee 0 - 1 = -1, Ben -1 + 2 = 1, Cleo -1: they add up to 0
        rows = [(r["name"], r["net"], r["carried"], r["total"]) for r in final["rows"]]
        assert rows == [("Ana", -1, 2, 1), ("Dee", -1, 0, -1), ("Ben", 2, -1, 1),
                        ("Cleo", 0, -1, -1)]
        assert sum(r[3] for r in rows) == 0 and final["carried"] is True
        assert sorted((t["payer"], t["payee"], t["chips"]) for t in final["transfers"]) in (
            [("Cleo", "Ana", 1), ("Dee", "Ben", 1)], [("Cleo", "Ben", 1), ("Dee", "Ana", 1)])
        csv_text = server.get(f"/api/rooms/{new_id}/ledger.csv").text
        assert csv_text.splitlines()[:6] == [
            "seat,name,buy_in,cash_out,net,carried,total", "0,Ana,20,19,-1,2,1",
            "1,Dee,20,19,-1,0,-1", "2,Ben,20,22,2,-1,1", ",Cleo,0,0,0,-1,-1", ""]
        # each session is its own hand history and fairness record, each verified
        first = verify(server, room_id, created["token"], tmp_path)
        second = verify(server, new_id, created["token"], tmp_path)
        assert first[-1] == "2 of 2 rounds verified"
        assert second[-1] == "2 of 2 rounds verified"
        history = server.get(f"/api/rooms/{new_id}/history.jsonl").text.splitlines()
        assert '"names":["Ana","Dee","Ben"]' in history[0]


def test_rematch_with_the_ledger_reset_keeps_the_bots_and_asks_the_host(
        tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'reset.db'}") as server:
        created = server.create_room("Ana", approve_seats=True)
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"])
        ana.send({"type": "add_bot", "style": "cautious"})
        ana.expect("room", lambda m: len(m["room"]["seats"]) == 2)
        ana.send({"type": "start"})
        table(ana, 1, "declare")
        # Two spectators ask during the session (the host approves who sits down).
        ben, cleo = Player(server, room_id), Player(server, room_id)
        ben.send({"type": "join", "name": "Ben", "seat": 5})
        assert ben.expect("seat_pending")["next_game"] is True
        cleo.send({"type": "join", "name": "Cleo", "seat": 6})
        assert cleo.expect("seat_pending")["request"] == 2
        room = ana.expect("room", lambda m: len(m["room"]["seat_requests"]) == 2)["room"]
        assert [r["approved"] for r in room["seat_requests"]] == [False, False]
        ana.send({"type": "approve_seat", "request": 1})
        room = ana.expect("room", lambda m: m["room"]["seat_requests"][0]["approved"])["room"]
        assert [(r["name"], r["approved"]) for r in room["seat_requests"]] == [
            ("Ben", True), ("Cleo", False)]
        # The host ends the session at once: round 1's antes (2) are shared back: 20, 20.
        ana.send({"type": "end_session"})
        assert ana.state(lambda t: t["phase"] == "over")["stacks"] == [20, 20]
        ana.send({"type": "rematch", "ledger": "reset"})
        new_id = ana.expect("rematch")["room_id"]
        assert isinstance(ben.expect("rematch")["token"], str)
        # Cleo was not answered before the rematch: refused, she may ask again there
        assert cleo.expect("seat_refused")["reason"] == (
            "the rematch opened before the host answered: ask again there")
        assert cleo.expect("rematch")["token"] is None
        info = server.get(f"/api/rooms/{new_id}").json()
        assert [(s["name"], s["bot"], s["bot_style"], s["chair"]) for s in info["seats"]] == [
            ("Ana", False, None, 0), (room["seats"][1]["name"], True, "cautious", 1),
            ("Ben", False, None, 5)]
        assert (info["ledger_carried"], info["approve_seats"], info["rules"]) == (
            False, True, room["rules"])
        ledger = server.get(f"/api/rooms/{new_id}/ledger.json").json()
        assert "carried" not in ledger
        assert [(r["name"], r["net"]) for r in ledger["rows"]] == [
            ("Ana", 0), (room["seats"][1]["name"], 0), ("Ben", 0)]
        assert server.get(f"/api/rooms/{new_id}/ledger.csv").text.splitlines()[0] == (
            "seat,name,buy_in,cash_out,net")


def test_seat_requests_and_chairs_survive_in_the_store(tmp_path: Path) -> None:
    """Chairs are stored with the seats: a restarted server knows them."""
    url = f"sqlite:///{tmp_path / 'restart.db'}"
    with running_server(url) as server:
        created = server.create_room("Ana")
        room_id = created["room_id"]
        join(server, room_id, "Ben", seat=6)
        join(server, room_id, "Cleo", seat=3)
    with running_server(url) as server:
        info = server.get(f"/api/rooms/{room_id}").json()
        assert [(s["name"], s["chair"]) for s in info["seats"]] == [
            ("Ana", 0), ("Cleo", 3), ("Ben", 6)]


def test_a_companion_rematch_gives_each_session_its_own_referee_file(tmp_path: Path) -> None:
    """A companion room (a real table deals) and its rematch: each session's history
    download settles through ``guts referee`` to its own stacks."""
    with running_server(f"sqlite:///{tmp_path / 'companion.db'}") as server:
        created = server.create_room("Ana", companion=True)
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"])
        ben = join(server, room_id, "Ben", seat=3)
        ana.send({"type": "start"})
        ana.state(lambda t: t["phase"] == "deal")
        # Session 1: antes 1 + 1; Ana in alone takes the pot of 2: 21, 19.
        ana.send({"type": "deal", "round": 1})
        table(ana, 1, "declare")
        assert ana.declare(1, "in")["type"] == "ack"
        assert ben.declare(1, "out")["type"] == "ack"
        assert table(ana, 1, "deal")["stacks"] == [21, 19]
        ana.send({"type": "end_session"})
        ana.state(lambda t: t["phase"] == "over")
        ana.send({"type": "rematch", "ledger": "carried"})
        new_id = ana.expect("rematch")["room_id"]
        assert server.get(f"/api/rooms/{new_id}").json()["companion"] is True
        ana2 = Player(server, new_id, created["token"])
        ben2 = Player(server, new_id, ben.token)
        ana2.send({"type": "start"})
        ana2.state(lambda t: t["phase"] == "deal")
        # Session 2: Ben in alone takes the pot of 2: 19, 21; totals 0 and 0.
        ana2.send({"type": "deal", "round": 1})
        table(ana2, 1, "declare")
        assert ana2.declare(1, "out")["type"] == "ack"
        assert ben2.declare(1, "in")["type"] == "ack"
        assert table(ana2, 1, "deal")["stacks"] == [19, 21]
        ana2.send({"type": "end_session"})
        ana2.state(lambda t: t["phase"] == "over")
        rows = server.get(f"/api/rooms/{new_id}/ledger.json").json()["rows"]
        assert [(r["name"], r["net"], r["carried"], r["total"]) for r in rows] == [
            ("Ana", -1, 1, 0), ("Ben", 1, -1, 0)]
        for room, stacks in ((room_id, {"Ana": 21, "Ben": 19}), (new_id, {"Ana": 19, "Ben": 21})):
            path = tmp_path / f"{room}.jsonl"
            path.write_text(server.get(f"/api/rooms/{room}/history.jsonl"
                                       f"?token={created['token']}").text)
            done = RUNNER.invoke(app, ["referee", str(path), "--json"])
            assert done.exit_code == 0, done.output
            assert json.loads(done.output)["stacks"] == stacks
            referee = server.get(f"/api/rooms/{room}/referee.json?token={ben.token}")
            assert referee.status_code == 200
