"""gutskit: the Guts poker system.

The rules engine is pure (:mod:`gutskit.core.engine`); cards (:mod:`gutskit.core.cards`), hand
evaluation (:mod:`gutskit.core.evaluation`) and house rules (:mod:`gutskit.core.rules`) are small
value types. Everything else (CLI, referee, bots, storage) calls the engine.

The names below are loaded on first use (PEP 562), so that ``import gutskit.cli`` (the
``guts`` command) does not pay for the house-rules model before a command needs it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gutskit.core.cards import CardError, format_cards, parse_card, parse_cards
    from gutskit.core.errors import GutsError
    from gutskit.core.evaluation import Category, HandValue, Ranking, compare, evaluate
    from gutskit.core.rules import Rules, RulesError, preset
    from gutskit.io.files import load_rules

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "CardError": "gutskit.core.cards",
    "format_cards": "gutskit.core.cards",
    "parse_card": "gutskit.core.cards",
    "parse_cards": "gutskit.core.cards",
    "GutsError": "gutskit.core.errors",
    "Category": "gutskit.core.evaluation",
    "HandValue": "gutskit.core.evaluation",
    "Ranking": "gutskit.core.evaluation",
    "compare": "gutskit.core.evaluation",
    "evaluate": "gutskit.core.evaluation",
    "Rules": "gutskit.core.rules",
    "RulesError": "gutskit.core.rules",
    "load_rules": "gutskit.io.files",
    "preset": "gutskit.core.rules",
}

__all__ = [
    "CardError",
    "Category",
    "GutsError",
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


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use (then it is a plain attribute)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gutskit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
