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

Bounded: at most 500 tables, 10 seats, 300 seconds; loopback only. Prints the figures and
the machine, Python and library versions.

    python benchmarks/load_server.py --tables 200 --seats 6 --duration 60

Scaling out (``guts serve --workers N``, docs/deploy.md): ``--workers 1,2`` runs the load
on the default one-process server (1) and on N worker processes sharing a ``redis-server``
started here (from ``PATH``) and the SQLite file; ``--clients P`` spreads the tables over P
load-client processes that measure the same window; ``--tables 20,50,100`` plays each
count in turn on the same server. The summary gives, per worker count, the most rounds per
second whose reveal latency p99 stays under ``--p99-ms`` (50 ms).

    python benchmarks/load_server.py --workers 1,2 --clients 2 --tables 25,50,100 \
        --duration 20

Every figure of issue 11 in one run (50 / 200 / 500 tables, 1 and 2 workers; the summary
prints them side by side):

    python benchmarks/load_server.py --workers 1,2 --clients 2 --tables 50,200,500 \
        --duration 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
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

sys.path.insert(0, str(Path(__file__).parent))
import server_probe  # benchmarks/ is not a package

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
    kinds: dict[str, int] = field(default_factory=dict)
    """Frames received by kind (:func:`frame_kind`)."""
    errors: list[str] = field(default_factory=list)
    rounds: int = 0
    dropped: int = 0
    lag: list[float] = field(default_factory=list)
    play_cpu: float = 0.0
    client_cpu: float = 0.0
    idle: float | None = None
    load_before: float = 0.0
    window: tuple[float, float] = (0.0, 0.0)
    """The measured window (``time.time``), for the server's probe."""
    probe: dict[str, list[Any]] = field(default_factory=dict)
    """The server's probe over the window (:func:`server_probe.read`)."""


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


NOTICE_ENV = "GUTS_BENCH_NOTICE_DELAY"
"""Environment variable of the server processes: their ``app.NOTICE_DELAY`` (seconds)."""


def start_server(port: int, db: Path, workers: int = 1,
                 redis_url: str | None = None, loop: str = "auto",
                 notice_delay: float | None = None) -> subprocess.Popen[bytes]:
    """``guts serve`` on ``port``: one process, or ``workers`` worker processes leasing
    their rooms through ``redis_url`` (returns once every worker has joined), on the event
    loop ``loop`` (``guts serve --loop``), notices held ``notice_delay`` seconds (``None``:
    the server's own ``app.NOTICE_DELAY``)."""
    code = "import typer; from gutskit.cli.serve import serve; typer.run(serve)"
    cluster = [] if redis_url is None else ["--workers", str(workers), "--redis", redis_url]
    site = db.parent / "probe-site"  # every server process (workers too) loads the probe
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        f"import server_probe; server_probe.install({str(db.parent / 'probe')!r})\n"
        f"import os\n"
        f"if os.environ.get({NOTICE_ENV!r}):\n"
        f"    import gutskit.server.app as app; app.NOTICE_DELAY = "
        f"float(os.environ[{NOTICE_ENV!r}])\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(site), *filter(None, [os.environ.get("PYTHONPATH")])])}
    env.pop(NOTICE_ENV, None)
    if notice_delay is not None:
        env[NOTICE_ENV] = repr(notice_delay)
    process = subprocess.Popen(
        [sys.executable, "-c", code, "--host", HOST, "--port", str(port), "--db",
         f"sqlite:///{db}",
         # every client comes from one address: lift the per-address limits
         "--room-limit", "100000/minute", "--max-connections-per-address", "100000",
         "--max-sockets-per-address", "0", "--max-sockets-per-network", "0",
         "--max-rooms", "100000", "--min-reveal-seconds", "0", "--loop", loop, *cluster],
        stdout=subprocess.DEVNULL, env=env,
        stderr=(db.parent / "server.log").open("wb"))  # a file: a full pipe would block it
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://{HOST}:{port}/api/rules", timeout=2)
            if redis_url is None or _workers_up(redis_url) >= workers:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start")


def _workers_up(redis_url: str) -> int:
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        return len(client.keys("gutskit:worker:*"))
    finally:
        client.close()


