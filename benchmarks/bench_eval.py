"""Hand evaluation speed: (a) scalar three-card evaluation -- gutskit.core.evaluation.strength,
a direct lookup in the strength table, and PokerKit's RhodeIslandHoldemLookup, measured side
by side on the same hands; (b) batch evaluation of an (n, 3) array of card codes
(gutskit.strategy.tables.batch_keys: one arithmetic pass and one gather).

Run: python benchmarks/bench_eval.py [--json]
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from common import arguments, best_rate, emit, header, result

from gutskit.core.evaluation import DEFAULT_RANKING, strength, strength_table
from gutskit.strategy.tables import batch_keys, hand_table

N_SCALAR = 20_000
N_BATCH = 2_000_000


def main() -> None:
    arguments(__doc__).parse_args()
    header("hand evaluation (3 cards)")
    rng = random.Random(1)
    hands = [tuple(rng.sample(range(52), 3)) for _ in range(N_SCALAR)]
    strength(hands[0])  # build the table outside the timing
    table = strength_table(DEFAULT_RANKING)

    def via_strength() -> int:
        for h in hands:
            strength(h)
        return len(hands)

    def via_lookup() -> int:
        t = table
        for a, b, c in hands:
            t[(a * 52 + b) * 52 + c]
        return len(hands)

    results = []
    ours = best_rate(via_strength)
    direct = best_rate(via_lookup)
    results.append(result("scalar: gutskit.core.evaluation.strength", ours, "evals/s",
                          target=3e6))
    results.append(result("scalar: direct strength-table lookup", direct, "evals/s",
                          target=3e6))
    compared, missing = pokerkit_results(hands, ours, direct)
    results += compared

    t = hand_table()
    gen = np.random.default_rng(2)
    # N_BATCH random hands (distinct cards): sampled combination indices, cards in order
    cards8 = t.cards[gen.integers(0, t.n_hands, N_BATCH)]
    cards64 = cards8.astype(np.int64)
    batch_keys(cards8[:10], t)

    def batch8() -> int:
        batch_keys(cards8, t)
        return N_BATCH

    def batch64() -> int:
        batch_keys(cards64, t)
        return N_BATCH

    results.append(result("batch: (n, 3) int8 array -> keys (batch_keys)", best_rate(batch8),
                          "hands/s", target=5e7, note=f"n = {N_BATCH:,}"))
    results.append(result("batch: (n, 3) int64 array -> keys (batch_keys)",
                          best_rate(batch64), "hands/s", target=5e7))
    emit(results)
    if missing is not None:
        print(missing)


POKERKIT_MISSING = ("pokerkit: not installed, so no side-by-side figures (pip install "
                    "pokerkit, or the dev extra: pip install -e '.[dev]')")
"""What the benchmark says instead of PokerKit's figures when PokerKit cannot be imported
(it printed ``pokerkit: 0 evals/s``; fresh8)."""


def pokerkit_results(hands: list[tuple[int, ...]], ours: float, direct: float
                     ) -> tuple[list[dict[str, Any]], str | None]:
    """PokerKit's RhodeIslandHoldemLookup on the same ``hands`` (evals/s) and the ratios of
    gutskit's rates ``ours`` and ``direct`` (evals/s) to it; or no figures and
    :data:`POKERKIT_MISSING` when PokerKit is not installed."""
    try:
        from pokerkit import Card, RhodeIslandHoldemLookup
    except ImportError:
        return [], POKERKIT_MISSING
    lookup = RhodeIslandHoldemLookup()
    ranks, suits = "23456789TJQKA", "cdhs"
    deck = [next(iter(Card.parse(ranks[c >> 2] + suits[c & 3]))) for c in range(52)]
    pk_hands = [[deck[c] for c in h] for h in hands]
    # same answers? compare the order of 2,000 pairs of hands (suits ignored by both
    # when the ranks differ; PokerKit has no suit tie-break)
    plain = hand_table(type(DEFAULT_RANKING)(suit_tiebreak="none"))
    agree = 0
    for h1, h2, p1, p2 in zip(hands[:2000], hands[1:2001], pk_hands, pk_hands[1:],
                              strict=False):
        k1 = int(plain.code_to_key[(h1[0] * 52 + h1[1]) * 52 + h1[2]])
        k2 = int(plain.code_to_key[(h2[0] * 52 + h2[1]) * 52 + h2[2]])
        e1, e2 = lookup.get_entry(p1), lookup.get_entry(p2)
        agree += (k1 > k2) == (e1 > e2) and (k1 == k2) == (e1 == e2)

    def via_pokerkit() -> int:
        get = lookup.get_entry
        for h in pk_hands:
            get(h)
        return len(pk_hands)

    pk_rate = best_rate(via_pokerkit)
    return [result("scalar: pokerkit.RhodeIslandHoldemLookup.get_entry", pk_rate, "evals/s",
                   note=f"orders 2,000 hand pairs like gutskit with suit_tiebreak=none: "
                        f"{agree}/2000"),
            result("ratio strength / pokerkit", ours / pk_rate, "x"),
            result("ratio table lookup / pokerkit", direct / pk_rate, "x")], None


if __name__ == "__main__":
    main()
