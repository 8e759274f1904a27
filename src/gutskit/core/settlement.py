"""The money rules of a round, as pure functions on integers (RULES.md "Antes, declaration,
resolution" and "Money, limits, ending").

Every function here takes chips as ``int`` and returns new amounts; nothing is mutated.
The engine (:mod:`gutskit.core.engine`) calls these and records the results as events.
"""

from __future__ import annotations

from collections.abc import Sequence

from gutskit.core.rules import Rules


def clockwise_from(start: int, n_seats: int) -> list[int]:
    """Seats clockwise starting *after* ``start``: ``start + 1, ..., start`` (mod n).

    >>> clockwise_from(2, 4)
    [3, 0, 1, 2]
    """
    return [(start + i) % n_seats for i in range(1, n_seats + 1)]


def ante_amount(stack: int, rules: Rules) -> int:
    """Chips a player with ``stack`` puts in as ante.

    The full ante, except that a player with fewer chips than the ante pays what they have
    (``shortfall = "debt"``: always the full ante, the stack may go negative).
    """
    return ante_amounts((stack,), (True,), rules)[0]


def all_at_least(values: Sequence[int], floor: int) -> bool:
    """Whether every one of ``values`` (chips) is at least ``floor`` (``True`` for none):
    ``min(values) >= floor`` for a non-empty sequence, without ``min``, which in Python
    3.11 parses its keyword arguments on every call (about 1,300 instructions; this loop
    over a table's seats costs less, compiled or not).

    >>> all_at_least((3, 1, 2), 1), all_at_least((3, 0, 2), 1)
    (True, False)
    """
    for value in values:  # noqa: SIM110 (a generator for ``all`` costs more, pure)
        if value < floor:
            return False
    return True


def ante_amounts(stacks: Sequence[int], antes: Sequence[bool], rules: Rules
                 ) -> tuple[int, ...]:
    """:func:`ante_amount` for every seat: the ante of each seat whose ``antes[seat]`` is
    true (a seat in play), 0 for the others.

    >>> ante_amounts([5, 0, 1], [True, False, True], Rules(ante=2))
    (2, 0, 1)
    """
    ante = rules.ante
    if stacks and all_at_least(stacks, ante) and all(antes):
        return (ante,) * len(stacks)  # the usual case: every seat pays the full ante
    if rules.shortfall == "debt":
        return tuple([ante if due else 0 for due in antes])
    return tuple([(ante if stack >= ante else max(stack, 0)) if due else 0
                  for stack, due in zip(stacks, antes, strict=True)])


def reserve_refill(pot: int, reserve: int, rules: Rules) -> int:
    """Chips moved from the reserve into an empty pot when a new game starts.

    ``pot_cap_mode = "reserve"`` (Estonian seed): the reserve refills the pot up to the cap
    before the antes; otherwise nothing moves.
    """
    if rules.pot_cap is None or rules.pot_cap_mode != "reserve" or pot != 0:
        return 0
    return min(reserve, rules.pot_cap)


def match_amount(pot: int, rules: Rules) -> int:
    """What a losing player owes: the pot, or the cap when ``pot_cap_mode = "match"`` and
    the pot is above it (the seeds' per-round stake limit).

    >>> match_amount(80, Rules(pot_cap=50))
    50
    >>> match_amount(80, Rules(pot_cap=50, pot_cap_mode="reserve"))
    80
    """
    if rules.pot_cap is not None and rules.pot_cap_mode == "match":
        return min(pot, rules.pot_cap)
    return pot


def can_cover(stack: int, pot: int, rules: Rules) -> bool:
    """``require_cover``: may a player with ``stack`` declare in against ``pot``?"""
    return not rules.require_cover or stack >= match_amount(pot, rules)


