"""Analysis of hand histories: per-player statistics, pot escalation, collusion and bluff
signals (RULES.md "Strategy notes": the seeds' warnings made measurable).

Input: one or more sessions' events (:mod:`gutskit.core.events`), from a JSON Lines history file
(:func:`gutskit.core.history.load_history`; a file may hold several sessions back to back) or
the SQLite store (:mod:`gutskit.io.storage`). Each session is rebuilt event by event with
:func:`gutskit.core.engine.evolve` (no rule is re-implemented here), and players are identified
by name across sessions.

What is measured:

* **per player**: rounds dealt in, in-rate, win rate (rounds where the player took a pot
  or a share of it, per round dealt in and per round in), net chips (pot won minus
  matches and antes; rebuys are not income), and net chips by position relative to the
  dealer (0 = the dealer, 1 = the dealer's left, the first to be dealt);
* **pot escalation**: the pot after antes, in antes, against the number of matched rounds
  so far in the game, versus the German/French seed's "10 to 30 times the ante after 3 or 4
  matched rounds"; and the games whose pot grew fivefold or more within three rounds (the
  seed's sign that others are staying in light);
* **collusion**: for every pair of players, whether their declarations agree more (or less)
  often than chance. Null hypothesis: given the public state of the round (pot size in
  doubling buckets of the ante and the number of players dealt in), the two players decide
  independently (independent players see different cards, so their declarations are
  independent given the public state up to negligible card-removal effects). The test
  statistic is the number of rounds both were in; conditional on each stratum's margins it
  is a sum of independent hypergeometric counts (a stratified Fisher exact test, as in
  Cochran-Mantel-Haenszel), whose two-sided p-value is estimated from 20,000 draws of that
  exact null distribution. P-values are Holm-adjusted over all pairs; a pair is flagged
  when the adjusted p-value is below ``alpha`` and they agree *more* than expected;
* **bluff signals**: hands shown at showdowns that are weak: below the median hand, and
  below the seeds' rule-of-thumb entry hand (2 cards: a pair of tens; 3 cards: a pair with a
  face card).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gutskit.core.engine import GameState, evolve
from gutskit.core.errors import GutsError
from gutskit.core.evaluation import evaluate
from gutskit.core.events import (
    IN_DECLARATIONS,
    AntesPosted,
    CardsDealt,
    DeclarationsRevealed,
    Event,
    Misdealt,
    Outcome,
    RoundResolved,
    SessionStarted,
)
from gutskit.strategy.tables import hand_table

__all__ = [
    "AnalysisError",
    "AnalysisReport",
    "RoundRecord",
    "analyze",
    "load_sessions",
    "rounds_of",
    "split_sessions",
]

SEED_SNOWBALL = (10, 30)
"""The German/French seed's pot after 3 or 4 matched rounds, in antes."""

NULL_DRAWS = 20_000


class AnalysisError(GutsError):
    """Nothing to analyse, or a history that cannot be read."""


@dataclass(frozen=True)
class RoundRecord:
    """One resolved round, as the analysis sees it.

    Attributes:
        session: index of the session.
        names: player names by seat.
        dealer: the dealer's seat.
        ante: the ante (chips).
        pot: the pot after antes (chips).
        game_round: 1 for the first round of a game, 2 for the next, ...
        matched_before: matched showdowns earlier in this game.
        dealt: seats dealt in.
        ins: seats that were in.
        hands: per seat the cards (``()`` when not recorded, ``None`` when not dealt in).
        result: the round's :class:`~gutskit.core.events.RoundResolved`.
        antes: chips each seat anted for this round.
    """

    session: int
    names: tuple[str, ...]
    dealer: int
    ante: int
    pot: int
    game_round: int
    matched_before: int
    dealt: tuple[int, ...]
    ins: tuple[int, ...]
    hands: tuple[tuple[int, ...] | None, ...]
    result: RoundResolved
    antes: tuple[int, ...]
    rules_ranking: Any = field(repr=False)


def split_sessions(events: Iterable[Event]) -> list[list[Event]]:
    """Split a stream of events at each :class:`~gutskit.core.events.SessionStarted`.

    Raises:
        AnalysisError: events before the first SessionStarted.
    """
    sessions: list[list[Event]] = []
    for event in events:
        if isinstance(event, SessionStarted):
            sessions.append([event])
        elif not sessions:
            raise AnalysisError(f"the history must start with SessionStarted, not "
                                f"{type(event).__name__}")
        else:
            sessions[-1].append(event)
    return sessions


