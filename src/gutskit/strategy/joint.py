"""Sums over deals of several disjoint hands: exact joint card removal, or a seeded Monte
Carlo estimate with its standard error.

The question :mod:`gutskit.strategy.odds` needs answered: my hand is fixed; ``n`` opponents
(and, with RULES.md ``ghost_hand``, a ghost hand) are dealt disjoint hands from the other
cards, every deal equally likely. Each opponent hand ``h`` carries two weights ``w0(h)``,
``w1(h)`` (e.g. "out" and "in and weaker than mine"); the ghost hand one weight ``g(h)``.
:func:`deal_polynomial` returns, for ``j = 0..n``, the expectation over the deal of the
coefficient of ``s**j`` in ``g(ghost) * prod_i (w0(h_i) + s w1(h_i))``: with 0/1 class
weights and in-probabilities, the probability that exactly ``j`` opponents fall in the
``w1`` class and the others in the ``w0`` class.

**Exact method (no sampling).** A sum over ordered tuples of *pairwise disjoint* hands is a
sum over injective maps of the tuple's card slots to cards. By Möbius inversion on the
lattice of set partitions of the slots (Rota 1964; the "inclusion-exclusion over shared
cards" of :func:`gutskit.strategy.odds.disjoint_sums`, for any number of hands), it equals
``sum over partitions pi of mu(pi) * hom(pi)``, where ``hom(pi)`` sums over *all* maps that
are constant on the blocks of ``pi`` (a tensor contraction of the weight tensors, one per
hand, over shared indices) and ``mu(pi) = prod over blocks B of (-1)**(|B|-1) (|B|-1)!``.
Partitions with two slots of one hand in a block vanish (a hand has distinct cards), and
partitions whose quotient hypergraphs are isomorphic contract to the same value, so the
partitions are generated hand by hand and merged by isomorphism class (:func:`_classes`:
23 classes for four 2-card opponents, 16 for three 3-card ones). Each class contracts as a
product over its connected components (``numpy.einsum`` with a precomputed path). The
polynomial in ``s`` is recovered from its values at ``n + 1`` Chebyshev nodes. Checked
against brute-force enumeration of every deal in ``tests/test_joint.py``.

**Reach.** Exact while the number of dealt hands besides mine (opponents plus ghost) is at
most :data:`EXACT_HANDS` (2-card: 5, 3-card: 3), about a second per query at the limit on
one core. Beyond it :func:`deal_polynomial` samples :data:`MC_DEALS` deals with a seeded
generator and returns every deal's value (Rao-Blackwellised: the declarations are averaged
exactly given the deal), so callers report a mean and its standard error.
"""

from __future__ import annotations

import itertools
import math
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from gutskit.strategy.tables import HandTable

__all__ = ["EXACT_HANDS", "MC_DEALS", "MC_SEED", "DealPolynomial", "deal_polynomial",
           "is_exact"]

FloatArray = npt.NDArray[np.float64]

EXACT_HANDS: dict[int, int] = {2: 5, 3: 3}
"""Largest number of dealt hands besides mine (opponents + ghost) computed exactly, by
cards per hand."""

MC_DEALS = 100_000
"""Deals sampled beyond :data:`EXACT_HANDS`."""

MC_SEED = 20240601
"""Seed of the Monte Carlo generator (results are reproducible)."""

OPPONENT, GHOST = 0, 1

Key = tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]


def is_exact(cards_per_hand: int, opponents: int, ghost: bool) -> bool:
    """Whether :func:`deal_polynomial` is exact for this many hands."""
    return opponents + int(ghost) <= EXACT_HANDS[cards_per_hand]


# --------------------------------------------------------------------------------------------
# Isomorphism classes of slot partitions.


def _canonical(edges: Sequence[tuple[int, ...]], colors: tuple[int, ...]
               ) -> tuple[tuple[int, ...], ...]:
    """Canonical form of a hypergraph with coloured edges: the sorted multiset of vertex
    incidence sets, minimised over colour-preserving edge permutations (edges of one
    colour are contiguous)."""
    n_vertices = 1 + max(v for e in edges for v in e)
    incidence: list[list[int]] = [[] for _ in range(n_vertices)]
    for i, edge in enumerate(edges):
        for v in edge:
            incidence[v].append(i)
    groups = [[i for i, c in enumerate(colors) if c == color] for color in sorted(set(colors))]
    best: tuple[tuple[int, ...], ...] | None = None
    perm = list(range(len(edges)))
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        for group, image in zip(groups, combo, strict=True):
            for old, new in zip(group, image, strict=True):
                perm[old] = new
        key = tuple(sorted(tuple(sorted(perm[e] for e in inc)) for inc in incidence))
        if best is None or key < best:
            best = key
    assert best is not None
    return best


def _edges_of(key: tuple[tuple[int, ...], ...], m: int) -> tuple[tuple[int, ...], ...]:
    edges: list[list[int]] = [[] for _ in range(m)]
    for v, inc in enumerate(key):
        for e in inc:
            edges[e].append(v)
    return tuple(tuple(e) for e in edges)


