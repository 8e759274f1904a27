"""The server's own CPU per round, in one process and without sockets.

``load_server.py`` measures the whole server over real WebSockets; this runs the rooms of
``guts serve`` (:class:`~gutskit.server.rooms.RoomManager`, the real SQLite store with its
group commit, the real per-connection framing of :class:`~gutskit.server.app.WsClient`)
with in-memory connections: every seat is a bot that decodes each frame that may change
what it reads (as the load script's bots do) and declares as soon as its table says it is
its turn (in with probability 0.3; protocol ``--protocol``, default 5: the bot keeps its
table and applies each ``patch``). So the CPU
it reports per round is the rooms' own (views, encoding, storage, fairness), without
uvicorn, the websockets library and the kernel; it is far less noisy on a shared machine
than the load test, and ``--profile`` shows where it goes (cProfile, the top functions).
On a loaded machine, ``--callgrind`` under valgrind counts the instructions of the played
rounds instead (exact and repeatable to about 1%, unlike CPU time):

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=rooms.cg \
        python benchmarks/bench_rooms.py --tables 10 --rounds 5 --callgrind
    callgrind_annotate rooms.cg | head   # the total, divided by the rounds printed

    python benchmarks/bench_rooms.py --tables 50 --rounds 20

Prints the machine, load and versions, and the CPU seconds (user + system, every
thread of this process, setup excluded) per round resolved, and the database thread's
share: its transactions and writes per round (the group commit's counters) and its CPU
(its thread's clock, read from the main thread: the commits and its other jobs, such as
the next rounds' fairness commitments worked out ahead). The bots' own work (decoding,
choosing) is timed once after the rounds, on the frames each received, and given apart.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import platform
import pstats
import random
import subprocess
import tempfile
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any, cast

from gutskit.server.app import WsClient
from gutskit.server.gctuning import GcTuning
from gutskit.server.protocol import CreateRoom, Declare, Hello, Join, Start
from gutskit.server.rooms import Room, RoomManager, ServerConfig
from gutskit.server.store import open_room_store


class _Socket:
    """Stands for a WebSocket: what the server sends goes to the seat's bot."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] = {}  # no transport (app.transport_of)
        self.inbox: asyncio.Queue[str] = asyncio.Queue()
        self.frames = 0
        self.bytes = 0

    async def send_text(self, text: str) -> None:
        self.frames += 1
        _WORK[0] += 1
        self.bytes += len(text)
        self.inbox.put_nowait(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        return None


def _table_after(table: dict[str, Any], message: dict[str, Any]) -> dict[str, Any] | None:
    """A bot's table after ``message``: the whole table of a ``state``, ``table`` with the
    fields of a ``patch``; ``None`` for any other message (the table unchanged)."""
    if message["type"] == "state":
        return cast(dict[str, Any], message["table"])
    if message["type"] == "patch":
        return {**table, **message["table"]}
    return None


async def _declare_later(room: Room, client: WsClient, declare: Declare,
                         seconds: float) -> None:
    await asyncio.sleep(seconds)
    await room.handle(client, declare)


async def _bot(room: Room, client: WsClient, socket: _Socket, rng: random.Random,
               rounds: list[int], target: int, done: asyncio.Event, think: float) -> None:
    acted = -1
    later: set[asyncio.Task[None]] = set()
    table: dict[str, Any] = {}
    received = _RECEIVED.setdefault(id(client), [])
    while True:
        frame = await socket.inbox.get()
        if _RECORDING[0]:  # its own work is timed afterwards, on these (_bots_work)
            received.append(frame)
        if not any(key in frame for key in _NEEDED):  # e.g. another seat's sealed declaration
            continue
        for message in json.loads(frame):
            if message["type"] == "welcome" and message["table"] is not None:
                table = message["table"]
            if (message["type"] == "event" and client.seat == 0
                    and message["event"]["type"] == "RoundResolved"):
                rounds[0] += 1
                if rounds[0] >= target:
                    done.set()
            seen = _table_after(table, message)
            if seen is None:
                continue
            table = seen
            if table["my_turn"] and table["round"] != acted:
                acted = table["round"]
                declare = Declare(round=acted, action_id=f"r{acted}",
                                  declaration="in" if rng.random() < 0.3 else "out")
                if think > 0:  # as load_server's bots: the declaration after a think time
                    task = asyncio.create_task(_declare_later(
                        room, client, declare, rng.uniform(0.05, think)))
                    later.add(task)
                    task.add_done_callback(later.discard)
                else:
                    await room.handle(client, declare)


def _bots_work(received: list[list[str]]) -> float:
    """CPU seconds of the bots' own work on the frames they ``received`` while the
    rounds were played (each bot's, in order): what :func:`_bot` does with a frame but
    send its declaration (the check, decoding, the table kept, the choice), done again
    here and timed once, not with two clock reads per frame (a system call each, which
    cost more than the work it timed on a loaded machine)."""
    rng = random.Random(0)
    started = time.thread_time()
    for frames in received:
        acted = -1
        table: dict[str, Any] = {}
        for frame in frames:
            if not any(key in frame for key in _NEEDED):
                continue
            for message in json.loads(frame):
                if message["type"] == "welcome" and message["table"] is not None:
                    table = message["table"]
                seen = _table_after(table, message)
                if seen is None:
                    continue
                table = seen
                if table["my_turn"] and table["round"] != acted:
                    acted = table["round"]
                    Declare(round=acted, action_id=f"r{acted}",
                            declaration="in" if rng.random() < 0.3 else "out")
    return time.thread_time() - started


_NEEDED = ('"my_turn"', '"round"', "RoundResolved", '"type":"welcome"', '"type":"state"')
"""What a frame must hold for a bot to decode it (as in ``load_server.py``): the fields of
its table it reads (a patch holds a field only when it changed), the event it counts, the
messages that give it a whole table. The others (most: another seat's sealed declaration)
are received, not decoded: the bots' own work is not the rooms'."""

_RECEIVED: dict[int, list[str]] = {}
"""Each bot's frames received while the rounds are played (:func:`_bots_work`)."""

_RECORDING = [False]
"""Whether the rounds are being played (the bots keep their frames)."""

_WORK = [0, 0]
"""Frames sent and table changes broadcast (:meth:`Room._broadcast_state`) so far: what
``--turns`` counts per callback and per turn of the loop."""


class _Turns:
    """``--turns``: the work of each callback and each turn of asyncio's loop while the
    rounds are played, counted (frames sent, table changes broadcast: load-independent)
    and timed (CPU of the loop's thread)."""

    def __init__(self) -> None:
        self.on = False
        self.callbacks: dict[str, list[tuple[int, int, float]]] = {}
        self.turns: list[tuple[float, float, float, float]] = []
        self.turn = [0.0, 0.0, 0.0, 0.0]

    def install(self) -> None:
        import asyncio.base_events
        import asyncio.events

        run = asyncio.events.Handle._run
        run_once = asyncio.base_events.BaseEventLoop._run_once  # type: ignore[attr-defined]
        broadcast = Room._broadcast_state
        turns = self

        def counted_broadcast(room: Room) -> None:
            _WORK[1] += 1
            broadcast(room)

        def counted_run(handle: asyncio.Handle) -> None:
            if not turns.on:
                run(handle)
                return
            frames, changes, cpu = _WORK[0], _WORK[1], time.thread_time()
            try:
                run(handle)
            finally:
                work = (_WORK[0] - frames, _WORK[1] - changes, time.thread_time() - cpu)
                turns.callbacks.setdefault(_callback_name(handle), []).append(work)
                turn = turns.turn
                turn[0] += work[0]
                turn[1] += work[1]
                turn[2] += work[2]
                turn[3] += 1

        def counted_run_once(loop: asyncio.base_events.BaseEventLoop) -> None:
            if turns.on and turns.turn[3]:
                turns.turns.append((turns.turn[0], turns.turn[1], turns.turn[2],
                                    turns.turn[3]))
            turns.turn = [0.0, 0.0, 0.0, 0.0]
            run_once(loop)

        Room._broadcast_state = counted_broadcast  # type: ignore[method-assign,assignment]
        asyncio.events.Handle._run = counted_run  # type: ignore[method-assign,assignment]
        asyncio.base_events.BaseEventLoop._run_once = counted_run_once  # type: ignore[attr-defined]

    def report(self) -> None:
        def spread(values: list[float]) -> str:
            ordered = sorted(values)
            return (f"p50 {ordered[len(ordered) // 2]:g}, p99 "
                    f"{ordered[min(len(ordered) - 1, len(ordered) * 99 // 100)]:g}, "
                    f"max {ordered[-1]:g}")

        turns = self.turns
        print(f"turns of the loop: {len(turns)}; frames per turn "
              f"{spread([t[0] for t in turns])}; changes per turn "
              f"{spread([t[1] for t in turns])}; CPU ms per turn "
              f"{spread([round(1000 * t[2], 2) for t in turns])}")
        print("callbacks by the most frames in one call (count; frames per call; changes "
              "per call; CPU ms per call):")
        ranked = sorted(self.callbacks.items(), key=lambda kv: -max(w[0] for w in kv[1]))
        for name, works in ranked[:8]:
            print(f"  {name}: {len(works)}; frames {spread([w[0] for w in works])}; "
                  f"changes {spread([w[1] for w in works])}; CPU "
                  f"{spread([round(1000 * w[2], 2) for w in works])}")


def _callback_name(handle: asyncio.Handle) -> str:
    """A callback's name: a task's step by its coroutine, else the function's."""
    callback = handle._callback  # type: ignore[attr-defined]
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        return str(getattr(owner.get_coro(), "__qualname__", "task"))
    return str(getattr(callback, "__qualname__", type(callback).__name__))


_TURNS = _Turns()


async def _run(args: argparse.Namespace
               ) -> tuple[float, float, int, int, int, tuple[int, int, float]]:
    with tempfile.TemporaryDirectory() as folder:
        store = open_room_store(Path(folder) / "bench.db")
        manager = RoomManager(store, ServerConfig(min_reveal_seconds=0, max_rooms=100_000))
        rng = random.Random(args.seed)
        sockets: list[_Socket] = []
        tasks = []
        rounds = [0]
        done = asyncio.Event()
        target = args.rounds * args.tables
        hosts = []
        for _ in range(args.tables):
            room, token = await manager.create(CreateRoom(
                host_name="Host", buy_in=1000, decision_seconds=600, reveal_seconds=0))
            for seat in range(args.seats):
                socket = _Socket()
                client = WsClient(socket)  # type: ignore[arg-type]
                client.writer_task = asyncio.create_task(client.writer())  # type: ignore[attr-defined]
                await room.attach(client, Hello(protocol=args.protocol,
                                                token=token if seat == 0 else None))
                if seat:
                    await room.handle(client, Join(name=f"Player{seat}"))
                sockets.append(socket)
                tasks.append(asyncio.create_task(
                    _bot(room, client, socket, rng, rounds, target, done, args.think)))
                if seat == 0:
                    hosts.append((room, client))
        await asyncio.sleep(0.5)  # the presence messages go out
        tuning = GcTuning() if args.gc == "serve" else None
        if tuning is not None:
            tuning.install()  # as guts serve does once its rooms are loaded
        gc.callbacks.append(_COLLECTIONS)
        _COLLECTIONS.on = True
        profile = cProfile.Profile() if args.profile else None
        before = os.times()
        writer = store.writer
        db_before = (writer.commits, writer.writes, _thread_cpu(writer.thread_id))
        _RECORDING[0] = True
        frames_before = sum(s.frames for s in sockets)
        bytes_before = sum(s.bytes for s in sockets)
        if profile is not None:
            profile.enable()
        if args.callgrind:
            _callgrind("on")
        _TURNS.on = args.turns
        for room, client in hosts:
            await room.handle(client, Start())
        await asyncio.wait_for(done.wait(), 3600)
        _TURNS.on = False
        if args.callgrind:
            _callgrind("off")
        if profile is not None:
            profile.disable()
        after = os.times()
        db_after = _thread_cpu(writer.thread_id)
        _RECORDING[0] = False
        _COLLECTIONS.on = False
        if tuning is not None:
            tuning.remove()
        cpu = (after.user - before.user) + (after.system - before.system)
        bots = _bots_work(list(_RECEIVED.values()))
        db = (writer.commits - db_before[0], writer.writes - db_before[1],
              db_after - db_before[2])
        frames = sum(s.frames for s in sockets) - frames_before
        size = sum(s.bytes for s in sockets) - bytes_before
        for task in tasks:
            task.cancel()
        manager.close()
        if profile is not None:
            stats = pstats.Stats(profile)
            stats.sort_stats(args.sort).print_stats(args.profile)
            if args.dump:
                stats.dump_stats(args.dump)
        return cpu, bots, rounds[0], frames, size, db


def _thread_cpu(ident: int | None) -> float:
    """The CPU seconds so far of thread ``ident`` (the database thread's: read from here,
    the thread keeps no clock of its own; 0 when it has not started)."""
    if ident is None:
        return 0.0
    return time.clock_gettime(time.pthread_getcpuclockid(ident))


class _Collections:
    """The garbage collections while the rounds are played: generation -> the CPU
    seconds of each (``time.thread_time``: collections run on the thread that
    allocates)."""

    def __init__(self) -> None:
        self.on = False
        self.started = 0.0
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.thread_time()
        elif self.on:
            self.pauses[info["generation"]].append(time.thread_time() - self.started)


_COLLECTIONS = _Collections()


def _callgrind(state: str) -> None:
    """Switch callgrind's instruction counting of this process ``on`` or ``off`` (run under
    ``valgrind --tool=callgrind --instr-atstart=no``: only the played rounds count)."""
    subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], check=True,
                   stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=20, help="rounds per table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--protocol", type=int, choices=(2, 3, 4, 5), default=5,
                        help="the connections' protocol (2: a whole table view after "
                             "every change; 3: what changed; 4: and no fairness opening "
                             "pushed; 5: and notices held for the next frame)")
    parser.add_argument("--profile", type=int, default=0,
                        help="print this many functions of a cProfile (slower)")
    parser.add_argument("--sort", default="tottime", help="cProfile sort key")
    parser.add_argument("--dump", help="with --profile: also save the profile to this file")
    parser.add_argument("--callgrind", action="store_true",
                        help="count instructions of the played rounds only: run under "
                             "valgrind --tool=callgrind --instr-atstart=no (instructions "
                             "per round = callgrind's total / rounds; not skewed by the "
                             "machine's load)")
    parser.add_argument("--gc", choices=("default", "serve"), default="serve",
                        help="the garbage collector's settings: CPython's defaults, or "
                             "those of guts serve (gutskit.server.gctuning)")
    parser.add_argument("--think", type=float, default=0.0,
                        help="bots declare after a think time of up to this many seconds "
                             "(as load_server's; default 0: at once)")
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio",
                        help="the event loop the rooms run on (guts serve: uvloop's when "
                             "installed)")
    parser.add_argument("--notice-delay", type=float, default=None,
                        help="seconds notices wait to share a frame (app.NOTICE_DELAY; "
                             "default: the server's own)")
    parser.add_argument("--notice-hold", type=float, default=None,
                        help="protocol 5: seconds notices may be held for the next frame "
                             "(app.NOTICE_HOLD; default: the server's own)")
    parser.add_argument("--turns", action="store_true",
                        help="count each callback's and each turn's work (frames sent, "
                             "table changes broadcast, CPU) on asyncio's loop")
    args = parser.parse_args()
    if args.turns and args.loop != "asyncio":
        parser.error("--turns counts asyncio's loop only (--loop asyncio)")
    if args.turns:
        _TURNS.install()
    if not (1 <= args.tables <= 1000 and 2 <= args.seats <= 10 and 1 <= args.rounds <= 1000):
        parser.error("bounded: 1-1000 tables, 2-10 seats, 1-1000 rounds per table")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}; "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the start")
    print(f"python {platform.python_version()}; pydantic {version('pydantic')}, sqlalchemy "
          f"{version('sqlalchemy')}; database: SQLite (WAL)")
    start = time.perf_counter()
    if args.notice_delay is not None:
        from gutskit.server import app

        app.NOTICE_DELAY = args.notice_delay
    if args.notice_hold is not None:
        from gutskit.server import app

        app.NOTICE_HOLD = args.notice_hold
    factory: Any = None
    if args.loop == "uvloop":
        import uvloop

        factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        cpu, bots, rounds, frames, size, (commits, writes, db_cpu) = runner.run(_run(args))
    wall = time.perf_counter() - start
    print(f"{args.tables} tables x {args.seats} seats, protocol {args.protocol}, "
          f"{args.loop}'s loop: "
          f"{rounds} rounds resolved, "
          f"{frames} frames ({frames / rounds:.1f} per round, {size / rounds / 1024:.1f} KiB)")
    print(f"CPU {cpu:.2f}s: {1000 * cpu / rounds:.2f} ms per round"
          f"{' (profiled)' if args.profile else ''}; wall {wall:.1f}s with setup; "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print(f"of which the in-memory bots' own work (decoding frames, choosing; timed "
          f"again on the frames they got): "
          f"{1000 * bots / rounds:.2f} ms per round; the rooms' "
          f"{1000 * (cpu - bots) / rounds:.2f} ms per round")
    print(f"database thread (group commit): {commits / rounds:.2f} transactions and "
          f"{writes / rounds:.1f} writes per round ({writes / max(commits, 1):.1f} writes per "
          f"transaction), CPU {1000 * db_cpu / rounds:.2f} ms per round (its thread: "
          "commits and other jobs; part of the CPU above)")
    shown = []
    for generation, pauses in _COLLECTIONS.pauses.items():
        if pauses:
            ordered = sorted(pauses)
            shown.append(f"generation {generation}: {len(pauses)}, "
                         f"{1000 * sum(pauses) / rounds:.2f} ms per round, median "
                         f"{1000 * ordered[len(ordered) // 2]:.1f} ms, longest "
                         f"{1000 * ordered[-1]:.1f} ms")
    if args.turns:
        _TURNS.report()
    print(f"garbage collections while playing ({args.gc} settings; CPU of the collecting "
          f"thread): {'; '.join(shown) or 'none'}")


if __name__ == "__main__":
    main()
