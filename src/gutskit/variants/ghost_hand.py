"""Kitty / ghost hand (``ghost_hand``; Estonian seed, RULES.md "Variants").

One extra hand is dealt to nobody, after the players' hands, and shown at the showdown. To
take the pot a player must beat it strictly, so a lone player in must beat it too (no
uncontested win). If the ghost is best, nobody takes the pot and everyone in matches.
"""

from __future__ import annotations

from collections.abc import Sequence

from gutskit.core.rules import Rules
from gutskit.variants.base import Resolution, RoundState, Score, Variant


class GhostHand(Variant):
    """The ghost hand: dealt with the hands, beaten strictly or it wins."""

    name = "ghost hand"
    uncontested_win = False
    pot_may_stay = True

    @classmethod
    def applies(cls, rules: Rules) -> bool:
        """``ghost_hand = true``."""
        return rules.ghost_hand

    def extra_cards(self) -> tuple[tuple[str, int], ...]:
        """One hand of ``cards_per_hand`` cards, after the players' hands."""
        return (("ghost", self.rules.cards_per_hand),)

    def missing_cards(self, state: RoundState, in_seats: Sequence[int],
                      compared: bool) -> str | None:
        """The ghost is needed whenever someone is in."""
        if in_seats and state.ghost == ():
            return "the ghost hand is needed for the showdown, but it was not recorded"
        return None

    def winners(self, state: RoundState, keys: dict[int, int], score: Score,
                result: Resolution) -> tuple[int, ...] | None:
        """Nobody (``()``) when the ghost ties or beats the best hand in; otherwise the
        standard winners. The ghost is shown (``RoundResolved.ghost``)."""
        ghost = state.ghost
        assert ghost
        result.ghost = ghost
        result.ghost_won = score(ghost, False) >= max(keys.values())  # a tie is a loss
        return () if result.ghost_won else None

    def winners_named(self, state: RoundState, winners: tuple[int, ...],
                      result: Resolution) -> None:
        """Companion mode: no named winner means the ghost hand was best (shown as entered,
        ``()`` when it was not)."""
        result.ghost = state.ghost
        result.ghost_won = not winners
