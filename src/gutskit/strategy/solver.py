"""Symmetric Nash equilibrium of the in/out decision in real-card Guts.

**What is modelled.** N players (2..10), every one dealt ``cards_per_hand`` cards from one
52-card deck. Each declares in or out simultaneously, knowing only their own cards and the
pot. A strategy is an in-probability per strength key (the same for every seat: the
equilibrium is symmetric); the solver looks for a *threshold* strategy: in above a key, out
below it, mixing at it. Stacks are deep (nobody is eliminated or short). Money is measured
in chips, with the ante = ``rules.ante`` and the pot ``P`` (default: the opening pot, N
antes).

Two games:

* ``model="one_round"``: one round at pot ``P``. Out scores 0; in scores +P for taking the
  pot (uncontested or at the showdown), P / t for a t-way split, and minus the match for
  losing. What a loser matches goes to *later* pots and is counted as lost (the myopic
  game of the rule books' advice).
* ``model="recursive"`` (default, the papers' game): the pot carries on until an
  uncontested win; losers' matches build the next pot; a void round re-deals (``all_out``).
  The solver finds a **stationary symmetric Markov equilibrium** (the state is the pot).
  Because the game is symmetric and no chip leaves it, each seat's continuation value at a
  symmetric profile is exactly *(next pot) / N* (minus any ante it will owe), whatever the
  strategy: every chip that a loser matches or a player antes comes back as an equal share
  of a later pot. By the one-shot deviation principle the equilibrium at pot ``P`` is then
  the symmetric equilibrium of a *one-round game whose payoffs include those continuation
  values*, so no value iteration over pot sizes is needed. For rules whose money scales with
  the pot (``all_out`` = ``reante`` or ``carry``, every loser matches, no cap) the threshold
  is the same at every pot and the same for ``reante`` and ``carry`` (an ante paid into a
  re-dealt pot comes back as 1/N of it). With ``best_pays_antes``, ``losers_pay = worst``
  or a ``pot_cap``, the ante or cap does not scale with the pot, so the threshold depends on
  the pot: pass ``pot``.

Rules modelled: ``cards_per_hand``, ``ace_low_straight``, ``suit_tiebreak`` (the ranking),
``ante``, ``ante_every_round``, ``all_out`` (reante / carry / best_pays_antes), ``pot_cap``
with ``pot_cap_mode = "match"``, and, when :class:`~gutskit.core.rules.Rules` has them,
``losers_pay`` (``all`` / ``worst``) and ``ghost_hand``. Not modelled (refused with
:class:`SolverError`): sequential declaration, ``pot_cap_mode = "reserve"``, and the
variants that change the deal (community card, pass the trash, hi-lo, no peek), and the
ghost hand combined with ``losers_pay = worst``.

**How it is found.** Opponents' hand classes (in and stronger / as strong / weaker / out)
are computed with exact card removal given my hand (:mod:`gutskit.strategy.odds`); with several
opponents they are combined as independent draws (card removal *between* opponents is
ignored; exact for heads-up). For a threshold profile parametrised by the number x of
hands (in strength order) that are out, the gain of *in* over *out* of the marginal key is a
function of x; the equilibrium is its sign change, found by bisection (45 halvings): at a
jump between keys a pure threshold, inside a key a mixed one. This is the exact analogue
of the continuous solution (the marginal hand is indifferent). With real cards it is not
an exact Nash equilibrium: hands below the threshold are nearly indifferent too (as in
continuous Guts, where every hand below the threshold is exactly indifferent), and card
removal tips some of them, e.g. weak high cards that *block* the opponents' pairs, into a
small gain from bluffing. :attr:`Equilibrium.exploitability` measures exactly that.

**How close it is.** :attr:`Equilibrium.exploitability` is the expected gain, in chips per
round at pot ``P``, of the best *one-round* deviation of one seat, choosing in or out hand
by hand (not key by key: card removal makes hands of one key differ slightly) while the
others play the equilibrium and the continuation values stay those of the equilibrium. It
is zero for an exact equilibrium of the modelled game; what remains comes from the key-level
strategy and from non-monotonicities caused by card removal. Two further approximations,
both inside the recursive model and both small: ties among opponents *below* the winner are
counted as one loser fewer only once (``t_top = 1``), and with a ghost hand the chance that
the best other player beats the ghost is computed from key frequencies averaged over the
hands of one key.

Cross-check (``docs/strategy.md``): in continuous Guts (hands uniform on [0, 1], no card
removal) the in/out gain of the marginal hand t is ``(1 - 1/N) (2 t^(N-1) - 1)`` in both
games, so the threshold is ``2^(-1/(N-1))``: 1/2 heads-up (arXiv 2108.06556, Castronova,
Chen, Zumbrun), 0.707 for three players, 0.926 for ten. The real-card thresholds approach
these percentiles (:func:`continuous_threshold`).

>>> eq = equilibrium(cards_per_hand=2, players=2)
>>> 0.45 < eq.threshold_percentile < 0.55
True
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from functools import cache
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gutskit.core.evaluation import evaluate
from gutskit.core.rules import Rules
from gutskit.strategy.model import MODELS, GameModel, Model, SolverError, game_model
from gutskit.strategy.odds import ClassProbabilities, KeyStrategy, class_probabilities
from gutskit.strategy.tables import HandTable, hand_table

__all__ = [
    "MODELS",
    "Equilibrium",
    "Model",
    "SolverError",
    "continuous_threshold",
    "equilibrium",
    "equilibrium_table",
    "exploitability",
    "game_model",
    "in_gain",
    "plot_thresholds",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

BISECTION_STEPS = 45


def continuous_threshold(players: int) -> float:
    """Equilibrium threshold of continuous Guts (hands uniform on [0, 1]):
    ``2 ** (-1 / (players - 1))``, the same in the one-round and the recursive game.

    >>> continuous_threshold(2)
    0.5
    >>> round(continuous_threshold(10), 4)
    0.9259
    """
    if players < 2:
        raise SolverError(f"players must be at least 2, not {players!r}")
    return float(2.0 ** (-1.0 / (players - 1)))


def _binomial_share(tie: FloatArray, rest: FloatArray, n: int) -> FloatArray:
    """E[1 / (1 + J)] * P(no opponent outside {tie, rest}) with J ~ the number of ``n``
    opponents in the ``tie`` class: ``sum_j C(n, j) tie^j rest^(n-j) / (j + 1)``."""
    rest_powers = [np.ones_like(rest)]
    for _ in range(n):
        rest_powers.append(rest_powers[-1] * rest)
    total = rest_powers[n].copy()
    tie_power = np.ones_like(tie)
    for j in range(1, n + 1):
        tie_power = tie_power * tie
        total += (comb(n, j) / (j + 1)) * tie_power * rest_powers[n - j]
    return total


def _ghost_top_term(p: ClassProbabilities, in_weights: FloatArray, table: HandTable,
                    n: int, hands: IntArray) -> FloatArray:
    """P(at least one opponent in, all in-opponents weaker than me, and the best of them
    beats the ghost | the ghost is weaker than me), for each of ``hands``.

    Approximation: given a strength below mine, the ghost's key and each in-opponent's key
    follow the overall key frequencies (the ghost's: all hands; an in-opponent's: weighted
    by the in-probability), scaled to the hand's exact class totals. A tie between the
    ghost and the best opponent counts for the ghost (RULES.md: a tie with the ghost is a
    loss)."""
    rank = table.rank[hands]
    count = table.rank_count.astype(np.float64)
    in_mass = np.bincount(table.rank, weights=in_weights, minlength=table.n_ranks)
    cum_count = np.cumsum(count)
    cum_in = np.cumsum(in_mass)
    result = np.zeros(len(hands))
    below, out = p.below, p.out
    for r in np.unique(rank):
        if r == 0:
            continue
        rows = np.flatnonzero(rank == r)
        g = count[:r] / cum_count[r - 1]
        denom = cum_in[r - 1]
        frac = cum_in[:r] / denom if denom > 0 else np.ones(int(r))
        b = below[rows][:, None]
        o = out[rows][:, None]
        result[rows] = ((b + o) ** n)[:, 0] - ((o + b * frac[None, :]) ** n) @ g
    return result


def in_gain(p: ClassProbabilities, game: GameModel, *,
            ghost_top: FloatArray | None = None) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The gain of *in* over *out* for each hand, in units of the pot, and the immediate
    results of in and of out (pot won minus chips matched this round).

    Args:
        p: the opponents' class probabilities for each of my hands.
        game: the modelled rules.
        ghost_top: :func:`_ghost_top_term` (needed with a ghost hand, recursive model).

    Returns:
        ``(gain, immediate_in, immediate_out)`` arrays.
    """
    n = game.players - 1
    big_n = float(game.players)
    c, eps = game.match, game.ante
    a, t = p.above, p.tie
    rest = p.below + p.out
    share = _binomial_share(t, rest, n)  # E[pot share], no one in above, k >= 0
    none_above = (1.0 - a) ** n
    all_out = p.out**n
    lone = rest**n  # no opponent in at or above my strength
    recursive = game.model == "recursive"
    if game.losers_pay == "worst":
        worst_total = (a + t + p.out) ** n - (t + p.out) ** n
        immediate_in = share - c * worst_total
        if recursive:
            win_k1 = n * p.below * p.out ** (n - 1)
            worst_k1 = n * a * p.out ** (n - 1)
            gain = (all_out * (1 - 1 / big_n) + win_k1 * (1 + (c - eps) / big_n)
                    + (lone - all_out - win_k1) + (share - lone)
                    + worst_k1 * (-c + (c + (big_n - 1) * eps) / big_n)
                    + (worst_total - worst_k1) * (-c + eps))
        else:
            gain = immediate_in
    elif game.ghost:
        gb = p.ghost_below
        immediate_in = gb * share - c * (1.0 - gb * none_above)
        if recursive:
            top = ghost_top if ghost_top is not None else np.zeros_like(a)
            gain = (gb * (lone * (1 - 1 / big_n) + (1 + c) / big_n * top + (share - lone))
                    + (1.0 - gb * none_above) * (-c + c / big_n))
        else:
            gain = immediate_in
    else:
        immediate_in = share - c * (1.0 - none_above)
        if recursive:
            gain = (all_out * (1 - 1 / big_n) + (lone - all_out) * (1 + c / big_n)
                    + (share - lone) + (1.0 - none_above) * (-c + c / big_n))
        else:
            gain = immediate_in
    immediate_out = np.zeros_like(a)
    if game.all_out == "best_pays_antes":
        best = _binomial_share(p.out_tie, p.out_below, n)  # my share of the penalty
        immediate_out = -big_n * eps * best
        gain = gain + big_n * eps * best - (eps * all_out if recursive else 0.0)
    return gain, immediate_in, immediate_out


