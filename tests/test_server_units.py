"""Unit tests of the server's pure parts: the fairness algorithm (against an independent
re-implementation of the documented steps), the settlement of the ledger, the protocol
validation, the public view, and the Alembic migrations on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import struct
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from hypothesis import given, settings
from hypothesis import strategies as st
from server_support import DB_KINDS, make_db_url
from sqlalchemy import inspect

from gutskit.core import table as driver
from gutskit.core.engine import (
    deal,
    declare,
    end_session,
    hands_from_deck,
    new_session,
    start_event,
)
from gutskit.core.events import Declaration
from gutskit.core.rules import Rules
from gutskit.core.views import SPECTATOR, Viewer, view
from gutskit.io.storage import Base, open_store
from gutskit.server import app, rooms
from gutskit.server.exports import ledger_csv
from gutskit.server.fairness import (
    FairnessError,
    commitment,
    deck_from_seed,
    deck_names,
    verify_commitment,
)
from gutskit.server.protocol import (
    Ack,
    ProtocolError,
    TableState,
    TableView,
    parse_client_message,
)
from gutskit.server.rooms import (
    PER_VIEWER,
    encode,
    private_fields,
    public_fields,
    table_facts,
    table_fields,
    table_view,
)
from gutskit.server.store import open_room_store


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh SQLite database, and PostgreSQL when GUTSKIT_TEST_PG_URL is set."""
    with make_db_url(request.param, tmp_path) as url:
        yield url


def reference_deck(seed: bytes) -> list[str]:
    """docs/protocol.md "Provably fair deal", steps 1-3, written independently."""
    words: list[int] = []
    block = 0

    def word() -> int:
        nonlocal block
        if not words:
            digest = hashlib.sha256(b"gutskit-deck-v1" + seed + struct.pack(">Q", block))
            words.extend(struct.unpack(">8I", digest.digest()))
            block += 1
        return words.pop(0)

    names = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    for i in range(51, 0, -1):
        bound = 2**32 - 2**32 % (i + 1)
        w = word()
        while w >= bound:
            w = word()
        j = w % (i + 1)
        names[i], names[j] = names[j], names[i]
    return names


@settings(max_examples=25)
@given(seed=st.binary(min_size=32, max_size=32))
def test_deck_follows_the_documented_algorithm(seed: bytes) -> None:
    deck = deck_from_seed(seed)
    assert deck_names(deck) == reference_deck(seed)
    assert sorted(deck) == list(range(52))
    text = "gutskit-v1|" + " ".join(reference_deck(seed)) + "|" + seed.hex()
    assert commitment(seed, deck) == hashlib.sha256(text.encode()).hexdigest()
    assert verify_commitment(commitment(seed, deck), seed.hex()) == deck


def test_verify_commitment_refuses_a_wrong_seed() -> None:
    seed = bytes([1]) * 32
    good = commitment(seed, deck_from_seed(seed))
    with pytest.raises(FairnessError, match="does not match"):
        verify_commitment(good, "02" * 32)
    with pytest.raises(FairnessError, match="not hexadecimal"):
        verify_commitment(good, "zz")
    with pytest.raises(FairnessError, match="has 2 bytes, expected 32"):
        verify_commitment(good, "abcd")


def test_ledger_csv_settles_with_the_fewest_transfers() -> None:
    # Nets +10, -4, -7, +1 (no smaller group adds up to zero: 3 transfers): the largest
    # debt (Cleo, 7) goes to the largest credit (Ana, 10), then Ben's 4 covers Ana's
    # remaining 3 and Dev's 1.
    text = ledger_csv(["Ana", "Ben", "Cleo", "Dev"], [20] * 4, [30, 16, 13, 21], final=True)
    rows = text.splitlines()
    assert rows[1:5] == ["0,Ana,20,30,10", "1,Ben,20,16,-4", "2,Cleo,20,13,-7",
                         "3,Dev,20,21,1"]
    assert rows[6:] == ["payer,payee,chips", "Cleo,Ana,7", "Ben,Ana,3", "Ben,Dev,1"]


