"""Provably fair deals: decks committed to before the deal.

Two schemes; a room uses one (its ``seed_reveal`` setting, :mod:`gutskit.server.protocol`).

**Version 2, ``"shown"`` (the default): per-card commitments, only shown cards opened.**
Nothing published lets anyone compute a card that was never shown (docs/fairness.md).

1. Secret: for each round the server draws a 32-byte seed from the operating system's
   CSPRNG (:func:`new_seed`); it never leaves the server. It gives the *committed order*
   ``D`` (52 cards: :func:`deck_from_seed`, the version-1 shuffle below) and one 16-byte
   salt per position: ``salt[i] = SHA-256(b"gutskit-salt-v2" || seed || i as 1 byte)``,
   first 16 bytes (:func:`secret_from_seed`).
2. Leaf ``i`` (``i = 0..51``): SHA-256 (lowercase hex) of the ASCII text
   ``"gutskit-card-v2|" + str(i) + "|" + card name of D[i] + "|" + salt[i] as hex``
   (:func:`leaf`).
3. Commitment: SHA-256 (hex) of ``"gutskit-deck-v2|" + the 52 leaves joined by " "``
   (:func:`deck_commitment`), published before any client seed for the round counts.
4. Client seeds: each seated player may send one seed (16-64 bytes, hex) for the round
   after the commitment; the server mixes the seeds it received before the deal, in seat
   order: ``mix = SHA-256("gutskit-mix-v2|" + commitment + "|" + the seeds (lowercase hex,
   "-" for a seat without one) joined by ",")``. With no seed at all the deal order is the
   committed order; otherwise it is the version-1 Fisher-Yates shuffle of the positions
   ``0..51`` driven by the stream of ``mix`` (:func:`deal_order`). The card dealt ``j``-th
   is ``D[order[j]]`` (:func:`dealt_deck`): the server fixed ``D`` before it saw the seeds,
   the seeds fix ``order``, so neither alone chooses the deal.
5. The deal: from the dealt deck, top first (:func:`gutskit.core.engine.deal_from_deck`:
   one card at a time from the dealer's left, then the ghost hand and the community card).
6. After the round the server publishes the 52 leaves and opens only the positions of the
   cards the public hand history shows (showdown hands, a shown ghost hand, a turned
   community card; a hand the uncontested winner shows by choice, ``HandShown``, is opened
   when it is shown): position, card, salt (:func:`open_cards`, checked by
   :func:`check_opening`). A seat may ask for the openings of its own dealt cards
   (``fairness.json?token=...``); nobody else receives them.

**Version 1, ``"round"`` / ``"session"`` (opt-in): the whole seed is revealed.** Anyone can
then compute every card of the round, *including the hands of players who were out*.

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
5. The deal: as in version 2, step 5, from the deck.

**The session header (both versions).** When the session starts, before the first deal,
the server publishes ``session_hash`` of the ``SessionStarted`` line of the hand history
(names and seats in order, starting stacks, first dealer, every house rule): SHA-256 (hex)
of ``"gutskit-session-v1|"`` + that JSON object written canonically (keys sorted, no
spaces: separators ``","`` and ``":"``, non-ASCII characters as themselves, UTF-8)
(:func:`session_hash`). ``guts verify`` checks the history's first line against it, so
a swapped seat, a renamed player, a changed stack or a rule that never came into play
cannot be edited in afterwards.

>>> session_hash({"type": "SessionStarted", "names": ["Ana", "Ben"]})[:16]
'423c74b8e4b78e45'
>>> seed = bytes(32)
>>> deck_names(deck_from_seed(seed))[:5]
['2c', '9d', '3c', '4c', 'Tc']
>>> commitment(seed, deck_from_seed(seed))[:16]
'121745bc6fea4680'
>>> secret = secret_from_seed(seed)
>>> deck_commitment(leaves(secret))[:16]
'8bc61a161ccc3502'
>>> deal_order(deck_commitment(leaves(secret)), [None, None])[:4]
[0, 1, 2, 3]
"""

from __future__ import annotations

import hashlib
import json
import secrets
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gutskit.core.cards import DECK, Card, CardError, card_name, parse_card
from gutskit.core.errors import GutsError, quoted
from gutskit.core.events import RoundResolved

__all__ = [
    "ALGORITHM_V1",
    "ALGORITHM_V2",
    "DOMAIN",
    "DeckSecret",
    "FairnessError",
    "Opening",
    "check_leaves",
    "check_opening",
    "commitment",
    "deal_order",
    "dealt_deck",
    "deck_commitment",
    "deck_from_seed",
    "deck_names",
    "leaf",
    "leaves",
    "mix",
    "new_seed",
    "open_cards",
    "parse_client_seed",
    "parse_seed",
    "secret_from_seed",
    "session_hash",
    "shown_cards",
    "verify_commitment",
]

