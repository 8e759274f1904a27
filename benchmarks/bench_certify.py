"""Certified per-hand equilibria (gutskit.strategy.certify): solve time and certificate of
every exact cell that solves in seconds (heads-up 2 and 3 cards, 2-card 3 players; both
models), and the time of one exact best response (the certificate) per cell. With
``--all`` also 3 cards, 3 players (minutes) and one sampled cell.

Run: python benchmarks/bench_certify.py [--json] [--all]
"""

from __future__ import annotations

import sys
from typing import Any, Literal

from common import cpu_seconds, emit, header, result


def main() -> None:
    header("certified per-hand equilibria (exact card removal)")
    from gutskit.core.rules import Rules
    from gutskit.strategy import certify

    cells: list[tuple[Literal[2, 3], int]] = [(2, 2), (3, 2), (2, 3)]
    if "--all" in sys.argv:
        cells.append((3, 3))
    models: tuple[Literal["recursive", "one_round"], ...] = ("recursive", "one_round")
    out: list[dict[str, Any]] = []
    for cards, players in cells:
        ranking = Rules(cards_per_hand=cards).ranking
        for model in models:
            solutions: list[Any] = []

            def solve(c: int = cards, p: int = players, m: Any = model,
                      into: list[Any] = solutions) -> None:
                into.append(certify.solve_exact(c, p, m))

            cpu, wall = cpu_seconds(solve)
            sol = solutions[0]

            def certificate(s: Any = sol, p: int = players, m: Any = model,
                            r: Any = ranking) -> float:
                return certify.exploitability(s.sigma, players=p, ranking=r, model=m)

            check, _ = cpu_seconds(certificate)
            out.append(result(
                f"solve {cards} cards, {players} players, {model} (CPU s)", cpu, "s",
                note=f"wall {wall:.2f} s; exploitability {sol.exploitability:.3g} chips/round "
                     f"(exact); in rate {sol.sigma.mean():.6f}; {sol.iterations} rounds, "
                     f"{sol.free} undecided hands; one exact best response {check:.3f} CPU s"))
    if "--all" in sys.argv:
        box2: list[Any] = []
        cpu, wall = cpu_seconds(lambda: box2.append(certify.solve_strategy(3, 10, "recursive")))
        s = box2[0]
        out.append(result("sampled cell: 3 cards, 10 players, recursive (CPU s)", cpu, "s",
                          note=f"wall {wall:.2f} s; exploitability {s.exploitability:.3g} ± "
                               f"{s.standard_error:.2g} chips/round (sampled)"))
    emit(out)


if __name__ == "__main__":
    main()
