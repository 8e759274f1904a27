"""Certified per-hand equilibria of the in/out decision (exact card removal).

A **per-hand strategy** is an in-probability for every one of the 1,326 two-card or 22,100
three-card hands, indexed by combination index (:func:`gutskit.strategy.tables.hand_table`).
The game is the one of :mod:`gutskit.strategy.solver` (simultaneous declaration, deep
stacks, a symmetric profile), with the same two payoff models, in units of the pot ``P``
(the opening pot, N antes; every payoff below scales with ``P`` under the rules certified
here). The gain of *in* over *out* for my hand, given what the others hold and declare:

============================  ===========================  ============================
case                          recursive (``P`` units)      one round (``P`` units)
============================  ===========================  ============================
nobody else in                1 - 1/N                      +1 (uncontested)
k >= 1 in, I am best          1 + 1/N                      +1
I tie for best with j others  1/(j + 1)                    1/(j + 1)
someone in beats me           -1 + 1/N                     -1 (the match)
============================  ===========================  ============================

(``docs/strategy.md``, "The model": the recursive game's continuation value of a seat at a
symmetric profile is (next pot)/N; the one-round game counts a match as lost. Money is
treated as divisible: a split pot's odd chip is ignored.)

**Exact card removal.** For my hand h the others' hands are dealt from the other cards:
heads-up the gain is a sum over the C(50, 2) = 1,225 / C(49, 3) = 18,424 hands disjoint from
h (:func:`gutskit.strategy.odds.disjoint_sums`); with three players over the ordered pairs
of hands disjoint from h and from each other, by inclusion-exclusion over the cards the two
opponents share: ``sum over g2 disjoint from g1 = sum_S (-1)^|S| (sum over g2 containing
S)``, S running over the subsets of g1 (:func:`hand_gains`). No sampling.

**Certificate.** :func:`exploitability` is what the best per-hand deviation of one seat
gains, in chips per round: ``P * mean_h(max(gain_h, 0) - sigma_h gain_h)`` with every
``gain_h`` exact. It is 0 exactly at a symmetric equilibrium of the modelled game.

**Solvers.** Heads-up recursive: a symmetric zero-sum game, solved as a linear program
(HiGHS through :func:`scipy.optimize.linprog`) over the hands whose decision is not obvious,
with constraint generation (hands whose exact gain contradicts their fixed decision are
added and the LP is solved again). Heads-up one round and three players: a box linear
complementarity problem (in if the gain is positive, out if negative, mixed only if zero),
solved by Josephy-Newton steps whose linearised problem over the undecided hands is a small
mixed-integer program (HiGHS through :func:`scipy.optimize.milp`); the gain's Jacobian is
exact (linear heads-up, quadratic with three players). Three cards with three players is
exact too but takes many minutes (each exact evaluation of all 22,100 hands against the
ordered pairs of opponent hands is about 100 CPU-seconds), so only the stored solution is
exact; solving it again for another ranking gives the sampled kind. Four players and more
(:mod:`gutskit.strategy.multiway`): exact per-hand solutions for 2 cards up to 6 players;
beyond, per-hand solutions with a sampled best response whose gain is re-estimated on fresh
deals (flagged "sampled": a lower-bound estimate of the exploitability, with its standard
error). :func:`sampled_exploitability` is the older per-hand sampler (any strategy, any
number of players).

>>> s = load_strategy(2, 2, "one_round")
>>> s.certified, s.exploitability <= 1e-9
('exact', True)
>>> s.in_probability((39, 9))  # the jack of spades with the four of diamonds goes in
1.0
"""

from __future__ import annotations

import gzip
import itertools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from gutskit.core.cards import Card, card_name, parse_cards
from gutskit.core.evaluation import Ranking, evaluate
from gutskit.core.rules import Rules
from gutskit.strategy.multiway import (
    CertifyError,
    _box_lcp,
    _deal_gains,
    _Kernel,
    _kernel,
    _pairs_block,
)
from gutskit.strategy.odds import disjoint_sums
from gutskit.strategy.solver import MODELS, Model, SolverError, equilibrium, game_model
from gutskit.strategy.tables import HandTable, combination_index, hand_table

__all__ = [
    "CELLS",
    "CertifyError",
    "PerHandStrategy",
    "certified_table",
    "exploitability",
    "hand_gains",
    "hand_token",
    "heads_up_in_rate_range",
    "load_strategy",
    "markdown_table",
    "pure_threshold_scan",
    "round_value",
    "sampled_exploitability",
    "sampled_value",
    "solve_exact",
    "solve_strategy",
    "stored_strategy",
    "summarize",
    "symmetrize",
]

if TYPE_CHECKING:  # scipy is imported by the solvers only: loading a stored cell needs none
    pass

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Certified = Literal["exact", "sampled"]

_DEFAULT_RULES = {2: Rules(cards_per_hand=2), 3: Rules(cards_per_hand=3)}

EXACT_TARGET = {2: 1e-9, 3: 1e-6}
"""Exploitability targets (chips per round) of the exact solvers by number of players."""


# --------------------------------------------------------------------------------------------
# Rules and tokens.


def certified_rules(rules: Rules, players: int, model: str) -> Rules:
    """Check that ``rules`` have the payoffs of the table in the module docstring.

    Certified: every ranking rule (``suit_tiebreak``, ``ace_low_straight``), ``all_out`` =
    ``reante`` or ``carry`` (equal at a symmetric profile), ``ante_every_round``, and the
    settings that do not change the in/out payoffs. Refused: ``best_pays_antes``,
    ``losers_pay = worst``, ``ghost_hand``, ``pot_cap`` (use ``guts solve`` without
    ``--export`` for their threshold solutions), and everything :func:`game_model` refuses.

    Raises:
        CertifyError: one of those settings, ``players`` outside 2..10, or an unknown model.
    """
    if model not in MODELS:
        raise CertifyError(f"model must be 'one_round' or 'recursive', not {model!r}")
    try:
        game = game_model(players, rules, model, players * rules.ante)
    except SolverError as exc:
        raise CertifyError(str(exc)) from exc
    if game.all_out == "best_pays_antes":
        raise CertifyError("all_out = 'best_pays_antes' is not certified (threshold solver "
                           "only)")
    if game.losers_pay != "all":
        raise CertifyError("losers_pay = 'worst' is not certified (threshold solver only)")
    if game.ghost:
        raise CertifyError("ghost_hand is not certified (threshold solver only)")
    if rules.pot_cap is not None:
        raise CertifyError(f"pot_cap = {rules.pot_cap!r} is not certified (threshold solver "
                           f"only)")
    return rules


