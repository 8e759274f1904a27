"""No Peek (``no_peek``; German/French seed, RULES.md "Variants").

Players declare without having seen their own cards: a seat's own hand is hidden (``()``,
"dealt, unseen") in its view until the reveal (:mod:`gutskit.core.views` asks
:meth:`NoPeek.view_hand`). Nothing else changes.
"""

from __future__ import annotations

from gutskit.core.events import Hand
from gutskit.core.rules import Rules
from gutskit.variants.base import Variant


class NoPeek(Variant):
    """Declare blind: the own cards stay unseen until the reveal."""

    name = "No Peek"
    hides_cards = True

    @classmethod
    def applies(cls, rules: Rules) -> bool:
        """``no_peek = true``."""
        return rules.no_peek

    def view_hand(self, hand: Hand) -> Hand:
        """Unseen: ``()``."""
        return ()
