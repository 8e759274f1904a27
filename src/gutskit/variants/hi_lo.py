"""Hi-Lo Guts (``hi_lo``; German/French seed, RULES.md "Variants", docs/variants/hi-lo.md).

Players declare high, low, both or out. The pot splits in a high and a low half, the odd chip
to high (a side nobody declared gives its half to the other). A ``both`` player must win or
tie both ways, or loses both and is left out of the awards. Each side's losers match that
side's pot. A side left with no eligible winner gives its half to the other side's winners;
if neither side has one, the pot stays. Low is the reverse of the high order.
"""

from __future__ import annotations

from collections.abc import Sequence

from gutskit.core import settlement
from gutskit.core.events import Declaration
from gutskit.core.rules import Rules
from gutskit.variants.base import Resolution, RoundState, Score, Variant


class HiLo(Variant):
    """Two pots at once: high and low."""

    name = "hi-lo"
    pot_may_stay = True
    declarations = (Declaration.HIGH, Declaration.LOW, Declaration.BOTH, Declaration.OUT)

    @classmethod
    def applies(cls, rules: Rules) -> bool:
        """``hi_lo = true``."""
        return rules.hi_lo

    def showdown(self, state: RoundState, in_seats: Sequence[int], score: Score,
                 result: Resolution) -> bool:
        """The hi-lo showdown: fills the awards and the matches of both sides."""
        decls = state.declarations
        hands = state.hands
        high_side, low_side = sides(decls, in_seats)
        high_keys = {s: score(_hand(hands[s]), False) for s in high_side}
        low_keys = {s: score(_hand(hands[s]), True) for s in low_side}
        best_high = max(high_keys.values(), default=0)
        best_low = min(low_keys.values(), default=0)
        failed = {s for s in in_seats if decls[s] is Declaration.BOTH
                  and (high_keys[s] != best_high or low_keys[s] != best_low)}
        eligible_high = [s for s in high_side if s not in failed]
        eligible_low = [s for s in low_side if s not in failed]
        top = max((high_keys[s] for s in eligible_high), default=None)
        bottom = min((low_keys[s] for s in eligible_low), default=None)
        high_winners = tuple(s for s in eligible_high if high_keys[s] == top)
        low_winners = tuple(s for s in eligible_low if low_keys[s] == bottom)
        # which side each failed both lost (said in the result, RoundResolved.failed_*)
        result.failed_high = tuple(sorted(s for s in failed if high_keys[s] != best_high))
        result.failed_low = tuple(sorted(s for s in failed if low_keys[s] != best_low))
        return self.award(state, in_seats, high_winners, low_winners, result)

    def award(self, state: RoundState, in_seats: Sequence[int], winners: tuple[int, ...],
              low_winners: tuple[int, ...], result: Resolution) -> bool:
        """The two pots, once each side's winners are known (``winners``: the high side's):
        a side with no winner gives its half to the other; each side's losers match that
        side's pot."""
        rules = self.rules
        n = len(state.names)
        decls = state.declarations
        high_winners = winners
        high_side, low_side = sides(decls, in_seats)
        high_pot, low_pot = settlement.hi_lo_pots(state.pot, bool(high_side), bool(low_side))
        high_take, low_take = high_pot, low_pot
        if not high_winners:
            high_take, low_take = 0, high_pot + low_pot
        if not low_winners:
            high_take, low_take = high_take + low_take, 0
        carry = 0
        won = result.won
        for side_winners, take in ((high_winners, high_take), (low_winners, low_take)):
            if not side_winners:
                carry += take
                continue
            shares, rest = settlement.split_pot(take, side_winners, state.dealer, n, rules)
            carry += rest
            for seat, share in shares.items():
                won[seat] += share
        owed = result.owed
        high_match, low_match = side_matches(state.pot, rules, bool(high_side),
                                             bool(low_side))
        for seat in high_side:
            if seat not in high_winners:
                owed[seat] += high_match
        for seat in low_side:
            if seat not in low_winners:
                owed[seat] += low_match
        result.carry = carry
        result.winners = tuple(sorted({*high_winners, *low_winners}))
        result.high_winners, result.low_winners = high_winners, low_winners
        result.high_pot, result.low_pot = high_pot, low_pot
        return True

    def named_problem(self, state: RoundState, in_seats: Sequence[int],
                      winners: Sequence[int], low_winners: Sequence[int]) -> str | None:
        """Companion mode: the high winners declared high or both, the low winners low or
        both; a player who declared both wins both ways or neither; a side with a player
        who declared only that side has a winner."""
        decls = state.declarations
        names = state.names
        for side, seats, other in (("high", winners, Declaration.LOW),
                                   ("low", low_winners, Declaration.HIGH)):
            for seat in seats:
                if seat not in in_seats or decls[seat] is other:
                    return (f"{names[seat]!r} cannot win the {side} pot: they did not "
                            f"declare {side} or both")
            only = Declaration.HIGH if side == "high" else Declaration.LOW
            alone = [s for s in in_seats if decls[s] is only]
            if alone and not seats:
                return (f"the {side} pot needs a winner: {names[alone[0]]!r} declared "
                        f"{side}")
        for seat in in_seats:
            if decls[seat] is Declaration.BOTH and (seat in winners) != (seat in low_winners):
                return (f"{names[seat]!r} declared both: they win both ways or neither "
                        f"(a both player who does not win or tie both ways loses both)")
        return None


def sides(declarations: Sequence[Declaration | None], in_seats: Sequence[int]
          ) -> tuple[list[int], list[int]]:
    """The players in on each side (RULES.md Variants, Hi-Lo Guts): the high side is those
    who declared high or both, the low side those who declared low or both, each in the
    order of ``in_seats``.

    >>> sides([Declaration.HIGH, Declaration.BOTH, Declaration.LOW, Declaration.OUT], [0, 1, 2])
    ([0, 1], [1, 2])
    """
    high = [s for s in in_seats if declarations[s] is not Declaration.LOW]
    low = [s for s in in_seats if declarations[s] is not Declaration.HIGH]
    return high, low


def side_matches(pot: int, rules: Rules, has_high: bool, has_low: bool) -> tuple[int, int]:
    """What a loser of each side matches, ``(high, low)`` in chips: that side's pot
    (:func:`gutskit.core.settlement.hi_lo_pots`: split in two, the odd chip to high; a side
    nobody declared gives its half to the other), capped by ``pot_cap_mode = "match"``. A
    failed *both* loses both sides and matches both. RULES.md "Variants" (Hi-Lo Guts).

    >>> side_matches(9, Rules(hi_lo=True), True, True)
    (5, 4)
    >>> side_matches(9, Rules(hi_lo=True), True, False)
    (9, 0)
    """
    high_pot, low_pot = settlement.hi_lo_pots(pot, has_high, has_low)
    return settlement.match_amount(high_pot, rules), settlement.match_amount(low_pot, rules)


def _hand(hand: tuple[int, ...] | None) -> tuple[int, ...]:
    assert hand is not None
    return hand