@dataclass(frozen=True)
class Equilibrium:
    """A symmetric equilibrium of the in/out decision.

    Attributes:
        cards_per_hand, players, model, rules, pot: what was solved (``pot`` in chips).
        threshold_key: strength key of the weakest hand that goes in
            (:func:`gutskit.core.evaluation.strength_table` keys).
        threshold_description: that hand in words, e.g. ``'Pair of sevens, ace kicker'``.
        threshold_percentile: the fraction of all hands strictly below the threshold key.
        mixing: the in-probability of hands of exactly ``threshold_key`` (1.0 = a pure
            threshold).
        in_rate: the probability that a seat goes in.
        value: a seat's expected immediate result per round at pot ``pot``, in chips
            (pot won minus chips matched; in the recursive game the matches come back as
            1/N shares of later pots, so a seat's total equity there is exactly pot / N).
        exploitability: chips per round (at pot ``pot``) that the best one-round deviation
            of one seat gains against the others' equilibrium play (see the module
            docstring).
        iterations: bisection steps.
        continuous: the continuous-Guts threshold ``2^(-1/(N-1))`` for comparison.
        exact_card_removal: ``True`` when heads-up (no opponent-opponent approximation).
        seconds: solve time.
    """

    cards_per_hand: int
    players: int
    model: Model
    rules: Rules
    pot: int
    threshold_key: int
    threshold_description: str
    threshold_percentile: float
    mixing: float
    in_rate: float
    value: float
    exploitability: float
    iterations: int
    continuous: float
    exact_card_removal: bool
    seconds: float = field(compare=False, default=0.0)

    def in_probability(self, key: int) -> float:
        """Probability of *in* with a hand of strength ``key``: 1 above the threshold,
        :attr:`mixing` at it, 0 below."""
        if key > self.threshold_key:
            return 1.0
        if key == self.threshold_key:
            return self.mixing
        return 0.0

    def strategy(self) -> KeyStrategy:
        """This equilibrium as an opponent strategy for :func:`gutskit.strategy.odds.odds`."""
        return KeyStrategy(self.in_probability, name="equilibrium")

    @property
    def figures(self) -> str:
        """How :attr:`value` and :attr:`exploitability` were obtained, for every place
        they are printed: ``"threshold model, exact card removal"`` heads-up without a
        ghost hand, else ``"threshold model, opponents independent: approximate"``. The
        certified figures are :func:`gutskit.strategy.certify.load_strategy`'s."""
        if self.exact_card_removal:
            return "threshold model, exact card removal"
        return "threshold model, opponents independent: approximate"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (``"figures"``: :attr:`figures`)."""
        return {
            "cards_per_hand": self.cards_per_hand, "players": self.players,
            "model": self.model, "pot": self.pot,
            "threshold_key": self.threshold_key,
            "threshold": self.threshold_description,
            "threshold_percentile": round(self.threshold_percentile, 6),
            "mixing": round(self.mixing, 6), "in_rate": round(self.in_rate, 6),
            "value_chips_per_round": round(self.value, 6),
            "exploitability_chips_per_round": float(f"{self.exploitability:.3g}"),
            "continuous_threshold": round(self.continuous, 6),
            "iterations": self.iterations,
            "exact_card_removal": self.exact_card_removal,
            "figures": self.figures,
            "rules": _rule_changes(self.rules),
        }


def _rule_changes(rules: Rules) -> dict[str, Any]:
    base = Rules(cards_per_hand=rules.cards_per_hand).model_dump()
    return {k: v for k, v in rules.model_dump().items() if base.get(k) != v}


def _weights_at(x: float, table: HandTable) -> FloatArray:
    """In-probability per hand when the x weakest hands (in strength order, x real) are
    out: ranks entirely above x in, the rank containing x mixed."""
    count = table.rank_count.astype(np.float64)
    upper = np.cumsum(count)
    by_rank = np.clip((upper - x) / count, 0.0, 1.0)
    return by_rank[table.rank]


def _rank_at(x: float, table: HandTable) -> int:
    upper = np.cumsum(table.rank_count)
    return min(int(np.searchsorted(upper, x, side="right")), table.n_ranks - 1)


def _gain_at(f: FloatArray, table: HandTable, game: GameModel, hands: IntArray | None = None
             ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Gain of in over out and immediate results for ``hands`` (default all) when the
    opponents play ``f``."""
    p = class_probabilities(f, table.ranking, hands)
    sel = np.arange(table.n_hands) if hands is None else hands
    top = (_ghost_top_term(p, f, table, game.players - 1, sel)
           if game.ghost and game.model == "recursive" else None)
    return in_gain(p, game, ghost_top=top)


