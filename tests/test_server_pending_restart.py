"""What a room has pending survives a server restart (issue 10, a black-box attacker's
finding: it was kept in memory only): a return asked for during a game, the host's mute, a
rebuy asked for and approved, a client seed sent for the next deal, a request to sit down.
Each test sets it up, stops the server, starts a new one on the same database (as
tests/test_server_faults.py does), reconnects with the seat tokens and checks the pending
request is still there and is carried out with the values worked out by hand. Default
rules: ante 1, buy-in 20; seats Ana (host, 0), Ben (1), Cleo (2)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from server_support import DB_KINDS, Player, Server, make_db_url, running_server, seat_three
from sqlalchemy import create_engine, inspect, text

from gutskit.core import engine
from gutskit.core.history import event_to_dict
from gutskit.server.store import MIGRATIONS, hash_token, open_room_store
from gutskit.server.verify import parse_history, verify_rounds

BEN_SEED = "be" * 32


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh SQLite database, and PostgreSQL when GUTSKIT_TEST_PG_URL is set."""
    with make_db_url(request.param, tmp_path) as url:
        yield url


def welcome_room(player: Player) -> dict[str, Any]:
    room: dict[str, Any] = player.log[0]["room"]
    return room


def seat_facts(room: dict[str, Any], seat: int) -> tuple[bool, bool, bool]:
    facts = room["seats"][seat]
    return facts["away"], facts["back_next_game"], facts["muted"]


def back(server: Server, room_id: str, *players: Player) -> list[Player]:
    """The players connected again (same tokens) to the restarted server."""
    return [Player(server, room_id, p.token, protocol=2) for p in players]


def ben_asks_to_come_back(table: dict[str, Any], ana: Player, ben: Player,
                          cleo: Player) -> None:
    """Round 2 is being declared without Ben (``table``: stacks 21, 19, 18, pot 2). Ben asks
    to come back: a game is in progress, so he stays away, back when the next game starts.
    Every connection is then closed (the caller stops the server)."""
    assert table["dealt_in"] == [True, False, True]
    assert (table["stacks"], table["pot"]) == ([21, 19, 18], 2)
    ben.send({"type": "come_back"})
    room = ana.expect("room", lambda m: m["room"]["seats"][1]["back_next_game"])["room"]
    assert seat_facts(room, 1) == (True, True, False)
    for player in (ana, ben, cleo):
        player.close()


def round_2_after_the_restart(server: Server, room_id: str, *players: Player
                              ) -> list[Player]:
    """After the restart: Ana, Ben and Cleo connect again, each is told that Ben is still
    away and back for the next game, and round 2 is declared without him (Ana in, Cleo
    out: Ana alone in wins the pot of 2). The players, connected again."""
    ana, ben, cleo = back(server, room_id, *players)
    for player in (ana, ben, cleo):
        assert seat_facts(welcome_room(player), 1) == (True, True, False)
        assert player.log[0]["table"]["dealt_in"] == [True, False, True]
    assert ana.declare(2, "in")["type"] == "ack"
    assert cleo.declare(2, "out")["type"] == "ack"
    return [ana, ben, cleo]