@cache
def _classes(colors: tuple[int, ...], k: int
             ) -> tuple[tuple[int, tuple[tuple[int, ...], ...]], ...]:
    """``(coefficient, edges)`` per isomorphism class of quotient hypergraphs of the slot
    partitions of hands with ``colors`` (``k`` slots each); coefficient = the sum of the
    Möbius values of the class's partitions (an integer)."""
    current: dict[tuple[tuple[int, ...], ...], list[Any]] = {(): [1, ()]}
    for m, _ in enumerate(colors, start=1):
        cols = colors[:m]
        nxt: dict[tuple[tuple[int, ...], ...], list[Any]] = {}
        for coef, edges in current.values():
            n_vertices = 1 + max((v for e in edges for v in e), default=-1)
            degree = Counter(v for e in edges for v in e)
            for r in range(k + 1):
                ways = math.perm(k, r)  # slots of the new hand that join old blocks
                for joined in itertools.combinations(range(n_vertices), r):
                    mult = ways
                    for v in joined:
                        mult *= -degree[v]  # mu grows by -|B| when a block grows
                    edge = (*joined, *range(n_vertices, n_vertices + k - r))
                    key = _canonical((*edges, edge), cols)
                    entry = nxt.get(key)
                    if entry is None:
                        nxt[key] = [coef * mult, _edges_of(key, m)]
                    else:
                        entry[0] += coef * mult
        current = {key: entry for key, entry in nxt.items() if entry[0] != 0}
    return tuple((int(c), e) for c, e in current.values())


@dataclass(frozen=True)
class _Component:
    colors: tuple[int, ...]
    subscripts: tuple[str, ...]  # per edge, letters of its shared vertices
    reduce: tuple[int, ...]  # per edge, how many of its vertices are private (summed first)
    path: list[Any]


