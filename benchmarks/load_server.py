"""Load test of ``guts serve``: many bot clients over real WebSockets on loopback.

Starts the server in a child process (127.0.0.1, a fresh SQLite database in a temporary
folder), creates ``--tables`` rooms of ``--seats`` players each (every player a WebSocket
client of this process: the host creates the room over HTTP, the others join), starts them
all and lets the bots play for ``--duration`` seconds. Each bot declares after a random
think time (up to ``--think`` seconds), in with probability 0.3.

Reveal latency = from the moment the last declaration of a round is sent until a client of
that table receives the ``DeclarationsRevealed`` event (every client's receipt is one
sample): it includes the server's database write (events are stored before they are sent),
building six per-seat views, and the client's own event loop.

Bounded: at most 300 tables, 10 seats, 300 seconds; loopback only. Prints the figures and
the machine, Python and library versions.

    python benchmarks/load_server.py --tables 200 --seats 6 --duration 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

HOST = "127.0.0.1"


@dataclass
class Table:
    """Shared bookkeeping of one table's clients."""

    room_id: str
    last_sent: dict[int, float] = field(default_factory=dict)
    declared: dict[int, int] = field(default_factory=dict)
    expected: dict[int, int] = field(default_factory=dict)


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    messages: int = 0
    frames: int = 0
    errors: list[str] = field(default_factory=list)
    rounds: int = 0
    dropped: int = 0
    lag: list[float] = field(default_factory=list)
    play_cpu: float = 0.0
    load_before: float = 0.0


async def watch_lag(stats: Stats) -> None:
    """The client's own event-loop lag (how late a 50 ms sleep wakes up): when it is
    large, the measured latency is the load client's, not the server's."""
    while True:
        start = time.perf_counter()
        await asyncio.sleep(0.05)
        stats.lag.append(time.perf_counter() - start - 0.05)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def raise_fd_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard))


