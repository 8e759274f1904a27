"""Hand evaluation for two- and three-card Guts.

Rankings (RULES.md "Hand rankings"):

* two cards: pair > high card; no straights, no flushes; the ace is always high;
* three cards: straight flush > three of a kind > straight > flush > pair > high card
  (a straight beats a flush here), with A-2-3 the lowest straight when
  ``ace_low_straight`` is on and Q-K-A always the highest; K-A-2 is never a straight.

Each hand gets a *strength key*: a non-negative ``int`` that orders hands totally under one
:class:`Ranking` (higher is better, equal keys tie). ``suit_tiebreak`` decides whether suits
enter the key: ``none`` (rank-equal hands tie), ``high_card`` (among high-card hands of
equal ranks the better suit of the highest card wins), ``always`` (every rank-equal tie is
broken by the suits of the cards ordered by rank, ace high, then suit, from the top).

Evaluation is one lookup in a table built once per ranking (:func:`strength_table`), so it
is fast enough for simulation: ``table[(a * 52 + b) * 52 + c]``.

>>> from gutskit.core.cards import parse_cards
>>> evaluate(parse_cards("Qs Qh 7d")).description
'Pair of queens, seven kicker'
>>> compare(parse_cards("9c Th Jd"), parse_cards("Ac Kc 7c"))  # straight beats flush
1
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from gutskit.core.cards import (
    RANK_NAMES,
    RANK_PLURALS,
    Card,
    HandSizeError,
    ensure_distinct,
    format_cards,
)

SuitTiebreak = Literal["none", "high_card", "always"]
"""How rank-equal hands are separated (RULES.md ``suit_tiebreak``)."""


class Category(enum.IntEnum):
    """Hand categories, weakest first; the value is the category's order."""

    HIGH_CARD = 0
    PAIR = 1
    FLUSH = 2
    STRAIGHT = 3
    THREE_OF_A_KIND = 4
    STRAIGHT_FLUSH = 5

    @property
    def label(self) -> str:
        """The snake_case name used in JSON output, e.g. ``'three_of_a_kind'``."""
        return self.name.lower()


