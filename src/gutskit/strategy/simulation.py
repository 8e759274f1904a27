"""Bots-only simulation (``guts sim``): many rounds, summary statistics.

A table of :func:`gutskit.strategy.bots.bot_table` bots plays ``rounds`` rounds through the
table driver (:mod:`gutskit.core.table`; the bots act with
:func:`gutskit.strategy.bots.bots_act`). When a session ends (fewer than two players with
chips, or ``end_on_uncontested``; the driver ends it) a new session starts with fresh
buy-ins; the counts go on. With a seed the whole run (deals, bots, dealers) is reproducible.

Definitions used in the summary:

* a *round* is one deal (void rounds count);
* a *game* starts whenever antes go into an empty pot (:class:`~gutskit.core.events.AntesPosted`
  with ``new_game``); it is *completed* when a round leaves the pot empty (an uncontested
  win, or a showdown nobody had to match);
* the *pot at stake* of a round is the pot after antes, before the reveal; the largest pot is
  the largest pot at stake in any round;
* the *pot growth* of a completed game is the pot at stake in its last round divided by its
  opening pot (the pot right after the game's first antes); ``mean_pot_growth`` is the mean
  over completed games (``None`` when no game was completed). 1.0 means the opening antes
  were won at once; 4.0 means the winner took four times the opening antes.

>>> summary = simulate(players=3, rounds=20, seed=7)
>>> summary.rounds, sum(summary.final_stacks.values())
(20, 300)
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from gutskit.core import table
from gutskit.core.engine import GameState, Phase, evolve, start_event
from gutskit.core.events import AntesPosted, Event, Outcome, RoundResolved
from gutskit.core.rules import DEFAULT_RULES, Rules
from gutskit.strategy.bots import bot_table, bots_act

__all__ = ["SimSummary", "simulate"]


@dataclass(frozen=True, slots=True)
class SimSummary:
    """The result of :func:`simulate`; see the module docstring for the definitions.

    Attributes:
        players: bot names in seat order.
        rounds: rounds dealt.
        games: games started.
        completed_games: games that ended with the pot won.
        sessions: sessions played (a new one starts when a session ends).
        largest_pot: the largest pot at stake in a round (chips).
        mean_pot_growth: mean of (pot at stake in a game's last round / its opening pot)
            over completed games, or ``None``.
        outcomes: rounds per outcome (``void``, ``uncontested``, ``showdown``).
        final_stacks: stacks of the last session after it was ended (pot and reserve shared
            by :func:`gutskit.core.engine.end_session`).
        chips: the buy-in of every player in every session.
        seed: the seed, or ``None`` (OS randomness).
        rules: the house rules.
    """

    players: tuple[str, ...]
    rounds: int
    games: int
    completed_games: int
    sessions: int
    largest_pot: int
    mean_pot_growth: float | None
    outcomes: dict[str, int]
    final_stacks: dict[str, int]
    chips: int
    seed: int | None
    rules: Rules = field(default=DEFAULT_RULES)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready object (the ``guts sim --json`` output)."""
        return {
            "players": list(self.players),
            "rounds": self.rounds,
            "games": self.games,
            "completed_games": self.completed_games,
            "sessions": self.sessions,
            "largest_pot": self.largest_pot,
            "mean_pot_growth": (None if self.mean_pot_growth is None
                                else round(self.mean_pot_growth, 4)),
            "outcomes": dict(self.outcomes),
            "final_stacks": dict(self.final_stacks),
            "chips": self.chips,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
        }


def simulate(*, players: int, rounds: int, rules: Rules = DEFAULT_RULES, chips: int = 100,
             seed: int | None = None,
             progress: Callable[[int], None] | None = None,
             history: list[Event] | None = None) -> SimSummary:
    """Let ``players`` bots play ``rounds`` rounds.

    Args:
        players: 2 to 10 bots.
        rounds: rounds to deal (>= 0).
        rules: the house rules.
        chips: each bot's buy-in for every session.
        seed: seeds one ``random.Random`` for deals, bots and dealers (same seed, same
            result); ``None`` shuffles with the OS CSPRNG.
        progress: called with the number of rounds done after every round.
        history: when given, every session's hand history is appended to it (sessions back
            to back, each ended).

    Raises:
        IllegalActionError: a bad table (players out of range, chips < 1).
        ValueError: ``rounds`` is negative.
    """
    if rounds < 0:
        raise ValueError(f"rounds must be >= 0, got {rounds}")
    deal_rng = random.Random(seed) if seed is not None else None
    rng = deal_rng if deal_rng is not None else random.Random(secrets.randbits(64))
    bots = bot_table(players)
    names = tuple(bot.name.partition(" (")[0] for bot in bots)

    def fresh() -> GameState:
        start = start_event(names, chips, dealer=rng.randrange(players), rules=rules)
        if history is not None:
            history.append(start)
        return evolve(None, start)

    state = fresh()
    sessions = 1
    games = 0
    growth: list[float] = []
    opening = 0
    largest = 0
    outcomes = {o.value: 0 for o in Outcome}
    for done in range(1, rounds + 1):
        if state.phase is Phase.OVER or table.can_deal(state) is not None:
            if history is not None and state.phase is not Phase.OVER:
                state, ended = table.end(state, "simulation: the table cannot deal")
                history.extend(ended)
            state = fresh()
            sessions += 1
        state, dealt = table.deal(state, rng=deal_rng)
        if history is not None:
            history.extend(dealt)
        at_stake = state.pot
        largest = max(largest, at_stake)
        antes = dealt[0] if isinstance(dealt[0], AntesPosted) else None
        if antes is not None and antes.new_game:
            games += 1
            opening = at_stake
        state, acted = bots_act(state, bots, rng)
        if history is not None:
            history.extend(acted)
        result = state.last_result
        assert isinstance(result, RoundResolved)
        outcomes[result.outcome.value] += 1
        if result.outcome is not Outcome.VOID and result.pot_after == 0 and opening:
            growth.append(at_stake / opening)
        if progress is not None:
            progress(done)
    final, ended = table.end(state, "simulation finished")
    if history is not None:
        history.extend(ended)
    return SimSummary(
        players=names, rounds=rounds, games=games, completed_games=len(growth),
        sessions=sessions, largest_pot=largest,
        mean_pot_growth=fmean(growth) if growth else None, outcomes=outcomes,
        final_stacks=dict(zip(names, final.stacks, strict=True)), chips=chips, seed=seed,
        rules=rules,
    )
