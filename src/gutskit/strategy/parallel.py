"""Chunks of independent work (tournament sessions) on local processes or a Dask cluster.

The work is ``fn(arg, first, count) -> list`` over items ``0 .. total - 1`` (sessions), where
item ``i`` depends only on ``arg`` and ``i`` (each session seeds its own generator from the
tournament's seed and its index). :func:`run_chunks` splits the items into consecutive
chunks, runs them in this process, in ``processes`` local processes
(:class:`concurrent.futures.ProcessPoolExecutor`) or on a Dask distributed cluster
(``cluster="tcp://host:8786"``), and concatenates the chunks' lists in item order: the
result is the same whatever the split and wherever it ran (``tests/test_parallel.py`` runs
a tournament on 1 process, 2 processes and a ``distributed.LocalCluster`` and compares).

Why per-item seeds rather than one seed per chunk (``SeedSequence.spawn``): with per-chunk
seeds the result would depend on the chunk size, hence on the number of workers; seeding
each session from ``(seed, index)`` makes every split give the same numbers.

Why Dask distributed rather than Ray: it is a pure-Python install from PyPI (about 10 MB
with dask, against several hundred MB for Ray's wheels), its ``LocalCluster`` runs inside a
test process (threads, ``processes=False``), a cluster is one ``dask scheduler`` and some
``dask worker ADDRESS`` commands on machines that have gutskit installed, and
``Client.map`` / ``gather`` return results in submission order. Dask is imported only when
``cluster`` is given.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from gutskit.core.errors import GutsError

__all__ = ["ParallelError", "chunks", "run_chunks"]

A = TypeVar("A")
R = TypeVar("R")

CONNECT_TIMEOUT = "10s"
"""How long to wait for a Dask scheduler before giving up."""


class ParallelError(GutsError):
    """Bad parallel settings, or a cluster that cannot be reached or used."""


def chunks(total: int, parts: int) -> list[tuple[int, int]]:
    """``(first, count)`` of ``parts`` consecutive chunks covering ``0 .. total - 1``, sizes
    differing by at most one (fewer chunks when ``total < parts``; none when ``total`` is 0).

    >>> chunks(10, 3)
    [(0, 4), (4, 3), (7, 3)]
    >>> chunks(2, 5)
    [(0, 1), (1, 1)]
    """
    parts = max(1, min(parts, total))
    base, extra = divmod(total, parts)
    out, first = [], 0
    for i in range(parts if total else 0):
        count = base + (i < extra)
        out.append((first, count))
        first += count
    return out


def run_chunks(fn: Callable[[A, int, int], list[R]], arg: A, total: int, *,
               processes: int = 1, cluster: str | None = None, chunks_per_worker: int = 4,
               progress: Callable[[int], None] | None = None) -> list[R]:
    """``fn(arg, 0, total)``, computed in chunks (see the module docstring).

    Args:
        fn: a module-level function (it is pickled to other processes).
        arg: its shared argument (pickled once per chunk).
        total: items to compute.
        processes: local worker processes (1: this process, chunk after chunk).
        cluster: a Dask scheduler's address (``tcp://host:8786``); overrides ``processes``.
        chunks_per_worker: chunks per worker, for balance (the result does not depend on it).
        progress: called with the number of items done, in item order.

    Returns:
        The items' results in item order.

    Raises:
        ParallelError: ``processes < 1``, dask not installed, or the cluster unreachable.
    """
    if processes < 1:
        raise ParallelError(f"processes must be at least 1, got {processes!r}")
    done = 0

    def collect(parts: list[list[R]]) -> list[R]:
        out: list[R] = []
        for part in parts:
            out.extend(part)
        return out

    if cluster is not None:
        return collect(_on_cluster(fn, arg, total, cluster, chunks_per_worker, progress))
    if processes == 1:
        parts = []
        for first, count in chunks(total, total):  # item by item: progress as before
            parts.append(fn(arg, first, count))
            done += count
            if progress is not None:
                progress(done)
        return collect(parts)
    from concurrent.futures import ProcessPoolExecutor

    plan = chunks(total, processes * chunks_per_worker)
    with ProcessPoolExecutor(max_workers=min(processes, os.cpu_count() or processes,
                                             max(1, len(plan)))) as pool:
        futures = [pool.submit(fn, arg, first, count) for first, count in plan]
        parts = []
        for (_, count), future in zip(plan, futures, strict=True):
            parts.append(future.result())
            done += count
            if progress is not None:
                progress(done)
    return collect(parts)


def _on_cluster(fn: Callable[[A, int, int], list[R]], arg: A, total: int, address: str,
                chunks_per_worker: int, progress: Callable[[int], None] | None
                ) -> list[list[R]]:
    try:
        from distributed import Client
    except ImportError:
        raise ParallelError("--cluster needs Dask distributed: pip install "
                            "'dask[distributed]' (or gutskit[cluster])") from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as error:
        raise ParallelError(f"cannot reach the Dask scheduler at {address!r}: {error}"
                            ) from None
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        plan = chunks(total, workers * chunks_per_worker)
        shared: Any = client.scatter(arg, broadcast=True)  # type: ignore[no-untyped-call]
        futures = [client.submit(fn, shared, first, count, pure=False)
                   for first, count in plan]
        parts: list[list[R]] = []
        done = 0
        for (_, count), future in zip(plan, futures, strict=True):
            parts.append(future.result())
            done += count
            if progress is not None:
                progress(done)
        return parts
    finally:
        client.close()  # type: ignore[no-untyped-call]
