"""What stalls the server's event loop: a probe loaded into ``guts serve`` by
``load_server.py`` (not part of the server).

:func:`install` records, in the server's process:

* **event-loop lag**: a thread asks the loop every 10 ms to run a callback
  (``call_soon_threadsafe``) and records how late it runs: the time the loop took to get
  to it (a long callback, a garbage collection, the GIL held by another thread);
* **garbage-collection pauses**: every collection's generation and wall time
  (``gc.callbacks``);
* **the group commit** (:class:`gutskit.server.store.GroupWriter`): each commit's wall
  time on the database thread (``commit``) and its CPU time there (``commit_cpu``,
  ``time.thread_time``: wall minus CPU is time spent waiting, for the disk or for the
  GIL), and each write's wait, from :meth:`submit` until its future is done (``wait``:
  what an action waits for before anything about it is sent), split into three parts:
  ``queued`` (submit until its commit starts on the database thread: the turn of the
  loop, the previous commit, other jobs of the thread), ``in_commit`` (its commit's
  wall time) and ``handoff`` (the commit's end until the future is done on the loop);
* **other jobs of the database thread** (:meth:`gutskit.server.store.RoomStore.run`):
  ``jobs``, ``[method name, seconds queued, seconds running]`` each;
* **the loop's turns** (asyncio's own loop only, not uvloop: each callback the loop runs,
  ``asyncio.Handle._run``, timed): ``turn``, ``[wall, CPU, callbacks]`` of each turn of the
  loop that ran any (one pass over the callbacks ready at its start: everything a callback
  scheduled waits for the next turn), ``slow``, ``[name, wall, CPU]`` of each callback
  that took :data:`SLOW` seconds of CPU or more, and ``names``, ``{name: [count, CPU,
  longest CPU]}`` of every callback (a task's step is named by its coroutine and the
  coroutine it resumes in, e.g. ``websocket>append_async``).

Every second it appends one JSON line ``{"t": wall time, "lag": [...], "gc": [[gen, s],
...], "commit": [...], "wait": [...], ...}`` (seconds) to ``<path>.<pid>``; :func:`read`
sums the lines of every process over a window.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from common import latency_summary

TICK = 0.01
SLOW = 0.005
KINDS = ("lag", "gc", "commit", "commit_cpu", "wait", "queued", "in_commit", "handoff",
         "jobs", "turn", "slow")


class _Probe:
    def __init__(self, path: str) -> None:
        self.path = f"{path}.{os.getpid()}"
        self.lock = threading.RLock()
        """Re-entrant: a garbage collection can start while a thread holds it (allocating
        in :meth:`flush`) and its callback (:meth:`on_gc`) adds under it: with a plain
        lock the probe thread deadlocked on itself, and the server's loop with it."""
        self.samples: dict[str, list[Any]] = {kind: [] for kind in KINDS}
        self.names: dict[str, list[float]] = {}
        """Every callback's name: [count, CPU, longest CPU] (``names``)."""
        self.gc_started = 0.0
        self.loop: asyncio.AbstractEventLoop | None = None

    def add(self, kind: str, value: Any) -> None:
        with self.lock:
            self.samples[kind].append(value)

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.gc_started = time.perf_counter()
        else:
            self.add("gc", [info["generation"], time.perf_counter() - self.gc_started])

    def watch(self) -> None:
        """The lag thread: one callback on the loop every TICK, and a line a second."""
        flushed = time.monotonic()
        while True:
            loop = self.loop
            if loop is not None and not loop.is_closed():
                asked = time.perf_counter()
                done = threading.Event()

                def ran(asked: float = asked, done: threading.Event = done) -> None:
                    self.add("lag", time.perf_counter() - asked)
                    done.set()

                try:
                    loop.call_soon_threadsafe(ran)
                except RuntimeError:
                    pass
                else:
                    done.wait(5.0)
            time.sleep(TICK)
            if time.monotonic() - flushed >= 1.0:
                flushed = time.monotonic()
                self.flush()

    def flush(self) -> None:
        with self.lock:
            samples = self.samples
            self.samples = {kind: [] for kind in samples}
            names, self.names = self.names, {}
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"t": time.time(), **samples, "names": names}) + "\n")

    def named(self, name: str, cpu: float) -> None:
        with self.lock:
            total = self.names.get(name)
            if total is None:
                self.names[name] = [1, cpu, cpu]
            else:
                total[0] += 1
                total[1] += cpu
                total[2] = max(total[2], cpu)


