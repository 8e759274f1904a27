"""Vectorized simulator speed (gutskit.strategy.fast.simulate): rounds per second over many
independent tables, 5 seats, default rules, deep stacks. Two strategy sets: threshold bots
(one in-table) and the rule-of-thumb bot's pot-dependent table (gutskit.strategy.strategies).

Run: python benchmarks/bench_fast.py [--json]
"""

from __future__ import annotations

from common import best_rate, emit, header, result

from gutskit.core.rules import Rules
from gutskit.strategy.bots import RuleOfThumbBot
from gutskit.strategy.fast import FastPolicy, simulate
from gutskit.strategy.strategies import fast_policy

TABLES = 100_000
ROUNDS = 10


def main() -> None:
    header("vectorized simulator, 5 seats, default rules")
    rules = Rules()
    thresholds = [FastPolicy.threshold(p, rules.ranking) for p in (0.6, 0.7, 0.75, 0.8, 0.85)]
    rot = fast_policy(RuleOfThumbBot(), rules, 5)
    assert rot is not None

    def run(policies: list[FastPolicy]) -> int:
        out = simulate(rules, policies, tables=TABLES, rounds=ROUNDS, stacks=10**12, seed=1)
        return out.total_rounds

    run(thresholds)
    results = [
        result("fast: threshold bots, rounds/s", best_rate(lambda: run(thresholds),
                                                           repeats=3, min_time=0.5),
               "rounds/s", target=1e7, note=f"{TABLES:,} tables x {ROUNDS} rounds per call"),
        result("fast: rule-of-thumb table, rounds/s", best_rate(lambda: run([rot] * 5),
                                                                repeats=3, min_time=0.5),
               "rounds/s", target=1e7),
    ]
    emit(results)


if __name__ == "__main__":
    main()
