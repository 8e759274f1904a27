"""Memory (issue 11): the server's resident memory per idle room and per WebSocket
connection, and the vectorized simulator's memory per table.

* Server: ``guts serve`` in a child process (loopback, a fresh SQLite database in a temporary
  folder, the per-address limits lifted as in ``load_server.py``). After a warm-up (one room,
  one connection: the code paths are loaded), rooms are created over HTTP in steps and the
  server's resident set (``VmRSS`` in ``/proc/PID/status``) is read after each step; then
  WebSocket connections (spectators: ``hello`` without a token) are opened in steps, spread
  over the rooms. The figure is the least-squares slope of RSS against the count (bytes per
  room, per connection), with its standard error. Idle rooms: created, nobody seated but
  the host's record, no connection. RSS includes the allocator's slack, so small steps are
  noisy: the slope over several steps is what is reported.
* Simulator: :func:`gutskit.strategy.fast.simulate` (numba kernel when installed, and the
  numpy path) at two table counts, peak traced memory (``tracemalloc``: numpy reports its
  buffers to it) minus the peak at the smaller count, per table.

Run: python benchmarks/bench_memory.py [--rooms 200] [--connections 200] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import httpx
from common import emit, header, result
from load_server import HOST, free_port, raise_fd_limit
from websockets.asyncio.client import ClientConnection, connect


def rss_bytes(pid: int) -> int:
    """The resident set size of process ``pid`` (``VmRSS``), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def slope(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope of ``ys`` against ``xs`` and its standard error."""
    n = len(xs)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    residual = sum((y - my - b * (x - mx)) ** 2 for x, y in zip(xs, ys, strict=True))
    se = (residual / (n - 2) / sxx) ** 0.5 if n > 2 else float("nan")
    return b, se


def start_server(port: int, db: Path) -> subprocess.Popen[bytes]:
    """``guts serve`` on loopback with the limits lifted (as ``load_server.py``)."""
    code = "import typer; from gutskit.cli.serve import serve; typer.run(serve)"
    process = subprocess.Popen(
        [sys.executable, "-c", code, "--host", HOST, "--port", str(port), "--db",
         f"sqlite:///{db}", "--room-limit", "100000/minute",
         "--max-connections-per-address", "100000", "--max-connections-per-room", "100000",
         "--max-rooms", "100000", "--hello-timeout", "600", "--max-sockets-per-address", "0",
         "--max-sockets-per-network", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://{HOST}:{port}/api/rules", timeout=2)
            return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start")


def settled_rss(pid: int) -> int:
    """RSS once the server is idle again (two equal readings 0.3 s apart, at most 5 s)."""
    last = rss_bytes(pid)
    for _ in range(16):
        time.sleep(0.3)
        now = rss_bytes(pid)
        if now == last:
            break
        last = now
    return last


async def server_figures(rooms: int, connections: int, steps: int, pid: int, port: int
                         ) -> dict[str, tuple[float, float, int, int]]:
    base = f"http://{HOST}:{port}"
    room_ids: list[str] = []
    sockets: list[ClientConnection] = []
    async with httpx.AsyncClient(timeout=120) as http:
        async def create() -> str:
            created = (await http.post(f"{base}/api/rooms", headers={"Origin": base}, json={
                "host_name": "Host", "buy_in": 1000})).json()
            room_id: str = created["room_id"]
            return room_id

        async def open_one(room_id: str) -> ClientConnection:
            ws = await connect(f"ws://{HOST}:{port}/ws/{room_id}", compression=None,
                               open_timeout=60)
            await ws.send(json.dumps({"type": "hello", "protocol": 2, "token": None}))
            await ws.recv()  # the server has answered: the connection is set up
            return ws

        # warm-up: one room, one connection (imports, caches, the first allocations)
        room_ids.append(await create())
        sockets.append(await open_one(room_ids[0]))
        await asyncio.sleep(0.5)
        counts, sizes = [0], [settled_rss(pid)]
        for step in range(1, steps + 1):
            target = rooms * step // steps
            while len(room_ids) - 1 < target:
                room_ids.extend(await asyncio.gather(
                    *(create() for _ in range(min(20, target - len(room_ids) + 1)))))
            counts.append(len(room_ids) - 1)
            sizes.append(settled_rss(pid))
        per_room = slope([float(c) for c in counts], [float(s) for s in sizes])
        room_rss = (sizes[0], sizes[-1])
        counts, sizes = [0], [settled_rss(pid)]
        for step in range(1, steps + 1):
            target = connections * step // steps
            while len(sockets) - 1 < target:
                batch = min(20, target - len(sockets) + 1)
                sockets.extend(await asyncio.gather(
                    *(open_one(room_ids[(len(sockets) + i) % len(room_ids)])
                      for i in range(batch))))
            counts.append(len(sockets) - 1)
            sizes.append(settled_rss(pid))
        per_connection = slope([float(c) for c in counts], [float(s) for s in sizes])
        for ws in sockets:
            await ws.close()
    return {"room": (*per_room, *room_rss), "connection": (*per_connection, sizes[0],
                                                           sizes[-1])}


def simulator_figures(small: int, large: int) -> list[tuple[str, float]]:
    """Peak traced bytes per table of :func:`gutskit.strategy.fast.simulate`, per kernel."""
    from gutskit.core.rules import Rules
    from gutskit.strategy.bots import RuleOfThumbBot
    from gutskit.strategy.fast import numba_available, simulate
    from gutskit.strategy.strategies import fast_policy

    rules = Rules()
    policy = fast_policy(RuleOfThumbBot(), rules, 5)
    assert policy is not None
    out = []
    for kernel in (["numba"] if numba_available() else []) + ["numpy"]:
        simulate(rules, [policy] * 5, tables=small, rounds=2, seed=1,
                 kernel=kernel)  # type: ignore[arg-type]  # warm-up, compilation, tables
        peaks = []
        for tables in (small, large):
            tracemalloc.start()
            simulate(rules, [policy] * 5, tables=tables, rounds=10, seed=1,
                     kernel=kernel)  # type: ignore[arg-type]
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
        out.append((kernel, (peaks[1] - peaks[0]) / (large - small)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args([a for a in sys.argv[1:] if a != "--json"])
    if not (10 <= args.rooms <= 2000 and 10 <= args.connections <= 2000
            and 3 <= args.steps <= 20):
        parser.error("bounded: 10-2000 rooms and connections, 3-20 steps")
    header("memory: server per idle room and per connection; simulator per table")
    raise_fd_limit(args.connections * 2 + 256)
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(port, Path(folder) / "memory.db")
        try:
            figures = asyncio.run(server_figures(args.rooms, args.connections, args.steps,
                                                 server.pid, port))
        finally:
            server.terminate()
            server.wait(30)
    results = []
    for what, count in (("room", args.rooms), ("connection", args.connections)):
        per, se, before, after = figures[what]
        results.append(result(
            f"server: resident memory per {'idle room' if what == 'room' else what}",
            per / 1024, "KiB", note=f"slope over {args.steps} steps to {count} "
            f"{what}s, ± {se / 1024:.1f} KiB (standard error); RSS {before / 2**20:.1f} "
            f"-> {after / 2**20:.1f} MiB"))
    for kernel, per_table in simulator_figures(10_000, 110_000):
        results.append(result(
            f"simulator ({kernel}): memory per table", per_table, "bytes",
            note="5 seats, default rules, rule-of-thumb table; peak traced memory "
                 "(tracemalloc) at 110,000 minus 10,000 tables, per table"))
    emit(results)


if __name__ == "__main__":
    main()
