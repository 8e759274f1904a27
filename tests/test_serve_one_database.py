"""One ``guts serve`` without Redis per database (attack6 L2, t16_two_servers_no_redis.py:
two servers on one SQLite file both ran the same room; a declaration accepted by one got
``server_error`` on the other). :mod:`gutskit.server.serving`: a server without Redis holds
its database alone (also ``--workers N`` with its private ``redis-server``), the servers of
a cluster on a shared Redis (``--redis URL``) hold it shared; the operating system lets go
when the process ends, so ``kill -9`` does not keep a restart waiting."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest
from server_support import DB_KINDS, Server, make_db_url
from test_cluster import (
    REDIS_SERVER,
    free_port,
    in_process_worker,
    redis_url,
    stop_process_group,
)

from gutskit.cli.workers import redis_problem
from gutskit.server.cluster import CLUSTER_MARK_KEY, cluster_mark, forget_mark
from gutskit.server.serving import DatabaseServed, hold_database, redis_identity
from gutskit.server.store import open_room_store

__all__ = ["redis_url"]  # the fixture, imported for the tests below

UNIX_PATH_MAX = 107
"""The longest path a Unix socket may have (Linux's ``sun_path``: 108 bytes with the final
NUL; macOS allows 103)."""


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    """A new directory with a short path (``/tmp/gk-XXXXXXXX``) for Unix sockets, removed
    afterwards: pytest's ``tmp_path`` is about 75 characters here and may be 30 more on a
    CI machine, past :data:`UNIX_PATH_MAX` with the socket's name."""
    directory = Path(tempfile.mkdtemp(dir="/tmp", prefix="gk-"))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def short_socket(directory: Path, name: str) -> Path:
    """``directory / name``, checked to fit a Unix socket's address."""
    path = directory / name
    assert len(os.fsencode(path)) < UNIX_PATH_MAX, path
    return path


def _serve(port: int, db: str, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "gutskit.cli.app", "serve", "--db", db, "--port", str(port),
         *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


@contextmanager
def serving(port: int, db: str, *extra: str) -> Iterator[subprocess.Popen[bytes]]:
    """``guts serve`` on ``port``, answering; stopped on exit."""
    process = _serve(port, db, *extra)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/rules", timeout=5).is_success:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield process
    finally:
        stop_process_group(process)


def refusal(port: int, db: str, *extra: str) -> str:
    """Start ``guts serve`` that must refuse: its one stderr line (exit 2). The server is
    stopped in every case (one that did not refuse within the bound too)."""
    process = _serve(port, db, *extra)
    try:
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            stop_process_group(process)
    assert process.returncode == 2, err
    text = err.decode()
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text.rstrip("\n")


def test_a_second_server_without_redis_refuses_the_database(tmp_path: Path,
                                                            redis_url: str) -> None:
    db = str(tmp_path / "one.db")
    ports = free_port(), free_port()
    with serving(ports[0], db) as first:
        origin = f"http://127.0.0.1:{ports[0]}"
        room = httpx.post(f"{origin}/api/rooms", headers={"Origin": origin}, timeout=30,
                          json={"host_name": "Ana", "buy_in": 20}).json()["room_id"]
        assert refusal(ports[1], db) == (
            f"error: database {db!r} is already served by another running guts serve; two "
            "servers without --redis would run the same rooms twice: stop the other one, "
            "or use --workers N (one machine) or --redis URL on every server for several "
            "processes")
        # Nor --workers N (its private redis-server knows nothing of the first server).
        assert refusal(ports[1], db, "--workers", "2").startswith(
            f"error: database {db!r} is already served by another running guts serve")
        # Nor may a cluster's server share it with a server that runs its rooms alone.
        assert refusal(ports[1], db, "--redis", redis_url) == (
            f"error: database {db!r} is served by a running guts serve without --redis; "
            "stop it first (or start it with --redis URL too)")
        # kill -9: nothing left to clean up, a new server starts at once with the room.
        os.kill(first.pid, signal.SIGKILL)
        first.wait(30)
        with serving(ports[1], db):
            info = httpx.get(f"http://127.0.0.1:{ports[1]}/api/rooms/{room}", timeout=30)
            assert (info.status_code, info.json()["seats"][0]["name"]) == (200, "Ana")
    # The servers of a cluster share it (tests/test_cluster_quotas.py runs two), and then
    # a server without Redis is refused.
    with serving(ports[0], db, "--redis", redis_url):
        assert refusal(ports[1], db).startswith(
            f"error: database {db!r} is already served by another running guts serve")


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with make_db_url(request.param, tmp_path) as url:
        yield url


def test_holds_alone_and_shared(db_url: str) -> None:
    """The holds in one process (SQLite: a flock of the database file; PostgreSQL: a
    session advisory lock): alone excludes every other, shared ones go together."""
    store = open_room_store(db_url)
    try:
        alone = hold_database(store.engine, "db", alone=True)
        for second in (True, False):
            with pytest.raises(DatabaseServed):
                hold_database(store.engine, "db", alone=second)
        alone.release()
        alone.release()  # once only
        shared = [hold_database(store.engine, "db", alone=False) for _ in range(2)]
        with pytest.raises(DatabaseServed, match=r"^database 'db' is already served by"):
            hold_database(store.engine, "db", alone=True)
        for hold in shared:
            hold.release()
        hold_database(store.engine, "db", alone=True).release()
    finally:
        store.close()


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_the_workers_end_with_their_supervisor(tmp_path: Path) -> None:
    """attack8 M1: ``kill -9`` of ``guts serve --workers 2``'s main process alone left its
    workers serving the rooms after its hold on the database was gone, so a new server ran
    the same room beside them. The workers now end with it (``die_with_parent``) and a new
    server starts on the database."""
    db = str(tmp_path / "w.db")
    ports = free_port(), free_port()
    with serving(ports[0], db, "--workers", "2") as main:
        deadline = time.monotonic() + 60
        while len(workers := [p for p in _children(main.pid) if _alive(p)
                              and "redis" not in Path(f"/proc/{p}/cmdline").read_text()]) < 2:
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.1)
        os.kill(main.pid, signal.SIGKILL)
        main.wait(30)
        deadline = time.monotonic() + 60
        while any(_alive(p) for p in workers):
            assert time.monotonic() < deadline, "a worker outlived its supervisor"
            time.sleep(0.1)
        with serving(ports[1], db):
            assert httpx.get(f"http://127.0.0.1:{ports[1]}/api/rules", timeout=30).is_success