def test_a_return_asked_for_during_a_game_is_made_after_a_restart(db_url: str) -> None:
    """Round 1: Ben goes away; Ana alone in wins the pot of 3 (21, 19, 18 after the
    antes of round 2, which Ben sits out: pot 2). In round 2 Ben asks to come back: the
    game is in progress, so he is back when the next game starts. Restart. Ana alone in
    wins the pot of 2: the game is over, Ben is dealt in round 3 (everyone antes: 22,
    18, 17, pot 3)."""
    with running_server(db_url) as server:
        room_id, (ana, ben, cleo) = seat_three(server)
        ana.send({"type": "start"})
        for player in (ana, ben, cleo):
            player.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
        ben.send({"type": "sit_out"})
        ana.expect("room", lambda m: m["room"]["seats"][1]["away"])
        for player, call in ((ana, "in"), (ben, "out"), (cleo, "out")):
            assert player.declare(1, call)["type"] == "ack"
        table = ana.state(lambda t: t["round"] == 2 and t["phase"] == "declare")
        ben_asks_to_come_back(table, ana, ben, cleo)
    with running_server(db_url) as server:
        ana, ben, cleo = round_2_after_the_restart(server, room_id, ana, ben, cleo)
        table = ben.state(lambda t: t["round"] == 3 and t["phase"] == "declare")
        assert table["dealt_in"] == [True, True, True]
        assert (table["stacks"], table["pot"]) == ([22, 18, 17], 3)
        assert len(table["hand"]) == 3  # Ben holds cards again
        room = ana.expect("room", lambda m: not m["room"]["seats"][1]["away"])["room"]
        assert seat_facts(room, 1) == (False, False, False)
        assert server.manager.rooms[room_id].returning == set()
    with running_server(db_url) as server:  # made, so not made again
        assert server.manager.rooms[room_id].returning == set()
        assert not server.manager.rooms[room_id].seats[1].back_next_game


def test_a_return_asked_for_in_a_companion_room_is_made_after_a_restart(
        db_url: str) -> None:
    """The same at a real table (companion mode: the host's phone says when a round is
    dealt). Round 1: antes 19, 19, 19, pot 3; Ben goes away; Ana alone in wins 3 (22,
    19, 19). Round 2 is dealt without Ben (21, 19, 18, pot 2); Ben asks to come back.
    Restart. Ana alone in wins 2 (23, 19, 18); round 3 is dealt with Ben back: 22, 18,
    17, pot 3."""
    with running_server(db_url) as server:
        room_id, (ana, ben, cleo) = seat_three(server, companion=True)
        ana.send({"type": "start"})
        ana.state(lambda t: t["phase"] == "deal" and t["round"] == 0)
        ana.send({"type": "deal", "round": 1})
        table = ana.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
        assert (table["stacks"], table["pot"]) == ([19, 19, 19], 3)
        ben.send({"type": "sit_out"})
        ana.expect("room", lambda m: m["room"]["seats"][1]["away"])
        for player, call in ((ana, "in"), (ben, "out"), (cleo, "out")):
            assert player.declare(1, call)["type"] == "ack"
        table = ana.state(lambda t: t["phase"] == "deal" and t["round"] == 1)
        assert (table["stacks"], table["pot"]) == ([22, 19, 19], 0)
        ana.send({"type": "deal", "round": 2})
        table = ana.state(lambda t: t["phase"] == "declare" and t["round"] == 2)
        ben_asks_to_come_back(table, ana, ben, cleo)
    with running_server(db_url) as server:
        ana, ben, cleo = round_2_after_the_restart(server, room_id, ana, ben, cleo)
        table = ana.state(lambda t: t["phase"] == "deal" and t["round"] == 2)
        assert (table["stacks"], table["pot"]) == ([23, 19, 18], 0)
        ana.send({"type": "deal", "round": 3})
        table = ana.state(lambda t: t["phase"] == "declare" and t["round"] == 3)
        assert table["dealt_in"] == [True, True, True]
        assert (table["stacks"], table["pot"]) == ([22, 18, 17], 3)
        assert seat_facts(server.manager.rooms[room_id].info().model_dump(), 1) == (
            False, False, False)


