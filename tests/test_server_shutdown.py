"""A server stopping while a room's task is half way (session 12 F3): SIGTERM to
``guts serve --workers 2 --redis ...`` once logged "Task exception was never retrieved ...
Room._bot_act ... RuntimeError('the store is closed')": a bot's action that had taken
itself out of the room's bot tasks (waiting for its move off the loop) was not cancelled
at shutdown, and wrote to the store after it was closed. ``RoomManager.aclose`` (the
app's shutdown, before the store closes) cancels every task of every room and waits for
them. No timing: the bot's move is held by an event until the test lets it go."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
from pathlib import Path
from typing import Any

import pytest
from server_support import FrameSocket as _Socket

from gutskit.server import app, rooms
from gutskit.server.protocol import AddBot, CreateRoom, Hello, Start
from gutskit.server.rooms import RoomManager, ServerConfig
from gutskit.server.store import open_room_store
from gutskit.strategy.bots import bot_action

WAIT = 60.0
"""Seconds a wait for the bot's thread may take (a bound, never reached when passing)."""


def test_a_bot_action_pending_at_shutdown_ends_quietly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bot's move is being worked out (in its thread) when the room manager shuts down:
    its task is cancelled and ended before the store closes; once the move comes back
    nothing more runs (no exception for the loop's handler, no error logged), and the
    stored table replays to the chips it had: 2 x 40, none lost."""
    asked, release = threading.Event(), threading.Event()
    real_action = bot_action

    def held_action(*args: Any) -> Any:
        asked.set()
        release.wait(WAIT)
        return real_action(*args)

    monkeypatch.setattr(rooms, "bot_action", held_action)
    caplog.set_level(logging.DEBUG)
    db = tmp_path / "shutdown.db"
    problems: list[dict[str, Any]] = []

    async def main() -> tuple[str, int]:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _loop, context: problems.append(context))
        store = open_room_store(db)
        manager = RoomManager(store, ServerConfig(min_reveal_seconds=0, bot_delay=(0, 0)))
        manager.first_dealer = lambda count: 0
        try:
            room, token = await manager.create(CreateRoom(
                host_name="Ana", buy_in=40, decision_seconds=600, reveal_seconds=0))
            host = app.WsClient(_Socket())  # type: ignore[arg-type]
            await room.attach(host, Hello(protocol=5, token=token))
            await room.handle(host, AddBot())
            await room.handle(host, Start())
            assert await asyncio.to_thread(asked.wait, WAIT), "the bot was never asked"
            assert room.state is not None and room.state.phase.value == "declare"
            events = len(room.events)
            # the bot's task holds the room's lock, out of the bot tasks close() knew
            pending = room.running()
            assert len(pending) >= 1 and room.lock.locked()
            assert not [t for t in room._bot_tasks.values() if not t.done()]
            await manager.aclose()
            assert room.running() == [] and all(t.cancelled() for t in pending)
        finally:
            store.close()
        release.set()  # the move comes back to a closed room and store
        # The bot's thread joined: its hand-back to the loop is queued before this resumes
        # (both call_soon_threadsafe); then what it might wake or start runs.
        await loop.shutdown_default_executor()
        for _ in range(5):
            await asyncio.sleep(0)
        del room, pending
        gc.collect()  # a task that ended with an exception nobody took says so now
        return room_id_of(manager), events

    def room_id_of(manager: RoomManager) -> str:
        (room_id,) = manager.rooms
        return room_id

    room_id, events = asyncio.run(main())
    gc.collect()
    assert problems == []
    assert "never retrieved" not in caplog.text
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    store = open_room_store(db)
    try:
        (loaded,) = RoomManager(store).load()
        assert loaded.room_id == room_id
        assert len(loaded.events) == events  # the bot's move was not stored
        state = loaded.state
        assert state is not None and state.total == 80
        assert sum(state.stacks) + state.pot + state.reserve == 80
    finally:
        store.close()
