"""The payoff model of the equilibrium solver: which parts of the house rules the in/out
payoffs depend on (:class:`GameModel`, built by :func:`game_model`), the two models
(``one_round``: the myopic one-round game; ``recursive``: a loss also costs the match that
grows the next pot) and :class:`SolverError`.

A module of its own so that :mod:`gutskit.strategy.odds` (which prices in vs out with the
same model) and :mod:`gutskit.strategy.solver` both import it and neither imports the
other back. Rules: RULES.md "Declaration", "Showdown", "Pot cap", "Variants".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gutskit.core.errors import GutsError
from gutskit.core.rules import Rules

__all__ = ["MODELS", "GameModel", "Model", "SolverError", "UnmodelledRule", "game_model"]

Model = Literal["one_round", "recursive"]
MODELS: tuple[Model, ...] = ("one_round", "recursive")


class SolverError(GutsError):
    """Settings the solver does not model, or bad arguments; the message names them."""


class UnmodelledRule(SolverError):
    """A house rule the solver does not model (``rule``: its name, e.g. ``"hi_lo"``), so
    that a command can say where the rule came from (``--preset hi-lo``)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


@dataclass(frozen=True)
class GameModel:
    """The parts of the rules the payoffs depend on, in units of the pot."""

    players: int
    model: Model
    all_out: str
    losers_pay: str
    ghost: bool
    match: float  # what a loser matches, as a fraction of the pot (pot cap)
    ante: float  # the ante as a fraction of the pot


def game_model(players: int, rules: Rules, model: Model, pot: int) -> GameModel:
    """The payoff-relevant part of ``rules`` for ``players`` at pot ``pot`` (chips).

    Raises:
        SolverError: a setting the solver does not model, or bad arguments.
    """
    if model not in MODELS:
        raise SolverError(f"model must be 'one_round' or 'recursive', not {model!r}")
    if not isinstance(players, int) or not 2 <= players <= 10:
        raise SolverError(f"players must be 2..10, not {players!r}")
    if not isinstance(pot, int) or pot < 1:
        raise SolverError(f"pot must be a positive number of chips, not {pot!r}")
    if rules.declaration == "sequential":
        raise UnmodelledRule("declaration", "declaration = 'sequential' is not modelled (the "
                             "solver models simultaneous declaration)")
    for name in ("community_card", "pass_the_trash", "hi_lo", "no_peek"):
        if getattr(rules, name, False):
            raise UnmodelledRule(name, f"{name} is not modelled by the solver")
    if rules.pot_cap is not None and rules.pot_cap_mode == "reserve":
        raise UnmodelledRule("pot_cap_mode",
                             "pot_cap_mode = 'reserve' is not modelled (use 'match')")
    losers_pay = str(getattr(rules, "losers_pay", "all"))
    ghost = bool(getattr(rules, "ghost_hand", False))
    if ghost and losers_pay == "worst":
        raise SolverError("ghost_hand with losers_pay = 'worst' is not modelled")
    if ghost and (players + 1) * rules.cards_per_hand > 52:
        raise SolverError(f"{players} players and a ghost hand need more than 52 cards")
    match = 1.0 if rules.pot_cap is None else min(pot, rules.pot_cap) / pot
    return GameModel(players=players, model=model, all_out=rules.all_out,
                 losers_pay=losers_pay, ghost=ghost, match=match,
                 ante=rules.ante / pot)
