"""Analysis of hand histories: per-player statistics, pot escalation, collusion and bluff
signals (RULES.md "Strategy notes": the seeds' warnings made measurable).

Input: one or more sessions' events (:mod:`gutskit.core.events`), from a JSON Lines history file
(:func:`gutskit.io.files.load_records`; a file may hold several sessions back to back,
and may be a seat's or a spectator's redacted copy, the server's ``history.jsonl``, whose
hidden information is unknown: :func:`gutskit.core.views.known_events`) or the SQLite store
(:mod:`gutskit.io.storage`). Each session is rebuilt event by event with
:func:`gutskit.core.engine.evolve` (no rule is re-implemented here) and checked against the
engine as it goes (each deal with :func:`gutskit.core.engine.can_deal`, each round whose hands
are known re-settled with :func:`gutskit.core.engine.declare_all`), and players are identified
by name across sessions.

What is measured:

* **per player**: rounds dealt in, in-rate, win rate (rounds where the player took a pot
  or a share of it, per round dealt in and per round in), net chips as the ledger counts
  them (:func:`gutskit.core.ledger.ledger`: final stack minus buy-ins, rebuys are not
  income, summed over the sessions: the same number as ``guts referee`` and the server's
  ledger, the end-of-session share of the pot and reserve included), net chips in the
  rounds (pots won minus matches and antes, round by round: what is left in the pot when
  the session ends is not in it) per round and by position relative to the dealer (0 = the
  dealer, 1 = the dealer's left, the first to be dealt);
* **pot escalation**: the pot after antes, in antes, against the number of matched rounds
  so far in the game, versus the German/French seed's "10 to 30 times the ante after 3 or 4
  matched rounds"; and the games whose pot grew fivefold or more within three rounds (the
  seed's sign that others are staying in light);
* **collusion**: for every pair of players, whether one's declarations depend on the
  other's cards. Null hypothesis: each player decides from their own hand, the public
  state and the history, never from the partner's hand. When the history records every
  hand (the engine's and the server's do), each direction is tested with
  :func:`signal_test`: given a player's own hand the partner's hand is uniform over the
  other cards, so the partner's hand strength, centred on its exact conditional mean (card
  removal by inclusion-exclusion), and weighted by the player's call minus the mean call
  with similar own hands, sums to a martingale under the null whatever the strategies
  (pot-dependent, adaptive, mixed) and whatever the shared public state: a z-test whose
  error rate does not depend on modelling the public state. The pair's p-value is the
  smaller direction's, doubled (Bonferroni). Rounds where the player legitimately knows
  something of the partner's hand or call are left out (Pass the Trash; under sequential
  declaration the rounds where the partner called first). When hands are not recorded
  (a referee's real table) the fallback is a stratified Fisher exact test of the rounds
  both were in (strata: pot in antes x players dealt in; 20,000 exact null draws; flagged
  only when they agree more), valid only as far as the strata capture what the players
  react to. P-values are Holm-adjusted over all pairs; a pair is flagged when the adjusted
  p-value is below ``alpha``. The agreement statistics (both in, expected, z, odds ratio)
  are reported for every pair as a description;
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
import numpy.typing as npt

from gutskit.core.engine import (
    ConservationError,
    GameState,
    IllegalActionError,
    Phase,
    can_deal,
    declare_all,
    evolve,
    name_winners,
    show_cards,
)
from gutskit.core.errors import GutsError
from gutskit.core.evaluation import evaluate
from gutskit.core.events import (
    IN_DECLARATIONS,
    AntesPosted,
    CardsDealt,
    CardsPassed,
    CardsShown,
    DeclarationsRevealed,
    Event,
    Misdealt,
    Outcome,
    RoundResolved,
    RoundUndone,
    SeatAway,
    SeatBack,
    SeatLeft,
    SeatRemoved,
    SessionStarted,
    WinnersNamed,
)
from gutskit.core.ledger import ledger
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

OWN_BINS = 10
"""The signal test's classes of own hands (tenths of the percentile)."""