def start_redis(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A private ``redis-server`` on a free loopback port (no persistence)."""
    import redis

    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", HOST, "--save", "", "--appendonly",
         "no", "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://{HOST}:{port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + 20
    while True:
        try:
            client.ping()
            client.close()
            return process, url
        except redis.exceptions.ConnectionError:
            if time.monotonic() > deadline:
                process.kill()
                raise SystemExit("redis-server did not start") from None
            time.sleep(0.05)


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and every process below it."""
    total = 0.0
    for one in _tree(pid):
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def machine_times() -> tuple[float, float]:
    """The machine's idle and total CPU time so far (``/proc/stat``, every core; clock
    ticks): the idle share of a window is the ratio of their differences."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return float(idle), float(sum(fields[:8]))  # without guest time (counted in user)


def idle_share(before: tuple[float, float]) -> float:
    """The machine's idle share since ``before`` (:func:`machine_times`), 0 to 1."""
    idle, total = machine_times()
    return (idle - before[0]) / max(1.0, total - before[1])


def _tree(pid: int) -> list[int]:
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return pids
    for child in children:
        pids.extend(_tree(int(child)))
    return pids


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


_NEEDED = ('"my_turn"', '"phase"', '"dealt_in"', "DeclarationsRevealed", '"type":"seated"',
           '"type":"room"', '"type":"welcome"', '"type":"state"', '"type":"error"')
"""What a frame must hold for a bot to decode it: the fields of its table that it reads
(a patch holds a field only when it changed), the event whose arrival is timed, the
messages it reacts to. Every other frame (most: another seat's sealed declaration) is
counted, not decoded: the load clients share the machine with the server."""


KINDS = ("deal", "reveal", "ack", "notice", "other")
"""Kinds of frames (:func:`frame_kind`), in the order a round sends them."""


def frame_kind(text: str | bytes) -> str:
    """What a frame is, by the first of these it holds: the deal (``CardsDealt``), the
    reveal and the result (``DeclarationsRevealed``), a seat's own declaration acknowledged
    (``ack``), another seat's sealed declaration (``DeclarationSealed``: a notice), else
    other (the table after the reveal pause, a timer, a seat's come and go)."""
    if not isinstance(text, str):
        return "other"
    if '"CardsDealt"' in text:
        return "deal"
    if '"DeclarationsRevealed"' in text:
        return "reveal"
    if '"type":"ack"' in text:
        return "ack"
    if '"DeclarationSealed"' in text:
        return "notice"
    return "other"


async def play(ws: ClientConnection, seat: int | None, table: Table, stats: Stats,
               think: float, ready: asyncio.Event, seated: asyncio.Event, is_host: bool,
               seats: int, rng: random.Random) -> None:
    """React to the server's messages until cancelled."""
    pending: asyncio.Task[None] | None = None
    acted = -1
    held: dict[str, Any] | None = None  # the table (protocol 3: patched)
    try:
        async for text in ws:
            stats.frames += 1
            kind = frame_kind(text)
            stats.kinds[kind] = stats.kinds.get(kind, 0) + 1
            if isinstance(text, str) and not any(key in text for key in _NEEDED):
                # nothing a bot reads (another seat's sealed declaration): not decoded
                stats.messages += text.count('{"type":"') - text.count(':{"type":"')
                continue
            data = json.loads(text)
            messages = data if isinstance(data, list) else [data]  # protocol 2: a list
            stats.messages += len(messages)
            for message in messages:
                if message["type"] in ("welcome", "state"):
                    held = message["table"]
                elif message["type"] == "patch" and held is not None:
                    held = {**held, **message["table"]}
                    message = {"type": "state", "table": held}  # react reads whole tables
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
    elif kind in ("room", "welcome") and is_host and not ready.is_set():
        # (the host's welcome may already show every seat: its hello can arrive last)
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


async def settle(events: list[asyncio.Event], tasks: list[asyncio.Task[None]], stats: Stats,
                 step: str, seconds: float = 300) -> None:
    """Wait for ``events``; stop with the first bot's error (a connection that failed to
    open, a join refused, ...) instead of waiting forever when they do not all come."""
    try:
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in events)), seconds)
    except TimeoutError:
        errors = stats.errors + [repr(t.exception()) for t in tasks if t.done()
                                 and not t.cancelled() and t.exception() is not None]
        raise SystemExit(f"setup stalled while {step} ({seconds:g}s): {len(errors)} bot(s) "
                         f"failed{', first: ' + errors[0] if errors else ''}") from None


