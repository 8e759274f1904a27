"""Pass the Trash (``pass_the_trash``; German/French seed, RULES.md "Variants").

After looking, every player dealt in passes one card, chosen in secret, to the next player
dealt in on their left, all at once; then the declarations. Who passes to whom, how the
hands change and what a seat that does not choose passes (:func:`silent_pass`) are here;
which card a bot chooses is a strategy (:func:`gutskit.strategy.bots.default_pass`).
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


def silent_pass(hand: Hand) -> Card:
    """The card a seat that does not choose passes (its decision timer ran out, it was
    kicked): its lowest card, the lowest rank, clubs first among equal ranks (card codes:
    :mod:`gutskit.core.cards`).

    >>> from gutskit.core.cards import card_name, parse_cards
    >>> card_name(silent_pass(tuple(parse_cards("Kh 2s 2c"))))
    '2c'
    """
    return min(hand)


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
