"""Protocol 3's and 4's table patches (docs/protocol.md "Versions and framing"): a connection that
applies every ``patch`` to the table of its ``welcome`` (or last ``state``) holds, after
every change, exactly the view of its viewer built afresh by
:func:`gutskit.core.views.view` (the allow-list) and :func:`gutskit.server.rooms.table_fields`,
and the same table as a protocol-1 connection of the same viewer; also when the server
derives the other seats' views after a sealed declaration without building them
(:meth:`gutskit.server.rooms.Room._broadcast_state`). Random sessions of every preset and
of variant rule sets that hide cards, driven through a real room (the real SQLite store),
each seat acting on what its own patched table says, with a bot, a spectator, a second
tab and a connection that comes in the middle of a session. The seats speak protocol 4
(no fairness ``opening`` pushed: a protocol-3 spectator gets every round's, they get
none), the spectator 3, the host's second tab 1. A second tab of a seat and a second
spectator speak protocol 5 through the server's own framing (:class:`app.WsClient`): their
notices are held (the hold ended by the test at random steps, not by a clock) and the
table change with them made when the frame goes; whenever nothing is held they hold the
truth too, and at the end they got every event the protocol-4 connection of their viewer
got, once each, in order.
"""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from gutskit.core import views
from gutskit.core.engine import Phase
from gutskit.core.rules import PRESETS
from gutskit.server import app
from gutskit.server.protocol import (
    SERVER_ADAPTER,
    AddBot,
    CreateRoom,
    Declare,
    Hello,
    Join,
    PassCard,
    Start,
    TablePatch,
)
from gutskit.server.rooms import PER_VIEWER, Room, RoomManager, ServerConfig, table_fields
from gutskit.server.store import open_room_store

RULE_SETS: list[dict[str, Any]] = [{"preset": name} for name in PRESETS] + [
    {"pass_the_trash": True, "declaration": "sequential"},
    {"pass_the_trash": True, "hi_lo": True, "cards_per_hand": 2},
    {"no_peek": True, "ghost_hand": True, "community_card": True},
    {"hi_lo": True, "community_card": True, "all_out": "best_pays_antes",
     "declaration": "drop"},
]
"""Every preset, and variant rule sets that hide cards (as in ``test_viewers.py``)."""


class Connection:
    """An in-memory connection: every message it is sent, decoded; ``table`` is its
    table as a client of its protocol keeps it (protocol 3 and 4: patches applied)."""

    def __init__(self, protocol: int) -> None:
        self.seat: int | None = None
        self.protocol = protocol
        self.messages: list[dict[str, Any]] = []
        self.table: dict[str, Any] | None = None
        self.notices = 0

    def notice(self, text: str) -> None:
        """A message the connection may get later (app.WsClient.notice): only another
        seat's sealed declaration and the table's change with it, none of this viewer's
        own fields (its turn included) changed."""
        data: dict[str, Any] = json.loads(text)
        if data["type"] == "event":
            assert data["event"]["type"] == "DeclarationSealed", data
        elif data["type"] == "patch":
            assert not set(data["table"]) & PER_VIEWER, data
        else:  # protocol 1 and 2: the whole table
            assert data["type"] == "state", data
        self.notices += 1
        self.send(text)

    def send(self, message: BaseModel | str) -> None:
        text = message if isinstance(message, str) else message.model_dump_json()
        data: dict[str, Any] = json.loads(text)
        SERVER_ADAPTER.validate_python(data)  # a message of the protocol (a patch: its fields)
        self.messages.append(data)
        if data["type"] == "welcome" or data["type"] == "state":
            self.table = data["table"]
        elif data["type"] == "patch":
            assert self.protocol >= 3, "a patch to a protocol-1 connection"
            assert self.table is not None, "a patch before any table"
            assert data["table"], "an empty patch"
            self.table = {**self.table, **data["table"]}
        elif data["type"] == "opening":
            assert self.protocol < 4, "a fairness opening pushed to a protocol-4 connection"
        elif data["type"] == "event":
            seqs = [m["seq"] for m in self.messages if m["type"] == "event"]
            assert len(seqs) == 1 or seqs[-1] == seqs[-2] + 1, f"seqs {seqs[-2:]}"