def split_pot(pot: int, winners: Sequence[int], dealer: int, n_seats: int,
              rules: Rules) -> tuple[dict[int, int], int]:
    """Split ``pot`` evenly among ``winners`` (seat indices).

    Returns:
        ``(shares, carry)``: chips per winning seat and the remainder that stays in the pot.
        With ``odd_chip = "first_left_of_dealer"`` the remainder goes to the first tied
        winner clockwise from the dealer instead (RULES.md ``odd_chip``; the Indonesian
        seed's "flavor" is the default carry).

    >>> split_pot(25, [1, 3], 0, 4, Rules())
    ({1: 12, 3: 12}, 1)
    >>> split_pot(25, [1, 3], 2, 4, Rules(odd_chip="first_left_of_dealer"))
    ({1: 12, 3: 13}, 0)
    """
    share, remainder = divmod(pot, len(winners))
    shares = dict.fromkeys(winners, share)
    if remainder and rules.odd_chip == "first_left_of_dealer":
        first = next(s for s in clockwise_from(dealer, n_seats) if s in shares)
        shares[first] += remainder
        remainder = 0
    return shares, remainder


def pay_match(stack: int, owed: int, rules: Rules) -> tuple[int, bool]:
    """What a loser who owes ``owed`` pays, and whether they are eliminated (``shortfall``).

    * ``eliminate``: a player who cannot pay in full pays nothing and leaves the session,
      keeping their chips (German/French seed);
    * ``table_stakes``: pays all they have, at most ``owed``, and stays;
    * ``debt``: pays ``owed`` in full; the stack may go negative (an IOU).

    >>> pay_match(5, 8, Rules())
    (0, True)
    >>> pay_match(5, 8, Rules(shortfall="table_stakes"))
    (5, False)
    >>> pay_match(5, 8, Rules(shortfall="debt"))
    (8, False)
    """
    if stack >= owed or rules.shortfall == "debt":
        return owed, False
    if rules.shortfall == "table_stakes":
        return max(stack, 0), False
    return 0, True


def cap_pot(pot: int, rules: Rules) -> tuple[int, int]:
    """Apply ``pot_cap_mode = "reserve"``: ``(pot kept, excess moved to the reserve)``.

    >>> cap_pot(75, Rules(pot_cap=50, pot_cap_mode="reserve"))
    (50, 25)
    """
    if rules.pot_cap is None or rules.pot_cap_mode != "reserve" or pot <= rules.pot_cap:
        return pot, 0
    return rules.pot_cap, pot - rules.pot_cap


def share_evenly(amount: int, seats: Sequence[int], dealer: int, n_seats: int) -> dict[int, int]:
    """Share ``amount`` evenly among ``seats``; odd chips one each clockwise from the
    dealer's left (used for the reserve at session end and shared costs).

    >>> share_evenly(7, [0, 1, 2], 0, 3)
    {0: 2, 1: 3, 2: 2}
    """
    if not seats:
        return {}
    base, extra = divmod(amount, len(seats))
    shares = dict.fromkeys(seats, base)
    for seat in [s for s in clockwise_from(dealer, n_seats) if s in shares][:extra]:
        shares[seat] += 1
    return shares


def hi_lo_pots(pot: int, has_high: bool, has_low: bool) -> tuple[int, int]:
    """Hi-Lo Guts: ``(high pot, low pot)``. The pot is split in two, the odd chip to the high
    side; a side nobody declared gives its half to the other (gutskit's choice, the usual
    declare-game practice; docs/variants/hi-lo.md).

    >>> hi_lo_pots(9, True, True), hi_lo_pots(9, True, False), hi_lo_pots(9, False, True)
    ((5, 4), (9, 0), (0, 9))
    """
    if has_high and has_low:
        low = pot // 2
        return pot - low, low
    return (pot, 0) if has_high else (0, pot)


def ante_penalty(ante_total: int, payers: Sequence[int], stacks: Sequence[int], dealer: int,
                 rules: Rules) -> tuple[int, ...]:
    """``all_out = "best_pays_antes"`` (Estonian seed): what each seat pays towards the
    re-deal's antes, ``ante_total`` = the ante of every player in play. Tied best hands
    share it evenly, odd chips one each clockwise from the dealer's left; a payer with too
    few chips pays what they have (under ``debt``: in full).

    >>> ante_penalty(5, [1, 3], [20, 20, 20, 20], 0, Rules())
    (0, 3, 0, 2)
    """
    shares = share_evenly(ante_total, payers, dealer, len(stacks))
    return tuple(
        0 if s not in shares
        else shares[s] if rules.shortfall == "debt" else min(shares[s], max(stacks[s], 0))
        for s in range(len(stacks)))
