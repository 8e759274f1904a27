"""House rules (issue 2, part 3): defaults, presets, TOML, strict validation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from gutskit.core.evaluation import Ranking
from gutskit.core.rules import (
    DEFAULT_RULES,
    PRESETS,
    Rules,
    RulesError,
    parse_rule_assignment,
    preset,
    rules_from_mapping,
)
from gutskit.io.files import load_rules

# RULES.md: every house rule that issue 2 covers and the default gutskit ships.
DEFAULTS: dict[str, Any] = {
    "cards_per_hand": 3,
    "ante": 1,
    "ante_every_round": False,
    "declaration": "simultaneous",
    "all_out": "reante",
    "ace_low_straight": True,
    "suit_tiebreak": "high_card",
    "odd_chip": "carry",
    "pot_cap": None,
    "pot_cap_mode": "match",
    "shortfall": "eliminate",
    "require_cover": False,
    "end_on_uncontested": False,
}


def test_defaults() -> None:
    rules = Rules()
    dumped = rules.to_dict()
    for key, value in DEFAULTS.items():
        assert getattr(rules, key) == value, key
        assert dumped[key] == value, key
    assert rules == DEFAULT_RULES
    assert rules.ranking == Ranking(cards_per_hand=3, ace_low_straight=True,
                                    suit_tiebreak="high_card")


def test_rules_are_frozen() -> None:
    rules = Rules()
    with pytest.raises(ValidationError):
        rules.ante = 2  # type: ignore[misc]
    assert rules.ante == 1


def test_every_preset_loads() -> None:
    assert {"default", "german-3card", "german-2card", "french-3card", "french-2card",
            "indonesian", "pagat"} <= set(PRESETS)
    for name, (description, overrides) in PRESETS.items():
        rules = preset(name)
        assert description
        for key, value in overrides.items():
            assert getattr(rules, key) == value, (name, key)
        assert rules_from_mapping({"preset": name}) == rules


def test_named_presets_hold_the_seeds_rules() -> None:
    assert preset("default") == Rules()
    assert preset("german-3card").cards_per_hand == 3
    german2 = preset("german-2card")
    assert german2.cards_per_hand == 2
    assert german2.declaration == "simultaneous"
    assert german2.all_out == "reante"
    assert german2.suit_tiebreak == "high_card"
    assert preset("french-2card") == german2
    indonesian = preset("indonesian")
    assert (indonesian.cards_per_hand, indonesian.declaration, indonesian.all_out,
            indonesian.suit_tiebreak) == (2, "sequential", "carry", "none")
    assert preset("pagat") == indonesian
    assert indonesian.ranking == Ranking(cards_per_hand=2, suit_tiebreak="none")


def test_unknown_preset() -> None:
    with pytest.raises(RulesError, match="unknown preset 'nope'"):
        preset("nope")
    with pytest.raises(RulesError, match="unknown preset 'nope'"):
        rules_from_mapping({"preset": "nope"})
    with pytest.raises(RulesError, match="preset must be a name, not 3"):
        rules_from_mapping({"preset": 3})


def test_mapping_overrides_the_preset() -> None:
    rules = rules_from_mapping({"preset": "indonesian", "suit_tiebreak": "always", "ante": 2})
    assert (rules.cards_per_hand, rules.declaration, rules.suit_tiebreak, rules.ante) == (
        2, "sequential", "always", 2)
    base = preset("german-2card")
    assert rules_from_mapping({"ante": 5}, base=base).cards_per_hand == 2
    assert rules_from_mapping({"pot_cap": "none"}).pot_cap is None
    assert rules_from_mapping({"pot_cap": 50}).pot_cap == 50


def test_replace_validates() -> None:
    rules = Rules().replace(pot_cap=50, pot_cap_mode="reserve")
    assert (rules.pot_cap, rules.pot_cap_mode) == (50, "reserve")
    with pytest.raises(RulesError, match="pot_cap"):
        Rules(ante=5).replace(pot_cap=4)


@pytest.mark.parametrize(
    ("mapping", "fragments"),
    [
        ({"antes": 1}, ["unknown house rule", "'antes'"]),
        ({"ante": 0}, ["ante", "0"]),
        ({"ante": -3}, ["ante", "-3"]),
        ({"ante": 1.5}, ["ante", "1.5"]),
        ({"ante": "1"}, ["ante", '"1"']),
        ({"ante": True}, ["ante", "true"]),
        ({"pot_cap": 0}, ["pot_cap", "0"]),
        ({"pot_cap": 4, "ante": 5}, ["pot_cap", "4", "5"]),
        ({"pot_cap": 2.5}, ["pot_cap", "2.5"]),
        ({"cards_per_hand": 4}, ["cards_per_hand", "4"]),
        ({"cards_per_hand": "3"}, ["cards_per_hand", '"3"']),
        ({"declaration": "loud"}, ["declaration", "loud"]),
        ({"all_out": "pass"}, ["all_out", "pass"]),
        ({"suit_tiebreak": "suits"}, ["suit_tiebreak", "suits"]),
        ({"odd_chip": "dealer"}, ["odd_chip", "dealer"]),
        ({"pot_cap_mode": "hard"}, ["pot_cap_mode", "hard"]),
        ({"shortfall": "owe"}, ["shortfall", "owe"]),
        ({"ace_low_straight": "yes"}, ["ace_low_straight", "yes"]),
        ({"ante_every_round": 1}, ["ante_every_round", "1"]),
        ({"require_cover": None}, ["require_cover", "null"]),
        ({"end_on_uncontested": "no"}, ["end_on_uncontested", "no"]),
    ],
)
def test_bad_rules_name_key_and_value(mapping: dict[str, Any], fragments: list[str]) -> None:
    with pytest.raises(RulesError) as info:
        rules_from_mapping(mapping)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert isinstance(info.value, ValueError)


def test_mapping_must_be_a_table() -> None:
    with pytest.raises(RulesError, match=r"\[1, 2\]"):
        rules_from_mapping([1, 2])  # type: ignore[arg-type]


def test_load_rules_from_toml(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text('preset = "german-2card"\nante = 2\npot_cap = 50\n'
                    'pot_cap_mode = "reserve"\nshortfall = "table_stakes"\n', encoding="utf-8")
    rules = load_rules(path)
    assert (rules.cards_per_hand, rules.ante, rules.pot_cap, rules.pot_cap_mode,
            rules.shortfall) == (2, 2, 50, "reserve", "table_stakes")
    assert load_rules(str(path)) == rules


def test_load_rules_from_a_rules_table(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text('[rules]\ncards_per_hand = 2\nall_out = "carry"\n', encoding="utf-8")
    rules = load_rules(path)
    assert (rules.cards_per_hand, rules.all_out) == (2, "carry")


def test_load_rules_refuses_an_empty_file(tmp_path: Path) -> None:
    """An empty file is a mistake, not the defaults (fresh8: it silently meant them)."""
    path = tmp_path / "empty.toml"
    path.write_text("", encoding="utf-8")
    with pytest.raises(RulesError, match="is empty: it holds no house rules"):
        load_rules(path)


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("antes = 1\n", ["unknown house rule", "'antes'"]),
        ("ante = 0\n", ["ante", "0"]),
        ('ante = "1"\n', ["ante", '"1"']),
        ("ante = 1.5\n", ["ante", "1.5"]),
        ("pot_cap = 0\n", ["pot_cap", "0"]),
        ("ante = \n", ["not valid TOML"]),
    ],
)
def test_load_rules_refuses_bad_files(tmp_path: Path, text: str, fragments: list[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesError) as info:
        load_rules(path)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_load_rules_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    with pytest.raises(RulesError, match="cannot read rules file"):
        load_rules(missing)


def test_parse_rule_assignment() -> None:
    assert parse_rule_assignment("pot_cap=50") == ("pot_cap", 50)
    assert parse_rule_assignment("suit_tiebreak=none") == ("suit_tiebreak", "none")
    assert parse_rule_assignment("ace_low_straight=false") == ("ace_low_straight", False)
    assert parse_rule_assignment(" ante = 2 ") == ("ante", 2)
    with pytest.raises(RulesError, match="'pot_cap'"):
        parse_rule_assignment("pot_cap")
    with pytest.raises(RulesError, match="KEY=VALUE"):
        parse_rule_assignment("=3")
