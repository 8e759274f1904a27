"""The connections per client address across a cluster (:class:`gutskit.server.cluster.
ClusterQuota`): counted in the shared Redis, so the limit is the cluster's, not each
worker's; a real ``redis-server`` per test (``test_cluster.redis_url``).

* Two ``guts serve --redis URL`` processes on two ports (two machines' worth of workers,
  one Redis, one database), limit 3: three connections of one address spread over both
  workers (one relayed) are welcomed, the fourth is refused on either, a closed one frees
  its place, and ``kill -9`` of a worker holding two of them frees those two within
  :data:`~gutskit.server.cluster.LEASE_SECONDS`.
* Redis away: a worker counts its own connections meanwhile.
* One worker in this process: a place is renewed with the worker's leases (taken again if
  it lapsed; in several scripts when there are many), and a place nobody renews (a dead
  worker's) does not count.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
import redis
from server_support import Player, Server
from test_cluster import free_port, in_process_worker, redis_url, stop_process_group
from websockets.exceptions import ConnectionClosed

from gutskit.server import cluster
from gutskit.server.cluster import LEASE_SECONDS

__all__ = ["redis_url"]  # the fixture, imported for the tests below

REFUSED = "your address already has 3 connections open, the most one address may hold"
PLACES = "gutskit:conns:127.0.0.1"


@contextmanager
def guts_serve(port: int, redis_url: str, db_url: str) -> Iterator[subprocess.Popen[bytes]]:
    """``guts serve --redis URL`` on ``port`` (one worker process), 3 connections per
    address; killed with its process group on exit."""
    process = subprocess.Popen(
        [sys.executable, "-m", "gutskit.cli.app", "serve", "--redis", redis_url, "--db",
         db_url, "--port", str(port), "--max-connections-per-address", "3",
         "--room-limit", "1000/minute", "--min-reveal-seconds", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        yield process
    finally:
        stop_process_group(process)


def answer(server: Server, room_id: str) -> tuple[Player, dict[str, Any]]:
    """Connect a spectator and say hello; the connection and the server's first answer
    (``welcome``, or an ``error`` and then the connection closed)."""
    player = Player(server, room_id, hello=False, protocol=2)
    player.send({"type": "hello", "protocol": 2, "token": None})
    return player, player.recv()


def refused(server: Server, room_id: str) -> int | None:
    """Connect a spectator that must be refused for the address limit; the close code."""
    player, first = answer(server, room_id)
    assert (first["type"], first["code"], first["message"]) == (
        "error", "too_many_connections", REFUSED)
    with pytest.raises(ConnectionClosed):
        while True:
            player.ws.recv(timeout=60)
    return player.ws.close_code


def welcomed_soon(server: Server, room_id: str) -> Player:
    """Connect spectators until one is welcomed (a place given back is free once the
    worker has removed it: a moment later, or a lease time after a kill)."""
    deadline = time.monotonic() + 60
    while True:
        player, first = answer(server, room_id)
        if first["type"] == "welcome":
            return player
        assert first["message"] == REFUSED, first
        player.close()
        assert time.monotonic() < deadline, "no place came free"
        time.sleep(0.1)


def holders(keys: redis.Redis) -> list[str]:
    """The worker pids holding the address's places (sorted)."""
    return sorted(member.split(" ")[0].split(":")[-2]
                  for member in cast(list[str], keys.zrange(PLACES, 0, -1)))


