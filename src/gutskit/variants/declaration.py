"""How players declare (RULES.md "Antes, declaration, resolution", step 3, house rule
``declaration``).

* ``simultaneous`` (the standard game): everyone decides in secret; all decisions are
  revealed at once. Nothing to override.
* ``sequential`` (Indonesian seed): starting left of the dealer and going clockwise, each
  player says in or out in turn and sees the earlier calls: :class:`SequentialDeclaration`.
* ``drop`` ("1-2-3 drop", Estonian seed): on the count, out players drop their cards;
  equivalent to simultaneous when enforced, so gutskit plays it as simultaneous (no hook).
  In companion mode the fists open on the count instead of with the last declaration
  (:func:`gutskit.core.engine.counted`, :func:`~gutskit.core.engine.open_fists`).
"""

from __future__ import annotations

from gutskit.core.rules import Rules
from gutskit.variants.base import Variant


class SequentialDeclaration(Variant):
    """Declarations in turn, clockwise from the dealer's left, each one public as made."""

    name = "sequential declaration"
    in_turn = True
    sealed = False

    @classmethod
    def applies(cls, rules: Rules) -> bool:
        """``declaration = "sequential"``."""
        return rules.declaration == "sequential"
