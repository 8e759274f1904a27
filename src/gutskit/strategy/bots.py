"""Bots: strategies that decide in or out from a seat's view alone.

* :class:`RuleOfThumbBot` plays the seeds' tips (RULES.md "Strategy notes"): in two-card
  Guts a pair of tens or better, in three-card Guts a pair or better with at least one face
  card (J, Q, K; gutskit counts the ace too); looser when the pot is tiny (a coin-flip hand
  is worth a 1-2 chip pot), tighter as the pot and the number of opponents grow. A
  ``style`` offset makes it cautious or loose.
* :class:`RandomBot` goes in with a fixed probability.
* :func:`bot_table` seats a realistic mix.

Both play every variant (RULES.md "Variants"): they pass the card whose loss hurts least
(Pass the Trash), declare high, low or both (Hi-Lo), decide blind with a mixed strategy
that breaks even against a table doing the same (No Peek), count the ghost hand as one more
opponent who is always in, rate a hand by its expected best hand with the unseen community
card (Monte Carlo), and go in lighter when only the worst hand pays. :func:`choose_pass`
and :func:`bots_pass` drive the pass phase for any strategy; :func:`bots_act` lets the bots
of a table act through the table driver (:mod:`gutskit.core.table`), from their legal
actions.

>>> from gutskit.core.cards import parse_cards
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
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from gutskit.core import table
from gutskit.core.cards import DECK, Card
from gutskit.core.engine import GameState, Phase, pass_all
from gutskit.core.evaluation import Category, Ranking, category_of_key, strength_table
from gutskit.core.events import Declaration, Event
from gutskit.core.rules import Rules
from gutskit.core.table import Declare, PassCard
from gutskit.core.views import SeatView, joint_views, view_for
from gutskit.strategy import rule_of_thumb as _rule_of_thumb
from gutskit.variants import Variants, variants_for

if TYPE_CHECKING:  # numpy itself is imported by the Monte Carlo functions that use it
    import numpy as np
    import numpy.typing as npt

JACK = 9  # rank index of the jack


@runtime_checkable
class Strategy(Protocol):
    """Anything that declares from a :class:`SeatView`.

    ``declare`` is called only when the table waits for the seat's declaration
    (:func:`gutskit.core.table.waiting_for`); it must return IN or OUT and must not
    mutate anything but its own memory. ``rng`` is the only randomness it may use.
    """

    name: str

    def declare(self, view: SeatView, rng: random.Random) -> Declaration:
        """In or out (under ``hi_lo``: high, low, both or out)."""
        ...


@runtime_checkable
class PassingStrategy(Strategy, Protocol):
    """A strategy that also chooses the card to pass (Pass the Trash); strategies without
    ``pass_card`` get :func:`default_pass` (see :func:`choose_pass`)."""

    def pass_card(self, view: SeatView, rng: random.Random) -> Card:
        """The card of ``view.hand`` to pass to the left."""
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


# read once (in Python 3.11 ``Declaration.IN`` goes through ``EnumType.__getattr__``'s slot)
_IN, _OUT = Declaration.IN, Declaration.OUT
_Bars = _rule_of_thumb.Bars


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
    _tables: dict[int, tuple[Ranking, tuple[float, ...], float, tuple[bool, ...]]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    _variants: dict[int, Variants] = field(default_factory=dict, init=False, repr=False,
                                           compare=False)
    _bars_seen: dict[tuple[int, int, tuple[bool, ...]], _Bars] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    _rules_seen: dict[int, Rules] = field(default_factory=dict, init=False, repr=False,
                                          compare=False)

    def _lookup(self, ranking: Ranking) -> tuple[Ranking, tuple[float, ...], float,
                                                 tuple[bool, ...]]:
        # Keyed by identity (hashing a ranking costs more than the lookup); the entry
        # holds the ranking, so its id stays unique while cached.
        cached = self._tables.get(id(ranking))
        if cached is None:
            cached = self._tables[id(ranking)] = (ranking, percentile_by_index(ranking),
                                                  _rule_percentile(ranking),
                                                  _rule_by_index(ranking.cards_per_hand))
        return cached

    def tightening(self, view: SeatView) -> float:
        """How much the percentile bar rises with the pot and the number of opponents:
        +0.015 per doubling of the pot over one ante per seat, +0.01 per opponent beyond
        three (RULES.md "Strategy notes": bigger pots and more players need stronger
        hands)."""
        rules = view.rules
        rise = 0.015 * math.log2(max(1.0, view.pot / (rules.ante * len(view.names))))
        opponents = sum(view.dealt_in) - 1
        if opponents > 3:
            rise += 0.01 * (opponents - 3)
        return rise

    def threshold(self, view: SeatView) -> float:
        """The percentile a hand that the rule of thumb plays must reach to go in: 0.5 at a
        pot of at most two antes (a coin flip), otherwise the weakest hand the rule plays,
        raised by :meth:`tightening` and a cautious style."""
        rules = view.rules
        return self._threshold(view, view.pot <= 2 * rules.ante,
                               self._lookup(rules.ranking)[2])

    def _threshold(self, view: SeatView, coin_flip: bool, rule_percentile: float) -> float:
        """:meth:`threshold`, given whether the pot is at most two antes and the rule's
        weakest percentile."""
        # coin flip: "with a 1-2 chip pot a coin-flip hand may be worth it"
        base = 0.5 if coin_flip else rule_percentile + self.tightening(view)
        return min(0.999, max(0.0, base + max(self.style, 0.0)))

    def plays(self, hand: Sequence[Card], view: SeatView) -> bool:
        """Whether this bot goes in with ``hand`` (plain resolution).

        At a pot of at most two antes: any hand at or above :meth:`threshold` (a coin
        flip). Otherwise: a hand the seeds' rule plays (:func:`qualifies_by_rule_of_thumb`)
        at or above :meth:`threshold`; a loose bot (``style < 0``) also plays any hand
        whose percentile reaches the rule's share of hands lowered by ``-style``.
        """
        rules = view.rules
        _, pct_table, rule_percentile, rule_table = self._lookup(rules.ranking)
        index = 0
        for card in hand:
            index = index * 52 + card
        pct = pct_table[index]
        if view.pot <= 2 * rules.ante:
            return pct >= self._threshold(view, True, rule_percentile)
        if rule_table[index] and pct >= self._threshold(view, False, rule_percentile):
            return True
        if self.style < 0:
            share = _rule_share_percentile(view.rules.ranking)
            return pct >= share + self.tightening(view) + self.style
        return False

    def declare(self, view: SeatView, rng: random.Random) -> Declaration:
        """In when the hand's percentile reaches :meth:`threshold` and it can be covered.

        Variants: blind under ``no_peek`` (:func:`blind_in_probability`); otherwise see
        :meth:`declare_variant`. (:meth:`plays`, with the bars of a pot and a table
        remembered, :func:`gutskit.strategy.rule_of_thumb.declare`: in the pure package
        that function is this method itself.)"""
        return _rule_of_thumb.declare(self, view, rng)

    def _declare_new(self, view: SeatView, rng: random.Random) -> Declaration:
        """:meth:`declare` of a view whose pot and table have no bars remembered yet, or
        that has none (a blind hand, the variants): works them out (:meth:`_bars`, with
        the very expressions of :meth:`plays`), remembers them and declares from them."""
        hand = view.hand
        assert hand is not None
        rules = view.rules
        if rules.require_cover and view.stacks[view.seat] < view.owed:
            return _OUT
        if not hand:  # No Peek: the cards are unseen
            return self.declare_blind(view, rng)
        game = self._variants.get(id(rules))  # by identity: a Variants holds its rules
        if game is None:
            game = self._variants[id(rules)] = variants_for(rules)
        if not game.plain:
            return self.declare_variant(view, rng)
        self._bars(view)  # remembered: declared from them
        return _rule_of_thumb.declare(self, view, rng)

    def _bars(self, view: SeatView) -> _Bars:
        """For :meth:`declare` under plain rules: whether an in needs cover
        (``require_cover``), whether the pot is a coin flip (at most
        two antes), the percentile bar, and the loose style's bar (``None`` unless
        ``style < 0``), as :meth:`plays` computes them, with the ranking's percentile and
        rule tables; remembered by rules, pot and dealt-in seats."""
        rules = view.rules
        _, pct_table, rule_percentile, rule_table = self._lookup(rules.ranking)
        coin_flip = view.pot <= 2 * rules.ante
        bar = self._threshold(view, coin_flip, rule_percentile)
        loose_bar = None
        if not coin_flip and self.style < 0:
            loose_bar = (_rule_share_percentile(rules.ranking) + self.tightening(view)
                         + self.style)
        if len(self._bars_seen) >= 4096:
            self._bars_seen.clear()
            self._rules_seen.clear()
        bars = self._bars_seen[(id(rules), view.pot, view.dealt_in)] = (
            rules.require_cover, coin_flip, bar, loose_bar, pct_table, rule_table)
        self._rules_seen[id(rules)] = rules  # keeps the ids in the keys unique
        return bars

    def declare_blind(self, view: SeatView, rng: random.Random) -> Declaration:
        """No Peek: in with the break-even probability of :func:`blind_in_probability`
        (shifted by the style); under hi-lo a random side."""
        rules = view.rules
        p = blind_in_probability(max(1, view.opponents), view.pot, view.owed,
                                 ghost=rules.ghost_hand, worst=rules.losers_pay == "worst")
        if rng.random() >= min(1.0, max(0.0, p - self.style)):
            return Declaration.OUT
        if rules.hi_lo:
            return rng.choice((Declaration.HIGH, Declaration.LOW))
        return Declaration.IN

    def declare_variant(self, view: SeatView, rng: random.Random) -> Declaration:
        """A seen hand under the variants that change resolution.

        * Monte Carlo: the hand's strength is the share of all hands whose expected
          percentile, once the unseen community card is added, is below this hand's
          (:func:`community_strength`), so it compares with the plain thresholds.
        * Ghost hand: the ghost is one more opponent who is always in, so even a lone
          player must expect to beat it: at least the break-even percentile
          ``owed / (pot + owed)``.
        * Single loser: only the worst hand pays, so it goes in lighter (0.05 lower per
          other player dealt in, up to 0.15).
        * Hi-Lo: each side plays for half the pot; high when the hand is strong, low when
          it is weak (its low percentile is ``1 -`` its high one), both only when it clears
          both thresholds (possible only with a community card).
        """
        rules = view.rules
        hand = view.hand
        assert hand
        ranking = rules.ranking
        if rules.community_card:
            key = tuple(sorted(hand))
            high = community_strength(ranking, False)[key]
            low = community_strength(ranking, True)[key] if rules.hi_lo else 0.0
        else:
            high = hand_percentile(hand, ranking)
            low = 1.0 - high
        threshold = self.threshold(view._replace(pot=view.pot // 2) if rules.hi_lo else view)
        if rules.ghost_hand:
            threshold = max(threshold + 0.01, view.owed / max(1, view.pot + view.owed) + 0.05)
        if rules.losers_pay == "worst":
            threshold -= 0.05 * min(3, view.opponents)
        if not rules.hi_lo:
            return Declaration.IN if high >= threshold else Declaration.OUT
        if high >= threshold + 0.05 and low >= threshold + 0.05:
            return Declaration.BOTH
        if high >= threshold and high >= low:
            return Declaration.HIGH
        if low >= threshold:
            return Declaration.LOW
        return Declaration.OUT

    def pass_card(self, view: SeatView, rng: random.Random) -> Card:
        """Pass the Trash: see :func:`default_pass`."""
        return default_pass(view)


if isinstance(_rule_of_thumb.declare, types.FunctionType):
    # the pure package: the function is the method itself (one Python call fewer a
    # declaration); compiled, it is a builtin function, which does not bind to the bot,
    # and the method calls it
    RuleOfThumbBot.declare = _rule_of_thumb.declare  # type: ignore[method-assign]


def default_pass(view: SeatView) -> Card:
    """The card whose loss hurts least: for each card of the hand, the expected percentile
    of the rest plus a random unseen card (the one received), high or (under hi-lo) low,
    whichever is better; pass the card that leaves the best expectation.

    >>> from gutskit.core.cards import parse_cards, card_name
    >>> from gutskit.core.engine import new_session, deal
    >>> from gutskit.core.rules import Rules
    >>> from gutskit.core.views import view_for
    >>> state = new_session(["A", "B"], 10, rules=Rules(pass_the_trash=True))
    >>> state, _ = deal(state, [parse_cards("Kh Ks 2c"), parse_cards("7d 8d 9c")])
    >>> card_name(default_pass(view_for(state, 0)))
    '2c'
    """
    hand = view.hand
    assert hand
    ranking = view.rules.ranking
    pct = percentile_by_index(ranking)
    unseen = [c for c in DECK if c not in hand]
    best_card = hand[0]
    best_value = -1.0
    for card in hand:
        kept = [c for c in hand if c != card]
        base = 0
        for c in kept:
            base = base * 52 + c
        values = [pct[base * 52 + r] for r in unseen if r != card]
        mean = sum(values) / len(values)
        value = max(mean, 1.0 - mean) if view.rules.hi_lo else mean
        if value > best_value:
            best_card, best_value = card, value
    return best_card


def choose_pass(strategy: Strategy, view: SeatView, rng: random.Random) -> Card:
    """The card ``strategy`` passes: its ``pass_card`` if it has one, else
    :func:`default_pass`."""
    chooser = getattr(strategy, "pass_card", None)
    if chooser is None:
        return default_pass(view)
    card: Card = chooser(view, rng)
    return card


def bots_pass(state: GameState, strategies: Sequence[Strategy] | Mapping[int, Strategy],
              rng: random.Random) -> tuple[GameState, list[Event]]:
    """Pass the Trash for a table of bots: every seat dealt in chooses from its own view
    (:func:`choose_pass`), then the cards move at once (:func:`gutskit.core.engine.pass_all`).

    Args:
        strategies: the strategy of each seat (a sequence by seat, or seat -> strategy).
    """
    passes = {seat: choose_pass(strategies[seat], view, rng)
              for seat, view in joint_views(state).items()}
    return pass_all(state, passes)


def bot_action(strategy: Strategy, state: GameState, seat: int, rng: random.Random
               ) -> PassCard | Declare:
    """What ``strategy`` in ``seat`` does now, chosen from the seat's own view among its
    legal actions (:func:`gutskit.core.table.legal_actions`); a choice the rules refuse
    becomes the table's default action (:func:`gutskit.core.table.default_action`).

    Raises:
        IllegalActionError: ``seat`` has nothing to decide now.
    """
    view = view_for(state, seat)
    if state.phase is Phase.PASS:
        card = choose_pass(strategy, view, rng)
        if table.can_pass_card(state, seat, card) is None:
            return PassCard(seat, card)
        return table.default_action(state, seat)
    choice = strategy.declare(view, rng)
    if table.can_declare(state, seat, choice) is None:
        return Declare(seat, choice)
    return table.default_action(state, seat)


def bots_act(state: GameState, strategies: Sequence[Strategy] | Mapping[int, Strategy],
             rng: random.Random) -> tuple[GameState, list[Event]]:
    """Let the bots the table waits for act (:func:`gutskit.core.table.waiting_for`), each
    from its own view, until the table waits for a seat without a bot, or for nobody (the
    round resolved). When every seat dealt in is a bot and the choice is simultaneous, the
    choices are one joint action (:func:`gutskit.core.table.pass_all` /
    :func:`gutskit.core.table.declare_all`).

    Args:
        strategies: the strategy of each seat (a sequence by seat: every seat a bot), or
            seat -> strategy for the seats that are bots.
    """
    events: list[Event] = []
    bots = strategies if isinstance(strategies, Mapping) else dict(enumerate(strategies))
    while state.phase is Phase.PASS or state.phase is Phase.DECLARE:
        waiting = table.waiting_for(state)
        mine = [s for s in waiting if s in bots]
        if not mine:
            break
        dealt = state.dealt
        if len(mine) == len(dealt) and len(mine) > 1:  # everyone at once: a joint action
            views = joint_views(state)
            if state.phase is Phase.PASS:
                passes = {}
                for seat, view in views.items():
                    card = choose_pass(bots[seat], view, rng)
                    if table.can_pass_card(state, seat, card) is not None:
                        fallback = table.default_action(state, seat)
                        assert isinstance(fallback, PassCard)
                        card = fallback.card
                    passes[seat] = card
                state, more = table.pass_all(state, passes)
            else:
                calls = {}
                for seat, view in views.items():
                    call = bots[seat].declare(view, rng)
                    if call is not Declaration.OUT and table.can_declare(
                            state, seat, call) is not None:
                        call = Declaration.OUT
                    calls[seat] = call
                state, more = table.declare_all(state, calls)
        else:
            state, more = table.apply_action(state, bot_action(bots[mine[0]], state,
                                                               mine[0], rng))
        events.extend(more)
    return state, events


@cache
def blind_in_probability(opponents: int, pot: int, owed: int, *, ghost: bool = False,
                         worst: bool = False) -> float:
    """No Peek: the probability of going in at which going in breaks even when each of the
    ``opponents`` goes in with the same probability (a symmetric mixed strategy).

    With ``j`` others in, every hand is equally likely to be best: win ``pot / (j + 1)``,
    otherwise match ``owed`` (under ``worst`` only when worst, also ``1 / (j + 1)``); a lone
    player wins uncontested, except against a ghost hand, which counts as one more hand.

    >>> blind_in_probability(1, 10, 10)  # heads-up: in always (in-in breaks even)
    1.0
    >>> round(blind_in_probability(4, 10, 10), 3)
    0.356
    """
    def gain(j: int) -> float:
        hands = j + 1 + ghost
        if hands == 1:
            return float(pot)
        lose = 1 / hands if worst else (hands - 1) / hands
        return pot / hands - owed * lose

    def expected(p: float) -> float:
        return sum(math.comb(opponents, j) * p**j * (1 - p) ** (opponents - j) * gain(j)
                   for j in range(opponents + 1))

    if expected(1.0) >= 0:
        return 1.0
    if expected(0.0) <= 0:
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(40):
        mid = (lo + hi) / 2
        if expected(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@cache
def community_keys(ranking: Ranking, low: bool = False) -> npt.NDArray[np.int64]:
    """Monte Carlo Guts: the sorted strength keys of the best (``low``: lowest) hand of
    ``cards_per_hand`` cards in every set of ``cards_per_hand + 1`` cards, i.e. what a
    random opponent makes with the community card (computed once, with numpy)."""
    import numpy as np

    k = ranking.cards_per_hand
    table = np.asarray(strength_table(ranking), dtype=np.int64)
    sets = np.array(list(itertools.combinations(range(52), k + 1)), dtype=np.int64)
    keys = []
    for drop in range(k + 1):
        cols = [c for c in range(k + 1) if c != drop]
        index = np.zeros(len(sets), dtype=np.int64)
        for col in cols:
            index = index * 52 + sets[:, col]
        keys.append(table[index])
    stacked = np.stack(keys)
    best = stacked.min(axis=0) if low else stacked.max(axis=0)
    return np.sort(best)


@cache
def community_strength(ranking: Ranking, low: bool = False) -> dict[tuple[Card, ...], float]:
    """Monte Carlo Guts: every hand (cards sorted) -> the share of all hands with a lower
    expected :func:`community_percentile` (ties count half): a percentile on the same scale
    as :func:`hand_percentile`, for the bots' thresholds. Computed once with numpy."""
    import numpy as np

    k = ranking.cards_per_hand
    table = np.asarray(strength_table(ranking), dtype=np.int64)
    ordered = community_keys(ranking, low)
    total = len(ordered)
    hands = np.array(list(itertools.combinations(range(52), k)), dtype=np.int64)
    cards = np.arange(52, dtype=np.int64)

    def code(cols: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        index = np.zeros(len(cols), dtype=np.int64)
        for j in range(cols.shape[1]):
            index = index * 52 + cols[:, j]
        return index

    options = [np.broadcast_to(table[code(hands)][:, None], (len(hands), 52))]
    for drop in range(k):
        rest = np.delete(hands, drop, axis=1)
        options.append(table[code(rest)[:, None] * 52 + cards[None, :]])
    stacked = np.stack(options)
    made = stacked.min(axis=0) if low else stacked.max(axis=0)
    below = np.searchsorted(ordered, made, side="left")
    above = np.searchsorted(ordered, made, side="right")
    beaten = (total - above) if low else below
    share = (beaten + (above - below) / 2) / total
    unseen = ~(hands[:, :, None] == cards[None, None, :]).any(axis=1)
    expected = (share * unseen).sum(axis=1) / unseen.sum(axis=1)
    order = np.sort(expected)
    rank = (np.searchsorted(order, expected, side="left")
            + np.searchsorted(order, expected, side="right")) / 2 / len(expected)
    return {tuple(int(c) for c in hand): float(r) for hand, r in zip(hands, rank, strict=True)}


def community_percentile(hand: Sequence[Card], ranking: Ranking, *, low: bool) -> float:
    """Monte Carlo Guts: the expected fraction of opponents' hands that ``hand`` beats
    (high, or under ``low`` for the low pot) once the community card is turned, averaged
    over the unseen cards (ties count half)."""
    import numpy as np

    table = strength_table(ranking)
    ordered = community_keys(ranking, low)
    total = len(ordered)
    k = ranking.cards_per_hand
    values = []
    for card in DECK:
        if card in hand:
            continue
        keys = []
        for combo in itertools.combinations((*hand, card), k):
            index = 0
            for c in combo:
                index = index * 52 + c
            keys.append(table[index])
        mine = min(keys) if low else max(keys)
        below = int(np.searchsorted(ordered, mine, side="left"))
        above = int(np.searchsorted(ordered, mine, side="right"))
        beaten = (total - above) if low else below
        values.append((beaten + (above - below) / 2) / total)
    return sum(values) / len(values)


@cache
def _rule_by_index(cards_per_hand: int) -> tuple[bool, ...]:
    """:func:`qualifies_by_rule_of_thumb` for every ordered hand, indexed like
    :func:`gutskit.core.evaluation.strength_table`."""
    table = [False] * (52**cards_per_hand)
    for combo in itertools.combinations(range(52), cards_per_hand):
        if qualifies_by_rule_of_thumb(combo, cards_per_hand):
            for perm in itertools.permutations(combo):
                index = 0
                for card in perm:
                    index = index * 52 + card
                table[index] = True
    return tuple(table)


@cache
def _rule_share_percentile(ranking: Ranking) -> float:
    """The percentile above which lie as many hands as the rule of thumb plays (3-card:
    17.8% of hands, so about 0.82; 2-card: 30 of 1,326 hands)."""
    combos = list(itertools.combinations(range(52), ranking.cards_per_hand))
    share = sum(qualifies_by_rule_of_thumb(c, ranking.cards_per_hand) for c in combos)
    return 1.0 - share / len(combos)


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
        """In with probability ``p_in`` (out when it cannot cover under require_cover);
        under hi-lo in for a random side (high, low or both)."""
        if view.rules.require_cover and view.stacks[view.seat] < view.owed:
            return Declaration.OUT
        if rng.random() >= self.p_in:
            return Declaration.OUT
        if view.rules.hi_lo:
            return rng.choice((Declaration.HIGH, Declaration.LOW, Declaration.BOTH))
        return Declaration.IN

    def pass_card(self, view: SeatView, rng: random.Random) -> Card:
        """Pass the Trash: a random card of the hand."""
        assert view.hand
        return rng.choice(view.hand)


STYLES: dict[str, float] = {"cautious": 0.04, "rule-of-thumb": 0.0, "loose": -0.08}
"""Named styles for :class:`RuleOfThumbBot`."""

BOT_NAMES = ("Ava", "Bruno", "Chen", "Dara", "Emil", "Fay", "Gus", "Hana", "Ivo", "Jun")


def bot_table(n: int, rng: random.Random | None = None) -> list[Strategy]:
    """``n`` rule-of-thumb bots with a realistic spread of styles (cautious, rule-of-thumb,
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
