"""The provably fair deal: a deck derived from a secret seed, committed to before the deal.

Before a round is dealt the server draws a 32-byte seed from the operating system's CSPRNG
(:func:`secrets.token_bytes`), derives the deck from it (:func:`deck_from_seed`) and
publishes :func:`commitment` (a SHA-256 hash of the deck and the seed). After the round
(or at the end of the session) it reveals the seed. Anyone can then recompute the deck from
the seed, check the hash, and check that the cards they saw are the ones the deck deals
(``guts verify``). The seed cannot be changed after the commitment without changing the
hash, so the server cannot pick the cards after seeing the declarations.

The algorithm, exactly (version 1; reimplementable in a few lines in any language):

1. Random stream: block ``k`` (``k = 0, 1, 2, ...``) is
   ``SHA-256(b"gutskit-deck-v1" || seed || k as 8 bytes big-endian)``; the stream is the
   blocks' bytes in order, read as unsigned 32-bit big-endian words.
2. ``uniform(n)``: let ``limit = 2**32 - (2**32 mod n)``; read words until one is below
   ``limit``; return that word ``mod n`` (rejection sampling: no modulo bias).
3. Deck: start with the 52 card codes ``0..51`` in order (code = ``rank * 4 + suit``, rank 0
   = deuce .. 12 = ace, suit clubs 0, diamonds 1, hearts 2, spades 3, so ``2c 2d 2h 2s 3c
   ... As``); Fisher-Yates: for ``i`` from 51 down to 1, ``j = uniform(i + 1)``, swap
   positions ``i`` and ``j``. Position 0 is the top card.
4. Commitment: SHA-256 (lowercase hex) of the ASCII text
   ``"gutskit-v1|" + the 52 card names joined by single spaces + "|" + seed as lowercase hex``
   (card names as ``"As"``, ``"Td"``, ``"2c"``).
5. The deal: one card at a time from the top, starting left of the dealer, to every seat
   in play (:func:`gutskit.core.engine.hands_from_deck`).

>>> seed = bytes(32)
>>> deck_names(deck_from_seed(seed))[:5]
['2c', '9d', '3c', '4c', 'Tc']
>>> commitment(seed, deck_from_seed(seed))[:16]
'121745bc6fea4680'
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator, Sequence

from gutskit.core.cards import DECK, Card, card_name

__all__ = [
    "DOMAIN",
    "FairnessError",
    "commitment",
    "deck_from_seed",
    "deck_names",
    "new_seed",
    "parse_seed",
    "verify_commitment",
]

DOMAIN = b"gutskit-deck-v1"
"""Domain-separation prefix of the random stream."""


class FairnessError(ValueError):
    """A seed or commitment that is malformed or does not match; the message says which."""


def new_seed() -> bytes:
    """32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(32)


def parse_seed(text: str) -> bytes:
    """A seed from its hex form (64 hex digits).

    Raises:
        FairnessError: not 64 hex digits.
    """
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise FairnessError(f"seed {text!r} is not hexadecimal") from None
    if len(seed) != 32:
        raise FairnessError(f"seed {text!r} has {len(seed)} bytes, expected 32")
    return seed


def _words(seed: bytes) -> Iterator[int]:
    k = 0
    while True:
        block = hashlib.sha256(DOMAIN + seed + k.to_bytes(8, "big")).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i:i + 4], "big")
        k += 1


def deck_from_seed(seed: bytes) -> list[Card]:
    """The deck (top card first) that ``seed`` determines (steps 1-3 of the module doc)."""
    words = _words(seed)
    deck = list(DECK)
    for i in range(51, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deck_names(deck: Sequence[Card]) -> list[str]:
    """Card names of ``deck`` (``"As"``, ``"Td"``, ...)."""
    return [card_name(c) for c in deck]


def commitment(seed: bytes, deck: Sequence[Card]) -> str:
    """The published commitment of ``deck`` and ``seed`` (step 4), lowercase hex."""
    text = "gutskit-v1|" + " ".join(deck_names(deck)) + "|" + seed.hex()
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def verify_commitment(commitment_hex: str, seed_hex: str) -> list[Card]:
    """Recompute the deck from a revealed seed and check it against the commitment.

    Returns:
        The deck, top card first.

    Raises:
        FairnessError: the seed is malformed or the commitment does not match.
    """
    seed = parse_seed(seed_hex)
    deck = deck_from_seed(seed)
    expected = commitment(seed, deck)
    if expected != commitment_hex.strip().lower():
        raise FairnessError(f"commitment {commitment_hex!r} does not match seed {seed_hex!r} "
                            f"(the seed commits to {expected})")
    return deck