def test_a_mute_survives_a_restart_and_goes_with_its_player_to_the_rematch(
        db_url: str) -> None:
    with running_server(db_url) as server:
        room_id, (ana, ben, cleo) = seat_three(server)
        ana.send({"type": "mute", "seat": 1, "muted": True})
        room = ana.expect("room", lambda m: m["room"]["seats"][1]["muted"])["room"]
        assert [s["muted"] for s in room["seats"]] == [False, True, False]
        for player in (ana, ben, cleo):
            player.close()
    with running_server(db_url) as server:
        ana, ben, cleo = back(server, room_id, ana, ben, cleo)
        assert [s["muted"] for s in welcome_room(cleo)["seats"]] == [False, True, False]
        ben.send({"type": "chat", "text": "hello?"})
        assert ben.expect("error") == {"type": "error", "code": "muted",
                                       "message": "the host muted your chat",
                                       "action_id": None}
        cleo.send({"type": "chat", "text": "hi"})
        assert cleo.expect("chat")["text"] == "hi"  # Cleo was not muted
        ana.send({"type": "start"})
        ana.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
        ana.send({"type": "end_session"})
        ana.state(lambda t: t["phase"] == "over")
        ana.send({"type": "rematch", "ledger": "reset"})
        next_room = ana.expect("rematch")["room_id"]
        again = Player(server, next_room, ben.token, protocol=2)
        assert again.seat == 1
        assert [s["muted"] for s in welcome_room(again)["seats"]] == [False, True, False]
        again.send({"type": "chat", "text": "still?"})
        assert again.expect("error")["code"] == "muted"
    with running_server(db_url) as server:  # the rematch's mute is stored too
        assert server.manager.rooms[next_room].muted == {1}


def test_a_pending_rebuy_survives_two_restarts_and_is_bought_between_rounds(
        db_url: str) -> None:
    """buy-in-limits (minimum buy-in 20, up to 2 rebuys): after the antes Ana has 19 and
    asks for 20. Restart: the host still sees the request and approves it. Restart: still
    approved. Everyone out: round 1 is void, the pot of 3 stays; between the rounds Ana
    buys 20 (39), then everyone antes: 38, 18, 18, pot 6."""
    with running_server(db_url) as server:
        room_id, (ana, ben, cleo) = seat_three(server, rules={"preset": "buy-in-limits"})
        ana.send({"type": "start"})
        for player in (ana, ben, cleo):
            player.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
        ana.send({"type": "rebuy", "chips": 20})
        room = ana.expect("room", lambda m: m["room"]["rebuy_requests"])["room"]
        assert room["rebuy_requests"] == [{"seat": 0, "chips": 20, "approved": False}]
        for player in (ana, ben, cleo):
            player.close()
    with running_server(db_url) as server:
        ana, ben, cleo = back(server, room_id, ana, ben, cleo)
        assert welcome_room(ana)["rebuy_requests"] == [
            {"seat": 0, "chips": 20, "approved": False}]
        ana.send({"type": "approve_rebuy", "seat": 0})
        ana.expect("room", lambda m: m["room"]["rebuy_requests"] == [
            {"seat": 0, "chips": 20, "approved": True}])
        for player in (ana, ben, cleo):
            player.close()
    with running_server(db_url) as server:
        ana, ben, cleo = back(server, room_id, ana, ben, cleo)
        assert welcome_room(ben)["rebuy_requests"] == [
            {"seat": 0, "chips": 20, "approved": True}]
        for player in (ana, ben, cleo):
            assert player.declare(1, "out")["type"] == "ack"
        table = ana.state(lambda t: t["phase"] == "declare" and t["round"] == 2)
        assert (table["stacks"], table["pot"]) == ([38, 18, 18], 6)
        rooms = [m["room"] for m in ana.log if m["type"] == "room"]
        assert rooms[-1]["rebuy_requests"] == []  # told before round 2 was dealt
        state = server.manager.rooms[room_id].state
        assert state is not None and state.buy_ins == (40, 20, 20)
    with running_server(db_url) as server:  # bought once, not again
        room = server.manager.rooms[room_id]
        assert room.rebuys == {} and room.seats[0].rebuy_chips is None