def test_ledger_csv_in_play_says_so() -> None:
    text = ledger_csv(["Ana", "Ben"], [20, 20], [19, 18], final=False, pot=3)
    assert text.splitlines()[-1] == "(session in play),\"pot 3, reserve 0\","


def test_protocol_refuses_with_named_fields() -> None:
    with pytest.raises(ProtocolError, match="bad_message: unknown message type 'fold'"):
        parse_client_message('{"type": "fold"}')
    with pytest.raises(ProtocolError, match=r"declare.action_id: string should have at most"):
        parse_client_message('{"type": "declare", "round": 1, "declaration": "in", '
                             '"action_id": "' + "x" * 65 + '"}')
    with pytest.raises(ProtocolError, match="too_large"):
        parse_client_message("{" + " " * 5000 + "}")
    message = parse_client_message('{"type": "join", "name": "Ana"}')
    assert message.type == "join"


def test_the_spectators_table_hides_hands_and_sealed_declarations() -> None:
    state = new_session(["Ana", "Ben", "Cleo"], 20, rules=Rules(cards_per_hand=2))
    state, _ = deal(state, hands_from_deck(state, deck_from_seed(bytes([1]) * 32)))
    state, _ = declare(state, 1, Declaration.IN)
    table = table_view(state, view(state, SPECTATOR), None)
    assert table.seat == -1 and table.hand is None and not table.my_turn
    assert table.declarations == [None, None, None]
    assert table.declared == [False, True, False]
    seq = new_session(["Ana", "Ben", "Cleo"], 20, rules=Rules(declaration="sequential"))
    seq, _ = deal(seq, hands_from_deck(seq, deck_from_seed(bytes([1]) * 32)))
    seq, _ = declare(seq, 1, Declaration.OUT)  # dealer Ana: Ben calls first, in public
    assert table_view(seq, view(seq, SPECTATOR), None).declarations == [None, "out", None]


def test_a_session_ended_mid_round_shows_no_card_of_the_round_before() -> None:
    """The auditor's end_mid_round_extra.py: Monte Carlo, round 1 settled (its community
    card turned), round 2 dealt, the host ends the session: the final table says round 2
    and must not show round 1's community card as if it were round 2's (nor a ghost
    hand); between rounds it shows the settled round's."""
    for rules, field in ((Rules(community_card=True), "community"),
                         (Rules(ghost_hand=True), "ghost")):
        state = new_session(["Ana", "Ben"], 20, rules=rules)
        state, _ = driver.deal(state, deck=deck_from_seed(bytes([1]) * 32))
        for seat in (1, 0):
            state, _ = declare(state, seat, Declaration.IN)
        shown = getattr(state.last_result, field)
        assert shown  # round 1 settled at a showdown: its extra cards are public
        table = table_view(state, view(state, SPECTATOR), None)
        assert (table.round, getattr(table, field)) == (1, deck_names(shown))
        state, _ = driver.deal(state, deck=deck_from_seed(bytes([2]) * 32))
        state, _ = declare(state, 1, Declaration.IN)
        state, _ = end_session(state, "the host ended the session")
        for viewer in (SPECTATOR, Viewer(0), Viewer(1)):
            table = table_view(state, view(state, viewer), None)
            assert table.phase == "over" and table.round == 2
            assert table.community is None and table.ghost is None


def test_migrations_build_the_models_schema(db_url: str) -> None:
    store = open_room_store(db_url)
    open_room_store(db_url)  # a second upgrade is a no-op
    with store.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
        tables = set(inspect(connection).get_table_names())
    assert {"sessions", "events", "rooms", "room_seats", "room_deals", "room_actions",
            "alembic_version"} <= tables
    store.engine.dispose()


def test_migrations_adopt_a_database_of_guts_play(tmp_path: Path) -> None:
    """``guts play`` created sessions/events first (create_all): the server migrates it
    and keeps the saved session."""
    url = f"sqlite:///{tmp_path / 'play.db'}"
    play = open_store(url)
    session_id = play.create_session("play", start_event(["Ana", "Ben"], 10))
    play.engine.dispose()
    store = open_room_store(url)
    assert store.load_rooms() == []
    again = open_store(url)
    assert [s.id for s in again.sessions()] == [session_id]
    store.engine.dispose()
    again.engine.dispose()