def load_sessions(*, history: str | Path | None = None, db: str | None = None
                  ) -> list[list[Event]]:
    """The sessions of a history file or of every session in a store.

    Raises:
        AnalysisError: both or neither source given, or no session found.
        HistoryError, StorageError: the source cannot be read.
    """
    if (history is None) == (db is None):
        raise AnalysisError("give either a hand-history file or a database, not both")
    if history is not None:
        from gutskit.core.history import load_history

        sessions = split_sessions(load_history(history))
    else:
        from gutskit.io.storage import open_store

        store = open_store(db)
        sessions = [store.events(info.id) for info in store.sessions()]
        sessions = [s for s in sessions if s]
    if not sessions:
        raise AnalysisError("no sessions to analyse")
    return sessions


def rounds_of(sessions: Sequence[Sequence[Event]]) -> list[RoundRecord]:
    """Every resolved round of ``sessions``, rebuilt with :func:`gutskit.core.engine.evolve`.

    Raises:
        IllegalActionError, ConservationError: a corrupt history.
    """
    records: list[RoundRecord] = []
    for index, events in enumerate(sessions):
        state: GameState | None = None
        antes: tuple[int, ...] = ()
        game_round = 0
        matched = 0
        pending: dict[str, Any] | None = None
        for event in events:
            state = evolve(state, event)
            if isinstance(event, AntesPosted):
                antes = event.amounts
                if event.new_game:
                    game_round, matched = 0, 0
            elif isinstance(event, CardsDealt):
                game_round += 1
                pending = {"pot": state.pot, "dealer": state.dealer, "hands": event.hands,
                           "antes": antes or (0,) * state.n_seats}
                antes = ()
            elif isinstance(event, Misdealt):
                game_round -= 1 if pending is not None else 0
                pending = None
            elif isinstance(event, DeclarationsRevealed) and pending is not None:
                pending["ins"] = tuple(s for s, d in enumerate(event.declarations)
                                       if d in IN_DECLARATIONS)
            elif isinstance(event, RoundResolved) and pending is not None:
                hands = pending["hands"]
                records.append(RoundRecord(
                    session=index, names=state.names, dealer=pending["dealer"],
                    ante=state.rules.ante, pot=pending["pot"], game_round=game_round,
                    matched_before=matched,
                    dealt=tuple(s for s, h in enumerate(hands) if h is not None),
                    ins=pending.get("ins", ()), hands=hands, result=event,
                    antes=pending["antes"], rules_ranking=state.rules.ranking,
                ))
                if event.outcome is Outcome.SHOWDOWN and any(event.matched):
                    matched += 1
                if event.pot_after == 0:
                    game_round, matched = 0, 0
                pending = None
    return records


def _holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (same order as given)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def stratified_agreement_test(a: Sequence[bool], b: Sequence[bool], strata: Sequence[Any], *,
                              draws: int = NULL_DRAWS, seed: int = 0) -> dict[str, float]:
    """Two-sided test that declarations ``a`` and ``b`` (True = in) are independent within
    strata: statistic = rounds both in; null = sum over strata of hypergeometric counts
    with the observed margins (stratified Fisher exact test); p-value from ``draws``
    exact null draws, ``(1 + #{|S - E| >= |s - E|}) / (1 + draws)``.

    Returns:
        ``both_in``, ``expected``, ``z`` (the Cochran-Mantel-Haenszel z-score),
        ``p_value``, ``odds_ratio`` (Mantel-Haenszel estimate over strata) and ``rounds``.
    """
    groups: dict[Any, list[tuple[bool, bool]]] = defaultdict(list)
    for x, y, s in zip(a, b, strata, strict=True):
        groups[s].append((bool(x), bool(y)))
    good, bad, sample, observed = [], [], [], 0
    expected = variance = 0.0
    mh_num = mh_den = 0.0
    for pairs in groups.values():
        n = len(pairs)
        k_a = sum(x for x, _ in pairs)
        k_b = sum(y for _, y in pairs)
        both = sum(x and y for x, y in pairs)
        observed += both
        if n < 2 or k_a in (0, n) or k_b in (0, n):
            continue
        good.append(k_a)
        bad.append(n - k_a)
        sample.append(k_b)
        expected += k_a * k_b / n
        variance += k_a * (n - k_a) * k_b * (n - k_b) / (n * n * (n - 1))
        only_a = k_a - both
        only_b = k_b - both
        neither = n - k_a - k_b + both
        mh_num += both * neither / n
        mh_den += only_a * only_b / n
    if not good:
        return {"both_in": float(observed), "expected": float(observed), "z": 0.0,
                "p_value": 1.0, "odds_ratio": math.nan, "rounds": float(len(a))}
    informative_obs = observed - _constant_part(groups)
    rng = np.random.default_rng(seed)
    null = rng.hypergeometric(np.array(good), np.array(bad), np.array(sample),
                              size=(draws, len(good))).sum(axis=1)
    dev = abs(informative_obs - expected)
    extreme = int(np.count_nonzero(np.abs(null - expected) >= dev - 1e-9))
    z = (informative_obs - expected) / math.sqrt(variance) if variance > 0 else 0.0
    return {
        "both_in": float(observed), "expected": expected + (observed - informative_obs),
        "z": z, "p_value": (1 + extreme) / (1 + draws),
        "odds_ratio": mh_num / mh_den if mh_den > 0 else math.inf,
        "rounds": float(len(a)),
    }