def test_a_client_seed_sent_before_a_restart_is_mixed_into_the_next_deal(
        db_url: str) -> None:
    """Ben sends his seed for round 1 in the lobby; the server restarts before the deal.
    Round 1 is dealt with it (``deal_seeds`` and fairness.json list it under seat 1) and
    guts verify's check of round 1 (the committed order mixed with the seeds) passes."""
    with running_server(db_url, seed_numbers=(1, 2)) as server:
        room_id, (ana, ben, cleo) = seat_three(server)
        ben.send({"type": "client_seed", "round": 1, "seed": BEN_SEED})
        ben.send({"type": "client_seed", "round": 1, "seed": BEN_SEED})
        assert ben.expect("error")["code"] == "already_seeded"  # the first one was taken
        for player in (ana, ben, cleo):
            player.close()
    with running_server(db_url, seed_numbers=(3, 4)) as server:
        ana, ben, cleo = back(server, room_id, ana, ben, cleo)
        ben.send({"type": "client_seed", "round": 1, "seed": "00" * 32})
        assert ben.expect("error") == {
            "type": "error", "code": "already_seeded",
            "message": "seat 1 already sent its seed for round 1", "action_id": None}
        ana.send({"type": "start"})
        dealt = cleo.expect("deal_seeds")
        assert (dealt["round"], dealt["client_seeds"]) == (1, [None, BEN_SEED, None])
        for player in (ana, ben, cleo):
            player.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
            assert player.declare(1, "in")["type"] == "ack"
        ana.state(lambda t: t["round"] == 2 and t["phase"] == "declare")
        ana.send({"type": "end_session"})
        ana.state(lambda t: t["phase"] == "over")
        fairness = server.get(f"/api/rooms/{room_id}/fairness.json?token={ben.token}").json()
        history = server.get(f"/api/rooms/{room_id}/history.jsonl?token={ben.token}").text
        assert server.manager.rooms[room_id].client_seeds == {}  # used
    record = next(r for r in fairness["rounds"] if r["round"] == 1)
    assert record["client_seeds"] == [None, BEN_SEED, None]
    checks = verify_rounds(fairness, parse_history(history))
    # all three in: 9 cards shown and opened; Ben's seed is the one mixed in
    assert (checks[0].round, checks[0].status, checks[0].detail) == (
        1, "ok", "9 cards opened, 1 client seed")


def test_a_seat_request_survives_a_restart_and_the_host_grants_it(db_url: str) -> None:
    """Host approval: Ben asks for chair 3 and Dee for chair 5 in the lobby. Restart. The
    host still sees both requests; Ben comes back with his request's token (he is told
    his request waits) and is seated when the host grants it; Dee, not connected, is
    granted too and holds the seat when she comes back with her request's token."""
    with running_server(db_url) as server:
        created = server.create_room("Ana", approve_seats=True)
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"], protocol=2)
        asks = {}
        for name, chair in (("Ben", 3), ("Dee", 5)):
            player = Player(server, room_id, protocol=2)
            player.send({"type": "join", "name": name, "seat": chair})
            asks[name] = player.expect("seat_pending")
        ana.expect("room", lambda m: len(m["room"]["seat_requests"]) == 2)
    with running_server(db_url) as server:
        ana = Player(server, room_id, created["token"], protocol=2)
        assert welcome_room(ana)["seat_requests"] == [
            {"request": 1, "name": "Ben", "chair": 3, "next_game": False, "approved": False},
            {"request": 2, "name": "Dee", "chair": 5, "next_game": False, "approved": False}]
        ben = Player(server, room_id, asks["Ben"]["token"], protocol=2)
        assert ben.seat is None  # a spectator whose request waits
        assert ben.expect("seat_pending") == asks["Ben"]
        again = Player(server, room_id, hello=False)  # the request is Ben's now
        again.send({"type": "hello", "protocol": 1, "token": asks["Ben"]["token"]})
        assert again.expect("error")["code"] == "bad_token"
        ana.send({"type": "approve_seat", "request": 1})
        seated = ben.expect("seated")
        assert seated == {"type": "seated", "seat": 1, "token": asks["Ben"]["token"]}
        ana.send({"type": "approve_seat", "request": 2})
        room = ana.expect("room", lambda m: len(m["room"]["seats"]) == 3)["room"]
        assert [(s["name"], s["chair"]) for s in room["seats"]] == [
            ("Ana", 0), ("Ben", 3), ("Dee", 5)]
        assert room["seat_requests"] == []
        dee = Player(server, room_id, asks["Dee"]["token"], protocol=2)
        assert dee.seat == 2
        # A third request after the restart is numbered on from the stored count.
        cleo = Player(server, room_id, protocol=2)
        cleo.send({"type": "join", "name": "Cleo", "seat": 7})
        assert cleo.expect("seat_pending")["request"] == 3
        cleo.close()  # a request still lives with its connection
        ana.expect("room", lambda m: not m["room"]["seat_requests"])
    with running_server(db_url) as server:
        assert server.manager.rooms[room_id].asks == {}
        assert server.manager.rooms[room_id].ask_count == 3
        assert Player(server, room_id, asks["Dee"]["token"], protocol=2).seat == 2