def start_server(port: int, db: Path) -> subprocess.Popen[bytes]:
    code = "import typer; from gutskit.cli.serve import serve; typer.run(serve)"
    process = subprocess.Popen(
        [sys.executable, "-c", code, "--host", HOST, "--port", str(port), "--db",
         f"sqlite:///{db}",
         # every client comes from one address: lift the per-address limits
         "--room-limit", "100000/minute", "--max-connections-per-address", "100000",
         "--min-reveal-seconds", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://{HOST}:{port}/api/rules", timeout=2)
            return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def bot(url: str, token: str | None, name: str | None, table: Table, stats: Stats,
              think: float, ready: asyncio.Event, seated: asyncio.Event, is_host: bool,
              seats: int, protocol: int) -> None:
    """One player: the host (seat 0, starts the table when it is full) or a joiner."""
    rng = random.Random()
    async with connect(url, max_size=2**20, open_timeout=60, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": protocol, "token": token}))
        if name is not None:
            await ws.send(json.dumps({"type": "join", "name": name}))
        seat: int | None = 0 if is_host else None
        try:
            await play(ws, seat, table, stats, think, ready, seated, is_host, seats, rng)
        except ConnectionClosed:
            stats.dropped += 1


async def play(ws: ClientConnection, seat: int | None, table: Table, stats: Stats,
               think: float, ready: asyncio.Event, seated: asyncio.Event, is_host: bool,
               seats: int, rng: random.Random) -> None:
    """React to the server's messages until cancelled."""
    pending: asyncio.Task[None] | None = None
    acted = -1
    try:
        async for text in ws:
            stats.frames += 1
            if (isinstance(text, str) and text.startswith('{"type":"event"')
                    and "DeclarationsRevealed" not in text):
                stats.messages += 1
                continue  # the bots need only the state, not the other events
            data = json.loads(text)
            messages = data if isinstance(data, list) else [data]  # protocol 2: a list
            stats.messages += len(messages)
            for message in messages:
                acted, pending = await react(ws, message, seat, table, stats, think, ready,
                                             seated, is_host, seats, rng, acted, pending)
                if message["type"] == "seated":
                    seat = message["seat"]
    finally:
        if pending is not None:
            pending.cancel()


async def react(ws: ClientConnection, message: dict[str, Any], seat: int | None,
                table: Table, stats: Stats, think: float, ready: asyncio.Event,
                seated: asyncio.Event, is_host: bool, seats: int, rng: random.Random,
                acted: int, pending: asyncio.Task[None] | None
                ) -> tuple[int, asyncio.Task[None] | None]:
    """Handle one server message; returns the round last acted on and the pending
    declaration."""
    kind = message["type"]
    if kind == "seated":
        seat = message["seat"]
        seated.set()
    elif kind == "room" and is_host and not ready.is_set():
        if len(message["room"]["seats"]) == seats:
            ready.set()
            await ws.send(json.dumps({"type": "start"}))
    elif kind == "error":
        stats.errors.append(f"{message['code']}: {message['message']}")
    if kind == "event" and message["event"]["type"] == "DeclarationsRevealed":
        now = time.perf_counter()
        round_number = max(table.last_sent) if table.last_sent else None
        if (round_number is not None and table.declared.get(round_number)
                == table.expected.get(round_number)):
            stats.latencies.append(now - table.last_sent[round_number])
        if seat == 0:
            stats.rounds += 1
    if kind == "state" and seat == 0 and message["table"]["phase"] == "declare":
        view = message["table"]
        table.expected[view["round"]] = sum(view["dealt_in"])
    if (kind == "state" and seat is not None and message["table"]["my_turn"]
            and message["table"]["round"] != acted):
        acted = message["table"]["round"]  # once per round (states repeat my_turn)
        pending = asyncio.create_task(
            declare(ws, message["table"]["round"], seat, table, rng, think))
    return acted, pending


async def declare(ws: ClientConnection, round_number: int, seat: int, table: Table,
                  rng: random.Random, think: float) -> None:
    await asyncio.sleep(rng.uniform(0.05, think))
    choice = "in" if rng.random() < 0.3 else "out"
    table.last_sent[round_number] = time.perf_counter()
    table.declared[round_number] = table.declared.get(round_number, 0) + 1
    await ws.send(json.dumps({"type": "declare", "round": round_number,
                              "action_id": f"{seat}-{round_number}", "declaration": choice}))


async def run(args: argparse.Namespace, port: int, pid: int) -> tuple[Stats, float]:
    base = f"http://{HOST}:{port}"
    stats = Stats()
    tasks: list[asyncio.Task[None]] = []
    setup_start = time.monotonic()
    limit = asyncio.Semaphore(20)

    async def create() -> tuple[Table, str]:
        async with limit:
            created = (await http.post(f"{base}/api/rooms", headers={"Origin": base}, json={
                "host_name": "Host", "buy_in": 1000, "decision_seconds": 30,
                "reveal_seconds": args.reveal})).json()
        return Table(created["room_id"]), created["token"]

    async with httpx.AsyncClient(timeout=120) as http:
        tables = await asyncio.gather(*(create() for _ in range(args.tables)))
    readies = []
    for table, token in tables:
        url = f"ws://{HOST}:{port}/ws/{table.room_id}"
        ready = asyncio.Event()
        readies.append(ready)
        seated = [asyncio.Event() for _ in range(args.seats)]
        tasks.append(asyncio.create_task(bot(url, token, None, table, stats, args.think,
                                             ready, seated[0], True, args.seats,
                                             args.protocol)))
        for i in range(1, args.seats):
            tasks.append(asyncio.create_task(bot(url, None, f"Bot{i}", table, stats,
                                                 args.think, ready, seated[i], False,
                                                 args.seats, args.protocol)))
        if len(tasks) % 60 == 0:  # let the connections open in batches
            await asyncio.gather(*(e.wait() for e in seated[1:]))
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 300)
    setup = time.monotonic() - setup_start
    # Play: measure over the duration, then stop the bots.
    stats.latencies.clear()
    stats.rounds = 0
    stats.frames = stats.messages = 0
    stats.load_before = os.getloadavg()[0]
    play_start = cpu_seconds(pid)
    watcher = asyncio.create_task(watch_lag(stats))
    await asyncio.sleep(args.duration)
    watcher.cancel()
    stats.play_cpu = cpu_seconds(pid) - play_start
    measured = list(stats.latencies)
    rounds = stats.rounds
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    stats.latencies = measured
    stats.rounds = rounds
    return stats, setup


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of play")
    parser.add_argument("--think", type=float, default=3.0,
                        help="bots declare after up to this many seconds")
    parser.add_argument("--reveal", type=float, default=2.0,
                        help="the rooms' reveal pause between rounds (seconds)")
    parser.add_argument("--protocol", type=int, choices=(1, 2), default=2,
                        help="protocol version of the clients (1: a frame per message, "
                        "2: a frame per change)")
    args = parser.parse_args()
    if not (1 <= args.tables <= 300 and 2 <= args.seats <= 10 and 0 < args.duration <= 300):
        parser.error("bounded: 1-300 tables, 2-10 seats, at most 300 seconds")
    raise_fd_limit(args.tables * args.seats * 2 + 256)
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(port, Path(folder) / "load.db")
        try:
            cpu_before = cpu_seconds(server.pid)
            started = time.monotonic()
            stats, setup = asyncio.run(run(args, port, server.pid))
            wall = time.monotonic() - started
            cpu = cpu_seconds(server.pid) - cpu_before
        finally:
            server.terminate()
            server.wait(30)
    lat = [x * 1000 for x in stats.latencies]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"python {platform.python_version()}; fastapi {version('fastapi')}, uvicorn "
          f"{version('uvicorn')}, websockets {version('websockets')}, sqlalchemy "
          f"{version('sqlalchemy')}; database: SQLite (WAL)")
    print(f"tables {args.tables} x {args.seats} seats = {args.tables * args.seats} "
          f"WebSocket clients (protocol {args.protocol}); think <= {args.think}s, reveal "
          f"pause {args.reveal}s")
    print(f"setup (create, join, start): {setup:.1f}s; played {args.duration:.0f}s")
    print(f"rounds resolved: {stats.rounds} ({stats.rounds / args.duration:.1f}/s); "
          f"received while playing: {stats.messages} messages in {stats.frames} frames")
    print(f"server CPU: {cpu:.1f}s over {wall:.1f}s wall ({100 * cpu / wall:.0f}% of a core); "
          f"while playing {stats.play_cpu:.1f}s over {args.duration:.0f}s "
          f"({100 * stats.play_cpu / args.duration:.0f}% of a core, "
          f"{1000 * stats.play_cpu / max(1, stats.rounds):.1f} ms per round)")
    if lat:
        print(f"reveal latency ms: p50 {statistics.median(lat):.1f}, p95 "
              f"{percentile(lat, 0.95):.1f}, p99 {percentile(lat, 0.99):.1f}, max "
              f"{max(lat):.1f} ({len(lat)} samples)")
    if stats.lag:
        lag = [x * 1000 for x in stats.lag]
        print(f"load client's own event-loop lag ms: p50 {statistics.median(lag):.1f}, "
              f"p99 {percentile(lag, 0.99):.1f}")
    print(f"machine load average (1 min): {stats.load_before:.1f} when play started, "
          f"{os.getloadavg()[0]:.1f} at the end")
    print(f"errors: {len(stats.errors)}" + (f" (first: {stats.errors[0]})"
                                            if stats.errors else "")
          + f"; connections dropped by the server: {stats.dropped}")


if __name__ == "__main__":
    main()

