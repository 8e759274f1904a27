"""Precomputed hand tables (numpy) for batch evaluation, odds, solvers and simulation.

For one :class:`~gutskit.core.evaluation.Ranking`, :func:`hand_table` enumerates every hand
(C(52,2) = 1,326 two-card or C(52,3) = 22,100 three-card hands) once and keeps, as numpy
arrays:

* ``cards``: the hands, one row of ascending card codes per *combination index*; the
  index is the colexicographic rank of the sorted cards,
  ``sum(comb(c_i, i + 1))`` (:func:`combination_index`);
* ``keys``: each hand's strength key (exactly :func:`gutskit.core.evaluation.evaluate`'s key);
* ``rank``: the dense rank of the key among the distinct keys, 0 = the worst hand;
* ``percentile``: the fraction of all hands the hand beats, ties counted half (the same
  number as :func:`gutskit.strategy.bots.hand_percentile`);
* ``code_to_index`` / ``code_to_key`` / ``code_to_rank``: flat lookups of length
  ``52 ** cards_per_hand`` indexed by the *ordered* hand code ``(a * 52 + b) * 52 + c``
  (any card order), ``-1`` where a card repeats.

Batch evaluation of an ``(n, k)`` array of card codes is then one arithmetic pass and one
array gather (:func:`batch_keys`, :func:`batch_ranks`).

>>> from gutskit.core.evaluation import Ranking, evaluate
>>> t = hand_table(Ranking(cards_per_hand=2))
>>> t.n_hands, t.n_ranks
(1326, 325)
>>> import numpy as np
>>> hands = np.array([[51, 50], [0, 4]])        # As Ah, 2c 3c
>>> batch_ranks(hands, t).tolist()              # aces are the best 2-card hand
[324, 0]
>>> int(batch_keys(hands, t)[0]) == evaluate((51, 50), t.ranking).key
True
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache
from math import comb

import numpy as np
import numpy.typing as npt

from gutskit.core.cards import Card
from gutskit.core.evaluation import DEFAULT_RANKING, Ranking, strength_table

__all__ = [
    "HandTable",
    "batch_codes",
    "batch_keys",
    "batch_percentiles",
    "batch_ranks",
    "combination_index",
    "hand_table",
]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class HandTable:
    """Every hand of one ranking, as read-only numpy arrays (see the module docstring).

    Attributes:
        ranking: the ranking the keys belong to.
        cards: ``(n_hands, k)`` int8, ascending card codes per combination index.
        keys: ``(n_hands,)`` int64 strength keys.
        rank: ``(n_hands,)`` int32 dense rank of each hand (0 = worst).
        percentile: ``(n_hands,)`` float64, fraction of hands beaten (ties half).
        rank_keys: ``(n_ranks,)`` int64, the distinct keys in increasing order
            (``rank_keys[rank[i]] == keys[i]``).
        rank_count: ``(n_ranks,)`` int64, how many hands share each rank.
        rank_percentile: ``(n_ranks,)`` float64, the percentile of each rank.
        code_to_index: ``(52 ** k,)`` int32, ordered hand code -> combination index.
        code_to_key: ``(52 ** k,)`` int32, ordered hand code -> strength key.
        code_to_rank: ``(52 ** k,)`` int16, ordered hand code -> dense rank.
    """

    ranking: Ranking
    cards: npt.NDArray[np.int8]
    keys: IntArray
    rank: npt.NDArray[np.int32]
    percentile: npt.NDArray[np.float64]
    rank_keys: IntArray
    rank_count: IntArray
    rank_percentile: npt.NDArray[np.float64]
    code_to_index: npt.NDArray[np.int32]
    code_to_key: npt.NDArray[np.int32]
    code_to_rank: npt.NDArray[np.int16]

    @property
    def cards_per_hand(self) -> int:
        """2 or 3."""
        return self.ranking.cards_per_hand

    @property
    def n_hands(self) -> int:
        """1,326 or 22,100."""
        return int(self.keys.shape[0])

    @property
    def n_ranks(self) -> int:
        """Number of distinct strengths."""
        return int(self.rank_keys.shape[0])

    def index_of(self, cards: tuple[Card, ...] | list[Card]) -> int:
        """Combination index of a hand (any card order).

        Raises:
            ValueError: wrong number of cards, a repeated card or a code outside 0..51.
        """
        code = _code(cards, self.cards_per_hand)
        index = int(self.code_to_index[code])
        if index < 0:
            raise ValueError(f"hand {list(cards)!r} repeats a card")
        return index

    def rank_of_key(self, key: int) -> int:
        """Dense rank of a strength key.

        Raises:
            ValueError: no hand has that key under this ranking.
        """
        pos = int(np.searchsorted(self.rank_keys, key))
        if pos >= self.n_ranks or int(self.rank_keys[pos]) != key:
            raise ValueError(f"no hand has strength key {key!r} under {self.ranking!r}")
        return pos

    def rank_at_percentile(self, percentile: float) -> int:
        """The lowest dense rank whose percentile is >= ``percentile`` (``n_ranks`` when
        none is): a threshold strategy "in at percentile p or better" plays exactly the
        ranks ``>=`` this one."""
        return int(np.searchsorted(self.rank_percentile, percentile, side="left"))


def _code(cards: tuple[Card, ...] | list[Card], k: int) -> int:
    if len(cards) != k:
        raise ValueError(f"hand {list(cards)!r} has {len(cards)} "
                         f"card{'' if len(cards) == 1 else 's'}, expected {k}")
    code = 0
    for card in cards:
        if not (isinstance(card, int | np.integer) and 0 <= card < 52):
            raise ValueError(f"{card!r} is not a card code (0..51)")
        code = code * 52 + int(card)
    return code


def combination_index(cards: tuple[Card, ...] | list[Card]) -> int:
    """Colexicographic index of a set of distinct cards: ``sum(comb(c_i, i + 1))`` over
    the cards sorted ascending; 0 .. C(52, k) - 1.

    >>> combination_index((0, 1)), combination_index((50, 51)), combination_index((49, 50, 51))
    (0, 1325, 22099)
    """
    return sum(comb(c, i + 1) for i, c in enumerate(sorted(cards)))


def _readonly(array: npt.NDArray[np.generic]) -> None:
    array.setflags(write=False)


@cache
def hand_table(ranking: Ranking = DEFAULT_RANKING) -> HandTable:
    """The :class:`HandTable` of ``ranking`` (built once per ranking, then cached; the
    arrays are read-only). Keys come from :func:`gutskit.core.evaluation.strength_table`, so
    they agree with :func:`gutskit.core.evaluation.evaluate` by construction (and the tests
    check every hand)."""
    k = ranking.cards_per_hand
    combos = sorted(itertools.combinations(range(52), k),
                    key=lambda c: combination_index(c))
    cards = np.array(combos, dtype=np.int8)
    weights = 52 ** np.arange(k - 1, -1, -1)
    codes = cards.astype(np.int64) @ weights
    flat = np.array(strength_table(ranking), dtype=np.int64)
    keys = flat[codes]
    rank_keys, rank = np.unique(keys, return_inverse=True)
    rank_count = np.bincount(rank, minlength=rank_keys.shape[0]).astype(np.int64)
    below = np.concatenate(([0], np.cumsum(rank_count)[:-1]))
    rank_percentile = (below + rank_count / 2) / len(combos)
    code_to_index = np.full(52**k, -1, dtype=np.int32)
    for perm in itertools.permutations(range(k)):
        code_to_index[cards[:, perm].astype(np.int64) @ weights] = np.arange(len(combos))
    code_to_key = flat.astype(np.int32)
    code_to_rank = np.where(code_to_index >= 0, rank.astype(np.int32)[code_to_index],
                            -1).astype(np.int16)
    table = HandTable(
        ranking=ranking, cards=cards, keys=keys, rank=rank.astype(np.int32),
        percentile=rank_percentile[rank], rank_keys=rank_keys.astype(np.int64),
        rank_count=rank_count, rank_percentile=rank_percentile,
        code_to_index=code_to_index, code_to_key=code_to_key, code_to_rank=code_to_rank,
    )
    for name in ("cards", "keys", "rank", "percentile", "rank_keys", "rank_count",
                 "rank_percentile", "code_to_index", "code_to_key", "code_to_rank"):
        _readonly(getattr(table, name))
    return table


def batch_codes(hands: npt.ArrayLike, cards_per_hand: int) -> IntArray:
    """Ordered hand codes ``(a * 52 + b) * 52 + c`` of an ``(n, k)`` array of card codes
    (no validation: codes must be 0..51).

    Raises:
        ValueError: the array is not ``(n, cards_per_hand)``.
    """
    array = np.asarray(hands)
    if array.ndim != 2 or array.shape[1] != cards_per_hand:
        raise ValueError(f"expected an (n, {cards_per_hand}) array of card codes, "
                         f"got shape {array.shape}")
    codes: IntArray = array[:, 0].astype(np.intp)  # in place from here: the hot path
    codes *= 52
    codes += array[:, 1]
    if cards_per_hand == 3:
        codes *= 52
        codes += array[:, 2]
    return codes


def batch_keys(hands: npt.ArrayLike, table: HandTable | None = None) -> npt.NDArray[np.int32]:
    """Strength keys of an ``(n, k)`` array of card codes: one gather. A row that repeats a
    card gets ``-1`` (codes outside 0..51 are not checked).

    Raises:
        ValueError: wrong shape.
    """
    table = table or hand_table()
    return table.code_to_key[batch_codes(hands, table.cards_per_hand)]


def batch_ranks(hands: npt.ArrayLike, table: HandTable | None = None) -> npt.NDArray[np.int16]:
    """Dense ranks (0 = worst) of an ``(n, k)`` array of card codes; ``-1`` for a row that
    repeats a card.

    Raises:
        ValueError: wrong shape.
    """
    table = table or hand_table()
    return table.code_to_rank[batch_codes(hands, table.cards_per_hand)]


def batch_percentiles(hands: npt.ArrayLike,
                      table: HandTable | None = None) -> npt.NDArray[np.float64]:
    """Percentiles (fraction of hands beaten, ties half) of an ``(n, k)`` array of card
    codes.

    Raises:
        ValueError: wrong shape or a row that repeats a card.
    """
    table = table or hand_table()
    ranks = batch_ranks(hands, table)
    if ranks.size and int(ranks.min()) < 0:
        bad = int(np.argmin(ranks))
        raise ValueError(f"hand {np.asarray(hands)[bad].tolist()!r} repeats a card")
    return table.rank_percentile[ranks]
