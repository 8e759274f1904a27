"""What counting the connections per address in Redis costs Redis (issue 11;
:class:`gutskit.server.cluster.ClusterQuota`): the server time of the scripts a worker
runs, read from Redis's own counters (``INFO commandstats``: microseconds spent in
``EVAL``), so the figures do not include this client's time.

* take: one script per connection accepted (:data:`gutskit.server.cluster._TAKE`), the
  places of one address, up to ``--places``.
* renewal: what one worker sends every second for the places it holds
  (:data:`gutskit.server.cluster._REFRESH`, in scripts of at most ``REFRESH_CHUNK`` places):
  all places of one address (a load test, a large NAT), and each place from its own
  address (players at home).

A private ``redis-server`` (from ``PATH``) on a Unix socket in a temporary folder.

Run: python benchmarks/bench_quotas.py [--places 1200,6000] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
from common import header

from gutskit.server.cluster import _REFRESH, _TAKE, REFRESH_CHUNK, _chunks, _refresh_args

LEASE_MS = 3000


def eval_usec(client: redis.Redis) -> tuple[int, int]:
    """(calls, microseconds) of ``EVAL`` so far."""
    stats: dict[str, Any] = client.info("commandstats").get("cmdstat_eval", {})
    return int(stats.get("calls", 0)), int(stats.get("usec", 0))


def measure(client: redis.Redis, places: int, renewals: int = 10) -> dict[str, float]:
    members = [f"host:12345:0123abcd {i:012x}" for i in range(places)]
    one = "gutskit:conns:127.0.0.1"
    client.flushall()
    client.config_resetstat()
    for member in members:
        client.eval(_TAKE, 1, one, member, places, LEASE_MS)
    calls, usec = eval_usec(client)
    take = usec / calls

    def renew(held: list[tuple[str, list[str]]]) -> tuple[float, float]:
        client.config_resetstat()
        for _ in range(renewals):
            with client.pipeline(transaction=False) as pipe:
                for chunk in _chunks(held, REFRESH_CHUNK):
                    pipe.eval(_REFRESH, len(chunk), *_refresh_args(chunk, LEASE_MS))
                pipe.execute()
        calls, usec = eval_usec(client)
        return usec / renewals / 1000, usec / calls / 1000

    same, same_script = renew([(one, members)])
    spread, spread_script = renew([(f"gutskit:conns:10.{i // 65536}.{i // 256 % 256}."
                                    f"{i % 256}", [m]) for i, m in enumerate(members)])
    return {"take_ms": take / 1000, "renew_one_address_ms": same,
            "renew_one_address_script_ms": same_script,
            "renew_spread_ms": spread, "renew_spread_script_ms": spread_script}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--places", default="1200,6000",
                        help="connections held by one worker, comma-separated")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("error: redis-server is not installed (apt-get install redis-server)")
    header("connections per address in Redis: Redis's own time per script")
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    print(f"redis: {version.strip()}")
    with tempfile.TemporaryDirectory(prefix="gutskit-bench-") as folder:
        path = Path(folder) / "redis.sock"
        process = subprocess.Popen(
            [binary, "--port", "0", "--unixsocket", str(path), "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            client = redis.Redis(unix_socket_path=str(path))
            deadline = time.monotonic() + 10
            while True:
                try:
                    client.ping()
                    break
                except redis.exceptions.ConnectionError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
            figures: list[dict[str, float]] = []
            for places in (int(n) for n in args.places.split(",")):
                got = measure(client, places)
                figures.append({"places": places, **got})
                print(f"{places} places: take {got['take_ms']:.3f} ms each; renewal, one "
                      f"address {got['renew_one_address_ms']:.2f} ms (per script "
                      f"{got['renew_one_address_script_ms']:.2f} ms), one address "
                      f"each {got['renew_spread_ms']:.2f} ms (per script "
                      f"{got['renew_spread_script_ms']:.2f} ms)")
            client.close()
        finally:
            process.terminate()
            process.wait(10)
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
