"""Invariants over random house rules and random sessions of bots (issue 2, part 7).

Every event of every session is checked: chips conserved, no negative stack except under
``shortfall = "debt"``, only seats in play dealt in, showdown hands shown exactly for the
players in, and every seat's view holding no card and no declaration it may not know.
Sessions are deterministic under a seed and their history replays to the final state.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, get_args

from conftest import bot_session
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gutskit.core import settlement
from gutskit.core.cards import Card
from gutskit.core.engine import GameState, Phase, evolve, replay
from gutskit.core.evaluation import Ranking, compare, evaluate
from gutskit.core.events import (
    AntesPosted,
    CardsDealt,
    Declaration,
    DeclarationsRevealed,
    Declared,
    Event,
    Outcome,
    RoundResolved,
)
from gutskit.core.history import event_from_dict, event_to_dict
from gutskit.core.rules import Rules
from gutskit.core.views import DeclarationSealed, SeatView, view_for, visible_events

SESSION_SETTINGS = settings(max_examples=40, deadline=None,
                            suppress_health_check=[HealthCheck.too_slow])


CHOICES: dict[str, list[Any]] = {
    "cards_per_hand": [2, 3],
    "ante_every_round": [False, True],
    "declaration": ["simultaneous", "sequential", "drop"],
    "all_out": ["reante", "carry", "best_pays_antes"],
    "ace_low_straight": [False, True],
    "suit_tiebreak": ["none", "high_card", "always"],
    "odd_chip": ["carry", "first_left_of_dealer"],
    "pot_cap_mode": ["match", "reserve"],
    "shortfall": ["eliminate", "table_stakes", "debt"],
    "require_cover": [False, True],
    "end_on_uncontested": [False, True],
}
"""Every value of every issue-2 house rule with a fixed set of values (``ante`` and
``pot_cap`` are drawn as numbers)."""


@st.composite
def house_rules(draw: st.DrawFn) -> Rules:
    """Any combination of the house rules of issue 2, every value of each."""
    ante = draw(st.sampled_from([1, 1, 2, 5]))
    cap = draw(st.one_of(st.none(), st.integers(ante, 12 * ante)))
    choices = {key: draw(st.sampled_from(values)) for key, values in CHOICES.items()}
    return Rules(ante=ante, pot_cap=cap, **choices)


@st.composite
def tables(draw: st.DrawFn) -> dict[str, Any]:
    """A random table: rules, 2-10 stacks (some short, now and then an empty one), the
    first dealer, a starting pot and reserve, and the seed for the deck and the bots."""
    rules = draw(house_rules())
    n = draw(st.integers(2, 10))
    stacks = draw(st.lists(st.one_of(st.integers(1, 60), st.just(0), st.integers(1, 5)),
                           min_size=n, max_size=n))
    return {
        "rules": rules,
        "stacks": stacks,
        "dealer": draw(st.integers(0, n - 1)),
        "pot": draw(st.sampled_from([0, 0, 0, 3, 17, 60])),
        "reserve": draw(st.sampled_from([0, 0, 9])),
        "seed": draw(st.integers(0, 2**32)),
        "max_rounds": draw(st.integers(1, 30)),
    }


def run(table: dict[str, Any]) -> tuple[GameState, list[Event]]:
    return bot_session(table["rules"], table["stacks"], seed=table["seed"],
                       max_rounds=table["max_rounds"], dealer=table["dealer"],
                       pot=table["pot"], reserve=table["reserve"])


def cards_in_view(view: SeatView) -> set[Card]:
    """Every card the view holds: the seat's hand and the hands in the last settlement."""
    cards = set(view.hand or ())
    if view.last_result is not None:
        for hand in view.last_result.shown:
            cards.update(hand or ())
    for extra in (getattr(view, "passed", None), getattr(view, "received", None)):
        if extra is not None:
            cards.add(extra)
    return cards


