"""Bot tournaments: bots against each other over many seeded sessions of the engine.

:func:`run_tournament` seats a line-up of bot kinds (:data:`gutskit.strategy.strategies.BOT_KINDS`)
at one table and plays ``sessions`` sessions of ``rounds`` rounds with the rules engine.
Session ``s`` rotates the line-up by ``s`` seats (every kind plays every position relative
to the first dealer), uses fresh bots (nothing learnt carries over) and its own
``random.Random`` seeded from ``(seed, s)``, so a tournament is reproducible.

**Chips per round and confidence intervals.** Each session gives one number per bot kind:
the net chips of its seats over the session (after the end-of-session share of what is
left in the pot) divided by the rounds played and by the number of seats it held. Sessions
are independent, so the 95 % confidence interval is Student's t interval over sessions,
``mean +- t(0.975, S - 1) * sd / sqrt(S)`` (:func:`t_interval`).

**Exploitability.** For a bot that is a fixed function of hand and pot
(:func:`gutskit.strategy.strategies.fast_policy`), the chips per round that one best-responding
seat wins against ``players - 1`` copies of it, measured with the vectorized simulator
(:mod:`gutskit.strategy.fast`) in the tournament's setting: its rules, buy-in and session length
(at most 100 rounds; 1,000 sessions). The best response is searched among threshold
strategies (percentiles 0, 0.1, ..., 0.9, then +-0.01, 0.03, 0.05 around the best), all
evaluated on the same deals (common random numbers) and measured against the bot playing
itself on those deals (0 in expectation by symmetry): so it is a lower bound on the true
exploitability, up to the reported standard error. Adaptive bots (the exploitative bot)
have no fixed strategy to best-respond to: ``None``. The equilibrium bot with 2 or 3 players
plays a stored per-hand strategy (:func:`gutskit.strategy.certify.stored_strategy`), which
the simulator's per-rank policies cannot express: its exploitability is then the certified
exact one (best per-hand deviation, deep stacks; no standard error, no threshold).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import stats

from gutskit.core import table
from gutskit.core.engine import evolve, start_event
from gutskit.core.errors import GutsError
from gutskit.core.events import Declaration, Event
from gutskit.core.rules import Rules
from gutskit.strategy.bots import bots_act
from gutskit.strategy.fast import FastPolicy, UnsupportedRulesError, check_supported, simulate
from gutskit.strategy.strategies import (
    EquilibriumBot,
    ExploitativeBot,
    _solver_rules,
    _stored_cell,
    fast_policy,
    make_bot,
)

__all__ = [
    "CI_METHOD",
    "BotResult",
    "Exploitability",
    "SessionRecord",
    "SessionSpec",
    "TableSizeError",
    "TournamentError",
    "TournamentResult",
    "best_response",
    "play_sessions",
    "run_tournament",
    "t_interval",
]

CI_METHOD = ("95% Student t interval over independent sessions; one value per session and "
             "bot kind: its net chips per round per seat")


class TournamentError(GutsError):
    """Bad tournament settings (unknown bot, too few or too many seats, counts < 1)."""


class TableSizeError(TournamentError):
    """Too few or too many seats (2 to 10: RULES.md, players)."""


def t_interval(values: Sequence[float] | npt.NDArray[np.float64], level: float = 0.95
               ) -> tuple[float, float, float]:
    """``(mean, low, high)``: Student's t confidence interval of the mean of independent
    values (``low = high = mean`` for fewer than two values).

    >>> mean, low, high = t_interval([1.0, 2.0, 3.0])
    >>> mean, round(low, 3), round(high, 3)
    (2.0, -0.484, 4.484)
    """
    x = np.asarray(values, dtype=np.float64)
    mean = float(x.mean()) if x.size else math.nan
    if x.size < 2:
        return mean, mean, mean
    half = float(stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class Exploitability:
    """How much a best-responding seat wins against ``players - 1`` copies of a bot.

    Attributes:
        chips_per_round: the best response's gain over the bot's own play, chips per
            round (``None`` when not computed).
        standard_error: of that gain (paired over tables).
        best_response: the best responder's threshold percentile.
        note: how it was found, or why it was not.
    """

    chips_per_round: float | None
    standard_error: float | None
    best_response: float | None
    note: str


@dataclass(frozen=True)
class BotResult:
    """One bot kind's results.

    Attributes:
        kind: the bot kind.
        seats: seats it held at the table.
        chips_per_round: mean net chips per round per seat (over sessions).
        ci_low, ci_high: the 95 % confidence interval (:data:`CI_METHOD`).
        in_rate: fraction of dealt hands it declared in.
        exploitability: :class:`Exploitability`.
    """

    kind: str
    seats: int
    chips_per_round: float
    ci_low: float
    ci_high: float
    in_rate: float
    exploitability: Exploitability


@dataclass(frozen=True)
class TournamentResult:
    """A tournament's results; :meth:`to_dict` is the ``--json`` output.

    Attributes:
        lineup: bot kind per seat (session 0's seating).
        bankroll: kind -> mean cumulative net chips per seat after each round (over
            sessions), for the bankroll plot; ``bankroll_half``: the half-width of its
            pointwise 95 % t interval.
    """

    lineup: tuple[str, ...]
    sessions: int
    rounds: int
    seed: int
    chips: int
    rules: Rules
    results: tuple[BotResult, ...]
    rounds_played: int
    bankroll: dict[str, list[float]] = field(repr=False)
    bankroll_half: dict[str, list[float]] = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        base = Rules(cards_per_hand=self.rules.cards_per_hand).model_dump()
        return {
            "lineup": list(self.lineup), "sessions": self.sessions, "rounds": self.rounds,
            "rounds_played": self.rounds_played, "seed": self.seed, "chips": self.chips,
            "rules": {k: v for k, v in self.rules.model_dump().items() if base.get(k) != v}
            | {"cards_per_hand": self.rules.cards_per_hand},
            "confidence_interval": CI_METHOD,
            "bots": [
                {
                    "kind": r.kind, "seats": r.seats,
                    "chips_per_round": round(r.chips_per_round, 4),
                    "ci95": [round(r.ci_low, 4), round(r.ci_high, 4)],
                    "in_rate": round(r.in_rate, 4),
                    "exploitability": {
                        "chips_per_round": None if r.exploitability.chips_per_round is None
                        else round(r.exploitability.chips_per_round, 4),
                        "standard_error": None if r.exploitability.standard_error is None
                        else round(r.exploitability.standard_error, 4),
                        "best_response_threshold": r.exploitability.best_response,
                        "note": r.exploitability.note,
                    },
                }
                for r in self.results
            ],
        }


@dataclass(frozen=True)
class SessionSpec:
    """What every session of a tournament shares (sent once to each worker process).

    Attributes:
        lineup: bot kind per seat in session 0; session ``s`` rotates it by ``s`` seats.
        slot_names: the players' names, following their slots.
        rules, chips, rounds, seed: as :func:`run_tournament`.
        history: keep each session's events.
    """

    lineup: tuple[str, ...]
    slot_names: tuple[str, ...]
    rules: Rules
    chips: int
    rounds: int
    seed: int
    history: bool


@dataclass(frozen=True)
class SessionRecord:
    """One session's outcome, per seat of its own seating.

    Attributes:
        seating: bot kind per seat.
        net: net chips per seat after the end-of-session share.
        played: rounds played.
        curve: ``(rounds, seats)`` cumulative net chips after each round.
        dealt, ins: rounds each seat was dealt in, and declared in.
        events: its hand history (empty unless :attr:`SessionSpec.history`).
    """

    seating: tuple[str, ...]
    net: tuple[int, ...]
    played: int
    curve: npt.NDArray[np.float64]
    dealt: tuple[int, ...]
    ins: tuple[int, ...]
    events: tuple[Event, ...]


def play_sessions(spec: SessionSpec, first: int, count: int) -> list[SessionRecord]:
    """Play sessions ``first .. first + count - 1`` of a tournament. Session ``s`` depends
    only on ``spec`` and ``s`` (its seating and its ``random.Random`` seeded from
    ``(seed, s)``), so any split of the sessions into calls, processes or machines gives
    the same records."""
    return [_play_session(spec, s) for s in range(first, first + count)]


def _play_session(spec: SessionSpec, s: int) -> SessionRecord:
    lineup, rules, chips, rounds, seed = (spec.lineup, spec.rules, spec.chips, spec.rounds,
                                          spec.seed)
    n = len(lineup)
    history: list[Event] | None = [] if spec.history else None
    seating = [lineup[(i + s) % n] for i in range(n)]
    bots = [make_bot(kind) for kind in seating]
    rng = random.Random(f"gutskit-tournament:{seed}:{s}")
    start = start_event([spec.slot_names[(i + s) % n] for i in range(n)], chips,
                        rules=rules, dealer=rng.randrange(n))
    state = evolve(None, start)
    if history is not None:
        history.append(start)
    ins = [0] * n
    dealt_seat = [0] * n
    curve = np.zeros((rounds, n))
    played = 0
    for r in range(rounds):
        if table.status(state).step is not table.Step.DEAL:
            curve[r:] = np.array(state.stacks) - chips
            break
        state, events = table.deal(state, rng=rng)
        if history is not None:
            history.extend(events)
        for seat in state.dealt:
            dealt_seat[seat] += 1
        state, events = bots_act(state, bots, rng)
        if history is not None:
            history.extend(events)
        for seat, call in enumerate(state.declarations):
            ins[seat] += call is Declaration.IN
        played += 1
        curve[r] = np.array(state.stacks) - chips
    state, events = table.end(state)
    if history is not None:
        history.extend(events)
    net = np.array(state.stacks) - chips
    curve[-1] = net
    return SessionRecord(seating=tuple(seating), net=tuple(int(x) for x in net),
                         played=played, curve=curve, dealt=tuple(dealt_seat),
                         ins=tuple(ins), events=tuple(history or ()))


def _policy_value(rules: Rules, responder: FastPolicy, others: FastPolicy, players: int, *,
                  tables: int, rounds: int, chips: int, seed: int) -> npt.NDArray[np.float64]:
    """Per-table chips per round of seat 0 playing ``responder`` against copies of
    ``others``, everyone buying in for ``chips``."""
    result = simulate(rules, [responder] + [others] * (players - 1), tables=tables,
                      rounds=rounds, stacks=chips, seed=seed)
    per_table: npt.NDArray[np.float64] = result.net[:, 0] / np.maximum(
        result.rounds_played, 1)
    return per_table


def best_response(policy: FastPolicy, rules: Rules, players: int, *, chips: int = 10_000,
                  tables: int = 1000, rounds: int = 100, seed: int = 0) -> Exploitability:
    """The best threshold response of one seat to ``players - 1`` copies of ``policy``
    (see the module docstring), measured with :func:`gutskit.strategy.fast.simulate`.

    Raises:
        UnsupportedRulesError: rules the simulator does not play.
    """
    check_supported(rules)
    base = _policy_value(rules, policy, policy, players, tables=tables, rounds=rounds,
                         chips=chips, seed=seed)
    cache: dict[float, npt.NDArray[np.float64]] = {}

    def gain(p: float) -> npt.NDArray[np.float64]:
        p = round(p, 4)
        if p not in cache:
            responder = FastPolicy.threshold(p, rules.ranking)
            cache[p] = _policy_value(rules, responder, policy, players, tables=tables,
                                     rounds=rounds, chips=chips, seed=seed) - base
        return cache[p]

    coarse = [i / 10 for i in range(10)]
    best = max(coarse, key=lambda p: float(gain(p).mean()))
    fine = [best + d / 100 for d in range(-5, 6, 2) if 0.0 <= best + d / 100 < 1.0]
    best = max(fine, key=lambda p: float(gain(p).mean()))
    diff = gain(best)
    value = max(0.0, float(diff.mean()))
    se = float(diff.std(ddof=1) / math.sqrt(diff.size))
    note = (f"best threshold response, {tables} session{'' if tables == 1 else 's'} x {rounds} "
            f"round{'' if rounds == 1 else 's'}, buy-in {chips} "
            f"(vectorized simulator, common random numbers), gain over the bot's own play")
    return Exploitability(value, se, best, note)


def _exploitability(kind: str, rules: Rules, players: int, seed: int, enabled: bool, *,
                    chips: int, rounds: int) -> Exploitability:
    if not enabled:
        return Exploitability(None, None, None, "not computed (--no-exploitability)")
    bot = make_bot(kind)
    if isinstance(bot, ExploitativeBot):
        return Exploitability(None, None, None,
                              "adaptive bot: no fixed strategy to best-respond to")
    try:
        check_supported(rules)
    except UnsupportedRulesError as error:
        return Exploitability(None, None, None, str(error))
    if isinstance(bot, EquilibriumBot):
        cell = _stored_cell(_solver_rules(rules), players, bot.model)
        if cell is not None and cell.certified == "exact":
            # a per-hand strategy: certify's exact best per-hand deviation
            return Exploitability(cell.exploitability * rules.ante, None, None,
                                  f"certified per-hand equilibrium, best per-hand deviation "
                                  f"computed exactly (strategy.certify: deep stacks, "
                                  f"{cell.model} model), not simulated")
        if cell is not None:  # sampled: a lower-bound estimate with its standard error
            se = cell.standard_error
            return Exploitability(cell.exploitability * rules.ante,
                                  None if se is None else se * rules.ante, None,
                                  f"per-hand equilibrium (sampled): lower-bound estimate of "
                                  f"the best per-hand deviation's gain ± s.e. "
                                  f"(strategy.certify: deep stacks, {cell.model} model), "
                                  f"not simulated")
    policy = fast_policy(bot, rules, players)
    if policy is None:
        return Exploitability(None, None, None, "no fixed fast-simulator policy for this bot "
                                                "under these rules")
    found = best_response(policy, rules, players, chips=chips, rounds=min(rounds, 100),
                          seed=seed)
    if isinstance(bot, EquilibriumBot):
        from gutskit.strategy.solver import equilibrium

        eq = equilibrium(cards_per_hand=rules.cards_per_hand, players=players,
                         rules=_solver_rules(rules), model=bot.model)  # type: ignore[arg-type]
        found = Exploitability(found.chips_per_round, found.standard_error,
                               found.best_response,
                               f"{found.note}; {_deep_stack_figure(eq, rules, players)}")
    return found


def _deep_stack_figure(eq: Any, rules: Rules, players: int) -> str:
    """The deep-stack exploitability of the equilibrium bot's threshold strategy, labelled:
    the certified exact figure (:func:`gutskit.strategy.certify.load_strategy`) for a stored
    exact cell, else the threshold solver's own figure, labelled with how it was obtained
    (:attr:`gutskit.strategy.solver.Equilibrium.figures`)."""
    from gutskit.strategy.certify import CertifyError, certified_rules, load_strategy

    solver_rules = eq.rules
    if solver_rules.ranking == Rules(cards_per_hand=solver_rules.cards_per_hand).ranking:
        try:
            certified_rules(solver_rules, players, eq.model)
        except CertifyError:
            pass
        else:
            cell = load_strategy(solver_rules.cards_per_hand, players, eq.model, solver_rules)
            if cell.certified == "exact" and cell.threshold_exploitability is not None:
                x = cell.threshold_exploitability * solver_rules.ante / cell.rules.ante
                return (f"the certified figure for this threshold strategy (per-hand best "
                        f"response, deep stacks): {x:.2g} exact")
            # a sampled cell stores a per-hand strategy, not the bot's threshold: no
            # certified figure for the threshold itself
            return (f"no certified figure for this threshold strategy (the stored cell is "
                    f"a sampled per-hand solution); the threshold solver's own figure (best "
                    f"one-round deviation, deep stacks; {eq.figures}): "
                    f"{eq.exploitability:.3g}")
    return (f"the threshold solver's own figure (best one-round deviation, deep stacks; "
            f"{eq.figures}): {eq.exploitability:.3g}")


def run_tournament(kinds: Sequence[str], *, players: int | None = None, sessions: int = 100,
                   rounds: int = 200, seed: int = 0, rules: Rules | None = None,
                   chips: int = 10_000, exploitability: bool = True,
                   progress: Callable[[int], None] | None = None,
                   history: list[Event] | None = None, processes: int = 1,
                   cluster: str | None = None) -> TournamentResult:
    """Play the tournament (see the module docstring).

    Args:
        kinds: bot kinds; the line-up repeats them to fill ``players`` seats.
        players: seats at the table (default: one per kind), 2..10.
        sessions: independent sessions (>= 2 for a confidence interval).
        rounds: rounds per session.
        seed: the tournament's seed.
        rules: house rules (default :class:`~gutskit.core.rules.Rules`).
        chips: every seat's buy-in.
        exploitability: compute each kind's exploitability.
        progress: called with the number of sessions done.
        history: when given, every session's hand history is appended to it (events,
            sessions back to back; :func:`gutskit.io.files.dump_history` writes them).
        processes: local worker processes for the sessions (1: this process).
        cluster: the address of a Dask distributed scheduler (``tcp://host:8786``) to play
            the sessions on instead (:mod:`gutskit.strategy.parallel`). The result is the
            same on 1 process, N processes and a cluster.

    Raises:
        TournamentError: bad settings, an unknown bot kind, or a cluster that cannot be
            reached or used.
    """
    from gutskit.strategy.strategies import UnknownBotError, bot_kind

    rules = rules or Rules()
    kinds = [bot_kind(k.strip()) for k in kinds if k.strip()]  # "standard": rule-of-thumb
    if not kinds:
        raise TournamentError("no bots given")
    try:
        for kind in kinds:
            make_bot(kind)
    except UnknownBotError as error:
        raise TournamentError(str(error)) from None
    n = players if players is not None else len(kinds)
    if not 2 <= n <= 10:
        raise TableSizeError(f"a table has 2 to 10 players, got {n}")
    if any(isinstance(make_bot(kind), EquilibriumBot) for kind in kinds):
        from gutskit.strategy.solver import SolverError, equilibrium

        try:  # fail before playing when the solver does not model these rules
            equilibrium(cards_per_hand=rules.cards_per_hand, players=n,
                        rules=_solver_rules(rules))
        except SolverError as error:
            raise TournamentError(f"the equilibrium bot cannot play these rules: {error}"
                                  ) from None
    if sessions < 1 or rounds < 1 or chips < 1:
        raise TournamentError("sessions, rounds and chips must be at least 1")
    lineup = tuple(kinds[i % len(kinds)] for i in range(n))
    distinct = list(dict.fromkeys(lineup))
    slot_names = [kind if lineup.count(kind) == 1 else f"{kind}-{lineup[:j + 1].count(kind)}"
                  for j, kind in enumerate(lineup)]  # a player's name follows its slot
    spec = SessionSpec(lineup=lineup, slot_names=tuple(slot_names), rules=rules,
                       chips=chips, rounds=rounds, seed=seed, history=history is not None)
    from gutskit.strategy.parallel import ParallelError, run_chunks

    try:
        records = run_chunks(play_sessions, spec, sessions, processes=processes,
                             cluster=cluster, progress=progress)
    except ParallelError as error:
        raise TournamentError(str(error)) from None
    per_session: dict[str, list[float]] = {k: [] for k in distinct}
    curves: dict[str, list[npt.NDArray[np.float64]]] = {k: [] for k in distinct}
    dealt = dict.fromkeys(distinct, 0)
    ins_by = dict.fromkeys(distinct, 0)
    total_rounds = 0
    for record in records:
        if history is not None:
            history.extend(record.events)
        total_rounds += record.played
        net = np.array(record.net)
        for kind in distinct:
            seats = [i for i in range(n) if record.seating[i] == kind]
            per_session[kind].append(float(net[seats].mean()) / max(record.played, 1))
            curves[kind].append(record.curve[:, seats].mean(axis=1))
            dealt[kind] += sum(record.dealt[i] for i in seats)
            ins_by[kind] += sum(record.ins[i] for i in seats)
    results = []
    for index, kind in enumerate(distinct):
        mean, low, high = t_interval(per_session[kind])
        results.append(BotResult(
            kind=kind, seats=lineup.count(kind), chips_per_round=mean, ci_low=low,
            ci_high=high, in_rate=ins_by[kind] / max(dealt[kind], 1),
            exploitability=_exploitability(kind, rules, n, seed * 1000 + index,
                                           exploitability, chips=chips, rounds=rounds),
        ))
    bankroll, half = {}, {}
    for kind, rows in curves.items():
        array = np.array(rows)
        bankroll[kind] = array.mean(axis=0).tolist()
        if array.shape[0] > 1:
            tq = float(stats.t.ppf(0.975, array.shape[0] - 1))
            half[kind] = (tq * array.std(axis=0, ddof=1) / math.sqrt(array.shape[0])).tolist()
        else:
            half[kind] = [0.0] * rounds
    return TournamentResult(
        lineup=lineup, sessions=sessions, rounds=rounds, seed=seed, chips=chips, rules=rules,
        results=tuple(results), rounds_played=total_rounds, bankroll=bankroll,
        bankroll_half=half,
    )