def test_rebuy_offers_are_can_rebuy_later_seat_by_seat() -> None:
    """Ante 2, no minimum buy-in: a rebuy is for a stack below 2 and is at least 1 chip.
    Ben (0 chips) may ask for 1, Ana (10) and Cleo (5) may not; the same while a round is
    declared; never without rebuys."""
    state = new_session(["Ana", "Ben", "Cleo"], [10, 0, 5], rules=Rules(rebuys=True, ante=2))
    assert driver.rebuy_offers(state) == (None, 1, None)
    dealt, _ = driver.deal(state, deck=deck_from_seed(bytes([1]) * 32))
    assert driver.rebuy_offers(dealt) == (None, 1, None)
    for now in (state, dealt):
        assert driver.rebuy_offers(now) == tuple(
            1 if driver.can_rebuy_later(now, seat, 1) is None else None for seat in range(3))
    assert driver.rebuy_offers(new_session(["Ana", "Ben"], [10, 0])) == (None, None)


def test_the_encoded_table_is_the_table_view_model() -> None:
    """The server sends table_fields encoded as they are (no model built): the same JSON
    as the TableView model's, for every viewer, in every phase of a round."""
    rules = Rules(rebuys=True, community_card=True)
    state = new_session(["Ana", "Ben", "Cleo"], [20, 20, 0], rules=rules)
    states = [state]
    state, _ = driver.deal(state, deck=deck_from_seed(bytes([3]) * 32))
    states.append(state)
    for seat in (0, 1):
        state, _ = driver.declare(state, seat, Declaration.IN)
        states.append(state)
    for now in states:
        facts = table_facts(now)
        for viewer in (SPECTATOR, Viewer(0), Viewer(1), Viewer(2)):
            fields = table_fields(now, view(now, viewer), 12.5, facts)
            assert sorted(fields) == sorted(TableView.model_fields)  # a JSON object: any order
            # the public part is the spectator's (every viewer's alike), the rest its own
            public = public_fields(now, view(now, SPECTATOR), 12.5, facts)
            private = private_fields(now, view(now, viewer), facts)
            assert set(private) == PER_VIEWER and not set(public) & PER_VIEWER
            assert {**public, **private} == fields
            model = TableState(table=TableView.model_validate(fields))
            text = encode({"type": "state", "table": fields})
            assert json.loads(text) == json.loads(model.model_dump_json())
    assert fields["matches"] is None and fields["last_result"] is not None
    declaring = table_fields(states[2], view(states[2], Viewer(1)), None)
    assert [m["declaration"] for m in declaring["matches"]] == ["in"]


def test_a_connection_may_send_30_messages_in_any_3_seconds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The moving window of app.MESSAGE_LIMIT, on a clock the test sets: 30 messages at
    t = 0 pass, the 31st is refused (and not counted); at t = 2.9 still refused; at t = 3.0
    the first 30 have left the window: one more passes, the next is refused again."""
    now = [100.0]
    monkeypatch.setattr(app, "time", SimpleNamespace(monotonic=lambda: now[0]))
    client = app.WsClient(SimpleNamespace(scope={}))  # type: ignore[arg-type]
    assert [client.allow() for _ in range(31)] == [True] * 30 + [False]
    now[0] = 102.9
    assert not client.allow()
    now[0] = 103.0
    assert [client.allow() for _ in range(31)] == [True] * 30 + [False]


class _Socket:
    """A WebSocket whose sends the test lets suspend: ``gate`` (when set) is awaited
    before a frame counts as sent; ``sleep0`` frames suspend once on a bare yield."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] = {}  # no transport kept (app.transport_of)
        self.sent: list[str] = []
        self.gate: asyncio.Future[None] | None = None
        self.closed = False

    async def send_text(self, text: str) -> None:
        if self.closed:
            raise RuntimeError("closed")
        if text.startswith("sleep0"):
            await asyncio.sleep(0)
        elif self.gate is not None:
            gate, self.gate = self.gate, None
            await gate
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = True