def test_connections_per_address_are_the_clusters(tmp_path: Path, redis_url: str) -> None:
    db_url = f"sqlite:///{tmp_path / 'cluster.db'}"
    keys = redis.Redis.from_url(redis_url, decode_responses=True)
    ports = free_port(), free_port()
    with guts_serve(ports[0], redis_url, db_url) as first, \
            guts_serve(ports[1], redis_url, db_url) as second:
        deadline = time.monotonic() + 120
        while len(keys.keys("gutskit:worker:*")) < 2:  # both workers are up
            for process in (first, second):
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.2)
        a, b = (Server(port=port, manager=cast(Any, None), store=cast(Any, None))
                for port in ports)
        room_a = a.create_room("Ana")["room_id"]  # owned by the first worker
        room_b = b.create_room("Ben")["room_id"]  # owned by the second
        assert str(first.pid) in cast(str, keys.get(f"gutskit:room:{room_a}"))
        assert str(second.pid) in cast(str, keys.get(f"gutskit:room:{room_b}"))

        # Three connections of 127.0.0.1: two run on the first worker (one accepted there,
        # one relayed by the second), one on the second.
        on_a = Player(a, room_a, protocol=2)
        relayed = Player(b, room_a, protocol=2)
        on_b = Player(b, room_b, protocol=2)
        assert holders(keys) == sorted([str(first.pid)] * 2 + [str(second.pid)])
        # Each worker alone holds fewer than 3; the fourth is refused on either, and
        # through the relay, with the documented error, closed 1008.
        assert refused(a, room_a) == 1008
        assert refused(b, room_b) == 1008
        assert refused(b, room_a) == 1008
        assert keys.zcard(PLACES) == 3

        # A closed connection gives its place back: a new one gets in (on the other worker).
        on_b.close()
        again = welcomed_soon(a, room_a)
        assert holders(keys) == [str(first.pid)] * 3
        assert refused(b, room_b) == 1008

        # kill -9 of the first worker, holding all three places: they lapse within a lease
        # time (3 s), with nobody to give them back.
        os.kill(first.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        first.wait(10)
        for player in (on_a, relayed, again):
            player.close()
        back = [welcomed_soon(b, room_b) for _ in range(3)]
        took = time.monotonic() - killed_at
        assert holders(keys) == [str(second.pid)] * 3
        assert refused(b, room_b) == 1008
        print(f"the killed worker's 3 places taken by new connections {took:.1f} s after "
              f"kill -9 (lease {LEASE_SECONDS:g} s)")
        for player in back:
            player.close()
    keys.close()


def test_places_are_renewed_with_the_leases(tmp_path: Path, redis_url: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "REFRESH_CHUNK", 1)  # the two places in two scripts
    db_url = f"sqlite:///{tmp_path / 'cluster.db'}"
    keys = redis.Redis.from_url(redis_url, decode_responses=True)
    with in_process_worker(db_url, redis_url, lease_seconds=1.0, renew_seconds=0.2,
                           max_connections_per_address=2) as (port, app):
        node = app.node
        server = Server(port=port, manager=node.manager, store=node.manager.store)
        room_id = server.create_room("Ana")["room_id"]
        # A place nobody renews (a worker that died long ago) does not count.
        keys.zadd(PLACES, {"gone:1:0 x": 0})
        players = [Player(server, room_id, protocol=2) for _ in range(2)]
        members = cast(list[str], keys.zrange(PLACES, 0, -1))
        assert len(members) == 2
        assert all(m.startswith(node.worker_id + " ") for m in members)
        # Renewed with the leases: after several lease times the places still count.
        first = cast(float, keys.zscore(PLACES, members[0]))
        deadline = time.monotonic() + 60
        while cast(float, keys.zscore(PLACES, members[0])) <= first + 2000:
            assert time.monotonic() < deadline, "the places were not renewed"
            time.sleep(0.1)
        assert keys.zcard(PLACES) == 2
        # Lapsed all the same (the lease thread late beyond the lease): taken again.
        keys.delete(PLACES)
        deadline = time.monotonic() + 60
        while keys.zcard(PLACES) < 2:
            assert time.monotonic() < deadline, "the lapsed places were not taken again"
            time.sleep(0.05)
        assert sorted(cast(list[str], keys.zrange(PLACES, 0, -1))) == sorted(members)
        for player in players:
            player.close()
        deadline = time.monotonic() + 60
        while keys.zcard(PLACES) > 0:  # given back when the connections end
            assert time.monotonic() < deadline, "the places were not given back"
            time.sleep(0.05)
    keys.close()


class _Unreachable:
    """A Redis client whose every call fails (Redis is down)."""

    async def eval(self, *args: Any) -> int:
        raise redis.exceptions.ConnectionError("Connection refused")


def test_without_redis_a_worker_counts_its_own_connections() -> None:
    """Redis away when a connection arrives: the place is counted in the worker's memory
    (the per-worker limit), not refused and not left uncounted."""
    node = SimpleNamespace(redis=_Unreachable(), worker_id="h:1:ab", prefix="gutskit",
                           lease_ms=3000)
    quota = cluster.ClusterQuota(cast(Any, node))

    async def scenario() -> list[bool]:
        first = await quota.take("conns", "10.0.0.1", 2)
        second = await quota.take("conns", "10.0.0.1", 2)
        third = await quota.take("conns", "10.0.0.1", 2)
        assert first is not None and second is not None and first.member == ""
        quota.give_back(first)
        fourth = await quota.take("conns", "10.0.0.1", 2)
        return [third is None, fourth is not None, quota.snapshot() == []]

    assert asyncio.run(scenario()) == [True, True, True]


def test_many_places_taken_at_once_all_reach_redis(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """300 connections arriving at once (more than redis-py's default pool of 100 commands
    in flight, which raised "Too many connections" and fell back to counting in one
    worker): through :func:`cluster.connect_redis` every place is counted in Redis. (The
    test is about the count, not the time: its waits are made longer than any loaded
    machine takes; redis-py 8's 5 s socket timeout made it fall back under load.)"""
    monkeypatch.setattr(cluster, "REDIS_WAIT_SECONDS", 300.0)
    monkeypatch.setattr(cluster, "REDIS_SOCKET_SECONDS", 300.0)
    keys = redis.Redis.from_url(redis_url, decode_responses=True)
    keys.delete("gutskit:conns:10.0.0.9")

    async def scenario() -> list[bool]:
        client = cluster.connect_redis(redis_url)
        node = SimpleNamespace(redis=client, worker_id="h:2:cd", prefix="gutskit",
                               lease_ms=30_000)
        quota = cluster.ClusterQuota(cast(Any, node))
        try:
            held = await asyncio.gather(*(quota.take("conns", "10.0.0.9", 1000)
                                          for _ in range(300)))
        finally:
            await client.aclose()
        return [h is not None and h.member != "" for h in held]

    assert asyncio.run(scenario()) == [True] * 300
    assert keys.zcard("gutskit:conns:10.0.0.9") == 300
    keys.delete("gutskit:conns:10.0.0.9")
    keys.close()


def test_redis_commands_wait_the_documented_times() -> None:
    """connect_redis sets its own waits, not redis-py's defaults (5 s in redis-py 8): a
    free connection for REDIS_WAIT_SECONDS, an answer for REDIS_SOCKET_SECONDS."""
    client = cluster.connect_redis("redis://127.0.0.1:1/0")  # (connects on first use)
    pool = client.connection_pool
    assert (pool.timeout, pool.max_connections) == (10.0, 64)
    assert (pool.connection_kwargs["socket_timeout"],
            pool.connection_kwargs["socket_connect_timeout"]) == (10.0, 10.0)
