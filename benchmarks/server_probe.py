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
  ``jobs``, ``[method name, seconds queued, seconds running]`` each.

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

TICK = 0.01
KINDS = ("lag", "gc", "commit", "commit_cpu", "wait", "queued", "in_commit", "handoff",
         "jobs")


class _Probe:
    def __init__(self, path: str) -> None:
        self.path = f"{path}.{os.getpid()}"
        self.lock = threading.RLock()
        """Re-entrant: a garbage collection can start while a thread holds it (allocating
        in :meth:`flush`) and its callback (:meth:`on_gc`) adds under it: with a plain
        lock the probe thread deadlocked on itself, and the server's loop with it."""
        self.samples: dict[str, list[Any]] = {kind: [] for kind in KINDS}
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
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"t": time.time(), **samples}) + "\n")


def install(path: str) -> None:
    """Start probing this process (call before the server starts)."""
    probe = _Probe(path)
    gc.callbacks.append(probe.on_gc)

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

    def timed_submit(self: store.GroupWriter, rows: Any) -> Any:
        started = time.perf_counter()
        future = submit(self, rows)

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
    for one in path.parent.glob(path.name + ".*"):
        for line in one.read_text(encoding="utf-8").splitlines():
            try:
                data = json.loads(line)
            except ValueError:
                continue  # a line being written
            if start <= data["t"] <= end + 1.0:
                for kind in total:
                    total[kind] += data.get(kind, [])
    return total
