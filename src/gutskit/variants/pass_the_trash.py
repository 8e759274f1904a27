"""Pass the Trash (``pass_the_trash``; German/French seed, RULES.md "Variants").

After looking, every player dealt in passes one card, chosen in secret, to the next player
dealt in on their left, all at once; then the declarations. Which card a bot passes is a
strategy (:func:`gutskit.strategy.bots.default_pass`); who passes to whom and how the hands
change are here.
"""

from __future__ import annotations

from collections.abc import Sequence

from gutskit.core.cards import Card
from gutskit.core.events import Hand
from gutskit.core.rules import Rules
from gutskit.variants.base import Variant


class PassTheTrash(Variant):
    """A pass phase between the deal and the declarations."""

    name = "Pass the Trash"
    pass_phase = True

    @classmethod
    def applies(cls, rules: Rules) -> bool:
        """``pass_the_trash = true``."""
        return rules.pass_the_trash


def givers(hands: Sequence[Hand | None]) -> dict[int, int]:
    """Each seat dealt in -> the seat dealt in on its right, who passes to it (a card goes
    to the next seat dealt in clockwise); empty with fewer than two seats dealt in."""
    dealt = [s for s, h in enumerate(hands) if h is not None]
    return {seat: dealt[i - 1] for i, seat in enumerate(dealt)} if len(dealt) > 1 else {}


def exchange(hands: Sequence[Hand | None], passes: Sequence[Card | None]
             ) -> tuple[Hand | None, ...]:
    """The hands after every seat's passed card moved to its left neighbour: a receiver
    keeps its cards but the one it passed, and gets the card passed to it last. A hand not
    recorded (``()``, a referee's table) stays unrecorded."""
    after = list(hands)
    for receiver, giver in givers(hands).items():
        hand = hands[receiver]
        card = passes[giver]
        if hand and card is not None:
            after[receiver] = (*(c for c in hand if c != passes[receiver]), card)
    return tuple(after)