class Wire(Connection):
    """The WebSocket under an :class:`app.WsClient` (protocol 5): each frame it is sent is
    a JSON array of messages, taken in order as :class:`Connection` takes them."""

    def __init__(self) -> None:
        super().__init__(5)
        self.scope: dict[str, Any] = {}  # no transport (app.transport_of)
        self.frames = 0

    async def send_text(self, text: str) -> None:
        self.frames += 1
        messages = json.loads(text)
        assert isinstance(messages, list), text
        for message in messages:
            self.send(json.dumps(message))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        return None


def _wired() -> tuple[app.WsClient, Wire]:
    """A protocol-5 connection through the server's framing, and its WebSocket."""
    wire = Wire()
    return app.WsClient(wire), wire  # type: ignore[arg-type]


def _holding(client: app.WsClient) -> bool:
    """``client`` holds notices or a table change (protocol 5: its frame has not gone)."""
    return bool(client.pending) or client.deferred is not None


def fresh(room: Room, seat: int | None) -> dict[str, Any]:
    """The table of viewer ``seat`` built afresh from the allow-listed view."""
    assert room.state is not None
    return table_fields(room.state, views.view(room.state, room.viewer(seat)),
                        room._time_left())


def same(held: dict[str, Any], truth: dict[str, Any], where: str) -> None:
    """``held`` is ``truth``, but for the seconds left, which tick (only whether a clock
    runs must agree)."""
    assert (held["time_left"] is None) == (truth["time_left"] is None), where
    rest = {k: v for k, v in held.items() if k != "time_left"}
    assert rest == {k: v for k, v in truth.items() if k != "time_left"}, where