def hand_token(cards: Sequence[Card]) -> str:
    """A hand as the export contract writes it: two-character tokens (rank
    ``23456789TJQKA``, suit ``cdhs``), highest card first, space-separated.

    >>> hand_token((0, 51))
    'As 2c'
    """
    return " ".join(card_name(c) for c in sorted((int(c) for c in cards), reverse=True))


# --------------------------------------------------------------------------------------------
# Exact gains.


def _check_sigma(sigma: npt.ArrayLike, table: HandTable) -> FloatArray:
    f = np.asarray(sigma, dtype=np.float64)
    if f.shape != (table.n_hands,):
        raise CertifyError(f"a strategy needs {table.n_hands} in-probabilities, not shape "
                           f"{f.shape}")
    if f.size and (not np.isfinite(f).all() or f.min() < 0.0 or f.max() > 1.0):
        raise CertifyError("in-probabilities must lie in [0, 1]")
    return f


def _heads_up_gains(f: FloatArray, ranking: Ranking, model: str,
                    rows: IntArray | None) -> FloatArray:
    k = ranking.cards_per_hand
    m = float(comb(52 - k, k))
    above, tie, below = disjoint_sums(f, ranking, rows)
    if model == "recursive":
        return np.asarray(0.5 + (below - above) / m)
    return np.asarray(1.0 - (0.5 * tie + 2.0 * above) / m)


@dataclass(frozen=True)
class _Pair:
    """Per-subset sums of one class's weights for a chunk of my hands."""

    total: FloatArray  # (h,)
    subsets: tuple[FloatArray, ...]  # per size 1..k-1: (h, n_subsets)
    weights: FloatArray  # (h, n_hands)


def _sums(u: FloatArray, kern: _Kernel) -> _Pair:
    return _Pair(total=u.sum(axis=1),
                 subsets=tuple(np.asarray((inc.T @ u.T).T) for inc in kern.incidence),
                 weights=u)


def _q(a: _Pair, b: _Pair) -> FloatArray:
    """sum over ordered pairs (g1, g2) of disjoint hands of a(g1) b(g2), per row."""
    out = a.total * b.total
    for size, (sa, sb) in enumerate(zip(a.subsets, b.subsets, strict=True), start=1):
        out += (-1.0) ** size * (sa * sb).sum(axis=1)
    k = len(a.subsets) + 1
    out += (-1.0) ** k * (a.weights * b.weights).sum(axis=1)
    return np.asarray(out)


def _r(b: _Pair, kern: _Kernel, cols: IntArray) -> FloatArray:
    """For each row h and each hand g in ``cols``: sum of b over the hands disjoint from g
    (b is already zero on the hands meeting h). Shape (rows, len(cols))."""
    k = len(b.subsets) + 1
    out = b.total[:, None] + (-1.0) ** k * b.weights[:, cols]
    for size, sums in enumerate(b.subsets, start=1):
        sub = kern.subset_cols[size - 1][cols]  # (len(cols), s)
        out += (-1.0) ** size * sums[:, sub].sum(axis=2)
    return np.asarray(out)


_CHUNK = 512


def _three_player(f: FloatArray, ranking: Ranking, model: str, rows: IntArray,
                  jac_cols: IntArray | None = None,
                  parts: dict[str, FloatArray] | None = None
                  ) -> tuple[FloatArray, FloatArray | None]:
    """Exact gains (pot units) of ``rows`` with two opponents playing ``f``; with
    ``jac_cols`` also d gain[row] / d f[col] (the exact Jacobian of the quadratic); with
    ``parts`` also fills ``parts["yy"]`` (P(no opponent in above me)) and ``parts["oo"]``
    (P(both out)) per row."""
    kern = _kernel(ranking)
    table = kern.table
    k = ranking.cards_per_hand
    norm = float(comb(52 - k, k) * comb(52 - 2 * k, k))
    rank = table.rank.astype(np.int64)
    gains = np.empty(len(rows))
    jac = None if jac_cols is None else np.empty((len(rows), len(jac_cols)))
    third = 1.0 / 3.0
    if parts is not None:
        parts["yy"] = np.empty(len(rows))
        parts["oo"] = np.empty(len(rows))
    for start in range(0, len(rows), _CHUNK):
        part = rows[start:start + _CHUNK]
        disj = ~((kern.cards[part].astype(np.float32) @ kern.cards.T.astype(np.float32))
                 > 0)
        mine = rank[part][:, None]
        tie = (rank[None, :] == mine) & disj
        at_least = (rank[None, :] >= mine) & disj
        t = _sums(np.where(tie, f[None, :], 0.0), kern)
        x = _sums(np.where(disj, 1.0 - np.where(at_least, f[None, :], 0.0), 0.0), kern)
        o = _sums(np.where(disj, 1.0 - f[None, :], 0.0), kern)
        xx, tx, tt, oo = _q(x, x) / norm, _q(t, x) / norm, _q(t, t) / norm, _q(o, o) / norm
        yy = xx + 2 * tx + tt
        if parts is not None:
            parts["yy"][start:start + len(part)] = yy
            parts["oo"][start:start + len(part)] = oo
        if model == "recursive":
            # -2/3 (1 - yy) + tx + tt/3 + 4/3 (xx - oo) + 2/3 oo
            gains[start:start + len(part)] = (-2 * third * (1 - yy) + tx + third * tt
                                              + 4 * third * (xx - oo) + 2 * third * oo)
            cyy, ctx, ctt, cxx, coo = 2 * third, 1.0, third, 4 * third, -2 * third
        else:
            gains[start:start + len(part)] = -(1 - yy) + tx + third * tt + xx
            cyy, ctx, ctt, cxx, coo = 1.0, 1.0, third, 1.0, 0.0
        if jac is not None and jac_cols is not None:
            cols = jac_cols
            d_t = tie[:, cols].astype(np.float64)
            d_x = -at_least[:, cols].astype(np.float64)
            d_o = -disj[:, cols].astype(np.float64)
            r_t, r_x, r_o = _r(t, kern, cols), _r(x, kern, cols), _r(o, kern, cols)
            dxx = 2 * d_x * r_x
            dtx = d_t * r_x + d_x * r_t
            dtt = 2 * d_t * r_t
            doo = 2 * d_o * r_o
            dyy = dxx + 2 * dtx + dtt
            jac[start:start + len(part)] = (cyy * dyy + ctx * dtx + ctt * dtt + cxx * dxx
                                            + coo * doo) / norm
    return gains, jac