def _constant_part(groups: dict[Any, list[tuple[bool, bool]]]) -> int:
    """Both-in rounds in strata where one player's margin does not vary (no information)."""
    total = 0
    for pairs in groups.values():
        n = len(pairs)
        k_a = sum(x for x, _ in pairs)
        k_b = sum(y for _, y in pairs)
        if n < 2 or k_a in (0, n) or k_b in (0, n):
            total += sum(x and y for x, y in pairs)
    return total


def _stratum(record: RoundRecord) -> tuple[int, int]:
    ratio = max(1.0, record.pot / record.ante)
    return min(8, int(math.log2(ratio))), len(record.dealt)


@dataclass(frozen=True)
class AnalysisReport:
    """The analysis of a set of sessions; :meth:`to_dict` is the ``--json`` output.

    Attributes:
        players: name -> statistics.
        escalation: matched rounds so far -> pot summary (in antes).
        pots_by_matched: matched rounds so far -> every pot (in antes), for the plot.
        fivefold_games: games whose pot grew at least fivefold within three rounds.
        collusion: one entry per pair of players.
        bluffs: name -> shown-hand statistics.
    """

    sessions: int
    rounds: int
    games: int
    players: dict[str, dict[str, Any]]
    escalation: dict[int, dict[str, float]]
    pots_by_matched: dict[int, list[float]] = field(repr=False)
    fivefold_games: int = 0
    collusion: list[dict[str, Any]] = field(default_factory=list)
    alpha: float = 0.01
    bluffs: dict[str, dict[str, Any]] = field(default_factory=dict)
    snowball_check: dict[str, Any] = field(default_factory=dict)

    @property
    def flagged_pairs(self) -> list[tuple[str, str]]:
        """Pairs flagged as possible colluders."""
        return [(c["players"][0], c["players"][1]) for c in self.collusion if c["flagged"]]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready report."""
        return {
            "sessions": self.sessions, "rounds": self.rounds, "games": self.games,
            "players": self.players,
            "pot_escalation": {
                "by_matched_rounds": {str(k): v for k, v in self.escalation.items()},
                "seed_claim": self.snowball_check,
                "games_fivefold_in_three_rounds": self.fivefold_games,
            },
            "collusion": {
                "method": "stratified Fisher exact test (strata: pot bucket x players dealt "
                          f"in), {NULL_DRAWS} exact null draws, two-sided, Holm-adjusted",
                "alpha": self.alpha, "flagged": [list(p) for p in self.flagged_pairs],
                "pairs": self.collusion,
            },
            "bluff_signals": self.bluffs,
        }


def _percentiles(record: RoundRecord) -> Any:
    return hand_table(record.rules_ranking)


def analyze(sessions: Sequence[Sequence[Event]], *, alpha: float = 0.01, seed: int = 0
            ) -> AnalysisReport:
    """Analyse ``sessions`` (see the module docstring).

    Raises:
        AnalysisError: no resolved round in the history.
    """
    from gutskit.strategy.bots import _rule_percentile

    records = rounds_of(sessions)
    if not records:
        raise AnalysisError("the history has no resolved rounds")
    stats: dict[str, dict[str, Any]] = {}
    by_pos: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    shown: dict[str, list[tuple[float, str, bool]]] = defaultdict(list)
    pots: dict[int, list[float]] = defaultdict(list)
    games_pots: dict[tuple[int, int], list[float]] = defaultdict(list)
    decisions: dict[str, dict[int, bool]] = defaultdict(dict)
    game_id = 0
    for i, rec in enumerate(records):
        res = rec.result
        n = len(rec.names)
        if rec.game_round == 1:
            game_id += 1
        pots[rec.matched_before].append(rec.pot / rec.ante)
        games_pots[(rec.session, game_id)].append(rec.pot / rec.ante)
        winners = set(res.winners) | set(res.high_winners) | set(res.low_winners)
        table = _percentiles(rec)
        rule_cut = _rule_percentile(rec.rules_ranking)
        for seat in rec.dealt:
            name = rec.names[seat]
            s = stats.setdefault(name, {"rounds": 0, "in": 0, "wins": 0, "net": 0,
                                        "uncontested_wins": 0, "showdowns": 0})
            s["rounds"] += 1
            is_in = seat in rec.ins
            s["in"] += is_in
            s["wins"] += seat in winners
            s["uncontested_wins"] += res.outcome is Outcome.UNCONTESTED and seat in winners
            s["showdowns"] += res.outcome is Outcome.SHOWDOWN and is_in
            net = res.won[seat] - res.matched[seat] - rec.antes[seat]
            s["net"] += net
            pos = (seat - rec.dealer) % n
            by_pos[name][pos][0] += 1
            by_pos[name][pos][1] += net
            decisions[name][i] = is_in
            hand = res.shown[seat]
            if hand:
                code = 0
                for c in hand:
                    code = code * 52 + c
                pct = float(table.rank_percentile[table.code_to_rank[code]])
                shown[name].append((pct, evaluate(hand, rec.rules_ranking).description,
                                    pct < rule_cut))
    players: dict[str, dict[str, Any]] = {}
    for name, s in stats.items():
        players[name] = {
            "rounds": s["rounds"], "in_rate": round(s["in"] / s["rounds"], 4),
            "win_rate": round(s["wins"] / s["rounds"], 4),
            "win_rate_when_in": round(s["wins"] / s["in"], 4) if s["in"] else None,
            "uncontested_wins": s["uncontested_wins"], "showdowns": s["showdowns"],
            "net": s["net"], "net_per_round": round(s["net"] / s["rounds"], 4),
            "net_by_position": {str(p): {"rounds": v[0], "net": v[1],
                                         "net_per_round": round(v[1] / v[0], 4)}
                                for p, v in sorted(by_pos[name].items())},
        }
    escalation = {
        k: {"rounds": len(v), "mean": round(float(np.mean(v)), 3),
            "median": float(np.median(v)), "p25": float(np.percentile(v, 25)),
            "p75": float(np.percentile(v, 75)), "max": float(np.max(v))}
        for k, v in sorted(pots.items())
    }
    late = [p for k in (3, 4) for p in pots.get(k, [])]
    snowball = {
        "claim": "10 to 30 times the ante after 3 or 4 matched rounds (German/French seed)",
        "rounds_after_3_or_4_matched": len(late),
        "median_antes": float(np.median(late)) if late else None,
        "share_within_10_to_30": round(float(np.mean([10 <= p <= 30 for p in late])), 4)
        if late else None,
        "share_below_10": round(float(np.mean([p < 10 for p in late])), 4) if late else None,
        "share_above_30": round(float(np.mean([p > 30 for p in late])), 4) if late else None,
    }
    fivefold = sum(
        1 for seq in games_pots.values()
        if any(seq[j] >= 5 * seq[i] for i in range(len(seq))
               for j in range(i + 1, min(len(seq), i + 4)))
    )
    # collusion: every pair of players who were dealt in together
    names = sorted(decisions)
    tests: list[dict[str, Any]] = []
    for a, b in itertools.combinations(names, 2):
        common = sorted(set(decisions[a]) & set(decisions[b]))
        if len(common) < 10:
            continue
        result = stratified_agreement_test(
            [decisions[a][i] for i in common], [decisions[b][i] for i in common],
            [_stratum(records[i]) for i in common], seed=seed)
        agree = sum(decisions[a][i] == decisions[b][i] for i in common) / len(common)
        tests.append({"players": [a, b], "rounds": len(common), "agreement": round(agree, 4),
                      "both_in": int(result["both_in"]),
                      "expected_both_in": round(result["expected"], 2),
                      "z": round(result["z"], 3), "odds_ratio": round(result["odds_ratio"], 3)
                      if math.isfinite(result["odds_ratio"]) else None,
                      "p_value": result["p_value"]})
    adjusted = _holm([t["p_value"] for t in tests])
    for t, p in zip(tests, adjusted, strict=True):
        t["p_adjusted"] = p
        t["flagged"] = bool(p < alpha and t["z"] > 0)
    tests.sort(key=lambda t: t["p_value"])
    bluffs = {}
    for name in sorted(stats):
        hands = shown.get(name, [])
        weakest = min(hands, default=None)
        bluffs[name] = {
            "shown": len(hands),
            "below_median": sum(p < 0.5 for p, _, _ in hands),
            "below_rule_of_thumb": sum(w for _, _, w in hands),
            "share_below_rule_of_thumb": round(sum(w for _, _, w in hands) / len(hands), 4)
            if hands else None,
            "weakest": None if weakest is None else {"hand": weakest[1],
                                                     "percentile": round(weakest[0], 4)},
        }
    return AnalysisReport(
        sessions=len(sessions), rounds=len(records), games=len(games_pots), players=players,
        escalation=escalation, pots_by_matched=dict(pots), fivefold_games=fivefold,
        collusion=tests, alpha=alpha, bluffs=bluffs, snowball_check=snowball,
    )
