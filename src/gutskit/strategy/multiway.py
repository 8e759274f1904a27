"""Per-hand equilibria with 4 to 10 players: exact joint gains where reachable, a sampled
best response beyond (issue 12, "beyond exact reach").

The game and the payoffs are those of :mod:`gutskit.strategy.certify` (units of the pot;
recursive and one-round models). For my hand ``h`` and ``n = N - 1`` opponents who play the
symmetric per-hand strategy ``sigma``, write ``o, b, t`` for an opponent hand's weights
"out", "in and below h", "in and tied with h" (0 on hands meeting h) and, over the joint
deal of the opponents' disjoint hands, ``X = E[prod o]`` (all out), ``P(s) = E[prod (o + b
+ s t)]`` (nobody in above me; ``s`` marks a tied opponent in). Then ``lone = P(0)``,
``clear = P(1)`` (nobody in above me), ``share = integral_0^1 P(s) ds`` (my expected share
of the pot when nobody in beats me) and the gain of *in* over *out* is::

    recursive: X (1 - 1/N) + (lone - X)(1 + 1/N) + (share - lone) - (1 - clear)(1 - 1/N)
    one round: share - (1 - clear)

**Exact joint gains** (:func:`exact_gains`): every expectation is a Möbius sum over the
partitions of the opponents' card slots (:mod:`gutskit.strategy.joint`), batched over my
hands; ``share`` by Gauss-Legendre quadrature in ``s`` (exact: ``P`` has degree ``n``).
Reach: two cards up to six players (a full evaluation of the 1,326 hands takes seconds to a
minute); three cards with four players would take about 15 CPU-minutes per evaluation, so
those cells are sampled.

**Surrogate** (:func:`surrogate_gains`): the same payoffs with the opponents' hands treated
as independent given mine (exact card removal between my hand and each opponent, not
between opponents): ``X = (1 - a - t - b)^n``, ``P(s) = (1 - a - t + s t)^n``, with ``a,
t, b`` one opponent's probabilities of in-above, in-tied, in-below. It is cheap, with an
exact Jacobian. The solver (:func:`solve_multiway`) finds ``sigma`` with ``surrogate(sigma)
+ D`` complementary to ``sigma`` (Josephy-Newton with the box-complementarity subproblems
of :mod:`gutskit.strategy.certify`), where ``D = gain - surrogate`` is the card-removal
correction between opponents, measured at the previous iterate: exactly, or sampled and
pooled by dense rank class. The fixed point is an equilibrium of the real game.

**Sampled best response** (:func:`sampled_best_response`): per class, the gains are
estimated from sampled deals (the opponents' hands dealt jointly; the declarations averaged
exactly) with the deals concentrated on the classes whose gain is near 0, so a gain of 0.01
pot there is at least 2.5 standard errors; the deviation "in where the estimated gain is
more than one standard error above 0, out where it is that far below" is chosen from that
sample, and its gain is estimated again on fresh, independent deals. That estimate is
unbiased for the gain of one particular deviation, hence an unbiased estimate of a **lower
bound** of the exploitability (the best deviation gains at least as much), reported with
its standard error.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gutskit.core.evaluation import Ranking
from gutskit.strategy import joint
from gutskit.strategy.model import Model, SolverError
from gutskit.strategy.odds import disjoint_sums
from gutskit.strategy.tables import HandTable, hand_table

__all__ = ["EXACT_PLAYERS", "CertifyError", "MultiwaySolution", "exact_gains", "is_exact_cell",
           "sampled_best_response", "solve_multiway", "surrogate_gains"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

if TYPE_CHECKING:  # scipy is imported by the solvers only
    import scipy.sparse as sp

class CertifyError(SolverError):
    """Rules or arguments the certified solver does not handle; the message names them
    (a :class:`~gutskit.strategy.solver.SolverError`, so the CLI reports it as one)."""


EXACT_PLAYERS: dict[int, int] = {2: 6, 3: 3}
"""Most players whose per-hand gains :func:`solve_multiway` computes exactly, by cards per
hand (three cards with three players is :mod:`gutskit.strategy.certify`'s own solver)."""


def is_exact_cell(cards: int, players: int) -> bool:
    """Whether the cell is solved with exact gains (see :data:`EXACT_PLAYERS`)."""
    return players <= EXACT_PLAYERS[cards]


# --------------------------------------------------------------------------------------------
# Payoffs from the deal expectations.


def _payoff(x: FloatArray, lone: FloatArray, clear: FloatArray, share: FloatArray,
            players: int, model: str) -> FloatArray:
    big_n = float(players)
    if model == "recursive":
        return np.asarray(x * (1 - 1 / big_n) + (lone - x) * (1 + 1 / big_n)
                          + (share - lone) - (1 - clear) * (1 - 1 / big_n))
    return np.asarray(share - (1 - clear))


def _one_opponent(f: FloatArray, ranking: Ranking) -> tuple[FloatArray, FloatArray,
                                                            FloatArray]:
    k = ranking.cards_per_hand
    m = float(comb(52 - k, k))
    above, tie, below = disjoint_sums(f, ranking)
    return above / m, tie / m, below / m


def _share_terms(u: FloatArray, t: FloatArray, n: int
                 ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``S = integral_0^1 (u + s t)^n ds`` and its partial derivatives in ``u`` and ``t``
    (binomial expansion: stable for small ``t``)."""
    s = np.zeros_like(u)
    su = np.zeros_like(u)
    st = np.zeros_like(u)
    for j in range(n + 1):
        c = comb(n, j) / (j + 1)
        s += c * u ** (n - j) * t ** j
        if n - j >= 1:
            su += c * (n - j) * u ** (n - j - 1) * t ** j
        if j >= 1:
            st += c * j * u ** (n - j) * t ** (j - 1)
    return s, su, st


def _surrogate_parts(f: FloatArray, players: int, ranking: Ranking, model: str
                     ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Surrogate gains and their partial derivatives in ``a``, ``t``, ``b`` per hand."""
    n = players - 1
    big_n = float(players)
    a, t, b = _one_opponent(f, ranking)
    u = np.maximum(1.0 - a - t, 0.0)
    v = np.maximum(1.0 - a, 0.0)
    w = np.maximum(u - b, 0.0)
    s, su, st = _share_terms(u, t, n)
    if model == "recursive":
        g = (-(2 / big_n) * w ** n + u ** n / big_n + s + v ** n * (1 - 1 / big_n)
             - 1 + 1 / big_n)
        dw = (2 / big_n) * n * w ** (n - 1)  # d/d(a, t) through w = u - b, and -d/db
        du = n * u ** (n - 1) / big_n
        da = dw - du - su - n * v ** (n - 1) * (1 - 1 / big_n)
        dt = dw - du - su + st
        db = dw
    else:
        g = s - 1 + v ** n
        da = -su - n * v ** (n - 1)
        dt = -su + st
        db = np.zeros_like(g)
    return np.asarray(g), np.asarray(da), np.asarray(dt), np.asarray(db)


def surrogate_gains(sigma: FloatArray, *, players: int, ranking: Ranking, model: Model
                    ) -> FloatArray:
    """Gain of *in* over *out* per hand (pot units) with the opponents' hands independent
    given mine (see the module docstring); exact for 2 players.

    Args:
        sigma: in-probability per hand (combination index).
        players: 2..10.
        ranking: the hand ranking.
        model: ``"recursive"`` or ``"one_round"``.
    """
    return _surrogate_parts(np.asarray(sigma, dtype=np.float64), players, ranking, model)[0]


def _surrogate_jacobian(f: FloatArray, players: int, ranking: Ranking, model: str,
                        free: IntArray) -> tuple[FloatArray, FloatArray]:
    """Surrogate gains of every hand and d gain[h] / d sigma[g] for h, g in ``free``."""
    k = ranking.cards_per_hand
    m = float(comb(52 - k, k))
    g, da, dt, db = _surrogate_parts(f, players, ranking, model)
    disj, s = _pairs_block(_kernel(ranking), free, free)
    jac = (np.where(s < 0, da[free][:, None], 0.0) + np.where(s == 0, dt[free][:, None], 0.0)
           + np.where(s > 0, db[free][:, None], 0.0)) * disj / m
    return g, np.asarray(jac, dtype=np.float64)


# --------------------------------------------------------------------------------------------
# Card incidence, the box complementarity subproblem, one deal's gains (shared with
# gutskit.strategy.certify, which imports them from here).


@dataclass(frozen=True, eq=False)
class _Kernel:
    """Card incidence of one ranking's hands: per subset size j (1..k-1) a sparse
    ``(n_hands, n_subsets)`` 0/1 matrix, and for each hand the columns of its subsets."""

    table: HandTable
    incidence: tuple[sp.csr_matrix, ...]
    subset_cols: tuple[IntArray, ...]
    cards: npt.NDArray[np.bool_]  # (n_hands, 52) card incidence


@cache
def _kernel(ranking: Ranking) -> _Kernel:
    import scipy.sparse as sp

    table = hand_table(ranking)
    cards = table.cards.astype(np.int64)
    n, k = cards.shape
    mats = []
    cols_list = []
    for size in range(1, k):
        if size == 1:
            cols = cards
            m = 52
        else:  # pairs of a 3-card hand: colex index of the pair
            pairs = [(0, 1), (0, 2), (1, 2)]
            cols = np.stack([cards[:, j] * (cards[:, j] - 1) // 2 + cards[:, i]
                             for i, j in pairs], axis=1)
            m = comb(52, 2)
        rows = np.repeat(np.arange(n), cols.shape[1])
        mats.append(sp.csr_matrix((np.ones(rows.size), (rows, cols.ravel())), shape=(n, m)))
        cols_list.append(cols)
    inc = np.zeros((n, 52), dtype=bool)
    inc[np.arange(n)[:, None], cards] = True
    return _Kernel(table=table, incidence=tuple(mats), subset_cols=tuple(cols_list),
                   cards=inc)


def _pairs_block(kern: _Kernel, rows: IntArray, cols: IntArray
                 ) -> tuple[npt.NDArray[np.bool_], IntArray]:
    disj = ~((kern.cards[rows].astype(np.float32) @ kern.cards[cols].T.astype(np.float32))
             > 0)
    rank = kern.table.rank.astype(np.int64)
    return disj, np.sign(rank[rows][:, None] - rank[cols][None, :])


def _box_lcp(q: FloatArray, jac: FloatArray) -> FloatArray:
    """A solution x in [0, 1]^n of: w = q + J x, x = 1 where w > 0, x = 0 where w < 0,
    w = 0 where 0 < x < 1; a mixed-integer program (HiGHS) that also minimises the number
    of mixed entries.

    Raises:
        CertifyError: no solution found.
    """
    import scipy.sparse as sp
    from scipy.optimize import Bounds, LinearConstraint, milp

    n = len(q)
    big = float(np.abs(q).max() + np.abs(jac).sum(axis=1).max() + 1.0)
    eye = sp.eye(n, format="csr")
    zero = sp.csr_matrix((n, n))
    jm = sp.csr_matrix(jac)
    # variables: x, a (1: x may be below 1, then w <= 0), b (1: x may be above 0, w >= 0)
    rows = sp.vstack([
        sp.hstack([jm, big * eye, zero]),  # w <= big (1 - a)
        sp.hstack([jm, zero, -big * eye]),  # w >= -big (1 - b)
        sp.hstack([eye, eye, zero]),  # x >= 1 - a
        sp.hstack([eye, zero, -eye]),  # x <= b
    ]).tocsr()
    inf = np.full(n, np.inf)
    lower = np.concatenate([-inf, -big - q, np.ones(n), -inf])
    upper = np.concatenate([big - q, inf, inf, np.zeros(n)])
    res = milp(np.concatenate([np.zeros(n), np.ones(2 * n)]),
               constraints=LinearConstraint(rows, lower, upper),
               integrality=np.concatenate([np.zeros(n), np.ones(2 * n)]),
               bounds=Bounds(np.zeros(3 * n), np.ones(3 * n)))
    if res.status != 0 or res.x is None:
        raise CertifyError(f"the complementarity subproblem failed: {res.message}")
    x = res.x[:n]
    a = np.round(res.x[n:2 * n])
    b = np.round(res.x[2 * n:])
    mixed = (a == 1) & (b == 1)
    x = np.where(a == 0, 1.0, np.where(b == 0, 0.0, x))
    if mixed.any():  # polish the mixed entries: solve w = 0 on them exactly
        idx = np.flatnonzero(mixed)
        rest = q + jac[:, ~mixed] @ x[~mixed]
        sol, *_ = np.linalg.lstsq(jac[np.ix_(idx, idx)], -rest[idx], rcond=None)
        if np.all((sol >= -1e-9) & (sol <= 1 + 1e-9)):
            x[idx] = np.clip(sol, 0.0, 1.0)
    return np.asarray(x)


def _deal_gains(h: IntArray, opp: IntArray, f: FloatArray, table: HandTable,
                players: int, model: str) -> FloatArray:
    """Gain (pot units) of each of my hands ``h`` (shape (s,)) in one deal each, the
    opponents' hands ``opp`` (s, N-1) fixed and their declarations drawn from ``f``
    (expectation taken exactly over the declarations)."""
    rank = table.rank.astype(np.int64)
    mine = rank[h][:, None]
    theirs = rank[opp]
    p = f[opp]
    big_n = float(players)
    no_above = np.prod(np.where(theirs > mine, 1.0 - p, 1.0), axis=1)
    all_out = np.prod(1.0 - p, axis=1)
    # E[1 / (1 + J) ; nobody above], J = number of tied opponents in
    tie_p = np.where(theirs == mine, p, 0.0)
    poly = np.zeros((len(h), theirs.shape[1] + 1))
    poly[:, 0] = 1.0
    for j in range(theirs.shape[1]):
        q = tie_p[:, j][:, None]
        shifted = np.zeros_like(poly)
        shifted[:, 1:] = poly[:, :-1]
        poly = poly * (1 - q) + shifted * q
    share = (poly / np.arange(1, poly.shape[1] + 1)).sum(axis=1)
    tied = no_above * (share - poly[:, 0])  # some tie, nobody above
    if model == "recursive":
        return np.asarray((1 - no_above) * (-1 + 1 / big_n) + tied
                          + (no_above * poly[:, 0] - all_out) * (1 + 1 / big_n)
                          + all_out * (1 - 1 / big_n))
    return np.asarray(-(1 - no_above) + tied + no_above * poly[:, 0])


# --------------------------------------------------------------------------------------------
# Exact joint expectations, batched over my hands.


def _batched_tensor(weights: FloatArray, table: HandTable) -> list[FloatArray]:
    """Per batch row, the symmetric weight tensor over ordered card tuples and its sums over
    1..k trailing axes (:func:`gutskit.strategy.joint._tensor` with a batch axis)."""
    import itertools

    k = table.cards_per_hand
    batch = weights.shape[0]
    dense = np.zeros((batch,) + (52,) * k)
    cards = table.cards.astype(np.int64)
    share = weights / math.factorial(k)
    for order in itertools.permutations(range(k)):
        index: tuple[Any, ...] = (slice(None), *(cards[:, j] for j in order))
        dense[index] = share
    reduced = [dense]
    for _ in range(k):
        reduced.append(reduced[-1].sum(axis=-1))
    return reduced


def _batched_expectation(weights: FloatArray, table: HandTable, n: int) -> FloatArray:
    """``E[prod_i w(g_i)]`` over a uniform deal of ``n`` disjoint hands from the cards
    other than a fixed hand, one row of ``weights`` per batch entry (each row already zero
    on the hands meeting that entry's fixed hand)."""
    k = table.cards_per_hand
    terms, comps = joint._plan((joint.OPPONENT,) * n, k)
    reduced = _batched_tensor(weights, table)
    values = []
    for comp in comps:
        scalar = np.ones(weights.shape[0])
        ops = []
        subs = []
        for sub, r in zip(comp.subscripts, comp.reduce, strict=True):
            if sub:
                ops.append(reduced[r])
                subs.append("Z" + sub)
            else:
                scalar = scalar * reduced[r]
        if ops:
            scalar = scalar * np.einsum(",".join(subs) + "->Z", *ops, optimize=True)
        values.append(scalar)
    total = np.zeros(weights.shape[0])
    for coef, ids in terms:
        term = np.full(weights.shape[0], float(coef))
        for j in ids:
            term = term * values[j]
        total += term
    return total / float(joint._hands_count(k, k, n))


@dataclass(frozen=True)
class _Parts:
    gains: FloatArray  # pot units
    all_out: FloatArray  # P(every opponent out)
    clear: FloatArray  # P(no opponent in above me)


def _exact_parts(f: FloatArray, players: int, ranking: Ranking, model: str,
                 hands: IntArray | None = None, batch: int = 96) -> _Parts:
    table = hand_table(ranking)
    n = players - 1
    rank = table.rank.astype(np.int64)
    rows = np.arange(table.n_hands) if hands is None else np.asarray(hands, dtype=np.int64)
    cards = table.cards.astype(np.int64)
    member = np.zeros((table.n_hands, 52), dtype=bool)
    member[np.arange(table.n_hands)[:, None], cards] = True
    nodes, gl_weights = np.polynomial.legendre.leggauss(n // 2 + 1)
    nodes = 0.5 * (nodes + 1.0)
    gl_weights = 0.5 * gl_weights
    x_all = np.empty(len(rows))
    lone_all = np.empty(len(rows))
    clear_all = np.empty(len(rows))
    share_all = np.empty(len(rows))
    for start in range(0, len(rows), batch):
        part = rows[start:start + batch]
        free = ~(member[part].astype(np.float32) @ member.T.astype(np.float32) > 0)
        mine = rank[part][:, None]
        o = np.where(free, 1.0 - f[None, :], 0.0)
        b = np.where(free & (rank[None, :] < mine), f[None, :], 0.0)
        t = np.where(free & (rank[None, :] == mine), f[None, :], 0.0)
        tied = t.sum(axis=1) > 0
        x = _batched_expectation(o, table, n)
        lone = _batched_expectation(o + b, table, n)
        clear = lone.copy()
        share = lone.copy()
        idx = np.flatnonzero(tied)
        if len(idx):
            ob, tt = (o + b)[idx], t[idx]
            clear[idx] = _batched_expectation(ob + tt, table, n)
            share[idx] = sum(wt * _batched_expectation(ob + s * tt, table, n)
                             for s, wt in zip(nodes, gl_weights, strict=True))
        sl = slice(start, start + len(part))
        x_all[sl], lone_all[sl], clear_all[sl], share_all[sl] = x, lone, clear, share
    gains = _payoff(x_all, lone_all, clear_all, share_all, players, model)
    return _Parts(gains=gains, all_out=x_all, clear=clear_all)


def exact_gains(sigma: FloatArray, *, players: int, ranking: Ranking, model: Model,
                hands: IntArray | None = None) -> FloatArray:
    """Exact gain of *in* over *out* per hand (pot units), the opponents' hands dealt
    jointly (exact card removal among all hands; see the module docstring).

    Args:
        sigma: in-probability per hand (combination index).
        players: 2..:data:`EXACT_PLAYERS` for the ranking's cards per hand (more is
            exact too, only slow).
        ranking: the hand ranking.
        model: ``"recursive"`` or ``"one_round"``.
        hands: only these of my hands (default all).
    """
    return _exact_parts(np.asarray(sigma, dtype=np.float64), players, ranking, model,
                        hands).gains


def exact_value(sigma: FloatArray, parts: _Parts, players: int) -> float:
    """:func:`gutskit.strategy.certify.round_value` from exact parts (chips, ante 1)."""
    p_all_out = float(np.mean((1.0 - sigma) * parts.all_out))
    p_match = float(np.mean(sigma * (1.0 - parts.clear)))
    return float(players) * ((1.0 - p_all_out) / players - p_match)


# --------------------------------------------------------------------------------------------
# Sampled gains, pooled by dense rank class.


def _deal_hands(table: HandTable, h: IntArray, n: int, rng: np.random.Generator
                ) -> tuple[IntArray, IntArray]:
    """For each of my hands ``h``: ``n`` opponent hands drawn independently (each disjoint
    from mine only) and a joint deal of ``n`` disjoint hands coupled to them (an
    independent hand that meets no earlier joint hand is kept, the others are redrawn from
    the cards left; each joint hand is then uniform given the earlier ones, so the joint
    deal is uniform). Returns ``(independent, joint)`` hand indices, shape ``(len(h), n)``."""
    k = table.cards_per_hand
    deals = len(h)
    cards = table.cards.astype(np.int64)
    rows = np.arange(deals)
    mine = np.zeros((deals, 52), dtype=bool)
    mine[rows[:, None], cards[h]] = True
    weights = 52 ** np.arange(k - 1, -1, -1)

    def draw(blocked: npt.NDArray[np.bool_]) -> IntArray:
        keys = rng.random((len(blocked), 52))
        keys[blocked] = 2.0
        return np.sort(np.argpartition(keys, k - 1, axis=1)[:, :k], axis=1)

    ind = np.stack([draw(mine) for _ in range(n)], axis=1)  # (deals, n, k)
    dealt = ind.copy()
    used = mine
    for i in range(n):
        hit = used[rows[:, None], dealt[:, i]].any(axis=1)
        if hit.any():
            dealt[hit, i] = draw(used[hit])
        used[rows[:, None], dealt[:, i]] = True
    code = table.code_to_index
    return (code[(ind * weights).sum(axis=2)].astype(np.int64),
            code[(dealt * weights).sum(axis=2)].astype(np.int64))


def _correction_samples(f: FloatArray, surrogate: FloatArray, table: HandTable,
                        players: int, model: str, h: IntArray, rng: np.random.Generator,
                        coupled: bool) -> FloatArray:
    """One sample of ``gain - surrogate`` per hand in ``h`` (pot units), unbiased: the gain
    in a joint deal minus, ``coupled``, the gain in the coupled independent deal (whose
    expectation is exactly the surrogate), else minus the surrogate itself. The
    declarations are averaged exactly in each deal."""
    ind, dealt = _deal_hands(table, h, players - 1, rng)
    joint_gain = _deal_gains(h, dealt, f, table, players, model)
    if coupled:
        return np.asarray(joint_gain - _deal_gains(h, ind, f, table, players, model))
    return np.asarray(joint_gain - surrogate[h])


def buckets(table: HandTable, count: int) -> IntArray:
    """Bucket of every hand: ``count`` runs of consecutive dense ranks with about equal
    numbers of hands (a rank class is never split)."""
    before = np.concatenate(([0], np.cumsum(table.rank_count)[:-1]))
    of_class = np.minimum((before * count) // table.n_hands, count - 1)
    return np.asarray(of_class[table.rank], dtype=np.int64)


def _bucket_corrections(f: FloatArray, surrogate: FloatArray, table: HandTable,
                        players: int, model: str, bucket: IntArray, deals: int,
                        rng: np.random.Generator, coupled: bool
                        ) -> tuple[FloatArray, FloatArray]:
    """Per bucket: mean of ``gain - surrogate`` over its hands (uniform) and deals, and
    its standard error, from ``deals`` sampled deals per bucket."""
    count = int(bucket.max()) + 1
    mean = np.zeros(count)
    se = np.zeros(count)
    for b in range(count):
        pick = np.flatnonzero(bucket == b)
        h = pick[rng.integers(0, len(pick), size=deals)]
        values = _correction_samples(f, surrogate, table, players, model, h, rng, coupled)
        mean[b] = values.mean()
        se[b] = values.std(ddof=1) / math.sqrt(deals)
    return mean, se


def _solve_surrogate(f: FloatArray, correction: FloatArray, players: int,
                     ranking: Ranking, model: str, *, band: float, steps: int = 10,
                     max_free: int = 700) -> FloatArray:
    """Josephy-Newton on ``surrogate(sigma) + correction`` (per hand), the linearised
    problem over the hands near indifference solved as a box complementarity problem."""
    x = f.copy()
    for _ in range(steps):
        g = surrogate_gains(x, players=players, ranking=ranking,
                            model=model) + correction  # type: ignore[arg-type]
        viol = ((g > 0) & (x < 1)) | ((g < 0) & (x > 0))
        free = np.flatnonzero(viol | (np.abs(g) < band))
        if len(free) > max_free:  # the hands closest to indifference
            free = free[np.argsort(np.abs(g[free]))[:max_free]]
        if not len(free):
            break
        base, jac = _surrogate_jacobian(x, players, ranking, model, free)
        q = base[free] + correction[free] - jac @ x[free]
        new = _box_lcp(q, jac)
        change = float(np.abs(new - x[free]).max())
        x[free] = new
        rest = np.setdiff1d(np.arange(len(x)), free)
        x[rest] = np.where(g[rest] > 0, 1.0, np.where(g[rest] < 0, 0.0, x[rest]))
        if change < 1e-12:
            break
    return x


LOGIT_TEMPERATURES = (0.005, 0.002)
"""Temperatures (pot units) of the smoothed best response of the sampled cells, solved in
turn, each from the previous solution."""


def _solve_logit(f: FloatArray, correction: FloatArray, players: int, ranking: Ranking,
                 model: str, temperatures: tuple[float, ...] = LOGIT_TEMPERATURES
                 ) -> FloatArray:
    """The smoothed (logit) equilibrium ``sigma = expit((surrogate(sigma) + correction) /
    tau)`` per hand, by Newton-Krylov (:func:`scipy.optimize.newton_krylov`), for each
    ``tau`` in turn. Used where many hands are near indifference (the weak hands with 3
    cards and many players: whether they go in turns on their blockers), which the
    complementarity subproblems of :func:`_solve_surrogate` cannot hold."""
    from scipy.optimize import NoConvergence, newton_krylov
    from scipy.special import expit

    x = f.copy()
    for tau in temperatures:
        def residual(y: Any, tau: float = tau) -> Any:
            g = surrogate_gains(np.clip(y, 0.0, 1.0), players=players, ranking=ranking,
                                model=model) + correction  # type: ignore[arg-type]
            return np.asarray(y - expit(g / tau))

        try:
            x = np.clip(np.asarray(newton_krylov(residual, x, f_tol=1e-8, maxiter=60,
                                                 method="lgmres"), dtype=np.float64),
                        0.0, 1.0)
        except NoConvergence as exc:  # keep the last iterate: the certificate measures it
            x = np.clip(np.asarray(exc.args[0]), 0.0, 1.0)
    return np.asarray(x)


@dataclass(frozen=True)
class MultiwaySolution:
    """A solved cell of :func:`solve_multiway`.

    Attributes:
        sigma: in-probability per hand.
        gains: gain of in over out per hand (pot units): exact, or the sampled estimate.
        gains_se: per-hand standard error of :attr:`gains` (``None`` when exact).
        exploitability: chips per round (ante 1): exact, or the sampled estimate of the
            chosen deviation's gain (a lower bound of the exploitability, see the module
            docstring).
        standard_error: of the sampled estimate (``None`` when exact).
        value: a seat's expected immediate result per round, chips (ante 1), exact; or
            ``None`` (the caller estimates it).
        threshold_exploitability: exact exploitability of the starting threshold strategy
            (exact cells) or ``None``.
        rounds: outer rounds (corrections measured).
        deals: deals sampled in all (0 when exact).
        method: how it was found, in words.
        seconds: solve time.
    """

    sigma: FloatArray
    gains: FloatArray
    gains_se: FloatArray | None
    exploitability: float
    standard_error: float | None
    value: float | None
    threshold_exploitability: float | None
    rounds: int
    deals: int
    method: str
    seconds: float


def _exploitability(f: FloatArray, g: FloatArray, players: int) -> float:
    return float(players * np.mean(np.maximum(g, 0.0) - f * g))


BUCKETS = {2: 24, 3: 32}
"""Buckets of consecutive rank classes over which the sampled card-removal correction is
pooled, by cards per hand."""

SAMPLED_DEALS = 12_000
"""Sampled deals per bucket for the stored gains (from which the best response is chosen);
the correction the solver uses is measured first with a quarter as many."""

RESPONSE_DEALS = 6_000
"""Fresh sampled deals per bucket holding deviating hands, to estimate the deviation's
gain."""


def _pilot(f: FloatArray, surrogate: FloatArray, table: HandTable, players: int,
           model: str, rng: np.random.Generator, deals: int = 3_000) -> bool:
    """Whether the coupled estimator has the smaller variance here (a pilot sample of the
    hands near the middle of the in-rate)."""
    order = np.argsort(np.abs(surrogate))[:200]
    h = order[rng.integers(0, len(order), size=deals)]
    coupled = _correction_samples(f, surrogate, table, players, model, h, rng, True)
    plain = _correction_samples(f, surrogate, table, players, model, h, rng, False)
    return bool(coupled.var() < plain.var())


def solve_multiway(start: FloatArray, *, players: int, ranking: Ranking, model: Model,
                   exact: bool, rounds: int = 6, seed: int = 0,
                   deals: int = SAMPLED_DEALS, response_deals: int = RESPONSE_DEALS,
                   progress: Callable[[str], None] | None = None) -> MultiwaySolution:
    """Solve one cell from ``start`` (e.g. the threshold strategy) and certify it.

    Exact (``exact=True``): alternate the surrogate complementarity solve with the exact
    correction (at most ``rounds`` rounds; the least exploitable iterate is kept) and
    certify with the exact exploitability. Sampled: the smoothed surrogate equilibrium,
    then the sampled correction pooled by bucket (:data:`BUCKETS`, ``deals`` deals per
    bucket), the smoothed equilibrium again with it, the gains measured again on fresh
    deals, and :func:`sampled_best_response` (``response_deals`` per bucket).

    Args:
        start: in-probability per hand to start from.
        players: 3..10.
        ranking: the hand ranking.
        model: ``"recursive"`` or ``"one_round"``.
        exact: exact joint gains (slow beyond :data:`EXACT_PLAYERS`) or sampled.
        rounds: most outer rounds (exact).
        seed: seed of the sampled deals.
        deals: sampled deals per bucket and measurement.
        response_deals: fresh deals per bucket for the best response's gain.
        progress: called with a line per step (for long solves).
    """
    began = time.perf_counter()
    table = hand_table(ranking)
    f = np.asarray(start, dtype=np.float64).copy()
    say = progress or (lambda _line: None)
    if not exact:
        return _solve_sampled(f, players, ranking, model, seed, deals, response_deals, say,
                              began)
    g = exact_gains(f, players=players, ranking=ranking, model=model)
    threshold_ex = _exploitability(f, g, players)
    correction = g - surrogate_gains(f, players=players, ranking=ranking, model=model)
    best = (threshold_ex, f.copy(), g)
    say(f"threshold start: exploitability {threshold_ex:.3g}")
    band = 0.05
    done = 0
    for done in range(1, rounds + 1):
        f = _solve_surrogate(f, correction, players, ranking, model, band=band)
        g = exact_gains(f, players=players, ranking=ranking, model=model)
        correction = g - surrogate_gains(f, players=players, ranking=ranking, model=model)
        ex = _exploitability(f, g, players)
        say(f"round {done}: exact exploitability {ex:.3g}")
        if ex < best[0]:
            best = (ex, f.copy(), g)
        if ex < 1e-12:
            break
        band = 0.02
    ex, f, g = best
    del table
    return MultiwaySolution(
        sigma=f, gains=g, gains_se=None, exploitability=max(ex, 0.0),
        standard_error=None,
        value=exact_value(f, _exact_parts(f, players, ranking, model), players),
        threshold_exploitability=threshold_ex, rounds=done, deals=0,
        method=(f"exact joint card removal (Möbius inversion over shared cards); "
                f"Josephy-Newton on an independent-opponents surrogate plus the exact "
                f"correction, {done} round{'' if done == 1 else 's'}"),
        seconds=time.perf_counter() - began)


def _solve_sampled(f: FloatArray, players: int, ranking: Ranking, model: Model, seed: int,
                   deals: int, response_deals: int, say: Callable[[str], None],
                   began: float) -> MultiwaySolution:
    table = hand_table(ranking)
    rng = np.random.default_rng(seed)
    bucket = buckets(table, BUCKETS[ranking.cards_per_hand])
    f = _solve_logit(f, np.zeros(table.n_hands), players, ranking, model)
    sur = surrogate_gains(f, players=players, ranking=ranking, model=model)
    coupled = _pilot(f, sur, table, players, model, rng)
    used = 6_000
    say(f"surrogate equilibrium: in rate {f.mean():.4f}; coupled estimator: {coupled}")
    steer = deals // 4  # the correction the solver uses; the stored gains get ``deals``
    d, _ = _bucket_corrections(f, sur, table, players, model, bucket, steer, rng, coupled)
    used += steer * len(d)
    f = _solve_logit(f, d[bucket], players, ranking, model, LOGIT_TEMPERATURES[-1:])
    # the logit's tails (in-probabilities within 1e-6 of 0 or 1) played pure: a table then
    # says "always"; the measurements below are of this rounded strategy
    f = np.where(f < 1e-6, 0.0, np.where(f > 1.0 - 1e-6, 1.0, f))
    sur = surrogate_gains(f, players=players, ranking=ranking, model=model)
    say(f"corrected equilibrium: in rate {f.mean():.4f}")
    d, se = _bucket_corrections(f, sur, table, players, model, bucket, deals, rng, coupled)
    used += deals * len(d)
    gains = sur + d[bucket]
    gains_se = se[bucket]
    est, est_se, extra = sampled_best_response(f, gains, gains_se, players=players,
                                               table=table, model=model, rng=rng,
                                               bucket=bucket, deals=response_deals,
                                               coupled=coupled)
    used += extra
    say(f"sampled best response: {est:.3g} ± {est_se:.2g}")
    how = "coupled to independent deals" if coupled else "joint deals"
    return MultiwaySolution(
        sigma=f, gains=gains, gains_se=gains_se, exploitability=est, standard_error=est_se,
        value=None, threshold_exploitability=None, rounds=2, deals=used,
        method=(f"per hand: smoothed best response (logit, temperature "
                f"{LOGIT_TEMPERATURES[-1]} pot) on an independent-opponents surrogate plus "
                f"a sampled card-removal correction pooled over {len(d)} buckets of rank "
                f"classes ({deals:,} {how} per bucket); sampled best response; "
                f"{used:,} deals in all"),
        seconds=time.perf_counter() - began)


def sampled_best_response(sigma: FloatArray, gains: FloatArray, gains_se: FloatArray, *,
                          players: int, table: HandTable, model: str,
                          rng: np.random.Generator, bucket: IntArray,
                          deals: int = RESPONSE_DEALS, coupled: bool = False
                          ) -> tuple[float, float, int]:
    """The deviation chosen from estimated ``gains`` (in where a gain is more than one
    standard error above 0, out where it is that far below, else ``sigma``) and its gain in
    chips per round (ante 1), estimated on fresh deals: the surrogate part exactly plus,
    per bucket holding moved hands, ``deals`` new sampled deals of the correction (a moved
    hand drawn uniformly: ``|moved| delta_h (gain - surrogate)`` is unbiased for the
    bucket's sum of ``delta_h (gain_h - surrogate_h)``).

    Returns:
        ``(estimate, standard error, deals used)``: an unbiased estimate of that
        deviation's gain, hence of a lower bound of the exploitability.
    """
    ranking = table.ranking
    d = np.where(gains > gains_se, 1.0, np.where(gains < -gains_se, 0.0, sigma))
    delta = d - sigma
    sur = surrogate_gains(sigma, players=players, ranking=ranking,
                          model=model)  # type: ignore[arg-type]
    total = float(np.sum(delta * sur))
    var = 0.0
    used = 0
    for b in range(int(bucket.max()) + 1):
        moved = np.flatnonzero((bucket == b) & (delta != 0))
        if not len(moved):
            continue
        h = moved[rng.integers(0, len(moved), size=deals)]
        values = len(moved) * delta[h] * _correction_samples(sigma, sur, table, players,
                                                             model, h, rng, coupled)
        used += deals
        total += float(values.mean())
        var += float(values.var(ddof=1) / deals)
    scale = players / table.n_hands
    return total * scale, math.sqrt(var) * scale, used
