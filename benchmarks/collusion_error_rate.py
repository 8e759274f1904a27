"""Error rate and power of `guts analyze`'s collusion report, by simulation.

Each *batch* is what a user analyses: 7 sessions of R rounds of one line-up of bots at a
5-seat table (default rules, deep stacks), played with the rules engine and analysed with
:func:`gutskit.strategy.analysis.analyze`. Two line-ups of independent bots:

* ``play``: the `guts play` table (:func:`bots.bot_table`) with a standard rule-of-thumb bot
  in the human's seat (the setting of issue 12, where 7 such sessions flagged a pair);
* ``mixed``: equilibrium, rule-of-thumb, exploitative (adaptive), random, loose.

False-positive rate = share of batches in which *any* pair is flagged at alpha (the
family-wise error the Holm adjustment controls), with its binomial standard error over
the batches. The per-pair calibration (share of unadjusted p-values below 0.05) is shown
too (pairs of one batch share rounds, so its standard error is approximate). The old test
(agreement of declarations in strata of pot doubling buckets x players dealt in, flagged
when they agree more) is measured on the same batches for comparison.

Power: seats 0 and 1 of the ``play`` line-up are a colluding pair that sees each other's
cards:

* ``soft-play``: each plays its bot, but when both would go in the weaker hand goes out
  (partners never match each other);
* ``weak-partner``: seat 1 goes in only when seat 0's hand is weak (below the median),
  then with any hand its bot would play or better than the median.

Power = share of batches in which the pair is flagged at alpha = 0.01 (± binomial s.e.).

Run: python benchmarks/collusion_error_rate.py [--batches B] [--rounds R] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from common import machine, versions

from gutskit.core.engine import (
    GameState,
    Phase,
    deal_from_rng,
    declare_all,
    end_session,
    new_session,
    start_event,
)
from gutskit.core.events import Declaration, Event
from gutskit.core.views import joint_views
from gutskit.strategy.analysis import (
    _holm,
    analyze,
    rounds_of,
    stratified_agreement_test,
)
from gutskit.strategy.bots import RandomBot, RuleOfThumbBot, Strategy, bot_table, hand_percentile
from gutskit.strategy.strategies import make_bot

IN, OUT = Declaration.IN, Declaration.OUT
Collusion = Callable[[GameState, dict[int, Declaration]], dict[int, Declaration]]


def soft_play(state: GameState, calls: dict[int, Declaration]) -> dict[int, Declaration]:
    """Seats 0 and 1 never both in: the weaker hand goes out."""
    if calls.get(0) is IN and calls.get(1) is IN:
        a, b = (hand_percentile(state.hands[s] or (), state.rules.ranking) for s in (0, 1))
        calls[1 if a >= b else 0] = OUT
    return calls


def weak_partner(state: GameState, calls: dict[int, Declaration]) -> dict[int, Declaration]:
    """Seat 1 goes in only when seat 0's hand is below the median, and then with any hand
    its bot plays or above the median."""
    if 0 in calls and 1 in calls:
        ranking = state.rules.ranking
        partner = hand_percentile(state.hands[0] or (), ranking)
        own = hand_percentile(state.hands[1] or (), ranking)
        calls[1] = IN if partner < 0.5 and (calls[1] is IN or own >= 0.5) else OUT
    return calls


def play(bots: Sequence[Strategy], rounds: int, rng: random.Random,
         collusion: Collusion | None = None) -> list[Event]:
    """One session of ``rounds`` rounds (default rules, deep stacks)."""
    names = [f"P{i}" for i in range(len(bots))]
    state = new_session(names, 10**6)
    events: list[Event] = [start_event(names, 10**6)]
    for _ in range(rounds):
        if state.phase is Phase.OVER:
            break
        state, ev = deal_from_rng(state, rng)
        events += ev
        calls = {s: bots[s].declare(v, rng) for s, v in joint_views(state).items()}
        if collusion is not None:
            calls = collusion(state, calls)
        state, ev = declare_all(state, calls)
        events += ev
    state, ev = end_session(state)
    return events + ev


def lineup(kind: str) -> list[Strategy]:
    """Fresh bots for one session."""
    if kind == "play":
        return [RuleOfThumbBot(), *bot_table(4)]
    return [make_bot(k) for k in ("equilibrium", "rule-of-thumb", "exploitative")] + [
        RandomBot(), make_bot("loose")]


def old_test(sessions: Sequence[Sequence[Event]], alpha: float) -> tuple[bool, int, int]:
    """The old test (pot doubling buckets x players dealt in, agree more): whether it
    flags a pair, how many pairs have an unadjusted p below 0.05, how many pairs."""
    records = rounds_of(sessions)
    names = records[0].names
    pvalues, zs = [], []
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            rows = [r for r in records if a in r.dealt and b in r.dealt]
            strata = [(min(8, int(math.log2(max(1.0, r.pot / r.ante)))), len(r.dealt))
                      for r in rows]
            res = stratified_agreement_test([a in r.ins for r in rows],
                                            [b in r.ins for r in rows], strata, draws=4000)
            pvalues.append(res["p_value"])
            zs.append(res["z"])
    flags = any(p < alpha and z > 0 for p, z in zip(_holm(pvalues), zs, strict=True))
    return flags, sum(p < 0.05 for p in pvalues), len(pvalues)


def batch(kind: str, rounds: int, seed: int, collusion: Collusion | None = None
          ) -> list[list[Event]]:
    """7 sessions of one line-up."""
    rng = random.Random(seed)
    return [play(lineup(kind), rounds, rng, collusion) for _ in range(7)]


def share(hits: int, n: int) -> dict[str, float]:
    """Estimate and binomial standard error."""
    p = hits / n
    return {"rate": p, "se": math.sqrt(max(p * (1 - p), 1e-12) / n), "n": n}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=300)
    parser.add_argument("--power-batches", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out: dict[str, Any] = {"machine": machine(), "versions": versions(),
                           "batch": f"7 sessions x {args.rounds} rounds, 5 seats"}
    for kind in ("play", "mixed"):
        family = {0.01: 0, 0.05: 0}
        old = old_below = old_tests = 0
        below = tests = 0
        for i in range(args.batches):
            sessions = batch(kind, args.rounds, seed=10_000 * (kind == "mixed") + i)
            report = analyze(sessions, alpha=0.05)
            family[0.05] += any(c["p_adjusted"] < 0.05 for c in report.collusion)
            family[0.01] += any(c["p_adjusted"] < 0.01 for c in report.collusion)
            below += sum(c["p_value"] < 0.05 for c in report.collusion)
            tests += len(report.collusion)
            flags, n_below, n_tests = old_test(sessions, 0.01)
            old += flags
            old_below += n_below
            old_tests += n_tests
        out[f"independent {kind}"] = {
            "flagged at alpha 0.01": share(family[0.01], args.batches),
            "flagged at alpha 0.05": share(family[0.05], args.batches),
            "pair p < 0.05 (unadjusted)": share(below, tests),
            "old test flagged at alpha 0.01": share(old, args.batches),
            "old test pair p < 0.05": share(old_below, old_tests),
        }
    for name, scheme in (("soft-play", soft_play), ("weak-partner", weak_partner)):
        figures = {}
        for rounds in (args.rounds, 4 * args.rounds):
            caught = wrong = 0
            for i in range(args.power_batches):
                report = analyze(batch("play", rounds, seed=20_000 + i, collusion=scheme),
                                 alpha=0.01)
                caught += ("P0", "P1") in report.flagged_pairs
                wrong += any(p != ("P0", "P1") for p in report.flagged_pairs)
            figures[f"power at alpha 0.01, 7 x {rounds}"] = share(caught, args.power_batches)
            figures[f"other pair flagged, 7 x {rounds}"] = share(wrong, args.power_batches)
        out[f"colluders {name}"] = figures
    if args.json:
        print(json.dumps(out, indent=2))
        return
    m, v = out.pop("machine"), out.pop("versions")
    print("== collusion report: false-positive rate and power by simulation")
    print(f"machine: {m['cpu']}, {m['cores']} logical cores, {m['os']}, load {m['load_1min']}")
    print("versions: " + ", ".join(f"{k} {val}" for k, val in v.items()))
    print(f"batch: {out.pop('batch')}")
    for group, figures in out.items():
        print(group)
        for label, f in figures.items():
            print(f"  {label:34s} {f['rate']:.4f} +- {f['se']:.4f}  (n = {f['n']})")


if __name__ == "__main__":
    main()
