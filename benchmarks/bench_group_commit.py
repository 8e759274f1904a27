"""How long a room's write waits for its commit while the event loop is busy: the group
commit of :mod:`gutskit.server.store` alone, on a real SQLite file, in one process.

The server's loop is busy with other rooms' work (views, encoding, sockets) while its
writes are committed on the database thread; what a write waits (from ``append_async``'s
submit until the room resumes) is the reveal latency's floor (events are stored before
they are sent). ``load_server.py`` measures it with everything else on a shared machine;
this isolates it: ``--busy`` share of the loop is spent in CPU-bound callbacks (``--slice``
ms each, pure Python: they hold the GIL, as the rooms' work does) while ``--writers``
rooms each write ``--events`` events (and an applied-action row) after a random pause
(exponential, mean ``--think`` seconds), ``--duration`` seconds long.

Prints the machine, load and versions, then the waits (p50 / p99 / max), the commits and
writes, the loop's lag (a callback every 10 ms) and the CPU time per write (all threads).
A/B: run it with ``PYTHONPATH`` pointing at each tree, alternated:

    PYTHONPATH=src python benchmarks/bench_group_commit.py --duration 10
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from common import arguments, header, latency_summary
from sqlalchemy import insert

from gutskit.server import store as store_module
from gutskit.server.store import open_room_store

BURNED = [0.0]
"""CPU seconds the busy callbacks burned."""


def _burn(seconds: float) -> None:
    """Hold the GIL for ``seconds`` of this thread's CPU time (a loaded machine stretches
    it in wall time, as it does the rooms' work)."""
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        pass
    BURNED[0] += time.thread_time() - start


async def _busy(share: float, slice_s: float, tasks: int, stop: float) -> None:
    """One of ``tasks`` callbacks keeping the loop ``share`` busy together."""
    gap = tasks * slice_s / share - slice_s  # mean pause between two slices
    while time.perf_counter() < stop:
        _burn(slice_s)
        await asyncio.sleep(random.uniform(0, 2 * gap))


async def _writer(writer: store_module.GroupWriter, session: int, events: int, think: float,
                  stop: float, waits: list[float]) -> None:
    seq = 0
    while time.perf_counter() < stop:
        await asyncio.sleep(random.expovariate(1 / think))
        rows = store_module._Rows()
        for _ in range(events):
            rows.events.append({"session_id": session, "seq": seq, "type": "Declared",
                                "payload": {"type": "Declared", "seat": seq % 6, "in": True}})
            seq += 1
        asked = time.perf_counter()
        await writer.submit(rows)
        waits.append(time.perf_counter() - asked)


async def _lag(stop: float, lags: list[float]) -> None:
    loop = asyncio.get_running_loop()
    while time.perf_counter() < stop:
        asked = loop.time()
        await asyncio.sleep(0.01)
        lags.append(loop.time() - asked - 0.01)


async def _main(folder: Path, writers: int, events: int, think: float, busy: float,
                slice_ms: float, duration: float) -> None:
    store = open_room_store(folder / "bench.db")
    sessions = store_module._SESSIONS
    with store.engine.begin() as connection:
        ids: list[int] = []
        for _ in range(writers):
            key = connection.execute(insert(sessions).values(
                created_at=datetime.now(UTC), source="bench", rules={}, players=[],
                status="playing", end_reason=None)).inserted_primary_key
            assert key is not None
            ids.append(int(key[0]))
    writer = store.writer
    waits: list[float] = []
    lags: list[float] = []
    stop = time.perf_counter() + duration
    cpu = time.process_time()
    before = (writer.commits, writer.writes)
    tasks = [asyncio.create_task(_busy(busy, slice_ms / 1000, 20, stop)) for _ in range(20)]
    tasks += [asyncio.create_task(_writer(writer, session, events, think, stop, waits))
              for session in ids]
    tasks.append(asyncio.create_task(_lag(stop, lags)))
    await asyncio.gather(*tasks)
    cpu = time.process_time() - cpu
    commits, writes = writer.commits - before[0], writer.writes - before[1]
    store.close()
    print(f"writes waiting for their commit (submit to resumed): {latency_summary(waits)}")
    print(f"commits: {commits} for {writes} writes ({writes / max(1, commits):.2f} per commit)")
    print(f"loop lag (a 10 ms sleep's overshoot): {latency_summary(lags)}")
    print(f"CPU (all threads): {cpu:.2f} s, of which the busy callbacks {BURNED[0]:.2f} s; "
          f"the rest per write: {1000 * (cpu - BURNED[0]) / max(1, writes):.3f} ms")


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--writers", type=int, default=200, help="rooms writing")
    parser.add_argument("--events", type=int, default=2, help="events per write")
    parser.add_argument("--think", type=float, default=0.6, help="mean seconds between writes")
    parser.add_argument("--busy", type=float, default=0.7, help="share of the loop kept busy")
    parser.add_argument("--slice", type=float, default=2.0, help="ms per busy callback")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not (0 < args.busy < 1 and 1 <= args.writers <= 2000 and 0 < args.duration <= 300):
        parser.error("bounded: 0 < --busy < 1, 1-2000 writers, at most 300 seconds")
    random.seed(args.seed)
    header("group commit: a write's wait while the loop is busy")
    print(f"{args.writers} writers x {args.events} events every {args.think:g}s (mean), loop "
          f"{100 * args.busy:.0f}% busy in {args.slice:g} ms slices, {args.duration:g}s; "
          f"store: {store_module.__file__}")
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(_main(Path(folder), args.writers, args.events, args.think, args.busy,
                          args.slice, args.duration))


if __name__ == "__main__":
    main()