def test_a_connection_sends_its_frames_in_order_when_a_send_suspends() -> None:
    """Frames go out at once while no send waits (no task switch: sent before the
    writer task ever runs); a send that suspends is finished by the writer task and the
    frames after it wait behind it, in order; then frames go out at once again. A send
    that fails (the connection closed) drops the frames after it."""

    async def main() -> None:
        socket = _Socket()
        client = app.WsClient(socket)  # type: ignore[arg-type]
        writer = asyncio.get_running_loop().create_task(client.writer())
        client.send("a")  # protocol 1: a frame per message
        assert socket.sent == ["a"]  # written without a task switch
        gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        socket.gate = gate
        client.send("b")  # suspends on the gate
        client.send("c")
        client.send("sleep0 d")
        assert socket.sent == ["a"] and client.busy
        await asyncio.sleep(0.01)
        assert socket.sent == ["a"]  # b still waits for its gate: c and d behind it
        gate.set_result(None)
        for _ in range(100):  # the writer's steps (not a clock: a loaded machine is slow)
            if not client.busy:
                break
            await asyncio.sleep(0)
        assert socket.sent == ["a", "b", "c", "sleep0 d"] and not client.busy
        client.send("e")
        assert socket.sent[-1] == "e"
        socket.closed = True
        client.send("f")
        client.send("g")
        assert client.failed and socket.sent[-1] == "e"
        client.queue.put_nowait(None)
        await asyncio.wait_for(writer, 60)  # (a bound, not a clock)

    asyncio.run(main())


def test_the_encoded_ack_is_the_ack_model() -> None:
    """An applied action's ack is encoded without the model: the same JSON."""
    assert json.loads(rooms._ack("r3")) == json.loads(Ack(action_id="r3").model_dump_json())
    assert rooms._ack("r3") == '{"type":"ack","action_id":"r3","duplicate":false}'


def test_a_patch_is_joined_from_the_public_and_the_own_change() -> None:
    """_Texts: the public change worked out once per table held, the viewer's own change,
    and time_left only when the clock was set again; nothing when nothing changed; a
    whole state is both parts."""
    held_public = {"pot": 6, "declared": [False, False], "time_left": 9.5}
    public = {"pot": 6, "declared": [True, False], "time_left": 4.25}
    held_mine = {"seat": 0, "my_turn": True, "hand": ["As", "Kd"]}
    mine = {"seat": 0, "my_turn": False, "hand": ["As", "Kd"]}
    texts = rooms._Texts(public, 4.25)
    assert texts.patch(0, (held_public, held_mine, 100.0), mine, 100.0) == (
        '{"type":"patch","table":{"declared":[true,false],"my_turn":false}}')
    # another seat holding the same public table: only the public change (shared)
    other = {"seat": 1, "my_turn": True, "hand": None}
    assert texts.patch(1, (held_public, other, 100.0), other, 100.0) == (
        '{"type":"patch","table":{"declared":[true,false]}}')
    # a new deadline: time_left is sent
    assert texts.patch(1, (held_public, other, 90.0), other, 100.0) == (
        '{"type":"patch","table":{"declared":[true,false],"time_left":4.25}}')
    assert texts.patch(1, (public, other, 100.0), other, 100.0) is None
    assert json.loads(texts.whole(0, mine)) == {"type": "state", "table": {**public, **mine}}


