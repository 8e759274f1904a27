"""The OpenSpiel game (issue 12, item 8): OpenSpiel's random-simulation test on several
rule sets, information sets that hide sealed declarations, returns worked by hand, and the
game's gains equal to the certified solver's recursive model (so the solver measures what
OpenSpiel learns)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
import pytest

from gutskit.core.cards import parse_cards
from gutskit.core.rules import Rules
from gutskit.envs.openspiel_game import GAME_NAME, GutsState
from gutskit.strategy.certify import hand_gains
from gutskit.strategy.tables import combination_index, hand_table


@pytest.mark.parametrize("params", [
    {},
    {"players": 3, "cards": 3},
    {"players": 3, "rules": "declaration:sequential"},
    {"players": 4, "stack": 3, "rules": "hi_lo:true;require_cover:true"},
    {"rules": "ghost_hand:true;community_card:true;ante:2"},
])
def test_random_simulation(params: dict[str, Any]) -> None:
    game = pyspiel.load_game(GAME_NAME, params)
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)


def _dealt(game: Any, cards: str) -> GutsState:
    """A heads-up state after dealing ``cards`` (deal order: seat 1 first, one card at a
    time, dealer seat 0)."""
    state = game.new_initial_state()
    for card in parse_cards(cards):
        state.apply_action(card)
    return state  # type: ignore[no-any-return]


def test_a_round_worked_by_hand() -> None:
    game = pyspiel.load_game(GAME_NAME, {"stack": 10})
    # seat 1 gets As Ks, seat 0 gets Qh Qd; seat 1 declares first
    state = _dealt(game, "As Qh Ks Qd")
    assert state.current_player() == 1 and state.legal_actions() == [0, 1]
    assert state.information_state_string(1) == (
        "seat 1 dealer 0 hand Ks As pot 2 stacks 9,9 calls ?,?")
    before = state.information_state_string(0)
    state.apply_action(1)  # seat 1 in
    # sealed: seat 0 cannot tell what seat 1 declared
    assert state.information_state_string(0) == before
    assert state.current_player() == 0
    both_in = state.clone()
    both_in.apply_action(1)
    # a pair of queens beats ace high: seat 0 takes the pot (+1 net of its ante), seat 1
    # matches 2, and that pot of 2 is shared at the end: seat 0 +2, seat 1 -2
    assert both_in.is_terminal() and both_in.returns() == [2.0, -2.0]
    state.apply_action(0)  # seat 0 out: seat 1 alone takes the pot of 2
    assert state.returns() == [-1.0, 1.0]
    void = _dealt(game, "As Qh Ks Qd")
    void.apply_action(0)
    void.apply_action(0)
    assert void.returns() == [0.0, 0.0]  # nobody in: the pot is shared back


def test_sequential_declaration_is_seen() -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": "declaration:sequential"})
    state = _dealt(game, "As Qh Ks Qd")
    state.apply_action(1)
    assert state.information_state_string(0).endswith("calls ?,in")


def test_observation_tensor_is_the_view() -> None:
    game = pyspiel.load_game(GAME_NAME)
    state = _dealt(game, "As Qh Ks Qd")
    tensor = np.asarray(state.observation_tensor(0))
    assert sorted(np.flatnonzero(tensor[:52])) == sorted(parse_cards("Qh Qd"))
    assert len(tensor) == game.observation_tensor_size() == 52 + 2 + 3 + 9 * 2


def test_gains_equal_the_certified_recursive_model() -> None:
    """For a random opponent strategy sigma, the exact expected gain of in over out for a
    hand in this game (all 1,225 opponent hands played through the engine) is the pot
    (2 chips) times certify.hand_gains(..., model="recursive")."""
    rules = Rules(cards_per_hand=2)
    table = hand_table(rules.ranking)
    sigma = np.random.default_rng(4).random(table.n_hands)
    gains = hand_gains(sigma, players=2, ranking=rules.ranking, model="recursive")
    game = pyspiel.load_game(GAME_NAME)
    for mine in (parse_cards("Js 4d"), parse_cards("7h 7c")):
        others = [c for c in range(52) if c not in mine]
        total = 0.0
        for i, a in enumerate(others):
            for b in others[i + 1:]:
                p = float(sigma[combination_index((a, b))])
                dealt = game.new_initial_state()
                for card in (a, mine[0], b, mine[1]):  # seat 1 = opponent, seat 0 = me
                    dealt.apply_action(card)
                for opp_in, weight in ((1, p), (0, 1.0 - p)):
                    for mine_in, sign in ((1, 1.0), (0, -1.0)):
                        state = dealt.clone()
                        state.apply_action(opp_in)
                        state.apply_action(mine_in)
                        total += sign * weight * state.returns()[0]
        assert total / 1225 == pytest.approx(2 * gains[combination_index(mine)], abs=1e-12)


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="pass_the_trash"):
        pyspiel.load_game(GAME_NAME, {"rules": "pass_the_trash:true"})
    with pytest.raises(ValueError, match="KEY:VALUE, got 'ante=2'"):
        pyspiel.load_game(GAME_NAME, {"rules": "ante=2"})
    with pytest.raises(ValueError, match="ante"):
        pyspiel.load_game(GAME_NAME, {"rules": "ante:0"})
