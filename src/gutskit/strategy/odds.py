"""Exact odds of a Guts hand against opponents who play a known strategy.

The question: *I hold this hand; N - 1 opponents each go in according to a strategy (a
threshold hand, a mixed strategy by strength, or the seeds' rule of thumb). If k of them are
in, how often do I win, tie, lose?*

**Card removal is exact.** Every opponent's hand is drawn from the cards I do not hold:
C(50, 2) = 1,225 two-card or C(49, 3) = 18,424 three-card hands. Sums over "every hand
that shares no card with a given hand" are computed by inclusion–exclusion over the shared
cards (all hands, minus those containing each of my cards, plus those containing each pair
of my cards, minus my hand itself), with per-card and per-card-pair tables of all 1,326 /
22,100 hands sorted by strength (:func:`disjoint_sums`). This is exact arithmetic on counts
(floating point only for the mixing weights), not sampling.

**How many opponents are exact:**

* **one opponent, or one opponent plus the ghost hand** (RULES.md ``ghost_hand``): exact;
* **two opponents**: exact, by a second inclusion–exclusion over the first opponent's cards
  (every ordered pair of disjoint opponent hands is counted: 1,225 x 1,128 = 1,381,800
  two-card or 18,424 x 15,180 = 279,676,320 three-card pairs, never listed one by one);
* **three or more opponents (or two plus a ghost): an approximation.** Each opponent's
  hand is still exact given *my* cards, but the opponents are treated as independent of one
  another (card removal *between* opponents is ignored). The result says so in
  :attr:`Odds.method` and :attr:`Odds.exact`, and the CLI prints it. The size of this
  approximation is measured in the tests and ``docs/strategy.md`` against the exact
  two-opponent numbers.

>>> from gutskit.core.cards import parse_cards
>>> from gutskit.core.rules import Rules
>>> o = odds(parse_cards("Ah As"), players=2, rules=Rules(cards_per_hand=2),
...          strategy=ThresholdStrategy.everyone_in())
>>> round(o.win[1], 4), round(o.tie[1], 4), o.lose[1]  # only Ad Ac ties (1 of 1,225)
(0.9992, 0.0008, 0.0)
>>> o.exact
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from gutskit.core.cards import Card, HandSizeError, ensure_distinct, format_cards
from gutskit.core.errors import GutsError
from gutskit.core.evaluation import Ranking, evaluate
from gutskit.core.rules import Rules
from gutskit.strategy.bots import qualifies_by_rule_of_thumb
from gutskit.strategy.tables import HandTable, hand_table

__all__ = [
    "EXACT_METHOD",
    "INDEPENDENT_METHOD",
    "ClassProbabilities",
    "KeyStrategy",
    "Odds",
    "OddsError",
    "OpponentStrategy",
    "RuleOfThumbStrategy",
    "ThresholdStrategy",
    "class_probabilities",
    "disjoint_sums",
    "hand_class_probabilities",
    "odds",
    "opponent_hand_count",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

EXACT_METHOD = "exact (inclusion-exclusion over shared cards; no sampling)"
INDEPENDENT_METHOD = (
    "approximation: each opponent's hand is exact given your cards, but opponents are "
    "treated as independent of each other (card removal between opponents ignored)"
)


class OddsError(GutsError):
    """Bad input to the odds calculator (players, strategy, hand); the message names it."""


def opponent_hand_count(cards_per_hand: int, known_cards: int) -> int:
    """Number of hands an opponent can hold when ``known_cards`` cards are gone.

    >>> opponent_hand_count(3, 3), opponent_hand_count(2, 2)
    (18424, 1225)
    """
    return comb(52 - known_cards, cards_per_hand)


# --------------------------------------------------------------------------------------------
# Opponent strategies: an in-probability for every hand of the table (combination index).


class OpponentStrategy:
    """How an opponent declares: :meth:`in_weights` gives, for every hand of a
    :class:`~gutskit.strategy.tables.HandTable` (by combination index), the probability of *in*."""

    name: str = "strategy"

    def in_weights(self, table: HandTable) -> FloatArray:  # pragma: no cover - interface
        """In-probability per hand, shape ``(n_hands,)``, values in [0, 1]."""
        raise NotImplementedError


@dataclass(frozen=True)
class ThresholdStrategy(OpponentStrategy):
    """In with every hand whose strength key is above ``key``; with ``key`` itself in with
    probability ``mix``; out below. ``key = -1`` means always in.

    Raises:
        OddsError: ``mix`` outside [0, 1].
    """

    key: int
    mix: float = 1.0
    name: str = "threshold"

    def __post_init__(self) -> None:
        if not 0.0 <= self.mix <= 1.0:
            raise OddsError(f"mixing probability must be in [0, 1], not {self.mix!r}")

    @classmethod
    def everyone_in(cls) -> ThresholdStrategy:
        """Opponents always in (every showdown)."""
        return cls(key=-1, name="always in")

    def in_weights(self, table: HandTable) -> FloatArray:
        keys = table.keys
        out = (keys > self.key).astype(np.float64)
        out[keys == self.key] = self.mix
        return out


@dataclass(frozen=True)
class KeyStrategy(OpponentStrategy):
    """In-probability given by a function of the strength key (e.g.
    :meth:`gutskit.strategy.solver.Equilibrium.in_probability`)."""

    in_probability: Callable[[int], float]
    name: str = "mixed"

    def in_weights(self, table: HandTable) -> FloatArray:
        by_rank = np.array([self.in_probability(int(k)) for k in table.rank_keys],
                           dtype=np.float64)
        if by_rank.size and (by_rank.min() < 0.0 or by_rank.max() > 1.0):
            raise OddsError("in-probabilities must lie in [0, 1]")
        return by_rank[table.rank]


@dataclass(frozen=True)
class RuleOfThumbStrategy(OpponentStrategy):
    """The seeds' entry rule (:func:`gutskit.strategy.bots.qualifies_by_rule_of_thumb`): two cards,
    a pair of tens or better; three cards, a pair or better with a card jack or higher."""

    name: str = "rule of thumb"

    def in_weights(self, table: HandTable) -> FloatArray:
        return _rule_of_thumb_weights(table.ranking).copy()


@cache
def _rule_of_thumb_weights(ranking: Ranking) -> FloatArray:
    table = hand_table(ranking)
    k = ranking.cards_per_hand
    return np.array([qualifies_by_rule_of_thumb(tuple(int(c) for c in row), k)
                     for row in table.cards], dtype=np.float64)


# --------------------------------------------------------------------------------------------
# Inclusion-exclusion machinery.


@dataclass(frozen=True, eq=False)
class _Term:
    """One inclusion-exclusion term: for each hand h and each subset S of h of one size,
    the hands containing S (a row, sorted by rank) and where h's rank falls in that row."""

    sign: float
    rows: IntArray  # (n_rows, m) hand indices, each row sorted by rank
    row_of: IntArray  # (n_hands, s) which row each subset of h uses
    lo: IntArray  # (n_hands, s) first position in the row with rank >= rank(h)
    hi: IntArray  # (n_hands, s) first position with rank > rank(h)


