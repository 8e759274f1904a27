"""Vectorized simulator speed (gutskit.strategy.fast.simulate): rounds per second over many
independent tables, 5 seats, default rules, deep stacks. Two strategy sets: threshold bots
(one in-table) and the rule-of-thumb bot's pot-dependent table (gutskit.strategy.strategies).
Both kernels side by side in the same run: the compiled numba kernel and the numpy path.
The numba kernel is compiled (or loaded from numba's disk cache) before timing.

Rates are per core: rounds per CPU-second of this process (``time.process_time``), the best
of 5 timings, so that other jobs on a shared machine slow the wall clock but not the
figure (much: they still share caches and memory bandwidth, hence the load printed with
every figure). The numba kernel runs on one thread (it is compiled without
``parallel=True``; the CPU/wall ratio printed with each figure stays at or below 1 when
only one core is used). The wall-clock rate of the same timings is printed beside it, and
the rate of every repetition (CPU time), so that the spread the load causes is seen.

``--instructions`` also counts the numba kernel's instructions per round under valgrind's
callgrind (exact, independent of the load; the method of ``compare_fast.py --count``: one
call of 20,000 tables x 10 rounds instrumented alone, the kernel compiled for a fixed AVX2
processor because valgrind does not run AVX-512 code). To judge a change to the kernel, use
``compare_fast.py``: both kernels timed alternately in one process, and both counted.

Run: python benchmarks/bench_fast.py [--json] [--instructions]
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from importlib import metadata

from common import ROOT, arguments, emit, header, result
from compare_fast import instructions

from gutskit.core.rules import Rules
from gutskit.strategy.bots import RuleOfThumbBot
from gutskit.strategy.fast import FastPolicy, numba_available, simulate
from gutskit.strategy.strategies import fast_policy

TABLES = 100_000
ROUNDS = 10
REPEATS = 5


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--instructions", action="store_true",
                        help="also count the numba kernel's instructions per round "
                             "(callgrind; a few minutes)")
    args = parser.parse_args()
    header("vectorized simulator, 5 seats, default rules")
    if numba_available():
        import numba

        print(f"numba {metadata.version('numba')} (kernel single-threaded; numba's thread "
              f"pool, unused here, has {numba.get_num_threads()} threads)")
    else:
        print("numba not installed")
    rules = Rules()
    thresholds = [FastPolicy.threshold(p, rules.ranking) for p in (0.6, 0.7, 0.75, 0.8, 0.85)]
    rot = fast_policy(RuleOfThumbBot(), rules, 5)
    assert rot is not None
    kernels = ["numba", "numpy"] if numba_available() else ["numpy"]

    def run(policies: list[FastPolicy], kernel: str) -> int:
        out = simulate(rules, policies, tables=TABLES, rounds=ROUNDS, stacks=10**12, seed=1,
                       kernel=kernel)  # type: ignore[arg-type]
        return out.total_rounds

    results = []
    for kernel in kernels:
        run(thresholds, kernel)  # warm-up (and compilation; a policy's tables are made on
        run([rot] * 5, kernel)  # its first call)
        for label, policies in (("threshold bots", thresholds), ("rule-of-thumb table",
                                                                 [rot] * 5)):
            load_before = os.getloadavg()[0]
            best_wall = ratio = 0.0
            each: list[float] = []
            for _ in range(REPEATS):
                cpu, wall = time.process_time(), time.perf_counter()
                rounds = run(policies, kernel)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                each.append(rounds / cpu)
                best_wall = max(best_wall, rounds / wall)
                ratio = max(ratio, cpu / wall)
            best_cpu = max(each)
            load_after = os.getloadavg()[0]  # (before the count, which takes minutes)
            count = ""
            if args.instructions and kernel == "numba" and shutil.which("valgrind"):
                count = (f"; {instructions(ROOT, label, 20_000):,.0f} instructions per "
                         f"round (callgrind)")
            results.append(result(
                f"fast ({kernel}): {label}, rounds/s per core", best_cpu, "rounds/s",
                target=1e7,
                note=f"{TABLES:,} tables x {ROUNDS} rounds per call, best of {REPEATS} "
                     f"(CPU time; each: {', '.join(f'{r / 1e6:.2f}' for r in each)} M, "
                     f"median {statistics.median(each) / 1e6:.2f} M); wall clock "
                     f"{best_wall:,.4g} rounds/s; CPU/wall <= {ratio:.2f}; load "
                     f"{load_before:.2f} before, {load_after:.2f} after{count}"))
    emit(results)


if __name__ == "__main__":
    main()