async def run(args: argparse.Namespace, port: int, pid: int | None, tables_here: int,
              barrier: Any = None) -> tuple[Stats, float]:
    base = f"http://{HOST}:{port}"
    stats = Stats()
    tasks: list[asyncio.Task[None]] = []
    setup_start = time.monotonic()
    limit = asyncio.Semaphore(20)

    async def create() -> tuple[Table, str]:
        async with limit:
            for attempt in range(3):  # a kept-alive connection the server just closed
                try:
                    created = (await http.post(f"{base}/api/rooms", headers={
                        "Origin": base}, json={
                        "host_name": "Host", "buy_in": 1000, "decision_seconds": 30,
                        "reveal_seconds": args.reveal})).json()
                    break
                except httpx.TransportError:
                    if attempt == 2:
                        raise
        return Table(created["room_id"]), created["token"]

    async with httpx.AsyncClient(timeout=120) as http:
        tables = await asyncio.gather(*(create() for _ in range(tables_here)))
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
            tasks.append(asyncio.create_task(bot(url, None, f"Player{i}", table, stats,
                                                 args.think, ready, seated[i], False,
                                                 args.seats, args.protocol)))
        if len(tasks) % 60 == 0:  # let the connections open in batches
            await settle(seated[1:], tasks, stats, "joining")
    await settle(readies, tasks, stats, "starting")
    setup = time.monotonic() - setup_start
    if barrier is None:
        print(f"({tables_here} tables set up in {setup:.1f}s; playing {args.duration:g}s)",
              flush=True)
    if barrier is not None:  # every load-client process measures the same window
        await asyncio.get_running_loop().run_in_executor(None, barrier.wait)
    # Play: measure over the duration, then stop the bots.
    stats.latencies.clear()
    stats.rounds = 0
    stats.frames = stats.messages = 0
    stats.kinds.clear()
    stats.load_before = os.getloadavg()[0]
    play_start = 0.0 if pid is None else cpu_seconds(pid)
    own_start = time.process_time()
    machine = machine_times()
    watcher = asyncio.create_task(watch_lag(stats))
    started = time.time()
    await asyncio.sleep(args.duration)
    stats.window = (started, time.time())
    watcher.cancel()
    stats.play_cpu = 0.0 if pid is None else cpu_seconds(pid) - play_start
    stats.client_cpu = time.process_time() - own_start
    stats.idle = idle_share(machine)
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


def client_process(args: argparse.Namespace, port: int, tables_here: int, barrier: Any,
                   results: Any) -> None:
    """One load-client process: its share of the tables; its figures go to ``results``."""
    raise_fd_limit(tables_here * args.seats * 2 + 256)
    stats, setup = asyncio.run(run(args, port, None, tables_here, barrier))
    results.put((stats, setup))


