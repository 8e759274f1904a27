"""The PettingZoo parallel environment (issue 12, item 8): PettingZoo's own API test,
observations that are exactly the seat's view, chip conservation of the rewards, seeding,
and the errors."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from gutskit.core.engine import Phase
from gutskit.core.rules import Rules
from gutskit.core.views import view_for
from gutskit.envs.encoding import encode_view, observation_size
from gutskit.envs.pettingzoo_env import GutsParallelEnv, UnsupportedEnvRules


@pytest.mark.parametrize("kwargs", [
    {"players": 3},
    {"players": 2, "rules": Rules(cards_per_hand=2), "stack": 6},
    {"players": 3, "rules": Rules(pass_the_trash=True), "stack": 8},
    {"players": 4, "rules": Rules(hi_lo=True, ante_every_round=True), "stack": 10},
    {"players": 3, "rules": Rules(require_cover=True, all_out="carry"), "stack": 5},
])
def test_parallel_api(kwargs: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo reports protocol slips as warnings
        parallel_api_test(GutsParallelEnv(**kwargs), num_cycles=200)


def _episode(env: GutsParallelEnv, seed: int) -> tuple[list[Any], dict[str, float]]:
    """One episode with random legal actions; the observations seen and reward sums."""
    picker = random.Random(seed)
    obs, _ = env.reset(seed=seed)
    seen: list[Any] = []
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        for seat, agent in enumerate(env.names):
            if agent in obs:
                # the observation is the seat's view, nothing more
                view = view_for(env.state, seat)
                assert np.array_equal(obs[agent]["observation"], encode_view(view))
                hand = env.state.hands[seat]
                if hand:
                    assert sorted(np.flatnonzero(obs[agent]["observation"][:52])) == sorted(
                        hand)
        actions = {a: picker.choice(np.flatnonzero(obs[a]["action_mask"]).tolist() or [0])
                   for a in env.agents}  # a seat without chips has nothing legal
        seen.append(actions)
        obs, rewards, _, _, _ = env.step(actions)
        for agent, r in rewards.items():
            totals[agent] += r
    return seen, totals


@pytest.mark.parametrize("rules", [Rules(), Rules(pass_the_trash=True)])
def test_rewards_are_chip_changes(rules: Rules) -> None:
    env = GutsParallelEnv(4, rules=rules, stack=12, max_rounds=40)
    for seed in range(6):
        _, totals = _episode(env, seed)
        assert env.state.phase is Phase.OVER and env.state.pot == 0
        final = env.state.stacks
        assert [totals[a] for a in env.possible_agents] == [s - 12 for s in final]
        assert sum(totals.values()) == 0  # no chip created or destroyed


def test_seeded_episodes_repeat() -> None:
    a, b = GutsParallelEnv(3, max_rounds=15), GutsParallelEnv(3, max_rounds=15)
    first, _ = _episode(a, 7)
    again, _ = _episode(b, 7)
    assert first == again and a.state.stacks == b.state.stacks


def test_first_observation_worked_by_hand() -> None:
    env = GutsParallelEnv(2, rules=Rules(cards_per_hand=2), stack=10)
    obs, _ = env.reset(seed=1)
    vector = obs["seat_1"]["observation"]
    assert vector.shape == (observation_size(env.rules, 2),) == (52 + 2 + 3 + 9 * 2,)
    assert vector[52:54].tolist() == [0.0, 1.0]  # declaring, not passing
    assert vector[54:57].tolist() == [2.0, 2.0, 0.0]  # pot 2 antes, a loser matches 2
    # seat_1 first (stack 9 after the ante, dealt in, not declared, not the dealer),
    # then seat_0, the dealer
    assert vector[57:61].tolist() == [9.0, 1.0, 0.0, 0.0]
    assert vector[66:70].tolist() == [9.0, 1.0, 0.0, 1.0]
    assert obs["seat_1"]["action_mask"].tolist() == [1, 1]


def test_errors() -> None:
    with pytest.raises(UnsupportedEnvRules, match="sequential"):
        GutsParallelEnv(3, rules=Rules(declaration="sequential"))
    with pytest.raises(ValueError, match="max_rounds"):
        GutsParallelEnv(3, max_rounds=0)
    env = GutsParallelEnv(2)
    with pytest.raises(ValueError, match="reset"):
        env.step({})
    env.reset(seed=0)
    with pytest.raises(ValueError, match="no action for 'seat_1'"):
        env.step({"seat_0": 0})
    with pytest.raises(ValueError, match="action 5 of 'seat_0' is not legal"):
        env.step({"seat_0": 5, "seat_1": 0})
    assert env.state.phase is Phase.DECLARE  # nothing half-applied


def test_import_gutskit_does_not_import_the_research_libraries() -> None:
    import subprocess
    import sys

    code = ("import sys, gutskit, gutskit.envs, gutskit.envs.encoding; "
            "print(any(m in sys.modules for m in ('pettingzoo', 'pyspiel', 'gymnasium')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
