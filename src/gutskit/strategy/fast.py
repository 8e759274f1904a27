"""A vectorized (numpy) Guts simulator for threshold and table-driven strategies.

It plays many independent tables at once, each a session under the same rules as
:mod:`gutskit.core.engine` (which stays the reference: the tests replay identical deals through
both and compare every stack, and compare random play statistically). It is for research
(solvers, exploitability, tournaments' best responses), not for play: there are no events
and no views.

Supported rules (anything else raises :class:`UnsupportedRulesError` naming the rule):

* ``cards_per_hand`` 2 or 3, ``ace_low_straight``, ``suit_tiebreak`` (through
  :mod:`gutskit.strategy.tables`), ``ante``;
* antes when a game starts (empty pot), ``ante_every_round``, ``all_out = "reante"`` and
  ``"carry"`` (not ``"best_pays_antes"``);
* ``declaration``: ``simultaneous``, ``drop``, and ``sequential`` -- the strategies here
  decide from their own hand and the pot only, so the order of calls cannot change them;
* nobody in (void round: the same dealer deals again while in play), one in (uncontested
  win), showdown with ties and ``odd_chip`` (``carry`` or ``first_left_of_dealer``), every
  loser matching;
* ``pot_cap`` in both ``pot_cap_mode`` (``match`` and ``reserve``, with the reserve
  refilling a new game's pot and shared at the end like :func:`gutskit.core.engine.end_session`);
* ``shortfall``: ``eliminate``, ``table_stakes`` and ``debt``; ``require_cover``;
  players with no chips are not dealt in; ``end_on_uncontested``; a session stops when
  fewer than two players can be dealt in; ``min_buy_in`` (checked), ``rebuys`` (allowed,
  but the simulated players never rebuy);
* the house rules of the variants (``hi_lo``, ``community_card``, ghost hand, ...) only at
  their defaults.

A strategy is a :class:`FastPolicy`: the probability of declaring in for each dense hand
rank (:mod:`gutskit.strategy.tables`), optionally in several tables chosen by the pot size. A
threshold strategy has probabilities 0 and 1; a mixed one anything between.

Two kernels play the same rules (``kernel=``, :data:`KERNELS`): the compiled one
(:mod:`gutskit.strategy.fast_kernel`, numba; used by default when numba is installed) and
table-parallel numpy passes (the reference, and the fallback without numba). On the same
deals they give identical results, statistic by statistic (``tests/test_fast.py``).

Randomness. numpy path: one seeded :class:`numpy.random.Generator` (SFC64) per call; hands
are dealt uniformly, hand after hand, each drawn among the combinations that share no card
with the hands already dealt at that table (rejection sampling on 52-bit card masks).
Compiled kernel: counter-seeded streams per table (one for the deals, one for mixed
strategies' declarations), so a table's play depends only on the seed and its index
(``first_table``), and each round dealt from a full deck, a 64-bit draw per hand and a
fresh draw for a card already dealt (see :mod:`gutskit.strategy.fast_kernel`);
``record_deals=True`` returns the cards it dealt, which the tests replay through the
engine. The two kernels draw different random
numbers: the same seed gives different, equally distributed deals.

>>> from gutskit.core.rules import Rules
>>> rules = Rules(cards_per_hand=2)
>>> tight = FastPolicy.threshold(0.8, rules.ranking)
>>> result = simulate(rules, [tight] * 4, tables=1000, rounds=50, stacks=10_000, seed=1)
>>> int(result.stacks.sum() + result.pot.sum() + result.reserve.sum()) == 1000 * 4 * 10_000
True
>>> bool(0.15 < result.in_rate.mean() < 0.25)  # a threshold at 0.8 plays about 20 % of hands
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
import numpy.typing as npt

from gutskit.core.errors import GutsError
from gutskit.core.evaluation import Ranking
from gutskit.core.rules import Rules
from gutskit.strategy.tables import HandTable, hand_table

__all__ = [
    "KERNELS",
    "FastPolicy",
    "FastResult",
    "UnsupportedRulesError",
    "check_supported",
    "numba_available",
    "simulate",
    "simulate_deals",
]

Kernel = Literal["auto", "numba", "numpy"]
KERNELS: tuple[str, ...] = ("auto", "numba", "numpy")
"""``kernel=`` values of :func:`simulate`: ``numba`` the compiled kernel
(:mod:`gutskit.strategy.fast_kernel`), ``numpy`` the table-parallel numpy passes (the
reference), ``auto`` numba when it is installed, else numpy."""

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

_SUPPORTED: dict[str, tuple[object, ...] | None] = {
    "cards_per_hand": None,
    "ante": None,
    "ante_every_round": None,
    "declaration": ("simultaneous", "drop", "sequential"),
    "all_out": ("reante", "carry"),
    "ace_low_straight": None,
    "suit_tiebreak": None,
    "odd_chip": None,
    "pot_cap": None,
    "pot_cap_mode": None,
    "shortfall": None,
    "require_cover": None,
    "end_on_uncontested": None,
    "min_buy_in": None,
    "rebuys": None,
    "max_rebuys": None,
}
"""Rule -> the values the simulator plays (``None``: every valid value). Every other rule
must be at its default."""


class UnsupportedRulesError(GutsError):
    """The fast simulator cannot play these rules; the message names the rule and value."""


def check_supported(rules: Rules) -> None:
    """Raise :class:`UnsupportedRulesError` unless :func:`simulate` plays ``rules``."""
    defaults = Rules()
    for name in type(rules).model_fields:
        value = getattr(rules, name)
        if name in _SUPPORTED:
            allowed = _SUPPORTED[name]
            if allowed is not None and value not in allowed:
                raise UnsupportedRulesError(
                    f"the fast simulator does not play {name} = {value!r} "
                    f"(supported: {', '.join(map(str, allowed))})")
        elif value != getattr(defaults, name):
            raise UnsupportedRulesError(
                f"the fast simulator does not play {name} = {value!r} "
                f"(only the default {getattr(defaults, name)!r}); use the engine")


@dataclass(frozen=True, eq=False)
class FastPolicy:
    """A strategy for :func:`simulate`: in-probabilities by dense hand rank and pot size.

    Attributes:
        in_prob: ``(n_buckets, n_ranks)`` probabilities of declaring in; row ``b`` applies
            when ``pot_edges[b - 1] <= pot < pot_edges[b]`` (pot after antes, chips).
        pot_edges: ``n_buckets - 1`` increasing pot sizes where the row changes. Both
            arrays are the policy's own read-only copies of what it was given.
        name: a label.
    """

    in_prob: F64
    pot_edges: I64 = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    name: str = "policy"

    def __post_init__(self) -> None:
        probs = np.atleast_2d(np.asarray(self.in_prob, dtype=np.float64))
        edges = np.asarray(self.pot_edges, dtype=np.int64).reshape(-1)
        if probs.shape[0] != edges.shape[0] + 1:
            raise ValueError(f"{probs.shape[0]} rows of in-probabilities need "
                             f"{probs.shape[0] - 1} pot edges, got {edges.shape[0]}")
        if np.any(np.diff(edges) <= 0):
            raise ValueError(f"pot edges must increase: {edges.tolist()!r}")
        if np.any((probs < 0) | (probs > 1)):
            raise ValueError("in-probabilities must lie in [0, 1]")
        # own read-only copies: what is worked out once per policy (deterministic, the
        # kernel's 0/1 table) stays true
        probs = probs.copy()
        edges = edges.copy()
        probs.setflags(write=False)
        edges.setflags(write=False)
        object.__setattr__(self, "in_prob", probs)
        object.__setattr__(self, "pot_edges", edges)

    @cached_property
    def deterministic(self) -> bool:
        """Whether every probability is 0 or 1 (a pure strategy). Worked out once per policy
        (a rule-of-thumb table has 458,000 probabilities)."""
        return bool(np.all((self.in_prob == 0) | (self.in_prob == 1)))

    @cached_property
    def _calls(self) -> npt.NDArray[np.uint8]:
        """The in-probabilities as 0/1 bytes, flat (row after row): the compiled kernel's
        table of a pure policy, made once per policy."""
        calls: npt.NDArray[np.uint8] = (self.in_prob.reshape(-1) > 0.5).astype(np.uint8)
        return calls

    @cached_property
    def _cut_offs(self) -> npt.NDArray[np.int64] | None:
        """For a pure policy whose every row is a cut-off (out below some rank, in from it
        on): each row's first rank in (``n_ranks`` when none), made once per policy; else
        ``None``. The compiled kernel's vector rounds then compare a hand's rank with its
        row's cut instead of looking each declaration up."""
        calls = self._calls.reshape(self.in_prob.shape)
        if not self.deterministic or np.any(np.diff(calls.astype(np.int8), axis=1) < 0):
            return None
        n_ranks = int(self.in_prob.shape[-1])
        cuts: npt.NDArray[np.int64] = (n_ranks - calls.sum(axis=1)).astype(np.int64)
        return cuts

    @classmethod
    def threshold(cls, percentile: float, ranking: Ranking, *, name: str | None = None
                  ) -> FastPolicy:
        """In exactly with hands whose percentile (:mod:`gutskit.strategy.tables`) is at least
        ``percentile``."""
        table = hand_table(ranking)
        probs = (table.rank_percentile >= percentile).astype(np.float64)
        return cls(probs[None, :], name=name or f"threshold {percentile:.3f}")

    @classmethod
    def constant(cls, p_in: float, ranking: Ranking, *, name: str | None = None
                 ) -> FastPolicy:
        """In with probability ``p_in`` whatever the hand
        (:class:`gutskit.strategy.bots.RandomBot`)."""
        n = hand_table(ranking).n_ranks
        return cls(np.full((1, n), float(p_in)), name=name or f"random {p_in:g}")

    def rows_for(self, pots: I64) -> npt.NDArray[np.intp]:
        """The row of :attr:`in_prob` that applies at each pot size."""
        return np.searchsorted(self.pot_edges, pots, side="right")


