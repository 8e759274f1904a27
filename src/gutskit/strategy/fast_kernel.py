"""The compiled (numba) kernel of :mod:`gutskit.strategy.fast`: the same session rules, played
table after table in machine code instead of table-parallel numpy passes.

:func:`gutskit.strategy.fast.simulate` and :func:`~gutskit.strategy.fast.simulate_deals` use it
when numba is installed (``kernel="auto"``); the numpy path stays the reference, and the
tests check both against each other and against the engine deal by deal
(``tests/test_fast.py``). This module imports numba: :mod:`gutskit.strategy.fast` imports
it only when the kernel is used. The kernel compiles on its first call and numba caches the
machine code on disk (``__pycache__``), so later processes start at once.

Randomness (the kernel's own, deterministic per seed and independent of how the tables
are split into calls): table ``t`` draws from a SplitMix64 stream whose start is
``mix(key0 ^ mix(t + key1))``, the 64-bit keys coming from
``numpy.random.SeedSequence(seed)``. Hands are dealt by a partial Fisher-Yates shuffle of
the table's 52-card deck (exactly uniform: bounded integers by Lemire's method with
rejection), only to the seats in play; a mixed strategy's declaration compares a 53-bit
uniform float with its probability.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt

__all__ = ["deal_cards", "run", "table_keys"]

_U64 = np.uint64
_GAMMA = _U64(0x9E3779B97F4A7C15)
_M1 = _U64(0xBF58476D1CE4E5B9)
_M2 = _U64(0x94D049BB133111EB)
_S11, _S27, _S30, _S31, _S32 = _U64(11), _U64(27), _U64(30), _U64(31), _U64(32)
_LOW32 = _U64(0xFFFFFFFF)
_TWO32 = _U64(1 << 32)
_INV53 = 1.0 / float(1 << 53)


def table_keys(seed: int | None) -> npt.NDArray[np.uint64]:
    """The two 64-bit keys of the per-table streams for ``seed`` (``None``: OS entropy)."""
    state = np.random.SeedSequence(seed).generate_state(2, np.uint64)
    keys: npt.NDArray[np.uint64] = state.astype(np.uint64)
    return keys


@numba.njit(inline="always", cache=True)
def _mix(z: Any) -> Any:
    """SplitMix64's output function."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


# The stream is three scalars, passed in and returned by the helpers, so that the compiled
# loop keeps them in registers (an array would be read and written at every draw, next to
# the deck's own writes): ``x`` the SplitMix64 state, ``spare`` the unused half of the last
# 64-bit output, ``has`` whether there is one (0 or 1).


@numba.njit(inline="always", cache=True)
def _next32(x: Any, spare: Any, has: Any) -> Any:
    """32 random bits: the two halves of each 64-bit output in turn. Returns ``(x, spare,
    has, bits)``."""
    if has:
        return x, spare, _U64(0), spare
    x = x + _GAMMA
    r = _mix(x)
    return x, r & _LOW32, _U64(1), r >> _S32


@numba.njit(inline="always", cache=True)
def _bounded(x: Any, spare: Any, has: Any, n: Any) -> Any:
    """Uniform integer in ``[0, n)``, exactly (Lemire's multiply-shift with rejection).
    Returns ``(x, spare, has, value)``."""
    nn = _U64(n)
    x, spare, has, bits = _next32(x, spare, has)
    m = bits * nn
    low = m & _LOW32
    if low < nn:
        threshold = (_TWO32 - nn) % nn
        while low < threshold:
            x, spare, has, bits = _next32(x, spare, has)
            m = bits * nn
            low = m & _LOW32
    return x, spare, has, np.int64(m >> _S32)


@numba.njit(inline="always", cache=True)
def _uniform(x: Any) -> Any:
    """Uniform float in ``[0, 1)`` with 53 random bits (a whole 64-bit output; the spare
    half is left as it is). Returns ``(x, value)``."""
    x = x + _GAMMA
    return x, float(_mix(x) >> _S11) * _INV53


@numba.njit(inline="always", cache=True)
def _start(keys: Any, table: Any) -> Any:
    """Table ``table``'s stream ``(x, spare, has)``: its start depends only on the keys and
    the index."""
    return _mix(keys[0] ^ _mix(_U64(table) + keys[1])), _U64(0), _U64(0)


@numba.njit(inline="always", cache=True)
def _draw(x: Any, spare: Any, has: Any, deck: Any, top: Any) -> Any:
    """One step of a partial Fisher-Yates shuffle: swap a uniform card of
    ``deck[top:]`` to ``deck[top]``. Returns ``(x, spare, has, card)``."""
    x, spare, has, j = _bounded(x, spare, has, 52 - top)
    j += top
    card = deck[j]
    deck[j] = deck[top]
    deck[top] = card
    return x, spare, has, card


