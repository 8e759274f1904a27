"""The collusion report's test (issue 12, item 7): exact conditional moments of a partner's
hand strength, a brute-force check of the signal statistic, its error rate on independent
bots that share public information, and its power against two colluding schemes.

The simulations are small versions of ``benchmarks/collusion_error_rate.py`` (fixed seeds,
so the counts asserted are exact for this code; the bounds they are checked against are
the claims: at most alpha, power near 1)."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import pytest

from gutskit.core.cards import parse_cards
from gutskit.core.engine import (
    GameState,
    deal_from_rng,
    declare_all,
    end_session,
    new_session,
    start_event,
)
from gutskit.core.events import CardsDealt, Declaration, Event, Outcome
from gutskit.core.rules import Rules
from gutskit.core.views import SeatView, joint_views
from gutskit.strategy.analysis import (
    analyze,
    partner_strength_moments,
    rounds_of,
    signal_test,
    stratified_agreement_test,
)
from gutskit.strategy.bots import RuleOfThumbBot, Strategy, bot_table, hand_percentile
from gutskit.strategy.tables import hand_table

IN, OUT = Declaration.IN, Declaration.OUT
Collusion = Callable[[GameState, dict[int, Declaration]], dict[int, Declaration]]


@pytest.mark.parametrize("rules", [Rules(cards_per_hand=2), Rules()])
def test_partner_moments_match_enumeration(rules: Rules) -> None:
    ranking, k = rules.ranking, rules.cards_per_hand
    table = hand_table(ranking)
    own = [parse_cards(h)[:k] for h in ("As Ah Kd", "2c 3d 5h", "Ts 9s 8s", "7c 7d 2s")]
    mean, var = partner_strength_moments(own, ranking)
    for hand, m, v in zip(own, mean, var, strict=True):
        disjoint = ~np.isin(table.cards, hand).any(axis=1)
        assert disjoint.sum() == math.comb(52 - k, k)  # 1,225 or 18,424 partner hands
        g = table.percentile[disjoint]
        assert m == pytest.approx(g.mean(), abs=1e-12)
        assert v == pytest.approx(g.var(), abs=1e-12)
    # a pair of aces blocks the partner's aces: the partner is weaker than average
    assert mean[0] < 0.5 < mean[1]


def test_signal_statistic_by_brute_force() -> None:
    """z = sum w (X - mu) / sqrt(sum w^2 var), w = call minus the mean call among rounds
    whose own hand lies in the same tenth of percentiles; recomputed here by enumeration."""
    ranking = Rules(cards_per_hand=2).ranking
    table = hand_table(ranking)
    rng = random.Random(5)
    own, partner, calls = [], [], []
    for _ in range(40):
        cards = rng.sample(range(52), 4)
        own.append(tuple(cards[:2]))
        partner.append(tuple(cards[2:]))
        calls.append(rng.random() < 0.4)

    def pct(hand: Sequence[int]) -> float:
        index = int(np.flatnonzero((np.sort(table.cards, axis=1) == sorted(hand))
                                   .all(axis=1))[0])
        return float(table.percentile[index])

    bins = [min(int(pct(h) * 10), 9) for h in own]
    u = d = 0.0
    for t in range(40):
        same = [calls[s] for s in range(40) if bins[s] == bins[t]]
        w = calls[t] - sum(same) / len(same)
        rest = table.percentile[~np.isin(table.cards, own[t]).any(axis=1)]
        u += w * (pct(partner[t]) - rest.mean())
        d += w * w * rest.var()
    result = signal_test(calls, own, partner, [ranking] * 40)
    assert result["z"] == pytest.approx(u / math.sqrt(d), rel=1e-9)
    assert result["p_value"] == pytest.approx(math.erfc(abs(u / math.sqrt(d)) / math.sqrt(2)))
    assert result["rounds"] == 40


class MoodBot:
    """Independent, but reacts to public information the old strata did not hold: loose
    (in above the 30th percentile) after a showdown, tight (above the 85th) otherwise."""

    name = "mood"

    def declare(self, view: SeatView, rng: random.Random) -> Declaration:
        assert view.hand is not None
        last = view.last_result
        bar = 0.3 if last is not None and last.outcome is Outcome.SHOWDOWN else 0.85
        return IN if hand_percentile(view.hand, view.rules.ranking) >= bar else OUT


def _play(bots: Sequence[Strategy], rounds: int, rng: random.Random,
          collusion: Collusion | None = None, rules: Rules | None = None) -> list[Event]:
    names = [f"P{i}" for i in range(len(bots))]
    rules = rules or Rules()
    state = new_session(names, 10**6, rules=rules)
    events: list[Event] = [start_event(names, 10**6, rules=rules)]
    for _ in range(rounds):
        state, ev = deal_from_rng(state, rng)
        events += ev
        calls = {s: bots[s].declare(v, rng) for s, v in joint_views(state).items()}
        if collusion is not None:
            calls = collusion(state, calls)
        state, ev = declare_all(state, calls)
        events += ev
    state, ev = end_session(state)
    return events + ev


def test_shared_public_information_is_not_collusion() -> None:
    """Two independent bots that both loosen up after a showdown agree far beyond chance
    in any strata that ignore the last outcome (the old test's failure), yet neither's
    calls depend on the other's cards."""
    rng = random.Random(11)
    sessions = [_play([MoodBot(), MoodBot(), RuleOfThumbBot()], 150, rng) for _ in range(4)]
    records = rounds_of(sessions)
    old = stratified_agreement_test(
        [0 in r.ins for r in records], [1 in r.ins for r in records],
        [(min(8, int(math.log2(max(1.0, r.pot / r.ante)))), len(r.dealt)) for r in records])
    assert old["z"] > 5 and old["p_value"] < 0.001
    report = analyze(sessions)
    mood = next(c for c in report.collusion if c["players"] == ["P0", "P1"])
    assert mood["test"] == "partner's cards" and mood["signal"]["rounds"] == [600, 600]
    assert mood["z"] > 4 and mood["agreement_p_value"] < 0.001  # still described
    assert mood["p_value"] > 0.01 and not mood["flagged"]
    assert report.flagged_pairs == []


def _soft_play(state: GameState, calls: dict[int, Declaration]) -> dict[int, Declaration]:
    if calls.get(0) is IN and calls.get(1) is IN:
        a, b = (hand_percentile(state.hands[s] or (), state.rules.ranking) for s in (0, 1))
        calls[1 if a >= b else 0] = OUT
    return calls


def _weak_partner(state: GameState, calls: dict[int, Declaration]) -> dict[int, Declaration]:
    ranking = state.rules.ranking
    partner = hand_percentile(state.hands[0] or (), ranking)
    own = hand_percentile(state.hands[1] or (), ranking)
    calls[1] = IN if partner < 0.5 and (calls[1] is IN or own >= 0.5) else OUT
    return calls


def _batch(rounds: int, seed: int, collusion: Collusion | None = None) -> list[list[Event]]:
    """7 sessions of the `guts play` table (a standard bot in the human's seat)."""
    rng = random.Random(seed)
    return [_play([RuleOfThumbBot(), *bot_table(4)], rounds, rng, collusion)
            for _ in range(7)]


def test_error_rate_on_independent_bots() -> None:
    """30 batches of 7 sessions x 30 rounds: no batch flags a pair at alpha = 0.01, and
    the pairs' unadjusted p-values fall below 0.05 at a rate within 2 s.e. of 0.05."""
    flagged = below = tests = 0
    for seed in range(30):
        report = analyze(_batch(30, seed), alpha=0.01)
        flagged += bool(report.flagged_pairs)
        assert all(c["test"] == "partner's cards" for c in report.collusion)
        below += sum(c["p_value"] < 0.05 for c in report.collusion)
        tests += len(report.collusion)
    assert tests == 300
    assert flagged == 0
    assert below / tests <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / tests)