async def _session(rules: dict[str, Any], n: int, seed: int, folder: Path) -> int:
    """Play a session; check every connection after every step. Returns the patches."""
    rng = random.Random(seed)
    store = open_room_store(folder / f"patch-{uuid.uuid4().hex}.db")
    manager = RoomManager(store, ServerConfig(min_reveal_seconds=0, bot_delay=(0.0, 0.0)))
    manager.first_dealer = lambda count: 0
    try:
        room, token = await manager.create(CreateRoom(
            host_name="Ana", rules=rules, buy_in=40, decision_seconds=600, reveal_seconds=0))
        seats: list[Connection] = []
        for number in range(n - 1):
            client = Connection(4)
            await room.attach(client, Hello(protocol=4, token=token if not number else None))
            if number:
                await room.handle(client, Join(name=f"P{number}"))
            seats.append(client)
        host = seats[0]
        await room.handle(host, AddBot(style="loose"))
        watcher = Connection(3)
        await room.attach(watcher, Hello(protocol=3, token=None))
        old = Connection(1)  # a protocol-1 tab of the host: whole states
        await room.attach(old, Hello(protocol=1, token=token))
        tabs = [*seats, watcher, old]
        held5: list[tuple[app.WsClient, Wire, Connection]] = []  # (its 4 of the same viewer)
        holds = 0  # steps that found a protocol-5 connection holding a table change
        for token5, twin in ((token, host), (None, watcher)):  # the host's tab, a watcher
            client5, wire = _wired()
            await room.attach(client5, Hello(protocol=5, token=token5))
            held5.append((client5, wire, twin))
        await room.handle(host, Start())
        acted: set[tuple[int, int, str]] = set()
        late: Connection | None = None
        for step in range(40_000):  # (steps, not a clock: a write may take long under load)
            for _ in range(3):
                await asyncio.sleep(0)
            async with room.lock:
                state = room.state
                assert state is not None
                for at, tab in enumerate(tabs):
                    assert tab.table is not None
                    same(tab.table, fresh(room, tab.seat), f"step {step}, connection {at}")
                same(host.table or {}, old.table or {}, f"step {step}: protocol 3 vs 1")
                for client5, wire, _ in held5:
                    holds += client5.deferred is not None
                    if _holding(client5) and rng.random() < 0.3:
                        client5.flush()  # the hold is over (app.NOTICE_HOLD)
                    if not _holding(client5):
                        assert wire.table is not None
                        same(wire.table, fresh(room, client5.seat), f"step {step}: v5")
            if state.phase is Phase.OVER or state.round_number > 4:
                break
            if late is None and state.round_number == 2:  # comes in mid-session
                late = Connection(4 if seed % 2 else 3)  # a late v3 gets the openings so far
                await room.attach(late, Hello(protocol=late.protocol, token=None))
                tabs.append(late)
            moved = False
            for client in rng.sample(seats, len(seats)):
                table = client.table
                assert table is not None and client.seat is not None
                key = (table["round"], client.seat, table["phase"])
                if key in acted:
                    continue
                if table["phase"] == "pass" and table["hand"] and table["passed_card"] is None:
                    acted.add(key)
                    await room.handle(client, PassCard(
                        round=table["round"], action_id=f"p{key}",
                        card=rng.choice(table["hand"])))
                    moved = True
                    break
                if table["phase"] == "declare" and table["my_turn"]:
                    acted.add(key)
                    legal = table["legal_declarations"]
                    await room.handle(client, Declare(
                        round=table["round"], action_id=f"d{key}",
                        declaration=legal[0] if rng.random() < 0.6 else rng.choice(legal)))
                    moved = True
                    break
            if not moved:
                await asyncio.sleep(0.002)
        else:
            raise AssertionError("the session did not get to round 4")
        for client5, wire, twin in held5:  # the holds end: the same table and events as 4
            client5.flush()
            assert wire.table is not None and twin.table is not None
            same(wire.table, fresh(room, client5.seat), "the end: v5")
            same(wire.table, twin.table, "the end: v5 vs v4")
            assert ([m for m in wire.messages if m["type"] == "event"]
                    == [m for m in twin.messages if m["type"] == "event"])
        patches = sum(1 for tab in tabs for m in tab.messages if m["type"] == "patch")
        if room.settings.rules.declaration == "simultaneous":  # sealed: notices to others
            assert sum(tab.notices for tab in tabs) > 0
            assert holds > 0, "no protocol-5 connection held a table change"
        if room.settings.seed_reveal == "shown":  # rounds 1 to 4 opened: the v3 watcher's
            opened = {m["round"] for m in watcher.messages if m["type"] == "opening"}
            assert opened >= {1, 2, 3}, opened
            if late is not None and late.protocol == 3:
                assert {m["round"] for m in late.messages if m["type"] == "opening"} >= {1}
        manager.close()
        return patches
    finally:
        store.close()


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, len(RULE_SETS) - 1), n=st.integers(3, 5),
       seed=st.integers(0, 10**6))
def test_a_patched_table_is_the_view_built_afresh(tmp_path: Path, index: int, n: int,
                                                   seed: int) -> None:
    patches = asyncio.run(_session(RULE_SETS[index], n, seed, tmp_path))
    assert patches > 0


@pytest.fixture(autouse=True)
def _held_by_the_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """Protocol 5's holds end only when the test flushes (no timer fires in a session)."""
    monkeypatch.setattr(app, "NOTICE_HOLD", 3600.0)


@pytest.mark.parametrize("rules", RULE_SETS, ids=[str(r) for r in RULE_SETS])
def test_every_rule_set_patches_to_the_truth(tmp_path: Path, rules: dict[str, Any]) -> None:
    assert asyncio.run(_session(rules, 4, 7, tmp_path)) > 0


def test_a_patch_names_only_table_fields() -> None:
    """A patch is a merge patch of the table view's own fields (an unknown one is not a
    message of the protocol)."""
    patch = TablePatch(table={"declared": [True, False], "to_act": [1]})
    assert json.loads(patch.model_dump_json()) == {
        "type": "patch", "table": {"declared": [True, False], "to_act": [1]}}
    with pytest.raises(ValueError, match=r"not fields of the table view: \['cards'\]"):
        TablePatch(table={"cards": ["As"]})
