"""The hot path of :class:`gutskit.strategy.bots.RuleOfThumbBot`: its declaration from the
bars it remembers for a pot and a table, in a module of its own so that the optional
compiled build (``scripts/build_compiled.py``) compiles it with the engine
(``strategy/bots.py`` itself does not compile: its ``runtime_checkable`` protocols fail to
import under mypyc). The rules of thumb, the bars and every case without remembered bars
stay in ``bots.py``; this module only looks the bars up and applies them.

Pure Python, this module's :func:`declare` is the bot's ``declare`` method itself (no call
between); compiled, the method calls it.
"""

from __future__ import annotations

import random
from typing import Protocol

from gutskit.core.events import Declaration
from gutskit.core.views import SeatView

Bars = tuple[bool, bool, float, "float | None", tuple[float, ...], tuple[bool, ...]]
"""A rule-of-thumb bot's bars for one pot (``RuleOfThumbBot._bars``): whether an in needs
cover (``require_cover``), whether the pot is a coin flip, the bar, the loose bar, the
percentile and rule tables (indexed by the hand's cards in base 52)."""

BarsKey = tuple[int, int, tuple[bool, ...]]
"""What the bars are remembered by: ``id`` of the rules, the pot, the seats dealt in."""

# read once (in Python 3.11 ``Declaration.IN`` goes through ``EnumType.__getattr__``'s slot)
_IN, _OUT = Declaration.IN, Declaration.OUT


class Remembering(Protocol):
    """What :func:`declare` needs of the bot: its remembered bars and the declaration of
    a view without them (``RuleOfThumbBot._declare_new``: it declares, or it remembers the
    bars and calls :func:`declare` again)."""

    _bars_seen: dict[BarsKey, Bars]

    def _declare_new(self, view: SeatView, rng: random.Random) -> Declaration:
        ...


def declare(self: Remembering, view: SeatView, rng: random.Random) -> Declaration:
    """In when the hand's percentile reaches the bot's threshold and it can be covered
    (``RuleOfThumbBot.declare``).

    Args:
        self: the bot (:class:`~gutskit.strategy.bots.RuleOfThumbBot`).
        view: its seat's view.
        rng: the only randomness it may use (blind and variant declarations).

    Returns:
        IN or OUT (under the variants, as ``RuleOfThumbBot.declare_variant`` decides).
    """
    hand = view.hand
    if hand is None:
        return _OUT
    # the bars of a pot and a table are worked out once (``RuleOfThumbBot._bars``) and
    # looked up after; only plain rules with a seen hand have bars
    bars = self._bars_seen.get((id(view.rules), view.pot, view.dealt_in)) if hand else None
    if bars is None:
        return self._declare_new(view, rng)
    cover, coin_flip, bar, loose_bar, pct_table, rule_table = bars
    if cover and view.stacks[view.seat] < view.owed:  # require_cover
        return _OUT
    if len(hand) == 3:  # the hand's index in the tables: its cards in base 52
        first, second, third = hand
        index = (first * 52 + second) * 52 + third
    else:
        index = 0
        for card in hand:
            index = index * 52 + card
    pct = pct_table[index]
    if pct >= bar and (coin_flip or rule_table[index]):
        return _IN
    if loose_bar is not None and pct >= loose_bar:  # a loose bot, above a coin flip
        return _IN
    return _OUT
