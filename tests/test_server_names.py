"""Look-alike player names (gutskit.server.names): combining marks are folded before the
comparison (audit3 finding 5: "H" + U+0301 COMBINING ACUTE ACCENT sat beside "Host")."""

from __future__ import annotations

import pytest

from gutskit.server.names import bot_like, confusable, confusable_with


@pytest.mark.parametrize("name", [
    "H\u0301ost",            # H + combining acute accent
    "Ho\u0308st",            # o + combining diaeresis (decomposes like "Höst")
    "H\u00f6st",             # precomposed ö: NFKD splits off the diaeresis
    "Hos\u0335t",            # combining short stroke overlay
    "H\u20ddost",            # combining enclosing circle (category Me)
    "\u0124ost",             # Ĥ precomposed
])
def test_a_name_with_combining_marks_is_confusable_with_the_bare_name(name: str) -> None:
    assert confusable(name, "Host")
    assert confusable("Host", name)
    assert confusable_with(name, ["Ana", "Host"]) == "Host"


def test_different_letters_stay_different() -> None:
    assert not confusable("Ana", "Anna")
    assert not confusable("H\u0301ost", "Hoste")
    assert confusable_with("Bo\u0301b", ["Ana", "Host"]) is None


def test_a_bot_name_with_combining_marks_reads_as_a_bot() -> None:
    assert bot_like("Zed (bo\u0301t)")
    assert bot_like("Bo\u0308t 3")
    assert not bot_like("Abbo\u0301t")
