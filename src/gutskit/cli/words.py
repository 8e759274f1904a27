"""Small English helpers for what the ``guts`` commands print: a count with its noun in
the right number (``1 session``, ``2 sessions``) and a verb that agrees with a player's
name (``Ava pays``, ``You pay``).

>>> count(1, "session"), count(3, "session"), count(0, "match", "matches")
('1 session', '3 sessions', '0 matches')
>>> verb("Ava", "pays", "pay"), verb("You", "pays", "pay")
('pays', 'pay')
"""

from __future__ import annotations

__all__ = ["YOU", "count", "verb"]

YOU = "You"
"""The name that takes the second-person verb (``guts play``'s default name)."""


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` in the right number (``plural`` default: ``noun + "s"``)."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def verb(name: str, third: str, second: str, *, you: bool = False) -> str:
    """The verb for ``name`` as the subject: ``second`` for "You" (or when ``you`` is set:
    the player we speak to), else ``third``."""
    return second if you or name == YOU else third
