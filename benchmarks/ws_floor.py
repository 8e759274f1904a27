"""The WebSocket stack's floor: server CPU per 6-seat round of a server that only moves a
round's frames, next to ``guts serve``'s figure (issue 11).

``load_server.py`` measures ``guts serve``: rules, views, storage, fairness and the
WebSocket stack together. This script measures the stack alone: a server with no game in
it that exchanges the same traffic as a round of ``guts serve`` with the same number of
clients over real loopback WebSockets. Per round of a table of ``--seats`` clients: a deal
frame to every seat; every client answers with a declaration after a random think time;
every declaration makes the server send a notice to each seat of the table (``--protocol
4``), or only an acknowledgement to the seat that declared (``--protocol 5``, the default:
the others' notices are held for their next frame, as ``guts serve``'s protocol 5 does, so
they cost no frame of their own); after the last declaration a reveal frame goes to every
seat, and after ``--reveal`` seconds the next deal. Frames carry ``--frame-bytes`` bytes of
JSON (``guts serve`` sends about 440 bytes per frame on average in load_server). The
stacks are measured in turn in the same run:

- ``fastapi``: FastAPI on uvicorn with the options ``guts serve`` uses
  (``gutskit.server.app.UVICORN_OPTIONS``) and asyncio's event loop: the stack of
  ``guts serve``;
- ``fastapi-uvloop``: the same on uvloop's event loop (libuv), if ``uvloop`` is installed;
- ``fastapi-raw``: the same, frames written by uvicorn's own ``send`` kept by
  ``gutskit.server.app.KeepTransport`` (no Starlette ``send_text``): ``guts serve``'s
  send path;
- ``fastapi-websockets``, ``fastapi-wsproto``: ``fastapi-raw`` on uvicorn's other
  WebSocket implementations (``ws="websockets"``, the legacy one on the ``websockets``
  library's asyncio layer; ``ws="wsproto"``, if ``wsproto`` is installed); the others
  run uvicorn's default, ``websockets-sansio``;
- ``granian``: the same FastAPI app on granian (an ASGI server written in Rust), one
  worker, if ``granian`` is installed;
- ``websockets``: the ``websockets`` library's own asyncio server, no ASGI layer, as a
  peer;
- ``picows``: picows (a WebSocket server written in Cython: frames parsed and built in C,
  one callback per frame, no coroutine per send) on uvloop, no ASGI layer, if ``picows``
  is installed (the ``dev`` extra): what a C-level stack costs for the same frames, a
  bound on what moving ``guts serve`` to another stack could give.

Whatever ``guts serve`` spends per round above the floor is the game's (rules, views,
storage, fairness); the floor itself bounds what any change inside gutskit can reach on
this stack. The load clients run in ``--clients`` processes of their own, as in
load_server.

    python benchmarks/ws_floor.py --tables 200 --duration 15
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# At module level: the endpoint's annotations are strings (``from __future__ import
# annotations``) that FastAPI resolves in this module's globals.
from fastapi import FastAPI, WebSocket, WebSocketDisconnect

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # benchmarks/ is not a package
import load_server

HOST = "127.0.0.1"
STACKS = ("fastapi", "fastapi-uvloop", "fastapi-raw", "fastapi-websockets",
          "fastapi-wsproto", "granian", "websockets", "picows")
"""Stacks measurable here; the ones whose package is missing are skipped with a line."""
FASTAPI_STACKS = {
    "fastapi": ("asyncio", "auto", "starlette"),
    "fastapi-uvloop": ("uvloop", "auto", "starlette"),
    "fastapi-raw": ("uvloop", "auto", "raw"),
    "fastapi-websockets": ("uvloop", "websockets", "raw"),
    "fastapi-wsproto": ("uvloop", "wsproto", "raw"),
}
"""The FastAPI stacks on uvicorn: event loop, uvicorn's ``ws`` implementation, and how a
frame is sent (``starlette``: ``WebSocket.send_text``; ``raw``: uvicorn's send kept by
``KeepTransport``)."""


@dataclass
class _Table:
    """The server's record of one table: its connections' send functions and the round's
    declarations so far."""

    seats: int
    senders: list[Any]
    declared: int = 0


def _frame(kind: str, size: int) -> str:
    """A JSON frame of about ``size`` bytes."""
    return json.dumps({"type": kind, "pad": "x" * max(0, size - 24)})


class _Floor:
    """The server side: deal, notices and reveal, as a round of ``guts serve`` sends."""

    def __init__(self, seats: int, reveal: float, size: int, protocol: int = 5) -> None:
        self.tables: dict[str, _Table] = {}
        self.seats = seats
        self.reveal = reveal
        self.protocol = protocol
        self.deal = _frame("deal", size)
        self.notice = _frame("notice", size)
        self.ack = _frame("ack", size)
        self.revealed = _frame("reveal", size)

    async def joined(self, table_id: str, send: Any) -> None:
        table = self.tables.setdefault(table_id, _Table(self.seats, []))
        table.senders.append(send)
        if len(table.senders) == table.seats:
            await self._send_all(table, self.deal)

    async def declared(self, table_id: str, send: Any) -> None:
        """A declaration from the connection whose send function is ``send``: protocol 4
        sends a notice to every seat, protocol 5 an acknowledgement to the declarer only."""
        table = self.tables[table_id]
        table.declared += 1
        if self.protocol == 5:
            try:
                await send(self.ack)
            except Exception:  # a closed client: the run is ending
                return
        else:
            await self._send_all(table, self.notice)
        if table.declared == table.seats:
            table.declared = 0
            await self._send_all(table, self.revealed)
            asyncio.get_running_loop().call_later(
                self.reveal, lambda: asyncio.ensure_future(self._send_all(table, self.deal)))

    @staticmethod
    async def _send_all(table: _Table, text: str) -> None:
        for send in list(table.senders):
            try:
                await send(text)
            except Exception:  # a closed client: the run is ending
                table.senders.remove(send)


def _sender(ws: WebSocket, path: str) -> Any:
    """The function that sends a text frame to ``ws`` by ``path`` (``FASTAPI_STACKS``):
    returns an awaitable."""
    if path == "starlette":
        return ws.send_text
    from gutskit.server.app import raw_send_of

    raw = raw_send_of(ws.scope)
    if raw is None:
        raise SystemExit("no uvicorn send kept (KeepTransport)")

    def send(text: str) -> Any:
        return raw({"type": "websocket.send", "text": text})

    return send


def make_app(floor: _Floor, path: str = "starlette") -> Any:
    """The floor as an ASGI app (FastAPI's, one WebSocket route per table, ``/up`` to poll;
    outermost :class:`~gutskit.server.app.KeepTransport` unless frames go by Starlette's
    ``send_text``), sending frames by ``path`` (:data:`FASTAPI_STACKS`)."""
    app = FastAPI()

    @app.get("/up")
    def up() -> dict[str, bool]:
        return {"up": True}

    @app.websocket("/ws/{table_id}")
    async def endpoint(ws: WebSocket, table_id: str) -> None:
        await ws.accept()
        send = _sender(ws, path)
        await floor.joined(table_id, send)
        try:
            while True:
                await ws.receive_text()
                await floor.declared(table_id, send)
        except WebSocketDisconnect:
            return

    if path == "starlette":
        return app
    from gutskit.server.app import KeepTransport

    return KeepTransport(app)


def granian_app() -> Any:
    """The app granian serves (its ``--factory`` target): the floor's settings come in the
    ``GUTSKIT_FLOOR`` environment variable (seats, reveal seconds, frame bytes, protocol)."""
    seats, reveal, size, protocol = os.environ["GUTSKIT_FLOOR"].split(",")
    return make_app(_Floor(int(seats), float(reveal), int(size), int(protocol)))


def serve(stack: str, port: int, seats: int, reveal: float, size: int,
          protocol: int = 5) -> None:
    """Run the floor server on ``port`` with ``stack`` until killed."""
    floor = _Floor(seats, reveal, size, protocol)
    if stack in FASTAPI_STACKS:
        import uvicorn

        from gutskit.server.app import UVICORN_OPTIONS

        loop, ws, path = FASTAPI_STACKS[stack]
        uvicorn.run(make_app(floor, path), host=HOST, port=port, log_level="warning", **{
            **UVICORN_OPTIONS, "loop": loop, "ws": ws})
        return
    if stack == "picows":
        _serve_picows(floor, port)
        return
    if stack == "granian":
        os.environ["GUTSKIT_FLOOR"] = f"{seats},{reveal},{size},{protocol}"
        os.execvp(sys.executable, [
            sys.executable, "-m", "granian", "--interface", "asgi", "--host", HOST,
            "--port", str(port), "--workers", "1", "--runtime-threads", "1",
            "--loop", "asyncio", "--log-level", "warning", "--factory", "--working-dir",
            str(Path(__file__).resolve().parent), "ws_floor:granian_app"])

    from websockets.asyncio.server import ServerConnection
    from websockets.asyncio.server import serve as ws_serve
    from websockets.exceptions import ConnectionClosed

    async def handler(ws: ServerConnection) -> None:
        table_id = (ws.request.path if ws.request is not None else "/").rsplit("/", 1)[-1]
        await floor.joined(table_id, ws.send)
        try:
            async for _ in ws:
                await floor.declared(table_id, ws.send)
        except ConnectionClosed:
            return

    async def main() -> None:
        async with ws_serve(handler, HOST, port, max_size=65536, compression=None):
            await asyncio.Future()

    asyncio.run(main())


def _serve_picows(floor: _Floor, port: int) -> None:
    """The floor on picows and uvloop: each table's connections send with picows's own
    ``WSTransport.send`` (it writes at once and never suspends, so the floor's coroutines
    run to their end where they are called, with no task)."""
    import uvloop
    from picows import (
        WSFrame,
        WSListener,
        WSMsgType,
        WSTransport,
        WSUpgradeRequest,
        ws_create_server,
    )

    def run(step: Any) -> None:
        try:
            step.send(None)
        except StopIteration:
            return
        raise RuntimeError("a picows send suspended")  # (never: its sends are calls)

    class Seat(WSListener):
        def __init__(self, table_id: str) -> None:
            self.table_id = table_id
            self.send: Any = None

        def on_ws_connected(self, transport: WSTransport) -> None:
            async def send(text: str) -> None:
                transport.send(WSMsgType.TEXT, text.encode())

            self.send = send
            run(floor.joined(self.table_id, send))

        def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
            if frame.msg_type == WSMsgType.TEXT:
                run(floor.declared(self.table_id, self.send))
            elif frame.msg_type == WSMsgType.CLOSE:
                transport.send_close(frame.get_close_code())
                transport.disconnect()

    def seat(request: WSUpgradeRequest) -> Seat:
        return Seat(request.path.decode().rsplit("/", 1)[-1])

    async def main() -> None:
        server = await ws_create_server(seat, HOST, port, max_frame_size=65536)
        await server.serve_forever()

    uvloop.run(main())


@dataclass
class _Counts:
    rounds: int = 0
    frames: int = 0
    dealt: int = 0
    """Clients that have received their first deal (the set-up is over when all have)."""


async def _client(url: str, seat: int, think: float, counts: _Counts, rng: random.Random
                  ) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    async def declare() -> None:
        await asyncio.sleep(rng.uniform(0.05, think))
        try:
            await ws.send('{"type":"declare"}')
        except ConnectionClosed:
            return  # the run is ending

    pending: set[asyncio.Task[None]] = set()
    first = True
    async with connect(url, max_size=2**20, open_timeout=60, compression=None) as ws:
        try:
            async for text in ws:
                counts.frames += 1
                if isinstance(text, str) and text.startswith('{"type": "deal"'):
                    if first:
                        counts.dealt += 1
                        first = False
                    task = asyncio.create_task(declare())
                    pending.add(task)
                    task.add_done_callback(pending.discard)
                elif seat == 0 and isinstance(text, str) and '"reveal"' in text[:20]:
                    counts.rounds += 1
        except ConnectionClosed:
            return
        finally:
            for task in list(pending):
                task.cancel()


async def _clients(port: int, first: int, tables: int, seats: int, think: float,
                   duration: float, barrier: Any) -> tuple[int, int]:
    counts = _Counts()
    rng = random.Random(first)
    tasks = []
    for t in range(first, first + tables):
        for seat in range(seats):
            tasks.append(asyncio.create_task(_client(
                f"ws://{HOST}:{port}/ws/t{t}", seat, think, counts, rng)))
        if len(tasks) % 60 == 0:
            await asyncio.sleep(0.05)  # let the connections open in batches
    deadline = time.monotonic() + 300
    while counts.dealt < len(tasks):  # every table dealt: the set-up is over
        if time.monotonic() > deadline:
            raise SystemExit(f"only {counts.dealt} of {len(tasks)} clients were dealt in")
        await asyncio.sleep(0.1)
    await asyncio.get_running_loop().run_in_executor(None, barrier.wait)
    counts.rounds = counts.frames = 0
    await asyncio.sleep(duration)
    result = (counts.rounds, counts.frames)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return result


def _client_process(port: int, first: int, tables: int, seats: int, think: float,
                    duration: float, barrier: Any, results: Any) -> None:
    load_server.raise_fd_limit(tables * seats * 2 + 256)
    results.put(asyncio.run(_clients(port, first, tables, seats, think, duration, barrier)))


def measure(args: argparse.Namespace, stack: str) -> dict[str, float]:
    """One stack's window: rounds/s, frames per round and server CPU per round (ms)."""
    port = load_server.free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", stack, "--port", str(port), "--seats",
         str(args.seats), "--reveal", str(args.reveal), "--frame-bytes",
         str(args.frame_bytes), "--protocol", str(args.protocol)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection((HOST, port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(f"the {stack} floor server did not start") from None
                time.sleep(0.1)
        context = multiprocessing.get_context("spawn")
        results = context.Queue()
        shares = [args.tables // args.clients + (i < args.tables % args.clients)
                  for i in range(args.clients)]
        barrier = context.Barrier(len(shares) + 1)
        processes = []
        first = 0
        for share in shares:
            processes.append(context.Process(target=_client_process, args=(
                port, first, share, args.seats, args.think, args.duration, barrier,
                results)))
            first += share
        for process in processes:
            process.start()
        barrier.wait(timeout=600)
        load = os.getloadavg()[0]
        start = load_server.cpu_seconds(server.pid)
        clients_start = sum(load_server.cpu_seconds(p.pid) for p in processes
                            if p.pid is not None)
        time.sleep(args.duration)
        cpu = load_server.cpu_seconds(server.pid) - start
        clients = sum(load_server.cpu_seconds(p.pid) for p in processes
                      if p.pid is not None) - clients_start
        rounds = frames = 0
        for _ in processes:
            got_rounds, got_frames = results.get(timeout=600)
            rounds += got_rounds
            frames += got_frames
        for process in processes:
            process.join(60)
    finally:
        server.kill()
        server.wait()
    per = max(1, rounds)
    return {"rounds_per_s": rounds / args.duration, "frames_per_round": frames / per,
            "cpu_ms_per_round": 1000 * cpu / per, "clients_ms_per_round": 1000 * clients / per,
            "load": load}


def main() -> None:
    parser = common.arguments(__doc__)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--duration", type=float, default=15.0, help="seconds of play")
    parser.add_argument("--think", type=float, default=3.0,
                        help="clients declare after up to this many seconds")
    parser.add_argument("--reveal", type=float, default=2.0,
                        help="pause between a reveal and the next deal (seconds)")
    parser.add_argument("--frame-bytes", type=int, default=440,
                        help="bytes of JSON per frame")
    parser.add_argument("--protocol", type=int, choices=(4, 5), default=5,
                        help="the traffic of guts serve's protocol 4 (a notice to every "
                        "seat per declaration) or 5 (an acknowledgement to the declarer; "
                        "notices ride on the next frame)")
    parser.add_argument("--clients", type=int, default=2,
                        help="load-client processes sharing the tables")
    parser.add_argument("--stacks", default=",".join(STACKS),
                        help=f"comma list of {', '.join(STACKS)}")
    parser.add_argument("--serve", choices=STACKS, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.port, args.seats, args.reveal, args.frame_bytes,
              args.protocol)
        return
    stacks = [s.strip() for s in args.stacks.split(",") if s.strip()]
    if (not 1 <= args.tables <= 500 or not 2 <= args.seats <= 10
            or not 0 < args.duration <= 300 or not 1 <= args.clients <= 8
            or not 2 <= args.frame_bytes <= 60000 or not stacks
            or any(s not in STACKS for s in stacks)):
        parser.error(f"bounded: 1-500 tables, 2-10 seats, at most 300 seconds, 1-8 client "
                     f"processes, 2-60000 bytes per frame, stacks among {', '.join(STACKS)}")
    load_server.raise_fd_limit(args.tables * args.seats * 2 + 256)
    common.header(f"WebSocket stack floor: {args.tables} tables x {args.seats} seats, "
                  f"{args.duration:g}s each, {args.frame_bytes}-byte frames, protocol "
                  f"{args.protocol}'s traffic")
    from importlib.metadata import version

    print("stack versions: " + ", ".join(
        f"{name} {version(name)}" for name in ("fastapi", "uvicorn", "websockets", "uvloop",
                                               "picows", "granian", "wsproto")
        if importlib.util.find_spec(name) is not None))
    results = []
    for stack in stacks:
        needs = {"granian": "granian", "picows": "picows",
                 "fastapi-wsproto": "wsproto"}.get(stack)
        if stack in FASTAPI_STACKS and FASTAPI_STACKS[stack][0] == "uvloop" \
                and importlib.util.find_spec("uvloop") is None:
            needs = "uvloop"
        if needs is not None and importlib.util.find_spec(needs) is None:
            print(f"{stack:>14}: skipped ({needs} is not installed: pip install {needs})")
            continue
        figures = measure(args, stack)
        results.append(common.result(f"floor {stack}: server CPU per round",
                                     figures["cpu_ms_per_round"], "ms"))
        print(f"{stack:>14}: {figures['rounds_per_s']:.1f} rounds/s, "
              f"{figures['frames_per_round']:.1f} frames per round received, server CPU "
              f"{figures['cpu_ms_per_round']:.2f} ms per round, load clients "
              f"{figures['clients_ms_per_round']:.2f} ms per round (load "
              f"{figures['load']:.1f} at the start)", flush=True)
    common.emit(results)


if __name__ == "__main__":
    main()
