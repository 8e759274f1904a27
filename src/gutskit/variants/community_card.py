"""Monte Carlo Guts (``community_card``; German/French seed, RULES.md "Variants").

One community card is dealt face down after the hands (and the ghost hand) and turned at
every resolution; players (and the ghost) play their best ``cards_per_hand`` cards of their
own plus it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from gutskit.core.events import Hand
from gutskit.core.rules import Rules
from gutskit.variants.base import Resolution, RoundState, Score, Variant


def best_key(table: Sequence[int], hand: Hand, community: Hand, k: int, low: bool) -> int:
    """The strength key (``table``: :func:`gutskit.core.evaluation.strength_table`) of the
    best (``low``: the lowest) hand of ``k`` cards made from ``hand`` plus ``community``."""
    keys = []
    for combo in itertools.combinations((*hand, *community), k):
        index = 0
        for card in combo:
            index = index * 52 + card
        keys.append(table[index])
    return min(keys) if low else max(keys)


class CommunityCard(Variant):
    """The community card: one more card for every hand, turned at the resolution."""

    name = "Monte Carlo (community card)"

    @classmethod
    def applies(cls, rules: Rules) -> bool:
        """``community_card = true``."""
        return rules.community_card

    def extra_cards(self) -> tuple[tuple[str, int], ...]:
        """One card, after the hands and the ghost hand."""
        return (("community", 1),)

    def missing_cards(self, state: RoundState, in_seats: Sequence[int],
                      compared: bool) -> str | None:
        """The community card is needed whenever hands are compared."""
        if compared and state.community == ():
            return "the community card is needed to settle the round, but it was not recorded"
        return None

    def score(self, state: RoundState, table: Sequence[int]) -> Score:
        """A hand's key is the key of its best ``cards_per_hand`` cards of own + community."""
        community = state.community or ()
        k = self.rules.cards_per_hand

        def key(hand: Hand, low: bool) -> int:
            assert hand
            return best_key(table, hand, community, k, low)

        return key

    def turn(self, state: RoundState, result: Resolution) -> None:
        """The community card is turned at every resolution (``RoundResolved.community``)."""
        result.community = state.community
