"""Equilibrium table time (gutskit.strategy.solver.equilibrium_table):
2- and 3-card Guts, N = 2..10,
default rules, recursive model. "cold" is the first call in a fresh process (hand tables and
odds structures built too); "warm" repeats it with the solver's cache cleared.

Run: python benchmarks/bench_solver.py [--json]
"""

from __future__ import annotations

from typing import Any

from common import arguments, cpu_seconds, emit, header, result


def main() -> None:
    arguments(__doc__).parse_args()
    header("equilibrium table, 2 and 3 cards, N = 2..10")
    from gutskit.strategy import solver

    rows: list[Any] = []
    cold, cold_wall = cpu_seconds(lambda: rows.extend(solver.equilibrium_table()))
    cached = getattr(solver, "_cached", None)
    if cached is not None and hasattr(cached, "cache_clear"):
        cached.cache_clear()
    warm, warm_wall = cpu_seconds(solver.equilibrium_table)
    worst = max(r.exploitability for r in rows)
    emit([
        result("solver: full table, cold (CPU s)", cold, "s", target=10.0,
               higher_is_better=False,
               note=f"{len(rows)} equilibria; largest exploitability {worst:.3g} chips/round; "
                    f"wall {cold_wall:.2f} s"),
        result("solver: full table, warm (CPU s)", warm, "s", target=10.0,
               higher_is_better=False, note=f"wall {warm_wall:.2f} s"),
    ])


if __name__ == "__main__":
    main()
