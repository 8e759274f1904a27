"""``guts serve --workers N`` / ``--redis URL``: the processes of a cluster of workers
(:mod:`gutskit.server.cluster`; docs/deploy.md).

Imported only by ``guts serve`` when it runs with more than one worker or with Redis."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from gutskit.cli.errors import UsageProblem
from gutskit.server.rooms import ServerConfig

__all__ = ["local_redis", "redis_problem", "run_cluster"]

SOCKET_PATH_LIMIT = 100
"""Bytes a Unix socket's path may have here (the kernel's limit is 107 on Linux, 103 on
macOS): :func:`local_redis` puts a socket whose path in the folder given would be longer in
a short folder of ``/tmp`` (a long ``TMPDIR`` made ``redis-server`` fail to start)."""


@contextlib.contextmanager
def local_redis(folder: Path) -> Iterator[str]:
    """A private ``redis-server`` (from ``PATH``, e.g. Debian's ``redis-server``) on a
    Unix socket in ``folder`` (in a short folder of ``/tmp``, removed after, if that path
    would pass :data:`SOCKET_PATH_LIMIT`), no persistence, stopped on exit and killed with
    this process (:func:`gutskit.server.cluster.die_with_parent`); yields its URL.

    Raises:
        UsageProblem: ``redis-server`` is not installed, or did not start in 10 s.
    """
    binary = shutil.which("redis-server")
    if binary is None:
        raise UsageProblem("--workers needs Redis: install redis-server (apt-get install "
                           "redis-server) or give --redis URL")
    from gutskit.server.cluster import die_with_parent

    path = folder / "redis.sock"
    short: Path | None = None
    if len(os.fsencode(path)) > SOCKET_PATH_LIMIT:  # a long TMPDIR: a short folder in /tmp
        short = Path(tempfile.mkdtemp(prefix="gk-", dir="/tmp" if os.path.isdir("/tmp")
                                      else None))
        path = short / "redis.sock"
    # Its own session: Ctrl-C at the terminal (SIGINT to the whole process group) does not
    # stop it before the workers have released their leases (they warned "could not renew
    # its leases"); this process stops it once they have ended. And it ends with this
    # process (kill -9 of guts serve left it orphaned; fresh8), as the workers do.
    process = subprocess.Popen(
        [binary, "--port", "0", "--unixsocket", str(path), "--unixsocketperm", "700",
         "--save", "", "--appendonly", "no", "--loglevel", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        preexec_fn=functools.partial(die_with_parent, os.getpid()))
    try:
        url = f"unix://{path}"
        deadline = time.monotonic() + 10
        while redis_problem(url) is not None:
            if process.poll() is not None or time.monotonic() > deadline:
                raise UsageProblem(f"redis-server ({binary}) did not start")
            time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(10)
        if short is not None:
            shutil.rmtree(short, ignore_errors=True)


def redis_problem(url: str) -> str | None:
    """Why the Redis at ``url`` cannot be used (not a Redis URL, or no answer), or
    ``None`` when it answers a ping."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2)
    except ValueError as error:  # redis-py names the schemes it reads
        return f"not a Redis URL: {error}"
    try:
        return None if client.ping() else "no answer to a ping"
    except (redis.exceptions.RedisError, OSError) as error:
        return f"no answer ({error})"
    finally:
        client.close()


def run_cluster(listener: socket.socket, *, host: str, port: int, db: str | None,
                redis_url: str | None, workers: int, config: ServerConfig,
                allowed_origins: tuple[str, ...], loop: str = "auto",
                open_files: int | None = None, url: str | None = None,
                mark: str | None = None) -> None:
    """Serve on ``listener`` with ``workers`` processes (uvicorn's supervisor restarts a
    worker that dies) sharing ``db`` and the Redis at ``redis_url`` (``None``: a private
    local ``redis-server``, one machine only), each on the event loop ``loop``
    (:data:`gutskit.server.app.LOOPS`). Returns when stopped (Ctrl-C, SIGTERM). ``url``:
    where the first line says the server answers (``guts serve``'s
    :func:`gutskit.cli.serve.served_at`; default ``http://HOST:PORT/``). ``mark``: the
    cluster's mark in the Redis at ``redis_url`` as the database records it
    (:func:`gutskit.server.cluster.cluster_mark`), which the workers put back in a Redis
    that lost it.

    Raises:
        UsageProblem: the private ``redis-server`` cannot be started (a ``redis_url`` is
            checked first by :func:`redis_problem`).
    """
    import typer
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from gutskit.server.app import uvicorn_options
    from gutskit.server.cluster import CONFIG_ENV, SUPERVISOR_ENV, WorkerSettings

    with contextlib.ExitStack() as stack:
        if redis_url is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gutskit-")))
            redis_url = stack.enter_context(local_redis(folder))
            where = "a private redis-server"
        else:
            where = redis_url  # checked by guts serve before the database is opened
        os.environ[CONFIG_ENV] = WorkerSettings(
            redis_url=redis_url, db=db, config=config,
            allowed_origins=allowed_origins, mark=mark).to_json()
        typer.echo(f"gutskit server on {url or f'http://{host}:{port}/'}; {workers} worker "
                   f"process{'es' if workers > 1 else ''}, rooms leased through {where}"
                   + (f"; {open_files} open files at most per process"
                      if open_files is not None else ""), err=True)
        uconfig = uvicorn.Config(
            "gutskit.server.cluster:worker_app", factory=True, host=host, port=port,
            workers=workers, log_level="warning", **uvicorn_options(config, loop))
        server = uvicorn.Server(uconfig)
        sys.stdout.flush()
        if workers > 1:
            os.environ[SUPERVISOR_ENV] = str(os.getpid())  # the workers end with this one
            Multiprocess(uconfig, sockets=[listener]).run()
        else:
            server.run(sockets=[listener])
