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

**Card removal between opponents is exact too** (:mod:`gutskit.strategy.joint`): the
opponents' hands (and the ghost hand, RULES.md ``ghost_hand``) are dealt *jointly* from the
cards I do not hold. Sums over every deal of disjoint hands are computed by Möbius
inversion over the cards the hands would share, for up to
:data:`gutskit.strategy.joint.EXACT_HANDS` hands besides mine (2-card: 5, so up to six
players; 3-card: 3, so up to four players; a ghost hand counts as one). Beyond that the
numbers are a seeded Monte Carlo estimate over :data:`gutskit.strategy.joint.MC_DEALS`
deals, every one with its standard error (:attr:`Odds.standard_error`), and
:attr:`Odds.exact` is ``False``. No number is an unflagged approximation.

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

from abc import ABC, abstractmethod
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
from gutskit.strategy.joint import MC_DEALS, MC_SEED
from gutskit.strategy.tables import HandTable, hand_table

__all__ = [
    "EXACT_METHOD",
    "MAX_POT",
    "MONTE_CARLO_METHOD",
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
    "in_out_gain",
    "method_text",
    "odds",
    "opponent_hand_count",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

EXACT_METHOD = ("exact (joint card removal among all hands: inclusion-exclusion over "
                "shared cards; no sampling)")
MONTE_CARLO_METHOD = ("Monte Carlo: {deals:,} deals of the opponents' hands (seed {seed}), "
                      "declarations averaged exactly per deal; every figure ± its "
                      "standard error")


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


class OpponentStrategy(ABC):
    """How an opponent declares: :meth:`in_weights` gives, for every hand of a
    :class:`~gutskit.strategy.tables.HandTable` (by combination index), the probability of *in*."""

    name: str = "strategy"

    @abstractmethod
    def in_weights(self, table: HandTable) -> FloatArray:
        """In-probability per hand, shape ``(n_hands,)``, values in [0, 1] (each strategy
        says; abstract)."""


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


def _hand_index(hand: Sequence[Card], ranking: Ranking) -> int:
    if len(hand) != ranking.cards_per_hand:
        raise HandSizeError(f"hand {format_cards(hand)!r} has {len(hand)} "
                            f"card{'' if len(hand) == 1 else 's'}, "
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
        exact: ``True`` when every number is exact (joint card removal, no sampling);
            ``False`` when they are Monte Carlo estimates (see :attr:`standard_error`).
        method: how it was computed.
        ghost_hand: whether a ghost hand takes part.
        standard_error: ``None`` when exact; else the standard error of every estimate,
            under the same keys (``in_count``, ``win``, ``tie``, ``lose`` tuples,
            ``win_total``, ``tie_total``, ``lose_total`` floats).
        ev: with ``pot``: the expected gain of *in* over *out* in chips, per model
            (``"one_round"``, ``"recursive"``; :func:`in_out_gain`); empty otherwise or
            when the rules are not covered (:attr:`ev_note` says why).
        ev_se: standard errors of :attr:`ev` (``None`` when exact).
        ev_note: why :attr:`ev` is empty despite a pot (``""`` otherwise).
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
    standard_error: dict[str, Any] | None = None
    ev: dict[str, float] = field(default_factory=dict)
    ev_se: dict[str, float] | None = None
    ev_note: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``nan`` becomes ``None``). Every estimate has a ``*_se`` sibling:
        ``null`` when exact, else its standard error."""
        def clean(xs: Sequence[float]) -> list[float | None]:
            return [None if x != x else round(x, 10) for x in xs]
        se = self.standard_error
        none: list[float | None] = [None] * self.players

        def ses(name: str) -> list[float | None]:
            return none if se is None else clean(se[name])

        def one(name: str) -> float | None:
            return None if se is None else round(float(se[name]), 10)
        rows = zip(range(self.players), clean(self.in_count), clean(self.win),
                   clean(self.tie), clean(self.lose), ses("in_count"), ses("win"),
                   ses("tie"), ses("lose"), strict=True)
        data: dict[str, Any] = {
            "hand": format_cards(self.hand), "description": self.description,
            "players": self.players, "opponents": self.players - 1,
            "strategy": self.strategy, "ghost_hand": self.ghost_hand,
            "opponents_in": [
                {"k": k, "probability": p, "win": w, "tie": t, "lose": lo,
                 "probability_se": p_se, "win_se": w_se, "tie_se": t_se, "lose_se": lo_se}
                for k, p, w, t, lo, p_se, w_se, t_se, lo_se in rows
            ],
            "win": round(self.win_total, 10), "tie": round(self.tie_total, 10),
            "lose": round(self.lose_total, 10),
            "win_se": one("win_total"), "tie_se": one("tie_total"),
            "lose_se": one("lose_total"),
            "exact": self.exact, "method": self.method, **self.extra,
        }
        for model, value in self.ev.items():
            data[f"ev_in_minus_out_{model}"] = round(value, 6)
            data[f"ev_in_minus_out_{model}_se"] = (None if self.ev_se is None
                                                   else round(self.ev_se[model], 6))
        if self.ev_note:
            data["ev_note"] = self.ev_note
        return data


def _estimate(values: FloatArray) -> tuple[float, float]:
    """Mean of per-deal values and its standard error (0 for a single exact row)."""
    mean = float(values.mean())
    if values.shape[0] == 1:
        return mean, 0.0
    return mean, float(values.std(ddof=1) / np.sqrt(values.shape[0]))


def _ratio(num: FloatArray, den: FloatArray) -> tuple[float, float]:
    """``mean(num) / mean(den)`` and its delta-method standard error (nan if ``den`` is 0)."""
    d = float(den.mean())
    if d <= 1e-300:
        return float("nan"), float("nan")
    r = float(num.mean()) / d
    if num.shape[0] == 1:
        return r, 0.0
    return r, float((num - r * den).std(ddof=1) / np.sqrt(num.shape[0]) / d)


def _shares(poly: FloatArray) -> FloatArray:
    """Per deal, ``sum_j poly[:, j] / (j + 1)``: my expected share of a pot split with
    ``j`` tied opponents."""
    return np.asarray(poly @ (1.0 / np.arange(1, poly.shape[1] + 1)), dtype=np.float64)


def in_out_gain(in_poly: FloatArray, share_poly: FloatArray, best_poly: FloatArray | None,
                game: Any) -> tuple[FloatArray, FloatArray]:
    """Gain of *in* over *out*, in units of the pot, per deal, for the one-round and the
    recursive game (:mod:`gutskit.strategy.solver`, rules with every loser matching and
    no ghost hand), from the opponents' *joint* class counts.

    These are the payoffs of :func:`gutskit.strategy.solver.in_gain`, with its
    independent-opponents powers (``out**n``, ``(1 - above)**n``, ...) replaced by the
    exact (or sampled) joint probabilities; heads-up the two agree exactly
    (``tests/test_odds.py``).

    Args:
        in_poly: ``(deals, n + 1)``: P(exactly j opponents in).
        share_poly: P(no opponent in above me, exactly j in and as strong).
        best_poly: with ``all_out = best_pays_antes``: P(everyone out, none of them
            stronger, exactly j as strong); else ``None``.
        game: a :class:`gutskit.strategy.solver.GameModel`.

    Returns:
        ``(one_round, recursive)`` per-deal gains.
    """
    big_n = float(game.players)
    c, eps = game.match, game.ante
    all_out = in_poly[:, 0]
    lone = share_poly[:, 0]
    none_above = share_poly.sum(axis=1)
    share = _shares(share_poly)
    one_round = share - c * (1.0 - none_above)
    recursive = (all_out * (1 - 1 / big_n) + (lone - all_out) * (1 + c / big_n)
                 + (share - lone) + (1.0 - none_above) * (-c + c / big_n))
    if best_poly is not None:
        best = _shares(best_poly)
        one_round = one_round + big_n * eps * best
        recursive = recursive + big_n * eps * best - eps * all_out
    return one_round, recursive


def method_text(exact: bool, deals: int = MC_DEALS) -> str:
    """The method line for results computed by :func:`odds`."""
    if exact:
        return EXACT_METHOD
    return MONTE_CARLO_METHOD.format(deals=deals, seed=MC_SEED)


MAX_POT = 10**12
"""Largest pot (chips) :func:`odds` accepts: expected values are computed in floats, exact
to the digits printed only for pots up to about this size."""


def odds(hand: Sequence[Card], *, players: int, rules: Rules | None = None,
         strategy: OpponentStrategy | None = None, pot: int | None = None,
         deals: int = MC_DEALS) -> Odds:
    """Win / tie / lose probabilities of ``hand`` given how many opponents are in, and with
    ``pot`` the expected gain of in over out.

    Args:
        hand: my cards (``rules.cards_per_hand`` of them).
        players: players at the table including me, 2..10.
        rules: house rules (ranking, ``ghost_hand``); default :class:`~gutskit.core.rules.Rules`
            with the hand's size.
        strategy: the opponents' strategy (default: always in, i.e. plain showdown odds).
        pot: the pot in chips: also compute :attr:`Odds.ev` (rules the solver models,
            every loser matching, no ghost hand; otherwise :attr:`Odds.ev_note`).
        deals: Monte Carlo sample size beyond exact reach.

    Returns:
        :class:`Odds`: exact (joint card removal among all hands) while opponents plus
        ghost number at most :data:`gutskit.strategy.joint.EXACT_HANDS` (2-card 5, 3-card
        3); beyond, a seeded Monte Carlo estimate with standard errors.

    Raises:
        OddsError: ``players`` outside 2..10, ``pot`` outside 1..:data:`MAX_POT`, or too
            many cards for the deck.
        CardError: a bad hand (wrong size, repeated card).
    """
    from gutskit.strategy.joint import deal_polynomial, is_exact

    hand = tuple(hand)
    rules = rules if rules is not None else Rules(cards_per_hand=len(hand))  # type: ignore[arg-type]
    ranking = rules.ranking
    if not isinstance(players, int) or not 2 <= players <= 10:
        raise OddsError(f"players must be 2..10, not {players!r}")
    if pot is not None and not 1 <= pot <= MAX_POT:
        raise OddsError(f"pot must be 1..{MAX_POT} chips, not {pot!r}")
    ghost = bool(getattr(rules, "ghost_hand", False))
    k = ranking.cards_per_hand
    if (players + int(ghost)) * k > 52:
        raise OddsError(f"{players} players{' and a ghost hand' if ghost else ''} need "
                        f"more than 52 cards")
    index = _hand_index(hand, ranking)
    table = hand_table(ranking)
    strategy = strategy if strategy is not None else ThresholdStrategy.everyone_in()
    weights = np.asarray(strategy.in_weights(table), dtype=np.float64)
    n = players - 1
    w = _class_weights(index, weights, table)
    free = w["out_above"] + w["out_tie"] + w["out_below"] + w["above"] + w["tie"] + w["below"]
    out = w["out_above"] + w["out_tie"] + w["out_below"]
    inn = w["above"] + w["tie"] + w["below"]
    g_all = free if ghost else None
    g_below = w["ghost_below"] if ghost else None
    families: list[tuple[FloatArray, FloatArray, FloatArray | None]] = [
        (out, inn, g_all), (out, w["below"], g_below), (out, w["below"] + w["tie"], g_below)]
    game = None
    note = ""
    if pot is not None:
        from gutskit.strategy.model import SolverError, game_model

        try:
            game = game_model(players, rules, "recursive", pot)
        except SolverError as exc:
            note = f"no expected value: {exc}"
        if game is not None and (game.ghost or game.losers_pay != "all"):
            note = ("no expected value: the exact in/out gain covers rules where every "
                    "loser matches and there is no ghost hand")
            game = None
        if game is not None:
            families.append((w["below"] + out, w["tie"], None))
            if game.all_out == "best_pays_antes":
                families.append((w["out_below"], w["out_tie"], None))
    polys = [p.values for p in deal_polynomial(index, families, table, n, deals=deals)]
    exact = is_exact(k, n, ghost)
    if exact:  # probabilities: no rounding noise of the interpolation below zero
        polys = [np.maximum(p, 0.0) for p in polys]
    in_p, win_p, notlose_p = polys[0], polys[1], polys[2]
    tie_p = np.maximum(notlose_p - win_p, 0.0)  # each deal's difference is >= 0
    lose_p = np.maximum(in_p - notlose_p, 0.0)
    in_count: list[float] = []
    win: list[float] = []
    tie: list[float] = []
    lose: list[float] = []
    se: dict[str, Any] = {"in_count": [], "win": [], "tie": [], "lose": []}
    for kk in range(n + 1):
        m, s = _estimate(in_p[:, kk])
        in_count.append(m)
        se["in_count"].append(s)
        for name, part, target in (("win", win_p, win), ("tie", tie_p, tie),
                                   ("lose", lose_p, lose)):
            r, rs = _ratio(part[:, kk], in_p[:, kk])
            target.append(r)
            se[name].append(rs)
    totals = {}
    for name, part in (("win_total", win_p), ("tie_total", tie_p), ("lose_total", lose_p)):
        totals[name], se[name] = _estimate(part.sum(axis=1))
    ev: dict[str, float] = {}
    ev_se: dict[str, float] = {}
    if game is not None and pot is not None:
        best = polys[4] if len(polys) > 4 else None
        one_round, recursive = in_out_gain(in_p, polys[3], best, game)
        for model, per_deal in (("one_round", one_round), ("recursive", recursive)):
            ev[model], ev_se[model] = (x * pot for x in _estimate(per_deal))
    return Odds(
        hand=hand, description=evaluate(hand, ranking).description, players=players,
        strategy=strategy.name, in_count=tuple(in_count), win=tuple(win),
        tie=tuple(tie), lose=tuple(lose), win_total=totals["win_total"],
        tie_total=totals["tie_total"], lose_total=totals["lose_total"], exact=exact,
        method=method_text(exact, deals), ghost_hand=ghost,
        standard_error=None if exact else {key: tuple(v) if isinstance(v, list) else v
                                           for key, v in se.items()},
        ev=ev, ev_se=None if exact else ev_se, ev_note=note,
    )
