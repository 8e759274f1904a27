"""The next round's commitment is worked out ahead, on the store's database thread
(:meth:`gutskit.server.rooms.RoomManager.new_commitment`), from the seeds in the order
they were always drawn: what is committed and revealed does not change."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from gutskit.server import fairness
from gutskit.server.rooms import RoomManager
from gutskit.server.store import open_room_store


def _counting(start: int) -> Callable[[], bytes]:
    """Seeds ``bytes([start]) * 32``, then ``start + 1``, ..."""
    number = [start]

    def next_seed() -> bytes:
        number[0] += 1
        return bytes([number[0] - 1]) * 32

    return next_seed


def test_prepare_is_the_three_steps() -> None:
    seed = bytes(32)
    prepared = fairness.prepare(seed)
    secret = fairness.secret_from_seed(seed)
    assert prepared.secret == secret
    assert prepared.leaves == fairness.leaves(secret)
    assert prepared.commitment[:16] == "8bc61a161ccc3502"  # the module doc's example


def test_commitments_are_ahead_on_the_db_thread_in_seed_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_room_store(tmp_path / "spare.db")
    manager = RoomManager(store)
    manager.new_seed = _counting(1)
    where: list[str] = []
    prepare = fairness.prepare

    def traced(seed: bytes) -> fairness.Prepared:
        where.append(f"{seed[0]}@{threading.current_thread().name}")
        return prepare(seed)

    monkeypatch.setattr(fairness, "prepare", traced)

    async def play() -> list[tuple[int, str, str]]:
        kept: dict[str, tuple[fairness.DeckSecret, list[str]]] = {}
        dealt = []
        for number in (1, 2, 3):
            deal = manager.new_commitment(number, kept)
            dealt.append((deal.round, deal.seed, deal.commitment))
            spare = manager._spare
            assert spare is not None and spare[2] is not None
            await spare[2]  # worked out before the next deal asks for it
        assert list(kept) == [(bytes([n]) * 32).hex() for n in (1, 2, 3)]
        manager.new_seed = _counting(50)  # a new source: the seed drawn ahead is dropped
        deal = manager.new_commitment(4, kept)
        dealt.append((deal.round, deal.seed, deal.commitment))
        return dealt

    dealt = asyncio.run(play())
    store.close()
    assert [(r, bytes.fromhex(s)[0]) for r, s, _ in dealt] == [(1, 1), (2, 2), (3, 3), (4, 50)]
    for _, seed, commitment in dealt:
        assert commitment == prepare(bytes.fromhex(seed)).commitment
    # seed 1 here (nothing drawn ahead yet), 2, 3 and 4 ahead on the database thread;
    # 50 here (the source changed), 51 ahead
    assert where[0] == "1@MainThread"
    assert where[1:4] == ["2@gutskit-db", "3@gutskit-db", "4@gutskit-db"]
    assert "50@MainThread" in where


def test_without_a_running_loop_nothing_is_drawn_ahead(tmp_path: Path) -> None:
    store = open_room_store(tmp_path / "sync.db")
    manager = RoomManager(store)
    manager.new_seed = _counting(7)
    assert bytes.fromhex(manager.new_commitment(1).seed)[0] == 7
    assert manager._spare is None
    assert bytes.fromhex(manager.new_commitment(2).seed)[0] == 8
    store.close()
