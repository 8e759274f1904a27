"""Engine speed (issues 2, 4 and 11): full rounds per second with 5 rule-of-thumb bots
under the default rules -- engine.deal_from_rng + view.joint_views + each bot's declare +
engine.declare_all, on one core. Deep stacks; a session that ends is restarted (rare).

Two engines side by side in one run: the pure Python package (``src/``) and the optional
compiled build (``scripts/build_compiled.py``: the engine's hot modules compiled by mypyc,
built or reused in ``build/compiled``). Each is timed in a process of its own, the two
alternated three times so that both see the same load; the best of each is reported.

Run: python benchmarks/bench_engine.py [--json] [--pure-only]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
from pathlib import Path

from common import arguments, best_rate, emit, header, result

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 2_000
ALTERNATIONS = 3


def rate() -> float:
    """Rounds per CPU-second of the ``gutskit`` this process imports (best of 5)."""
    from gutskit.core.engine import Phase, deal_from_rng, declare_all, new_session
    from gutskit.core.rules import Rules
    from gutskit.core.views import joint_views
    from gutskit.strategy.bots import RuleOfThumbBot

    rules = Rules()
    names = [f"bot{i}" for i in range(5)]
    bots = [RuleOfThumbBot() for _ in names]
    rng = random.Random(7)
    state = new_session(names, 10**9, rules=rules)

    def rounds() -> int:
        nonlocal state
        s = state
        for _ in range(ROUNDS):
            if s.phase is Phase.OVER:
                s = new_session(names, 10**9, rules=rules)
            s, _ = deal_from_rng(s, rng)
            calls = {seat: bots[seat].declare(view, rng)
                     for seat, view in joint_views(s).items()}
            s, _ = declare_all(s, calls)
        state = s
        return ROUNDS

    rounds()  # warm the caches (strength and percentile tables)
    return best_rate(rounds, repeats=5, min_time=0.5)


def measure(path: Path) -> tuple[float, str]:
    """``(rounds/s, engine module file)`` of a child process with ``path`` on its path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), str(Path(__file__).parent)])}
    done = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True,
                          text=True, check=True)
    figure, engine = done.stdout.split()
    return float(figure), engine


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--pure-only", action="store_true",
                        help="time the pure Python engine only (no compiled build)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        import gutskit.core.engine
        print(rate(), gutskit.core.engine.__file__)
        return
    header("engine rounds, 5 rule-of-thumb bots, default rules: pure and compiled")
    trees = {"pure Python": ROOT / "src"}
    if not args.pure_only:
        sys.path.insert(0, str(ROOT / "scripts"))
        from build_compiled import build
        trees["compiled (mypyc)"] = build()
    best = dict.fromkeys(trees, 0.0)
    for _ in range(ALTERNATIONS):  # alternated: both see the same load
        for label, tree in trees.items():
            figure, engine = measure(tree)
            if label != "pure Python" and not engine.endswith(".so"):
                raise SystemExit(f"error: the compiled child imported {engine}")
            best[label] = max(best[label], figure)
    print(f"load after the run: {os.getloadavg()[0]:.2f}; best of {ALTERNATIONS} processes "
          "each, alternated")
    emit([result(f"engine, {label}: rounds/s", figure, "rounds/s",
                  target=50_000) for label, figure in best.items()])


if __name__ == "__main__":
    main()
