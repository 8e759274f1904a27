"""Cards and the deck (issue 2, part 1): parsing, printing, strict validation, shuffling."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from gutskit.core.cards import (
    DECK,
    CardError,
    DuplicateCardError,
    HandSizeError,
    UnknownCardError,
    card_name,
    ensure_distinct,
    format_cards,
    make_card,
    parse_card,
    parse_cards,
    pretty_cards,
    rank_of,
    shuffled_deck,
    suit_of,
)


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("2c", 0),
        ("2d", 1),
        ("2h", 2),
        ("2s", 3),
        ("As", 51),
        ("Ac", 48),
        ("Td", 8 * 4 + 1),
        ("10d", 8 * 4 + 1),
        ("Kh", 11 * 4 + 2),
        ("Qc", 10 * 4 + 0),
        ("Js", 9 * 4 + 3),
        ("9h", 7 * 4 + 2),
        ("A♠", 51),
        ("K♥", 11 * 4 + 2),
        ("Q♦", 10 * 4 + 1),
        ("J♣", 9 * 4 + 0),
        ("10♠", 8 * 4 + 3),
        ("as", 51),
        ("td", 33),
        ("kH", 46),
        ("AS", 51),
        (" As ", 51),
    ],
)
def test_parse_card(token: str, code: int) -> None:
    assert parse_card(token) == code


def test_card_codes_follow_rank_and_suit_order() -> None:
    # rank 0 = deuce .. 12 = ace; suits clubs < diamonds < hearts < spades (RULES.md).
    assert [rank_of(parse_card(t)) for t in ("2c", "9s", "Td", "Ah")] == [0, 7, 8, 12]
    assert [suit_of(parse_card(t)) for t in ("Ac", "Ad", "Ah", "As")] == [0, 1, 2, 3]
    assert make_card(12, 3) == 51
    assert make_card(8, 1) == parse_card("Td")


def test_every_card_prints_and_parses_back() -> None:
    names = [card_name(c) for c in DECK]
    assert len(set(names)) == 52
    assert names[:4] == ["2c", "2d", "2h", "2s"]
    assert names[-1] == "As"
    assert [parse_card(n) for n in names] == list(DECK)


def test_format_and_pretty() -> None:
    cards = parse_cards("A♠ kh 10c")
    assert cards == (51, 46, 32)
    assert format_cards(cards) == "As Kh Tc"
    assert pretty_cards(cards) == "A♠ K♥ T♣"
    assert parse_cards(pretty_cards(cards)) == cards


def test_parse_cards_keeps_order_and_accepts_commas() -> None:
    assert parse_cards("Qh 2c As") == (42, 0, 51)
    assert parse_cards("Qh, 2c,As") == (42, 0, 51)
    assert parse_cards("  As   Kd  ", count=2) == (51, 45)
    assert parse_cards("") == ()


@pytest.mark.parametrize("token", ["1x", "Zz", "", "A", "s", "11s", "Ax", "1s", "AsK", "♠A", "0d"])
def test_unknown_card_quotes_the_token(token: str) -> None:
    with pytest.raises(UnknownCardError) as info:
        parse_card(token)
    assert repr(token) in str(info.value)
    assert isinstance(info.value, CardError)
    assert isinstance(info.value, ValueError)


def test_unknown_card_in_a_hand_quotes_the_token() -> None:
    with pytest.raises(UnknownCardError, match="'Xs'"):
        parse_cards("As Xs Kd")


def test_duplicate_card_quotes_card_and_hand() -> None:
    with pytest.raises(DuplicateCardError) as info:
        parse_cards("As Kd as")
    message = str(info.value)
    assert "'As'" in message
    assert "'As Kd as'" in message
    assert isinstance(info.value, ValueError)
    # 10d and Td are the same card
    with pytest.raises(DuplicateCardError, match="'Td'"):
        parse_cards("10d Td")


@pytest.mark.parametrize(("text", "count", "got"), [("As Kd", 3, 2), ("As Kd Qh", 2, 3),
                                                      ("As", 2, 1), ("", 3, 0)])
def test_hand_size_error_quotes_the_hand(text: str, count: int, got: int) -> None:
    with pytest.raises(HandSizeError) as info:
        parse_cards(text, count=count)
    message = str(info.value)
    assert repr(text) in message
    assert f"has {got} card" in message
    assert f"expected {count}" in message
    assert isinstance(info.value, ValueError)


def test_non_string_hand_is_refused() -> None:
    with pytest.raises(UnknownCardError, match="42"):
        parse_cards(42)  # type: ignore[arg-type]


def test_bad_codes_are_refused() -> None:
    with pytest.raises(UnknownCardError, match="52"):
        card_name(52)
    with pytest.raises(UnknownCardError, match="-1"):
        card_name(-1)
    with pytest.raises(UnknownCardError, match="13"):
        make_card(13, 0)
    with pytest.raises(UnknownCardError, match="4"):
        make_card(0, 4)


def test_ensure_distinct_names_first_repeat() -> None:
    ensure_distinct([0, 1, 2], context="ok")
    with pytest.raises(DuplicateCardError, match=r"'2d'.*'the deal'"):
        ensure_distinct([5, 1, 0, 1, 5], context="the deal")


def test_shuffled_deck_is_a_permutation_and_fresh() -> None:
    deck = shuffled_deck()
    assert sorted(deck) == list(DECK)
    # The CSPRNG default gives a different order almost surely (1/52! chance of equality).
    assert shuffled_deck() != deck or shuffled_deck() != deck
    # A new list each time: mutating one deal cannot touch the next.
    deck.clear()
    assert len(shuffled_deck()) == 52


def test_seeded_shuffle_is_reproducible() -> None:
    assert shuffled_deck(random.Random(7)) == shuffled_deck(random.Random(7))
    assert shuffled_deck(random.Random(7)) != shuffled_deck(random.Random(8))


def test_seeded_shuffle_is_roughly_uniform() -> None:
    # Top card over 5200 shuffles: each card expected 100 times; a fair shuffle stays
    # well inside 40..170 for every card (binomial sd ~ 10).
    rng = random.Random(2024)
    tops = Counter(shuffled_deck(rng)[0] for _ in range(5200))
    assert set(tops) == set(DECK)
    assert all(40 < n < 170 for n in tops.values())