@dataclass(frozen=True, eq=False)
class FastResult:
    """What :func:`simulate` measured over all tables.

    Attributes:
        stacks: ``(tables, seats)`` final stacks (after the end-of-session share, if any).
        buy_ins: ``(seats,)`` starting stacks.
        pot, reserve: ``(tables,)`` chips left on the table (0 after the end share).
        rounds_played: ``(tables,)`` rounds dealt at each table.
        over: ``(tables,)`` the session ended by the rules before ``rounds`` were played.
        eliminated: ``(tables, seats)``.
        dealt: ``(seats,)`` rounds each seat was dealt in, summed over tables.
        ins: ``(seats,)`` rounds each seat declared in.
        wins: ``(seats,)`` rounds each seat took (a share of) the pot.
        outcomes: counts of ``void``, ``uncontested`` and ``showdown`` rounds.
        pot_sum: sum over rounds of the pot after antes (chips), for the mean pot.
        max_pot: the largest pot after antes.
        games: games started (antes into an empty pot).
        hands: with ``record_deals`` (compiled kernel), ``(rounds, tables, seats, k)`` the
            cards dealt (:mod:`gutskit.core.cards` codes), ``-1`` where a seat was not
            dealt in or the session had ended; else ``None``. For replaying the kernel's
            own deals through the engine (``tests/test_fast.py``).
    """

    stacks: I64
    buy_ins: I64
    pot: I64
    reserve: I64
    rounds_played: I64
    over: BoolArray
    eliminated: BoolArray
    dealt: I64
    ins: I64
    wins: I64
    outcomes: dict[str, int]
    pot_sum: int
    max_pot: int
    games: int
    hands: I64 | None = None

    @property
    def net(self) -> I64:
        """``(tables, seats)`` chips won or lost per seat."""
        return self.stacks - self.buy_ins[None, :]

    @property
    def in_rate(self) -> F64:
        """``(seats,)`` fraction of dealt rounds each seat declared in."""
        return self.ins / np.maximum(self.dealt, 1)

    @property
    def total_rounds(self) -> int:
        """Rounds played over all tables."""
        return int(self.rounds_played.sum())

    @property
    def chips_per_round(self) -> F64:
        """``(seats,)`` mean net chips per round played, per seat."""
        per_round: F64 = self.net.sum(axis=0) / max(1, self.total_rounds)
        return per_round

    @property
    def mean_pot(self) -> float:
        """Mean pot after antes, chips."""
        return self.pot_sum / max(1, self.total_rounds)