def check_views(state: GameState, public_cards: set[Card]) -> None:
    """No view holds a card or a declaration its seat may not know."""
    sealed = state.rules.declaration != "sequential"
    for seat in range(state.n_seats):
        view = view_for(state, seat)
        own = state.hands[seat] if state.phase is Phase.DECLARE else None
        assert view.hand == own
        allowed = public_cards | set(own or ())
        assert cards_in_view(view) <= allowed, (seat, cards_in_view(view) - allowed)
        # what other seats declared: only under sequential declaration before the reveal
        for other in range(state.n_seats):
            if other == seat:
                continue
            if state.phase is Phase.DECLARE and sealed:
                assert view.declarations[other] is None
            elif state.phase is Phase.DECLARE:
                assert view.declarations[other] == state.declarations[other]
        assert view.stacks == state.stacks
        assert view.pot == state.pot


def check_session(events: list[Event]) -> GameState:
    """Walk the history event by event and check every invariant; returns the final state."""
    state: GameState | None = None
    dealing_from: GameState | None = None  # the state before the antes of the next deal
    for event in events:
        before = state
        if isinstance(event, AntesPosted) or (isinstance(event, CardsDealt)
                                              and dealing_from is None):
            dealing_from = before
        state = evolve(state, event)
        rules = state.rules
        # conservation and signs
        assert sum(state.stacks) + state.pot + state.reserve == state.total
        assert state.pot >= 0 and state.reserve >= 0
        if rules.shortfall != "debt":
            assert min(state.stacks) >= 0, state.stacks
        if before is None:
            continue
        if isinstance(event, AntesPosted) and rules.all_out != "best_pays_antes":
            # (under best_pays_antes the best hand of a void round pays the antes: issue 3)
            assert before.antes_due
            for seat, amount in enumerate(event.amounts):
                if before.in_play(seat):
                    expected = settlement.ante_amount(before.stacks[seat], rules)
                    assert amount == expected
                else:
                    assert amount == 0
        elif isinstance(event, CardsDealt):
            assert dealing_from is not None
            for seat, hand in enumerate(event.hands):
                # dealt in: exactly the seats in play before the antes
                assert (hand is not None) == dealing_from.in_play(seat)
                assert hand is None or len(hand) == rules.cards_per_hand
            dealing_from = None
            dealt = [c for h in event.hands if h for c in h]
            assert len(dealt) == len(set(dealt))
        elif isinstance(event, Declared) and rules.declaration == "sequential":
            assert event.seat == before.next_to_declare()
        elif isinstance(event, DeclarationsRevealed):
            for seat, decl in enumerate(event.declarations):
                assert (decl is not None) == (before.hands[seat] is not None)
                if decl is Declaration.IN and rules.require_cover:
                    assert before.stacks[seat] >= settlement.match_amount(before.pot, rules)
        elif isinstance(event, RoundResolved):
            check_resolution(before, event)
        # public: the hands shown at the last showdown (checked above to be exactly the
        # hands of the players who were in)
        shown = state.last_result.shown if state.last_result is not None else ()
        check_views(state, {c for h in shown if h for c in h})
    assert state is not None
    return state


def check_resolution(before: GameState, event: RoundResolved) -> None:
    rules = before.rules
    ins = [s for s, d in enumerate(before.declarations) if d is Declaration.IN]
    if not ins:
        assert event.outcome is Outcome.VOID
    elif len(ins) == 1:
        assert event.outcome is Outcome.UNCONTESTED
        assert event.winners == (ins[0],)
        assert event.won[ins[0]] == before.pot and event.pot_after == 0
    else:
        assert event.outcome is Outcome.SHOWDOWN
        owed = settlement.match_amount(before.pot, rules)
        for seat in ins:
            if seat not in event.winners:
                assert event.matched[seat] <= owed
                if rules.shortfall == "debt":
                    assert event.matched[seat] == owed
        # the pot goes to the winners, the split remainder stays: pot_after (+ the part
        # moved to the reserve) is that carry-over plus the matches
        carry = event.pot_after + event.to_reserve - sum(event.matched)
        assert sum(event.won) + carry == before.pot
        assert 0 <= carry < len(event.winners)
        if rules.pot_cap is not None and rules.pot_cap_mode == "reserve":
            assert event.pot_after <= rules.pot_cap
    if event.outcome is Outcome.VOID and rules.all_out == "best_pays_antes":
        return  # a variant (issue 3): the hands are compared to find who pays the antes
    for seat in range(before.n_seats):
        shown = event.shown[seat]
        if event.outcome is Outcome.SHOWDOWN and seat in ins:
            assert shown == before.hands[seat]
        else:
            assert shown is None  # out players' and uncontested winners' cards: never
    assert sum(event.won) <= before.pot


