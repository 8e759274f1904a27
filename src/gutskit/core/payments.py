"""Who pays whom at the end of a session: the fewest transfers that settle every net.

A pure function on integers (RULES.md "Money, limits, ending": the ledger's nets, settled
after the session; under ``shortfall = "debt"`` a negative stack is an IOU settled the same
way). Each player's net is ``final stack - buy-ins``; the nets of a finished session add up
to zero (:func:`gutskit.core.engine.end_session` shares out the pot and the reserve first).

The number of transfers is the least possible: players are split into the largest number of
groups whose nets add up to zero (exact, by dynamic programming over subsets: fine for a
table of 10), and a group of ``k`` players settles in ``k - 1`` transfers, the largest
debtor paying the largest creditor first.

>>> for p in settle_up({"Ana": 30, "Ben": -10, "Cleo": -20, "Dev": 0}):
...     print(p.payer, "pays", p.payee, p.chips)
Cleo pays Ana 20
Ben pays Ana 10
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gutskit.core.errors import GutsError

__all__ = ["Payment", "SettleUpError", "settle_up"]

_EXACT_LIMIT = 16
"""Up to this many players with a non-zero net the grouping is exact (2**16 subsets)."""


class SettleUpError(GutsError):
    """Nets that cannot be settled (they do not add up to zero, or are not whole chips)."""


@dataclass(frozen=True, slots=True)
class Payment:
    """``payer`` gives ``chips`` (> 0) to ``payee``."""

    payer: str
    payee: str
    chips: int


def settle_up(nets: Mapping[str, int]) -> list[Payment]:
    """The fewest payments that bring every player's net to zero.

    Args:
        nets: player name -> net chips (won > 0, lost < 0); whole numbers adding up to 0.

    Returns:
        Payments, group by group (the group of the first player with a non-zero net
        first); within a group the largest debtor pays the largest creditor first (ties:
        in the order of ``nets``).

    Raises:
        SettleUpError: a net is not a whole number, or the nets do not add up to zero.

    >>> settle_up({"Ana": 5, "Ben": -5, "Cleo": 7, "Dev": -7})  # two pairs: 2 payments
    [Payment(payer='Ben', payee='Ana', chips=5), Payment(payer='Dev', payee='Cleo', chips=7)]
    >>> settle_up({"Ana": 1, "Ben": 0})
    Traceback (most recent call last):
    ...
    gutskit.core.payments.SettleUpError: the nets add up to 1, not 0: nothing can settle them
    """
    for name, net in nets.items():
        if isinstance(net, bool) or not isinstance(net, int):
            raise SettleUpError(f"net of {name!r} must be a whole number of chips, not {net!r}")
    total = sum(nets.values())
    if total:
        raise SettleUpError(f"the nets add up to {total}, not 0: nothing can settle them")
    players = [(name, net) for name, net in nets.items() if net]
    groups = [players] if len(players) > _EXACT_LIMIT else _zero_sum_groups(players)
    payments: list[Payment] = []
    for group in groups:
        payments.extend(_settle_group(group))
    return payments


def _zero_sum_groups(players: list[tuple[str, int]]) -> list[list[tuple[str, int]]]:
    """Split ``players`` into the most groups whose nets add up to zero."""
    n = len(players)
    full = (1 << n) - 1
    sums = [0] * (1 << n)
    for mask in range(1, 1 << n):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + players[low.bit_length() - 1][1]
    # best[mask]: the most zero-sum groups that the players of ``mask`` (a zero-sum set)
    # split into; built by peeling off a zero-sum subset holding the lowest player.
    best = [0] * (1 << n)
    choice = [0] * (1 << n)
    for mask in range(1, 1 << n):
        if sums[mask]:
            continue
        low = mask & -mask
        rest = mask ^ low
        sub = rest
        best[mask], choice[mask] = 1, mask
        while sub:
            part = sub | low
            if sums[part] == 0 and part != mask and best[mask ^ part] + 1 > best[mask]:
                best[mask], choice[mask] = best[mask ^ part] + 1, part
            sub = (sub - 1) & rest
    groups = []
    mask = full
    while mask:
        part = choice[mask]
        groups.append([players[i] for i in range(n) if part >> i & 1])
        mask ^= part
    return groups


def _settle_group(group: list[tuple[str, int]]) -> list[Payment]:
    """Settle one zero-sum group in at most ``len(group) - 1`` payments: the largest debtor
    pays the largest creditor (ties: in group order) until every net is zero."""
    order = {name: i for i, (name, _) in enumerate(group)}
    owed = {name: net for name, net in group}  # > 0: is owed chips; < 0: owes chips
    payments: list[Payment] = []
    while True:
        creditors = [n for n in owed if owed[n] > 0]
        debtors = [n for n in owed if owed[n] < 0]
        if not creditors or not debtors:
            return payments
        payee = min(creditors, key=lambda n: (-owed[n], order[n]))
        payer = min(debtors, key=lambda n: (owed[n], order[n]))
        chips = min(owed[payee], -owed[payer])
        payments.append(Payment(payer=payer, payee=payee, chips=chips))
        owed[payee] -= chips
        owed[payer] += chips
