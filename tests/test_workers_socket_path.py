"""``guts serve --workers``' private redis-server in a folder whose path is too long for a
Unix socket (a long ``TMPDIR``): the socket goes to a short folder of ``/tmp`` and the
server answers (harden12's report, session 12: before, "redis-server did not start")."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import redis

from gutskit.cli.workers import SOCKET_PATH_LIMIT, local_redis


def test_a_long_folder_gets_a_short_socket_path_that_answers(tmp_path: Path) -> None:
    folder = tmp_path / ("d" * 120)
    folder.mkdir()
    assert len(os.fsencode(folder / "redis.sock")) > 107  # too long for any socket
    with local_redis(folder) as url:
        assert url.startswith("unix:///tmp/gk-")
        path = url.removeprefix("unix://")
        assert len(os.fsencode(path)) <= SOCKET_PATH_LIMIT
        client = redis.Redis.from_url(url)
        try:
            assert client.ping() is True
        finally:
            client.close()
    assert not Path(path).parent.exists()  # the short folder is removed after


def test_a_short_folder_keeps_the_socket_in_it() -> None:
    folder = Path(tempfile.mkdtemp(prefix="gk-t-", dir="/tmp"))
    try:
        with local_redis(folder) as url:
            assert url == f"unix://{folder / 'redis.sock'}"
            client = redis.Redis.from_url(url)
            try:
                assert client.ping() is True
            finally:
                client.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
