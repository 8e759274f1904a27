"""The one base class of every "bad input" error in gutskit.

Every error that means "the caller (a user, a file, a client) gave something gutskit cannot
accept" subclasses :class:`GutsError`, itself a :class:`ValueError`: the card parser's
:class:`~gutskit.core.cards.CardError`, the house rules' :class:`~gutskit.core.rules.RulesError`,
the engine's :class:`~gutskit.core.engine.IllegalActionError`, the referee's, the store's, the
solver's, the server's... The ``guts`` command line catches :class:`GutsError` (one line
``error: <message>`` on stderr, exit status 2) without importing the modules that raise them.

This module imports nothing, so any module may use it.
"""

from __future__ import annotations

__all__ = ["GutsError"]


class GutsError(ValueError):
    """Bad input to gutskit (a card, a rule, an action, a file, a setting); the message
    quotes the bad value. Subclasses name where it was found."""
