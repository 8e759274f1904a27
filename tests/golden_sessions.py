"""Golden sessions: seeded bot sessions under every preset and the variant rule sets,
hashed event by event (SHA-1 of each event's JSON, chained), so a refactoring of the engine
can prove that it changes no result.

Run ``python tests/golden_sessions.py`` to print the hashes; ``tests/test_golden_sessions.py``
pins them (recorded before the engine's resolution pipeline was folded into one, issue 8).
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from gutskit.core.engine import (
    GameState,
    Phase,
    can_rebuy,
    deal_from_rng,
    declare,
    declare_all,
    end_session,
    evolve,
    misdeal,
    rebuy,
    start_event,
)
from gutskit.core.events import Event
from gutskit.core.history import event_to_dict
from gutskit.core.rules import PRESETS, Rules, preset
from gutskit.core.views import joint_views, view_for
from gutskit.strategy.bots import RandomBot, RuleOfThumbBot, Strategy, bots_pass

EXTRA_RULES: dict[str, dict[str, Any]] = {
    "hi-lo-2card": {"hi_lo": True, "cards_per_hand": 2, "odd_chip": "first_left_of_dealer"},
    "ghost-2card-carry": {"ghost_hand": True, "cards_per_hand": 2, "all_out": "carry"},
    "community-hi-lo": {"community_card": True, "hi_lo": True},
    "community-ghost-worst": {"community_card": True, "ghost_hand": True,
                              "losers_pay": "worst"},
    "pass-the-trash-2card": {"pass_the_trash": True, "cards_per_hand": 2},
    "pass-the-trash-hi-lo": {"pass_the_trash": True, "hi_lo": True},
    "worst-loser-sequential": {"losers_pay": "worst", "declaration": "sequential"},
    "best-pays-antes-community": {"all_out": "best_pays_antes", "community_card": True},
    "cap-match-10": {"pot_cap": 10, "pot_cap_mode": "match"},
    "cap-reserve-6": {"pot_cap": 6, "pot_cap_mode": "reserve", "all_out": "carry"},
    "table-stakes-cap-reserve": {"shortfall": "table_stakes", "pot_cap": 12,
                                 "pot_cap_mode": "reserve"},
    "debt": {"shortfall": "debt", "ante_every_round": True},
    "require-cover-uncontested": {"require_cover": True, "end_on_uncontested": True},
    "no-peek-ghost": {"no_peek": True, "ghost_hand": True},
    "rebuys-no-suits": {"rebuys": True, "max_rebuys": 2, "min_buy_in": 5,
                        "suit_tiebreak": "none", "ace_low_straight": False},
    "always-suits-odd-left": {"suit_tiebreak": "always", "odd_chip": "first_left_of_dealer"},
}
"""Rule sets beyond :data:`gutskit.core.rules.PRESETS` (name -> overrides of the defaults)."""

SEEDS = (1, 2)
ROUNDS = 60


def rule_sets() -> dict[str, Rules]:
    """Every preset and every extra rule set, by name."""
    sets = {name: preset(name) for name in PRESETS}
    sets.update({name: Rules(**changes) for name, changes in EXTRA_RULES.items()})
    return sets


def _table(rng: random.Random, n: int) -> list[Strategy]:
    bots: list[Strategy] = []
    for i in range(n):
        if i % 3 == 2:
            bots.append(RandomBot(p_in=rng.choice((0.3, 0.6))))
        else:
            bots.append(RuleOfThumbBot(style=rng.choice((-0.08, 0.0, 0.04))))
    return bots


def play(rules: Rules, seed: int) -> list[Event]:
    """A seeded session of 3-5 bots (small stacks, so eliminations and shortfalls happen):
    joint declarations on odd seeds, one seat at a time on even seeds; an occasional
    misdeal, rebuys when allowed; ended after :data:`ROUNDS` rounds."""
    rng = random.Random(seed * 7919 + len(rules.model_dump_json()))
    n = 3 + seed % 3
    names = [f"p{i}" for i in range(n)]
    low = rules.min_buy_in or 0
    stacks = [max(low, rng.choice((10, 25, 60))) for _ in names]
    limits = [None, 8, None, 12, None][:n] if seed % 2 else None
    bots = _table(rng, n)
    start = start_event(names, stacks, dealer=seed % n, rules=rules, loss_limits=limits)
    state: GameState = evolve(None, start)
    events: list[Event] = [start]
    for _ in range(ROUNDS):
        if state.phase is Phase.OVER:
            break
        for seat in range(n):
            if can_rebuy(state, seat, 10) is None:
                state, new = rebuy(state, seat, 10)
                events += new
        state, new = deal_from_rng(state, rng)
        events += new
        if rng.random() < 0.03:
            state, new = misdeal(state)
            events += new
            continue
        if state.phase is Phase.PASS:
            state, new = bots_pass(state, bots, rng)
            events += new
        if seed % 2:
            calls = {seat: bots[seat].declare(view, rng)
                     for seat, view in joint_views(state).items()}
            state, new = declare_all(state, calls)
            events += new
        else:
            while state.phase is Phase.DECLARE:
                turn = state.next_to_declare()
                assert turn is not None
                state, new = declare(state, turn,
                                     bots[turn].declare(view_for(state, turn), rng))
                events += new
    state, new = end_session(state)
    return events + new


DESCRIPTIVE = frozenset({"failed_high", "failed_low"})
"""Fields added to ``RoundResolved`` after the pins that only say why (which side a failed
Hi-Lo both lost) and move no chip: left out of the digest, so the pins still prove that no
result changed (every chip field is hashed as before)."""


def digest(events: list[Event]) -> str:
    """SHA-1 over every event's JSON (sorted keys, without :data:`DESCRIPTIVE`), one line
    per event."""
    sha = hashlib.sha1()
    for event in events:
        data = {k: v for k, v in event_to_dict(event).items() if k not in DESCRIPTIVE}
        sha.update(json.dumps(data, sort_keys=True).encode())
        sha.update(b"\n")
    return sha.hexdigest()


def hashes() -> dict[str, str]:
    """Rule set name -> the digest of its seeded sessions (all :data:`SEEDS`, in order)."""
    out = {}
    for name, rules in rule_sets().items():
        events: list[Event] = []
        for seed in SEEDS:
            events += play(rules, seed)
        out[name] = digest(events)
    return out


if __name__ == "__main__":  # pragma: no cover - a script
    print(json.dumps(hashes(), indent=4))
