"""Cards, hands and the deck.

A card is a plain ``int`` from 0 to 51: ``rank * 4 + suit``, where ``rank`` is 0 for a
deuce up to 12 for an ace and ``suit`` follows the tie-break order of RULES.md ("Table and
cards": spades > hearts > diamonds > clubs), so clubs = 0, diamonds = 1, hearts = 2,
spades = 3. Small ints keep evaluation a single table lookup.

>>> parse_card("As")
51
>>> card_name(parse_card("10d"))
'Td'
>>> format_cards(parse_cards("A♠ kh 2c"))
'As Kh 2c'
>>> parse_cards("As As")
Traceback (most recent call last):
...
gutskit.core.cards.DuplicateCardError: duplicate card 'As' in 'As As'
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Sequence
from typing import TypeAlias

from gutskit.core.errors import GutsError, quoted

Card: TypeAlias = int
"""A card code, 0..51 (``rank * 4 + suit``)."""

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
RANK_NAMES = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king", "ace",
)
RANK_PLURALS = (
    "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
    "jacks", "queens", "kings", "aces",
)
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
DECK: tuple[Card, ...] = tuple(range(52))
"""The 52 cards in code order (deuce of clubs first, ace of spades last)."""

_SUIT_ALIASES = {
    "c": 0, "♣": 0, "♧": 0,
    "d": 1, "♦": 1, "♢": 1,
    "h": 2, "♥": 2, "♡": 2,
    "s": 3, "♠": 3, "♤": 3,
}
_RANK_ALIASES = {ch: i for i, ch in enumerate(RANK_CHARS)} | {"10": 8}


class CardError(GutsError):
    """Base class for every bad-card input; the message quotes the bad input."""


class UnknownCardError(CardError):
    """A token that is not a card (``'1x'``, ``'Zz'``, ``''``)."""


class DuplicateCardError(CardError):
    """The same card appears twice where every card must be distinct."""


class HandSizeError(CardError):
    """A hand with the wrong number of cards."""


def rank_of(card: Card) -> int:
    """Rank index of ``card``: 0 for a deuce .. 12 for an ace."""
    return card >> 2


def suit_of(card: Card) -> int:
    """Suit index of ``card``: clubs 0, diamonds 1, hearts 2, spades 3."""
    return card & 3


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (0..12) and ``suit`` (0..3).

    Raises:
        UnknownCardError: either index is out of range.
    """
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise UnknownCardError(f"no card with rank {rank!r} and suit {suit!r}")
    return rank * 4 + suit


def parse_card(token: str) -> Card:
    """Parse one card: rank (``2``-``9``, ``T`` or ``10``, ``J Q K A``) then suit
    (``c d h s`` or ``♣ ♦ ♥ ♠``), case-insensitive.

    Raises:
        UnknownCardError: ``token`` is not a card; the message quotes it.
    """
    text = token.strip()
    if len(text) >= 2:
        rank = _RANK_ALIASES.get(text[:-1].upper())
        suit = _SUIT_ALIASES.get(text[-1].lower())
        if rank is not None and suit is not None:
            return rank * 4 + suit
    raise UnknownCardError(f"unknown card {_quoted(token)} (expected e.g. 'As', 'Td', '10d' or "
                           "'A♠')")


_quoted = quoted
"""How a message quotes what was typed (:func:`gutskit.core.errors.quoted`)."""


_NAMES = tuple(RANK_CHARS[card >> 2] + SUIT_CHARS[card & 3] for card in range(52))
"""Each card code's two-character name (:func:`card_name`), worked out once."""


def card_name(card: Card) -> str:
    """Two-character name of ``card``, e.g. ``'As'``, ``'Td'``.

    Raises:
        UnknownCardError: ``card`` is not in 0..51.
    """
    if not (isinstance(card, int) and 0 <= card < 52):
        raise UnknownCardError(f"no card with code {card!r}")
    return _NAMES[card]


def parse_cards(text: str, *, count: int | None = None) -> tuple[Card, ...]:
    """Parse a space-separated hand such as ``"As Kd Qh"``.

    Args:
        text: card tokens separated by white space (commas are accepted too).
        count: the number of cards the hand must have, or ``None`` for any number.

    Returns:
        The cards in the order given.

    Raises:
        UnknownCardError: a token is not a card.
        DuplicateCardError: a card appears twice.
        HandSizeError: ``count`` is given and the hand has another number of cards.
    """
    if not isinstance(text, str):
        raise UnknownCardError(f"a hand must be a string of cards like 'As Kd', not {text!r}")
    tokens = text.replace(",", " ").split()
    cards = tuple(parse_card(tok) for tok in tokens)
    ensure_distinct(cards, context=text)
    if count is not None and len(cards) != count:
        raise HandSizeError(
            f"hand {_quoted(text)} has {len(cards)} card{'s' if len(cards) != 1 else ''}, "
            f"expected {count}"
        )
    return cards


def ensure_distinct(cards: Iterable[Card], *, context: str) -> None:
    """Raise :class:`DuplicateCardError` naming the first repeated card.

    ``context`` is quoted in the message (the hand or deal the cards came from).
    """
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise DuplicateCardError(f"duplicate card {card_name(card)!r} in "
                                     f"{_quoted(context)}")
        seen.add(card)


def format_cards(cards: Sequence[Card]) -> str:
    """Space-separated names, e.g. ``'As Kd Qh'``."""
    names = _NAMES
    return " ".join([names[c] if type(c) is int and 0 <= c < 52 else card_name(c)
                     for c in cards])


def pretty_cards(cards: Sequence[Card]) -> str:
    """Names with suit symbols, e.g. ``'A♠ K♦'`` (for terminals and the browser)."""
    symbols = "♣♦♥♠"
    return " ".join(RANK_CHARS[c >> 2] + symbols[c & 3] for c in cards)


def shuffled_deck(rng: random.Random | None = None) -> list[Card]:
    """A freshly shuffled 52-card deck.

    Args:
        rng: the randomness source. ``None`` (the default) uses the operating system's
            CSPRNG through :class:`secrets.SystemRandom`; pass a seeded
            :class:`random.Random` only for reproducible simulations and tests.

    Returns:
        A new list of the 52 card codes in dealing order (top card first).
    """
    deck = list(DECK)
    (rng if rng is not None else _SYSTEM_RANDOM).shuffle(deck)
    return deck


_SYSTEM_RANDOM = secrets.SystemRandom()