def _name(handle: asyncio.Handle) -> str:
    """What a callback is: a task's step by its coroutine and the coroutine it resumes
    in (``outer>inner``), else the function's qualified name."""
    callback = handle._callback  # type: ignore[attr-defined]
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro: Any = owner.get_coro()
        outer = getattr(coro, "__qualname__", "?")
        inner = outer
        waiting = getattr(coro, "cr_await", None)
        while waiting is not None and hasattr(waiting, "cr_await"):
            inner = getattr(waiting, "__qualname__", "?")
            waiting = waiting.cr_await
        return outer if inner == outer else f"{outer}>{inner}"
    return str(getattr(callback, "__qualname__", type(callback).__name__))


def _install_turns(probe: _Probe) -> None:
    """Time every callback of asyncio's loop and every turn (``turn``, ``slow``, ``names``)."""
    import asyncio.base_events
    import asyncio.events

    run = asyncio.events.Handle._run
    run_once = asyncio.base_events.BaseEventLoop._run_once  # type: ignore[attr-defined]
    turn = [0.0, 0.0, 0]  # this turn's wall, CPU, callbacks

    def timed_run(self: asyncio.Handle) -> None:
        name = _name(self)
        wall = time.perf_counter()
        cpu = time.thread_time()
        try:
            run(self)
        finally:
            wall = time.perf_counter() - wall
            cpu = time.thread_time() - cpu
            turn[0] += wall
            turn[1] += cpu
            turn[2] += 1
            probe.named(name, cpu)
            if cpu >= SLOW:
                probe.add("slow", [name, wall, cpu])

    def timed_run_once(self: asyncio.base_events.BaseEventLoop) -> None:
        if turn[2]:
            probe.add("turn", [turn[0], turn[1], turn[2]])
            turn[:] = [0.0, 0.0, 0]
        run_once(self)

    asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]
    asyncio.base_events.BaseEventLoop._run_once = timed_run_once  # type: ignore[attr-defined]


LOOP = "GUTS_PROBE_LOOP"
"""Environment variable: ``asyncio`` makes the probed server run on asyncio's own loop
even when uvloop is installed (uvicorn's ``auto`` choice), so that its turns are timed."""