ALGORITHM_V1 = "gutskit-deck-v1"
"""Version 1: the whole seed is revealed (``seed_reveal = "round"`` or ``"session"``)."""

ALGORITHM_V2 = "gutskit-deal-v2"
"""Version 2: per-card commitments, only shown cards opened (``seed_reveal = "shown"``)."""

DOMAIN = b"gutskit-deck-v1"
"""Domain-separation prefix of the random stream."""


class FairnessError(GutsError):
    """A seed or commitment that is malformed or does not match; the message says which."""


def session_hash(started: Mapping[str, Any]) -> str:
    """The commitment to a session's header: ``started`` is its ``SessionStarted`` as a
    hand-history line (:func:`gutskit.core.history.event_to_dict`); SHA-256 (lowercase
    hex) of ``"gutskit-session-v1|"`` + its canonical JSON (module doc)."""
    text = json.dumps(started, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(("gutskit-session-v1|" + text).encode("utf-8")).hexdigest()


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
        raise FairnessError(f"seed {quoted(text)} is not hexadecimal") from None
    if len(seed) != 32:
        plural = "" if len(seed) == 1 else "s"
        raise FairnessError(f"seed {quoted(text)} has {len(seed)} byte{plural}, expected 32")
    return seed


def _words(seed: bytes) -> Iterator[int]:
    prefix = hashlib.sha256(DOMAIN + seed)  # each block hashes this prefix, then k
    k = 0
    while True:
        block = prefix.copy()
        block.update(k.to_bytes(8, "big"))
        yield from _EIGHT_WORDS.unpack(block.digest())
        k += 1


_EIGHT_WORDS = struct.Struct(">8I")
"""A 32-byte block as eight unsigned 32-bit big-endian words."""
_LIMITS = [0, *(2**32 - (2**32 % n) for n in range(1, 53))]
"""``uniform(n)``'s rejection bound for each ``n`` from 1 (version 1, step 2)."""


def _shuffled(seed: bytes) -> list[int]:
    """``0..51`` shuffled by the stream of ``seed`` (version 1, steps 1-3)."""
    words = _words(seed)
    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        limit = _LIMITS[n]
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deck_from_seed(seed: bytes) -> list[Card]:
    """The deck (top card first) that ``seed`` determines (steps 1-3 of the module doc)."""
    return [DECK[i] for i in _shuffled(seed)]


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


# ---------------------------------------------------------------------------------------------
# Version 2: per-card commitments.


@dataclass(frozen=True)
class DeckSecret:
    """What the server keeps secret about one round (version 2): the committed order
    (``deck[i]`` is the card at position ``i``) and each position's 16-byte salt."""

    deck: tuple[Card, ...]
    salts: tuple[bytes, ...]


@dataclass(frozen=True)
class Opening:
    """One opened position of a committed order: ``card`` was at ``position`` (0-51), with
    ``salt`` (16 bytes): the leaf is :func:`leaf` of the three."""

    position: int
    card: Card
    salt: bytes

    def to_json(self) -> dict[str, Any]:
        """``{"position": 7, "card": "As", "salt": "<32 hex>"}``."""
        return {"position": self.position, "card": card_name(self.card),
                "salt": self.salt.hex()}

    @classmethod
    def from_json(cls, data: object) -> Opening:
        """The opening of :meth:`to_json`.

        Raises:
            FairnessError: not an object with a position 0-51, a card and 16 hex bytes.
        """
        if not isinstance(data, dict):
            raise FairnessError(f"an opening is an object, not {data!r}")
        position, card, salt = data.get("position"), data.get("card"), data.get("salt")
        if type(position) is not int or not 0 <= position < 52:
            raise FairnessError(f"opening position {position!r} is not 0 to 51")
        try:
            code = parse_card(str(card))
            raw = bytes.fromhex(str(salt))
        except (CardError, ValueError):
            raise FairnessError(f"opening {data!r} needs a card and a hex salt") from None
        if len(raw) != 16:
            raise FairnessError(f"opening salt {salt!r} is not 16 bytes")
        return cls(position, code, raw)


def secret_from_seed(seed: bytes) -> DeckSecret:
    """The committed order and salts of a round from its secret seed (version 2, step 1)."""
    prefix = hashlib.sha256(b"gutskit-salt-v2" + seed)  # each salt hashes this, then i
    salts = []
    for position in _POSITIONS:
        salt = prefix.copy()
        salt.update(position)
        salts.append(salt.digest()[:16])
    return DeckSecret(tuple(deck_from_seed(seed)), tuple(salts))


_POSITIONS = [bytes([i]) for i in range(52)]
_NAMES = [card_name(card) for card in DECK]
"""Card names by code (:func:`leaves` names 52 cards per round)."""


def leaf(position: int, card: Card, salt: bytes) -> str:
    """The commitment to one position (version 2, step 2), lowercase hex."""
    text = f"gutskit-card-v2|{position}|{card_name(card)}|{salt.hex()}"
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def leaves(secret: DeckSecret) -> list[str]:
    """The 52 leaves of ``secret`` (position order): :func:`leaf` of each position."""
    sha256, names = hashlib.sha256, _NAMES
    return [sha256(f"gutskit-card-v2|{i}|{names[card]}|{salt.hex()}".encode("ascii"))
            .hexdigest()
            for i, (card, salt) in enumerate(zip(secret.deck, secret.salts, strict=True))]


def deck_commitment(leaf_hashes: Sequence[str]) -> str:
    """The published commitment of a round (version 2, step 3), lowercase hex."""
    text = "gutskit-deck-v2|" + " ".join(leaf_hashes)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Prepared:
    """A round's secret worked out from its seed (version 2, steps 1-3): what
    :func:`prepare` returns, so a server can do it ahead of the deal, off the path from a
    player's action to what is sent."""

    seed: bytes
    secret: DeckSecret
    leaves: list[str]
    commitment: str


def prepare(seed: bytes) -> Prepared:
    """The committed order, salts, 52 leaves and commitment of ``seed`` (104 SHA-256 and
    the shuffle: :func:`secret_from_seed`, :func:`leaves`, :func:`deck_commitment`)."""
    secret = secret_from_seed(seed)
    leaf_hashes = leaves(secret)
    return Prepared(seed, secret, leaf_hashes, deck_commitment(leaf_hashes))


def parse_client_seed(text: str) -> str:
    """A client seed in its canonical form (lowercase hex).

    Raises:
        FairnessError: not 16 to 64 bytes of hex.
    """
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise FairnessError(f"client seed {text[:80]!r} is not hexadecimal") from None
    if not 16 <= len(raw) <= 64:
        plural = "" if len(raw) == 1 else "s"
        raise FairnessError(f"client seed {text[:80]!r} has {len(raw)} byte{plural}, "
                            "expected 16 to 64")
    return raw.hex()


def mix(commitment_hex: str, client_seeds: Sequence[str | None]) -> bytes | None:
    """The mix of a round's client seeds (seat order; ``None`` = none from that seat), or
    ``None`` when no seat sent one (version 2, step 4)."""
    if all(s is None for s in client_seeds):
        return None
    text = ("gutskit-mix-v2|" + commitment_hex + "|"
            + ",".join("-" if s is None else s for s in client_seeds))
    return hashlib.sha256(text.encode("ascii")).digest()


def deal_order(commitment_hex: str, client_seeds: Sequence[str | None]) -> list[int]:
    """The committed positions in the order they are dealt (version 2, step 4): the
    ``j``-th card dealt is the committed order's card at ``deal_order(...)[j]``."""
    mixed = mix(commitment_hex, client_seeds)
    return list(range(52)) if mixed is None else _shuffled(mixed)


def dealt_deck(secret: DeckSecret, order: Sequence[int]) -> list[Card]:
    """The deck as dealt, top card first: ``secret.deck[order[j]]``."""
    return [secret.deck[i] for i in order]


def shown_cards(result: RoundResolved) -> set[Card]:
    """Every card a round's public result shows: the showdown hands (and the hands of a
    void round's ante payers), a shown ghost hand and a turned community card."""
    cards = {c for hand in result.shown if hand for c in hand}
    for extra in (result.ghost, result.community):
        if extra:
            cards.update(extra)
    return cards


def open_cards(secret: DeckSecret, cards: Iterable[Card]) -> list[Opening]:
    """The openings of ``cards`` (by position)."""
    wanted = set(cards)
    return [Opening(i, card, secret.salts[i]) for i, card in enumerate(secret.deck)
            if card in wanted]


def check_leaves(commitment_hex: str, leaf_hashes: Sequence[str]) -> None:
    """Check published leaves against the round's commitment.

    Raises:
        FairnessError: not 52 leaves, or they do not hash to the commitment.
    """
    if len(leaf_hashes) != 52 or not all(isinstance(h, str) for h in leaf_hashes):
        raise FairnessError(f"expected 52 leaves, got {len(leaf_hashes)}")
    expected = deck_commitment(leaf_hashes)
    if expected != commitment_hex.strip().lower():
        raise FairnessError(f"the leaves hash to {expected}, not to the commitment "
                            f"{commitment_hex}")


def check_opening(leaf_hashes: Sequence[str], opening: Opening) -> None:
    """Check one opening against the (checked) leaves.

    Raises:
        FairnessError: the card and salt do not give the leaf at that position.
    """
    if leaf(opening.position, opening.card, opening.salt) != leaf_hashes[opening.position]:
        raise FairnessError(f"the opening of position {opening.position} as "
                            f"{card_name(opening.card)} does not match its leaf")
