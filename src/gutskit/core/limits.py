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

__all__ = ["MAX_CHIPS", "MAX_NAME", "MAX_TABLE_CHIPS", "chips_problem", "has_control_character",
           "name_problem"]

MAX_CHIPS = 1_000_000
"""The largest chip amount a person may give: a buy-in or a rebuy (chips). Ten buy-ins and
a million rebuys of this size stay below ``2**53`` (JavaScript's exact integers)."""

MAX_TABLE_CHIPS = 2**53 - 1
"""The most chips one amount at a table may be, and all of a table's chips together (stacks,
pot and reserve): the largest whole number a float or JavaScript holds exactly. A stack that
grew by winning pots, or a pot that snowballed, may pass :data:`MAX_CHIPS`; the referee reads
such a position up to this bound."""

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
    zero-width joiner, a right-to-left override), no line or paragraph separator, not
    only blank-looking characters (:data:`BLANK_LOOKING`) and at most :data:`MAX_ACCENTS`
    combining marks on one letter. The caller quotes the name with
    ``repr`` (which shows such characters escaped)."""
    text = name.strip()
    if not text:
        return "is empty"
    if has_control_character(text):
        return "has a control character"
    if any(unicodedata.category(ch) in ("Zl", "Zp") for ch in text):
        return "has a line break"
    if all(ch.isspace() or ch in BLANK_LOOKING for ch in text):
        return "looks empty"
    if _longest_accent_run(text) > MAX_ACCENTS:
        return f"has more than {MAX_ACCENTS} accents on one letter"
    if len(text) > MAX_NAME:
        return f"is longer than {MAX_NAME} characters"
    return None


BLANK_LOOKING = frozenset("\u115f\u1160\u2800\u3164\uffa0")
"""Letters and symbols drawn as nothing (Hangul fillers, the blank Braille pattern): a name
of only these (and spaces) looks empty (attack6, session 6)."""
MAX_ACCENTS = 3
"""Combining marks one letter of a name may carry (more stack up over the line)."""


def _longest_accent_run(text: str) -> int:
    longest = run = 0
    for ch in text:
        run = run + 1 if unicodedata.combining(ch) else 0
        longest = max(longest, run)
    return longest


def has_control_character(text: str) -> bool:
    """Whether ``text`` holds a character of Unicode category ``C*`` (control, format,
    surrogate, private use, unassigned): what :func:`name_problem` refuses, and what a name
    read from a saved hand history must not hold before it is printed (a history written
    before the length bound may hold a longer name, never an escape)."""
    return any(unicodedata.category(ch).startswith("C") for ch in text)
