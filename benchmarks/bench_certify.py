"""Certified per-hand equilibria (gutskit.strategy.certify): solve time and certificate of
every exact cell that solves in seconds (heads-up 2 and 3 cards, 2-card 3 players; both
models), and the time of one exact best response (the certificate) per cell; then the
recorded solve time (wall seconds, as stored with the data) and certificate of every stored
cell, 2-10 players. With ``--all`` also 3 cards, 3 players (minutes), an exact 4-6 player
cell (2 cards, 4 players) and one sampled cell (3 cards, 5 players).

Run: python benchmarks/bench_certify.py [--json] [--all]
"""

from __future__ import annotations

from typing import Any, Literal

from common import arguments, cpu_seconds, emit, header, result


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--all", action="store_true",
                        help="also the cells that take minutes (3 cards, 3 players; 4-6 "
                             "players; one sampled cell)")
    every = parser.parse_args().all
    header("certified per-hand equilibria (exact card removal)")
    from gutskit.core.rules import Rules
    from gutskit.strategy import certify

    cells: list[tuple[Literal[2, 3], int]] = [(2, 2), (3, 2), (2, 3)]
    if every:
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
    for k, n in certify.CELLS:
        for model in models:
            s = certify.load_strategy(k, n, model)
            how = ("exact" if s.standard_error is None
                   else f"± {s.standard_error:.2g} (sampled lower-bound estimate)")
            out.append(result(
                f"stored {k} cards, {n} players, {model}: recorded solve time",
                s.seconds, "s",
                note=f"exploitability {s.exploitability:.3g} {how}; in rate {s.in_rate:.6f}; "
                     f"{s.method}"))
    if every:
        for k, n in ((2, 4), (3, 5)):
            box2: list[Any] = []

            def solve_cell(c: int = k, p: int = n, into: list[Any] = box2) -> None:
                into.append(certify.solve_strategy(c, p, "recursive"))

            cpu, wall = cpu_seconds(solve_cell)
            s = box2[0]
            se = "exact" if s.standard_error is None else f"± {s.standard_error:.2g}"
            out.append(result(f"{s.certified} cell: {k} cards, {n} players, "
                              f"recursive (CPU s)", cpu, "s",
                              note=f"wall {wall:.2f} s; exploitability {s.exploitability:.3g} "
                                   f"{se} chips/round ({s.certified})"))
    emit(out)


if __name__ == "__main__":
    main()