def _gain_all(x: float, table: HandTable, game: GameModel) -> tuple[FloatArray, FloatArray,
                                                                 FloatArray, FloatArray]:
    f = _weights_at(x, table)
    gain, imm_in, imm_out = _gain_at(f, table, game)
    return f, gain, imm_in, imm_out


@cache
def _rank_members(table: HandTable) -> list[IntArray]:
    """The hands (combination indices) of each dense rank."""
    order = np.argsort(table.rank, kind="stable")
    bounds = np.cumsum(table.rank_count)[:-1]
    return [np.asarray(part, dtype=np.int64) for part in np.split(order, bounds)]


def _solve(players: int, rules: Rules, model: Model, pot: int) -> Equilibrium:
    start = time.perf_counter()
    game = game_model(players, rules, model, pot)
    table = hand_table(rules.ranking)
    count = table.rank_count.astype(np.float64)
    rank = table.rank

    members = _rank_members(table)

    def marginal_gain(x: float) -> float:
        r = _rank_at(x, table)
        gain = _gain_at(_weights_at(x, table), table, game, members[r])[0]
        return float(gain.mean())

    lo, hi = 0.0, float(table.n_hands)
    steps = 0
    if marginal_gain(lo) >= 0.0:
        hi = lo  # everyone in: even the weakest hand gains by going in
    elif marginal_gain(hi - 1e-9) <= 0.0:
        lo = hi
    else:
        for _ in range(BISECTION_STEPS):
            steps += 1
            mid = 0.5 * (lo + hi)
            if marginal_gain(mid) < 0.0:
                lo = mid
            else:
                hi = mid
    upper = np.cumsum(count)
    x = hi
    f, gain, imm_in, imm_out = _gain_all(x, table, game)
    best_loss = float((np.maximum(gain, 0.0) - f * gain).mean())
    r = _rank_at(x, table)
    mixing = float(np.clip((upper[r] - x) / count[r], 0.0, 1.0))
    if mixing >= 1.0 - 1e-9:  # at the boundary below the key: a pure threshold
        mixing = 1.0
    elif mixing <= 1e-9 and r + 1 < table.n_ranks:  # at the boundary above the key
        r, mixing = r + 1, 1.0
    key = int(table.rank_keys[r])
    example = int(np.flatnonzero(rank == r)[0])
    description = evaluate(tuple(int(c) for c in table.cards[example]),
                           rules.ranking).description
    below = float(upper[r] - count[r]) / table.n_hands
    exploit = best_loss * pot if best_loss > 1e-12 else 0.0  # below float noise: zero
    value = float((f * imm_in + (1.0 - f) * imm_out).mean()) * pot
    return Equilibrium(
        cards_per_hand=rules.cards_per_hand, players=players, model=model, rules=rules,
        pot=pot, threshold_key=key, threshold_description=description,
        threshold_percentile=below, mixing=mixing, in_rate=float(f.mean()), value=value,
        exploitability=max(exploit, 0.0), iterations=steps,
        continuous=continuous_threshold(players),
        exact_card_removal=players == 2 and not game.ghost,
        seconds=time.perf_counter() - start,
    )


