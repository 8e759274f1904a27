"""Which player names may sit at one table (``guts serve``): a name must not be confusable
with a name already at the table, and a human's name must not look like a bot's.

Two names are *confusable* when they differ only in look-alike characters: case, the NFKC
compatibility forms (full-width ``Ａｎａ``), combining marks (``H\u0301ost``, an ``H`` with
a combining acute accent, beside ``Host``; so also ``José`` beside ``Jose``), or homoglyphs
from another script (a Cyrillic ``А`` in ``Аna`` beside ``Ana``). The homoglyph table is
the Unicode confusables data of Unicode Technical Standard #39 as the ``confusables``
package ships it (:func:`confusables.is_confusable`, :func:`confusables.normalize`); this
module only applies it to names.

The server names its bots ``"<Name> (bot)"`` or ``"Bot <n>"``
(:meth:`gutskit.server.rooms.Room._add_bot`); a human's name that reads as one (``"Zed (bot)"``,
``"Zed [BOT]"``, ``"Zed (b0t)"``, ``"Bot 3"``) would pass a person off as a bot, or a bot
for a person, so it is refused (:func:`bot_like`).

>>> confusable("Аna", "Ana"), confusable("Ana", "Anna"), confusable("H\u0301ost", "Host")
(True, False, True)
>>> bot_like("Zed (bot)"), bot_like("Zed (ʙᴏᴛ)"), bot_like("Bot 3"), bot_like("Abbot")
(True, True, True, False)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from confusables import is_confusable, normalize

__all__ = ["bot_like", "confusable", "confusable_with"]

_BOT_NAME = re.compile(r"[(\[{<]\s*bot\s*[)\]}>]\s*$|^\s*bot\s*\d*\s*$")
"""A bracketed ``bot`` at the end (``"Zed (bot)"``), or ``bot`` alone or with a number (the
server's fallback ``"Bot 3"``), in a name's look-alike forms (lower case, no homoglyphs)."""


def _fold(name: str) -> str:
    """``name`` in NFKC with its combining marks dropped (NFKD, then every character of
    Unicode category Mn or Me removed): ``"H\u0301ost"`` -> ``"Host"``."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(c for c in decomposed if unicodedata.category(c) not in ("Mn", "Me"))
    return unicodedata.normalize("NFKC", bare)


def _forms(name: str) -> list[str]:
    """The lower-case skeletons ``name`` may be read as: NFKC without combining marks
    (:func:`_fold`), then each way of replacing its homoglyphs by Latin letters
    (:func:`confusables.normalize`)."""
    text = _fold(name)
    return [*normalize(text, prioritize_alpha=True), text.casefold()]


def confusable(first: str, second: str) -> bool:
    """Whether two names differ only in look-alike characters (case, NFKC forms,
    combining marks, homoglyphs; module doc)."""
    a, b = _fold(first), _fold(second)
    return a.casefold() == b.casefold() or bool(is_confusable(a, b))


def confusable_with(name: str, names: Iterable[str]) -> str | None:
    """The first of ``names`` that ``name`` is confusable with, or ``None``."""
    return next((other for other in names if confusable(name, other)), None)


def bot_like(name: str) -> bool:
    """Whether ``name`` reads as a bot's name (``"... (bot)"``, ``"Bot 3"``; module doc)."""
    return any(_BOT_NAME.search(form) for form in _forms(name))
