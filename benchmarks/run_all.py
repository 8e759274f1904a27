"""Run every benchmark (each in its own process, so caches start cold) and print one
summary table. Rates are per CPU-second of one process (``time.process_time``), so other
processes sharing the cores slow the wall clock but not the figures much (cache sharing
still does); the load at the time is printed with them.

Run: python benchmarks/run_all.py
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from common import arguments, header, plain_number

SCRIPTS = ("bench_eval.py", "bench_engine.py", "bench_fast.py", "bench_solver.py",
           "bench_certify.py", "bench_memory.py")


def main() -> int:
    arguments(__doc__).parse_args()
    here = Path(__file__).resolve().parent
    header("gutskit benchmarks")
    rows: list[dict[str, Any]] = []
    failed = []
    for script in SCRIPTS:
        proc = subprocess.run([sys.executable, str(here / script), "--json"],
                              capture_output=True, text=True, check=False, cwd=here)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("JSON ")]
        if proc.returncode != 0 or not lines:
            failed.append(script)
            sys.stderr.write(f"{script} failed:\n{proc.stderr}\n")
            continue
        data = json.loads(lines[-1][5:])
        for r in data["results"]:
            rows.append({"script": script, "load": data["machine"]["load_1min"], **r})
    width = max(len(r["name"]) for r in rows) if rows else 10
    print()
    print(f"{'figure':<{width}}  {'value':>14}  {'unit':<9} {'target':>14}  met   load")
    for r in rows:
        target = f"{r['cmp']} {plain_number(r['target'])}" if "target" in r else ""
        met = ("yes" if r["met"] else "NO") if "target" in r else ""
        print(f"{r['name']:<{width}}  {plain_number(r['value']):>14}  {r['unit']:<9} {target:>14}  "
              f"{met:<4}  {r['load']}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