def hand_gains(sigma: npt.ArrayLike, *, players: int, ranking: Ranking, model: Model,
               hands: IntArray | None = None) -> FloatArray:
    """The exact gain of *in* over *out* for each hand, in units of the pot, when every
    other seat plays ``sigma`` (see the table in the module docstring).

    Args:
        sigma: in-probability per hand (combination index), values in [0, 1].
        players: 2, or 3 (exact joint card removal between the two opponents too).
        ranking: the hand ranking.
        model: ``"recursive"`` or ``"one_round"``.
        hands: only these of my hands (default all).

    Raises:
        CertifyError: more than 3 players, a bad model or a bad strategy.
    """
    table = hand_table(ranking)
    f = _check_sigma(sigma, table)
    if model not in MODELS:
        raise CertifyError(f"model must be 'one_round' or 'recursive', not {model!r}")
    rows = None if hands is None else np.asarray(hands, dtype=np.int64)
    if players == 2:
        return _heads_up_gains(f, ranking, model, rows)
    if players == 3:
        return _three_player(f, ranking, model,
                             np.arange(table.n_hands) if rows is None else rows)[0]
    raise CertifyError(f"exact gains are computed for 2 or 3 players, not {players!r} "
                       f"(use sampled_exploitability)")


def exploitability(sigma: npt.ArrayLike, *, players: int, ranking: Ranking, model: Model,
                   gains: FloatArray | None = None) -> float:
    """The certificate: chips per round (at the opening pot, ante 1 chip... i.e. ``players``
    chips) that the best per-hand deviation of one seat gains against ``sigma``, exact.

    Raises:
        CertifyError: as :func:`hand_gains`.
    """
    table = hand_table(ranking)
    f = _check_sigma(sigma, table)
    g = gains if gains is not None else hand_gains(f, players=players, ranking=ranking,
                                                   model=model)
    return float(players * np.mean(np.maximum(g, 0.0) - f * g))


def round_value(sigma: npt.ArrayLike, *, players: int, ranking: Ranking) -> float:
    """A seat's expected immediate result per round at the opening pot, in chips: the
    pot it takes (a 1/N share of "someone takes the pot", by symmetry) minus the matches
    it pays, exact. In the one-round model this is the payoff; in the recursive model a
    seat's total equity is exactly pot / N (the matches come back), and this is only the
    part settled in the round.

    Raises:
        CertifyError: more than 3 players or a bad strategy.
    """
    table = hand_table(ranking)
    f = _check_sigma(sigma, table)
    k = ranking.cards_per_hand
    if players == 2:
        m = float(comb(52 - k, k))
        above, tie, below = disjoint_sums(f, ranking)
        everyone = np.asarray(disjoint_sums(np.ones_like(f), ranking)).sum(axis=0)
        out_all = (everyone - above - tie - below) / m
        beaten = above / m
    elif players == 3:
        parts: dict[str, FloatArray] = {}
        _three_player(f, ranking, "one_round", np.arange(table.n_hands), parts=parts)
        out_all = parts["oo"]
        beaten = 1.0 - parts["yy"]
    else:
        raise CertifyError(f"exact values are computed for 2 or 3 players, not {players!r}")
    p_all_out = float(np.mean((1.0 - f) * out_all))
    p_match = float(np.mean(f * beaten))
    pot = float(players)
    return pot * ((1.0 - p_all_out) / players - p_match)


def pure_threshold_scan(cards: int, players: int, model: Model, *, spread: int = 6
                        ) -> list[tuple[float, str, str]]:
    """Exact exploitability (chips per round) of the pure threshold strategies "in with
    this hand's strength or better" for the ``2 * spread`` strength ranks around the
    bisection solver's threshold (default rules), least exploitable first, as
    ``(exploitability, description, example hand token)``.

    Raises:
        CertifyError: more than 3 players.
    """
    rules = _rules_for(cards, None)
    table = hand_table(rules.ranking)
    eq = equilibrium(cards_per_hand=rules.cards_per_hand, players=players, model=model)
    centre = table.rank_of_key(eq.threshold_key)
    out = []
    for r in range(max(0, centre - spread), min(table.n_ranks, centre + spread)):
        f = (table.rank >= r).astype(np.float64)
        ex = exploitability(f, players=players, ranking=rules.ranking, model=model)
        example = tuple(int(c) for c in table.cards[int(np.flatnonzero(table.rank == r)[0])])
        out.append((ex, evaluate(example, rules.ranking).description, hand_token(example)))
    return sorted(out)


# --------------------------------------------------------------------------------------------
# Solvers.


def _threshold_start(players: int, rules: Rules, model: Model) -> FloatArray:
    eq = equilibrium(cards_per_hand=rules.cards_per_hand, players=players, rules=rules,
                     model=model)
    table = hand_table(rules.ranking)
    f = (table.keys > eq.threshold_key).astype(np.float64)
    f[table.keys == eq.threshold_key] = eq.mixing
    return f


def _violators(f: FloatArray, g: FloatArray, band: float) -> IntArray:
    return np.flatnonzero(((g > 0) & (f < 1)) | ((g < 0) & (f > 0)) | (np.abs(g) < band))