@pytest.mark.parametrize(("scheme", "rounds", "least"), [(_weak_partner, 30, 9),
                                                         (_soft_play, 240, 7)])
def test_power_against_colluders(scheme: Collusion, rounds: int, least: int) -> None:
    """The colluding pair (seats 0 and 1) is flagged in most of 10 batches, nobody else."""
    caught = 0
    for seed in range(10):
        report = analyze(_batch(rounds, 100 + seed, scheme), alpha=0.01)
        caught += ("P0", "P1") in report.flagged_pairs
        assert all(p == ("P0", "P1") for p in report.flagged_pairs)
    assert caught >= least


def _unrecorded(events: list[Event]) -> list[Event]:
    """The same history as a referee records it: hands dealt but not recorded."""
    return [replace(e, hands=tuple(None if h is None else () for h in e.hands))
            if isinstance(e, CardsDealt) else e for e in events]


def test_fallbacks_when_the_cards_say_nothing() -> None:
    """Without recorded hands the test falls back on the
    declarations; under sequential declaration only the rounds where the player called
    before the partner are tested."""
    rng = random.Random(3)
    copying: Collusion = lambda state, calls: {**calls, 1: calls[0]}  # noqa: E731
    history = _play([RuleOfThumbBot(), RuleOfThumbBot(), RuleOfThumbBot()], 200, rng,
                    copying)
    hidden = analyze([_unrecorded(history)])
    pair = next(c for c in hidden.collusion if c["players"] == ["P0", "P1"])
    assert pair["test"] == "declarations" and pair["signal"]["rounds"] == [0, 0]
    assert pair["p_value"] == pair["agreement_p_value"] and pair["flagged"]
    seen = analyze([history])
    assert seen.flagged_pairs == [("P0", "P1")]
    sequential = Rules(declaration="sequential")
    history = _play([RuleOfThumbBot()] * 3, 90, rng, rules=sequential)
    records = rounds_of([history])
    for c in analyze([history]).collusion:
        a, b = (int(name[1:]) for name in c["players"])
        first = sum(r.declaration_order.index(a) < r.declaration_order.index(b)
                    for r in records)
        assert c["signal"]["rounds"] == [first, 90 - first]
        assert 0 < first < 90


def test_pairs_are_tested_once_each() -> None:
    report = analyze(_batch(12, 0))
    assert sorted(tuple(c["players"]) for c in report.collusion) == sorted(
        itertools.combinations([f"P{i}" for i in range(5)], 2))
    for c in report.collusion:
        assert set(c) >= {"players", "rounds", "agreement", "both_in", "expected_both_in",
                          "z", "odds_ratio", "p_value", "p_adjusted", "flagged",
                          "agreement_p_value", "test", "signal"}
