"""Bots: strategies that decide in or out from a seat's view alone.

* :class:`RuleOfThumbBot` plays the seeds' tips (RULES.md "Strategy notes"): in two-card
  Guts a pair of tens or better, in three-card Guts a pair or better with at least one face
  card (J, Q, K; gutskit counts the ace too); looser when the pot is tiny (a coin-flip hand
  is worth a 1-2 chip pot), tighter as the pot and the number of opponents grow. A
  ``style`` offset makes it cautious or loose.
* :class:`RandomBot` goes in with a fixed probability.
* :func:`bot_table` seats a realistic mix.

>>> from gutskit.cards import parse_cards
>>> qualifies_by_rule_of_thumb(parse_cards("Th Tc"), 2), qualifies_by_rule_of_thumb(
...     parse_cards("9h 9c"), 2)
(True, False)
>>> qualifies_by_rule_of_thumb(parse_cards("5h 5c Kd"), 3), qualifies_by_rule_of_thumb(
...     parse_cards("5h 5c 3d"), 3)
(True, False)
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Protocol, runtime_checkable

from gutskit.cards import Card
from gutskit.evaluation import Category, Ranking, category_of_key, strength_table
from gutskit.events import Declaration
from gutskit.view import SeatView

JACK = 9  # rank index of the jack


@runtime_checkable
class Strategy(Protocol):
    """Anything that declares from a :class:`SeatView`.

    ``declare`` is called only when ``view.my_turn``; it must return IN or OUT and must not
    mutate anything but its own memory. ``rng`` is the only randomness it may use.
    """

    name: str

    def declare(self, view: SeatView, rng: random.Random) -> Declaration:
        """In or out."""
        ...


@cache
def percentile_table(ranking: Ranking) -> dict[int, float]:
    """Strength key -> the fraction of all hands it beats, counting ties as half
    (0.0 = the worst hand, close to 1.0 = the best)."""
    keys = sorted(_key_of(combo, ranking)
                  for combo in itertools.combinations(range(52), ranking.cards_per_hand))
    total = len(keys)
    result: dict[int, float] = {}
    i = 0
    while i < total:
        j = i
        while j < total and keys[j] == keys[i]:
            j += 1
        result[keys[i]] = (i + (j - i) / 2) / total
        i = j
    return result


@cache
def percentile_by_index(ranking: Ranking) -> tuple[float, ...]:
    """:func:`percentile_table` laid out like :func:`strength_table` (index = the ordered
    hand's code), so a bot's lookup is one index."""
    pct = percentile_table(ranking)
    return tuple(pct.get(key, 0.0) for key in strength_table(ranking))


def _key_of(cards: Sequence[Card], ranking: Ranking) -> int:
    table = strength_table(ranking)
    index = 0
    for card in cards:
        index = index * 52 + card
    return table[index]


def hand_percentile(cards: Sequence[Card], ranking: Ranking) -> float:
    """The fraction of all hands that ``cards`` beats (ties count half)."""
    index = 0
    for card in cards:
        index = index * 52 + card
    return percentile_by_index(ranking)[index]


def qualifies_by_rule_of_thumb(cards: Sequence[Card], cards_per_hand: int) -> bool:
    """The seeds' entry rule: two cards, a pair of tens or better; three cards, a pair or
    better with at least one card jack or higher."""
    ranks = [c >> 2 for c in cards]
    if cards_per_hand == 2:
        return ranks[0] == ranks[1] and ranks[0] >= 8
    category = category_of_key(_key_of(cards, Ranking(cards_per_hand=3, suit_tiebreak="none")))
    if category is Category.HIGH_CARD:
        return False
    return category is not Category.PAIR or max(ranks) >= JACK


@dataclass
class RuleOfThumbBot:
    """The seeds' rules of thumb, adjusted for pot size and opponents.

    Args:
        style: percentile offset added to every threshold: positive is cautious, negative
            loose (about -0.1 .. +0.1 is a realistic range).
        name: display name.
    """

    style: float = 0.0
    name: str = "rule-of-thumb"
    _tables: dict[Ranking, tuple[tuple[float, ...], float]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    def _lookup(self, ranking: Ranking) -> tuple[tuple[float, ...], float]:
        cached = self._tables.get(ranking)
        if cached is None:
            cached = self._tables[ranking] = (percentile_by_index(ranking),
                                              _rule_percentile(ranking))
        return cached

    def threshold(self, view: SeatView) -> float:
        """The percentile a hand must reach to go in."""
        rules = view.rules
        if view.pot <= 2 * rules.ante:
            base = 0.5  # "with a 1-2 chip pot a coin-flip hand may be worth it"
        else:
            base = self._lookup(rules.ranking)[1]
            base += 0.015 * math.log2(max(1.0, view.pot / (rules.ante * len(view.names))))
        opponents = sum(view.dealt_in) - 1
        if opponents > 3:
            base += 0.01 * (opponents - 3)
        return min(0.999, max(0.0, base + self.style))

    def declare(self, view: SeatView, rng: random.Random) -> Declaration:
        """In when the hand's percentile reaches :meth:`threshold` and it can be covered."""
        hand = view.hand
        if hand is None:
            return Declaration.OUT
        rules = view.rules
        if rules.require_cover and view.stacks[view.seat] < view.owed:
            return Declaration.OUT
        index = 0
        for card in hand:
            index = index * 52 + card
        strong = self._lookup(rules.ranking)[0][index] >= self.threshold(view)
        return Declaration.IN if strong else Declaration.OUT


@cache
def _rule_percentile(ranking: Ranking) -> float:
    """Percentile of the weakest hand the seeds' rule of thumb plays."""
    qualifying = [hand_percentile(combo, ranking)
                  for combo in itertools.combinations(range(52), ranking.cards_per_hand)
                  if qualifies_by_rule_of_thumb(combo, ranking.cards_per_hand)]
    return min(qualifying)


@dataclass
class RandomBot:
    """Goes in with probability ``p_in`` (a baseline, and a bluffer)."""

    p_in: float = 0.5
    name: str = "random"

    def declare(self, view: SeatView, rng: random.Random) -> Declaration:
        """In with probability ``p_in`` (out when it cannot cover under require_cover)."""
        if view.rules.require_cover and view.stacks[view.seat] < view.owed:
            return Declaration.OUT
        return Declaration.IN if rng.random() < self.p_in else Declaration.OUT


STYLES: dict[str, float] = {"cautious": 0.04, "standard": 0.0, "loose": -0.08}
"""Named styles for :class:`RuleOfThumbBot`."""

BOT_NAMES = ("Ava", "Bruno", "Chen", "Dara", "Emil", "Fay", "Gus", "Hana", "Ivo", "Jun")


def bot_table(n: int, rng: random.Random | None = None) -> list[Strategy]:
    """``n`` rule-of-thumb bots with a realistic spread of styles (cautious, standard,
    loose), named from :data:`BOT_NAMES`.

    The styles are drawn with ``rng`` (default: a fixed order, no randomness).
    """
    styles = [*STYLES, "loose"]
    bots: list[Strategy] = []
    for i in range(n):
        style = rng.choice(styles) if rng is not None else styles[i % len(styles)]
        name = f"{BOT_NAMES[i % len(BOT_NAMES)]}"
        bots.append(RuleOfThumbBot(style=STYLES[style], name=f"{name} ({style})"))
    return bots