def _zero_sum_lp(f: FloatArray, free: IntArray, ranking: Ranking) -> FloatArray:
    """Heads-up recursive: maximise the payoff guaranteed against every reply, with the
    hands outside ``free`` fixed at ``f`` (0 or 1) and the replies of those hands fixed to
    the same decision. Variables: sigma on ``free`` and t_g <= min(0, c_g) for g in free."""
    from scipy.optimize import linprog

    kern = _kernel(ranking)
    k = ranking.cards_per_hand
    m = float(comb(52 - k, k))
    fixed = f.copy()
    fixed[free] = 0.0
    above, _, below = disjoint_sums(fixed, ranking)
    coef = m / 2 + (below - above)
    disj, s = _pairs_block(kern, free, free)
    smat = (s * disj).astype(np.float64)  # s(h, g), h beats g -> +1
    n = len(free)
    a_ub = np.hstack([-smat.T, np.eye(n)])
    b_ub = -m / 2 + (above - below)[free]
    cost = np.concatenate([-coef[free], -np.ones(n)])
    bounds: list[tuple[float | None, float | None]] = [(0.0, 1.0)] * n + [(None, 0.0)] * n
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0 or res.x is None:
        raise CertifyError(f"the linear program failed: {res.message}")
    out = fixed
    out[free] = np.clip(res.x[:n], 0.0, 1.0)
    return out


def heads_up_in_rate_range(ranking: Ranking) -> tuple[float, float]:
    """The smallest and largest in-rate over *all* optimal strategies of the heads-up
    recursive game (a symmetric zero-sum game of value 0): two linear programs over every
    hand, maximin payoff >= 0 as a constraint. Two cards only (1,326 hands; a 22,100-hand
    dense LP is too large).

    Raises:
        CertifyError: three-card ranking, or an LP failure.
    """
    from scipy.optimize import linprog

    if ranking.cards_per_hand != 2:
        raise CertifyError("the in-rate range is computed for two-card Guts only")
    kern = _kernel(ranking)
    n = kern.table.n_hands
    m = float(comb(50, 2))
    every = np.arange(n)
    disj, s = _pairs_block(kern, every, every)
    smat = (s * disj).astype(np.float64)
    a_ub = np.vstack([np.hstack([-smat.T, np.eye(n)]),  # t_g <= c_g(sigma)
                      np.concatenate([-np.full(n, m / 2), -np.ones(n)])[None, :]])
    b_ub = np.concatenate([np.full(n, -m / 2), [1e-9]])  # guaranteed payoff >= -1e-9 / M
    bounds: list[tuple[float | None, float | None]] = [(0.0, 1.0)] * n + [(None, 0.0)] * n
    out = []
    for sign in (1.0, -1.0):
        cost = np.concatenate([sign * np.ones(n), np.zeros(n)])
        res = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
        if res.status != 0 or res.x is None:
            raise CertifyError(f"the linear program failed: {res.message}")
        out.append(float(res.x[:n].mean()))
    return out[0], out[1]


def _linearised(f: FloatArray, free: IntArray, players: int, ranking: Ranking,
                model: Model) -> tuple[FloatArray, FloatArray]:
    """Gains of ``free`` at f and their exact Jacobian d gain / d f on ``free``."""
    if players == 2:  # linear: gain = g0 - C f / M (one round)
        k = ranking.cards_per_hand
        m = float(comb(52 - k, k))
        disj, s = _pairs_block(_kernel(ranking), free, free)
        weights = s if model == "recursive" else -(2.0 * (s < 0) + 0.5 * (s == 0))
        g = _heads_up_gains(f, ranking, model, free)
        return g, np.asarray(weights * disj / m, dtype=np.float64)
    g3, jac = _three_player(f, ranking, model, free, free)
    assert jac is not None
    return g3, jac


def _newton(f: FloatArray, free: IntArray, players: int, ranking: Ranking,
            model: Model, steps: int = 12) -> FloatArray:
    x = f.copy()
    for _ in range(steps):
        g, jac = _linearised(x, free, players, ranking, model)
        q = g - jac @ x[free]
        new = _box_lcp(q, jac)
        change = float(np.abs(new - x[free]).max()) if len(free) else 0.0
        x[free] = new
        if change < 1e-13 or players == 2:
            break
    return x