def install(path: str) -> None:
    """Start probing this process (call before the server starts)."""
    if os.environ.get(LOOP) == "asyncio":
        import sys

        sys.modules["uvloop"] = None  # type: ignore[assignment]  # import uvloop fails
    probe = _Probe(path)
    gc.callbacks.append(probe.on_gc)
    _install_turns(probe)

    from gutskit.server import store

    commit = store.GroupWriter._commit
    submit = store.GroupWriter.submit
    run = store.RoomStore.run
    timings: dict[int, tuple[float, float]] = {}  # id(rows) -> its commit's start, end

    def timed_commit(self: store.GroupWriter, batch: Any) -> Any:
        started = time.perf_counter()
        cpu = time.thread_time()
        try:
            return commit(self, batch)
        finally:
            ended = time.perf_counter()
            probe.add("commit", ended - started)
            probe.add("commit_cpu", time.thread_time() - cpu)
            for rows in batch:
                timings[id(rows)] = (started, ended)

    def timed_submit(self: store.GroupWriter, rows: Any, then: Any = None) -> Any:
        started = time.perf_counter()
        future = submit(self, rows) if then is None else submit(self, rows, then)

        def done(_: Any) -> None:
            now = time.perf_counter()
            probe.add("wait", now - started)
            began, ended = timings.pop(id(rows), (now, now))
            probe.add("queued", began - started)
            probe.add("in_commit", ended - began)
            probe.add("handoff", now - ended)

        future.add_done_callback(done)
        return future

    async def timed_run(self: store.RoomStore, method: Any, *args: Any, **kwargs: Any
                        ) -> Any:
        asked = time.perf_counter()
        began: list[float] = []

        def job(*args: Any, **kwargs: Any) -> Any:
            began.append(time.perf_counter())
            return method(*args, **kwargs)

        try:
            return await run(self, job, *args, **kwargs)
        finally:
            if began:
                probe.add("jobs", [getattr(method, "__name__", "?"), began[0] - asked,
                                   time.perf_counter() - began[0]])

    store.GroupWriter._commit = timed_commit  # type: ignore[method-assign]
    store.GroupWriter.submit = timed_submit  # type: ignore[method-assign]
    store.RoomStore.run = timed_run  # type: ignore[method-assign]

    import uvicorn

    serve = uvicorn.Server.serve

    async def probed_serve(self: uvicorn.Server, *args: Any, **kwargs: Any) -> None:
        probe.loop = asyncio.get_running_loop()
        await serve(self, *args, **kwargs)

    uvicorn.Server.serve = probed_serve  # type: ignore[method-assign]
    threading.Thread(target=probe.watch, name="probe", daemon=True).start()


def read(path: Path, start: float, end: float) -> dict[str, list[Any]]:
    """Every sample of every process's file (``<path>.<pid>``) whose line was written in
    ``[start, end + 1]``."""
    total: dict[str, list[Any]] = {kind: [] for kind in KINDS}
    names: dict[str, list[float]] = {}
    for one in path.parent.glob(path.name + ".*"):
        for line in one.read_text(encoding="utf-8").splitlines():
            try:
                data = json.loads(line)
            except ValueError:
                continue  # a line being written
            if start <= data["t"] <= end + 1.0:
                for kind in total:
                    total[kind] += data.get(kind, [])
                for name, (count, cpu, longest) in data.get("names", {}).items():
                    mine = names.setdefault(name, [0, 0.0, 0.0])
                    mine[0] += count
                    mine[1] += cpu
                    mine[2] = max(mine[2], longest)
    total["names"] = [[name, *values] for name, values in names.items()]
    return total


def turn_lines(probe: dict[str, list[Any]], top: int = 12) -> list[str]:
    """The loop's turns and callbacks over a window (:func:`read`), as lines to print."""
    turns = probe.get("turn", [])
    if not turns:
        return []
    counts = sorted(n for _, _, n in turns)
    lines = [f"server loop turns: wall {latency_summary([w for w, _, _ in turns])}",
             f"  CPU {latency_summary([c for _, c, _ in turns])}; callbacks per turn p50 "
             f"{counts[len(counts) // 2]}, p99 {counts[int(0.99 * len(counts))]}, "
             f"max {counts[-1]}"]
    slow: dict[str, list[float]] = {}
    for name, _, cpu in probe.get("slow", []):
        slow.setdefault(name, []).append(cpu)
    for name, cpus in sorted(slow.items(), key=lambda item: -len(item[1]))[:top]:
        lines.append(f"  callbacks of >= {1000 * SLOW:g} ms CPU: {name} {latency_summary(cpus)}")
    names = sorted(probe.get("names", []), key=lambda row: -row[2])
    cpu_all = sum(row[2] for row in names) or 1.0
    for name, count, cpu, longest in names[:top]:
        lines.append(f"  {name}: x{count:.0f}, {1000 * cpu:.0f} ms CPU "
                     f"({100 * cpu / cpu_all:.0f}%), mean {1e6 * cpu / count:.0f} us, "
                     f"longest {1000 * longest:.1f} ms")
    return lines
