"""Bounded turns of the event loop: the connections flushed by one callback
(:class:`gutskit.server.app._Flusher`, at most ``FLUSH_BATCH``) and the committed writes
settled in one turn (:class:`gutskit.server.store._Settler`, at most ``SETTLE_BATCH``);
the rest wait for later turns, in order, and nothing is lost. No timing: the loop's
turns are counted."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from gutskit.server import app, store


class _Client:
    """Stands for a :class:`~gutskit.server.app.WsClient`: records its flushes."""

    def __init__(self, name: int, flushed: list[int]) -> None:
        self.name = name
        self.flushed = flushed
        self.scheduled = app._LATER  # (holds only notices: run_waiting's condition)

    def flush(self) -> None:
        self.scheduled = app._NONE
        self.flushed.append(self.name)


class _Ticker:
    """Counts the loop's turns: its callback runs once in every turn (started before the
    callbacks under test are scheduled, so it runs before theirs in each turn)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.turn = 0
        loop.call_soon(self._tick)

    def _tick(self) -> None:
        self.turn += 1
        self.loop.call_soon(self._tick)


async def _until(condition: Any, limit: int = 1000) -> None:
    """Let the loop turn until ``condition()``."""
    for _ in range(limit):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"not reached in {limit} turns")


def test_a_flush_of_more_connections_than_a_batch_is_spread_over_turns() -> None:
    async def run() -> tuple[list[int], list[int]]:
        loop = asyncio.get_running_loop()
        ticker = _Ticker(loop)
        flusher = app._Flusher(loop)
        flushed: list[int] = []
        turn_of: list[int] = []

        class Counted(_Client):
            def flush(self) -> None:
                super().flush()
                turn_of.append(ticker.turn)

        clients = [Counted(i, flushed) for i in range(150)]
        for client in clients:  # (the first schedules the flush: one callback)
            flusher.add(client)  # type: ignore[arg-type]
        await _until(lambda: len(flushed) == 150)
        return flushed, [turn_of.count(t) for t in sorted(set(turn_of))]

    flushed, per_turn = asyncio.run(run())
    assert app.FLUSH_BATCH == 64
    assert flushed == list(range(150))  # in order, each once
    assert per_turn == [64, 64, 22]  # one callback of 64 at most per turn


def test_a_notice_flush_of_more_connections_than_a_batch_is_spread_over_turns() -> None:
    async def run() -> tuple[list[int], list[int]]:
        flusher = app._Flusher(asyncio.get_running_loop())
        flushed: list[int] = []
        clients = [_Client(i, flushed) for i in range(130)]
        flusher.waiting = list(clients)  # type: ignore[arg-type]
        clients[70].scheduled = app._NONE  # flushed meanwhile by something else
        flusher.run_waiting()
        first = list(flushed)
        await _until(lambda: len(flushed) == 129)
        return first, flushed

    first, flushed = asyncio.run(run())
    assert first == list(range(64))
    assert flushed == [i for i in range(130) if i != 70]


def test_hand_backs_settle_at_most_a_batch_per_turn_in_order() -> None:
    async def run() -> tuple[list[int], list[int], list[int]]:
        loop = asyncio.get_running_loop()
        ticker = _Ticker(loop)
        settler = store._Settler(loop)
        order: list[int] = []
        turn_of: list[int] = []

        def then(i: int) -> Any:
            def settled() -> None:
                order.append(i)
                turn_of.append(ticker.turn)
            return settled

        futures: list[asyncio.Future[Any]] = []
        outcomes: list[Any] = []
        for i in range(21):
            future = loop.create_future()
            futures.append(future)
            job = store._Job(loop, settler, future, None, None, then(i))
            outcomes.append((job, i, None))
        settler.take(outcomes[:13])  # two hand-backs in one turn: 13, then 8
        settler.take(outcomes[13:])
        settled_at_once = list(order)

        await _until(lambda: len(order) == 21)
        results = [await future for future in futures]
        assert results == list(range(21))
        return settled_at_once, order, turn_of

    settled_at_once, order, turn_of = asyncio.run(run())
    assert store.SETTLE_BATCH == 8
    assert settled_at_once == list(range(8))  # the first turn's 8, across both hand-backs
    assert order == list(range(21))  # every write's then, once, in the order handed back
    assert [turn_of.count(t) for t in sorted(set(turn_of))] == [8, 8, 5]


def test_a_failing_then_fails_its_own_write_only() -> None:
    async def run() -> list[Any]:
        loop = asyncio.get_running_loop()
        settler = store._Settler(loop)

        def boom() -> None:
            raise ValueError("room 2's change")

        outcomes = []
        futures = []
        for i, then in enumerate([None, boom, None]):
            future: asyncio.Future[Any] = loop.create_future()
            futures.append(future)
            outcomes.append((store._Job(loop, settler, future, None, None, then), i, None))
        settler.take(outcomes)
        return await asyncio.gather(*futures, return_exceptions=True)

    first, second, third = asyncio.run(run())
    assert (first, third) == (0, 2)
    assert isinstance(second, ValueError) and str(second) == "room 2's change"


def test_an_idle_job_cancelled_before_it_starts_is_not_run(tmp_path: Path) -> None:
    """The next round's fairness commitment is an idle job; a deal that found it not ready
    works it out itself and cancels the job, which then is not worked out a second time."""
    room_store = store.open_room_store(tmp_path / "idle.db")
    ran: list[str] = []
    release = threading.Event()

    async def run() -> None:
        writer = room_store.writer
        busy = writer.call(lambda: release.wait(60))  # holds the database thread
        dropped = writer.call(lambda: ran.append("dropped"), idle=True)
        kept = writer.call(lambda: ran.append("kept"), idle=True)
        dropped.cancel()
        release.set()
        assert await busy is True
        await kept
        await writer.call(lambda: ran.append("after"))

    try:
        asyncio.run(run())
    finally:
        room_store.close()
    assert ran == ["kept", "after"]