@cache
def _suit_images(ranking: Ranking) -> IntArray:
    """For each of the 24 suit permutations, the combination index of every hand's image
    (shape (24, n_hands))."""
    table = hand_table(ranking)
    cards = table.cards.astype(np.int64)
    rows = []
    for perm in itertools.permutations(range(4)):
        mapped = (cards // 4) * 4 + np.asarray(perm)[cards % 4]
        mapped.sort(axis=1)
        rows.append([combination_index(tuple(int(c) for c in row)) for row in mapped])
    return np.asarray(rows, dtype=np.int64)


def symmetrize(sigma: npt.ArrayLike, ranking: Ranking) -> FloatArray:
    """The average of ``sigma`` over the 24 suit permutations: a strategy that treats
    hands equal up to suits alike. Meaningful when the ranking ignores suits
    (``suit_tiebreak = "none"``): the game is then invariant under suit permutations, and
    in the zero-sum heads-up recursive game the average of optimal strategies is optimal.

    Raises:
        CertifyError: a bad strategy.
    """
    table = hand_table(ranking)
    f = _check_sigma(sigma, table)
    images = _suit_images(ranking)
    out = np.zeros_like(f)
    for row in images:
        out[row] += f
    return np.asarray(out / len(images))


@dataclass(frozen=True)
class _Solution:
    sigma: FloatArray
    gains: FloatArray
    exploitability: float
    iterations: int
    free: int


def solve_exact(cards: int, players: int, model: Model, rules: Rules | None = None, *,
                max_rounds: int = 40, band: float = 1e-3) -> _Solution:
    """Solve one cell exactly and certify it (see the module docstring).

    Returns:
        the per-hand strategy, its exact gains (pot units), its exploitability (chips per
        round), the number of outer rounds and the size of the last undecided set.

    Raises:
        CertifyError: unsupported rules, players other than 2 and 3, or no certificate
            within ``max_rounds`` (the target is :data:`EXACT_TARGET`).
    """
    base = _rules_for(cards, rules)
    certified_rules(base, players, model)
    if players not in EXACT_TARGET:
        raise CertifyError(f"exact solutions are computed for 2 or 3 players, not "
                           f"{players!r}")
    ranking = base.ranking
    f = _threshold_start(players, base, model)
    g = hand_gains(f, players=players, ranking=ranking, model=model)
    free = np.flatnonzero(np.abs(g) < band)
    target = EXACT_TARGET[players]
    ex = exploitability(f, players=players, ranking=ranking, model=model, gains=g)
    rounds = 0
    while rounds < max_rounds:
        free = np.union1d(free, _violators(f, g, band if rounds == 0 else 0.0))
        rounds += 1
        if players == 2 and model == "recursive":
            f = _zero_sum_lp(f, free, ranking)
        else:
            f = _newton(f, free, players, ranking, model)
        g = hand_gains(f, players=players, ranking=ranking, model=model)
        ex = exploitability(f, players=players, ranking=ranking, model=model, gains=g)
        fresh = np.setdiff1d(_violators(f, g, 0.0), free)
        if ex <= target * 1e-3 or (ex <= target and not len(fresh)):
            break
    if ex > target:
        raise CertifyError(f"no certificate after {rounds} rounds: exploitability {ex:.3g} "
                           f"> {target:g}")
    if players == 2 and model == "recursive" and ranking.suit_tiebreak == "none":
        # suit symmetry (issue 12 item 1): the averaged optimal strategy is optimal too;
        # kept only if its own exact certificate holds
        sym = symmetrize(f, ranking)
        sym_gains = hand_gains(sym, players=players, ranking=ranking, model=model)
        sym_ex = exploitability(sym, players=players, ranking=ranking, model=model,
                                gains=sym_gains)
        if sym_ex <= target:
            f, g, ex = sym, sym_gains, sym_ex
    return _Solution(sigma=f, gains=g, exploitability=max(ex, 0.0), iterations=rounds,
                     free=len(free))


def _rules_for(cards: int, rules: Rules | None) -> Rules:
    if cards not in (2, 3):
        raise CertifyError(f"cards must be 2 or 3, not {cards!r}")
    base = rules if rules is not None else _DEFAULT_RULES[cards]
    if base.cards_per_hand != cards:
        base = base.replace(cards_per_hand=cards)
    return base


# --------------------------------------------------------------------------------------------
# Sampled best response (beyond exact reach).


def _sample_gains(f: FloatArray, table: HandTable, players: int, model: str, deals: int,
                  rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
    """Per hand: mean and variance of the mean of ``deals`` sampled deals' gains."""
    n = table.n_hands
    k = table.cards_per_hand
    cards = table.cards.astype(np.int64)
    opp_cards = (players - 1) * k
    mean = np.zeros(n)
    var = np.zeros(n)
    code = table.code_to_index
    weights = 52 ** np.arange(k - 1, -1, -1)
    chunk = max(1, 200_000 // deals)
    for start in range(0, n, chunk):
        hs = np.arange(start, min(n, start + chunk))
        h = np.repeat(hs, deals)
        mask = np.zeros((len(h), 52), dtype=bool)
        mask[np.arange(len(h))[:, None], cards[h]] = True
        keys = rng.random((len(h), 52))
        keys[mask] = 2.0
        drawn = np.argpartition(keys, opp_cards, axis=1)[:, :opp_cards]
        opp = code[(drawn.reshape(len(h), players - 1, k) * weights).sum(axis=2)]
        gains = _deal_gains(h, opp.astype(np.int64), f, table, players, model).reshape(
            len(hs), deals)
        mean[hs] = gains.mean(axis=1)
        var[hs] = gains.var(axis=1, ddof=1) / deals
    return mean, var


def sampled_exploitability(sigma: npt.ArrayLike, *, players: int, ranking: Ranking,
                           model: Model, deals: int = 64, seed: int = 0
                           ) -> tuple[float, float, FloatArray]:
    """A sampled best response: for every hand, ``deals`` random deals of the others'
    hands (exact card removal inside each deal, declarations averaged exactly) choose the
    deviation (in where the sampled gain is more than two standard errors above 0, out
    where it is that far below, else as ``sigma``); ``deals`` independent deals then
    estimate its gain. Returns ``(estimate,
    standard error, gains)`` in chips per round; the estimate is unbiased for the gain of
    that deviation, hence for a lower bound of the exploitability.

    Raises:
        CertifyError: bad arguments.
    """
    table = hand_table(ranking)
    f = _check_sigma(sigma, table)
    if not 2 <= players <= 10 or players * ranking.cards_per_hand > 52:
        raise CertifyError(f"players must be 2..10, not {players!r}")
    rng = np.random.default_rng(seed)
    g1, v1 = _sample_gains(f, table, players, model, deals, rng)
    g2, v2 = _sample_gains(f, table, players, model, deals, rng)
    sure = 2.0 * np.sqrt(v1)  # deviate only where the first sample is clear
    d = np.where(g1 > sure, 1.0, np.where(g1 < -sure, 0.0, f))
    n = table.n_hands
    est = float(players * np.mean((d - f) * g2))
    se = float(players * np.sqrt(np.sum((d - f) ** 2 * v2)) / n)
    return est, se, 0.5 * (g1 + g2)


def sampled_value(sigma: npt.ArrayLike, *, players: int, ranking: Ranking,
                  deals: int = 200_000, seed: int = 0) -> tuple[float, float]:
    """:func:`round_value` estimated from ``deals`` random full deals (declarations
    averaged exactly); returns ``(estimate, standard error)`` in chips per round.

    Raises:
        CertifyError: bad arguments.
    """
    table = hand_table(ranking)
    f = _check_sigma(sigma, table)
    k = ranking.cards_per_hand
    if not 2 <= players <= 10 or players * k > 52:
        raise CertifyError(f"players must be 2..10, not {players!r}")
    rng = np.random.default_rng(seed + 1)
    weights = 52 ** np.arange(k - 1, -1, -1)
    results = []
    for start in range(0, deals, 50_000):
        size = min(50_000, deals - start)
        drawn = np.argpartition(rng.random((size, 52)), players * k, axis=1)[:, :players * k]
        hands = table.code_to_index[(drawn.reshape(size, players, k) * weights).sum(axis=2)]
        p = f[hands]
        rank = table.rank[hands]
        taken = 1.0 - np.prod(1.0 - p, axis=1)
        beaten = np.zeros(size)
        for i in range(players):
            above = rank > rank[:, i:i + 1]
            beaten += p[:, i] * (1.0 - np.prod(np.where(above, 1.0 - p, 1.0), axis=1))
        results.append(players * (taken / players - beaten / players))
    per = np.concatenate(results)
    return float(per.mean()), float(per.std(ddof=1) / np.sqrt(per.size))


@dataclass(frozen=True)
class Summary:
    """A per-hand strategy described against its best-fitting rank threshold.

    Attributes:
        threshold_rank: dense rank t minimising the in-probability mass of the exceptions
            (sum over hands below t of sigma, plus over hands at or above t of 1 - sigma).
        threshold_description: a hand of that rank in words.
        percentile: fraction of all hands strictly below t.
        below_in: hands below t that go in (with any probability), as tokens.
        above_out: hands at or above t that do not always go in.
        mixed: hands with 0 < sigma < 1.
    """

    threshold_rank: int
    threshold_description: str
    percentile: float
    below_in: tuple[str, ...]
    above_out: tuple[str, ...]
    mixed: tuple[str, ...]


def summarize(strategy: PerHandStrategy) -> Summary:
    """The threshold summary of ``strategy`` (see :class:`Summary`)."""
    table = strategy.table
    f = np.asarray(strategy.probabilities)
    n_ranks = table.n_ranks
    in_by_rank = np.bincount(table.rank, weights=f, minlength=n_ranks)
    out_by_rank = table.rank_count - in_by_rank
    below = np.concatenate(([0.0], np.cumsum(in_by_rank)))  # in-mass below rank t
    above = np.concatenate((np.cumsum(out_by_rank[::-1])[::-1], [0.0]))  # out-mass >= t
    t = int(np.argmin(below + above))
    rank = table.rank

    def tokens(mask: npt.NDArray[np.bool_]) -> tuple[str, ...]:
        idx = np.flatnonzero(mask)
        idx = idx[np.lexsort((idx, -rank[idx]))]
        return tuple(hand_token(tuple(int(c) for c in table.cards[i])) for i in idx)

    example = int(np.flatnonzero(rank == min(t, n_ranks - 1))[0])
    description = evaluate(tuple(int(c) for c in table.cards[example]),
                           table.ranking).description
    return Summary(
        threshold_rank=t, threshold_description=description,
        percentile=float(table.rank_count[:t].sum()) / table.n_hands,
        below_in=tokens((rank < t) & (f > 0)), above_out=tokens((rank >= t) & (f < 1)),
        mixed=tokens((f > 0) & (f < 1)))


# --------------------------------------------------------------------------------------------
# Strategies, storage, export.


@dataclass(frozen=True)
class PerHandStrategy:
    """A per-hand symmetric strategy with its certificate.

    Attributes:
        cards, players, model, rules: the cell.
        probabilities: in-probability per hand (combination index), read-only.
        gains: the gain of in over out per hand in chips at the opening pot (exact, or a
            sampled estimate when ``certified == "sampled"``).
        exploitability: chips per round the best deviation of one seat gains (exact), or
            the sampled estimate of a best response's gain.
        certified: ``"exact"`` or ``"sampled"``.
        standard_error: of the sampled estimate (``None`` when exact).
        method: how the strategy was found.
        value: a seat's expected immediate result per round in chips at the opening pot
            (:func:`round_value`; exact, or a sampled estimate).
        value_standard_error: of a sampled value (``None`` when exact).
        threshold_exploitability: exact exploitability of the threshold strategy of
            :func:`gutskit.strategy.solver.equilibrium` for the cell (``None`` for sampled
            cells: not measured).
        seconds: solve time in seconds (as recorded when the cell was solved).
        gains_standard_error: per hand, the standard error of :attr:`gains` in chips
            (``None`` when exact).
    """

    cards: int
    players: int
    model: Model
    rules: Rules
    probabilities: FloatArray
    gains: FloatArray
    exploitability: float
    certified: Certified
    standard_error: float | None
    method: str
    value: float = 0.0
    value_standard_error: float | None = None
    threshold_exploitability: float | None = 0.0
    seconds: float = field(default=0.0, compare=False)
    gains_standard_error: FloatArray | None = field(default=None, compare=False)

    @property
    def table(self) -> HandTable:
        """The hand table the arrays are indexed by."""
        return hand_table(self.rules.ranking)

    def _index(self, hand_cards: Sequence[Card]) -> int:
        try:
            return self.table.index_of(tuple(int(c) for c in hand_cards))
        except ValueError as exc:
            raise CertifyError(str(exc)) from exc

    def in_probability(self, hand_cards: Sequence[Card]) -> float:
        """Probability of *in* with ``hand_cards`` (any order).

        Raises:
            CertifyError: not a hand of this cell's size, or a repeated card.
        """
        return float(self.probabilities[self._index(hand_cards)])

    def ev_in_minus_out(self, hand_cards: Sequence[Card]) -> float:
        """Chips (at the opening pot) that *in* gains over *out* with ``hand_cards``
        against the others playing this strategy (see :attr:`certified` for exactness and
        :meth:`ev_standard_error`).

        Raises:
            CertifyError: as :meth:`in_probability`.
        """
        return float(self.gains[self._index(hand_cards)])

    def ev_standard_error(self, hand_cards: Sequence[Card]) -> float | None:
        """Standard error (chips) of :meth:`ev_in_minus_out` (``None`` when exact).

        Raises:
            CertifyError: as :meth:`in_probability`.
        """
        if self.gains_standard_error is None:
            return None
        return float(self.gains_standard_error[self._index(hand_cards)])

    @property
    def in_rate(self) -> float:
        """Probability that a seat goes in."""
        return float(self.probabilities.mean())

    def to_contract(self, rules: Rules | None = None) -> dict[str, Any]:
        """The ``guts solve --export`` JSON object (issue 12 item 4); ``rules`` (default
        :attr:`rules`) are the rules reported, e.g. the user's when they only differ from
        the solved ones in settings with the same payoffs (``all_out = carry``)."""
        table = self.table
        strategy = {hand_token(tuple(int(c) for c in row)): float(p)
                    for row, p in zip(table.cards, self.probabilities, strict=True)}
        return {"cards": self.cards, "players": self.players, "model": self.model,
                "rules": (rules or self.rules).model_dump(mode="json"),
                "strategy": strategy,
                "exploitability": self.exploitability, "certified": self.certified,
                "standard_error": self.standard_error}

    def to_data(self) -> dict[str, Any]:
        """Compact form for the package data files."""
        return {"cards": self.cards, "players": self.players, "model": self.model,
                "ranking": {"ace_low_straight": self.rules.ace_low_straight,
                            "suit_tiebreak": self.rules.suit_tiebreak},
                "probabilities": [float(p) for p in self.probabilities],
                "gains": [float(g) for g in self.gains],
                "exploitability": self.exploitability, "certified": self.certified,
                "standard_error": self.standard_error, "method": self.method,
                "value": self.value, "value_standard_error": self.value_standard_error,
                "threshold_exploitability": self.threshold_exploitability,
                "seconds": round(self.seconds, 2),
                "gains_standard_error": (None if self.gains_standard_error is None else
                                         [round(float(x), 6)
                                          for x in self.gains_standard_error])}


def _freeze(a: npt.ArrayLike) -> FloatArray:
    out = np.array(a, dtype=np.float64)
    out.setflags(write=False)
    return out


def solve_strategy(cards: int, players: int, model: Model = "recursive",
                   rules: Rules | None = None, *, seed: int = 0,
                   exact: bool | None = None) -> PerHandStrategy:
    """Solve one cell (see the module docstring): exact for 2 players, 2 cards with 3 to 6
    players, and 3 cards with 3 players when ``exact=True`` (many minutes); otherwise a
    per-hand solution with a sampled best response (:mod:`gutskit.strategy.multiway`).

    Raises:
        CertifyError: unsupported rules or arguments, or ``exact=True`` beyond exact reach.
    """
    from gutskit.strategy.multiway import is_exact_cell, solve_multiway

    start = time.perf_counter()
    base = _rules_for(cards, rules)
    certified_rules(base, players, model)
    pot = players * base.ante
    threshold = _threshold_start(players, base, model)
    ranking = base.ranking
    if exact is None:
        exact = players == 2 or (players <= 6 and cards == 2)
    if exact and players > 3 and not is_exact_cell(cards, players):
        raise CertifyError(f"{cards} cards with {players} players is beyond exact reach")
    if exact and players <= 3:
        sol = solve_exact(cards, players, model, base)
        return PerHandStrategy(
            cards=cards, players=players, model=model, rules=base,
            probabilities=_freeze(sol.sigma), gains=_freeze(sol.gains * pot),
            exploitability=sol.exploitability * base.ante, certified="exact",
            standard_error=None,
            method=("linear program (HiGHS), constraint generation" if players == 2
                    and model == "recursive" else
                    "complementarity: Josephy-Newton with mixed-integer subproblems (HiGHS)"),
            value=round_value(sol.sigma, players=players, ranking=ranking) * base.ante,
            threshold_exploitability=exploitability(
                threshold, players=players, ranking=ranking, model=model) * base.ante,
            seconds=time.perf_counter() - start)
    multi = solve_multiway(threshold, players=players, ranking=ranking, model=model,
                           exact=exact, seed=seed)
    if multi.value is not None:
        value, value_se = multi.value, None
    else:
        value, value_se = sampled_value(multi.sigma, players=players, ranking=ranking,
                                        deals=50_000, seed=seed)
    return PerHandStrategy(
        cards=cards, players=players, model=model, rules=base,
        probabilities=_freeze(multi.sigma), gains=_freeze(multi.gains * pot),
        exploitability=multi.exploitability * base.ante,
        certified="exact" if exact else "sampled",
        standard_error=(None if multi.standard_error is None
                        else multi.standard_error * base.ante),
        method=multi.method, value=value * base.ante,
        value_standard_error=None if value_se is None else value_se * base.ante,
        threshold_exploitability=(None if multi.threshold_exploitability is None
                                  else multi.threshold_exploitability * base.ante),
        seconds=time.perf_counter() - start,
        gains_standard_error=(None if multi.gains_se is None
                              else _freeze(multi.gains_se * pot)))


def data_name(cards: int, players: int, model: str) -> str:
    """File name of a stored cell, e.g. ``'2card_3p_recursive.json.gz'``."""
    return f"{cards}card_{players}p_{model}.json.gz"


def write_data(strategy: PerHandStrategy, directory: str | Path) -> Path:
    """Store ``strategy`` as ``directory / data_name(...)`` (gzip JSON); returns the path.

    Raises:
        OSError: the file cannot be written.
    """
    path = Path(directory) / data_name(strategy.cards, strategy.players, strategy.model)
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump(strategy.to_data(), out, separators=(",", ":"))
    return path


def from_data(data: dict[str, Any]) -> PerHandStrategy:
    """Rebuild a strategy from :meth:`PerHandStrategy.to_data`."""
    rules = _DEFAULT_RULES[int(data["cards"])].replace(**data["ranking"])
    return PerHandStrategy(
        cards=int(data["cards"]), players=int(data["players"]), model=data["model"],
        rules=rules, probabilities=_freeze(data["probabilities"]),
        gains=_freeze(data["gains"]), exploitability=float(data["exploitability"]),
        certified=data["certified"], standard_error=data["standard_error"],
        method=str(data["method"]), value=float(data["value"]),
        value_standard_error=data["value_standard_error"],
        threshold_exploitability=(None if data["threshold_exploitability"] is None
                                  else float(data["threshold_exploitability"])),
        seconds=float(data.get("seconds", 0.0)),
        gains_standard_error=(None if data.get("gains_standard_error") is None
                              else _freeze(data["gains_standard_error"])))


def _stored(cards: int, players: int, model: str) -> PerHandStrategy | None:
    resource = resources.files("gutskit.strategy").joinpath("data", data_name(cards, players,
                                                                               model))
    if not resource.is_file():
        return None
    with resource.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as text:
        return from_data(json.load(text))


_DEFAULT_RANKING = {k: rules.ranking for k, rules in _DEFAULT_RULES.items()}


@cache
def _load(cards: int, players: int, model: Model, ranking: Ranking) -> PerHandStrategy:
    if ranking == _DEFAULT_RANKING[cards]:
        stored = _stored_cached(cards, players, model)
        if stored is not None:
            return stored
    rules = _DEFAULT_RULES[cards].replace(ace_low_straight=ranking.ace_low_straight,
                                          suit_tiebreak=ranking.suit_tiebreak)
    return solve_strategy(cards, players, model, rules)


def load_strategy(cards: int, players: int, model: Model = "recursive",
                  rules: Rules | None = None) -> PerHandStrategy:
    """The per-hand equilibrium of one cell: the stored, certified solution for the
    default ranking (``src/gutskit/strategy/data``), otherwise solved now (heads-up and
    2-card 3-player cells take seconds, 2 cards with 4-6 players up to a few minutes, the
    sampled cells several minutes; cached per process).

    Args:
        cards: 2 or 3.
        players: 2..10.
        model: ``"recursive"`` (default) or ``"one_round"``.
        rules: house rules; only the ranking matters among the certified ones
            (:func:`certified_rules`).

    Raises:
        CertifyError: unsupported rules or arguments.
    """
    base = _rules_for(cards, rules)
    certified_rules(base, players, model)
    return _load(cards, players, model, base.ranking)



def stored_strategy(cards: int, players: int, model: str = "recursive",
                    rules: Rules | None = None, *, sampled: bool = False
                    ) -> PerHandStrategy | None:
    """The stored per-hand equilibrium of a cell when it is certified **exact** (or, with
    ``sampled=True``, certified either way) and applies to ``rules``; ``None`` otherwise.
    Never solves: this is what the bots (exact cells) and the coach (every stored cell)
    play (:class:`gutskit.strategy.strategies.EquilibriumBot`,
    :func:`gutskit.strategy.coach.equilibrium_strategy`), where a solve of seconds or
    minutes would stall a table.

    It applies when ``rules`` are certified (:func:`certified_rules`; ``sequential``
    declaration is the caller's to map to ``simultaneous``) with the default ranking
    (``ace_low_straight = True``, ``suit_tiebreak = high_card``): the stored exact cells are
    2 cards with 2 to 6 players and 3 cards with 2 and 3 players, both models; every other
    cell up to 10 players is stored sampled (``src/gutskit/strategy/data``).
    """
    if cards not in _DEFAULT_RULES or model not in MODELS:
        return None
    try:
        base = _rules_for(cards, rules)
        certified_rules(base, players, model)
    except (CertifyError, SolverError, ValueError):
        return None
    if base.ranking != _DEFAULT_RANKING[cards]:
        return None
    cell = _stored_cached(cards, players, model)
    if cell is None or (cell.certified != "exact" and not sampled):
        return None
    return cell


@cache
def _stored_cached(cards: int, players: int, model: str) -> PerHandStrategy | None:
    return _stored(cards, players, model)


CELLS: tuple[tuple[int, int], ...] = tuple((k, n) for k in (2, 3) for n in range(2, 11))
"""The stored cells (cards, players), each for both models."""


def certified_table(model: Model = "recursive") -> list[PerHandStrategy]:
    """The stored per-hand solutions of every cell of :data:`CELLS` for ``model``
    (default rules), as :func:`load_strategy` returns them."""
    return [load_strategy(k, n, model) for k, n in CELLS]


def _num(x: float, se: float | None, digits: int = 4, sign: bool = False) -> str:
    text = f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"
    return f"{text} exact" if se is None else f"{text} ± {se:.{digits}f}"


def _small(x: float | None, se: float | None) -> str:
    if x is None:
        return "not measured"
    if se is None:
        return "0 exact" if x == 0.0 else f"{x:.2g} exact"
    return f"≥ {x:.2g} ± {se:.1g} (lower-bound estimate)"


def markdown_table(rows: Sequence[PerHandStrategy]) -> str:
    """The certified table of ``docs/strategy.md`` (what ``guts solve --table`` prints),
    followed by the exceptions of every exact cell."""
    head = ("| cards | N | how | in rate | best-fit threshold (percentile) | below it, in | "
            "above it, out | mixed | value (chips/round) | exploitability (chips/round) | "
            "bisection threshold's exploitability |")
    lines = [head, "|" + "---|" * 11]
    notes = []
    for s in rows:
        summary = summarize(s)
        exact = s.certified == "exact"
        se = None if exact else s.standard_error
        lines.append(
            f"| {s.cards} | {s.players} | {s.certified} | {s.in_rate:.6f} | "
            f"{summary.threshold_description} ({summary.percentile:.4f}) | "
            f"{len(summary.below_in)} | {len(summary.above_out)} | {len(summary.mixed)} | "
            f"{_num(s.value, s.value_standard_error, sign=True)} | "
            f"{_small(s.exploitability, se)} | "
            f"{_small(s.threshold_exploitability, None if exact else se)} |")
        if exact and (summary.below_in or summary.above_out):
            table = s.table

            def listed(tokens: tuple[str, ...], s: PerHandStrategy = s,
                       table: HandTable = table) -> str:
                parts = []
                for token in tokens:
                    p = s.probabilities[table.index_of(parse_cards(token))]
                    parts.append(token if p in (0.0, 1.0) else f"{token} ({p:.4f})")
                return ", ".join(parts) if parts else "none"

            notes.append(f"* {s.cards} cards, {s.players} players, {s.model}: threshold "
                         f"{summary.threshold_description}; below it, in: "
                         f"{listed(summary.below_in)}; at or above it, not always in: "
                         f"{listed(summary.above_out)}.")
    return "\n".join(lines) + ("\n\nExceptions (in-probability in brackets when mixed):\n\n"
                               + "\n".join(notes) if notes else "") + "\n"


def build_data(directory: str | Path, cells: Sequence[tuple[int, int]] = CELLS,
               models: Sequence[Model] = MODELS, *, skip_existing: bool = True) -> list[Path]:
    """Solve and store every cell (default rules) in ``directory``: how the package data
    ``src/gutskit/strategy/data`` was made. Returns the files written.

    Raises:
        CertifyError: a cell that cannot be certified (exact cells that miss their target).
        OSError: a file cannot be written.
    """
    written = []
    for k, n in cells:
        for model in models:
            if skip_existing and (Path(directory) / data_name(k, n, model)).exists():
                continue
            exact = True if (k, n) == (3, 3) else None  # minutes, but exact
            written.append(write_data(solve_strategy(k, n, model, exact=exact), directory))
    return written
