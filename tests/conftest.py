"""Shared helpers for the gutskit test suite.

The public worked cases live in ``../shared/cases`` beside the repository (``/work/shared``
in the team's tree; CI clones the repository with a copy of ``shared/`` next to it), so the
path is resolved from this file, never from the working directory.
"""

from __future__ import annotations

import atexit
import json
import os
import random
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

from gutskit.core.cards import parse_cards
from gutskit.core.engine import (
    GameState,
    can_deal,
    deal,
    deal_from_rng,
    declare,
    declare_all,
    end_session,
    evolve,
    new_session,
    start_event,
)
from gutskit.core.events import Declaration, Event, Hand
from gutskit.core.referee import settle
from gutskit.core.rules import Rules
from gutskit.core.views import joint_views, view_for
from gutskit.strategy.bots import RandomBot, RuleOfThumbBot, Strategy

settings.register_profile(
    "gutskit", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gutskit")
"""Every hypothesis test runs with no deadline and without the too-slow health check
(its own ``@settings`` change other fields only): both time the examples, and CI runs
the suite on a machine loaded far beyond its cores, where a 200 ms example deadline or a
slow data generation fails a test that is right (tests are never timed: speed is
measured in benchmarks/)."""

ROOT_PREFIX = "gutskit-tests-"


def _running(pid: int, started: str) -> bool:
    """Whether process ``pid`` still runs and is the one that started at ``started``
    (field 22 of ``/proc/PID/stat``; ``"-"``: unknown, the pid alone is checked). A
    zombie has ended; a pid taken by a later process is not the owner's."""
    if not Path("/proc/self/stat").exists():  # no /proc here: the pid alone
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] not in ("Z", "X") and started in ("-", fields[19])


def _start_time(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return "-"


def remove_stale_roots(base: Path) -> list[Path]:
    """Remove the folders a test process made in ``base`` (:func:`make_root`) whose process
    has ended without removing them (``kill -9`` of a test run: no ``atexit``); the folders
    removed. A folder with no ``owner`` file (not made here, or being made) is left alone,
    as is every other file of ``base``."""
    removed = []
    for folder in sorted(base.glob(ROOT_PREFIX + "*")):
        try:
            pid, started = (folder / "owner").read_text().split()
            alive = _running(int(pid), started)
        except (OSError, ValueError):
            continue
        if not alive:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def make_root(base: Path) -> Path:
    """A new folder of this test process in ``base``, with an ``owner`` file (its pid and
    start time) by which a later run knows it is stale (:func:`remove_stale_roots`)."""
    root = Path(tempfile.mkdtemp(prefix=ROOT_PREFIX, dir=base))
    (root / "owner").write_text(f"{os.getpid()} {_start_time(os.getpid())}\n")
    return root


_BASE = Path(tempfile.gettempdir())
remove_stale_roots(_BASE)
_ROOT = make_root(_BASE)
atexit.register(shutil.rmtree, _ROOT, ignore_errors=True)
_DATA_HOME = _ROOT / "data"
_DATA_HOME.mkdir()
os.environ["XDG_DATA_HOME"] = str(_DATA_HOME)
"""The user's data folder (``platformdirs.user_data_dir``: the default database of ``guts
play``, ``guts history``...) is a fresh folder per test process, for the tests and every
command they start: not the real one, which the two pytest-xdist workers (and any other
run on the machine) would share, each seeing the other's sessions."""
_CHILD_TMP = _ROOT / "tmp"
_CHILD_TMP.mkdir()
os.environ["TMPDIR"] = str(_CHILD_TMP)
"""The temporary folder of every command the tests start (``tempfile`` in this process
keeps the system's, taken above): what they leave, e.g. the folder of ``guts serve
--workers``'s private redis-server when a test kills the server with ``kill -9``
(tests/test_serve_one_database.py), is removed with this process's folder, at exit or, if
this process was killed, by the next run's :func:`remove_stale_roots`."""

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
    """Settle a referee dict through :func:`gutskit.core.referee.settle`, as ``guts referee``
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
    """:func:`gutskit.core.engine.deal` of the hands ``{seat: "As Kd Qh"}``."""
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


def mixed_bots(n: int, rng: random.Random) -> list[Strategy]:
    """``n`` bots: rule-of-thumb bots of random style and random bots of random ``p_in``."""
    bots: list[Strategy] = []
    for _ in range(n):
        if rng.random() < 0.4:
            bots.append(RuleOfThumbBot(style=rng.uniform(-0.5, 0.05)))
        else:
            bots.append(RandomBot(p_in=rng.uniform(0.2, 0.95)))
    return bots


def bot_session(rules: Rules, stacks: Sequence[int], *, seed: int, max_rounds: int = 30,
                dealer: int = 0, pot: int = 0, reserve: int = 0,
                end: bool = True) -> tuple[GameState, list[Event]]:
    """A whole session of bots, every bit of randomness drawn from ``random.Random(seed)``.

    Each round is declared either as one joint action (:func:`declare_all`) or seat by
    seat (:func:`declare`, in declaration order under sequential declaration, in a random
    order otherwise), so the history holds both kinds of records. Returns the final state
    and the whole hand history, starting with ``SessionStarted``.
    """
    rng = random.Random(seed)
    n = len(stacks)
    start = start_event(NAMES[:n], list(stacks), dealer=dealer, rules=rules, pot=pot,
                        reserve=reserve)
    state = evolve(None, start)
    events: list[Event] = [start]
    bots = mixed_bots(n, rng)
    for _ in range(max_rounds):
        if can_deal(state) is not None:
            break
        state, new = deal_from_rng(state, rng)
        events += new
        if rules.declaration != "sequential" and rng.random() < 0.5:
            views = joint_views(state)
            choices = {seat: bots[seat].declare(view, rng) for seat, view in views.items()}
            state, new = declare_all(state, choices)
            events += new
            continue
        order = list(state.declaration_order())
        if rules.declaration != "sequential":
            rng.shuffle(order)
        for seat in order:
            state, new = declare(state, seat, bots[seat].declare(view_for(state, seat), rng))
            events += new
    if end:
        state, new = end_session(state)
        events += new
    return state, events