def play_load(args: argparse.Namespace, port: int, pid: int, tables: int
              ) -> tuple[Stats, float]:
    """``tables`` tables over ``args.clients`` load-client processes, one window; the
    server's CPU over the window (all its processes) in ``play_cpu``."""
    if args.clients == 1:
        return asyncio.run(run(args, port, pid, tables))
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    shares = [share for share in (tables // args.clients + (i < tables % args.clients)
                                  for i in range(args.clients)) if share]
    barrier = context.Barrier(len(shares) + 1)
    processes = [context.Process(target=client_process,
                                 args=(args, port, share, barrier, results))
                 for share in shares]
    for process in processes:
        process.start()
    barrier.wait(timeout=600)
    print(f"({tables} tables set up; playing {args.duration:g}s)", flush=True)
    load_before = os.getloadavg()[0]
    start = cpu_seconds(pid)
    clients_start = sum(cpu_seconds(p.pid) for p in processes if p.pid is not None)
    machine = machine_times()
    started = time.time()
    time.sleep(args.duration)
    window = (started, time.time())
    play_cpu = cpu_seconds(pid) - start
    client_cpu = sum(cpu_seconds(p.pid) for p in processes if p.pid is not None) - clients_start
    total = Stats(play_cpu=play_cpu, load_before=load_before, client_cpu=client_cpu,
                  idle=idle_share(machine), window=window)
    setup = 0.0
    for _ in processes:
        stats, took = results.get(timeout=600)
        setup = max(setup, took)
        total.latencies += stats.latencies
        total.lag += stats.lag
        total.errors += stats.errors
        for name in ("messages", "frames", "rounds", "dropped"):
            setattr(total, name, getattr(total, name) + getattr(stats, name))
        for kind, count in stats.kinds.items():
            total.kinds[kind] = total.kinds.get(kind, 0) + count
    for process in processes:
        process.join(60)
    return total, setup


def report(args: argparse.Namespace, workers: int, tables: int, stats: Stats, setup: float,
           variant: str = "") -> float | None:
    """Print one run's figures; its p99 reveal latency (ms), ``None`` without samples."""
    lat = [x * 1000 for x in stats.latencies]
    rate = stats.rounds / args.duration
    print(f"\n== {workers} worker{'s' if workers > 1 else ''} "
          f"({'the default one-process server' if workers == 1 else 'guts serve --workers'}"
          f"), {tables} tables x {args.seats} seats = {tables * args.seats} WebSocket "
          f"clients in {args.clients} load-client process"
          f"{'es' if args.clients > 1 else ''} (protocol {args.protocol})"
          + (f" [{variant}]" if variant else ""))
    print(f"setup (create, join, start): {setup:.1f}s; played {args.duration:.0f}s")
    print(f"rounds resolved: {stats.rounds} ({rate:.1f}/s); received while playing: "
          f"{stats.messages} messages in {stats.frames} frames")
    rounds = max(1, stats.rounds)
    print(f"frames per round: {stats.frames / rounds:.1f} (" + ", ".join(
        f"{kind} {stats.kinds.get(kind, 0) / rounds:.1f}" for kind in KINDS) + ")")
    print(f"server CPU while playing (all its processes): {stats.play_cpu:.1f}s over "
          f"{args.duration:.0f}s ({100 * stats.play_cpu / args.duration:.0f}% of a core, "
          f"{1000 * stats.play_cpu / max(1, stats.rounds):.1f} ms per round)")
    print(f"load clients' CPU over the same window: {stats.client_cpu:.1f}s "
          f"({100 * stats.client_cpu / args.duration:.0f}% of a core, "
          f"{1000 * stats.client_cpu / max(1, stats.rounds):.1f} ms per round); machine idle "
          + ("-" if stats.idle is None else f"{100 * stats.idle:.0f}%")
          + f" of {os.cpu_count()} cores" + (
              " (no idle CPU: the latency includes the clients' and other processes' "
              "queueing for a core)" if stats.idle is not None and stats.idle < 0.05 else ""))
    p99 = None
    if lat:
        p99 = percentile(lat, 0.99)
        print(f"reveal latency ms: p50 {statistics.median(lat):.1f}, p95 "
              f"{percentile(lat, 0.95):.1f}, p99 {p99:.1f}, max {max(lat):.1f} "
              f"({len(lat)} samples)")
    if stats.lag:
        lag = [x * 1000 for x in stats.lag]
        print(f"load clients' own event-loop lag ms: p50 {statistics.median(lag):.1f}, "
              f"p99 {percentile(lag, 0.99):.1f}")
    print_probe(stats.probe)
    print(f"machine load average (1 min): {stats.load_before:.1f} when play started, "
          f"{os.getloadavg()[0]:.1f} at the end")
    print(f"errors: {len(stats.errors)}" + (f" (first: {stats.errors[0]})"
                                            if stats.errors else "")
          + f"; connections dropped by the server: {stats.dropped}")
    return p99


