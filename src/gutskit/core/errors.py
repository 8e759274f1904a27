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

__all__ = ["GutsError", "quoted"]


class GutsError(ValueError):
    """Bad input to gutskit (a card, a rule, an action, a file, a setting); the message
    quotes the bad value. Subclasses name where it was found."""


def quoted(text: str, limit: int = 60) -> str:
    """``text`` quoted as Python does (``'Xh'``), cut to ``limit`` characters (``'AAA…'``):
    how a message quotes what was typed, however long (a pasted 5000-character value does
    not fill the terminal).

    >>> quoted("Xh")
    "'Xh'"
    >>> quoted("ab" * 2500, limit=8)
    "'abababa…'"
    """
    return repr(text if len(text) <= limit else text[:limit - 1] + "…")