@numba.njit(cache=True)
def deal_cards(keys: Any, first_table: Any, n_tables: Any, cards: Any) -> Any:
    """``(n_tables, cards)`` int64: the first ``cards`` cards the kernel deals at each table
    (its first round when every seat is in play), for the tests of uniformity."""
    out = np.empty((n_tables, cards), np.int64)
    deck = np.arange(52)
    for t in range(n_tables):
        x, spare, has = _start(keys, first_table + t)
        for c in range(52):
            deck[c] = c
        for c in range(cards):
            x, spare, has, out[t, c] = _draw(x, spare, has, deck, c)
    return out


@numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
def run(first_table: Any, n_tables: Any, rounds: Any, buy: Any, dealer: Any,
        ante: Any, cap: Any, match_cap: Any, reserve_cap: Any, shortfall: Any,
        ante_every_round: Any, reante: Any, first_left: Any, require_cover: Any,
        end_on_uncontested: Any, end_share: Any,
        seat_policy: Any, decide: Any, probs: Any, mixed: Any, n_ranks: Any, edges: Any,
        n_edges: Any, given: Any, ranks_given: Any, k: Any, code_to_rank: Any, keys: Any,
        record: Any, out_hands: Any,
        out_stacks: Any, out_pot: Any, out_reserve: Any, out_rounds: Any,
        out_over: Any, out_elim: Any, out_dealt: Any, out_ins: Any, out_wins: Any,
        out_stats: Any) -> None:
    """Play ``n_tables`` sessions of at most ``rounds`` rounds, one table after another.

    Policies: seat ``s`` plays policy ``seat_policy[s]`` (seats sharing a policy share its
    tables). A policy's row is the number of its pot edges at or below the pot after antes
    (``numpy.searchsorted(..., side="right")``), looked up once per policy and round; a
    pure policy's declaration is ``decide[p, row * n_ranks + rank] != 0``; a mixed one
    (``mixed[p]``) declares in when a uniform float is below ``probs[p, row * n_ranks +
    rank]``. With ``record``, the cards dealt are written to ``out_hands[round, table,
    seat]`` (seats not dealt in keep what the caller filled in)."""
    n = buy.shape[0]
    n_pol = decide.shape[0]
    st = np.empty(n, np.int64)
    elim = np.zeros(n, np.bool_)
    inplay = np.zeros(n, np.bool_)
    inn = np.zeros(n, np.bool_)
    rank = np.zeros(n, np.int64)
    row_base = np.zeros(n_pol, np.int64)
    dealt = np.zeros(n, np.int64)
    ins = np.zeros(n, np.int64)
    wins = np.zeros(n, np.int64)
    deck = np.arange(52)
    bucketed = n_edges.max() > 0
    n_void = n_unc = games = pot_sum = max_pot = total_rounds = 0
    for t in range(n_tables):
        table = first_table + t
        x, spare, has = _start(keys, table)
        for c in range(52):  # each table starts from the same deck: no state carries over
            deck[c] = c
        count = 0
        for s in range(n):
            st[s] = buy[s]
            elim[s] = False
            inplay[s] = buy[s] > 0
            count += inplay[s]
        pot = 0
        reserve = 0
        dealer_seat = dealer
        reante_due = False
        game_matched: Any = False
        played = 0
        over = False
        for step in range(rounds):
            # in play (``inplay``, ``count``): not eliminated and chips left, kept up to
            # date by the settlement
            if count < 2:
                over = True
                break
            # antes (engine.deal): new game, ante_every_round, re-ante after a void
            new_game = pot == 0
            if ante_every_round or new_game or reante_due:
                for s in range(n):
                    a = ante if shortfall == 2 or st[s] >= ante else st[s]
                    a = a if inplay[s] else 0
                    st[s] -= a
                    pot += a
                reante_due = False
            if reserve_cap and new_game:
                refill = min(reserve, cap)
                reserve -= refill
                pot += refill
            if new_game:
                games += 1
                game_matched = False
            played += 1
            pot_sum += pot
            max_pot = max(max_pot, pot)
            # each policy's row for this pot: binary search of its pot edges
            if bucketed:
                for p in range(n_pol):
                    lo = 0
                    span = n_edges[p]
                    while span > 0:
                        half = span >> 1
                        if edges[p, lo + half] <= pot:
                            lo += half + 1
                            span -= half + 1
                        else:
                            span = half
                    row_base[p] = lo * n_ranks
            # deal (only to the seats in play)
            if given:
                for s in range(n):
                    rank[s] = ranks_given[step, table, s]
            else:
                top = 0
                for s in range(n):
                    if not inplay[s]:
                        continue
                    code = 0
                    for c in range(k):
                        x, spare, has, card = _draw(x, spare, has, deck, top)
                        code = code * 52 + card
                        top += 1
                        if record:
                            out_hands[step, t, s, c] = card
                    rank[s] = code_to_rank[code]
            # declare
            owed = min(pot, cap) if match_cap else pot
            n_in = 0
            best = -1
            for s in range(n):
                p = seat_policy[s]
                at = row_base[p] + rank[s]
                if mixed[p]:
                    call = False
                    if inplay[s]:
                        x, u = _uniform(x)
                        call = u < probs[p, at]
                else:
                    call = decide[p, at] != 0
                call = call & inplay[s]
                if require_cover:
                    call = call & (st[s] >= owed)
                inn[s] = call
                dealt[s] += inplay[s]
                ins[s] += call
                n_in += call
                best = max(best, rank[s] if call else -1)
            void = n_in == 0
            unc = n_in == 1
            sd = n_in >= 2
            n_void += void
            n_unc += unc
            # showdown: the best hand(s) among those in share the pot; every loser matches
            n_win = 0
            for s in range(n):
                n_win += inn[s] & (rank[s] == best)
            n_win = max(n_win, 1)
            share = pot if n_win == 1 else pot // n_win
            rem = pot - share * n_win if sd else 0
            total_paid = 0
            matched_any: Any = False
            count = 0
            for s in range(n):  # branch-free where the outcome is random
                won = inn[s] & (rank[s] == best)
                loser = inn[s] & ~won
                if shortfall == 2:
                    pay = owed
                elif shortfall == 1:
                    pay = min(owed, max(st[s], 0))
                else:
                    short = st[s] < owed
                    elim[s] = elim[s] | (loser & short)
                    pay = 0 if short else owed
                pay = pay if loser else 0
                st[s] += (share if won else 0) - pay
                wins[s] += won
                total_paid += pay
                matched_any = matched_any | (pay > 0)
                inplay[s] = (not elim[s]) & (st[s] > 0)
                count += inplay[s]
            if first_left and rem > 0:  # odd chips: the first winner left of the dealer
                for i in range(1, n + 1):
                    s = dealer_seat + i - (n if dealer_seat + i >= n else 0)
                    if inn[s] & (rank[s] == best):
                        count -= inplay[s]
                        st[s] += rem
                        rem = 0
                        inplay[s] = (not elim[s]) & (st[s] > 0)
                        count += inplay[s]
                        break
            if sd:
                new_pot = rem + total_paid
                if reserve_cap and new_pot > cap:
                    reserve += new_pot - cap
                    new_pot = cap
                pot = new_pot
            elif unc:
                pot = 0
            ended_unc = end_on_uncontested and unc and game_matched
            game_matched = (game_matched or (sd and matched_any)) and pot > 0
            if reante:
                reante_due = void
            # next dealer: the same after a void round if still in play, else the next
            # seat clockwise still in play (engine._next_dealer)
            if not (void and inplay[dealer_seat]):
                for i in range(1, n + 1):
                    s = dealer_seat + i - (n if dealer_seat + i >= n else 0)
                    if inplay[s]:
                        dealer_seat = s
                        break
            if count < 2 or ended_unc:
                over = True
                break
        if end_share:
            seated = 0
            for s in range(n):
                seated += not elim[s]
            every = seated == 0
            n_share = n if every else seated
            amount = pot + reserve
            base = amount // n_share
            extra = amount - base * n_share
            for i in range(1, n + 1):
                s = dealer_seat + i - (n if dealer_seat + i >= n else 0)
                if every or not elim[s]:
                    st[s] += base + (1 if extra > 0 else 0)
                    extra -= 1
            pot = 0
            reserve = 0
        for s in range(n):
            out_stacks[t, s] = st[s]
            out_elim[t, s] = elim[s]
        out_pot[t] = pot
        out_reserve[t] = reserve
        out_rounds[t] = played
        out_over[t] = over
        total_rounds += played
    for s in range(n):
        out_dealt[s] += dealt[s]
        out_ins[s] += ins[s]
        out_wins[s] += wins[s]
    out_stats[0] = n_void
    out_stats[1] = n_unc
    out_stats[2] = total_rounds - n_void - n_unc
    out_stats[3] = pot_sum
    out_stats[4] = max_pot
    out_stats[5] = games
