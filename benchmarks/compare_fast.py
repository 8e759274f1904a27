"""The compiled simulator kernel of two trees side by side (issue 11): this checkout's
``gutskit.strategy.fast_kernel`` and an older commit's, driven by this checkout's
``gutskit.strategy.fast.simulate`` (5 seats, default rules, deep stacks, the two strategy
sets of ``bench_fast.py``: threshold bots and the rule-of-thumb table).

* Same-process A/B: both kernels are loaded in this process and timed alternately,
  ``--pairs`` times for each strategy set, in CPU time (``time.process_time``) of
  ``--tables`` tables x 10 rounds per call. The figure is the median of the per-pair
  ratios (after / before): both kernels of a pair see nearly the same load, so the ratio
  moves far less than the rates do on a shared machine. Each pair's results are compared
  array by array (``--same-results``, the default: the two kernels must play the same
  stream; ``--new-stream`` skips it when the random stream was changed on purpose).
* Instructions per round (``--count``, needs valgrind): each tree's kernel in a process of
  its own under ``valgrind --tool=callgrind --instr-atstart=no``, instrumentation switched
  on (``callgrind_control -i on``) just for one ``simulate`` call of ``--count-tables``
  tables x 10 rounds after a warm-up: exact and independent of the load. valgrind does not
  run AVX-512 code, so these processes compile the kernel for a fixed AVX2 processor
  (``NUMBA_CPU_NAME=haswell``, a native run first so that numba's cache has the code),
  each tree with its own driver:
  the counts are of that code, not of the code the timings ran (the kernel is scalar
  code, so the two differ little).

Run: python benchmarks/compare_fast.py [--before REF] [--pairs 9] [--tables 50000] [--count]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from common import ROOT, arguments, header, tree_at

KERNEL = "gutskit.strategy.fast_kernel"
ROUNDS = 10
CPU = {"NUMBA_CPU_NAME": "haswell",
       "NUMBA_CPU_FEATURES": "+64bit,+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+cx8,+f16c,+fma,"
                             "+fxsr,+lzcnt,+mmx,+movbe,+popcnt,+sahf,+sse,+sse2,+sse3,"
                             "+sse4.1,+sse4.2,+ssse3,+xsave"}


def _strategies() -> dict[str, list[Any]]:
    from gutskit.core.rules import Rules
    from gutskit.strategy.bots import RuleOfThumbBot
    from gutskit.strategy.fast import FastPolicy
    from gutskit.strategy.strategies import fast_policy

    rules = Rules()
    rot = fast_policy(RuleOfThumbBot(), rules, 5)
    assert rot is not None
    return {"threshold bots": [FastPolicy.threshold(p, rules.ranking)
                               for p in (0.6, 0.7, 0.75, 0.8, 0.85)],
            "rule-of-thumb table": [rot] * 5}


def _play(policies: list[Any], tables: int) -> Any:
    from gutskit.core.rules import Rules
    from gutskit.strategy.fast import simulate

    return simulate(Rules(), policies, tables=tables, rounds=ROUNDS, stacks=10**12, seed=1,
                    kernel="numba")


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import inspect

    names = list(inspect.signature(_this_run().py_func).parameters)
    known = inspect.signature(module.run.py_func).parameters
    keep = [at for at, name in enumerate(names) if name in known]
    if len(keep) < len(names):
        # an older kernel: the driver's arguments it does not take are dropped (session
        # 9's ``vector``, session 10's ``cuts`` and ``cut_of``)
        old_run = module.run

        def run(*args: Any) -> Any:
            return old_run(*(args[at] for at in keep))

        setattr(module, "run", run)  # noqa: B010 (a module's attribute, typed Any)
    return module


def _this_run() -> Any:
    from gutskit.strategy.fast_kernel import run

    return run


def _same(a: Any, b: Any) -> bool:
    import numpy as np

    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in
               ("stacks", "pot", "reserve", "rounds_played", "over", "eliminated", "dealt",
                "ins", "wins")) and (a.outcomes, a.pot_sum, a.max_pot, a.games) == (
        b.outcomes, b.pot_sum, b.max_pot, b.games)


def count(which: str, tables: int) -> None:
    """Under callgrind (``--instr-atstart=no``): one call of ``tables`` tables, instrumented
    alone; prints its rounds."""
    policies = _strategies()[which]
    _play(policies, 10)  # warm: compiled code and the policy's tables
    subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], check=True,
                   stdout=subprocess.DEVNULL)
    out = _play(policies, tables)
    subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], check=True,
                   stdout=subprocess.DEVNULL)
    print(out.total_rounds)


def instructions(tree: Path, which: str, tables: int) -> float:
    """Instructions per round of ``tree``'s kernel (this checkout's driver)."""
    env = {**os.environ, **CPU, "PYTHONHASHSEED": "0",
           "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{ROOT / 'benchmarks'}"}
    command = [sys.executable, str(Path(__file__).resolve()), "--count-one", which,
               "--count-tables", str(tables)]
    subprocess.run([*command[:-1], "10"], env=env, check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                               f"--callgrind-out-file={folder}/out", *command], env=env,
                              capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind gave no count:\n{done.stderr[-2000:]}")
    return int(found.group(1)) / int(done.stdout.split()[-1])


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--before", default="acccc16",
                        help="the older commit (default: session 8's block deal; a commit "
                             "before it deals another random stream: add --new-stream)")
    parser.add_argument("--pairs", type=int, default=9, help="timing pairs per strategy set")
    parser.add_argument("--tables", type=int, default=50_000, help="tables per timed call")
    parser.add_argument("--new-stream", action="store_true",
                        help="do not compare the two kernels' results (changed stream)")
    parser.add_argument("--count", action="store_true",
                        help="also count instructions per round under callgrind")
    parser.add_argument("--count-tables", type=int, default=20_000)
    parser.add_argument("--count-one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count_one:
        count(args.count_one, args.count_tables)
        return
    header(f"compiled simulator kernel, this tree vs {args.before}, 5 seats, default rules")
    with tree_at(args.before) as old:
        _compare(args, old)


def _compare(args: argparse.Namespace, old: Path) -> None:
    import gutskit.strategy.fast_kernel as after

    before = _load(old / "src" / "gutskit" / "strategy" / "fast_kernel.py",
                   "gutskit_fast_kernel_before")
    kernels = {args.before: before, "this tree": after}
    sets = _strategies()
    for module in kernels.values():  # compile or load, and make each policy's tables
        sys.modules[KERNEL] = module
        for policies in sets.values():
            _play(policies, 100)
    print(f"load at the start: {os.getloadavg()[0]:.2f}; {args.tables:,} tables x {ROUNDS} "
          f"rounds per call, {args.pairs} pairs per set, CPU time")
    for label, policies in sets.items():
        rates: dict[str, list[float]] = {name: [] for name in kernels}
        ratios = []
        for i in range(args.pairs):
            results = {}
            order = list(kernels.items()) if i % 2 == 0 else list(kernels.items())[::-1]
            for name, module in order:
                sys.modules[KERNEL] = module
                cpu = time.process_time()
                results[name] = _play(policies, args.tables)
                rates[name].append(results[name].total_rounds / (time.process_time() - cpu))
            if not args.new_stream and not _same(*results.values()):
                raise SystemExit(f"{label}: the two kernels' results differ")
            ratios.append(rates["this tree"][-1] / rates[args.before][-1])
        print(f"{label}: median ratio {statistics.median(ratios):.3f} (min "
              f"{min(ratios):.3f}, max {max(ratios):.3f}); " + "; ".join(
                  f"{name} median {statistics.median(r) / 1e6:.2f} M, best "
                  f"{max(r) / 1e6:.2f} M rounds/s" for name, r in rates.items()))
    sys.modules[KERNEL] = after
    print(f"load at the end: {os.getloadavg()[0]:.2f}"
          + ("" if args.new_stream else "; results identical in every pair"))
    if args.count:
        if not shutil.which("valgrind"):
            print("instructions: valgrind not installed")
            return
        for label in sets:
            counted = {name: instructions(tree, label, args.count_tables)
                       for name, tree in ((args.before, old), ("this tree", ROOT))}
            a, b = counted.values()
            print(f"{label}: instructions per round (callgrind, {args.count_tables:,} "
                  f"tables x {ROUNDS} rounds): {a:,.0f} -> {b:,.0f} ({b / a - 1:+.1%})")


if __name__ == "__main__":
    main()
