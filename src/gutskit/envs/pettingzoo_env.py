"""A PettingZoo parallel environment for Guts, on top of the rules engine.

Every agent (``"seat_0"`` ...) is a seat. One :meth:`GutsParallelEnv.step` is one
decision of the round, taken by every seat dealt in at once: under Pass the Trash the
card each passes (:func:`gutskit.core.engine.pass_all`), then the declarations
(:func:`gutskit.core.engine.declare_all`); after the declarations the engine resolves the
round and the environment deals the next one with its own seeded ``random.Random``
(:func:`gutskit.core.engine.deal_from_rng`).

* **Observation**: ``{"observation": vector, "action_mask": mask}``; the vector is
  :func:`gutskit.envs.encoding.encode_view` of :func:`gutskit.core.views.view_for` (never
  the hidden state); the mask marks the actions the engine accepts now (its ``can_*``
  checks).
* **Actions** (``Discrete``): declaring, ``0`` = out, ``1`` = in (under hi-lo ``1`` =
  high, ``2`` = low, ``3`` = both); passing, ``i`` = pass the i-th card of the hand.
* **Reward**: the seat's chip change since its previous step (the first step counts the
  antes posted at reset; the last the end-of-session share of the pot). Over an episode
  the rewards add up to final stack minus buy-in, and over the seats to 0 (no chip is
  created or destroyed).
* **Episode**: a session: it ends (all agents *terminated*) when the engine ends it (one
  player left with chips, ``end_on_uncontested``), or after ``max_rounds`` rounds (all
  agents *truncated*; the pot is shared as at the end of a session). An eliminated seat
  is terminated and leaves ``agents``; a seat left without chips but not eliminated stays
  (all its actions masked, any action ignored) for its end-of-session share.

Sequential declaration is refused (a parallel step has no order; use
:mod:`gutskit.envs.openspiel_game`, whose information states follow the order).

Requires the ``research`` extra (PettingZoo, Gymnasium).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from gutskit.core.engine import (
    GameState,
    Phase,
    can_declare,
    can_pass_card,
    deal_from_rng,
    declare_all,
    end_session,
    new_session,
    pass_all,
)
from gutskit.core.events import Declaration
from gutskit.core.rules import Rules, rules_from_mapping
from gutskit.core.views import view_for
from gutskit.envs.encoding import encode_view, observation_size

__all__ = ["GutsParallelEnv", "UnsupportedEnvRules", "declaration_actions"]


class UnsupportedEnvRules(ValueError):
    """House rules the parallel environment cannot play (names the rule)."""


def declaration_actions(rules: Rules) -> tuple[Declaration, ...]:
    """The declaration each action index stands for under ``rules``."""
    if rules.hi_lo:
        return (Declaration.OUT, Declaration.HIGH, Declaration.LOW, Declaration.BOTH)
    return (Declaration.OUT, Declaration.IN)


class GutsParallelEnv(ParallelEnv):  # type: ignore[misc]
    """Guts as a PettingZoo ``ParallelEnv`` (see the module docstring).

    Args:
        players: number of seats (2-10).
        rules: house rules: a :class:`gutskit.core.rules.Rules`, or a mapping of house-rule
            names to values (e.g. ``{"declaration": "sequential"}``, read with
            :func:`gutskit.core.rules.rules_from_mapping`; default: the default rules).
        stack: every seat's buy-in (chips).
        max_rounds: rounds per episode at most (the episode is truncated after it).

    Raises:
        RulesError: ``rules`` is a mapping with an unknown key or a bad value.
        UnsupportedEnvRules: ``rules.declaration == "sequential"`` or ``rules.rebuys``
            (a seat that left could not come back).
        ValueError: a bad number of players or stack (from the engine, quoting it).
    """

    metadata: ClassVar[dict[str, Any]] = {"name": "gutskit_guts_v0", "render_modes": ["ansi"],
                                          "is_parallelizable": True}

    def __init__(self, players: int = 3, *, rules: Rules | Mapping[str, Any] | None = None,
                 stack: int = 100, max_rounds: int = 50,
                 render_mode: str | None = None) -> None:
        if rules is not None and not isinstance(rules, Rules):
            rules = rules_from_mapping(rules)
        self.rules = rules or Rules()
        if self.rules.declaration == "sequential":
            raise UnsupportedEnvRules(
                "declaration='sequential' is turn-based: the parallel environment plays "
                "sealed declarations only")
        if self.rules.rebuys:
            raise UnsupportedEnvRules("rebuys=True: an eliminated seat leaves the episode "
                                      "and cannot buy in again")
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1 (got {max_rounds})")
        self.names = [f"seat_{i}" for i in range(players)]
        new_session(self.names, stack, rules=self.rules)  # validates players and stack
        self.stack = stack
        self.max_rounds = max_rounds
        self.render_mode = render_mode
        self.possible_agents = list(self.names)
        self.agents: list[str] = []
        self._declarations = declaration_actions(self.rules)
        n_actions = max(len(self._declarations),
                        self.rules.cards_per_hand if self.rules.pass_the_trash else 0)
        self._action_space = spaces.Discrete(n_actions)
        size = observation_size(self.rules, players)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(low=-np.inf, high=np.inf, shape=(size,),
                                      dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(n_actions,), dtype=np.int8),
        })
        self._rng = random.Random()
        self.state: GameState = new_session(self.names, stack, rules=self.rules)
        self._paid: list[int] = [stack] * players
        self.rounds = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same ``Dict`` space object for every agent."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The same ``Discrete`` space object for every agent."""
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new session (dealer seat 0), first round dealt. ``seed`` seeds the deals."""
        if seed is not None:
            self._rng = random.Random(seed)
        self.state = new_session(self.names, self.stack, rules=self.rules)
        self._paid = list(self.state.stacks)
        self.rounds = 0
        self.state, _ = deal_from_rng(self.state, self._rng)
        self.rounds = 1
        self.agents = [self.names[s] for s in self.state.seats_in_play]
        return self._observations(), {a: {} for a in self.agents}

    def _mask(self, seat: int) -> np.ndarray[Any, np.dtype[np.int8]]:
        mask = np.zeros(self._action_space.n, dtype=np.int8)
        state = self.state
        hand = state.hands[seat]
        if hand is None:
            return mask
        if state.phase is Phase.PASS:
            for i, card in enumerate(hand):
                mask[i] = can_pass_card(state, seat, card) is None
        elif state.phase is Phase.DECLARE:
            for i, declaration in enumerate(self._declarations):
                mask[i] = can_declare(state, seat, declaration) is None
        return mask

    def _observations(self) -> dict[str, Any]:
        return {agent: {"observation": encode_view(view_for(self.state, seat)),
                        "action_mask": self._mask(seat)}
                for seat, agent in enumerate(self.names) if agent in self.agents}

    def _action(self, seat: int, actions: dict[str, Any]) -> int:
        agent = self.names[seat]
        if agent not in actions:
            raise ValueError(f"no action for {agent!r}, who is dealt in")
        action = int(actions[agent])
        legal = 0 <= action < self._action_space.n and bool(self._mask(seat)[action])
        if not legal:
            raise ValueError(f"action {action!r} of {agent!r} is not legal now "
                             f"(legal: {np.flatnonzero(self._mask(seat)).tolist()})")
        return action

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float],
                                                      dict[str, bool], dict[str, bool],
                                                      dict[str, Any]]:
        """Apply every dealt-in seat's action (see the module docstring); the actions of
        seats not dealt in are ignored.

        Raises:
            ValueError: an action missing or not legal now (quoted), or no episode running.
        """
        if not self.agents:
            raise ValueError("the episode is over: call reset()")
        state = self.state
        dealt = state.dealt
        chosen = {seat: self._action(seat, actions) for seat in dealt}
        truncated = False
        if state.phase is Phase.PASS:
            hands = state.hands
            self.state, _ = pass_all(state, {s: (hands[s] or ())[a] for s, a in chosen.items()})
        else:
            self.state, _ = declare_all(state, {s: self._declarations[a]
                                                for s, a in chosen.items()})
            if self.state.phase is Phase.DEAL:
                if self.rounds >= self.max_rounds:
                    self.state, _ = end_session(self.state, "the round limit was reached")
                    truncated = True
                else:
                    self.state, _ = deal_from_rng(self.state, self._rng)
                    self.rounds += 1
            if self.state.phase is Phase.OVER:
                self.state, _ = end_session(self.state)
        over = self.state.phase is Phase.OVER
        live = set(self.agents)
        rewards: dict[str, float] = {}
        terminations: dict[str, bool] = {}
        truncations: dict[str, bool] = {}
        for seat, agent in enumerate(self.names):
            if agent not in live:
                continue
            rewards[agent] = float(self.state.stacks[seat] - self._paid[seat])
            self._paid[seat] = self.state.stacks[seat]
            gone = over or self.state.eliminated[seat]
            truncations[agent] = truncated
            terminations[agent] = gone and not truncated
        observations = {agent: {"observation": encode_view(view_for(self.state, seat)),
                                "action_mask": self._mask(seat)}
                        for seat, agent in enumerate(self.names) if agent in live}
        infos: dict[str, Any] = {agent: {"stack": self.state.stacks[self.names.index(agent)]}
                                 for agent in live}
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        """``ansi``: one line per seat with its stack."""
        if self.render_mode != "ansi":
            return None
        state = self.state
        return "\n".join(f"{name}: {state.stacks[s]} chips" for s, name in enumerate(self.names))

    def close(self) -> None:
        """Nothing to release."""
