"""Shared helpers for the benchmark scripts: machine and version report, timing, output.

Benchmarks print figures; they are not tests and assert nothing about speed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any


def arguments(doc: str | None) -> argparse.ArgumentParser:
    """The argument parser of a benchmark script: its module docstring as the ``--help``
    text (first paragraph as the description, the rest below the options) and
    ``--json`` (also print one JSON line for ``run_all.py``: :func:`emit`). A script adds
    its own options, then calls ``parse_args()`` (``--help`` prints and exits 0)."""
    text = (doc or "").strip()
    description, _, rest = text.partition("\n\n")
    parser = argparse.ArgumentParser(description=description, epilog=rest or None,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true",
                        help="also print the figures as one JSON line (for run_all.py)")
    return parser


ROOT = Path(__file__).resolve().parent.parent
"""The project's root (the tree these benchmarks belong to)."""


@contextmanager
def tree_at(commit: str) -> Iterator[Path]:
    """A checkout of ``commit`` (a temporary git worktree of this repository, removed on
    exit) for same-run A/B comparisons against an older commit.

    Raises:
        subprocess.CalledProcessError: git cannot check ``commit`` out.
    """
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "before"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach",
                        str(tree), commit], check=True)
        try:
            yield tree
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(tree)], check=True)


def cpu_model() -> str:
    """The CPU model name (from /proc/cpuinfo on Linux, else platform.processor())."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def versions() -> dict[str, str]:
    """Python and library versions that matter for the figures."""
    out = {"python": platform.python_version(), "implementation":
           platform.python_implementation()}
    for name in ("gutskit", "numpy", "scipy", "pokerkit"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def machine() -> dict[str, Any]:
    """CPU model, logical cores, OS and load at the time of the run."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "os": platform.platform(),
            "load_1min": round(load[0], 2)}


def header(title: str) -> None:
    """Print the benchmark's title with the machine and versions."""
    m, v = machine(), versions()
    print(f"== {title}")
    print(f"machine: {m['cpu']}, {m['cores']} logical cores, {m['os']}, "
          f"load {m['load_1min']}")
    print("versions: " + ", ".join(f"{k} {val}" for k, val in v.items()))
    print("rates are per CPU-second of one process (time.process_time), best of 5")


def best_rate(run: Callable[[], int], *, repeats: int = 5, min_time: float = 0.2) -> float:
    """Items per CPU-second of this process: ``run()`` returns how many items it
    processed; the best of ``repeats`` timings (each repeating ``run`` until ``min_time``
    CPU seconds) is reported. CPU time (``time.process_time``), not wall time: the machine
    is shared, and CPU time is what "on one core" means when other processes compete for
    the cores (the wall-clock rate under load is lower; :func:`header` prints the load)."""
    best = 0.0
    for _ in range(repeats):
        items = 0
        start = time.process_time()
        while True:
            items += run()
            elapsed = time.process_time() - start
            if elapsed >= min_time:
                break
        best = max(best, items / elapsed)
    return best


def cpu_seconds(run: Callable[[], object]) -> tuple[float, float]:
    """``(cpu, wall)`` seconds of one call of ``run``."""
    cpu, wall = time.process_time(), time.perf_counter()
    run()
    return time.process_time() - cpu, time.perf_counter() - wall


def emit(results: list[dict[str, Any]]) -> None:
    """Print the figures (each with its target, when it has one: ``target >= 50,000
    rounds/s: met``); with ``--json`` also one JSON line for ``run_all.py``."""
    for r in results:
        target = r.get("target")
        goal = "" if target is None else (
            f"  (target {r['cmp']} {plain_number(target)} {r['unit']}: "
            f"{'met' if r['met'] else 'NOT met'})")
        print(f"{r['name']}: {plain_number(r['value'])} {r['unit']}{goal}")
        if "note" in r:
            print(f"    {r['note']}")
    if "--json" in sys.argv:
        print("JSON " + json.dumps({"machine": machine(), "versions": versions(),
                                    "results": results}))


def plain_number(value: float) -> str:
    """A figure as people write it: 4 significant digits, from 1,000 up as a whole number
    with thousands separators (never ``5e+04``).

    >>> plain_number(50_000), plain_number(3e6), plain_number(14_904.2), plain_number(1.094e8)
    ('50,000', '3,000,000', '14,900', '109,400,000')
    >>> plain_number(10.0), plain_number(1.4751), plain_number(0.25)
    ('10', '1.475', '0.25')
    """
    if abs(value) >= 1000:
        return f"{int(float(f'{value:.4g}')):,}"
    return f"{value:.4g}"


def result(name: str, value: float, unit: str, *, target: float | None = None,
           higher_is_better: bool = True, note: str | None = None) -> dict[str, Any]:
    """One figure, with its target and whether it was met."""
    out: dict[str, Any] = {"name": name, "value": value, "unit": unit}
    if target is not None:
        out["target"] = target
        out["cmp"] = ">=" if higher_is_better else "<"
        out["met"] = value >= target if higher_is_better else value < target
    if note:
        out["note"] = note
    return out


def latency_summary(seconds: list[float]) -> str:
    """``p50 1.2, p99 9.8, max 12.0 ms (431)``: the 50th and 99th percentiles (nearest rank)
    and the maximum of ``seconds``, in milliseconds, and how many; ``none`` when empty."""
    ms = sorted(1000 * x for x in seconds)
    if not ms:
        return "none"
    return (f"p50 {ms[len(ms) // 2]:.1f}, p99 {ms[min(len(ms) - 1, int(0.99 * len(ms)))]:.1f}, "
            f"max {ms[-1]:.1f} ms ({len(ms)})")
