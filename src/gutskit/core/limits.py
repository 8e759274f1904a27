"""What a person may type for a table, in one place: the largest chip amount and what a
player name may hold. Every front end asks here (``guts play`` / ``guts companion`` /
``guts sim`` ``--chips`` and ``--name``, the terminal companion's ``rebuy NAME CHIPS``);
none restates the bounds.

These are gutskit's sanity bounds, not rules of the game (RULES.md sets no upper limit on a
buy-in and says nothing of names): a bound on chips keeps every stack, pot and ledger far
inside the integers that every consumer holds exactly (a float, JavaScript's ``2**53``, a
fixed-width integer), and a name without control characters cannot rewrite the terminal or
the page it is shown on (an ANSI escape ``"\\x1b[2J"`` clears a screen).

This module imports nothing, so any module may use it (``guts --help`` reads the bounds).

>>> chips_problem(100) is None, chips_problem(0), chips_problem(MAX_CHIPS + 1)
(True, 'must be at least 1', 'must be at most 1000000')
>>> name_problem("Ana") is None, name_problem("\\x1b[31mAna"), name_problem(" ")
(True, 'has a control character', 'is empty')
"""

from __future__ import annotations

import unicodedata

__all__ = ["MAX_CHIPS", "MAX_NAME", "chips_problem", "has_control_character", "name_problem"]

MAX_CHIPS = 1_000_000
"""The largest chip amount a person may give: a buy-in or a rebuy (chips). Ten buy-ins and
a million rebuys of this size stay below ``2**53`` (JavaScript's exact integers)."""

MAX_NAME = 24
"""The longest player name, in characters (after stripping spaces at both ends)."""


def chips_problem(chips: int) -> str | None:
    """Why ``chips`` cannot be a buy-in or a rebuy (``"must be at most 1000000"``), or
    ``None`` when it is 1 to :data:`MAX_CHIPS`. The caller names the field and the value."""
    if chips < 1:
        return "must be at least 1"
    if chips > MAX_CHIPS:
        return f"must be at most {MAX_CHIPS}"
    return None


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a player's name, or ``None``: a name, stripped of spaces at
    both ends, is 1 to :data:`MAX_NAME` characters with no control, format, surrogate,
    private-use or unassigned character (Unicode category ``C*``: ``"\\x1b"``, a
    zero-width joiner, a right-to-left override). The caller quotes the name with
    ``repr`` (which shows such characters escaped)."""
    text = name.strip()
    if not text:
        return "is empty"
    if has_control_character(text):
        return "has a control character"
    if len(text) > MAX_NAME:
        return f"is longer than {MAX_NAME} characters"
    return None


def has_control_character(text: str) -> bool:
    """Whether ``text`` holds a character of Unicode category ``C*`` (control, format,
    surrogate, private use, unassigned): what :func:`name_problem` refuses, and what a name
    read from a saved hand history must not hold before it is printed (a history written
    before the length bound may hold a longer name, never an escape)."""
    return any(unicodedata.category(ch).startswith("C") for ch in text)