@cache
def _cached(players: int, rules: Rules, model: Model, pot: int) -> Equilibrium:
    return _solve(players, rules, model, pot)


def equilibrium(*, cards_per_hand: int, players: int, rules: Rules | None = None,
                model: Model = "recursive", pot: int | None = None) -> Equilibrium:
    """The symmetric equilibrium threshold for ``players`` at one table.

    Args:
        cards_per_hand: 2 or 3 (overrides ``rules.cards_per_hand``).
        players: 2..10.
        rules: house rules (default :class:`~gutskit.core.rules.Rules`).
        model: ``"recursive"`` (default; the pot carries on) or ``"one_round"``.
        pot: the pot in chips (default: the opening pot, ``players * rules.ante``). Only
            matters for ``best_pays_antes``, ``losers_pay = worst`` and a pot cap.

    Returns:
        :class:`Equilibrium` (cached: the same arguments return the same object).

    Raises:
        SolverError: unsupported rules or bad arguments.
        RulesError: ``cards_per_hand`` not 2 or 3.
    """
    base = rules if rules is not None else Rules()
    if cards_per_hand not in (2, 3):
        raise SolverError(f"cards_per_hand must be 2 or 3, not {cards_per_hand!r}")
    if base.cards_per_hand != cards_per_hand:
        base = base.replace(cards_per_hand=cards_per_hand)
    chips = pot if pot is not None else players * base.ante if isinstance(players, int) else 0
    return _cached(players, base, model, chips)