def test_every_connection_of_a_turn_is_flushed_by_one_callback() -> None:
    """Protocol 2: the messages each connection gets in one turn of the loop are one frame
    (a JSON array), in order; the connections with messages are flushed together by one
    callback of the loop (app._Flusher), in the order they got their first message."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        scheduled: list[Any] = []
        original = loop.call_soon

        def counted(callback: Any, *args: Any, **kwargs: Any) -> Any:
            scheduled.append(callback)
            return original(callback, *args, **kwargs)

        sockets = [_Socket(), _Socket()]
        clients = [app.WsClient(s) for s in sockets]  # type: ignore[arg-type]
        for client in clients:
            client.protocol = 2
        loop.call_soon = counted  # type: ignore[method-assign, assignment]
        try:
            clients[1].send('{"n":1}')
            clients[0].send('{"n":2}')
            clients[1].send('{"n":3}')
        finally:
            loop.call_soon = original  # type: ignore[method-assign]
        assert len(scheduled) == 1 and sockets[0].sent == sockets[1].sent == []
        await asyncio.sleep(0)
        assert sockets[1].sent == ['[{"n":1},{"n":3}]'] and sockets[0].sent == ['[{"n":2}]']
        clients[0].send('{"n":4}')  # the next turn: a frame of its own
        await asyncio.sleep(0)
        assert sockets[0].sent == ['[{"n":2}]', '[{"n":4}]']

    asyncio.run(main())


def test_notices_wait_to_share_a_frame_until_something_else_is_sent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """WsClient.notice (protocol 2+): notices wait for the timer app.NOTICE_DELAY seconds
    after the first (one for every connection) and go out together as one frame; a
    message sent meanwhile takes them with it at the end of its turn, in order; under
    protocol 1 a notice is a frame at once. (The timer is set far off and its callback
    run by hand: no timing in the test.)"""
    monkeypatch.setattr(app, "NOTICE_DELAY", 3600.0)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        timers: list[tuple[float, Any]] = []
        original = loop.call_later

        def counted(delay: float, callback: Any, *args: Any) -> Any:
            timers.append((delay, callback))
            return original(delay, callback, *args)

        loop.call_later = counted  # type: ignore[method-assign, assignment]
        try:
            sockets = [_Socket(), _Socket(), _Socket()]
            clients = [app.WsClient(s) for s in sockets]  # type: ignore[arg-type]
            for client in clients[:2]:
                client.protocol = 2
            clients[0].notice('{"n":1}')
            clients[1].notice('{"n":2}')
            clients[2].notice('{"n":3}')  # protocol 1: its own frame, now
            assert sockets[2].sent == ['{"n":3}']
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            assert sockets[0].sent == sockets[1].sent == []  # turns later: still waiting
            clients[0].notice('{"n":4}')
            await asyncio.sleep(0)
            clients[1].send('{"n":5}')  # not a notice: out at the end of this turn, with 2
            clients[1].notice('{"n":6}')
            await asyncio.sleep(0)
            assert sockets[1].sent == ['[{"n":2},{"n":5},{"n":6}]'] and sockets[0].sent == []
            clients[1].notice('{"n":7}')
            assert [delay for delay, _ in timers] == [3600.0]  # one timer for all
            timers[0][1]()  # the timer fires
            assert sockets[0].sent == ['[{"n":1},{"n":4}]']
            assert sockets[1].sent == ['[{"n":2},{"n":5},{"n":6}]', '[{"n":7}]']
            clients[0].notice('{"n":8}')  # waiting again: a new timer
            assert len(timers) == 2
        finally:
            loop.call_later = original  # type: ignore[method-assign]

    asyncio.run(main())


def test_match_quotes_are_kept_by_rules_pot_and_stack() -> None:
    """rooms._matches: a seat's quotes are the driver's (match_quotes), worked out once per
    (rule set, pot, stack): two seats with the same stack share them, another stack or pot
    has its own."""
    rules = Rules(shortfall="table_stakes")
    state = dataclasses.replace(new_session(["Ana", "Ben", "Cleo"], [3, 9, 9], rules=rules),
                                pot=4)
    first = rooms._matches(state, 1)
    assert first == [{"declaration": "in", "least": 4, "most": 4, "pays": 4,
                      "eliminated": False}]
    assert rooms._matches(state, 2) is first  # the same stack: shared
    assert rooms._matches(state, 0) == [{"declaration": "in", "least": 4, "most": 4,
                                         "pays": 3, "eliminated": False}]
    richer = dataclasses.replace(state, pot=8)
    assert rooms._matches(richer, 1)[0]["most"] == 8
