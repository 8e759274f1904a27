"""Shared helpers for the gutskit test suite.

The public worked cases live in ``../shared/cases`` beside the repository (``/work/shared``
in the team's tree; CI clones the repository with a copy of ``shared/`` next to it), so the
path is resolved from this file, never from the working directory.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gutskit.cards import parse_cards
from gutskit.engine import GameState, deal, declare_all, new_session
from gutskit.events import Declaration, Event, Hand
from gutskit.referee import settle
from gutskit.rules import Rules

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"
CASES_DIR = SHARED_DIR / "cases"

NAMES = ("Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun")

IN = Declaration.IN
OUT = Declaration.OUT


def referee_cases() -> list[Path]:
    """The referee cases in ``shared/cases`` (every ``*.json`` but ``compare.json``)."""
    return sorted(p for p in CASES_DIR.glob("*.json") if p.name != "compare.json")


def load_case(path: Path) -> Any:
    """A JSON case file, parsed."""
    return json.loads(path.read_text(encoding="utf-8"))


def run_referee(data: Mapping[str, Any]) -> dict[str, Any]:
    """Settle a referee dict through :func:`gutskit.referee.settle`, as ``guts referee``
    does, after a JSON round trip (so the input is exactly what a file could hold)."""
    return settle(json.loads(json.dumps(data)))


def assert_subset(actual: Any, expected: Any, where: str = "output") -> None:
    """Check that every key present in ``expected`` has the same value in ``actual``
    (recursively for objects; lists are compared element by element, same length)."""
    if isinstance(expected, Mapping):
        assert isinstance(actual, Mapping), f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}: missing key {key!r}"
            assert_subset(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{where}: expected a list, got {actual!r}"
        assert len(actual) == len(expected), (
            f"{where}: {len(actual)} items, expected {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_subset(a, e, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: got {actual!r}, expected {expected!r}"


def table(n: int = 3, stacks: int | Sequence[int] = 20, *, dealer: int = 0, pot: int = 0,
          reserve: int = 0, **rules: Any) -> GameState:
    """A fresh session of ``n`` players (``Ana``, ``Ben``, ...) under ``Rules(**rules)``."""
    return new_session(NAMES[:n], stacks, dealer=dealer, rules=Rules(**rules), pot=pot,
                       reserve=reserve)


def hands_of(state: GameState, hands: Mapping[int, str]) -> tuple[Hand | None, ...]:
    """Per-seat hands from ``{seat: "As Kd Qh"}``; seats not given get ``None``."""
    out: list[Hand | None] = [None] * state.n_seats
    for seat, text in hands.items():
        out[seat] = parse_cards(text)
    return tuple(out)


def deal_cards(state: GameState, hands: Mapping[int, str]) -> tuple[GameState, list[Event]]:
    """:func:`gutskit.engine.deal` of the hands ``{seat: "As Kd Qh"}``."""
    return deal(state, hands_of(state, hands))


def play_round(state: GameState, hands: Mapping[int, str],
               ins: Sequence[int]) -> tuple[GameState, list[Event]]:
    """Deal ``hands`` (every seat in play must be given) and declare: the seats in ``ins``
    are in, the other dealt seats out. Returns the state and every event of the round."""
    state, dealt = deal_cards(state, hands)
    decls = {s: (IN if s in ins else OUT) for s in state.dealt}
    state, resolved = declare_all(state, decls)
    return state, dealt + resolved


def chips_on_table(state: GameState) -> int:
    """Stacks + pot + reserve."""
    return sum(state.stacks) + state.pot + state.reserve