METHOD = ("hands recorded: per direction, does a player's call depend on the partner's "
          "hand strength beyond card removal (martingale z-test on the partner's percentile "
          "with exact conditional moments, two-sided, Bonferroni over the two directions); "
          "hands not recorded: stratified Fisher exact test of both-in rounds (strata: pot "
          f"in antes x players dealt in, {NULL_DRAWS} exact null draws, flagged only when "
          "they agree more); p-values Holm-adjusted over the pairs")


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
        declaration_order: under sequential declaration the seats in the order they
            declared (each saw the calls before it); ``()`` when the calls were sealed.
        passing: Pass the Trash was played (``hands`` are the hands as dealt, before the
            exchange).
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
    declaration_order: tuple[int, ...] = ()
    passing: bool = False


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
        from gutskit.core.views import known_events
        from gutskit.io.files import load_records

        # any history gutskit writes, a seat's or a spectator's copy included: what the
        # copy hides (other hands, sealed declarations, passed cards) stays unknown
        sessions = split_sessions(known_events(load_records(history)))
        if not sessions:
            raise AnalysisError(f"{history} holds no hand history (no events)")
    else:
        from gutskit.io.storage import open_store

        store = open_store(db, create=False)
        sessions = [store.events(info.id) for info in store.sessions()]
        sessions = [s for s in sessions if s]
    if not sessions:
        raise AnalysisError("no sessions to analyse")
    return sessions


class _Checker:
    """Checks a session's events against the engine as they are replayed: every deal with
    :func:`gutskit.core.engine.can_deal` (seats in play, hand sizes, no card twice), and
    every round whose hands are all known re-settled with
    :func:`gutskit.core.engine.declare_all` from the revealed declarations (the recorded
    result must be the engine's). A redacted copy's unknown hands (``()``) and passes are
    not checked."""

    def __init__(self) -> None:
        self.before_declare: GameState | None = None
        self.expected: RoundResolved | None = None
        self.before_antes: GameState | None = None
        """The state before the :class:`AntesPosted` just replayed: the one its deal was
        checked against (:func:`gutskit.core.engine.deal` posts the antes, then deals)."""

    def before(self, state: GameState | None, event: Event) -> str | None:
        """The problem with applying ``event`` to ``state`` (``None``: none found)."""
        if state is None:
            return None
        if isinstance(event, AntesPosted):
            self.before_antes = state
            return None
        if isinstance(event, CardsDealt):
            # The deal is checked where the engine checked it: before its antes (a seat
            # whose last chip went in as the ante is dealt in).
            dealt_from = state if self.before_antes is None else self.before_antes
            self.before_antes = None
            self.expected = None
            return can_deal(dealt_from, event.hands, ghost=event.ghost, community=event.community)
        self.before_antes = None
        if isinstance(event, DeclarationsRevealed):
            self.expected = None
            start = self.before_declare
            if start is None or any(h == () for h in start.hands):
                return None
            calls = {s: d for s, d in enumerate(event.declarations) if d is not None}
            produced = declare_all(start, calls)[1]
            if produced[0] != event:
                return "the revealed declarations are not those declared"
            self.expected = next(e for e in produced if isinstance(e, RoundResolved))
        elif isinstance(event, CardsShown | WinnersNamed):  # companion mode: re-settle
            if isinstance(event, CardsShown):
                produced = show_cards(state, {s: h for s, h in enumerate(event.hands)
                                              if h is not None},
                                      ghost=event.ghost, community=event.community)[1]
            else:
                produced = name_winners(state, event.winners, low_winners=event.low_winners,
                                        losers=event.losers)[1]
            self.expected = next(e for e in produced if isinstance(e, RoundResolved))
        elif isinstance(event, RoundResolved) and self.expected is not None:
            expected, self.expected = self.expected, None
            if event != expected:
                return (f"the recorded result differs from the engine's settlement of the "
                        f"declarations (recorded: {event.outcome.value}, pot won "
                        f"{list(event.won)}, matched {list(event.matched)}; the engine: "
                        f"{expected.outcome.value}, {list(expected.won)}, "
                        f"{list(expected.matched)})")
        return None

    def after(self, state: GameState, event: Event) -> None:
        if isinstance(event, CardsDealt | CardsPassed):
            known = not (isinstance(event, CardsPassed) and None in [
                p for p, h in zip(event.passes, state.hands, strict=False) if h is not None])
            self.before_declare = state if known and state.phase is Phase.DECLARE else None
        elif isinstance(event, DeclarationsRevealed | Misdealt | RoundResolved):
            self.before_declare = None
        elif (isinstance(event, SeatAway | SeatBack | SeatLeft | SeatRemoved)
              and self.before_declare is not None):  # a seat gone mid-round (core.table)
            self.before_declare = evolve(self.before_declare, event)