@dataclass(frozen=True, eq=False)
class _Incidence:
    table: HandTable
    terms: tuple[_Term, ...]
    subset_rows: tuple[IntArray, ...]  # per subset size 1..k-1: (n_hands, s) row ids
    n_rows: tuple[int, ...]


def _subset_ids(cards: IntArray, size: int) -> IntArray:
    """Row id of every ``size``-subset of each hand: a card (size 1) or ``a*52+b``."""
    k = cards.shape[1]
    cols = []
    for i in range(k):
        if size == 1:
            cols.append(cards[:, i])
        else:
            for j in range(i + 1, k):
                cols.append(cards[:, i] * 52 + cards[:, j])
    return np.stack(cols, axis=1)


@cache
def _incidence(ranking: Ranking) -> _Incidence:
    table = hand_table(ranking)
    cards = table.cards.astype(np.int64)
    n, k = cards.shape
    rank = table.rank.astype(np.int64)
    terms = []
    subset_rows = []
    n_rows = []
    for size in range(1, k):
        ids = _subset_ids(cards, size)  # (n, s)
        s = ids.shape[1]
        flat_ids = ids.ravel()
        hands = np.repeat(np.arange(n), s)
        order = np.lexsort((rank[hands], flat_ids))
        uniq, row_of_flat = np.unique(flat_ids, return_inverse=True)
        m = flat_ids.size // uniq.size
        rows = hands[order].reshape(uniq.size, m)
        row_of = row_of_flat.reshape(n, s)
        row_ranks = rank[rows]
        big = int(rank.max()) + 2
        offset = (np.arange(uniq.size) * big)[:, None]
        flat = (row_ranks + offset).ravel()
        target = rank[:, None] + row_of * big
        lo = np.searchsorted(flat, target, side="left") - row_of * m
        hi = np.searchsorted(flat, target, side="right") - row_of * m
        terms.append(_Term(sign=(-1.0) ** size, rows=rows, row_of=row_of, lo=lo, hi=hi))
        subset_rows.append(row_of)
        n_rows.append(uniq.size)
    return _Incidence(table=table, terms=tuple(terms), subset_rows=tuple(subset_rows),
                      n_rows=tuple(n_rows))


