"""Vectorized simulator speed (gutskit.strategy.fast.simulate): rounds per second over many
independent tables, 5 seats, default rules, deep stacks. Two strategy sets: threshold bots
(one in-table) and the rule-of-thumb bot's pot-dependent table (gutskit.strategy.strategies).
Both kernels side by side in the same run: the compiled numba kernel and the numpy path.
The numba kernel is compiled (or loaded from numba's disk cache) before timing.

Run: python benchmarks/bench_fast.py [--json]
"""

from __future__ import annotations

import os
from importlib import metadata

from common import best_rate, emit, header, result

from gutskit.core.rules import Rules
from gutskit.strategy.bots import RuleOfThumbBot
from gutskit.strategy.fast import FastPolicy, numba_available, simulate
from gutskit.strategy.strategies import fast_policy

TABLES = 100_000
ROUNDS = 10


def main() -> None:
    header("vectorized simulator, 5 seats, default rules")
    print("numba " + (metadata.version("numba") if numba_available() else "not installed"))
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
        run(thresholds, kernel)  # warm-up (and compilation)
        for label, policies in (("threshold bots", thresholds), ("rule-of-thumb table",
                                                                 [rot] * 5)):
            rate = best_rate(lambda p=policies, k=kernel: run(p, k),  # type: ignore[misc]
                             repeats=5, min_time=0.5)
            results.append(result(
                f"fast ({kernel}): {label}, rounds/s", rate, "rounds/s", target=1e7,
                note=f"{TABLES:,} tables x {ROUNDS} rounds per call, one core, "
                     f"load {os.getloadavg()[0]:.2f} after the timing"))
    emit(results)


if __name__ == "__main__":
    main()