class _Dealer:
    """Uniform deals of ``seats`` disjoint hands at many tables at once: hand after hand,
    each drawn uniformly among all combinations and redrawn (rejection sampling on 52-bit
    card masks) while it shares a card with a hand already dealt at that table. Indices
    come from 53-bit uniform floats, ``floor(u * n)``: uniform to about 1 part in 4e11."""

    def __init__(self, table: HandTable, rng: np.random.Generator) -> None:
        self.rng = rng
        self.n = table.n_hands
        self.masks = np.bitwise_or.reduce(
            np.uint64(1) << table.cards.astype(np.uint64), axis=1
        ).astype(np.uint64).view(np.int64)

    def deal(self, tables: int, seats: int) -> npt.NDArray[np.int32]:
        """``(seats, tables)`` combination indices, hands pairwise disjoint per table."""
        used = np.zeros(tables, dtype=np.int64)
        combos = (self.rng.random((seats, tables)) * self.n).astype(np.int32)
        masks = self.masks
        for seat in range(seats):
            combo = combos[seat]
            mask = masks[combo]
            if seat:
                bad = np.flatnonzero(mask & used)
                while bad.size > 2048:  # one fresh candidate per clash: least work
                    cand = (self.rng.random(bad.size) * self.n).astype(np.int32)
                    cand_mask = masks[cand]
                    ok = (cand_mask & used[bad]) == 0
                    hit = bad[ok]
                    combo[hit] = cand[ok]
                    mask[hit] = cand_mask[ok]
                    bad = bad[~ok]
                while bad.size:  # the few left: many candidates at once, fewer passes
                    cand = (self.rng.random((16, bad.size)) * self.n).astype(np.int32)
                    ok = (masks[cand] & used[bad]) == 0
                    got = ok.any(axis=0)
                    chosen = cand[ok.argmax(axis=0)[got], np.flatnonzero(got)]
                    hit = bad[got]
                    combo[hit] = chosen
                    mask[hit] = masks[chosen]
                    bad = bad[~got]
            used |= mask
        return combos


