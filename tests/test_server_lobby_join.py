"""Protocol 5 in the lobby (docs/protocol.md "Versions and framing"): nothing is held. A
browser joining by `join` gets `seated` and the room with its seat in the frame of that
turn of the loop, and the host's connection the room too: no notice, no deferred table
patch (there is no table yet), no hold timer. (A player once stayed unseated in the
browser for 60 s in CI, test_chat_with_reactions_as_text_and_the_host_mutes; the cause was
the browser's click lost to a re-render, tests/test_e2e_rerender.py; this pins the
server's side.) No timing: the hold's timers are caught (test_server_hold._Timers), the
loop's turns driven by ``sleep(0)``.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from test_server_hold import _client, _Socket, _Timers

from gutskit.server.protocol import CreateRoom, Hello, Join
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
