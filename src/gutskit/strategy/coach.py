"""The coach: what the equilibrium does with a seat's hand, and the expected value behind it.

:func:`advice` is the one place the terminal coach (``guts play --coach``) asks. It reads
only the seat's own :class:`~gutskit.core.views.SeatView` (its cards, the pot, how many
players are dealt in) and answers:

* **what the equilibrium does with this hand**: its in-probability. Where a stored
  per-hand solution applies (:func:`gutskit.strategy.certify.stored_strategy` with
  ``sampled=True``: 2 and 3 cards with 2 to 10 players, certified rules, the default
  ranking; exact or sampled; nothing is solved on the spot), the per-hand strategy;
  otherwise the symmetric threshold equilibrium of
  :func:`gutskit.strategy.solver.equilibrium`.
  :class:`gutskit.strategy.strategies.EquilibriumBot` plays the stored exact cells with 2
  and 3 players dealt in, the threshold equilibrium elsewhere;
* **the EV of in vs out**: chips that going in gains over staying out at this pot when
  everyone else plays that strategy, in the recursive game (the pot carries on; RULES.md
  "Strategy notes"), from :func:`gutskit.strategy.odds.odds`: exact joint card removal
  where feasible, else a seeded Monte Carlo estimate with its standard error.

>>> from gutskit.core.cards import parse_cards
>>> from gutskit.core.rules import Rules
>>> a = advise_hand(parse_cards("As Ah"), players=2, pot=2, rules=Rules(cards_per_hand=2))
>>> a.in_probability, a.exact, a.ev > 0
(1.0, True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gutskit.core.cards import Card, pretty_cards
from gutskit.core.errors import GutsError
from gutskit.core.evaluation import evaluate
from gutskit.core.rules import Rules
from gutskit.core.views import SeatView
from gutskit.strategy.odds import OpponentStrategy
from gutskit.strategy.tables import HandTable, hand_table

__all__ = ["COACH_DEALS", "Advice", "advice", "advise_hand", "cell_source",
           "equilibrium_strategy"]

COACH_DEALS = 20_000
"""Monte Carlo deals per coached hand beyond exact reach (the standard error is shown)."""


def cell_source(certified: str) -> str:
    """What a stored per-hand cell is, in words (its ``certified``: ``"exact"`` or
    ``"sampled"``; docs/strategy.md): an exact cell is a certified equilibrium; a sampled
    cell's in-probabilities are estimates (and its exploitability a lower-bound estimate),
    so it is not called certified. The words say nothing of the figures printed beside them
    (an expected value against the cell is exact or carries its own standard error).

    >>> cell_source("exact")
    'certified per-hand equilibrium'
    >>> cell_source("sampled")
    'per-hand equilibrium, sampled (an estimate, not certified)'
    """
    if certified == "exact":
        return "certified per-hand equilibrium"
    return "per-hand equilibrium, sampled (an estimate, not certified)"


@dataclass(frozen=True)
class _PerHand(OpponentStrategy):
    """A per-hand in-probability array (combination index) as an opponent strategy."""

    probabilities: npt.NDArray[np.float64]
    name: str = "per-hand equilibrium"

    def in_weights(self, table: HandTable) -> npt.NDArray[np.float64]:
        return np.asarray(self.probabilities, dtype=np.float64)


def _solver_rules(rules: Rules) -> Rules:
    if rules.declaration == "sequential":  # solved as sealed declarations
        return rules.replace(declaration="simultaneous")
    return rules


def equilibrium_strategy(cards_per_hand: int, players: int, rules: Rules, pot: int | None,
                         model: str = "recursive") -> tuple[OpponentStrategy, str]:
    """The equilibrium every seat plays, as an opponent strategy, and where it comes from
    (:func:`cell_source` of the stored cell where one applies, exact or sampled, the cell
    :class:`~gutskit.strategy.strategies.EquilibriumBot` plays, else ``"threshold equilibrium
    (in with ... or better)"``); ``pot`` matters only under pot-dependent rules (``None``:
    the opening pot).

    Raises:
        gutskit.strategy.solver.SolverError: rules the solver does not model.
    """
    from gutskit.strategy.solver import equilibrium

    rules = _solver_rules(rules)
    from gutskit.strategy.certify import stored_strategy

    cell = stored_strategy(cards_per_hand, players, model, rules, sampled=True)
    if cell is not None:
        source = cell_source(cell.certified)
        return _PerHand(np.asarray(cell.probabilities), name=source), source
    pot_dependent = (rules.pot_cap is not None or rules.all_out == "best_pays_antes"
                     or rules.losers_pay != "all")
    eq = equilibrium(cards_per_hand=cards_per_hand, players=players, rules=rules,
                     model=model,  # type: ignore[arg-type]
                     pot=pot if pot_dependent else None)
    return eq.strategy(), f"threshold equilibrium (in with {eq.threshold_description} or better)"


@dataclass(frozen=True)
class Advice:
    """What the coach says about one hand.

    Attributes:
        hand: the cards.
        description: the hand in words.
        players: players dealt in (the seat included).
        pot: the pot in chips.
        in_probability: the equilibrium's probability of *in* with this hand (``None``
            when there is no advice: :attr:`note` says why).
        source: which equilibrium (:func:`equilibrium_strategy`).
        ev: chips that *in* gains over *out* (recursive game), ``None`` if not computed.
        ev_se: its standard error (``None`` when exact).
        exact: whether :attr:`ev` is exact.
        note: why something is missing (``""`` otherwise).
    """

    hand: tuple[Card, ...]
    description: str
    players: int
    pot: int
    in_probability: float | None
    source: str
    ev: float | None
    ev_se: float | None
    exact: bool
    note: str = ""

    def line(self) -> str:
        """One line for the table, e.g. ``"Coach: the equilibrium goes in with A♠ A♥
        (Pair of aces; in-probability 1: always in with this hand); in minus out +1.939
        chips at pot 3 (exact) ..."``: the expected value says whether it is exact or
        ``± s.e.``, once."""
        if self.in_probability is None:
            return f"Coach: no advice here ({self.note})."
        p = self.in_probability
        action = ("goes in" if p >= 1.0 else "stays out" if p <= 0.0
                  else f"goes in {100 * p:.1f}% of the time")
        # the in-probability in words: 0 and 1 are pure (never, always in), else mixed
        how = ("in-probability 1: always in with this hand" if p >= 1.0
               else "in-probability 0: never in with this hand" if p <= 0.0
               else f"in-probability {p:.3f}: a mixed strategy")
        text = (f"Coach: the equilibrium {action} with {pretty_cards(self.hand)} "
                f"({self.description}; {how})")
        if self.ev is None:
            return f"{text}; no EV: {self.note}."
        err = "exact" if self.ev_se is None else f"± {self.ev_se:.3f} s.e."
        return (f"{text}; in minus out {self.ev:+.3f} chips at pot {self.pot} ({err}); "
                f"{self.source}.")


def advise_hand(hand: Sequence[Card], *, players: int, pot: int, rules: Rules,
                deals: int = COACH_DEALS) -> Advice:
    """:class:`Advice` for ``hand`` with ``players`` dealt in and ``pot`` chips in the pot.

    Rules the solver does not model give an :class:`Advice` without an in-probability, not
    an error.

    Raises:
        gutskit.core.cards.CardError: a bad hand.
    """
    from gutskit.strategy.odds import odds

    hand = tuple(hand)
    description = evaluate(hand, rules.ranking).description
    try:
        strategy, source = equilibrium_strategy(rules.cards_per_hand, players, rules, pot)
    except GutsError as exc:
        return Advice(hand, description, players, pot, None, "", None, None, False, str(exc))
    table = hand_table(rules.ranking)
    weights = strategy.in_weights(table)
    p = float(weights[table.index_of(hand)])
    result = odds(hand, players=players, rules=_solver_rules(rules), strategy=strategy,
                  pot=pot, deals=deals)
    ev = result.ev.get("recursive")
    ev_se = None if result.ev_se is None else result.ev_se.get("recursive")
    note = result.ev_note.removeprefix("no expected value: ")
    return Advice(hand, description, players, pot, p, source, ev, ev_se, result.exact, note)


def advice(view: SeatView, rules: Rules | None = None) -> Advice | None:
    """:class:`Advice` for the hand ``view`` shows (``None`` when the seat holds no hand
    it may look at: not dealt in, or No Peek).

    Args:
        view: the seat's own view (RULES.md: what a seat may know).
        rules: the house rules (default ``view.rules``).
    """
    if not view.hand:
        return None
    rules = rules if rules is not None else view.rules
    players = max(2, sum(view.dealt_in))
    return advise_hand(view.hand, players=players, pot=view.pot, rules=rules)