def simulate(rules: Rules, policies: Sequence[FastPolicy], *, tables: int, rounds: int,
             stacks: int | Sequence[int] = 10_000, dealer: int = 0, seed: int | None = None,
             end_share: bool = True, kernel: Kernel = "auto", first_table: int = 0,
             record_deals: bool = False) -> FastResult:
    """Play ``rounds`` rounds at each of ``tables`` independent tables.

    Args:
        rules: the house rules (see the module docstring for what is supported).
        policies: one :class:`FastPolicy` per seat (2 to 10 seats), clockwise.
        tables: number of independent tables (sessions).
        rounds: rounds to deal at each table (fewer when its session ends by the rules).
        stacks: buy-in per seat (one number for all, or one per seat), chips.
        dealer: the first dealer's seat at every table.
        seed: seeds a :class:`numpy.random.SFC64` generator (``None``: fresh OS entropy).
        end_share: at the end, share what is left in the pot and reserve among the seated
            players like :func:`gutskit.core.engine.end_session`.
        kernel: :data:`KERNELS`. The two kernels play the same rules but draw different
            random numbers, so a seed gives different (equally distributed) deals.
        first_table: (numba kernel) the index of the first table: table ``t``'s deals
            depend only on ``(seed, first_table + t)``, so tables split into several calls
            (processes, machines) play exactly the deals of one call.
        record_deals: (numba kernel) also return the cards dealt, :attr:`FastResult.hands`
            (8 bytes per card: for checks on few tables, not for speed runs).

    Returns:
        A :class:`FastResult`.

    Raises:
        UnsupportedRulesError: a rule the simulator does not play.
        ValueError: a bad seat count, policy shape, stack or count, ``kernel="numba"``
            without numba installed, or ``record_deals`` without the compiled kernel.
    """
    if _use_kernel(kernel):
        table = hand_table(rules.ranking)
        return _run(rules, policies, tables=tables, rounds=rounds, stacks=stacks,
                    dealer=dealer, rng=None, deals=None, end_share=end_share,
                    compiled=(None, table.code_to_rank, seed, first_table),
                    record=record_deals)
    if record_deals:
        raise ValueError("record_deals needs the compiled kernel (kernel='numba')")
    rng = np.random.Generator(np.random.SFC64(seed))
    table = hand_table(rules.ranking)
    dealer_ = _Dealer(table, rng)
    rank16 = table.rank.astype(np.int16)

    def deals(step: int, n_tables: int, n_seats: int) -> npt.NDArray[np.int16]:
        return rank16[dealer_.deal(n_tables, n_seats)]

    return _run(rules, policies, tables=tables, rounds=rounds, stacks=stacks, dealer=dealer,
                rng=rng, deals=deals, end_share=end_share)