CATEGORY_SHIFT = 20
"""Bit position of the category in a strength key."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Ranking:
    """The part of the rules that ranks hands (RULES.md "Hand rankings").

    Attributes:
        cards_per_hand: 2 or 3.
        ace_low_straight: A-2-3 is a straight (three cards only).
        suit_tiebreak: ``"none"``, ``"high_card"`` (default, German/French seed) or
            ``"always"``.
    """

    cards_per_hand: int = 3
    ace_low_straight: bool = True
    suit_tiebreak: SuitTiebreak = "high_card"

    def __post_init__(self) -> None:
        if self.cards_per_hand not in (2, 3):
            raise ValueError(f"cards_per_hand must be 2 or 3, not {self.cards_per_hand!r}")
        if self.suit_tiebreak not in ("none", "high_card", "always"):
            raise ValueError(
                f"suit_tiebreak must be 'none', 'high_card' or 'always', "
                f"not {self.suit_tiebreak!r}"
            )


DEFAULT_RANKING = Ranking()


@dataclass(frozen=True, slots=True)
class HandValue:
    """A hand's evaluation.

    Attributes:
        cards: the cards, as given.
        category: the hand category.
        key: the strength key; compare keys of hands evaluated under the same ranking.
        description: plain English, e.g. ``'Pair of tens, ace kicker'``.
    """

    cards: tuple[Card, ...]
    category: Category
    key: int
    description: str

    def __str__(self) -> str:
        return f"{format_cards(self.cards)} ({self.description})"


def _straight_top(ranks_desc: tuple[int, ...], ace_low: bool) -> int | None:
    """Top rank of a three-card straight, or None. A-2-3 has top rank 1 (the three)."""
    a, b, c = ranks_desc
    if a - b == 1 and b - c == 1:
        return a
    if ace_low and ranks_desc == (12, 1, 0):
        return 1
    return None


def _classify(cards: Sequence[Card], ace_low: bool) -> tuple[Category, tuple[int, ...]]:
    """Category and the ranks that order hands within it (most significant first)."""
    ranks = tuple(sorted((c >> 2 for c in cards), reverse=True))
    if len(cards) == 2:
        if ranks[0] == ranks[1]:
            return Category.PAIR, (ranks[0],)
        return Category.HIGH_CARD, ranks
    a, b, c = ranks
    flush = (cards[0] & 3) == (cards[1] & 3) == (cards[2] & 3)
    top = _straight_top(ranks, ace_low)
    if top is not None:
        return (Category.STRAIGHT_FLUSH if flush else Category.STRAIGHT), (top,)
    if a == c:
        return Category.THREE_OF_A_KIND, (a,)
    if flush:
        return Category.FLUSH, ranks
    if a == b:
        return Category.PAIR, (a, c)
    if b == c:
        return Category.PAIR, (b, a)
    return Category.HIGH_CARD, ranks


def _suit_part(cards: Sequence[Card], category: Category, tiebreak: SuitTiebreak) -> int:
    if tiebreak == "none":
        return 0
    ordered = sorted(cards, reverse=True)  # by rank (ace high), then suit, from the top
    if tiebreak == "high_card":
        return (ordered[0] & 3) + 1 if category is Category.HIGH_CARD else 0
    part = 0
    for card in ordered:
        part = (part << 2) | (card & 3)
    return part


def _key(cards: Sequence[Card], ranking: Ranking) -> tuple[Category, tuple[int, ...], int]:
    category, ranks = _classify(cards, ranking.ace_low_straight)
    rank_part = 0
    for r in ranks:
        rank_part = (rank_part << 4) | r
    rank_part <<= 4 * (3 - len(ranks))
    key = (category << CATEGORY_SHIFT) | (rank_part << 8) | _suit_part(
        cards, category, ranking.suit_tiebreak
    )
    return category, ranks, key


def _describe(category: Category, ranks: tuple[int, ...], n_cards: int) -> str:
    names = RANK_NAMES
    if category is Category.PAIR:
        text = f"Pair of {RANK_PLURALS[ranks[0]]}"
        return text if n_cards == 2 else f"{text}, {names[ranks[1]]} kicker"
    if category is Category.THREE_OF_A_KIND:
        return f"Three {RANK_PLURALS[ranks[0]]}"
    if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        top = ranks[0]
        low = "ace" if top == 1 else names[top - 2]
        label = "Straight flush" if category is Category.STRAIGHT_FLUSH else "Straight"
        return f"{label}, {low} to {names[top]}"
    high = "-".join(names[r] for r in ranks)
    if category is Category.FLUSH:
        return f"Flush, {high} high"
    return f"{high.capitalize()} high"


def evaluate(cards: Sequence[Card], ranking: Ranking = DEFAULT_RANKING) -> HandValue:
    """Evaluate a hand of ``ranking.cards_per_hand`` distinct cards.

    Args:
        cards: card codes (see :mod:`gutskit.core.cards`).
        ranking: the ranking rules; default three cards, ace-low straights on,
            ``suit_tiebreak="high_card"``.

    Returns:
        The :class:`HandValue`.

    Raises:
        HandSizeError: the hand does not have ``ranking.cards_per_hand`` cards.
        DuplicateCardError: a card appears twice.

    >>> from gutskit.core.cards import parse_cards
    >>> evaluate(parse_cards("Ah 2s 3c")).description
    'Straight, ace to three'
    >>> evaluate(parse_cards("Ah Kd"), Ranking(cards_per_hand=2)).description
    'Ace-king high'
    """
    hand = tuple(cards)
    if len(hand) != ranking.cards_per_hand:
        raise HandSizeError(
            f"hand {format_cards(hand)!r} has {len(hand)} card{'' if len(hand) == 1 else 's'}, "
            f"expected {ranking.cards_per_hand}"
        )
    ensure_distinct(hand, context=format_cards(hand))
    category, ranks, key = _key(hand, ranking)
    return HandValue(hand, category, key, _describe(category, ranks, len(hand)))


def compare(first: Sequence[Card], second: Sequence[Card],
            ranking: Ranking = DEFAULT_RANKING) -> int:
    """``1`` if ``first`` wins, ``-1`` if ``second`` wins, ``0`` for a tie.

    Raises:
        HandSizeError: as :func:`evaluate`.
        DuplicateCardError: as :func:`evaluate`, and when the two hands share a card (they
            come from one deck).
    """
    ensure_distinct(
        (*first, *second), context=f"{format_cards(first)} / {format_cards(second)}"
    )
    a = evaluate(first, ranking).key
    b = evaluate(second, ranking).key
    return (a > b) - (a < b)


@cache
def strength_table(ranking: Ranking = DEFAULT_RANKING) -> tuple[int, ...]:
    """Strength keys of every ordered hand, for fast evaluation.

    Returns:
        A tuple of length ``52 ** cards_per_hand``; the key of hand ``(a, b)`` is at
        ``a * 52 + b`` and of ``(a, b, c)`` at ``(a * 52 + b) * 52 + c``, for any order of
        the cards. Entries for hands with a repeated card are ``-1``.
    """
    n = ranking.cards_per_hand
    table = [-1] * (52**n)
    for combo in itertools.combinations(range(52), n):
        key = _key(combo, ranking)[2]
        for perm in itertools.permutations(combo):
            index = 0
            for card in perm:
                index = index * 52 + card
            table[index] = key
    return tuple(table)


def strength(cards: Sequence[Card], ranking: Ranking = DEFAULT_RANKING) -> int:
    """The strength key of ``cards`` by table lookup (no validation; fast path).

    >>> two = Ranking(cards_per_hand=2)
    >>> strength((51, 50), two) > strength((47, 46), two)  # aces beat kings
    True
    """
    entry = _last_table[0]
    if entry[0] is not ranking:  # another ranking than the last call's
        found = _TABLES_BY_ID.get(id(ranking))
        if found is None:
            found = _TABLES_BY_ID[id(ranking)] = (ranking, strength_table(ranking))
        entry = _last_table[0] = found
    table = entry[1]
    if len(cards) == 3:
        a, b, c = cards
        return table[(a * 52 + b) * 52 + c]
    a, b = cards
    return table[a * 52 + b]


_TABLES_BY_ID: dict[int, tuple[Ranking, tuple[int, ...]]] = {}
"""Tables by ``id(ranking)``: the hot path skips hashing the ranking. Each entry keeps its
ranking alive, so an id is never reused while it is a key."""

_last_table: list[tuple[Ranking | None, tuple[int, ...]]] = [(None, ())]
"""The entry of the last ranking :func:`strength` used (most calls repeat it)."""


def category_of_key(key: int) -> Category:
    """The category encoded in a strength key."""
    return Category(key >> CATEGORY_SHIFT)
