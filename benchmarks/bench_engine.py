"""Engine speed (issue 2 and 4): full rounds per second with 5 rule-of-thumb bots under the
default rules -- engine.deal_from_rng + view.joint_views + each bot's declare +
engine.declare_all, on one core. Deep stacks; a session that ends is restarted (rare).

Run: python benchmarks/bench_engine.py [--json]
"""

from __future__ import annotations

import random

from common import best_rate, emit, header, result

from gutskit.core.engine import Phase, deal_from_rng, declare_all, new_session
from gutskit.core.rules import Rules
from gutskit.core.views import joint_views
from gutskit.strategy.bots import RuleOfThumbBot

ROUNDS = 2_000


def main() -> None:
    header("engine rounds, 5 rule-of-thumb bots, default rules")
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
    rate = best_rate(rounds, repeats=5, min_time=0.5)
    emit([
        result("engine: rounds/s (issue 2 target)", rate, "rounds/s", target=20_000),
        result("engine: rounds/s (issue 4 target)", rate, "rounds/s", target=50_000),
    ])


if __name__ == "__main__":
    main()