def disjoint_sums(weights: FloatArray, ranking: Ranking, hands: IntArray | None = None
                  ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """For every hand h (by combination index): the sums of ``weights`` over the hands that
    share no card with h and are stronger than h, equally strong, weaker.

    Exact inclusion–exclusion over the cards of h. With ``weights`` all 1 the three sums
    add up to C(50, 2) = 1,225 or C(49, 3) = 18,424 for every hand.

    Args:
        weights: shape ``(n_hands,)``, one weight per hand.
        ranking: the ranking that orders the hands.
        hands: only these hands (combination indices); default all.

    Returns:
        ``(above, tie, below)``, each of shape ``(n_hands,)`` (or ``(len(hands),)``).
    """
    inc = _incidence(ranking)
    table = inc.table
    f = np.asarray(weights, dtype=np.float64)
    sel = np.arange(table.n_hands) if hands is None else np.asarray(hands, dtype=np.int64)
    rank = table.rank[sel]
    by_rank = np.asarray(np.bincount(table.rank, weights=f, minlength=table.n_ranks),
                         dtype=np.float64)
    cum: FloatArray = np.concatenate(([0.0], np.cumsum(by_rank)))
    below: FloatArray = cum[rank].copy()
    tie: FloatArray = by_rank[rank].copy()
    above: FloatArray = cum[-1] - cum[rank + 1]
    for term in inc.terms:
        values = f[term.rows]
        c = np.zeros((values.shape[0], values.shape[1] + 1))
        np.cumsum(values, axis=1, out=c[:, 1:])
        row_of = term.row_of if hands is None else term.row_of[sel]
        b = c[row_of, term.lo if hands is None else term.lo[sel]]
        u = c[row_of, term.hi if hands is None else term.hi[sel]]
        t = c[row_of, -1]
        below += term.sign * b.sum(axis=1)
        tie += term.sign * (u - b).sum(axis=1)
        above += term.sign * (t - u).sum(axis=1)
    tie += (-1.0) ** table.cards_per_hand * f[sel]
    return above, tie, below


@dataclass(frozen=True)
class ClassProbabilities:
    """What one opponent's hand is, from my hand's point of view (arrays over my hands, or
    0-d arrays for one hand). Probabilities over the opponent's hand given my cards (exact
    card removal) and the opponent's strategy:

    Attributes:
        above: in, and stronger than mine.
        tie: in, and exactly as strong.
        below: in, and weaker.
        out_above, out_tie, out_below: out, and stronger / as strong / weaker.
        ghost_below: a hand dealt to nobody (the ghost) is weaker than mine.
    """

    above: FloatArray
    tie: FloatArray
    below: FloatArray
    out_above: FloatArray
    out_tie: FloatArray
    out_below: FloatArray
    ghost_below: FloatArray

    @property
    def out(self) -> FloatArray:
        """The opponent is out."""
        return self.out_above + self.out_tie + self.out_below


@cache
def _all_sums(ranking: Ranking) -> tuple[FloatArray, FloatArray, FloatArray]:
    table = hand_table(ranking)
    return disjoint_sums(np.ones(table.n_hands), ranking)


def class_probabilities(in_weights: FloatArray, ranking: Ranking,
                        hands: IntArray | None = None) -> ClassProbabilities:
    """:class:`ClassProbabilities` for every hand of ``ranking`` at once (exact card
    removal between my hand and one opponent's).

    Args:
        in_weights: the opponent's in-probability per hand (combination index).
        hands: only for these of my hands (combination indices); default all.
    """
    k = ranking.cards_per_hand
    total = float(opponent_hand_count(k, k))
    a, t, b = disjoint_sums(in_weights, ranking, hands)
    all_a, all_t, all_b = _all_sums(ranking)
    if hands is not None:
        all_a, all_t, all_b = all_a[hands], all_t[hands], all_b[hands]
    return ClassProbabilities(
        above=a / total, tie=t / total, below=b / total,
        out_above=(all_a - a) / total, out_tie=(all_t - t) / total,
        out_below=(all_b - b) / total, ghost_below=all_b / total,
    )


# --------------------------------------------------------------------------------------------
# One hand.


def _disjoint_from(weights: FloatArray, table: HandTable) -> FloatArray:
    """For every hand x: sum of ``weights`` over hands sharing no card with x (any order)."""
    inc = _incidence(table.ranking)
    total = float(weights.sum())
    result = np.full(table.n_hands, total)
    cards = table.cards.astype(np.int64)
    k = table.cards_per_hand
    for size, row_of in enumerate(inc.subset_rows, start=1):
        ids = _subset_ids(cards, size)
        sums = np.bincount(ids.ravel(), weights=np.repeat(weights, ids.shape[1]),
                           minlength=52 * 52 if size == 2 else 52)
        del row_of
        result += (-1.0) ** size * sums[ids].sum(axis=1)
    result += (-1.0) ** k * weights
    return result


def _hand_index(hand: Sequence[Card], ranking: Ranking) -> int:
    if len(hand) != ranking.cards_per_hand:
        raise HandSizeError(f"hand {format_cards(hand)!r} has {len(hand)} cards, "
                            f"expected {ranking.cards_per_hand}")
    ensure_distinct(hand, context=format_cards(hand))
    return hand_table(ranking).index_of(tuple(hand))


def _class_weights(hand_index: int, in_weights: FloatArray,
                   table: HandTable) -> dict[str, FloatArray]:
    """Per opponent hand: weight of each class relative to my hand (0 if it shares a card)."""
    mine = set(int(c) for c in table.cards[hand_index])
    free = ~np.isin(table.cards, list(mine)).any(axis=1)
    rank = table.rank
    r = rank[hand_index]
    f = in_weights * free
    g = (1.0 - in_weights) * free
    return {
        "above": f * (rank > r), "tie": f * (rank == r), "below": f * (rank < r),
        "out_above": g * (rank > r), "out_tie": g * (rank == r), "out_below": g * (rank < r),
        "ghost_below": free * (rank < r) * 1.0,
    }


def hand_class_probabilities(hand: Sequence[Card], in_weights: FloatArray,
                             ranking: Ranking) -> ClassProbabilities:
    """:class:`ClassProbabilities` of one hand (0-d arrays), exact card removal."""
    table = hand_table(ranking)
    index = _hand_index(hand, ranking)
    k = ranking.cards_per_hand
    total = float(opponent_hand_count(k, k))
    w = _class_weights(index, np.asarray(in_weights, dtype=np.float64), table)
    return ClassProbabilities(**{name: np.asarray(v.sum() / total) for name, v in w.items()})


@dataclass(frozen=True)
class Odds:
    """Win / tie / lose probabilities of one hand.

    Attributes:
        hand: my cards.
        description: my hand in words.
        players: players at the table, me included.
        strategy: the opponents' strategy, by name.
        in_count: ``in_count[k]`` = probability that exactly ``k`` opponents are in.
        win, tie, lose: ``win[k]`` etc. = probability, *given* that ``k`` opponents are in
            and I am in, that I take the whole pot / share it / lose (``k = 0``: win = 1,
            or with a ghost hand the probability of beating the ghost). ``nan`` when
            ``k`` opponents being in is impossible.
        win_total, tie_total, lose_total: the same, unconditionally (if I go in).
        exact: ``True`` when no approximation was needed (see :attr:`method`).
        method: how it was computed.
        ghost_hand: whether a ghost hand takes part.
    """

    hand: tuple[Card, ...]
    description: str
    players: int
    strategy: str
    in_count: tuple[float, ...]
    win: tuple[float, ...]
    tie: tuple[float, ...]
    lose: tuple[float, ...]
    win_total: float
    tie_total: float
    lose_total: float
    exact: bool
    method: str
    ghost_hand: bool = False
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``nan`` becomes ``None``)."""
        def clean(xs: Sequence[float]) -> list[float | None]:
            return [None if x != x else round(x, 10) for x in xs]
        return {
            "hand": format_cards(self.hand), "description": self.description,
            "players": self.players, "opponents": self.players - 1,
            "strategy": self.strategy, "ghost_hand": self.ghost_hand,
            "opponents_in": [
                {"k": k, "probability": p, "win": w, "tie": t, "lose": lo}
                for k, p, w, t, lo in zip(range(self.players), clean(self.in_count),
                                          clean(self.win), clean(self.tie),
                                          clean(self.lose), strict=True)
            ],
            "win": round(self.win_total, 10), "tie": round(self.tie_total, 10),
            "lose": round(self.lose_total, 10),
            "exact": self.exact, "method": self.method, **self.extra,
        }


_CLASSES = ("above", "tie", "below", "out")


def _joint_two(w1: dict[str, FloatArray], w2: dict[str, FloatArray], table: HandTable,
               n1: float, n2: float) -> dict[tuple[str, str], float]:
    """Exact joint class probabilities of two disjoint hands dealt from the cards left."""
    joint = {}
    for y, wy in w2.items():
        disjoint = _disjoint_from(wy, table)
        for x, wx in w1.items():
            joint[(x, y)] = float((wx * disjoint).sum()) / (n1 * n2)
    return joint


def odds(hand: Sequence[Card], *, players: int, rules: Rules | None = None,
         strategy: OpponentStrategy | None = None) -> Odds:
    """Win / tie / lose probabilities of ``hand`` given how many opponents are in.

    Args:
        hand: my cards (``rules.cards_per_hand`` of them).
        players: players at the table including me, 2..10.
        rules: house rules (ranking, ``ghost_hand``); default :class:`~gutskit.core.rules.Rules`
            with the hand's size.
        strategy: the opponents' strategy (default: always in, i.e. plain showdown odds).

    Returns:
        :class:`Odds`. Exact for one opponent, one opponent plus a ghost, and two
        opponents; for more, the independent-opponents approximation (see the module
        docstring), flagged in :attr:`Odds.exact` / :attr:`Odds.method`.

    Raises:
        OddsError: ``players`` outside 2..10, or too many cards for the deck.
        CardError: a bad hand (wrong size, repeated card).
    """
    hand = tuple(hand)
    rules = rules if rules is not None else Rules(cards_per_hand=len(hand))  # type: ignore[arg-type]
    ranking = rules.ranking
    if not isinstance(players, int) or not 2 <= players <= 10:
        raise OddsError(f"players must be 2..10, not {players!r}")
    ghost = bool(getattr(rules, "ghost_hand", False))
    k = ranking.cards_per_hand
    index = _hand_index(hand, ranking)
    table = hand_table(ranking)
    strategy = strategy if strategy is not None else ThresholdStrategy.everyone_in()
    weights = np.asarray(strategy.in_weights(table), dtype=np.float64)
    n = players - 1
    w = _class_weights(index, weights, table)
    n1 = float(opponent_hand_count(k, k))
    n2 = float(opponent_hand_count(k, 2 * k))
    opp = {"above": w["above"], "tie": w["tie"], "below": w["below"],
           "out": w["out_above"] + w["out_tie"] + w["out_below"]}
    free = w["out_above"] + w["out_tie"] + w["out_below"] + w["above"] + w["tie"] + w["below"]
    ghost_w = {"g_below": w["ghost_below"], "g_not_below": free - w["ghost_below"]}
    in_count = [0.0] * (n + 1)
    win = [0.0] * (n + 1)
    tie = [0.0] * (n + 1)
    lose = [0.0] * (n + 1)
    exact = (n == 1) or (n == 2 and not ghost)
    if n == 1 and ghost:
        joint = _joint_two(opp, ghost_w, table, n1, n2)
        for (x, g), p in joint.items():
            kk = 0 if x == "out" else 1
            in_count[kk] += p
            beats_ghost = g == "g_below"
            if x == "above" or not beats_ghost:
                lose[kk] += p
            elif x == "tie":
                tie[kk] += p
            else:
                win[kk] += p
    elif n == 2 and not ghost:
        joint = _joint_two(opp, opp, table, n1, n2)
        for (x, y), p in joint.items():
            kk = (x != "out") + (y != "out")
            in_count[kk] += p
            if "above" in (x, y):
                lose[kk] += p
            elif "tie" in (x, y):
                tie[kk] += p
            else:
                win[kk] += p
    else:
        t = float(opp["tie"].sum()) / n1
        b = float(opp["below"].sum()) / n1
        o = float(opp["out"].sum()) / n1
        gb = float(ghost_w["g_below"].sum()) / n1 if ghost else 1.0
        for kk in range(n + 1):
            c = comb(n, kk) * o ** (n - kk)
            in_count[kk] = c * (1.0 - o) ** kk
            no_above = c * (b + t) ** kk
            win[kk] = gb * c * b**kk
            tie[kk] = gb * (no_above - c * b**kk)
            lose[kk] = in_count[kk] - win[kk] - tie[kk]
    totals = (sum(win), sum(tie), sum(lose))
    cond = [[x / p if p > 1e-300 else float("nan") for x, p in zip(col, in_count, strict=True)]
            for col in (win, tie, lose)]
    method = EXACT_METHOD if exact else INDEPENDENT_METHOD
    return Odds(
        hand=hand, description=evaluate(hand, ranking).description, players=players,
        strategy=strategy.name, in_count=tuple(in_count), win=tuple(cond[0]),
        tie=tuple(cond[1]), lose=tuple(cond[2]), win_total=totals[0], tie_total=totals[1],
        lose_total=totals[2], exact=exact, method=method, ghost_hand=ghost,
    )
