"""Per-seat views (issue 2, part 4): a seat sees only what it may know."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import IN, NAMES, OUT, deal_cards, play_round, table

from gutskit.core.cards import Card, parse_cards
from gutskit.core.engine import GameState, Phase, declare, declare_all, evolve, start_event
from gutskit.core.events import (
    CardsDealt,
    DeclarationsRevealed,
    Declared,
    Event,
    RoundResolved,
)
from gutskit.core.rules import Rules
from gutskit.core.table import waiting_for
from gutskit.core.views import DeclarationSealed, SeatView, joint_views, view_for, visible_events

HANDS = {0: "Qs Qh 7d", 1: "7c 5d 2h", 2: "Jc Ts 4h", 3: "9d 9c 8s"}


def c(text: str) -> tuple[int, ...]:
    return parse_cards(text)


def cards_in_view(view: SeatView) -> set[Card]:
    """Every card a view holds: its own hand and the hands shown at the last showdown."""
    cards = set(view.hand or ())
    if view.last_result is not None:
        for hand in view.last_result.shown:
            cards.update(hand or ())
    return cards


def dealt_state(**rules: Any) -> GameState:
    state = table(4, 30, dealer=0, **rules)
    state, _ = deal_cards(state, HANDS)
    return state


def test_a_seat_sees_only_its_own_cards() -> None:
    state = dealt_state()
    for seat in range(4):
        view = view_for(state, seat)
        assert view.seat == seat
        assert view.hand == c(HANDS[seat])
        assert cards_in_view(view) == set(c(HANDS[seat]))
        assert view.dealt_in == (True,) * 4
        assert view.opponents == 3
        assert seat in waiting_for(state)  # whose turn: the table driver's one answer
        assert (view.pot, view.owed, view.stacks, view.phase) == (4, 4, (29,) * 4,
                                                                  Phase.DECLARE)


def test_views_outside_the_declare_phase_hold_no_hand() -> None:
    state = table(4, 30)
    view = view_for(state, 0)
    assert view.hand is None
    assert waiting_for(state) == ()
    assert cards_in_view(view) == set()


def test_showdown_shows_only_the_hands_of_players_in() -> None:
    state = dealt_state()
    state, _ = declare_all(state, {0: IN, 1: OUT, 2: IN, 3: OUT})
    shown = set(c(HANDS[0])) | set(c(HANDS[2]))
    for seat in range(4):
        view = view_for(state, seat)
        assert view.hand is None  # the round is over
        assert cards_in_view(view) == shown
        assert view.last_result is not None
        assert view.last_result.shown == (c(HANDS[0]), None, c(HANDS[2]), None)


def test_an_uncontested_winner_shows_nothing() -> None:
    state = dealt_state()
    state, _ = declare_all(state, {0: OUT, 1: IN, 2: OUT, 3: OUT})
    for seat in range(4):
        assert cards_in_view(view_for(state, seat)) == set()


def test_a_void_round_shows_nothing() -> None:
    state = dealt_state()
    state, _ = declare_all(state, {0: OUT, 1: OUT, 2: OUT, 3: OUT})
    for seat in range(4):
        assert cards_in_view(view_for(state, seat)) == set()


def test_simultaneous_declarations_are_sealed_until_the_reveal() -> None:
    state = dealt_state()
    state, _ = declare(state, 2, IN)
    state, _ = declare(state, 0, OUT)
    for seat in (1, 3):
        view = view_for(state, seat)
        assert view.declarations == (None,) * 4
        assert view.declared == (True, False, True, False)  # that, not what
        assert seat in waiting_for(state)
    assert view_for(state, 2).declarations == (None, None, IN, None)
    assert view_for(state, 0).declarations == (OUT, None, None, None)
    assert 0 not in waiting_for(state)


def test_drop_declaration_is_sealed_too() -> None:
    state = dealt_state(declaration="drop")
    state, _ = declare(state, 1, IN)
    assert view_for(state, 2).declarations == (None,) * 4


def test_sequential_declarations_are_seen_as_made() -> None:
    state = dealt_state(declaration="sequential")
    state, _ = declare(state, 1, IN)   # dealer Ana: Ben first
    state, _ = declare(state, 2, OUT)
    for seat in range(4):
        assert view_for(state, seat).declarations == (None, IN, OUT, None)
    assert waiting_for(state) == (3,)  # sequential: Dan's turn only (not Ana's)


def test_joint_views_are_the_views_of_the_dealt_seats() -> None:
    state = table(4, [30, 0, 30, 30], dealer=0)
    state, _ = deal_cards(state, {0: HANDS[0], 2: HANDS[2], 3: HANDS[3]})
    views = joint_views(state)
    assert sorted(views) == [0, 2, 3]
    for seat, view in views.items():
        assert view == view_for(state, seat)
    assert view_for(state, 1).hand is None
    assert view_for(state, 1).dealt_in == (True, False, True, True)
    assert views[0].opponents == 2


def test_view_of_a_seat_not_at_the_table() -> None:
    with pytest.raises(IndexError, match="seat 4"):
        view_for(table(4, 30), 4)


def test_owed_is_the_capped_match() -> None:
    state = table(3, 100, pot=80, pot_cap=50)
    assert view_for(state, 0).owed == 50
    state = table(3, 100, pot=80, pot_cap=50, pot_cap_mode="reserve")
    assert view_for(state, 0).owed == 80


# --- the redacted hand history -----------------------------------------------------------------


def a_round(**rules: Any) -> list[Event]:
    state = table(4, 30, dealer=0, **rules)
    _, events = play_round(state, HANDS, ins=[0, 2])
    return events


def test_visible_events_redact_other_hands() -> None:
    events = a_round()
    for seat in range(4):
        visible = visible_events(events, seat)
        dealt = [e for e in visible if isinstance(e, CardsDealt)]
        assert len(dealt) == 1
        expected = tuple(c(HANDS[s]) if s == seat else () for s in range(4))
        assert dealt[0].hands == expected
        # the showdown hands stay: they were shown
        result = visible[-1]
        assert isinstance(result, RoundResolved)
        assert result.shown == (c(HANDS[0]), None, c(HANDS[2]), None)


def test_visible_events_keep_none_for_seats_not_dealt_in() -> None:
    state = table(3, [30, 0, 30])
    _, events = play_round(state, {0: HANDS[0], 2: HANDS[2]}, ins=[0])
    dealt = next(e for e in visible_events(events, 0) if isinstance(e, CardsDealt))
    assert dealt.hands == (c(HANDS[0]), None, ())


def test_visible_events_seal_other_declarations() -> None:
    state = table(3, 30, dealer=0)
    state, log = deal_cards(state, {0: HANDS[0], 1: HANDS[1], 2: HANDS[2]})
    for seat, choice in ((1, IN), (0, OUT), (2, IN)):
        state, events = declare(state, seat, choice)
        log += events
    visible = visible_events(log, 0)
    declared = [e for e in visible if isinstance(e, Declared | DeclarationSealed)]
    assert declared == [DeclarationSealed(1), Declared(0, OUT), DeclarationSealed(2)]
    # the reveal shows everything at once
    assert DeclarationsRevealed((OUT, IN, IN)) in visible


def test_visible_events_under_sequential_declaration_keep_the_calls() -> None:
    start = start_event(NAMES[:3], 30, rules=Rules(declaration="sequential"))
    state, log = deal_cards(evolve(None, start), {0: HANDS[0], 1: HANDS[1], 2: HANDS[2]})
    log.insert(0, start)
    for seat, choice in ((1, IN), (2, OUT), (0, IN)):
        state, events = declare(state, seat, choice)
        log += events
    visible = visible_events(log, 2)
    declared = [e for e in visible if isinstance(e, Declared | DeclarationSealed)]
    assert declared == [Declared(1, IN), Declared(2, OUT), Declared(0, IN)]
    # without the SessionStarted record the rules are unknown: sealed, the safe side
    partial = visible_events(log[1:], 2)
    assert [e for e in partial if isinstance(e, Declared | DeclarationSealed)] == [
        DeclarationSealed(1), Declared(2, OUT), DeclarationSealed(0)]


def test_visible_events_leave_the_full_history_alone() -> None:
    events = a_round()
    before = list(events)
    visible_events(events, 1)
    assert events == before
    dealt = next(e for e in events if isinstance(e, CardsDealt))
    assert all(h is not None and len(h) == 3 for h in dealt.hands)