def exploitability(in_weights: FloatArray, *, players: int, rules: Rules | None = None,
                   model: Model = "recursive", pot: int | None = None) -> float:
    """Chips per round that the best one-round deviation of one seat gains when every seat
    plays ``in_weights`` (the in-probability per hand, by combination index of
    :func:`gutskit.strategy.tables.hand_table`; e.g. ``ThresholdStrategy(...).in_weights(table)``).

    The deviator chooses in or out hand by hand; continuation values are those of the
    symmetric profile (pot / N per seat). Same measure as
    :attr:`Equilibrium.exploitability`.

    Raises:
        SolverError: unsupported rules, bad arguments, or weights of the wrong shape.
    """
    base = rules if rules is not None else Rules()
    table = hand_table(base.ranking)
    f = np.asarray(in_weights, dtype=np.float64)
    if f.shape != (table.n_hands,):
        raise SolverError(f"in_weights must have shape ({table.n_hands},), not {f.shape}")
    chips = pot if pot is not None else players * base.ante
    game = game_model(players, base, model, chips)
    gain = _gain_at(f, table, game)[0]
    return max(float((np.maximum(gain, 0.0) - f * gain).mean()) * chips, 0.0)


def equilibrium_table(*, rules: Rules | None = None, model: Model = "recursive",
                      players: range = range(2, 11),
                      cards: tuple[int, ...] = (2, 3)) -> list[Equilibrium]:
    """The equilibrium for every number of players and hand size (default N = 2..10, two
    and three cards), at each table's opening pot. Cached per argument set."""
    return [equilibrium(cards_per_hand=k, players=n, rules=rules, model=model)
            for k in cards for n in players]


