"""Protocol 5 (docs/protocol.md "Versions and framing") where a connection's seat
changes: nothing a connection needs is held back or dropped.

* In the lobby nothing is held: a browser joining by `join` gets `seated` and the room
  with its seat in the frame of that turn of the loop, the host's connection the room too
  (no notice, no deferred table patch: there is no table yet; no hold timer). A player once
  stayed unseated in the browser for 60 s in CI
  (test_chat_with_reactions_as_text_and_the_host_mutes); the cause was the browser's click
  lost to a re-render, tests/test_e2e_rerender.py; this pins the server's side.
* A seat holding another seat's sealed declaration (its table change deferred,
  ``Room._held_patch``) that leaves or is kicked ends with the spectator's table.

No timing: the hold's timers are caught (test_server_hold._Timers), the loop's turns
driven by ``sleep(0)``.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from server_support import FrameSocket as _Socket
from server_support import held_table
from test_server_hold import _client, _Timers

from gutskit.server.protocol import CreateRoom, Declare, Hello, Join, Kick, Leave, Start
from gutskit.server.rooms import RoomManager, ServerConfig
from gutskit.server.store import open_room_store


def test_a_join_in_the_lobby_is_answered_in_the_same_turn(tmp_path: Path) -> None:
    async def main() -> None:
        store = open_room_store(tmp_path / f"lobby-{uuid.uuid4().hex}.db")
        manager = RoomManager(store, ServerConfig())
        try:
            with _Timers(asyncio.get_running_loop(), clock=False) as timers:
                room, token = await manager.create(CreateRoom(
                    host_name="Ana", buy_in=40, decision_seconds=600))
                ana_socket, ben_socket = _Socket(), _Socket()
                ana, ben = _client(ana_socket), _client(ben_socket)
                await room.attach(ana, Hello(protocol=5, token=token))
                await room.attach(ben, Hello(protocol=5, token=None))
                await asyncio.sleep(0)
                ana_frames, ben_frames = len(ana_socket.frames), len(ben_socket.frames)
                assert ben_socket.frames[0][0]["type"] == "welcome"
                assert ben_socket.frames[0][0]["table"] is None  # the lobby: no table
                await room.handle(ben, Join(name="Ben"))
                await asyncio.sleep(0)  # one turn: the flush of this change
                # (a presence, on its own 0.25 s timer, may come between or share the frame)
                frame = [[m for m in f if m["type"] != "presence"]
                         for f in ben_socket.frames[ben_frames:]]
                assert [[m["type"] for m in f] for f in frame if f] == [["seated", "room"]]
                seated, update = next(f for f in frame if f)
                assert seated["seat"] == 1 and seated["token"]
                assert [s["name"] for s in update["room"]["seats"]] == ["Ana", "Ben"]
                assert [m["type"] for f in ana_socket.frames[ana_frames:] for m in f
                        if m["type"] != "presence"] == ["room"]
                for client in (ana, ben):
                    assert client.deferred is None and client.pending == []
                assert timers.set == []  # nothing held, ever, in the lobby
                assert ben.seat == 1
            manager.close()
        finally:
            store.close()

    asyncio.run(main())


@pytest.mark.parametrize("how", ["kick", "leave"])
def test_a_seat_that_watches_while_a_notice_is_held_ends_with_the_spectatorsheld_table(
        tmp_path: Path, how: str) -> None:
    """Protocol 5: seat 2 holds another seat's sealed declaration (a notice, its table
    change deferred) when it leaves the table or the host kicks it: its connection now
    watches, and once its frames went (with the change that removed it; every hold's timer
    then fired by hand) the table it holds is the spectator's, the same as a spectator's
    connection of protocol 4 holds; no table change is dropped."""

    async def main() -> None:
        store = open_room_store(tmp_path / f"held-{uuid.uuid4().hex}.db")
        manager = RoomManager(store, ServerConfig(min_reveal_seconds=0))
        manager.first_dealer = lambda count: 0
        try:
            with _Timers(asyncio.get_running_loop(), clock=False) as timers:
                room, token = await manager.create(CreateRoom(
                    host_name="Ana", buy_in=40, decision_seconds=600, reveal_seconds=0))
                sockets = [_Socket() for _ in range(3)]
                seats = [_client(s) for s in sockets]
                for number, seat in enumerate(seats):
                    await room.attach(seat, Hello(protocol=5,
                                                  token=token if not number else None))
                    if number:
                        await room.handle(seat, Join(name=f"P{number}"))
                four_socket = _Socket()
                four = _client(four_socket, protocol=4)
                await room.attach(four, Hello(protocol=4, token=None))
                await room.handle(seats[0], Start())
                for _ in range(3):
                    await asyncio.sleep(0)
                assert room.state is not None and room.state.phase.value == "declare"
                await room.handle(seats[1], Declare(round=1, action_id="a",
                                                    declaration="in"))
                for _ in range(3):
                    await asyncio.sleep(0)
                held = seats[2]
                assert held.deferred is not None  # the notice and its table change held
                if how == "kick":
                    await room.handle(seats[0], Kick(seat=2))
                else:
                    await room.handle(held, Leave())
                for _ in range(3):
                    await asyncio.sleep(0)
                four.flush()  # (protocol 4's short wait: over)
                for index in range(len(timers.set)):  # every hold over
                    timers.fire(index)
                assert held.seat is None and held.deferred is None and held.pending == []
                spectator = room.view_of(None)
                assert spectator is not None
                truth = spectator.model_dump(mode="json")
                truth.pop("time_left", None)
                assert held_table(sockets[2].frames) == truth
                assert held_table(four_socket.frames) == truth
                # P1 declared, P2's declaration made for it as it left (sealed), Ana to act;
                # antes 1 from 40 each
                assert (truth["seat"], truth["declared"], truth["to_act"], truth["stacks"],
                        truth["pot"], truth["eliminated"]) == (
                    -1, [False, True, True], [0], [39, 39, 39], 3, [False, False, True])
            manager.close()
        finally:
            store.close()

    asyncio.run(main())