def _components(edges: tuple[tuple[int, ...], ...], colors: tuple[int, ...]
                ) -> list[Key]:
    parent = list(range(len(edges)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    owner: dict[int, int] = {}
    for i, edge in enumerate(edges):
        for v in edge:
            if v in owner:
                parent[find(i)] = find(owner[v])
            else:
                owner[v] = i
    groups: dict[int, list[int]] = {}
    for i in range(len(edges)):
        groups.setdefault(find(i), []).append(i)
    keys = []
    for members in groups.values():
        members.sort(key=lambda i: colors[i])
        sub = [edges[i] for i in members]
        cols = tuple(colors[i] for i in members)
        relabel = {v: j for j, v in enumerate(sorted({v for e in sub for v in e}))}
        local = [tuple(relabel[v] for v in e) for e in sub]
        keys.append((cols, _canonical(local, cols)))
    return keys


@cache
def _plan(colors: tuple[int, ...], k: int
          ) -> tuple[tuple[tuple[int, tuple[int, ...]], ...], tuple[_Component, ...]]:
    """The classes as ``(coefficient, component ids)`` and the distinct components."""
    index: dict[Key, int] = {}
    comps: list[_Component] = []
    terms = []
    dummy = np.ones((52,) * k)
    for coef, edges in _classes(colors, k):
        ids = []
        for key in _components(edges, colors):
            if key not in index:
                cols, canon = key
                local = _edges_of(canon, len(cols))
                degree = Counter(v for e in local for v in e)
                subs = tuple("".join(string.ascii_letters[v] for v in e if degree[v] > 1)
                             for e in local)
                reduce = tuple(sum(1 for v in e if degree[v] == 1) for e in local)
                shared = [s for s in subs if s]
                path: list[Any] = []
                if len(shared) > 1:
                    ops = [dummy[(0,) * (k - len(s))] for s in shared]
                    path = np.einsum_path(",".join(shared) + "->", *ops,
                                          optimize="optimal")[0]
                index[key] = len(comps)
                comps.append(_Component(cols, subs, reduce, path))
            ids.append(index[key])
        terms.append((coef, tuple(ids)))
    return tuple(terms), tuple(comps)


def _contract(comp: _Component, reduced: dict[int, list[FloatArray]]) -> float:
    scalar = 1.0
    ops = []
    subs = []
    for color, sub, r in zip(comp.colors, comp.subscripts, comp.reduce, strict=True):
        operand = reduced[color][r]
        if sub:
            ops.append(operand)
            subs.append(sub)
        else:
            scalar *= float(operand)
    if not ops:
        return scalar
    if len(ops) == 1:
        return scalar * float(np.einsum(subs[0] + "->", ops[0]))
    return scalar * float(np.einsum(",".join(subs) + "->", *ops, optimize=comp.path))


def _tensor(weights: FloatArray, table: HandTable) -> list[FloatArray]:
    """The symmetric weight tensor over ordered card tuples (``w(hand) / k!`` on every
    ordering, 0 on repeated cards) and its sums over 1..k trailing axes."""
    k = table.cards_per_hand
    dense = np.zeros((52,) * k)
    cards = table.cards.astype(np.int64)
    share = weights / math.factorial(k)
    for order in itertools.permutations(range(k)):
        dense[tuple(cards[:, j] for j in order)] = share
    reduced = [dense]
    for _ in range(k):
        reduced.append(reduced[-1].sum(axis=-1))
    return reduced


def _hands_count(k: int, known: int, hands: int) -> int:
    total = 1
    for i in range(hands):
        total *= math.comb(52 - known - i * k, k)
    return total


@dataclass(frozen=True)
class DealPolynomial:
    """Coefficients of :func:`deal_polynomial`.

    Attributes:
        values: shape ``(deals, n + 1)``: one row when exact, else one row per sampled
            deal (the estimate is the column mean).
        exact: whether the values are exact.
    """

    values: FloatArray
    exact: bool

    @property
    def mean(self) -> FloatArray:
        """The coefficients (exact, or the Monte Carlo estimate)."""
        return np.asarray(self.values.mean(axis=0), dtype=np.float64)


def _exact(mine: int, families: Sequence[tuple[FloatArray, FloatArray, FloatArray | None]],
           table: HandTable, n: int) -> list[DealPolynomial]:
    k = table.cards_per_hand
    free = ~np.isin(table.cards, table.cards[mine]).any(axis=1)
    ghost = families[0][2] is not None
    colors = ((GHOST,) if ghost else ()) + (OPPONENT,) * n
    terms, comps = _plan(colors, k)
    total = float(_hands_count(k, k, n + int(ghost)))
    nodes = np.cos(np.pi * (np.arange(n + 1) + 0.5) / (n + 1))
    vander = np.vander(nodes, n + 1, increasing=True)
    results = []
    for w0, w1, g in families:
        reduced: dict[int, list[FloatArray]] = {}
        if g is not None:
            reduced[GHOST] = _tensor(g * free, table)
        r0 = _tensor(w0 * free, table)
        r1 = _tensor(w1 * free, table)
        values = np.empty(n + 1)
        for i, s in enumerate(nodes):
            reduced[OPPONENT] = [a + s * b for a, b in zip(r0, r1, strict=True)]
            comp_values = [_contract(c, reduced) for c in comps]
            values[i] = sum(coef * math.prod(comp_values[j] for j in ids)
                            for coef, ids in terms)
        coefficients = np.linalg.solve(vander, values) / total
        results.append(DealPolynomial(coefficients[None, :], exact=True))
    return results


def _sampled(mine: int, families: Sequence[tuple[FloatArray, FloatArray, FloatArray | None]],
             table: HandTable, n: int, deals: int, seed: int) -> list[DealPolynomial]:
    k = table.cards_per_hand
    ghost = families[0][2] is not None
    hands = n + int(ghost)
    rest = np.setdiff1d(np.arange(52), table.cards[mine].astype(np.int64))
    rng = np.random.default_rng(seed)
    keys = rng.random((deals, rest.size))
    picked = rest[np.argpartition(keys, hands * k - 1, axis=1)[:, : hands * k]]
    picked = picked.reshape(deals, hands, k)
    picked.sort(axis=2)
    code = np.zeros(picked.shape[:2], dtype=np.int64)
    for j in range(k):
        code = code * 52 + picked[:, :, j]
    index = table.code_to_index[code].astype(np.int64)  # (deals, hands)
    opp = index[:, int(ghost):]
    results = []
    for w0, w1, g in families:
        poly = np.zeros((deals, n + 1))
        poly[:, 0] = 1.0
        for i in range(n):
            a, b = w0[opp[:, i]], w1[opp[:, i]]
            shifted = np.zeros_like(poly)
            shifted[:, 1:] = poly[:, :-1] * b[:, None]
            poly = poly * a[:, None] + shifted
        if g is not None:
            poly *= g[index[:, 0]][:, None]
        results.append(DealPolynomial(poly, exact=False))
    return results


def deal_polynomial(mine: int, families: Sequence[tuple[FloatArray, FloatArray,
                                                         FloatArray | None]],
                    table: HandTable, opponents: int, *, deals: int = MC_DEALS,
                    seed: int = MC_SEED) -> list[DealPolynomial]:
    """For each family ``(w0, w1, g)``: the coefficients ``c_j`` (``j = 0..opponents``) of
    ``E[g(ghost) prod_i (w0(h_i) + s w1(h_i))]`` over a uniform deal of disjoint hands to
    ``opponents`` opponents (and a ghost hand when ``g`` is not ``None``: all families
    must agree) from the cards other than hand ``mine``.

    Args:
        mine: my hand's combination index in ``table``.
        families: per-hand weight arrays of shape ``(table.n_hands,)``.
        table: the hand table (its cards per hand).
        opponents: 1..9.
        deals: Monte Carlo deals beyond :data:`EXACT_HANDS`.
        seed: the Monte Carlo seed.

    Returns:
        One :class:`DealPolynomial` per family, exact when :func:`is_exact`.
    """
    ghost = families[0][2] is not None
    if any((g is not None) != ghost for _, _, g in families):
        raise ValueError("every family must have a ghost weight, or none")
    if is_exact(table.cards_per_hand, opponents, ghost):
        return _exact(mine, families, table, opponents)
    return _sampled(mine, families, table, opponents, deals, seed)
