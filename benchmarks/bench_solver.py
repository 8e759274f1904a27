"""Equilibrium table time (gutskit.solver.equilibrium_table): 2- and 3-card Guts, N = 2..10,
default rules, recursive model. "cold" is the first call in a fresh process (hand tables and
odds structures built too); "warm" repeats it with the solver's cache cleared.

Run: python benchmarks/bench_solver.py [--json]
"""

from __future__ import annotations

import time

from common import emit, header, result


def main() -> None:
    header("equilibrium table, 2 and 3 cards, N = 2..10")
    from gutskit import solver

    start = time.perf_counter()
    rows = solver.equilibrium_table()
    cold = time.perf_counter() - start
    cached = getattr(solver, "_cached", None)
    if cached is not None and hasattr(cached, "cache_clear"):
        cached.cache_clear()
    start = time.perf_counter()
    solver.equilibrium_table()
    warm = time.perf_counter() - start
    worst = max(r.exploitability for r in rows)
    emit([
        result("solver: full table, cold", cold, "s", target=10.0, higher_is_better=False,
               note=f"{len(rows)} equilibria; largest exploitability {worst:.3g} chips/round"),
        result("solver: full table, warm", warm, "s", target=10.0, higher_is_better=False),
    ])


if __name__ == "__main__":
    main()
