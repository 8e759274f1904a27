"""gutskit: the Guts poker system.

The rules engine is pure (:mod:`gutskit.core.engine`); cards (:mod:`gutskit.core.cards`), hand
evaluation (:mod:`gutskit.core.evaluation`) and house rules (:mod:`gutskit.core.rules`) are small
value types. Everything else (CLI, referee, bots, storage) calls the engine.
"""

from gutskit.core.cards import CardError, format_cards, parse_card, parse_cards
from gutskit.core.evaluation import Category, HandValue, Ranking, compare, evaluate
from gutskit.core.rules import Rules, RulesError, load_rules, preset

__version__ = "0.1.0"

__all__ = [
    "CardError",
    "Category",
    "HandValue",
    "Ranking",
    "Rules",
    "RulesError",
    "__version__",
    "compare",
    "evaluate",
    "format_cards",
    "load_rules",
    "parse_card",
    "parse_cards",
    "preset",
]
