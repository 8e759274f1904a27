"""One round of Guts as an OpenSpiel game (``"python_gutskit_guts"``, registered with
pyspiel on import), on top of the rules engine.

The game is a session of one round: the antes, the deal, the declarations, the
resolution, then :func:`gutskit.core.engine.end_session` shares what is left in the pot
(a loser's match included) evenly among the seats. Returns are each seat's chip change, so
the game is zero-sum. Heads-up this is exactly the *recursive* model of
:mod:`gutskit.strategy.certify` (the pot left on the table is worth 1/N of it to each
seat: gains ``1 - 1/N`` uncontested, ``1 + 1/N`` best, ``-1 + 1/N`` beaten, in pots), so
:func:`gutskit.strategy.certify.exploitability` measures a strategy learned here exactly.

* **Chance**: the deal, one card per chance node (uniform over the cards left), in the
  engine's deal order (:func:`gutskit.core.engine.deal_from_deck`: the hands, then a ghost
  hand and a community card when the rules have them).
* **Players**: the declarations, one seat at a time in declaration order (OpenSpiel's
  ``SEQUENTIAL`` dynamics). What a seat knows is its :func:`gutskit.core.views.view_for`:
  under sealed declarations (the default) a seat does not see the calls before it, so
  the information sets make the game simultaneous; under ``declaration = "sequential"``
  it sees them, as at the table. Actions: ``0`` = out, ``1`` = in (hi-lo: ``1`` high,
  ``2`` low, ``3`` both); legal = what :func:`gutskit.core.engine.can_declare` accepts.
* **Information state / observation**: :func:`gutskit.envs.encoding.describe_view` and
  :func:`gutskit.envs.encoding.encode_view` of the seat's view (a one-round game: the view
  holds the seat's whole history, so both have perfect recall).

Parameters: ``players`` (2-10, default 2), ``cards`` (2 or 3, default 2), ``stack`` (buy-in,
default 100), ``rules`` (house rules as ``KEY:VALUE`` items separated by ``;``, default none;
Pass the Trash is not supported).

Requires the ``research`` extra (OpenSpiel).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from gutskit.core.engine import (
    GameState,
    Phase,
    can_declare,
    deal,
    deal_from_deck,
    declare,
    end_session,
    new_session,
)
from gutskit.core.events import Declaration
from gutskit.core.rules import Rules, rules_from_mapping
from gutskit.core.views import view_for
from gutskit.envs.encoding import describe_view, encode_view, observation_size
from gutskit.variants import variants_for

__all__ = ["GAME_NAME", "GutsGame", "GutsState", "declarations_of", "game_rules"]

GAME_NAME = "python_gutskit_guts"
_MAX_PLAYERS = 10
_DEFAULTS = {"players": 2, "cards": 2, "stack": 100, "rules": ""}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Guts (gutskit rules engine), one round",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def game_rules(params: dict[str, Any]) -> Rules:
    """The house rules of a parameter set: ``rules`` is ``KEY:VALUE`` items separated by
    ``;`` (values read as JSON when they parse, else as text: ``"hi_lo:true;pot_cap:50;
    declaration:sequential"``; OpenSpiel's game strings allow no comma), ``cards``
    overrides ``cards_per_hand``.

    Raises:
        RulesError: bad rules (quoting the key and value).
        ValueError: Pass the Trash, which this game does not play.
    """
    mapping: dict[str, Any] = {}
    for item in str(params.get("rules", "")).split(";"):
        if not item.strip():
            continue
        key, colon, value = item.partition(":")
        if not colon:
            raise ValueError(f"rules: expected KEY:VALUE, got {item!r}")
        try:
            mapping[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            mapping[key.strip()] = value.strip()
    mapping["cards_per_hand"] = int(params.get("cards", 2))
    rules = rules_from_mapping(mapping)
    if rules.pass_the_trash:
        raise ValueError("pass_the_trash is not supported by the OpenSpiel game (use "
                         "gutskit.envs.pettingzoo_env)")
    return rules


def declarations_of(rules: Rules) -> tuple[Declaration, ...]:
    """The declaration of each action id."""
    if rules.hi_lo:
        return (Declaration.OUT, Declaration.HIGH, Declaration.LOW, Declaration.BOTH)
    return (Declaration.OUT, Declaration.IN)


class GutsGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = {**_DEFAULTS, **(params or {})}
        self.players = int(given["players"])
        self.stack = int(given["stack"])
        self.rules = game_rules(given)
        self.names = [f"p{i}" for i in range(self.players)]
        self.start = new_session(self.names, self.stack, rules=self.rules)
        self.declarations = declarations_of(self.rules)
        self.cards_needed = variants_for(self.rules).cards_needed(self.players)
        bound = float(self.stack * (self.players - 1))
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.declarations),
            max_chance_outcomes=52,
            num_players=self.players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=self.cards_needed + self.players)
        super().__init__(_GAME_TYPE, info, given)

    def new_initial_state(self) -> GutsState:
        """Before the deal."""
        return GutsState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> GutsObserver:
        """The observer for information states and observations."""
        return GutsObserver(self, iig_obs_type or pyspiel.IIGObservationType(
            perfect_recall=False), params)


class _Setup:
    """What every state of one game shares (immutable; a copy of a state shares it too:
    OpenSpiel clones a Python state with ``copy.deepcopy``)."""

    def __init__(self, game: GutsGame) -> None:
        self.players = game.players
        self.stack = game.stack
        self.declarations = game.declarations
        self.cards_needed = game.cards_needed

    def __deepcopy__(self, memo: dict[int, Any]) -> _Setup:
        return self


class _Engine:
    """The engine's (immutable) state, shared, not copied, when a state is cloned."""

    __slots__ = ("state",)

    def __init__(self, state: GameState) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.state)


