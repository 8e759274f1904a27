"""Properties of the variants over random house rules and random sessions (hypothesis):
chip conservation, replay, JSON hand histories, and no hidden information in any view
(other hands, the ghost hand, the community card, passed cards, sealed declarations; under
No Peek one's own cards), checked by counterfactuals: two deals that differ only in what a
seat may not know must give that seat the same view and the same redacted history.
"""

from __future__ import annotations

import json
import random
from typing import Any

from conftest import NAMES, mixed_bots
from hypothesis import given, settings
from hypothesis import strategies as st

from gutskit.core.cards import DECK
from gutskit.core.engine import (
    GameState,
    Phase,
    can_deal,
    can_rebuy,
    deal,
    deal_from_deck,
    declare,
    declare_all,
    end_session,
    evolve,
    legal_declarations,
    misdeal,
    pass_all,
    pass_card,
    rebuy,
    replay,
    start_event,
)
from gutskit.core.events import Declaration, Event, Hand
from gutskit.core.history import event_from_dict, event_to_dict
from gutskit.core.payments import settle_up
from gutskit.core.rules import Rules
from gutskit.core.views import view_for, visible_events
from gutskit.strategy.bots import bots_pass, choose_pass


@st.composite
def variant_rules(draw: st.DrawFn) -> Rules:
    """Any valid combination of the variants with the money rules."""
    hi_lo = draw(st.booleans())
    no_peek = draw(st.booleans())
    return Rules(
        cards_per_hand=draw(st.sampled_from([2, 3])),
        hi_lo=hi_lo,
        no_peek=no_peek,
        pass_the_trash=not no_peek and draw(st.booleans()),
        ghost_hand=not hi_lo and draw(st.booleans()),
        losers_pay="all" if hi_lo else draw(st.sampled_from(["all", "worst"])),
        community_card=draw(st.booleans()),
        all_out=draw(st.sampled_from(["reante", "carry", "best_pays_antes"])),
        declaration=draw(st.sampled_from(["simultaneous", "sequential", "drop"])),
        shortfall=draw(st.sampled_from(["eliminate", "table_stakes", "debt"])),
        pot_cap=draw(st.none() | st.integers(3, 40)),
        pot_cap_mode=draw(st.sampled_from(["match", "reserve"])),
        odd_chip=draw(st.sampled_from(["carry", "first_left_of_dealer"])),
        suit_tiebreak=draw(st.sampled_from(["none", "high_card", "always"])),
        rebuys=draw(st.booleans()),
        ante_every_round=draw(st.booleans()),
    )


def declare_round(state: GameState, bots: list[Any], rng: random.Random,
                  events: list[Event]) -> GameState:
    """Passes (joint or one by one) then declarations (joint or one by one)."""
    if state.phase is Phase.PASS:
        if rng.random() < 0.5:
            state, new = bots_pass(state, bots, rng)
            events += new
        else:
            for seat in rng.sample(state.dealt, len(state.dealt)):
                card = choose_pass(bots[seat], view_for(state, seat), rng)
                state, new = pass_card(state, seat, card)
                events += new
    if state.rules.declaration != "sequential" and rng.random() < 0.5:
        choices = {s: bots[s].declare(view_for(state, s), rng) for s in state.dealt}
        state, new = declare_all(state, choices)
        events += new
        return state
    order = list(state.declaration_order())
    if state.rules.declaration != "sequential":
        rng.shuffle(order)
    for seat in order:
        state, new = declare(state, seat, bots[seat].declare(view_for(state, seat), rng))
        events += new
    return state


@settings(max_examples=40, deadline=None)
@given(rules=variant_rules(), n=st.integers(2, 6), seed=st.integers(0, 2**32),
       limit=st.none() | st.integers(5, 30))
def test_random_variant_sessions_conserve_chips_and_replay(rules: Rules, n: int, seed: int,
                                                           limit: int | None) -> None:
    rng = random.Random(seed)
    bots = mixed_bots(n, rng)
    start = start_event(NAMES[:n], [rng.randint(5, 40) for _ in range(n)],
                        dealer=rng.randrange(n), rules=rules,
                        loss_limits=[limit] + [None] * (n - 1))
    state = evolve(None, start)
    events: list[Event] = [start]
    bought = sum(start.stacks)
    for _ in range(25):
        if rules.rebuys:
            for seat in range(n):
                if can_rebuy(state, seat, 10) is None and rng.random() < 0.5:
                    state, new = rebuy(state, seat, 10)
                    events += new
                    bought += 10
        if can_deal(state) is not None:
            break
        deck = rng.sample(DECK, 52)
        hands, ghost, community = deal_from_deck(state, deck)
        state, new = deal(state, hands, ghost=ghost, community=community)
        events += new
        if rng.random() < 0.05:
            state, new = misdeal(state)
            events += new
            continue
        state = declare_round(state, bots, rng, events)
        assert sum(state.stacks) + state.pot + state.reserve == bought
        if rules.shortfall != "debt":
            assert min(state.stacks) >= 0
    state, new = end_session(state)
    events += new
    assert sum(state.stacks) == bought and state.pot == state.reserve == 0
    assert replay(events) == state
    records = [json.loads(json.dumps(event_to_dict(e))) for e in events]
    assert replay(event_from_dict(r) for r in records) == state


