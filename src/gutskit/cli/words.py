"""Small English helpers for what the ``guts`` commands print: a count with its noun in
the right number (``1 session``, ``2 sessions``) and a verb that agrees with a player's
name (``Ava pays``, ``You pay``); a message of the table about the player named "You",
said to them (``You cannot pass A♠: it is not in your hand``).

>>> count(1, "session"), count(3, "session"), count(0, "match", "matches")
('1 session', '3 sessions', '0 matches')
>>> verb("Ava", "pays", "pay"), verb("You", "pays", "pay")
('pays', 'pay')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["YOU", "bot_names", "count", "odd_characters", "second_person", "verb"]

YOU = "You"
"""The name that takes the second-person verb (``guts play``'s default name)."""


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` in the right number (``plural`` default: ``noun + "s"``)."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def verb(name: str, third: str, second: str, *, you: bool = False) -> str:
    """The verb for ``name`` as the subject: ``second`` for "You" (or when ``you`` is set:
    the player we speak to), else ``third``."""
    return second if you or name == YOU else third


def second_person(message: str, name: str) -> str:
    """A message of the table (the core's words, in the third person: ``'Ana' cannot
    pass 2c: it is not in their hand``) said to the player it is about, when that player
    is named "You" (:data:`YOU`, ``guts play``'s default name); any other name is left as
    it is.

    >>> second_person("'You' cannot pass As: it is not in their hand (8d 3c 7s)", "You")
    'You cannot pass As: it is not in your hand (8d 3c 7s)'
    >>> second_person("'You' cannot declare in: require_cover needs 6 chips to match the "
    ...               "pot, 'You' has 2", "You")
    'You cannot declare in: require_cover needs 6 chips to match the pot, you have 2'
    >>> second_person("'You' is already away", "You"), second_person("'Ana' is away", "Ana")
    ('You are already away', "'Ana' is away")
    """
    if name != YOU:
        return message
    quoted = repr(YOU)
    for third, second in ((f"{quoted} has ", "you have "), (f"{quoted} is ", "you are "),
                          (f"{quoted} was ", "you were "), (quoted, "you"),
                          ("their hand", "your hand"), ("their cards", "your cards"),
                          ("their stack", "your stack")):
        message = message.replace(third, second)
    return message[:1].upper() + message[1:]


def bot_names(bots: Iterable[Any]) -> list[str]:
    """The players' names of ``bots`` at the table (objects with a ``name``): each bot's
    name without the kind written beside it (``"Ava (equilibrium)"`` -> ``"Ava"``,
    :func:`gutskit.strategy.strategies.play_table`'s naming).

    >>> from types import SimpleNamespace
    >>> bot_names([SimpleNamespace(name="Ava (equilibrium)"), SimpleNamespace(name="Bruno")])
    ['Ava', 'Bruno']
    """
    return [bot.name.partition(" (")[0] for bot in bots]


def odd_characters(name: str, other: str) -> str:
    """The characters of ``name`` that are not plain letters of ``other`` (a Cyrillic А
    beside a Latin A, a combining accent, an invisible space), named
    (``" (U+0410 CYRILLIC CAPITAL LETTER A)"``), or ``""`` when they differ only by
    case."""
    import unicodedata

    odd = [ch for ch in dict.fromkeys(name + other)
           if not ch.isascii() and ch.casefold() not in (name.casefold() if ch in other
                                                          else other.casefold())]
    return (" (" + ", ".join(f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}"
                             for ch in odd) + ")") if odd else ""
