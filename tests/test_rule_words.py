"""Every house rule of :mod:`gutskit.core.rules` and every value it may take has words in
every language of the browser table (``static/i18n``): the lobby's rules list and the rule
editor show ``rule.<key>`` and ``rule.<key>.<value>`` (``rule_yes`` / ``rule_no`` for a
switch, ``none`` for no value), never an identifier such as ``best_pays_antes``."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest

from gutskit.core.rules import Rules
from gutskit.server.web import rule_choices

STATIC = Path(__file__).resolve().parents[1] / "src" / "gutskit" / "server" / "static"
LANGUAGES = ("en", "de", "fr", "et", "id")


def _texts(language: str) -> dict[str, str]:
    texts: dict[str, str] = json.loads(
        (STATIC / "i18n" / f"{language}.json").read_text(encoding="utf-8"))
    return texts


def _needed() -> set[str]:
    keys = {"rule_yes", "rule_no", "none"}
    for name, field in Rules.model_fields.items():
        keys.add(f"rule.{name}")
        if typing.get_origin(field.annotation) is typing.Literal:
            keys |= {f"rule.{name}.{value}" for value in typing.get_args(field.annotation)}
    return keys


def test_the_choices_are_the_literal_rules() -> None:
    assert rule_choices()["all_out"] == ["reante", "carry", "best_pays_antes"]
    assert rule_choices()["losers_pay"] == ["all", "worst"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_rule_and_value_has_words(language: str) -> None:
    texts = _texts(language)
    missing = sorted(_needed() - set(texts))
    assert missing == [], (language, missing)
    for key in _needed():
        text = texts[key].strip()
        assert text, (language, key)
        # words, not the identifier (a name like "Hi-Lo" may stay as it is)
        assert "_" not in text, (language, key, text)


def test_the_words_are_the_rule_books() -> None:
    assert _texts("en")["rule.all_out.best_pays_antes"] == "the best hand pays everyone's ante"
    assert _texts("de")["rule.pot_cap_mode.reserve"].startswith("Verlierer zahlen voll")
    assert _texts("et")["rule.losers_pay.worst"] == "ainult halvim käsi"
