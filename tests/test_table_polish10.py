"""The table driver's rule for coming back from away (fresh9: ``away`` then ``back`` in the
same round dealt you out of the next round)."""

from __future__ import annotations

import random

import pytest

from gutskit.core import table
from gutskit.core.cards import parse_cards
from gutskit.core.engine import IllegalActionError, Phase, new_session
from gutskit.core.events import AntesPosted, CardsDealt, Declaration

IN = Declaration.IN


def test_away_and_back_before_the_next_deal_is_dealt_the_next_round_of_the_game() -> None:
    # Seed 1: Ana Ac 3s 9h, Ben 4c 3c 9s, Cleo Jc 6c 9c (a flush). Cleo goes away during
    # round 1; all three go in; Cleo wins the pot of 3, Ana and Ben match 3 each: the pot
    # of 6 carries over, the game goes on. Cleo missed no round of it: back at once.
    state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0)
    state, events = table.deal(state, rng=random.Random(1))
    assert isinstance(events[1], CardsDealt)
    assert events[1].hands == (parse_cards("Ac 3s 9h"), parse_cards("4c 3c 9s"),
                               parse_cards("Jc 6c 9c"))
    state, _ = table.sit_out(state, 2)
    assert table.can_come_back(state, 2) is None  # during the round it was dealt into
    state, _ = table.declare_all(state, {0: IN, 1: IN, 2: IN})
    assert (state.phase, state.pot, state.stacks) == (Phase.DEAL, 6, (16, 16, 22))
    assert table.game_in_progress(state)
    assert table.can_come_back(state, 2) is None
    assert table.legal_actions(state, 2).may_come_back
    state, _ = table.come_back(state, 2)
    state, events = table.deal(state, rng=random.Random(2))
    # round 2 of game 1: no ante (the pot carries over), Cleo dealt in
    assert len(events) == 1 and isinstance(events[0], CardsDealt)
    assert all(hand is not None for hand in events[0].hands)
    assert state.game_number == 1 and state.pot == 6


def test_a_seat_dealt_out_of_a_round_still_waits_for_the_next_game() -> None:
    # As above, but Cleo stays away through round 2's deal (dealt out): from then on she
    # has missed a round of this game and comes back only when it is won.
    state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0)
    state, _ = table.deal(state, rng=random.Random(1))
    state, _ = table.sit_out(state, 2)
    state, _ = table.declare_all(state, {0: IN, 1: IN, 2: IN})
    state, events = table.deal(state, rng=random.Random(2))
    assert isinstance(events[0], CardsDealt) and events[0].hands[2] is None
    message = ("'Cleo' comes back when the next game starts (the pot of 6 is still being "
               "played for)")
    assert table.can_come_back(state, 2) == message
    with pytest.raises(IllegalActionError) as raised:
        table.come_back(state, 2)
    assert str(raised.value) == message


def test_away_between_games_and_back_antes_into_the_new_game() -> None:
    # Between games (the pot is empty) nothing changes: back at once, antes at the deal.
    state = new_session(["Ana", "Ben", "Cleo"], 20, dealer=0)
    state, _ = table.sit_out(state, 1)
    state, _ = table.come_back(state, 1)
    state, events = table.deal(state, rng=random.Random(1))
    assert isinstance(events[0], AntesPosted) and events[0].amounts == (1, 1, 1)
