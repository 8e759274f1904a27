"""Protocol 5 (docs/protocol.md "Versions and framing"): a notice is held for the next frame
the connection gets anyway, at most ``app.NOTICE_HOLD`` seconds, and the table change
with it is one patch made when that frame goes. No timing: the hold's timers are caught
and fired by hand (``loop.call_at`` replaced), the loop's turns driven by ``sleep(0)``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from server_support import FrameSocket as _Socket
from server_support import held_table

from gutskit.server import app
from gutskit.server.protocol import CreateRoom, Declare, Hello, Join, Start
from gutskit.server.rooms import RoomManager, ServerConfig
from gutskit.server.store import open_room_store


class _Timers:
    """The hold's timers (``loop.call_at`` of ``_Flusher.run_held``) caught: each kept
    (when, callback, args), never run by the loop (any other timer is the loop's own);
    ``loop.time`` is ``now`` when ``clock`` (only where no other timer is set)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, clock: bool = True) -> None:
        self.loop = loop
        self.clock = clock
        self.now = 1000.0
        self.set: list[tuple[float, Callable[..., Any], tuple[Any, ...]]] = []
        self.original = loop.call_at

    def __enter__(self) -> _Timers:
        self.loop.call_at = self._call_at  # type: ignore[method-assign, assignment]
        if self.clock:
            self.loop.time = lambda: self.now  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        del self.loop.call_at
        if self.clock:
            del self.loop.time

    def _call_at(self, when: float, callback: Callable[..., Any], *args: Any,
                 **kwargs: Any) -> Any:
        if getattr(callback, "__name__", "") != "run_held":
            return self.original(when, callback, *args, **kwargs)
        self.set.append((when, callback, args))
        return None

    def fire(self, index: int) -> None:
        _, callback, args = self.set[index]
        callback(*args)


def _client(socket: _Socket, protocol: int = 5) -> app.WsClient:
    client = app.WsClient(socket)  # type: ignore[arg-type]
    client.protocol = protocol
    return client


def test_a_held_notice_goes_out_with_the_next_frame() -> None:
    """Protocol 5: notices wait, over many turns of the loop, for the connection's next
    frame; a message sent later takes them with it at the end of its turn, in order."""

    async def main() -> None:
        with _Timers(asyncio.get_running_loop()) as timers:
            socket = _Socket()
            client = _client(socket)
            client.notice('{"n":1}')
            for _ in range(5):
                await asyncio.sleep(0)
            client.notice('{"n":2}')
            await asyncio.sleep(0)
            assert socket.frames == []  # held
            assert len(timers.set) == 1  # one hold, for the first notice
            client.send('{"n":3}')
            await asyncio.sleep(0)
            assert socket.frames == [[{"n": 1}, {"n": 2}, {"n": 3}]]

    asyncio.run(main())


def test_the_hold_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A notice nothing else takes goes out in a frame of its own by the timer of the step
    its hold ends in, never later than NOTICE_HOLD after it: one timer per step for every
    connection whose hold ends in it; a connection flushed meanwhile and holding again is
    left to its own later step."""
    monkeypatch.setattr(app, "NOTICE_HOLD", 2.0)
    monkeypatch.setattr(app, "HOLD_STEP", 0.5)

    async def main() -> None:
        with _Timers(asyncio.get_running_loop()) as timers:
            sockets = [_Socket(), _Socket(), _Socket()]
            ana, ben, cleo = (_client(s) for s in sockets)
            timers.now = 1000.2
            ana.notice('{"n":1}')  # hold ends by 1002.2: in the step from 1002.0
            timers.now = 1000.4
            ben.notice('{"n":2}')  # by 1002.4: the same step, the same timer
            assert [when for when, _, _ in timers.set] == [1002.0]
            ben.send('{"n":3}')
            await asyncio.sleep(0)
            assert sockets[1].frames == [[{"n": 2}, {"n": 3}]]
            timers.now = 1000.6
            ben.notice('{"n":4}')  # held again: by 1002.6, the next step's timer
            cleo.notice('{"n":5}')
            assert [when for when, _, _ in timers.set] == [1002.0, 1002.5]
            timers.now = 1002.0
            timers.fire(0)
            assert sockets[0].frames == [[{"n": 1}]]  # 1.8 s after it was held
            assert sockets[1].frames == [[{"n": 2}, {"n": 3}]]  # its hold is not over
            timers.now = 1002.5
            timers.fire(1)
            assert sockets[1].frames[1:] == [[{"n": 4}]] and sockets[2].frames == [[{"n": 5}]]

    asyncio.run(main())


def test_protocol_4_notices_keep_their_short_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under protocol 4 a notice waits NOTICE_DELAY (call_later), not the hold."""
    monkeypatch.setattr(app, "NOTICE_DELAY", 3600.0)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        delays: list[float] = []
        original = loop.call_later

        def counted(delay: float, callback: Any, *args: Any) -> Any:
            delays.append(delay)
            return original(delay, callback, *args)

        loop.call_later = counted  # type: ignore[method-assign, assignment]
        try:
            with _Timers(loop, clock=False) as timers:
                _client(_Socket(), protocol=4).notice('{"n":1}')
                assert delays == [3600.0] and timers.set == []
        finally:
            loop.call_later = original  # type: ignore[method-assign]

    asyncio.run(main())


