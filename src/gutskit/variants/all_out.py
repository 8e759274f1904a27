"""All-out penalty (``all_out = "best_pays_antes"``; Estonian seed, RULES.md "Variants").

When everyone declares out, every hand is shown and the player holding the best hand pays
every player's ante for the re-deal, their own included; tied best hands share that cost
evenly, odd chips from the dealer's left (:func:`gutskit.core.settlement.ante_penalty`).
The other ``all_out`` choices (``reante``, ``carry``) are the standard game's.
"""

from __future__ import annotations

from collections.abc import Sequence

from gutskit.core import settlement
from gutskit.core.rules import Rules
from gutskit.variants.base import Resolution, RoundState, Score, Variant


class AllOutPenalty(Variant):
    """Nobody in: the best hand pays the re-deal's antes."""

    name = "all-out penalty"

    @classmethod
    def applies(cls, rules: Rules) -> bool:
        """``all_out = "best_pays_antes"``."""
        return rules.all_out == "best_pays_antes"

    def missing_cards(self, state: RoundState, in_seats: Sequence[int],
                      compared: bool) -> str | None:
        """Every hand is needed when everyone is out."""
        if in_seats:
            return None
        for seat, hand in enumerate(state.hands):
            if hand == ():
                return (f"everyone is out under all_out = \"best_pays_antes\": the best hand "
                        f"pays the antes, so the hand of {state.names[seat]!r} is needed")
        return None

    def on_void(self, state: RoundState, score: Score, result: Resolution) -> None:
        """Every hand is shown; the best hand(s) become ``ante_payers``."""
        hands = state.hands
        keys = {s: score(h, False) for s, h in enumerate(hands) if h is not None}
        best = max(keys.values())
        result.ante_payers = tuple(s for s in keys if keys[s] == best)
        for seat in keys:
            result.shown[seat] = hands[seat]

    def antes(self, state: RoundState, amounts: tuple[int, ...]) -> tuple[int, ...]:
        """After a void round the ante payers pay everyone's ante."""
        if not state.ante_payers:
            return amounts
        rules = self.rules
        return settlement.ante_penalty(rules.ante * len(state.seats_in_play),
                                       state.ante_payers, state.stacks, state.dealer, rules)