def simulate_deals(rules: Rules, policies: Sequence[FastPolicy], hands: npt.ArrayLike, *,
                   stacks: int | Sequence[int] = 10_000, dealer: int = 0,
                   seed: int | None = None, end_share: bool = True, kernel: Kernel = "auto"
                   ) -> FastResult:
    """Like :func:`simulate` but with given deals: ``hands[r, t, s]`` is the ``k`` card
    codes of seat ``s`` at table ``t`` in round ``r`` (shape ``(rounds, tables, seats,
    k)``); the hands of seats not dealt in are ignored. Used to check the simulator
    against the engine deal by deal; ``kernel`` as in :func:`simulate` (the kernels agree
    exactly for pure strategies; mixed ones draw from each kernel's own random numbers).

    Raises:
        UnsupportedRulesError, ValueError: as :func:`simulate`, or a bad hands shape.
    """
    table = hand_table(rules.ranking)
    array = np.asarray(hands)
    k = rules.cards_per_hand
    if array.ndim != 4 or array.shape[3] != k or array.shape[2] != len(policies):
        raise ValueError(f"hands must have shape (rounds, tables, {len(policies)}, {k}), "
                         f"got {array.shape}")
    codes = array[..., 0].astype(np.int64)
    for j in range(1, k):
        codes = codes * 52 + array[..., j]
    ranks = table.code_to_rank[codes]
    if int(ranks.min(initial=0)) < 0:
        raise ValueError("a hand repeats a card")

    if _use_kernel(kernel):
        return _run(rules, policies, tables=array.shape[1], rounds=array.shape[0],
                    stacks=stacks, dealer=dealer, rng=None, deals=None, end_share=end_share,
                    compiled=(np.ascontiguousarray(ranks, dtype=np.int16),
                              table.code_to_rank, seed, 0))

    def deals(step: int, n_tables: int, n_seats: int) -> npt.NDArray[np.int16]:
        return np.ascontiguousarray(ranks[step].T)

    return _run(rules, policies, tables=array.shape[1], rounds=array.shape[0], stacks=stacks,
                dealer=dealer, rng=np.random.default_rng(seed), deals=deals,
                end_share=end_share)


def numba_available() -> bool:
    """Whether numba is installed (the compiled kernel can be used)."""
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def _use_kernel(kernel: str) -> bool:
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r} (one of {', '.join(KERNELS)})")
    if kernel == "numba" and not numba_available():
        raise ValueError("kernel 'numba' needs numba installed (pip install numba)")
    return kernel == "numba" or (kernel == "auto" and numba_available())


_VECTOR_ROUNDS = True
"""Whether the compiled kernel plays pure policies' rounds in vector code, a block of tables
at once (:func:`gutskit.strategy.fast_kernel.run`'s ``vector``); ``False`` plays every round
in its scalar code (the tests check the two against each other)."""

_Compiled = tuple[npt.NDArray[np.int16] | None, npt.NDArray[np.int16], int | None, int]