def _migrate(url: str, revision: str, down: bool = False) -> None:
    """Run the server's migrations on ``url`` up (or down) to ``revision``."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            (command.downgrade if down else command.upgrade)(config, revision)
    finally:
        engine.dispose()


def test_a_database_at_0003_upgrades_with_nothing_pending(db_url: str) -> None:
    """A room stored by a server at migration 0003 (a started session, seats with chairs)
    loads after the upgrade to 0004 with nothing pending: no return asked for, no mute,
    no rebuy, no client seed, no request to sit down; 0004 goes down and up again."""
    _migrate(db_url, "0003")
    start = engine.start_event(["Ana", "Ben"], 20, dealer=0)
    engine_ = create_engine(db_url)
    with engine_.begin() as connection:
        connection.execute(text(
            "INSERT INTO sessions (id, created_at, source, rules, players, status) VALUES "
            "(1, :at, 'server', :rules, :players, 'playing')"),
            {"at": datetime.now(UTC), "rules": json.dumps(start.rules.to_dict()),
             "players": json.dumps(["Ana", "Ben"])})
        connection.execute(text(
            "INSERT INTO events (session_id, seq, type, payload) VALUES "
            "(1, 0, 'SessionStarted', :payload)"),
            {"payload": json.dumps(event_to_dict(start))})
        connection.execute(text(
            "INSERT INTO rooms (id, created_at, settings, status, paused, session_id) "
            "VALUES ('old', :at, :settings, 'playing', :no, 1)"),
            {"at": datetime.now(UTC), "no": False, "settings": json.dumps(
                {"rules": start.rules.to_dict(), "buy_in": 20, "decision_seconds": 30,
                 "reveal_seconds": 0, "seed_reveal": "round"})})
        for seat, name in enumerate(("Ana", "Ben")):
            connection.execute(text(
                "INSERT INTO room_seats (room_id, seat, name, token_hash, host, kicked, "
                "chair) VALUES ('old', :seat, :name, :hash, :host, :no, :chair)"),
                {"seat": seat, "name": name, "hash": hash_token(name), "host": seat == 0,
                 "no": False, "chair": 4 * seat})
    engine_.dispose()
    store = open_room_store(db_url)  # upgrades to 0004
    try:
        loaded = store.load_room("old")
        assert loaded is not None and [s.chair for s in loaded.seats] == [0, 4]
        assert [s.pending() for s in loaded.seats] == [(False, False, None, False, None)] * 2
        assert (loaded.asks, loaded.ask_count) == ([], 0)
        assert len(loaded.events) == 1
        store.put_pending("old", [dataclasses.replace(loaded.seats[1], muted=True,
                                                      rebuy_chips=20)])
        again = store.load_room("old")
        assert again is not None
        assert again.seats[1].pending() == (False, True, 20, False, None)
    finally:
        store.close()
    _migrate(db_url, "0003", down=True)
    check = create_engine(db_url)
    with check.connect() as connection:
        columns = {c["name"] for c in inspect(connection).get_columns("room_seats")}
        assert "muted" not in columns and "chair" in columns
        assert "room_asks" not in inspect(connection).get_table_names()
    check.dispose()
    _migrate(db_url, "head")