@contextmanager
def redis_on_socket(path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A fresh ``redis-server`` on the Unix socket ``path`` (no TCP port, no persistence),
    answering; stopped on exit."""
    binary = REDIS_SERVER if os.path.exists(REDIS_SERVER) else shutil.which("redis-server")
    assert binary is not None, "redis-server is missing: run scripts/test --setup-only"
    process = subprocess.Popen(
        [binary, "--port", "0", "--unixsocket", str(path), "--save", "", "--appendonly",
         "no", "--dir", str(path.parent)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while redis_problem(f"unix://{path}") is not None:
            assert process.poll() is None, "redis-server ended"
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield process
    finally:
        process.terminate()
        process.wait(30)


@contextmanager
def stopped(process: subprocess.Popen[bytes]) -> Iterator[None]:
    """``process``'s group stopped (SIGSTOP: it holds what it holds, and does nothing),
    continued on exit."""
    os.killpg(process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.killpg(process.pid, signal.SIGCONT)


def test_two_redis_servers_named_by_one_url_are_two_clusters(tmp_path: Path,
                                                              socket_dir: Path) -> None:
    """attack10 M2: each machine given ``redis://127.0.0.1:6379/0`` names its own Redis.
    Here one URL, ``unix://PATH``, names a second Redis: the first one's socket is moved
    aside and another ``redis-server`` listens at ``PATH``. The first cluster's server is
    stopped (SIGSTOP) meanwhile, still holding the database but doing nothing, so it cannot
    reach the second Redis (a new connection of it would); it is continued once ``PATH``
    names its own Redis again."""
    import redis

    db = str(tmp_path / "two.db")
    path, aside = short_socket(socket_dir, "r.sock"), short_socket(socket_dir, "r-first.sock")
    url = f"unix://{path}"
    ports = free_port(), free_port()
    with redis_on_socket(path), serving(ports[0], db, "--redis", url) as first_server:
        client = redis.Redis.from_url(url, decode_responses=True)
        try:
            first = client.get(CLUSTER_MARK_KEY)
            assert isinstance(first, str) and len(first) == 16
            with serving(ports[1], db, "--redis", url):  # one cluster: it shares
                assert client.get(CLUSTER_MARK_KEY) == first
        finally:
            client.close()
        with stopped(first_server):
            path.rename(aside)  # the first Redis still listens, at the other name
            try:
                with redis_on_socket(path):  # "another machine's Redis", same URL
                    text = refusal(ports[1], db, "--redis", url)
                    second = redis.Redis.from_url(url, decode_responses=True)
                    try:  # the refused server took back the mark it made
                        assert second.get(CLUSTER_MARK_KEY) is None
                    finally:
                        second.close()
            finally:
                path.unlink(missing_ok=True)
                aside.rename(path)
        where = redis_identity(url)
        assert where == f"unix://{path}?db=0"
        made = text.rsplit(f"not this server's '{where} cluster ", 1)[-1][:16]
        assert len(made) == 16 and made != first
        assert text == (
            f"error: database {db!r} is served by running guts serve --redis servers on "
            f"Redis '{where} cluster {first}', not this server's '{where} cluster "
            f"{made}': two clusters would run the same rooms twice; give every server "
            "of a database the same --redis URL (or stop the others first)")
        client = redis.Redis.from_url(url, decode_responses=True)
        try:  # the first Redis untouched
            assert client.get(CLUSTER_MARK_KEY) == first
        finally:
            client.close()


def test_a_server_joins_after_redis_lost_the_mark(tmp_path: Path, redis_url: str) -> None:
    """Session 11's attack on 0992a62: Redis lost its data (FLUSHALL here; a restart
    without persistence, an eviction alike) while the cluster ran; every server started
    then made a new mark and was refused by the database (``another cluster``) until the
    whole cluster restarted. The running server puts its mark back at its next lease
    renewal, and a server started then joins the cluster."""
    import redis

    db = str(tmp_path / "lost.db")
    ports = free_port(), free_port()
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        with serving(ports[0], db, "--redis", redis_url):
            first = client.get(CLUSTER_MARK_KEY)
            assert isinstance(first, str) and len(first) == 16
            client.flushall()
            deadline = time.monotonic() + 60
            while client.get(CLUSTER_MARK_KEY) != first:  # its next renewal puts it back
                assert time.monotonic() < deadline, "the mark was not put back"
                time.sleep(0.05)
            with serving(ports[1], db, "--redis", redis_url):  # joins, not refused
                assert httpx.get(f"http://127.0.0.1:{ports[1]}/api/rules",
                                 timeout=30).is_success
                assert client.get(CLUSTER_MARK_KEY) == first
    finally:
        client.close()


def test_a_worker_puts_the_mark_back_only_where_there_is_none(tmp_path: Path,
                                                               redis_url: str) -> None:
    """A worker's renewal (:meth:`Node._renew`, called here as its lease thread does; the
    thread's own period is an hour, so that only these calls renew) sets the cluster's mark
    where Redis has none, and never over another mark: the first mark made after a loss
    stays (two live clusters on one Redis do not take turns). A server refused by its
    database takes back the mark it made (:func:`forget_mark`), only that one."""
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        mark, made = cluster_mark(redis_url)
        assert made and len(mark) == 16
        assert cluster_mark(redis_url) == (mark, False)  # read back, not made
        with in_process_worker(f"sqlite:///{tmp_path / 'mark.db'}", redis_url, mark=mark,
                               renew_seconds=3600.0) as (_, app):
            client.flushall()
            app.node._renew()
            assert client.get(CLUSTER_MARK_KEY) == mark
            client.set(CLUSTER_MARK_KEY, "0123456789abcdef")  # another cluster's, first
            app.node._renew()
            assert client.get(CLUSTER_MARK_KEY) == "0123456789abcdef"
            forget_mark(redis_url, mark)  # not this one's: stays
            assert client.get(CLUSTER_MARK_KEY) == "0123456789abcdef"
            forget_mark(redis_url, "0123456789abcdef")
            assert client.get(CLUSTER_MARK_KEY) is None
            app.node._renew()
            assert client.get(CLUSTER_MARK_KEY) == mark
    finally:
        client.close()


def test_a_cluster_goes_on_relaying_after_redis_restarted(tmp_path: Path,
                                                          socket_dir: Path) -> None:
    """Redis restarted without persistence while two workers ran: the cluster's mark and
    the room's lease come back (the workers' renewals), and a request relayed from one
    worker to the room's owner is answered again. Before, each worker's subscription to its
    channel ended with the lost connection (nothing received any more: every relayed
    request answered 503 ``room_moving``) and each pooled connection failed one command
    (500) until the workers were restarted."""
    import redis

    path = short_socket(socket_dir, "r.sock")
    url = f"unix://{path}"
    db = f"sqlite:///{tmp_path / 'restart.db'}"
    with ExitStack() as redis_process:
        redis_process.enter_context(redis_on_socket(path))
        mark, _ = cluster_mark(url)
        with (in_process_worker(db, url, mark=mark) as (owner, app),
              in_process_worker(db, url, mark=mark) as (relay, _)):
            here = Server(port=owner, manager=app.node.manager, store=app.node.manager.store)
            room_id = here.create_room("Ana")["room_id"]
            lease = f"gutskit:room:{room_id}"
            redis_process.close()  # stopped: its data gone
            redis_process.enter_context(redis_on_socket(path))
            client = redis.Redis.from_url(url, decode_responses=True)
            try:
                deadline = time.monotonic() + 60
                while (client.get(CLUSTER_MARK_KEY), client.get(lease)) != (
                        mark, app.node.worker_id):  # the owner's next renewal
                    assert time.monotonic() < deadline, "the mark and lease did not return"
                    time.sleep(0.05)
            finally:
                client.close()
            answers = []
            deadline = time.monotonic() + 120  # (a relayed request waits up to 10 s)
            while True:  # the relay asks the owner (its channel subscribed again)
                answer = httpx.get(f"http://127.0.0.1:{relay}/api/rooms/{room_id}",
                                   timeout=60)
                answers.append(answer.status_code)
                if answer.status_code == 200:
                    break
                assert time.monotonic() < deadline, f"not answered: {answers}"
                time.sleep(0.1)
            assert answer.json()["seats"][0]["name"] == "Ana"
            assert room_id in app.node.manager.rooms  # still run by its owner