def _run(rules: Rules, policies: Sequence[FastPolicy], *, tables: int, rounds: int,
         stacks: int | Sequence[int], dealer: int, rng: np.random.Generator | None,
         deals: object, end_share: bool, compiled: _Compiled | None = None,
         record: bool = False) -> FastResult:
    check_supported(rules)
    n = len(policies)
    if not 2 <= n <= 10:
        raise ValueError(f"Guts needs 2 to 10 seats, got {n}")
    if tables < 1 or rounds < 0:
        raise ValueError(f"need at least one table and rounds >= 0, got {tables}, {rounds}")
    if not 0 <= dealer < n:
        raise ValueError(f"dealer seat {dealer!r} is not at the table")
    n_ranks = hand_table(rules.ranking).n_ranks
    for policy in policies:
        if policy.in_prob.shape[1] != n_ranks:
            raise ValueError(f"policy {policy.name!r} has {policy.in_prob.shape[1]} ranks; "
                             f"these rules have {n_ranks}")
    buy = np.array([stacks] * n if isinstance(stacks, int) else list(stacks), dtype=np.int64)
    if buy.shape != (n,) or np.any(buy < 0):
        raise ValueError(f"stacks must be {n} whole numbers >= 0, got {stacks!r}")
    if rules.min_buy_in is not None and int(buy.min()) < rules.min_buy_in:
        raise ValueError(f"a buy-in of {int(buy.min())} is below min_buy_in "
                         f"{rules.min_buy_in}")
    if compiled is not None:
        return _run_kernel(rules, policies, compiled, tables=tables, rounds=rounds, buy=buy,
                           dealer=dealer, end_share=end_share, n_ranks=n_ranks,
                           record=record)
    deal_fn = deals  # (step, tables, seats) -> (seats, tables) int16 ranks
    assert callable(deal_fn) and rng is not None

    ante = rules.ante
    cap = rules.pot_cap
    match_cap = cap is not None and rules.pot_cap_mode == "match"
    reserve_cap = cap is not None and rules.pot_cap_mode == "reserve"
    debt = rules.shortfall == "debt"
    seat_ids = np.arange(n)[:, None]

    st = np.repeat(buy[:, None], tables, axis=1)  # (seats, tables)
    pot = np.zeros(tables, dtype=np.int64)
    reserve = np.zeros(tables, dtype=np.int64)
    elim = np.zeros((n, tables), dtype=bool)
    dealer_seat = np.full(tables, dealer, dtype=np.int64)
    active = np.ones(tables, dtype=bool)
    reante_due = np.zeros(tables, dtype=bool)
    game_matched = np.zeros(tables, dtype=bool)
    rounds_played = np.zeros(tables, dtype=np.int64)
    over = np.zeros(tables, dtype=bool)
    dealt_count = np.zeros(n, dtype=np.int64)
    in_count = np.zeros(n, dtype=np.int64)
    win_count = np.zeros(n, dtype=np.int64)
    outcomes = {"void": 0, "uncontested": 0, "showdown": 0}
    pot_sum = 0
    max_pot = 0
    games = 0
    flat_probs = [(p.in_prob.reshape(-1), p.pot_edges.size > 0, p.deterministic)
                  for p in policies]
    need_dealer = rules.odd_chip == "first_left_of_dealer" or end_share

    for step in range(rounds):
        inplay = ~elim & (st > 0)
        can = active & (inplay.sum(axis=0) >= 2)
        over |= active & ~can
        active = can
        if not active.any():
            break
        inplay &= active
        # antes (engine.deal): new game, ante_every_round, re-ante after a void round
        new_game = active & (pot == 0)
        due = active & (new_game | reante_due) if not rules.ante_every_round else active
        if due.any():
            payers = inplay & due
            if debt or int(st.min()) >= ante:  # everyone can pay the full ante
                antes = payers * np.int64(ante)
            else:
                antes = np.where(payers, np.minimum(ante, st), 0)
            st -= antes
            pot += antes.sum(axis=0)
        if reserve_cap:
            assert cap is not None
            refill = np.where(new_game, np.minimum(reserve, cap), 0)
            reserve -= refill
            pot += refill
        games += int(new_game.sum())
        game_matched &= ~new_game
        reante_due &= ~due
        rounds_played += active
        pot_sum += int(pot[active].sum())
        max_pot = max(max_pot, int(pot[active].max()))
        # deal and declare
        ranks = deal_fn(step, tables, n)
        inn = np.empty((n, tables), dtype=bool)
        for s, (probs, bucketed, pure) in enumerate(flat_probs):
            idx = ranks[s].astype(np.int64)
            if bucketed:
                idx += policies[s].rows_for(pot) * n_ranks
            p = probs[idx]
            inn[s] = p > 0.5 if pure else rng.random(tables) < p
        inn &= inplay
        owed = np.minimum(pot, cap) if match_cap and cap is not None else pot
        if rules.require_cover:
            inn &= st >= owed
        dealt_count += inplay.sum(axis=1)
        in_count += inn.sum(axis=1)
        n_in = inn.sum(axis=0)
        void = active & (n_in == 0)
        unc = n_in == 1
        sd = n_in >= 2
        outcomes["void"] += int(void.sum())
        outcomes["uncontested"] += int(unc.sum())
        outcomes["showdown"] += int(sd.sum())
        # showdown: best hand(s) among those in
        masked = np.where(inn, ranks, -1)
        best = masked.max(axis=0)
        winner = inn & (ranks == best) & (sd | unc)
        n_win = np.maximum(winner.sum(axis=0), 1)
        share = pot // n_win
        rem = np.where(sd, pot - share * n_win, 0)
        won = np.where(winner, share, 0)
        if rules.odd_chip == "first_left_of_dealer":
            pos = (seat_ids - dealer_seat - 1) % n
            first = np.argmin(np.where(winner, pos, n), axis=0)
            won[first, np.arange(tables)] += rem
            rem = np.zeros_like(rem)
        loser = inn & ~winner
        if debt:
            paid = np.where(loser, owed, 0)
        elif rules.shortfall == "table_stakes":
            paid = np.where(loser, np.minimum(owed, np.maximum(st, 0)), 0)
        else:
            short = loser & (st < owed)
            paid = np.where(loser & ~short, owed, 0)
            elim |= short
        matched_any = (paid > 0).any(axis=0)
        st += won - paid
        win_count += winner.sum(axis=1)
        new_pot = rem + paid.sum(axis=0)
        if reserve_cap:
            assert cap is not None
            excess = np.where(sd, np.maximum(new_pot - cap, 0), 0)
            reserve += excess
            new_pot -= excess
        pot = np.where(sd, new_pot, np.where(unc, 0, pot))
        ended_unc = unc & game_matched if rules.end_on_uncontested else None
        game_matched = (game_matched | (sd & matched_any)) & (pot > 0)
        if rules.all_out == "reante":
            reante_due = void.copy()
        # next dealer: the same after a void round if still in play, else the next seat
        # clockwise still in play (engine._next_dealer)
        left = (~elim & (st > 0))
        if need_dealer and left.all():
            dealer_seat = np.where(active & ~void, (dealer_seat + 1) % n, dealer_seat)
        elif need_dealer:
            order = (dealer_seat[None, :] + np.arange(1, n + 1)[:, None]) % n
            eligible = left[order, np.arange(tables)[None, :]]
            step_to = np.argmax(eligible, axis=0)
            has = eligible.any(axis=0)
            moved = order[step_to, np.arange(tables)]
            stays = void & left[dealer_seat, np.arange(tables)]  # still in play
            dealer_seat = np.where(active & ~stays & has, moved, dealer_seat)
        finished = active & (left.sum(axis=0) < 2)
        if ended_unc is not None:
            finished |= ended_unc
        over |= finished
        active &= ~finished

    if end_share:
        seated = ~elim
        none_seated = ~seated.any(axis=0)
        seated[:, none_seated] = True
        amount = pot + reserve
        count = seated.sum(axis=0)
        base = amount // count
        extra = amount - base * count
        pos = (seat_ids - dealer_seat - 1) % n
        order_rank = np.argsort(np.argsort(np.where(seated, pos, n + pos), axis=0), axis=0)
        st += np.where(seated, base + (order_rank < extra), 0)
        pot = np.zeros_like(pot)
        reserve = np.zeros_like(reserve)
    return FastResult(
        stacks=np.ascontiguousarray(st.T), buy_ins=buy, pot=pot, reserve=reserve,
        rounds_played=rounds_played, over=over, eliminated=np.ascontiguousarray(elim.T),
        dealt=dealt_count, ins=in_count, wins=win_count, outcomes=outcomes,
        pot_sum=pot_sum, max_pot=max_pot, games=games,
    )