def _ms(values: list[float]) -> str:
    ms = [1000 * x for x in values]
    return (f"p50 {statistics.median(ms):.1f}, p99 {percentile(ms, 0.99):.1f}, max "
            f"{max(ms):.1f} ms ({len(ms)})") if ms else "none"


def print_probe(probe: dict[str, list[Any]]) -> None:
    """The server's own figures over the window (benchmarks/server_probe.py)."""
    if not probe:
        return
    print(f"server event-loop lag (a callback asked for every 10 ms): {_ms(probe['lag'])}")
    for generation in (0, 1, 2):
        pauses = [s for g, s in probe["gc"] if g == generation]
        if pauses:
            print(f"server garbage collections, generation {generation}: {len(pauses)}, "
                  f"{_ms(pauses)}, {1000 * sum(pauses):.0f} ms in all")
    print(f"server group commits (wall time on the database thread): {_ms(probe['commit'])}")
    print(f"  their CPU time there: {_ms(probe.get('commit_cpu', []))}")
    print(f"server writes waiting for their commit (submit to done): {_ms(probe['wait'])}")
    print(f"  queued (submit to its commit's start): {_ms(probe.get('queued', []))}")
    print(f"  in its commit: {_ms(probe.get('in_commit', []))}")
    print(f"  hand-off (commit's end to done on the loop): {_ms(probe.get('handoff', []))}")
    jobs: dict[str, list[tuple[float, float]]] = {}
    for name, queued, running in probe.get("jobs", []):
        jobs.setdefault(name, []).append((queued, running))
    for name, times in sorted(jobs.items()):
        print(f"server database thread, other jobs: {name} x{len(times)}, queued "
              f"{_ms([q for q, _ in times])}, running {_ms([r for _, r in times])}")
    for line in server_probe.turn_lines(probe):
        print(line)