def test_a_deferred_patch_is_made_when_the_frame_goes() -> None:
    """defer_patch: the table change of the held notices is made once, as the frame goes,
    and sent after the frame's other messages; nothing when it says nothing changed."""

    async def main() -> None:
        with _Timers(asyncio.get_running_loop()) as timers:
            socket = _Socket()
            client = _client(socket)
            made: list[app.WsClient] = []

            def patch(holder: app.WsClient) -> str | None:
                made.append(holder)
                return f'{{"type":"patch","n":{len(made)}}}'

            client.notice('{"n":1}')
            client.defer_patch(patch)
            client.notice('{"n":2}')
            client.defer_patch(patch)
            await asyncio.sleep(0)
            assert made == [] and socket.frames == []
            timers.fire(0)
            assert made == [client]
            assert socket.frames == [[{"n": 1}, {"n": 2}, {"type": "patch", "n": 1}]]
            client.defer_patch(lambda holder: None)  # alone: held, and nothing to send
            assert len(timers.set) == 2
            timers.fire(1)
            assert socket.frames == [[{"n": 1}, {"n": 2}, {"type": "patch", "n": 1}]]

    asyncio.run(main())


def test_a_room_holds_the_notices_and_patches_once(tmp_path: Path) -> None:
    """A real room, three seats declaring sealed: the protocol-5 spectator holds the first
    two declarations' events and gets, in the frame the reveal goes with, both events, and
    a table change worked out once; it ends with the table and the events of a protocol-4
    spectator."""

    async def main() -> None:
        store = open_room_store(tmp_path / f"hold-{uuid.uuid4().hex}.db")
        manager = RoomManager(store, ServerConfig(min_reveal_seconds=0))
        manager.first_dealer = lambda count: 0
        try:
            with _Timers(asyncio.get_running_loop(), clock=False) as timers:
                room, token = await manager.create(CreateRoom(
                    host_name="Ana", buy_in=40, decision_seconds=600, reveal_seconds=0))
                seats = []
                for number in range(3):
                    seat = _client(_Socket())
                    await room.attach(seat, Hello(protocol=5,
                                                  token=token if not number else None))
                    if number:
                        await room.handle(seat, Join(name=f"P{number}"))
                    seats.append(seat)
                five_socket, four_socket = _Socket(), _Socket()
                five, four = _client(five_socket), _client(four_socket, protocol=4)
                await room.attach(five, Hello(protocol=5, token=None))
                await room.attach(four, Hello(protocol=4, token=None))
                await room.handle(seats[0], Start())
                for _ in range(3):
                    await asyncio.sleep(0)
                assert room.state is not None and room.state.phase.value == "declare"
                frames = len(five_socket.frames)
                await room.handle(seats[1], Declare(round=1, action_id="a", declaration="in"))
                await room.handle(seats[2], Declare(round=1, action_id="b", declaration="out"))
                for _ in range(3):
                    await asyncio.sleep(0)
                assert len(five_socket.frames) == frames  # both held
                assert five.deferred is not None and len(five.pending) == 2
                four.flush()  # (protocol 4's short wait: over)
                await room.handle(seats[0], Declare(round=1, action_id="c", declaration="in"))
                for _ in range(3):
                    await asyncio.sleep(0)
                frame = five_socket.frames[frames]
                assert [m["type"] for m in frame[:2]] == ["event", "event"]
                assert [m["event"] for m in frame[:2]] == [
                    {"type": "DeclarationSealed", "seat": 1},
                    {"type": "DeclarationSealed", "seat": 2}]
                assert [m.get("event", m)["type"] for m in frame[2:]] == [
                    "DeclarationSealed", "DeclarationsRevealed", "RoundResolved", "patch"]
                assert frame[2]["event"]["seat"] == 0  # the last: the round is revealed
                # one patch for the three declarations and the result (the held notices'
                # change made no patch of its own)
                assert five.deferred is None
                events5 = [m for f in five_socket.frames for m in f if m["type"] == "event"]
                events4 = [m for f in four_socket.frames for m in f if m["type"] == "event"]
                assert events5 == events4
                assert [m["seq"] for m in events5] == list(range(
                    events5[0]["seq"], events5[0]["seq"] + len(events5)))

                assert held_table(five_socket.frames) == held_table(four_socket.frames)
                assert timers.set  # the holds' timers (none fired)
            manager.close()
        finally:
            store.close()

    asyncio.run(main())