@SESSION_SETTINGS
@given(tables())
def test_random_sessions_keep_every_invariant(table: dict[str, Any]) -> None:
    final, events = run(table)
    assert check_session(events) == final
    assert final.phase is Phase.OVER
    assert final.pot == final.reserve == 0


@SESSION_SETTINGS
@given(tables())
def test_sessions_are_deterministic_and_replay(table: dict[str, Any]) -> None:
    final, events = run(table)
    again, events_again = run(table)
    assert events_again == events
    assert again == final
    assert replay(events) == final
    decoded = [event_from_dict(json.loads(json.dumps(event_to_dict(e)))) for e in events]
    assert decoded == events
    assert replay(decoded) == final


@settings(max_examples=20, deadline=None)
@given(tables(), st.integers(0, 9))
def test_redacted_histories_hold_no_hidden_information(table: dict[str, Any],
                                                       seat_pick: int) -> None:
    _, events = run(table)
    seat = seat_pick % len(table["stacks"])
    sealed = table["rules"].declaration != "sequential"
    for original, seen in zip(events, visible_events(events, seat), strict=True):
        if isinstance(original, CardsDealt):
            assert isinstance(seen, CardsDealt)
            for s, hand in enumerate(seen.hands):
                expected = original.hands[s] if s == seat or original.hands[s] is None else ()
                assert hand == expected
        elif isinstance(original, Declared) and original.seat != seat and sealed:
            assert seen == DeclarationSealed(original.seat)
        else:
            assert seen == original


# --- evaluation and settlement -----------------------------------------------------------------


def disjoint_hands(n: int) -> st.SearchStrategy[tuple[list[int], list[int]]]:
    return st.permutations(range(52)).map(lambda deck: (deck[:n], deck[n:2 * n]))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([2, 3]), st.booleans(), st.sampled_from(["none", "high_card", "always"]),
       st.data())
def test_compare_is_antisymmetric_and_agrees_with_keys(cards: int, ace_low: bool,
                                                       tiebreak: Any, data: st.DataObject
                                                       ) -> None:
    ranking = Ranking(cards_per_hand=cards, ace_low_straight=ace_low, suit_tiebreak=tiebreak)
    first, second = data.draw(disjoint_hands(cards))
    result = compare(first, second, ranking)
    assert compare(second, first, ranking) == -result
    a, b = evaluate(first, ranking), evaluate(second, ranking)
    assert result == (a.key > b.key) - (a.key < b.key)
    if tiebreak == "always":
        assert result != 0  # two different hands never tie when suits always decide
    if a.category != b.category:
        assert result == (1 if a.category > b.category else -1)


@given(st.integers(0, 10_000), st.lists(st.integers(0, 9), min_size=1, max_size=10,
                                        unique=True), st.integers(0, 9),
       st.sampled_from(["carry", "first_left_of_dealer"]))
def test_split_pot_conserves_chips(pot: int, winners: Sequence[int], dealer: int,
                                   odd_chip: Any) -> None:
    shares, carry = settlement.split_pot(pot, sorted(winners), dealer, 10,
                                         Rules(odd_chip=odd_chip))
    assert sum(shares.values()) + carry == pot
    assert 0 <= carry < len(winners)
    if odd_chip == "first_left_of_dealer":
        assert carry == 0
    assert max(shares.values()) - min(shares.values()) <= pot % len(winners)


@given(st.integers(0, 10_000), st.lists(st.integers(0, 9), max_size=10, unique=True),
       st.integers(0, 9))
def test_share_evenly_conserves_chips(amount: int, seats: Sequence[int], dealer: int) -> None:
    shares = settlement.share_evenly(amount, seats, dealer, 10)
    if seats:
        assert sum(shares.values()) == amount
        assert max(shares.values()) - min(shares.values()) <= 1
    else:
        assert shares == {}


def test_every_house_rule_value_is_drawn() -> None:
    # the strategy draws from every value the rules accept for each of these house rules
    for key, values in CHOICES.items():
        annotation = Rules.model_fields[key].annotation
        accepted = set(get_args(annotation)) or {False, True}
        assert set(values) == accepted, key
