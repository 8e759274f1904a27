"""Engine speed of two trees side by side in one run (issue 11): the round of
``bench_engine.py`` (5 rule-of-thumb bots, default rules: deal_from_rng + joint_views + each
bot's declare + declare_all) on this checkout and on an older commit.

For each tree: rounds per CPU-second (best of ``--repeats`` timings, the trees alternated
so that both see the same load) and, when valgrind is installed, the exact number of
instructions per round under callgrind (``PYTHONHASHSEED=0``; only the measured rounds are
counted: collection is switched on inside ``functools.reduce``, which nothing else in the
round calls). Instruction counts do not depend on the machine's load; rounds/s do (the
load is printed).

Run: python benchmarks/compare_engine.py [--before REF] [--rounds 300] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from common import ROOT, header, tree_at

ROUND = """
import functools, random, sys, time
from gutskit.core.engine import Phase, deal_from_rng, declare_all, new_session
from gutskit.core.rules import Rules
from gutskit.core.views import joint_views
from gutskit.strategy.bots import RuleOfThumbBot
rules = Rules()
names = [f"bot{i}" for i in range(5)]
bots = [RuleOfThumbBot() for _ in names]
rng = random.Random(7)
state = new_session(names, 10**9, rules=rules)
def rounds(n):
    global state
    s = state
    for _ in range(n):
        if s.phase is Phase.OVER:
            s = new_session(names, 10**9, rules=rules)
        s, _ = deal_from_rng(s, rng)
        calls = {seat: bots[seat].declare(view, rng) for seat, view in joint_views(s).items()}
        s, _ = declare_all(s, calls)
    state = s
rounds(30)  # warm the caches (strength and percentile tables)
n = int(sys.argv[1])
if sys.argv[2] == "count":
    functools.reduce(lambda a, b: rounds(n), [0, 0])
else:
    start = time.process_time()
    rounds(n)
    print(n / (time.process_time() - start))
"""


def run(tree: Path, rounds: int, mode: str, script: Path) -> float:
    """Rounds/s (``mode = "time"``) or instructions per round (``"count"``) of ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTHONHASHSEED": "0"}
    command = [sys.executable, str(script), str(rounds), mode]
    if mode == "count":
        with tempfile.TemporaryDirectory() as folder:
            command = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
                       "--toggle-collect=functools_reduce",
                       f"--callgrind-out-file={folder}/out", *command]
            done = subprocess.run(command, env=env, capture_output=True, text=True,
                                  check=True)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if found is None:
            raise SystemExit(f"callgrind gave no count:\n{done.stderr[-2000:]}")
        return int(found.group(1)) / rounds
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="9d79849",
                        help="the older commit (default: main before the compiled build)")
    parser.add_argument("--rounds", type=int, default=300,
                        help="rounds counted under callgrind")
    parser.add_argument("--repeats", type=int, default=3, help="timings per tree")
    args = parser.parse_args()
    header(f"engine rounds, this tree vs {args.before}, 5 rule-of-thumb bots, default rules")
    with tree_at(args.before) as old:
        script = old.parent / "round.py"
        script.write_text(ROUND)
        trees = {args.before: old, "this tree": ROOT}
        rates: dict[str, float] = dict.fromkeys(trees, 0.0)
        for _ in range(args.repeats):  # alternated: both trees see the same load
            for label, tree in trees.items():
                rates[label] = max(rates[label], run(tree, 20_000, "time", script))
        counts: dict[str, float | None] = dict.fromkeys(trees)
        if shutil.which("valgrind"):  # exact counts: the two trees at once
            with ThreadPoolExecutor(2) as pool:
                jobs = {label: pool.submit(run, tree, args.rounds, "count", script)
                        for label, tree in trees.items()}
                counts = {label: job.result() for label, job in jobs.items()}
    print(f"load after the run: {os.getloadavg()[0]:.2f}")
    for label in trees:
        count = counts[label]
        figure = "valgrind not installed" if count is None else f"{count:,.0f} instructions"
        print(f"{label}: {rates[label]:,.0f} rounds/s (best of {args.repeats}), {figure} "
              f"per round (callgrind, {args.rounds} rounds)")


if __name__ == "__main__":
    main()
