"""Rooms across processes (:mod:`gutskit.server.cluster`): a real ``redis-server`` (Debian's,
``/usr/bin/redis-server``; ``scripts/test`` installs it) on a free port per test.

* Two workers in this process (two uvicorn servers sharing the database and Redis): the
  room is owned by one, every player and the spectator connect through the other, and the
  scripted session of ``tests/test_server.py`` (hands, stacks and pots worked out by hand
  from the test seeds) plays the same through the relay; HTTP exports are relayed too.
* Failover: ``guts serve --workers 2 --redis URL`` as a real process tree; ``kill -9`` of
  the worker owning a room in the middle of a round; the players reconnect and find the
  same hands, the same sealed declarations and every chip; the round then resolves with
  the declarations made before the kill.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
import redis
import uvicorn
from server_support import Player, Server, seat_three, seeds
from test_server import play_scripted_session
from websockets.exceptions import InvalidStatus

from gutskit.server.cluster import LEASE_SECONDS, RENEW_SECONDS, ClusterApp, cluster_app
from gutskit.server.rooms import ServerConfig
from gutskit.server.store import open_room_store

REDIS_SERVER = "/usr/bin/redis-server"


_GIVEN: set[int] = set()


def free_port() -> int:
    """A loopback port free now, never one given before in this process (``ports =
    free_port(), free_port()`` could get the same port twice: each probe is closed before
    the next). (The kernel gives bind(0) odd ports and outgoing connections even ones, so
    another worker's clients do not take it before the server binds it.)"""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
        if port not in _GIVEN:
            _GIVEN.add(port)
            return port


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A fresh ``redis-server`` on a free loopback port, no persistence."""
    binary = REDIS_SERVER if os.path.exists(REDIS_SERVER) else shutil.which("redis-server")
    assert binary is not None, "redis-server is missing: run scripts/test --setup-only"
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
         "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "redis-server ended (its port taken meanwhile?)"
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        yield url
    finally:
        client.close()
        process.terminate()
        process.wait(10)


@dataclass
class Split(Server):
    """Rooms are created on one worker (``port``, the owner) and every WebSocket goes to
    another (``relay_port``)."""

    relay_port: int = 0

    def ws_url(self, room_id: str) -> str:
        return f"ws://127.0.0.1:{self.relay_port}/ws/{room_id}"


@contextmanager
def in_process_worker(db_url: str, redis_url: str, *, seed_numbers: tuple[int, ...] = (),
                      room_limit: str = "10000/minute", lease_seconds: float = LEASE_SECONDS,
                      renew_seconds: float = RENEW_SECONDS, mark: str | None = None,
                      **knobs: Any) -> Iterator[tuple[int, ClusterApp]]:
    """One worker of a cluster: the cluster application on a uvicorn server in a thread
    (random port); the tests' fast timers, fixed seeds, dealer seat 0; ``mark``: the
    cluster's mark it puts back (:func:`gutskit.server.cluster.cluster_mark`); ``knobs``:
    more :class:`ServerConfig` fields."""
    store = open_room_store(db_url)
    config = ServerConfig(bot_delay=(0.0, 0.0), min_decision_seconds=0.1,
                          min_reveal_seconds=0.0, room_limit=room_limit, **knobs)
    app = cluster_app(store, redis_url, config=config, lease_seconds=lease_seconds,
                      renew_seconds=renew_seconds, mark=mark)
    app.node.manager.new_seed = seeds(*seed_numbers)
    app.node.manager.first_dealer = lambda n: 0
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error",
                                           lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60  # generous: a loaded machine starts slowly
    while not server.started:
        assert time.monotonic() < deadline, "worker did not start"
        time.sleep(0.01)
    try:
        yield server.servers[0].sockets[0].getsockname()[1], app
    finally:
        server.should_exit = True
        thread.join(60)  # (a bound: it returns once the server has stopped)
        store.close()


def test_relayed_session_plays_the_scripted_session(tmp_path: Path, redis_url: str) -> None:
    db_url = f"sqlite:///{tmp_path / 'cluster.db'}"
    with (in_process_worker(db_url, redis_url, seed_numbers=(1, 2, 3, 4)) as (owner, app),
          in_process_worker(db_url, redis_url) as (relay, relay_app)):
        split = Split(port=owner, manager=app.node.manager, store=app.node.manager.store,
                      relay_port=relay)
        result = play_scripted_session(split, protocol=2)
        room_id = result["room_id"]
        # One owner: the room runs on the worker that created it; the relay holds none.
        assert room_id in app.node.manager.rooms
        assert room_id not in relay_app.node.manager.rooms
        lease = redis.Redis.from_url(redis_url, decode_responses=True)
        assert lease.get(f"gutskit:room:{room_id}") == app.node.worker_id
        lease.close()
        # HTTP through the relay is answered by the owner.
        ledger = httpx.get(f"http://127.0.0.1:{relay}/api/rooms/{room_id}/ledger.json",
                           timeout=60).json()
        assert [row["net"] for row in ledger["rows"]] == [1, -5, 4]
        info = httpx.get(f"http://127.0.0.1:{relay}/api/rooms/{room_id}", timeout=60).json()
        assert info["status"] == "over"
        assert info["spectators"] == 1  # the relayed spectator is attached at the owner
        for player in [*result["players"], result["spectator"]]:
            player.close()


def _events(player: Player) -> list[dict[str, Any]]:
    return [m for m in player.log if m["type"] == "event"]


def test_protocol_5_on_the_owner_and_through_a_relay(tmp_path: Path, redis_url: str) -> None:
    """Protocol 5 (notices held up to ``app.NOTICE_HOLD`` for a later frame, the table's
    change made once when the frame goes) in a cluster: the room runs on the worker that
    created it, and protocol-5 connections there and through the other worker (whose frames
    the owner makes and the relay passes on) play round 1 of the scripted session
    (tests/test_server.py: Ana in, Ben in, Cleo out; Ana's tens beat Ben's queen high: Ana
    22, Ben 16 matching the pot's 3, Cleo 19) and the host ends the session in round 2 (the
    pot of 3 shared: 23, 17, 20). Each ends with a protocol-4 connection's events (every
    seq, in order, none missing) and table."""
    db_url = f"sqlite:///{tmp_path / 'cluster.db'}"
    with (in_process_worker(db_url, redis_url, seed_numbers=(1, 2)) as (owner, app),
          in_process_worker(db_url, redis_url) as (relay, relay_app)):
        here = Server(port=owner, manager=app.node.manager, store=app.node.manager.store)
        there = Split(port=owner, manager=app.node.manager, store=app.node.manager.store,
                      relay_port=relay)
        created = here.create_room("Ana")
        room_id = created["room_id"]
        ana = Player(here, room_id, created["token"], protocol=5)  # on the owner
        seats = [ana]
        for name, protocol in (("Ben", 5), ("Cleo", 4)):  # through the relay
            player = Player(there, room_id, protocol=protocol)
            player.send({"type": "join", "name": name})
            seated = player.expect("seated")
            player.seat, player.token = seated["seat"], seated["token"]
            seats.append(player)
        watchers = {"5 owner": Player(here, room_id, protocol=5),
                    "5 relay": Player(there, room_id, protocol=5),
                    "4 owner": Player(here, room_id, protocol=4),
                    "4 relay": Player(there, room_id, protocol=4)}
        assert room_id in app.node.manager.rooms
        assert room_id not in relay_app.node.manager.rooms
        ben, cleo = seats[1], seats[2]
        ana.send({"type": "start"})
        for player in seats:
            player.reach(lambda t: t["phase"] == "declare" and t["round"] == 1)
        # Each sealed declaration reaches the protocol-4 spectators (their notices' frame)
        # before the next is made: the protocol-5 connections hold them meanwhile (or
        # send them after NOTICE_HOLD on a slow machine: the same in the end).
        assert ana.declare(1, "in")["type"] == "ack"
        for name in ("4 owner", "4 relay"):
            watchers[name].reach(lambda t: t["declared"] == [True, False, False])
        assert ben.declare(1, "in")["type"] == "ack"
        for name in ("4 owner", "4 relay"):
            watchers[name].reach(lambda t: t["declared"] == [True, True, False])
        assert cleo.declare(1, "out")["type"] == "ack"
        after = ana.reach(lambda t: t["phase"] == "declare" and t["round"] == 2)
        assert after["stacks"] == [22, 16, 19] and after["pot"] == 3
        ana.send({"type": "end_session"})
        tables: dict[str | int, dict[str, Any]] = {}
        named: list[tuple[str | int, Player]] = [*watchers.items()]
        for who, player in [*named, *((p.seat or 0, p) for p in seats)]:
            final = player.reach(lambda t: t["phase"] == "over")
            assert final["stacks"] == [23, 17, 20] and final["pot"] == 0, who
            tables[who] = {k: v for k, v in final.items() if k != "time_left"}
        # Every connection's events: each seq once, in order, from the first one up.
        events = {name: _events(player) for name, player in watchers.items()}
        seqs = [m["seq"] for m in events["4 owner"]]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        assert [m["event"]["type"] for m in events["4 owner"]][-1] == "SessionEnded"
        for name, got in events.items():
            assert got == events["4 owner"], name
        for player in seats:
            assert [m["seq"] for m in _events(player)] == seqs, player.seat
        # The spectators' tables alike; each seat's as the protocol-4 seat's but its hand.
        for name in watchers:
            assert tables[name] == tables["4 owner"], name
        public = {k: v for k, v in tables[2].items() if k not in ("hand", "seat")}
        for seat in (0, 1):
            assert {k: v for k, v in tables[seat].items()
                    if k not in ("hand", "seat")} == public, seat
        for player in [*seats, *watchers.values()]:
            player.close()


def test_the_room_creation_rate_per_address_holds_across_workers(tmp_path: Path,
                                                                 redis_url: str) -> None:
    """Audit 2: the per-address limits were per worker, so N workers let an address create
    N times as many rooms. With Redis the rate is counted there (the ``limits`` library's
    Redis storage): 2 rooms a minute, the first on one worker, the second on the other, the
    third refused by either."""
    db_url = f"sqlite:///{tmp_path / 'cluster.db'}"
    with (in_process_worker(db_url, redis_url, room_limit="2/minute") as (first, app),
          in_process_worker(db_url, redis_url, room_limit="2/minute") as (second, _)):
        workers = [Server(port=port, manager=app.node.manager, store=app.node.manager.store)
                   for port in (first, second)]
        body = {"host_name": "Ana", "buy_in": 20, "decision_seconds": 30}
        assert workers[0].post("/api/rooms", body).status_code == 200
        assert workers[1].post("/api/rooms", body).status_code == 200
        for worker in workers:
            refused = worker.post("/api/rooms", body)
            assert (refused.status_code, refused.json()) == (429, {
                "code": "rate_limited",
                "message": "this address may create at most 2 rooms per minute; try again "
                           "later"})
        counted = redis.Redis.from_url(redis_url, decode_responses=True)
        assert counted.keys("gutskit:limits*")  # the count lives in the shared Redis
        counted.close()


def test_a_worker_whose_event_loop_is_busy_keeps_its_rooms(tmp_path: Path,
                                                            redis_url: str) -> None:
    """Issue 11: ``load_server.py --workers 2 --tables 500`` had 2,118 connections closed
    by the server. Each worker's event loop, busy for seconds at a time under that load,
    renewed its room leases late; they lapsed and the worker dropped those rooms (every
    connection closed, "worker ... lost room" in its log) though nobody else had taken them
    and the worker was alive. The leases are renewed by a thread of their own now: an event
    loop that does not run for 3 lease times still holds its room, its player stays
    connected and the room answers afterwards; and a lease that lapsed all the same and that
    nobody took meanwhile is taken back, not dropped."""
    db_url = f"sqlite:///{tmp_path / 'cluster.db'}"
    # A 2 s lease renewed every 0.2 s: the lease thread may be up to 1.8 s late (a loaded
    # machine) before the lease lapses; with a 1 s lease, 0.8 s late failed the check.
    with in_process_worker(db_url, redis_url, lease_seconds=2.0,
                           renew_seconds=0.2) as (port, app):
        node = app.node
        server = Server(port=port, manager=node.manager, store=node.manager.store)
        created = server.post("/api/rooms", {"host_name": "Ana", "buy_in": 20,
                                             "decision_seconds": 30}).json()
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"], protocol=2)
        leases = redis.Redis.from_url(redis_url, decode_responses=True)
        assert leases.get(f"gutskit:room:{room_id}") == node.worker_id
        assert node.loop is not None
        node.loop.call_soon_threadsafe(time.sleep, 6.0)  # the loop runs nothing for 6 s
        time.sleep(4.0)  # twice the lease time into the stall
        assert leases.get(f"gutskit:room:{room_id}") == node.worker_id
        time.sleep(2.5)  # the loop runs again
        ana.send({"type": "chat", "text": "still here"})
        assert ana.expect("chat")["text"] == "still here"
        assert room_id in node.owned and room_id in node.manager.rooms
        assert leases.get(f"gutskit:room:{room_id}") == node.worker_id
        # A lease that lapsed anyway (the lease thread itself late on a machine loaded far
        # beyond its cores) and that nobody took meanwhile is taken back, the room kept.
        leases.delete(f"gutskit:room:{room_id}")
        deadline = time.monotonic() + 60
        while leases.get(f"gutskit:room:{room_id}") is None:
            assert time.monotonic() < deadline, "the lapsed lease was not taken back"
            time.sleep(0.05)
        assert leases.get(f"gutskit:room:{room_id}") == node.worker_id
        ana.send({"type": "chat", "text": "and now"})
        assert ana.expect("chat")["text"] == "and now"
        assert room_id in node.owned and room_id in node.manager.rooms
        leases.close()
        ana.close()


def _reconnect(server: Server, room_id: str, token: str | None) -> Player:
    """Connect again until a worker welcomes the seat (the owner may be moving)."""
    deadline = time.monotonic() + 180  # (one attempt may wait server_support.WAIT)
    while True:
        try:
            return Player(server, room_id, token, protocol=2)
        except (OSError, InvalidStatus, AssertionError, TimeoutError) as error:
            assert time.monotonic() < deadline, f"no welcome after the failover: {error}"
            time.sleep(0.3)


def test_kill_9_of_the_owner_mid_round_loses_nothing(tmp_path: Path, redis_url: str) -> None:
    port = free_port()
    db_url = f"sqlite:///{tmp_path / 'cluster.db'}"
    serve = subprocess.Popen(
        [sys.executable, "-m", "gutskit.cli.app", "serve", "--workers", "2", "--redis",
         redis_url, "--db", db_url, "--port", str(port), "--min-reveal-seconds", "0",
         "--room-limit", "1000/minute"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    keys = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        deadline = time.monotonic() + 120
        while len(keys.keys("gutskit:worker:*")) < 2:  # both workers are up
            assert serve.poll() is None, serve.stderr.read() if serve.stderr else ""
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.2)
        # and answering at once: guts serve listens before it starts its workers (session
        # 7's final CI got "connection refused" right after both keys appeared)
        assert httpx.get(f"http://127.0.0.1:{port}/api/rules", timeout=30).is_success
        server = Server(port=port, manager=cast(Any, None), store=cast(Any, None))
        room_id, players = seat_three(server, decision_seconds=600)
        ana, ben, cleo = players
        ana.send({"type": "start"})
        before = [p.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
                  for p in players]
        assert ana.declare(1, "in")["type"] == "ack"
        assert ben.declare(1, "out")["type"] == "ack"
        sealed = cleo.state(lambda t: t["declared"] == [True, True, False])
        assert sealed["declarations"] == [None, None, None]
        assert sealed["stacks"] == [19, 19, 19] and sealed["pot"] == 3

        owner = cast(str | None, keys.get(f"gutskit:room:{room_id}"))
        assert owner is not None
        pid = int(owner.split(":")[-2])
        assert pid != serve.pid
        os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic()
        for player in players:
            player.close()
        again = [_reconnect(server, room_id, p.token) for p in players]
        took = time.monotonic() - killed_at
        new_owner = keys.get(f"gutskit:room:{room_id}")
        assert new_owner is not None and new_owner != owner

        tables = [next(m for m in p.log if m["type"] == "welcome")["table"] for p in again]
        for seat, (old, new) in enumerate(zip(before, tables, strict=True)):
            assert new["hand"] == old["hand"], f"seat {seat}: another deal"
            assert len(new["hand"]) == 3
            assert new["round"] == 1 and new["phase"] == "declare"
            assert new["declared"] == [True, True, False]
            # still sealed: each seat sees its own call only
            assert new["declarations"] == [["in", "out", None][s] if s == seat else None
                                           for s in range(3)]
            assert new["stacks"] == [19, 19, 19] and new["pot"] == 3
        # The round goes on from where it was: Cleo's call reveals the two made before.
        assert again[2].declare(1, "in")["type"] == "ack"
        revealed = again[0].expect("event", lambda m: m["event"]["type"]
                                   == "DeclarationsRevealed")
        assert revealed["event"]["declarations"] == ["in", "out", "in"]
        after = again[0].state(lambda t: t["round"] == 1 and t["phase"] != "declare")
        assert sum(after["stacks"]) + after["pot"] + after["reserve"] == 60
        resolved = next(m["event"] for m in again[0].log if m["type"] == "event"
                        and m["event"]["type"] == "RoundResolved")
        assert resolved["shown"] == [" ".join(before[0]["hand"]), None,
                                     " ".join(before[2]["hand"])]
        for player in again:
            player.close()
        print(f"failover: reconnected and welcomed {took:.1f} s after kill -9")
    finally:
        keys.close()
        stop_process_group(serve)


def test_worker_settings_round_trip() -> None:
    from gutskit.server.cluster import WorkerSettings

    settings = WorkerSettings(redis_url="redis://h:1/0", db="sqlite:///x.db",
                              config=ServerConfig(bot_delay=(0.1, 0.2), idle_minutes=5),
                              allowed_origins=("https://a.example",),
                              mark="0123456789abcdef")
    assert WorkerSettings.from_json(settings.to_json()) == settings
    assert json.loads(settings.to_json())["config"]["bot_delay"] == [0.1, 0.2]


def test_workers_start_a_private_redis_server(tmp_path: Path) -> None:
    # `guts serve --workers 2` without --redis: one machine, a redis-server of its own on
    # a Unix socket, stopped with the server.
    port = free_port()
    serve = subprocess.Popen(
        [sys.executable, "-m", "gutskit.cli.app", "serve", "--workers", "2", "--db",
         f"sqlite:///{tmp_path / 'one.db'}", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        server = Server(port=port, manager=cast(Any, None), store=cast(Any, None))
        deadline = time.monotonic() + 120
        while True:
            try:
                created = server.create_room("Ana", reveal_seconds=1)
                break
            except httpx.HTTPError:
                assert serve.poll() is None, serve.stderr.read() if serve.stderr else ""
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.3)
        sockets = list(tmp_path.glob("gutskit-*/redis.sock"))
        assert len(sockets) == 1
        room = server.get(f"/api/rooms/{created['room_id']}").json()
        assert [s["name"] for s in room["seats"]] == ["Ana"]
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(60)
    assert list(tmp_path.glob("gutskit-*")) == []  # its redis-server and folder are gone


def test_workers_without_redis_server_is_one_error_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gutskit.cli.app", "serve", "--workers", "2", "--db",
         f"sqlite:///{tmp_path / 'one.db'}", "--port", str(free_port())],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PATH": os.path.dirname(sys.executable)})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "error: --workers needs Redis: install redis-server (apt-get install redis-server) "
        "or give --redis URL")
    assert "Traceback" not in done.stderr


def stop_process_group(process: subprocess.Popen[bytes]) -> None:
    """Stop a server started with ``start_new_session=True`` and its workers: SIGTERM to its
    process group, SIGKILL if it has not ended within 30 s."""
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