class GutsState(pyspiel.State):  # type: ignore[misc]
    """A state: the engine's state plus the cards dealt so far."""

    def __init__(self, game: GutsGame) -> None:
        super().__init__(game)
        self._game = _Setup(game)
        self._engine = _Engine(game.start)
        self.cards: list[int] = []
        self._over = False

    @property
    def engine(self) -> GameState:
        """The rules engine's state."""
        return self._engine.state

    @engine.setter
    def engine(self, state: GameState) -> None:
        self._engine.state = state

    def current_player(self) -> int:
        """Chance while dealing, then the seat whose declaration is due, then terminal."""
        if self._over:
            return int(pyspiel.PlayerId.TERMINAL)
        if len(self.cards) < self._game.cards_needed:
            return int(pyspiel.PlayerId.CHANCE)
        seat = self.engine.next_to_declare()
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        return [i for i, d in enumerate(self._game.declarations)
                if can_declare(self.engine, player, d) is None]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards not dealt yet, equally likely."""
        dealt = set(self.cards)
        left = [c for c in range(52) if c not in dealt]
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():
            self.cards.append(action)
            if len(self.cards) == self._game.cards_needed:
                hands, ghost, community = deal_from_deck(self.engine, self.cards)
                self.engine, _ = deal(self.engine, hands, ghost=ghost, community=community)
            return
        seat = self.current_player()
        self.engine, _ = declare(self.engine, seat, self._game.declarations[action])
        if self.engine.phase is not Phase.DECLARE:  # the round is resolved
            self.engine, _ = end_session(self.engine, "one round")
            self._over = True

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            from gutskit.core.cards import card_name

            return f"deal {card_name(action)}"
        return str(self._game.declarations[action].value)

    def is_terminal(self) -> bool:
        """After the round is resolved and the pot shared."""
        return self._over

    def returns(self) -> list[float]:
        """Each seat's chip change (0 until the end)."""
        if not self._over:
            return [0.0] * self._game.players
        return [float(s - self._game.stack) for s in self.engine.stacks]

    def __str__(self) -> str:
        calls = ",".join("?" if d is None else d.value for d in self.engine.declarations)
        return f"cards {self.cards} calls {calls} stacks {list(self.engine.stacks)}"


class GutsObserver:
    """OpenSpiel's ``PyObserver``: ``tensor``/``dict`` and strings from the seat's view.
    A public-only observer (no private information) leaves the seat's cards out."""

    def __init__(self, game: GutsGame, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params!r}")
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.tensor = np.zeros(observation_size(game.rules, game.players), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: GutsState, player: int) -> None:
        """Fill ``tensor`` with :func:`encode_view` of ``player``'s view."""
        self.tensor[:] = encode_view(view_for(state.engine, player))
        if not self.private:
            self.tensor[:52] = 0.0

    def string_from(self, state: GutsState, player: int) -> str:
        """:func:`describe_view` of ``player``'s view (without the cards if public)."""
        view = view_for(state.engine, player)
        if not self.private:
            view = view._replace(hand=None if view.hand is None else ())
        return describe_view(view)


pyspiel.register_game(_GAME_TYPE, GutsGame)