def _counts(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=_counts, default=[200],
                        help="tables (a comma list: each in turn on the same server)")
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of play")
    parser.add_argument("--think", type=float, default=3.0,
                        help="bots declare after up to this many seconds")
    parser.add_argument("--reveal", type=float, default=2.0,
                        help="the rooms' reveal pause between rounds (seconds)")
    parser.add_argument("--protocol", type=int, choices=(1, 2, 3, 4, 5), default=5,
                        help="protocol version of the clients (1: a frame per message, "
                        "2: a frame per change, 3: and a patch of the table instead of "
                        "the whole table, 4: and no fairness opening pushed, 5: and "
                        "notices held for the connection's next frame)")
    parser.add_argument("--workers", type=_counts, default=[1],
                        help="server processes (a comma list: 1 = the default server; "
                        "N > 1 = guts serve --workers N with a redis-server started here)")
    parser.add_argument("--clients", type=int, default=1,
                        help="load-client processes sharing the tables")
    parser.add_argument("--p99-ms", type=float, default=50.0,
                        help="the latency bound of the summary")
    parser.add_argument("--loop", default="auto",
                        help="the server's event loop (guts serve --loop; a comma list: "
                        "each in turn, alternated, for an A/B in one run)")
    parser.add_argument("--notice-delay", default="",
                        help="seconds the server holds notices (app.NOTICE_DELAY; a comma "
                        "list: each in turn, alternated; default: the server's own)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of every variant (--loop x --notice-delay), alternated")
    args = parser.parse_args()
    if not (all(1 <= t <= 500 for t in args.tables) and 2 <= args.seats <= 10
            and 0 < args.duration <= 300 and all(1 <= w <= 8 for w in args.workers)
            and 1 <= args.clients <= 8 and 1 <= args.repeat <= 10):
        parser.error("bounded: 1-500 tables, 2-10 seats, at most 300 seconds, 1-8 workers, "
                     "1-8 client processes, 1-10 repeats")
    raise_fd_limit(max(args.tables) * args.seats * 2 + 256)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}; "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the start")
    redis_version = "-"
    if any(w > 1 for w in args.workers):
        redis_version = subprocess.run(["redis-server", "--version"], capture_output=True,
                                       text=True, check=False).stdout.split()[2]
    print(f"python {platform.python_version()}; fastapi {version('fastapi')}, uvicorn "
          f"{version('uvicorn')}, websockets {version('websockets')}, sqlalchemy "
          f"{version('sqlalchemy')}, redis-py {version('redis')}, redis-server "
          f"{redis_version}; database: SQLite (WAL)")
    print(f"think <= {args.think}s, reveal pause {args.reveal}s")
    best: dict[int, tuple[float, int] | None] = {}
    rows: list[tuple[int, int, float, float, float, float | None, float | None, float | None,
                     float, int, str, float]] = []
    delays: list[float | None] = [float(x) for x in args.notice_delay.split(",") if x] or [
        None]
    variants = [(loop, delay) for loop in args.loop.split(",") for delay in delays]
    runs = [(workers, loop, delay) for _ in range(args.repeat) for workers in args.workers
            for loop, delay in variants]
    for workers, loop, delay in runs:
        variant = f"loop {loop}" + ("" if delay is None else f", notices {delay:g}s")
        best.setdefault(workers, None)
        port = free_port()
        with tempfile.TemporaryDirectory() as folder:
            redis_server = None
            redis_url = None
            if workers > 1:
                redis_server, redis_url = start_redis(Path(folder))
            server = start_server(port, Path(folder) / "load.db", workers, redis_url, loop,
                                  delay)
            log = Path(folder) / "server.log"
            try:
                for tables in sorted(args.tables):
                    stats, setup = play_load(args, port, server.pid, tables)
                    time.sleep(1.2)  # the probe's last line of the window
                    stats.probe = server_probe.read(Path(folder) / "probe", *stats.window)
                    p99 = report(args, workers, tables, stats, setup, variant)
                    rate = stats.rounds / args.duration
                    lat = sorted(1000 * x for x in stats.latencies)
                    rows.append((workers, tables, rate,
                                 1000 * stats.play_cpu / max(1, stats.rounds),
                                 1000 * stats.client_cpu / max(1, stats.rounds), stats.idle,
                                 statistics.median(lat) if lat else None, p99,
                                 stats.load_before, len(stats.errors), variant,
                                 stats.frames / max(1, stats.rounds)))
                    previous = best[workers]
                    if p99 is not None and p99 < args.p99_ms and not stats.errors and (
                            previous is None or rate > previous[0]):
                        best[workers] = (rate, tables)
            except BaseException:
                print("the server's log ends:\n" + "\n".join(
                    log.read_text(errors="replace").splitlines()[-30:]))
                raise
            finally:
                server.terminate()
                server.wait(60)
                if redis_server is not None:
                    redis_server.terminate()
                    redis_server.wait(10)
                notes = [line for line in log.read_text(errors="replace").splitlines()[1:]
                         if " took room " not in line]  # not the banner, not takeovers
                if notes:
                    print(f"the server logged {len(notes)} line(s) (lost leases, errors); the "
                          "first: " + " | ".join(notes[:3]))
    print("\n== side by side (server CPU: all its processes; load: 1-minute average when "
          "play started)")
    print("workers  tables  rounds/s  CPU ms/round  clients ms/round  idle  p50 ms  p99 ms  "
          "load  errors  frames/round  variant")
    for workers, tables, rate, cpu, client, idle, p50, p99, load, errors, variant, frames in (
            rows):
        shown_idle = "-" if idle is None else f"{100 * idle:.0f}%"
        print(f"{workers:>7}  {tables:>6}  {rate:>8.1f}  {cpu:>12.1f}  {client:>16.1f}  "
              f"{shown_idle:>4}  "
              f"{'-' if p50 is None else f'{p50:.1f}':>6}  "
              f"{'-' if p99 is None else f'{p99:.1f}':>6}  {load:>4.1f}  {errors:>6}  "
              f"{frames:>12.1f}  {variant}")
    print(f"\n== summary: most rounds/s with reveal latency p99 < {args.p99_ms:g} ms")
    for workers, found in best.items():
        if found is None:
            print(f"{workers} worker(s): none of the table counts stayed under the bound")
        else:
            print(f"{workers} worker(s): {found[0]:.1f} rounds/s ({found[1]} tables)")


if __name__ == "__main__":
    main()
