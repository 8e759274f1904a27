"""The compiled (numba) kernel of :mod:`gutskit.strategy.fast`: the same session rules, played
table after table in machine code instead of table-parallel numpy passes.

:func:`gutskit.strategy.fast.simulate` and :func:`~gutskit.strategy.fast.simulate_deals` use it
when numba is installed (``kernel="auto"``); the numpy path stays the reference, and the
tests check both against each other and against the engine deal by deal
(``tests/test_fast.py``). This module imports numba: :mod:`gutskit.strategy.fast` imports
it only when the kernel is used. The kernel compiles on its first call and numba caches the
machine code on disk (``__pycache__``), so later processes start at once.

Randomness (the kernel's own, deterministic per seed and independent of how the tables
are split into calls): table ``t`` has two SplitMix64 streams, one for the deals starting at
``mix(key0 ^ mix(t + key1))`` and one for mixed strategies' declarations starting at
``mix(key1 ^ mix(t + key0))``, the 64-bit keys coming from
``numpy.random.SeedSequence(seed)``. Every round deals a hand to every seat by a partial
Fisher-Yates shuffle of the table's 52-card deck, carried on from the round before; a hand
of ``k`` cards (2 or 3) takes one 32-bit draw: Lemire's multiply-shift with rejection applied to
the product ``m (m - 1) ... (m - k + 1)`` of the deck sizes (``m`` cards left), read digit
by digit (Brackett-Rozinsky and Lemire, "Batched ranged random integer generation", 2024),
so each card is exactly uniform among those left. The seats not in play ignore their hand
(the hands of the seats in play are uniform and disjoint all the same). A mixed strategy's
declaration compares a 53-bit uniform float with its probability.

Speed (what was measured to matter, docs/bots-and-analysis.md, issue 11): a hand's rank is
read from a 44 KB table by its 3-card combination (:func:`_comb3`) rather than from the
281 KB table by ordered code; a pot-dependent policy's row from a table indexed by the pot
(no binary search on each round's critical path); a round's Fisher-Yates offsets are drawn
before its swaps; the deck and the card indices are unsigned (no negative-index
wraparound); seat masks use ``popcount``/``cttz`` instructions; the combination index
adds ``C(mid, 2)`` and ``C(hi, 3)`` read from two 52-entry tables (no multiplications) and
the cards' ordered code is made only when the deals are recorded; the combination table is
made once per ranking (:func:`comb_ranks`), outside the timed kernel. A branch-free
settlement, bit-packed decision tables and a 32-bit pot-row table measured no faster and
were not kept; nor, in session 6 (same-run A/B, median of alternated timings,
docs/bots-and-analysis.md): a settlement and antes without a branch on the outcome (-18%),
cards picked from a 64-bit mask of the cards left by ``pdep`` instead of the deck's swaps
(-2 to -3%), the next round dealt while this one is played instead of 8 rounds ahead
(+1%, within the noise), declaring by a cut-off rank instead of the table (threshold bots,
-2%), the best hand found in the showdown only (-4%), declaration loops apart for the
usual cases (-2 to 0%); nor, in session 7 (``benchmarks/compare_fast.py``: same-process
A/B and callgrind instructions per round, 938 for threshold bots, 49% of them the deal):
a round's deal as a compiled function of its own (0.38x: numba counts references to each
array argument of a call with atomic operations, far dearer than the spills it saved), the
first 16 rounds dealt before the play's values are live (-3.5% instructions, no faster),
antes over the bits of the seats in play (-4.2% instructions, 7 to 11% slower).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt
from numba.core.extending import intrinsic
from numba.cpython.unsafe import numbers as _unsafe

__all__ = ["comb_ranks", "deal_cards", "run", "table_keys"]

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
def _start_decisions(keys: Any, table: Any) -> Any:
    """Table ``table``'s second stream (mixed strategies' declarations): the keys swapped."""
    return _mix(keys[1] ^ _mix(_U64(table) + keys[0]))


@numba.njit(inline="always", cache=True)
def _swap(deck: Any, top: Any, j: Any) -> Any:
    """A Fisher-Yates step: ``deck[top + j]`` to ``deck[top]``; returns that card. ``top``
    and ``j`` are unsigned (uint64: an index without numba's negative-index wraparound)."""
    at = top + j
    card = deck[at]
    deck[at] = deck[top]
    deck[top] = card
    return _U64(card)


@numba.njit(cache=True)
def _rejection(k: Any) -> Any:
    """``(53,)`` uint64: Lemire's rejection threshold ``(2**32 - p) % p`` for the product
    ``p = m (m - 1) ... (m - k + 1)`` of the deck sizes when ``m`` cards are left (a draw
    below it is drawn again). A table, so that no division is left in the deal."""
    out = np.zeros(53, np.uint64)
    for m in range(k, 53):
        prod = _U64(1)
        for c in range(k):
            prod = prod * _U64(m - c)
        out[m] = (_TWO32 - prod) % prod
    return out


@numba.njit(inline="always", cache=True)
def _draw3(x: Any, spare: Any, has: Any, top: Any, reject: Any) -> Any:
    """The three Fisher-Yates offsets of a 3-card hand dealt from ``deck[top:]`` (``top``
    uint64), from one 32-bit draw (``reject``: :func:`_rejection`): Lemire's rejection for
    the product of the bounds, exact. They do not depend on the deck's order, so a round's
    draws can all be made before its swaps (the swaps' addresses are then known early and
    the processor overlaps them). Returns ``(x, spare, has, j0, j1, j2)``."""
    m = _U64(52) - top
    threshold = reject[m]
    while True:
        x, spare, has, v = _next32(x, spare, has)
        v = v * m
        j0 = v >> _S32
        v = (v & _LOW32) * (m - _U64(1))
        j1 = v >> _S32
        v = (v & _LOW32) * (m - _U64(2))
        j2 = v >> _S32
        if (v & _LOW32) >= threshold:
            break
    return x, spare, has, j0, j1, j2


@numba.njit(inline="always", cache=True)
def _deal3(x: Any, spare: Any, has: Any, deck: Any, top: Any, reject: Any) -> Any:
    """Deal 3 cards from ``deck[top:]``: three steps of a partial Fisher-Yates shuffle by
    the offsets of :func:`_draw3`. Returns ``(x, spare, has, c0, c1, c2)``, the cards
    (:mod:`gutskit.core.cards` codes, uint64) in the order dealt."""
    x, spare, has, j0, j1, j2 = _draw3(x, spare, has, top, reject)
    c0 = _swap(deck, top, j0)
    c1 = _swap(deck, top + _U64(1), j1)
    return x, spare, has, c0, c1, _swap(deck, top + _U64(2), j2)


@numba.njit(inline="always", cache=True)
def _deal2(x: Any, spare: Any, has: Any, deck: Any, top: Any, reject: Any) -> Any:
    """:func:`_deal3` for 2 cards: ``(x, spare, has, c0, c1)``."""
    m = _U64(52) - top
    threshold = reject[m]
    while True:
        x, spare, has, v = _next32(x, spare, has)
        v = v * m
        j0 = v >> _S32
        v = (v & _LOW32) * (m - _U64(1))
        j1 = v >> _S32
        if (v & _LOW32) >= threshold:
            break
    c0 = _swap(deck, top, j0)
    return x, spare, has, c0, _swap(deck, top + _U64(1), j1)


@numba.njit(inline="always", cache=True)
def _comb3(a: Any, b: Any, c: Any) -> Any:
    """The index of the 3-card combination ``{a, b, c}`` (distinct uint64 card codes, in
    any order) in the combinatorial number system, ``C(lo, 1) + C(mid, 2) + C(hi, 3)`` for
    ``lo < mid < hi``: 0 to 22,099, the same for the six orders of one hand."""
    lo = min(min(a, b), c)
    hi = max(max(a, b), c)
    mid = a + b + c - lo - hi
    return lo + ((mid * (mid - _U64(1))) >> _U64(1)) + (
        hi * (hi - _U64(1)) * (hi - _U64(2))) // _U64(6)


@numba.njit(cache=True)
def _comb_ranks(code_to_rank: Any) -> Any:
    """``(22100,)`` uint16: the dense rank of each 3-card combination by :func:`_comb3`
    index, from ``code_to_rank`` (base-52 codes of the cards in order). 44 KB instead of
    the 281 KB of ``code_to_rank``: the deal's rank look-up stays in the fastest caches."""
    out = np.zeros(22100, np.uint16)
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                out[_comb3(_U64(a), _U64(b), _U64(c))] = code_to_rank[(a * 52 + b) * 52 + c]
    return out


@numba.njit(cache=True)
def deal_cards(keys: Any, first_table: Any, n_tables: Any, hands: Any, k: Any) -> Any:
    """``(n_tables, hands * k)`` int64: the cards of the first ``hands`` hands the kernel
    deals at each table (its first round, seat after seat), for the tests of uniformity."""
    out = np.empty((n_tables, hands * k), np.int64)
    deck = np.arange(52).astype(np.uint8)
    reject = _rejection(k)
    for t in range(n_tables):
        x, spare, has = _start(keys, first_table + t)
        for c in range(52):
            deck[c] = c
        for h in range(hands):
            if k == 3:
                x, spare, has, c0, c1, c2 = _deal3(x, spare, has, deck, _U64(h * 3), reject)
                out[t, h * 3 + 2] = c2
            else:
                x, spare, has, c0, c1 = _deal2(x, spare, has, deck, _U64(h * 2), reject)
            out[t, h * k] = c0
            out[t, h * k + 1] = c1
    return out


_COMB_RANKS: dict[int, tuple[npt.NDArray[np.int16], npt.NDArray[np.uint16]]] = {}


def comb_ranks(code_to_rank: npt.NDArray[np.int16]) -> npt.NDArray[np.uint16]:
    """:func:`_comb_ranks` of ``code_to_rank`` (a 3-card ranking's table by ordered code),
    made once per table: :func:`run`'s ``comb_rank``. 3 cards are ranked by combination
    (44 KB) rather than by ordered code (281 KB), so that the deal's look-ups stay in the
    fastest caches."""
    hit = _COMB_RANKS.get(id(code_to_rank))
    if hit is None or hit[0] is not code_to_rank:  # (the entry holds the table: its id
        hit = (code_to_rank, _comb_ranks(code_to_rank))  # stays unique while cached)
        _COMB_RANKS[id(code_to_rank)] = hit
    return hit[1]


def _popcount_typing(typingctx: Any, src: Any) -> Any:
    """Typing and code of :data:`_popcount`."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])
    return src(src), codegen


_popcount: Any = intrinsic(_popcount_typing)
_tz: Any = _unsafe.trailing_zeros
"""The number of 1 bits of an integer, in numba code (LLVM's ``ctpop``: one instruction);
``_tz`` (numba's ``trailing_zeros``, LLVM's ``cttz``) gives the lowest 1 bit's seat."""


_CHUNK = 8
"""Rounds dealt ahead at a time (the deals do not depend on the play)."""

_ROW_TABLE = 1 << 15
"""Pots below this many chips (and below a policy's last pot edge + 1) find their policy
row in a table indexed by the pot, built once per call; larger pots by binary search of
the pot edges."""


@numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
def run(first_table: Any, n_tables: Any, rounds: Any, buy: Any, dealer: Any,
        ante: Any, cap: Any, match_cap: Any, reserve_cap: Any, shortfall: Any,
        ante_every_round: Any, reante: Any, first_left: Any, require_cover: Any,
        end_on_uncontested: Any, end_share: Any,
        seat_policy: Any, decide: Any, probs: Any, mixed: Any, n_ranks: Any, edges: Any,
        n_edges: Any, given: Any, ranks_given: Any, k: Any, code_to_rank: Any,
        comb_rank: Any, keys: Any,
        record: Any, out_hands: Any,
        out_stacks: Any, out_pot: Any, out_reserve: Any, out_rounds: Any,
        out_over: Any, out_elim: Any, out_dealt: Any, out_ins: Any, out_wins: Any,
        out_stats: Any) -> None:
    """Play ``n_tables`` sessions of at most ``rounds`` rounds, one table after another.

    The deals do not depend on the play, so ``_CHUNK`` rounds are dealt ahead (hands and
    ranks); the play then finds its ranks ready. Seats are bits of small integers (in
    play, in, winners, eliminated, the ante left broke), so that a round touches only the
    seats it concerns: the seats in play for the declarations, only those in for the
    settlement; the per-seat counts (dealt, in, won) are counted per mask and summed per
    seat at the end.

    Policies: seat ``s`` plays policy ``seat_policy[s]`` (seats sharing a policy share its
    tables). A policy's row is the number of its pot edges at or below the pot after antes
    (``numpy.searchsorted(..., side="right")``), looked up once per policy and round (in
    a table indexed by the pot below ``_ROW_TABLE`` chips, by binary search above); a
    pure policy's declaration is ``decide[p, row * n_ranks + rank] != 0``; a mixed one
    (``mixed[p]``) declares in when a uniform float from the table's second stream is
    below ``probs[p, row * n_ranks + rank]`` (seat after seat, in play only). With
    ``record``, the cards dealt to the seats in play are written to ``out_hands[round,
    table, seat]`` (the others keep what the caller filled in)."""
    n = buy.shape[0]
    n_pol = decide.shape[0]
    width = decide.shape[1]
    flat = decide.reshape(-1)
    n_dealt = np.zeros(1 << n, np.int64)  # rounds played per mask of seats in play,
    n_ins = np.zeros(1 << n, np.int64)  # per mask of seats in, per mask of winners
    n_wins = np.zeros(1 << n, np.int64)
    mixed_seats = 0
    for s in range(n):
        if mixed[seat_policy[s]]:
            mixed_seats |= 1 << s
    st = np.empty(n, np.int64)
    row_base = np.zeros(n_pol, np.int64)
    seat_at = np.zeros(n, np.uint64)  # where seat s's row starts in ``flat``
    for s in range(n):
        seat_at[s] = seat_policy[s] * width
    chunk_rank = np.zeros((_CHUNK, n), np.uint16)
    chunk_code = np.zeros((_CHUNK, n), np.uint64)
    deck = np.arange(52).astype(np.uint8)
    offsets = np.zeros((n, 3), np.uint64)  # a round's Fisher-Yates offsets (3 cards)
    reject = _rejection(k)
    choose2 = np.zeros(52, np.uint64)  # C(c, 2) and C(c, 3): _comb3 by two look-ups
    choose3 = np.zeros(52, np.uint64)
    for c in range(52):
        choose2[c] = c * (c - 1) // 2
        choose3[c] = c * (c - 1) * (c - 2) // 6
    bucketed = n_edges.max() > 0
    # pot_row[p, pot]: where policy p's row for ``pot`` starts in ``flat``, pot < table_top
    table_top = min(_ROW_TABLE, edges.max() + 1) if bucketed else 1
    pot_row = np.zeros((n_pol, table_top), np.int64)
    if bucketed:
        for p in range(n_pol):
            lo = 0
            for pot in range(table_top):
                while lo < n_edges[p] and edges[p, lo] <= pot:
                    lo += 1
                pot_row[p, pot] = p * width + lo * n_ranks
    # one pure pot-dependent policy for every seat: its row start, shared by the seats
    one_pure = bucketed and n_pol == 1 and not mixed[0]
    shared_at = np.uint64(0)
    n_void = n_unc = games = pot_sum = max_pot = total_rounds = 0
    for t in range(n_tables):
        table = first_table + t
        x, spare, has = _start(keys, table)
        y = _start_decisions(keys, table)
        for c in range(52):  # each table starts from the same deck: no state carries over
            deck[c] = c
        inplay: Any = 0  # bit s: seat s can be dealt in (not eliminated, chips left)
        elim = 0
        for s in range(n):
            st[s] = buy[s]
            inplay |= np.int64(buy[s] > 0) << s
        count = _popcount(inplay)
        pot = 0
        reserve = 0
        dealer_seat = dealer
        reante_due = False
        game_matched: Any = False
        played = 0
        over = False
        for step in range(rounds):
            if count < 2:
                over = True
                break
            i = step % _CHUNK
            if i == 0:  # deal the next rounds ahead, a hand to every seat
                for ahead in range(min(_CHUNK, rounds - step)):
                    if given:
                        for s in range(n):
                            chunk_rank[ahead, s] = ranks_given[step + ahead, table, s]
                        continue
                    if k == 3:  # a round's draws first, then its swaps (see _draw3)
                        for s in range(n):
                            x, spare, has, j0, j1, j2 = _draw3(x, spare, has, _U64(s * 3),
                                                               reject)
                            offsets[s, 0] = j0
                            offsets[s, 1] = j1
                            offsets[s, 2] = j2
                        for s in range(n):
                            top = _U64(s * 3)
                            c0 = _swap(deck, top, offsets[s, 0])
                            c1 = _swap(deck, top + _U64(1), offsets[s, 1])
                            c2 = _swap(deck, top + _U64(2), offsets[s, 2])
                            if record:
                                chunk_code[ahead, s] = (c0 * _U64(52) + c1) * _U64(52) + c2
                            lo = min(min(c0, c1), c2)
                            hi = max(max(c0, c1), c2)
                            mid = c0 + c1 + c2 - lo - hi
                            chunk_rank[ahead, s] = comb_rank[lo + choose2[mid] + choose3[hi]]
                    else:
                        for s in range(n):
                            x, spare, has, c0, c1 = _deal2(x, spare, has, deck, _U64(s * 2),
                                                           reject)
                            code = c0 * _U64(52) + c1
                            chunk_code[ahead, s] = code
                            chunk_rank[ahead, s] = code_to_rank[code]
            # antes (engine.deal): new game, ante_every_round, re-ante after a void
            new_game = pot == 0
            broke: Any = 0  # seats the ante left without chips: out after this round unless won
            if ante_every_round or new_game or reante_due:
                for s in range(n):
                    if (inplay >> s) & 1:
                        a = ante if shortfall == 2 or st[s] >= ante else st[s]
                        st[s] -= a
                        pot += a
                        broke |= np.int64(st[s] <= 0) << s
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
            n_dealt[inplay] += 1
            # each policy's row for this pot: binary search of its pot edges
            if bucketed:
                for p in range(n_pol):
                    if pot < table_top:
                        row_base[p] = pot_row[p, pot]
                    else:
                        lo = 0
                        span = n_edges[p]
                        while span > 1:  # the row lies in [lo, lo + span]
                            half = span >> 1
                            lo = lo + half if edges[p, lo + half - 1] <= pot else lo
                            span -= half
                        if span:
                            lo += edges[p, lo] <= pot
                        row_base[p] = p * width + lo * n_ranks
                    if one_pure:  # every seat plays this row: no per-seat copy
                        shared_at = np.uint64(row_base[0])
                if not one_pure:
                    for s in range(n):
                        seat_at[s] = row_base[seat_policy[s]]
            # declare: pure policies by their table, then mixed ones seat after seat
            owed = min(pot, cap) if match_cap else pot
            inn: Any = 0
            best: Any = -1
            todo = inplay & ~mixed_seats  # (a scalar loop: for 2 to 10 seats, faster than
            while todo:                    # the vector code LLVM makes of a loop over all)
                s = _tz(todo)
                todo &= todo - 1
                hand = chunk_rank[i, s]  # uint16: an index without wraparound
                at = shared_at if one_pure else seat_at[s]
                call = np.int64(flat[at + hand])
                r = np.int64(hand)
                if require_cover:
                    call &= np.int64(st[s] >= owed)
                inn |= call << s
                best = max(best, r if call else -1)
            todo = mixed_seats & inplay
            while todo:
                s = _tz(todo)
                todo &= todo - 1
                y, u = _uniform(y)
                r = np.int64(chunk_rank[i, s])
                at = np.int64(seat_at[s]) - seat_policy[s] * width  # the row in ``probs``
                call = np.int64(u < probs[seat_policy[s], at + r])
                if require_cover:
                    call &= np.int64(st[s] >= owed)
                inn |= call << s
                best = max(best, r if call else -1)
            if record:
                for s in range(n):
                    if (inplay >> s) & 1:
                        code = chunk_code[i, s]
                        for c in range(k - 1, -1, -1):
                            out_hands[step, t, s, c] = code % _U64(52)
                            code //= _U64(52)
            n_ins[inn] += 1
            n_in = _popcount(inn)
            void = n_in == 0
            unc = n_in == 1
            sd = n_in >= 2
            n_void += void
            n_unc += unc
            matched_any: Any = False
            if unc:  # uncontested: the only one in takes the pot
                s = _tz(inn)
                n_wins[inn] += 1
                st[s] += pot
                pot = 0
                if st[s] <= 0:  # (a debt larger than the pot)
                    inplay &= ~(1 << s)
            elif sd:  # showdown: the best hand(s) share the pot, every loser matches
                won = 0
                todo = inn
                while todo:
                    s = _tz(todo)
                    todo &= todo - 1
                    won |= np.int64(chunk_rank[i, s] == best) << s
                n_wins[won] += 1
                n_win = _popcount(won)
                share = pot
                if n_win > 1:  # a tie
                    share = pot // n_win
                rem = pot - share * n_win
                total_paid = 0
                todo = inn
                while todo:
                    s = _tz(todo)
                    todo &= todo - 1
                    if (won >> s) & 1:
                        st[s] += share
                    else:
                        if shortfall == 2:
                            pay = owed
                        elif shortfall == 1:
                            pay = min(owed, max(st[s], 0))
                        elif st[s] < owed:
                            pay = 0
                            elim |= 1 << s
                        else:
                            pay = owed
                        st[s] -= pay
                        total_paid += pay
                    if st[s] <= 0 or (elim >> s) & 1:
                        inplay &= ~(1 << s)
                matched_any = total_paid > 0
                if first_left and rem > 0:  # odd chips: the first winner left of the dealer
                    after = won & ~((2 << dealer_seat) - 1)
                    s = _tz(after) if after else _tz(won)
                    st[s] += rem
                    rem = 0
                    if st[s] > 0 and not (elim >> s) & 1:
                        inplay |= 1 << s
                new_pot = rem + total_paid
                if reserve_cap and new_pot > cap:
                    reserve += new_pot - cap
                    new_pot = cap
                pot = new_pot
            # out of play: the seats in that lost their last chip (above) and those the
            # ante left broke that did not win (rare)
            if broke:
                todo = broke
                while todo:
                    s = _tz(todo)
                    todo &= todo - 1
                    if st[s] <= 0:
                        inplay &= ~(1 << s)
            count = _popcount(inplay)
            ended_unc = end_on_uncontested and unc and game_matched
            game_matched = (game_matched or matched_any) and pot > 0
            if reante:
                reante_due = void
            # next dealer: the same after a void round if still in play, else the next
            # seat clockwise still in play (engine._next_dealer)
            if not (void and (inplay >> dealer_seat) & 1):
                after = inplay & ~((2 << dealer_seat) - 1)
                if after:
                    dealer_seat = _tz(after)
                elif inplay:
                    dealer_seat = _tz(inplay)
            if count < 2 or ended_unc:
                over = True
                break
        if end_share:
            seated = n - _popcount(elim)
            every = seated == 0
            n_share = n if every else seated
            amount = pot + reserve
            base = amount // n_share
            extra = amount - base * n_share
            for j in range(1, n + 1):
                s = dealer_seat + j - (n if dealer_seat + j >= n else 0)
                if every or not (elim >> s) & 1:
                    st[s] += base + (1 if extra > 0 else 0)
                    extra -= 1
            pot = 0
            reserve = 0
        for s in range(n):
            out_stacks[t, s] = st[s]
            out_elim[t, s] = (elim >> s) & 1
        out_pot[t] = pot
        out_reserve[t] = reserve
        out_rounds[t] = played
        out_over[t] = over
        total_rounds += played
    for m in range(1, 1 << n):
        for s in range(n):
            if (m >> s) & 1:
                out_dealt[s] += n_dealt[m]
                out_ins[s] += n_ins[m]
                out_wins[s] += n_wins[m]
    out_stats[0] = n_void
    out_stats[1] = n_unc
    out_stats[2] = total_rounds - n_void - n_unc
    out_stats[3] = pot_sum
    out_stats[4] = max_pot
    out_stats[5] = games