def _run_kernel(rules: Rules, policies: Sequence[FastPolicy], compiled: _Compiled, *,
                tables: int, rounds: int, buy: I64, dealer: int, end_share: bool,
                n_ranks: int, record: bool = False) -> FastResult:
    """:func:`_run` with the compiled kernel (:mod:`gutskit.strategy.fast_kernel`). Seats
    playing the same :class:`FastPolicy` object share its tables (a pure policy's as 0/1
    bytes, a mixed one's as probabilities)."""
    from gutskit.strategy.fast_kernel import comb_ranks, run, table_keys

    given, code_to_rank, seed, first_table = compiled
    n = len(policies)
    distinct: list[FastPolicy] = []
    seat_policy = np.zeros(n, dtype=np.int64)
    for s, policy in enumerate(policies):
        for p, seen in enumerate(distinct):
            if seen is policy:
                seat_policy[s] = p
                break
        else:
            seat_policy[s] = len(distinct)
            distinct.append(policy)
    mixed = np.array([not p.deterministic for p in distinct], dtype=np.bool_)
    width = max(p.in_prob.size for p in distinct)
    decide = (distinct[0]._calls[None, :] if len(distinct) == 1 and not mixed[0]
              else np.zeros((len(distinct), width), dtype=np.uint8))
    probs = np.zeros((len(distinct), width) if mixed.any() else (1, 1), dtype=np.float64)
    edges = np.zeros((len(distinct), max(1, max(p.pot_edges.size for p in distinct))),
                     dtype=np.int64)
    n_edges = np.zeros(len(distinct), dtype=np.int64)
    for p, policy in enumerate(distinct):
        flat = policy.in_prob.reshape(-1)
        if mixed[p]:
            probs[p, : flat.size] = flat
        elif len(distinct) > 1:
            decide[p, : flat.size] = policy._calls
        edges[p, : policy.pot_edges.size] = policy.pot_edges
        n_edges[p] = policy.pot_edges.size
    # every row of every policy a cut-off: each row's cut by its row start // n_ranks
    cut_offs = [p._cut_offs for p in distinct]
    cut_of = np.zeros(len(distinct) * width // n_ranks, dtype=np.int64)
    for p, cuts in enumerate(cut_offs):
        if cuts is not None:
            cut_of[p * width // n_ranks: p * width // n_ranks + cuts.size] = cuts
    cap = rules.pot_cap
    shortfall = {"eliminate": 0, "table_stakes": 1, "debt": 2}[rules.shortfall]
    ranks = given if given is not None else np.zeros((1, 1, 1), dtype=np.int16)
    k = rules.cards_per_hand
    hands = np.full((rounds, tables, n, k) if record else (1, 1, 1, 1), -1, dtype=np.int8)
    out_stacks = np.zeros((tables, n), dtype=np.int64)
    out_pot = np.zeros(tables, dtype=np.int64)
    out_reserve = np.zeros(tables, dtype=np.int64)
    out_rounds = np.zeros(tables, dtype=np.int64)
    out_over = np.zeros(tables, dtype=np.bool_)
    out_elim = np.zeros((tables, n), dtype=np.bool_)
    dealt, ins, wins = (np.zeros(n, dtype=np.int64) for _ in range(3))
    stats = np.zeros(6, dtype=np.int64)  # void, uncontested, showdown, pot sum, max, games
    run(
        np.int64(first_table), np.int64(tables), np.int64(rounds), buy, np.int64(dealer),
        np.int64(rules.ante), np.int64(cap if cap is not None else 0),
        cap is not None and rules.pot_cap_mode == "match",
        cap is not None and rules.pot_cap_mode == "reserve", np.int64(shortfall),
        bool(rules.ante_every_round), rules.all_out == "reante",
        rules.odd_chip == "first_left_of_dealer", bool(rules.require_cover),
        bool(rules.end_on_uncontested), bool(end_share),
        seat_policy, decide, probs, mixed, np.int64(n_ranks), edges, n_edges,
        given is not None, ranks, np.int64(k), np.ascontiguousarray(code_to_rank),
        comb_ranks(code_to_rank) if k == 3 else np.zeros(1, dtype=np.uint16),
        table_keys(seed), _VECTOR_ROUNDS, all(c is not None for c in cut_offs), cut_of,
        record, hands,
        out_stacks, out_pot, out_reserve, out_rounds, out_over, out_elim, dealt, ins, wins,
        stats)
    return FastResult(
        stacks=out_stacks, buy_ins=buy, pot=out_pot, reserve=out_reserve,
        rounds_played=out_rounds, over=out_over, eliminated=out_elim, dealt=dealt, ins=ins,
        wins=wins, outcomes={"void": int(stats[0]), "uncontested": int(stats[1]),
                             "showdown": int(stats[2])},
        pot_sum=int(stats[3]), max_pot=int(stats[4]), games=int(stats[5]),
        hands=hands.astype(np.int64) if record else None,
    )