def table_to_json(rows: list[Equilibrium]) -> str:
    """The table as a JSON array (what ``guts solve --table --json`` prints)."""
    return json.dumps([row.to_dict() for row in rows], indent=2)


def plot_thresholds(rows: list[Equilibrium], path: str | Path) -> None:
    """Plot the equilibrium threshold (percentile of the weakest hand in) by number of
    players, one line per hand size, with the continuous-Guts curve ``2^(-1/(N-1))``.
    PNG or SVG by the file's extension (matplotlib, Agg backend).

    Raises:
        SolverError: the extension is not .png or .svg.
        OSError: the file cannot be written.
    """
    target = Path(path)
    if target.suffix.lower() not in (".png", ".svg"):
        raise SolverError(f"plot file must end in .png or .svg, not {str(target)!r}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k in sorted({r.cards_per_hand for r in rows}):
        sub = sorted((r for r in rows if r.cards_per_hand == k), key=lambda r: r.players)
        ax.plot([r.players for r in sub], [r.threshold_percentile for r in sub], marker="o",
                label=f"{k}-card Guts (real cards)")
        for r in sub:
            ax.annotate(r.threshold_description, (r.players, r.threshold_percentile),
                        textcoords="offset points", xytext=(4, -10 if k == 2 else 6),
                        fontsize=6)
    players = sorted({r.players for r in rows})
    grid = np.linspace(min(players), max(players), 200)
    ax.plot(grid, 2.0 ** (-1.0 / (grid - 1)), linestyle="--", color="grey",
            label="continuous Guts: 2^(-1/(N-1))")
    model = rows[0].model if rows else "recursive"
    ax.set_xlabel("players at the table (N)")
    ax.set_ylabel("threshold: fraction of hands below the weakest hand in")
    ax.set_title(f"Guts equilibrium threshold by number of players ({model} model)")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(target)
    plt.close(fig)