def redeal(state: GameState, seat: int, hands: tuple[Hand | None, ...], ghost: Hand | None,
           community: Hand | None, rng: random.Random, keep: dict[int, int] | None = None,
           own_hidden: bool = False) -> tuple[tuple[Hand | None, ...], Hand | None,
                                              Hand | None]:
    """Another deal that ``seat`` cannot tell apart: every card ``seat`` may not see is
    drawn again (its own too when ``own_hidden``); ``keep`` = {seat: card} stays put."""
    kept = {c for c in (() if own_hidden else hands[seat] or ())} | set((keep or {}).values())
    pool = [c for c in DECK if c not in kept]
    rng.shuffle(pool)
    new_hands: list[Hand | None] = []
    for s, hand in enumerate(hands):
        if hand is None or (s == seat and not own_hidden):
            new_hands.append(hand)
            continue
        fixed = [keep[s]] if keep and s in keep else []
        new_hands.append((*fixed, *(pool.pop() for _ in range(len(hand) - len(fixed)))))
    new_ghost = None if ghost is None else tuple(pool.pop() for _ in ghost)
    new_community = None if community is None else tuple(pool.pop() for _ in community)
    return tuple(new_hands), new_ghost, new_community


def givers(state: GameState) -> dict[int, int]:
    order = state.declaration_order()
    return {order[(i + 1) % len(order)]: s for i, s in enumerate(order)}


@settings(max_examples=60, deadline=None)
@given(rules=variant_rules(), n=st.integers(2, 7), seed=st.integers(0, 2**32))
def test_no_hidden_information_in_any_view(rules: Rules, n: int, seed: int) -> None:
    rng = random.Random(seed)
    state = evolve(None, start_event(NAMES[:n], 30, dealer=rng.randrange(n), rules=rules))
    seat = rng.randrange(n)
    hands, ghost, community = deal_from_deck(state, rng.sample(DECK, 52))
    passing = rules.pass_the_trash
    first, ev1 = deal(state, hands, ghost=ghost, community=community)
    passes = {s: rng.choice(h) for s, h in enumerate(hands) if h}
    keep = {givers(first)[seat]: passes[givers(first)[seat]]} if passing else None
    other = redeal(state, seat, hands, ghost, community, rng, keep=keep,
                   own_hidden=rules.no_peek)
    second, ev2 = deal(state, other[0], ghost=other[1], community=other[2])
    if not rules.no_peek:  # before the exchange a seat sees its own dealt hand
        assert view_for(first, seat) == view_for(second, seat)
    assert visible_events(ev1, seat, rules=rules) == visible_events(ev2, seat, rules=rules)
    if passing:
        passes2 = {s: (passes[s] if s == seat or (keep and s in keep) else h[0])
                   for s, h in enumerate(other[0]) if h}
        first, more1 = pass_all(first, passes)
        second, more2 = pass_all(second, passes2)
        ev1 += more1
        ev2 += more2
        assert view_for(first, seat) == view_for(second, seat)
        assert visible_events(ev1, seat, rules=rules) == visible_events(ev2, seat, rules=rules)
    # Sealed declarations: the others declare differently in the two worlds.
    if rules.declaration != "sequential":
        choices = legal_declarations(rules)
        for s in first.declaration_order():
            if s == seat:
                continue
            first, more1 = declare(first, s, Declaration.OUT)
            second, more2 = declare(second, s, rng.choice(choices))
            ev1 += more1
            ev2 += more2
        view1, view2 = view_for(first, seat), view_for(second, seat)
        assert view1 == view2
        assert visible_events(ev1, seat, rules=rules) == visible_events(ev2, seat, rules=rules)
        if rules.no_peek:
            assert view1.hand == ()


@settings(max_examples=80, deadline=None)
@given(nets=st.lists(st.integers(-60, 60), min_size=1, max_size=9))
def test_settle_up_settles_every_net_in_at_most_n_minus_1_payments(nets: list[int]) -> None:
    nets = [*nets, -sum(nets)]
    table = {NAMES[i]: net for i, net in enumerate(nets)}
    payments = settle_up(table)
    left = dict(table)
    for payment in payments:
        assert payment.chips > 0 and payment.payer != payment.payee
        left[payment.payer] += payment.chips
        left[payment.payee] -= payment.chips
    assert all(v == 0 for v in left.values())
    movers = sum(1 for v in nets if v)
    assert len(payments) <= max(0, movers - 1)
