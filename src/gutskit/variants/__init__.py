"""The variants (RULES.md "Variants"): one module per variant family, each the one place
where that rule lives, as a small :class:`~gutskit.variants.base.Variant` subclass.

=======================  ==========================================  ====================
module                   variant (house rule)                        hooks
=======================  ==========================================  ====================
:mod:`.ghost_hand`       Kitty / ghost hand (``ghost_hand``)         extra cards, no
                                                                     uncontested win,
                                                                     winners
:mod:`.community_card`   Monte Carlo (``community_card``)            extra card, score,
                                                                     turn
:mod:`.hi_lo`            Hi-Lo (``hi_lo``)                           declarations,
                                                                     showdown
:mod:`.single_loser`     Single loser (``losers_pay = "worst"``)     antes, losers
:mod:`.all_out`          All-out penalty                             antes, void round
                         (``all_out = "best_pays_antes"``)
:mod:`.pass_the_trash`   Pass the Trash (``pass_the_trash``)         pass phase, exchange
:mod:`.no_peek`          No Peek (``no_peek``)                       view of the own hand
:mod:`.declaration`      sequential declaration                      in turn, not sealed
                         (``declaration = "sequential"``; ``drop``
                         plays as simultaneous)
=======================  ==========================================  ====================

:func:`variants_for` composes the variants a rule set turns on into one
:class:`Variants`, the object the engine and the views ask.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from gutskit.core.evaluation import strength_table
from gutskit.core.events import Declaration, Hand
from gutskit.core.rules import Rules
from gutskit.variants.all_out import AllOutPenalty
from gutskit.variants.base import Resolution, RoundState, Score, Variant
from gutskit.variants.community_card import CommunityCard
from gutskit.variants.declaration import SequentialDeclaration
from gutskit.variants.ghost_hand import GhostHand
from gutskit.variants.hi_lo import HiLo
from gutskit.variants.no_peek import NoPeek
from gutskit.variants.pass_the_trash import PassTheTrash
from gutskit.variants.single_loser import SingleLoser

__all__ = [
    "FAMILIES",
    "AllOutPenalty",
    "CommunityCard",
    "GhostHand",
    "HiLo",
    "NoPeek",
    "PassTheTrash",
    "Resolution",
    "RoundState",
    "Score",
    "SequentialDeclaration",
    "SingleLoser",
    "Variant",
    "Variants",
    "variants_for",
]

FAMILIES: tuple[type[Variant], ...] = (GhostHand, CommunityCard, HiLo, SingleLoser,
                                       AllOutPenalty, PassTheTrash, NoPeek,
                                       SequentialDeclaration)
"""Every variant family, in the order their hooks run (the ghost hand is dealt before the
community card; a single loser's ante skip comes before the all-out penalty's payers)."""

STANDARD_DECLARATIONS = (Declaration.IN, Declaration.OUT)

_RESOLUTION_HOOKS = ("antes", "missing_cards", "score", "on_void", "showdown", "winners",
                     "losers", "turn", "extra_cards", "award", "winners_named")


def _overrides(variant: Variant, hook: str) -> bool:
    return getattr(type(variant), hook) is not getattr(Variant, hook)


class Variants:
    """The variants one rule set turns on, composed: what the engine and the views ask.

    Attributes:
        rules: the rule set.
        active: the variants it turns on, in :data:`FAMILIES` order.
        plain: no active variant changes the deal, the antes or the resolution (the
            engine's pipeline then skips the variant hooks).
        declarations: the declarations a player may make.
        antes_every_hand, pass_phase, uncontested_win, in_turn, sealed, hides_cards: see
            :class:`~gutskit.variants.base.Variant`.
        extra_cards: the cards dealt after the hands: ``(what, how many)`` in order.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.active = tuple(cls(rules) for cls in FAMILIES if cls.applies(rules))
        active = self.active
        self.plain = not any(_overrides(v, hook) for v in active for hook in _RESOLUTION_HOOKS)
        self.plain = self.plain and all(v.uncontested_win and not v.antes_every_hand
                                        for v in active)
        chosen = [v.declarations for v in active if v.declarations is not None]
        self.declarations: tuple[Declaration, ...] = (
            chosen[0] if chosen else STANDARD_DECLARATIONS)
        self.antes_every_hand = any(v.antes_every_hand for v in active)
        self.pass_phase = any(v.pass_phase for v in active)
        self.uncontested_win = all(v.uncontested_win for v in active)
        self.in_turn = any(v.in_turn for v in active)
        self.sealed = all(v.sealed for v in active)
        self.hides_cards = any(v.hides_cards for v in active)
        self.pot_may_stay = any(v.pot_may_stay for v in active)
        self.extra_cards = tuple(extra for v in active for extra in v.extra_cards())
        self._void = [v for v in active if _overrides(v, "on_void")]
        self._turn = [v for v in active if _overrides(v, "turn")]
        self._antes = [v for v in active if _overrides(v, "antes")]
        self._score = self._only("score")
        self._showdown = self._only("showdown")
        self._winners = self._only("winners")
        self._losers = self._only("losers")
        self._view = self._only("view_hand")
        self._award = self._only("award")
        self._named = [v for v in active if _overrides(v, "winners_named")]
        self._named_checks = [v for v in active if _overrides(v, "named_problem")]

    def _only(self, hook: str) -> Variant | None:
        """The one active variant that overrides ``hook`` (``None``: none does)."""
        owners = [v for v in self.active if _overrides(v, hook)]
        if len(owners) > 1:  # pragma: no cover - Rules refuses these combinations
            raise ValueError(f"{owners[0].name} and {owners[1].name} both change {hook}")
        return owners[0] if owners else None

    @cached_property
    def strength(self) -> tuple[int, ...]:
        """:func:`gutskit.core.evaluation.strength_table` of the rules' ranking (the table
        every hand of the round is scored from)."""
        return strength_table(self.rules.ranking)

    def cards_needed(self, n_players: int) -> int:
        """Cards one deal uses for ``n_players``: their hands and the extra cards (the
        ghost hand, the community card; passing moves cards, it uses none).

        >>> variants_for(Rules(ghost_hand=True, community_card=True)).cards_needed(10)
        34
        """
        return n_players * self.rules.cards_per_hand + sum(n for _, n in self.extra_cards)

    def deal_extras(self, deck: Sequence[int], used: int) -> tuple[dict[str, Hand], int]:
        """The extra cards dealt from ``deck`` after the ``used`` cards of the hands:
        ``({"ghost": hand, "community": hand}, cards used in all)``."""
        extras: dict[str, Hand] = {}
        for what, count in self.extra_cards:
            extras[what] = tuple(deck[used:used + count])
            used += count
        return extras, used

    def antes(self, state: RoundState, amounts: tuple[int, ...]) -> tuple[int, ...]:
        """Each seat's ante at this deal, given the standard ``amounts``."""
        for variant in self._antes:
            amounts = variant.antes(state, amounts)
        return amounts

    def missing_cards(self, state: RoundState, in_seats: Sequence[int]) -> str | None:
        """The first variant's reason the round cannot be settled from what was recorded,
        or ``None``: first the standard game's (a showdown compares the hands of everyone
        in, so none of them may be unrecorded, ``()``), then the variants'.

        >>> from gutskit.core.rules import Rules
        >>> class Round:  # the fields missing_cards reads
        ...     names, hands, ghost = ("Ana", "Ben"), ((0, 1, 2), ()), None
        >>> print(variants_for(Rules()).missing_cards(Round(), [0, 1]))  # doctest: +ELLIPSIS
        'Ben' is in, but their cards were not recorded: the showdown compares the hands ...
        >>> variants_for(Rules()).missing_cards(Round(), [1]) is None  # an uncontested win
        True
        """
        compared = self.compares_hands(in_seats)
        if compared:
            for seat in in_seats:
                if state.hands[seat] == ():
                    return (f"{state.names[seat]!r} is in, but their cards were not "
                            "recorded: the showdown compares the hands of everyone in")
        for variant in self.active:
            problem = variant.missing_cards(state, in_seats, compared)
            if problem is not None:
                return problem
        return None

    def compares_hands(self, in_seats: Sequence[int]) -> bool:
        """Whether the round compares hands: a showdown, or a void round a variant
        settles by the hands (the all-out penalty)."""
        if not in_seats:
            return bool(self._void)
        return len(in_seats) >= 2 or not self.uncontested_win

    def score(self, state: RoundState, table: Sequence[int]) -> Score:
        """How a hand is scored this round: the strength ``table`` or a variant's score."""
        if self._score is not None:
            score = self._score.score(state, table)
            if score is not None:
                return score

        def key(hand: Hand, low: bool) -> int:
            index = 0
            for card in hand:
                index = index * 52 + card
            return table[index]

        return key

    def on_void(self, state: RoundState, score: Score, result: Resolution) -> None:
        """A void round's variant settlement."""
        for variant in self._void:
            variant.on_void(state, score, result)

    def showdown(self, state: RoundState, in_seats: Sequence[int], score: Score,
                 result: Resolution) -> bool:
        """A variant's whole showdown (``True``) or ``False`` for the standard steps."""
        return self._showdown is not None and self._showdown.showdown(
            state, in_seats, score, result)

    def winners(self, state: RoundState, keys: dict[int, int], score: Score,
                result: Resolution) -> tuple[int, ...] | None:
        """A variant's winners, or ``None`` for the best key."""
        if self._winners is None:
            return None
        return self._winners.winners(state, keys, score, result)

    def losers(self, state: RoundState, keys: dict[int, int],
               winners: tuple[int, ...]) -> list[int] | None:
        """A variant's losers, or ``None`` for every seat in that did not win."""
        if self._losers is None:
            return None
        return self._losers.losers(state, keys, winners)

    @property
    def picks_losers(self) -> bool:
        """A variant says who matches (single loser: the worst hand), not "every player in
        who did not win"."""
        return self._losers is not None

    def named_problem(self, state: RoundState, in_seats: Sequence[int],
                      winners: Sequence[int], low_winners: Sequence[int]) -> str | None:
        """The first variant's reason the named winners cannot be this showdown's result
        (companion mode), or ``None``."""
        for variant in self._named_checks:
            problem = variant.named_problem(state, in_seats, winners, low_winners)
            if problem is not None:
                return problem
        return None

    def award(self, state: RoundState, in_seats: Sequence[int], winners: tuple[int, ...],
              low_winners: tuple[int, ...], result: Resolution) -> bool:
        """A variant's award to named winners (``True``: done; hi-lo), else ``False``."""
        return self._award is not None and self._award.award(
            state, in_seats, winners, low_winners, result)

    def winners_named(self, state: RoundState, winners: tuple[int, ...],
                      result: Resolution) -> None:
        """What the variants record when the table names the winners (the ghost hand)."""
        for variant in self._named:
            variant.winners_named(state, winners, result)

    def turn(self, state: RoundState, result: Resolution) -> None:
        """Cards turned face up at every resolution."""
        for variant in self._turn:
            variant.turn(state, result)

    def view_hand(self, hand: Hand) -> Hand:
        """What a seat sees of its own ``hand`` before the reveal."""
        return hand if self._view is None else self._view.view_hand(hand)


_CACHE: dict[int, Variants] = {}
"""Composed variants by ``id(rules)`` (hashing the rules costs more than the lookup); each
entry keeps its rules alive (``Variants.rules``), so an id is never reused while a key."""


def variants_for(rules: Rules) -> Variants:
    """The composed variants of ``rules`` (cached by identity).

    >>> [v.name for v in variants_for(Rules(hi_lo=True, community_card=True)).active]
    ['Monte Carlo (community card)', 'hi-lo']
    >>> [d.value for d in variants_for(Rules(hi_lo=True)).declarations]
    ['high', 'low', 'both', 'out']
    """
    found = _CACHE.get(id(rules))
    if found is None:
        if len(_CACHE) >= 256:  # many short-lived rules objects: start again
            _CACHE.clear()
        found = _CACHE[id(rules)] = Variants(rules)
    return found
