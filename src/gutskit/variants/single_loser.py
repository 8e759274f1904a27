"""Single loser (``losers_pay = "worst"``; Estonian seed, RULES.md "Variants").

When several are in, only the worst hand among them matches the pot (tied worst hands all
match). Everyone antes every hand, except that the player(s) who matched skip the ante of
the next hand.
"""

from __future__ import annotations

from gutskit.core.rules import Rules
from gutskit.variants.base import RoundState, Variant


class SingleLoser(Variant):
    """Only the worst hand in matches; antes every hand but the last matchers'."""

    name = "single loser"
    antes_every_hand = True

    @classmethod
    def applies(cls, rules: Rules) -> bool:
        """``losers_pay = "worst"``."""
        return rules.losers_pay == "worst"

    def antes(self, state: RoundState, amounts: tuple[int, ...]) -> tuple[int, ...]:
        """The previous hand's matchers skip this ante."""
        last = state.last_result
        if last is None:
            return amounts
        skip = last.matched
        return tuple(0 if skip[s] else a for s, a in enumerate(amounts))

    def losers(self, state: RoundState, keys: dict[int, int],
               winners: tuple[int, ...]) -> list[int]:
        """The worst hand(s) in that did not win."""
        worst = min(keys.values())
        return [s for s in keys if keys[s] == worst and s not in winners]