def _replayed(index: int, events: Sequence[Event]) -> Iterable[tuple[GameState, Event]]:
    """Each event of session ``index`` with the state after it, checked by
    :class:`_Checker`.

    Raises:
        AnalysisError: the engine refuses an event (one line naming the session and the
            round).
    """
    state: GameState | None = None
    checker = _Checker()
    for number, event in enumerate(events, 1):
        try:
            problem = checker.before(state, event)
            if problem is None:
                state = evolve(state, event)
                checker.after(state, event)
        except (IllegalActionError, ConservationError) as error:
            problem = str(error)
        if problem is not None:
            dealt = 0 if state is None else state.round_number
            dealt += isinstance(event, CardsDealt)
            where = f"round {dealt}" if dealt else "before the first deal"
            raise AnalysisError(f"session {index + 1}, {where} (event {number}, "
                                f"{type(event).__name__}): {problem}")
        assert state is not None
        yield state, event


def rounds_of(sessions: Sequence[Sequence[Event]],
              finals: list[GameState] | None = None) -> list[RoundRecord]:
    """Every resolved round of ``sessions``, rebuilt with :func:`gutskit.core.engine.evolve`
    and checked against the engine (:class:`_Checker`). With ``finals``, each session's
    state after its last event is appended to it (the ledger's source).

    Raises:
        AnalysisError: a corrupt history: an event the engine refuses or that breaks chip
            conservation, a card dealt twice, a hand of the wrong size, a result that is not
            the engine's settlement of the declarations (the message names the session,
            counted from 1, and the round).
    """
    records: list[RoundRecord] = []
    for index, events in enumerate(sessions):
        antes: tuple[int, ...] = ()
        game_round = 0
        matched = 0
        pending: dict[str, Any] | None = None
        mark = (len(records), game_round, matched)  # where the round in progress began
        last: Event | None = None
        final: GameState | None = None
        for state, event in _replayed(index, events):
            final = state
            if isinstance(event, AntesPosted) or (isinstance(event, CardsDealt)
                                                  and not isinstance(last, AntesPosted)):
                mark = (len(records), game_round, matched)
            last = event
            if isinstance(event, RoundUndone):  # companion mode: the round is taken back
                del records[mark[0]:]
                _, game_round, matched = mark
                pending = None
            elif isinstance(event, AntesPosted):
                antes = event.amounts
                if event.new_game:
                    game_round, matched = 0, 0
            elif isinstance(event, CardsDealt):
                game_round += 1
                pending = {"pot": state.pot, "dealer": state.dealer, "hands": event.hands,
                           "antes": antes or (0,) * state.n_seats,
                           "order": state.declaration_order()
                           if state.rules.declaration == "sequential" else ()}
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
                    declaration_order=pending["order"], passing=state.rules.pass_the_trash,
                ))
                if event.outcome is Outcome.SHOWDOWN and any(event.matched):
                    matched += 1
                if event.pot_after == 0:
                    game_round, matched = 0, 0
                pending = None
        if finals is not None and final is not None:
            finals.append(final)
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
    """The public state a round's declarations are compared within: the pot after antes
    in antes (exact, 64 and above pooled) and the number of players dealt in."""
    return min(64, record.pot // record.ante), len(record.dealt)


@dataclass(frozen=True)
class _PartnerMoments:
    """Sums of the hand percentile over the hands that hold given cards, for the exact
    mean and variance of a partner's percentile given one's own hand (card removal)."""

    percentile: npt.NDArray[np.float64]
    code_to_index: npt.NDArray[np.int32]
    k: int
    totals: tuple[float, float, float]
    one: npt.NDArray[np.float64]
    two: npt.NDArray[np.float64]


_MOMENTS: dict[int, tuple[Any, _PartnerMoments]] = {}


def _partner_moments(ranking: Any) -> _PartnerMoments:
    """Inclusion-exclusion tables for ``ranking`` (cached by identity; the cache holds the
    ranking so its id stays unique)."""
    cached = _MOMENTS.get(id(ranking))
    if cached is not None:
        return cached[1]
    table = hand_table(ranking)
    g = np.asarray(table.percentile, dtype=np.float64)
    cards = np.asarray(table.cards, dtype=np.int64)
    k = cards.shape[1]
    powers = np.stack([np.ones_like(g), g, g * g], axis=1)  # count, sum, sum of squares
    one = np.zeros((52, 3))
    two = np.zeros((52, 52, 3))
    for i in range(k):
        np.add.at(one, cards[:, i], powers)
        for j in range(i + 1, k):
            np.add.at(two, (cards[:, i], cards[:, j]), powers)
            np.add.at(two, (cards[:, j], cards[:, i]), powers)
    moments = _PartnerMoments(g, table.code_to_index, k,
                              (float(len(g)), float(g.sum()), float((g * g).sum())), one, two)
    _MOMENTS[id(ranking)] = (ranking, moments)
    return moments


def _percentiles_of(hands: npt.NDArray[np.int64], m: _PartnerMoments) -> npt.NDArray[np.float64]:
    """Percentile of each row of an ``(n, k)`` array of card codes."""
    code = np.zeros(len(hands), dtype=np.int64)
    for i in range(m.k):
        code = code * 52 + hands[:, i]
    return m.percentile[m.code_to_index[code]]


def partner_strength_moments(own: Sequence[Sequence[int]], ranking: Any
                             ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Exact mean and variance of the percentile (:attr:`HandTable.percentile`, fraction of
    hands beaten) of a partner's hand drawn uniformly from the cards not in ``own[t]``,
    for each hand ``own[t]`` (card removal by inclusion-exclusion over the own cards).

    >>> from gutskit.core.cards import parse_cards
    >>> from gutskit.core.rules import Rules
    >>> own = [parse_cards("As Ah"), parse_cards("2c 2d")]
    >>> mean, var = partner_strength_moments(own, Rules(cards_per_hand=2).ranking)
    >>> [round(float(m), 4) for m in mean]  # aces block the partner's aces; deuces help
    [0.4688, 0.5144]
    """
    m = _partner_moments(ranking)
    hands = np.asarray(own, dtype=np.int64).reshape(-1, m.k)
    acc = np.tile(np.asarray(m.totals), (len(hands), 1))
    for i in range(m.k):
        acc -= m.one[hands[:, i]]
        for j in range(i + 1, m.k if m.k > 2 else 0):  # pairs of own cards (3-card hands)
            acc += m.two[hands[:, i], hands[:, j]]
    g_own = _percentiles_of(hands, m)
    sign = (-1) ** m.k  # the hands holding all k own cards: the own hand itself
    acc += sign * np.stack([np.ones_like(g_own), g_own, g_own * g_own], axis=1)
    mean = acc[:, 1] / acc[:, 0]
    return mean, np.maximum(acc[:, 2] / acc[:, 0] - mean * mean, 0.0)


def signal_test(calls: Sequence[bool], own: Sequence[Sequence[int]],
                partner: Sequence[Sequence[int]], rankings: Sequence[Any]) -> dict[str, float]:
    """Two-sided test that a player's declarations ``calls`` (True = in) do not depend on
    a partner's cards beyond what the player's own hand explains.

    Null hypothesis: in each round the player decides from their own hand ``own[t]``, the
    public state and the history, never from the partner's hand ``partner[t]``. Given the
    own hand (and everything before the round) the partner's hand is uniform over the
    other cards, so with ``X_t`` the partner's percentile (hand strength, exact moments
    ``mu_t``, ``var_t`` from :func:`partner_strength_moments`) and ``w_t = call_t -
    mean(call)``, ``U = sum w_t (X_t - mu_t)`` is a sum of martingale differences under
    the null, whatever the player's strategy (adaptive, pot-dependent, mixed). The
    statistic is ``z = U / sqrt(sum w_t^2 var_t)`` with a two-sided normal p-value
    (martingale central limit theorem). A signalling pair (going in when the partner is
    weak, staying out when both are strong) moves ``z`` away from 0.

    Args:
        calls: per round, whether the player was in.
        own: per round, the player's cards as dealt.
        partner: per round, the partner's cards as dealt.
        rankings: per round, the ranking (``Rules.ranking``) the percentiles use.

    Returns:
        ``rounds``, ``z``, ``p_value``, ``partner_strength_when_in`` (mean percentile of
        the partner's hand in the rounds the player was in, NaN if never) and
        ``expected_when_in`` (its expectation under the null).
    """
    n = len(calls)
    if n == 0:
        return {"rounds": 0.0, "z": 0.0, "p_value": 1.0,
                "partner_strength_when_in": math.nan, "expected_when_in": math.nan}
    y = np.asarray(calls, dtype=np.float64)
    x = np.empty(n)
    mu = np.empty(n)
    var = np.empty(n)
    groups: dict[int, list[int]] = defaultdict(list)
    by_id = {id(r): r for r in rankings}
    for t, r in enumerate(rankings):
        groups[id(r)].append(t)
    for key, rows in groups.items():
        ranking = by_id[key]
        m = _partner_moments(ranking)
        idx = np.asarray(rows)
        mean, variance = partner_strength_moments([own[t] for t in rows], ranking)
        mu[idx], var[idx] = mean, variance
        x[idx] = _percentiles_of(np.asarray([partner[t] for t in rows], dtype=np.int64), m)
    # weights: the call minus its mean among rounds with a similar own hand (tenths of
    # the own percentile), so rounds the own hand decides carry no weight and the
    # calls the own hand does not explain carry it all
    own_pct = mu.copy()
    for key, rows in groups.items():
        idx = np.asarray(rows)
        own_pct[idx] = _percentiles_of(np.asarray([own[t] for t in rows], dtype=np.int64),
                                       _partner_moments(by_id[key]))
    bins = np.minimum((own_pct * OWN_BINS).astype(np.int64), OWN_BINS - 1)
    counts = np.bincount(bins, minlength=OWN_BINS)
    means = np.bincount(bins, weights=y, minlength=OWN_BINS) / np.maximum(counts, 1)
    w = y - means[bins]
    denominator = float(np.sum(w * w * var))
    z = float(np.sum(w * (x - mu)) / math.sqrt(denominator)) if denominator > 0 else 0.0
    inside = y > 0
    return {
        "rounds": float(n), "z": z, "p_value": math.erfc(abs(z) / math.sqrt(2.0)),
        "partner_strength_when_in": float(x[inside].mean()) if inside.any() else math.nan,
        "expected_when_in": float(mu[inside].mean()) if inside.any() else math.nan,
    }


def _sees_partner_cards_only_by_signal(record: RoundRecord, seat: int, partner: int) -> bool:
    """Whether the round can test ``seat``'s call against ``partner``'s cards: both hands
    recorded, no Pass the Trash (a passed card is a legitimately known card of a
    neighbour) and, under sequential declaration, ``seat`` called before ``partner``
    (a later call may legitimately react to the partner's call)."""
    if record.passing or not record.hands[seat] or not record.hands[partner]:
        return False
    order = record.declaration_order
    return not order or order.index(seat) < order.index(partner)


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
                "method": METHOD,
                "alpha": self.alpha, "flagged": [list(p) for p in self.flagged_pairs],
                "pairs": self.collusion,
            },
            "bluff_signals": self.bluffs,
        }


def _collusion_tests(records: Sequence[RoundRecord], decisions: dict[str, dict[int, bool]],
                     seats: dict[str, dict[int, int]], *, alpha: float, seed: int
                     ) -> list[dict[str, Any]]:
    """One entry per pair dealt in together at least 10 times (see the module docstring):
    the signal test on the partner's cards in each direction when the hands were
    recorded, otherwise the stratified agreement test; Holm-adjusted over the pairs."""
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
        directions = []
        for me, other in ((a, b), (b, a)):
            usable = [i for i in common if _sees_partner_cards_only_by_signal(
                records[i], seats[me][i], seats[other][i])]
            directions.append(signal_test(
                [decisions[me][i] for i in usable],
                [records[i].hands[seats[me][i]] or () for i in usable],
                [records[i].hands[seats[other][i]] or () for i in usable],
                [records[i].rules_ranking for i in usable]))
        informative = [d for d in directions if d["rounds"] >= 10]
        if informative:
            test = "partner's cards"
            p_value = min(1.0, len(informative) * min(d["p_value"] for d in informative))
        else:
            test = "declarations"
            p_value = result["p_value"]
        tests.append({
            "players": [a, b], "rounds": len(common), "agreement": round(agree, 4),
            "both_in": int(result["both_in"]), "expected_both_in": round(result["expected"], 2),
            "z": round(result["z"], 3), "odds_ratio": round(result["odds_ratio"], 3)
            if math.isfinite(result["odds_ratio"]) else None,
            "agreement_p_value": result["p_value"],
            "test": test, "p_value": p_value,
            "signal": {
                "rounds": [int(d["rounds"]) for d in directions],
                "z": [round(d["z"], 3) for d in directions],
                "p_value": [d["p_value"] for d in directions],
                "partner_strength_when_in": [_rounded(d["partner_strength_when_in"])
                                             for d in directions],
                "expected_when_in": [_rounded(d["expected_when_in"]) for d in directions],
            },
        })
    adjusted = _holm([t["p_value"] for t in tests])
    for t, p in zip(tests, adjusted, strict=True):
        t["p_adjusted"] = p
        # declarations alone: card removal makes independent calls agree slightly *less*
        # than chance, so only agreement beyond chance is a sign
        t["flagged"] = bool(p < alpha and (t["test"] != "declarations" or t["z"] > 0))
    tests.sort(key=lambda t: t["p_value"])
    return tests


def _rounded(value: float) -> float | None:
    return round(value, 4) if math.isfinite(value) else None


def _percentiles(record: RoundRecord) -> Any:
    return hand_table(record.rules_ranking)


def analyze(sessions: Sequence[Sequence[Event]], *, alpha: float = 0.01, seed: int = 0
            ) -> AnalysisReport:
    """Analyse ``sessions`` (see the module docstring).

    Raises:
        AnalysisError: no resolved round in the history.
    """
    from gutskit.strategy.bots import _rule_percentile

    finals: list[GameState] = []
    records = rounds_of(sessions, finals)
    if not records:
        raise AnalysisError("the history has no resolved rounds")
    ledger_nets: dict[str, int] = defaultdict(int)  # the ledger's net, summed by name
    for final in finals:
        for line in ledger(final):
            ledger_nets[line.name] += line.net
    stats: dict[str, dict[str, Any]] = {}
    by_pos: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    shown: dict[str, list[tuple[float, str, bool]]] = defaultdict(list)
    pots: dict[int, list[float]] = defaultdict(list)
    games_pots: dict[tuple[int, int], list[float]] = defaultdict(list)
    decisions: dict[str, dict[int, bool]] = defaultdict(dict)
    seats: dict[str, dict[int, int]] = defaultdict(dict)
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
            seats[name][i] = seat
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
            "net": ledger_nets[name], "net_in_rounds": s["net"],
            "net_per_round": round(s["net"] / s["rounds"], 4),
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
        "claim": "10 to 30 times the ante after 3 or 4 matched rounds (German/French rule book)",
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
    tests = _collusion_tests(records, decisions, seats, alpha=alpha, seed=seed)
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
