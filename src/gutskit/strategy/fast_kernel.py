"""The compiled (numba) kernel of :mod:`gutskit.strategy.fast`: the same session rules, played
in machine code (deals for a block of tables at once, then the play of pure policies round
by round for the whole block at once too, :func:`_vector_round`; mixed policies and the
rare rounds table by table) instead of table-parallel numpy passes.

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
``numpy.random.SeedSequence(seed)``. Every round deals a hand to every seat from a full
deck, hand after hand, card after card (:func:`deal_cards` is the plain definition): a
hand of ``k`` cards (2 or 3) takes the next 64-bit output; its high 32 bits times
``52``, digit by digit (Lemire's multiply-shift), give ``k`` cards each uniform on the 52;
a card dealt already in that round, or every card of a hand whose draw falls in Lemire's
rejection zone of ``52**k``, is drawn again alone from the next output (one digit, zone
``2**32 mod 52``) until it is new: so each card is exactly uniform among those not yet
dealt in the round. The seats not in play ignore their hand (the hands of the seats in
play are uniform and disjoint all the same). A mixed strategy's declaration compares a
53-bit uniform float with its probability. (Until session 8 the kernel dealt by a
partial Fisher-Yates shuffle of a deck carried on from round to round: same
distribution, other cards for a seed.)

Speed (what was measured to matter, docs/performance.md and docs/bots-and-analysis.md,
issue 11): the deals do not depend on the play, so a block of ``_LANES`` tables is dealt
``_AHEAD`` rounds at a time by loops over the tables that the compiler makes vector code
of (:func:`_deal_block`; session 8: 5 % faster than the scalar Fisher-Yates deal in a
same-process A/B, 844 against 938 instructions a round); each table then plays those
rounds, its state kept in per-table arrays between blocks of rounds. A 3-card hand's rank
is read from a 44 KB table by its combination index (:func:`_comb3`) rather than from the
281 KB table by ordered code; a pot-dependent policy's row from a table indexed by the pot
(no binary search on each round's critical path); seat masks use ``popcount``/``cttz``
instructions; the combination table is made once per ranking (:func:`comb_ranks`),
outside the timed kernel. Measured and not kept (docs/bots-and-analysis.md, sessions 5 to
8): a branch-free settlement, bit-packed decision tables, a 32-bit pot-row table, antes
without a branch on the outcome (-18%), declaring by a cut-off rank (-2%), the best hand
found in the showdown only (-4%), a round's deal as a compiled function of its own
(0.38x: numba counts references to each array argument of a call with atomic
operations), antes over the bits of the seats in play (7 to 11% slower), and in session
8 the block deal's redraws as vector passes over the whole block until no lane needs one
(0.85 to 0.90x: about 4 passes of 64 lanes for a round's late cards).

Session 9: the play in vector code too (:func:`_vector_round`, pure policies): a round of
the whole block as loops over its tables without branches (declarations as masks, the
winner as the best rank among those in, the pot's arithmetic as masked integer
operations); a table whose round is rare (a tie, an ante above a stack, a pot above the
row table) is put back and played by the scalar round, which stays the one for mixed
policies (the tests check the two against each other and both against the engine). What
made the compiler vectorize these loops: no branch inside them (the rule options are
loop-invariant values folded into the arithmetic), the per-table values in one array at
constant distances (``_V_*``, ``_W_*``), indices that cannot be negative (no wraparound
code), and the declarations' byte look-ups in a loop of their own (a load at an address
the compiler cannot bound, next to stores, stops it from vectorizing a loop).

Session 10 (620 -> 559 instructions a round, threshold bots): the combination index in
32-bit arithmetic, no multiplies by 0/1 flags nor popcounts where none/one/more is all
that counts, one ``cttz`` for the next dealer, and pure policies whose every row is a
cut-off (``cuts``: out below a rank, in from it on) declared by a comparison with the
row's cut instead of the scalar look-up of each declaration.
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
def _uniform(x: Any) -> Any:
    """Uniform float in ``[0, 1)`` with 53 random bits (a whole 64-bit output; the spare
    half is left as it is). Returns ``(x, value)``."""
    x = x + _GAMMA
    return x, float(_mix(x) >> _S11) * _INV53




@numba.njit(inline="always", cache=True)
def _start(keys: Any, table: Any) -> Any:
    """Table ``table``'s deal stream (SplitMix64 state): its start depends only on the keys
    and the index."""
    return _mix(keys[0] ^ _mix(_U64(table) + keys[1]))


@numba.njit(inline="always", cache=True)
def _start_decisions(keys: Any, table: Any) -> Any:
    """Table ``table``'s second stream (mixed strategies' declarations): the keys swapped."""
    return _mix(keys[1] ^ _mix(_U64(table) + keys[0]))


_ONE = _U64(1)
_C52 = _U64(52)
_REJECT1 = _U64((1 << 32) % 52)
"""Lemire's rejection threshold for one card (``2**32 mod 52``: a draw whose low product
is below it is drawn again)."""
_INV3_32 = np.uint32(0xAAAAAAAB)  # 3 * _INV3_32 = 1 (mod 2**32): an exact division by 3
_ONE32 = np.uint32(1)
_TWO32 = np.uint32(2)


def _reject(k: int) -> np.uint64:
    """Lemire's threshold ``2**32 mod 52**k`` for a hand's ``k`` digits from one 32-bit
    draw (a hand whose last low product is below it has each card drawn again alone)."""
    return _U64((1 << 32) % 52 ** k)


_REJECT2 = _reject(2)
_REJECT3 = _reject(3)


@numba.njit(inline="always", cache=True)
def _digits(x: Any, k: Any) -> Any:
    """A hand's ``k`` (2 or 3) cards from the next 64-bit output of the stream at ``x``:
    the digits in base 52 of its high 32 bits (Lemire's multiply-shift, digit by digit),
    each uniform on the 52 cards, with ``bad`` (1) when the draw falls in the rejection
    zone of ``52**k``. Returns ``(x, d0, d1, d2, bad)`` (uint64; ``d2`` is 0 for 2 cards)."""
    x = x + _GAMMA
    v = (_mix(x) >> _S32) * _C52
    d0 = v >> _S32
    v = (v & _LOW32) * _C52
    d1 = v >> _S32
    if k == 3:
        v = (v & _LOW32) * _C52
        d2 = v >> _S32
        bad = _U64((v & _LOW32) < _REJECT3)
    else:
        d2 = _U64(0)
        bad = _U64((v & _LOW32) < _REJECT2)
    return x, d0, d1, d2, bad


@numba.njit(inline="always", cache=True)
def _one_card(x: Any) -> Any:
    """One card uniform on the 52 from the next 64-bit output's high 32 bits. Returns
    ``(x, card, bad)``: ``bad`` (1) for a draw in Lemire's rejection zone."""
    x = x + _GAMMA
    v = (_mix(x) >> _S32) * _C52
    return x, v >> _S32, _U64((v & _LOW32) < _REJECT1)


@numba.njit(cache=True)
def deal_cards(keys: Any, first_table: Any, n_tables: Any, hands: Any, k: Any) -> Any:
    """``(n_tables, hands * k)`` int64: the cards of the first round's first ``hands``
    hands at each table, seat after seat, dealt card by card as the definition of the
    stream says (plain scalar code; :func:`run` deals the same cards a block of tables at a
    time, and the tests check the two against each other)."""
    out = np.empty((n_tables, hands * k), np.int64)
    for t in range(n_tables):
        x = _start(keys, first_table + t)
        used = _U64(0)
        for h in range(hands):
            x, d0, d1, d2, hand_bad = _digits(x, k)
            for j in range(k):
                c = d0 if j == 0 else (d1 if j == 1 else d2)
                bad = hand_bad
                while bad or (used >> c) & _ONE:  # dealt already (or rejected): again
                    x, c, bad = _one_card(x)
                used |= _ONE << c
                out[t, h * k + j] = c
    return out



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


_LANES = 64
"""Tables dealt together (a block): the deal's loops run over the block's tables, so that
the compiler makes vector code of them (one table per SIMD lane)."""

_AHEAD = 16
"""Rounds dealt ahead at a time for a block (the deals do not depend on the play)."""

_ROW_TABLE = 1 << 15
"""Pots below this many chips (and below a policy's last pot edge + 1) find their policy
row in a table indexed by the pot, built once per call; larger pots by binary search of
the pot edges."""


@numba.njit(inline="always", cache=True)
def _deal_block(rounds_now: Any, n: Any, k: Any, rs: Any, used: Any, dig: Any, bad: Any,
                idx: Any, ranks: Any, codes: Any, record: Any, comb_rank: Any,
                code_to_rank: Any) -> None:
    """Deal ``rounds_now`` rounds to the ``n`` seats of a block of ``_LANES`` tables (lane
    ``l``: the stream ``rs[l]``), the same cards as :func:`deal_cards`: card after card,
    each step a loop over the lanes without branches (vector code). The lanes whose card
    was dealt already in its round (or whose draw was rejected) are bits of a mask and
    draw again in a scalar loop, one lane after another (about 2 cards a round for 5
    seats; a lane's stream moves on only for its own draws). Writes the ranks to
    ``ranks[(round * n + seat) * _LANES + lane]`` and, with ``record``, the cards to
    ``codes[round, seat * k + c, lane]``. ``used``, ``dig``, ``bad``, ``idx``: scratch."""
    for i in range(rounds_now):
        for lane in range(_LANES):
            used[lane] = _U64(0)
        for h in range(n):
            for lane in range(_LANES):
                x, d0, d1, d2, b = _digits(rs[lane], k)
                rs[lane] = x
                dig[0, lane] = d0
                dig[1, lane] = d1
                dig[2, lane] = d2
                bad[lane] = b
            for j in range(k):
                again = _U64(0)  # bit ``lane``: that lane's card must be drawn again
                for lane in range(_LANES):
                    c = dig[j, lane]
                    u = used[lane]
                    d = bad[lane] | ((u >> c) & _ONE)
                    used[lane] = u | ((d ^ _ONE) << c)
                    again |= d << _U64(lane)
                while again:  # (about 2 cards a round: scalar code)
                    lane = _tz(again)
                    again &= again - _ONE
                    x = rs[lane]
                    u = used[lane]
                    while True:
                        x, c, b = _one_card(x)
                        if not (b | ((u >> c) & _ONE)):
                            break
                    rs[lane] = x
                    dig[j, lane] = c
                    used[lane] = u | (_ONE << c)
            if k == 3:  # rank by combination index: lo + C(mid, 2) + C(hi, 3) (_comb3)
                for lane in range(_LANES):
                    c0 = np.uint32(dig[0, lane])  # (32-bit lanes: twice the tables per
                    c1 = np.uint32(dig[1, lane])  # instruction, and 32-bit min, max and
                    c2 = np.uint32(dig[2, lane])  # multiplies are vector instructions)
                    lo = min(min(c0, c1), c2)
                    hi = max(max(c0, c1), c2)
                    mid = np.uint32(c0 + c1 + c2 - lo - hi)  # (each step cut back to 32
                    pairs = np.uint32(np.uint32(mid * (mid - _ONE32)) >> _ONE32)  # bits: numba
                    triples = np.uint32(hi * (hi - _ONE32))  # types integer arithmetic as
                    triples = np.uint32(triples * (hi - _TWO32))  # 64-bit)
                    triples = np.uint32(np.uint32(triples >> _ONE32) * _INV3_32)
                    idx[lane] = np.uint32(lo + pairs + triples)
                for lane in range(_LANES):
                    ranks[(i * n + h) * _LANES + lane] = comb_rank[idx[lane]]
            else:
                for lane in range(_LANES):
                    ranks[(i * n + h) * _LANES + lane] = code_to_rank[
                        dig[0, lane] * _C52 + dig[1, lane]]
            if record:
                for j in range(k):
                    for lane in range(_LANES):
                        codes[i, h * k + j, lane] = dig[j, lane]


# :func:`_vector_round`'s one array ``v`` of per-table values (row ``r``, table ``lane`` of
# the block at ``v[r * _LANES + lane]``; one array with rows at constant distances, so that
# the compiler can tell its rows apart and make vector code of loops touching several):
# each table's state between rounds, its snapshot before the round (``_V_SNAP +`` a state
# row), the round's scratch (``_W_*``; ``_W_ROW + p``: policy ``p``'s row for the pot), the
# per-table counters (``_C_*``), then the stacks (``_V_ST + seat``), their snapshot
# (``_V_ST + n + seat``) and the per-seat counts (``_V_ST + 2n + 3 * seat + 0|1|2``: dealt,
# in, won).
_V_POT, _V_RESERVE, _V_DEALER, _V_INPLAY, _V_ELIM, _V_PLAYED, _V_FLAGS = range(7)
_V_SNAP = 7
_W_ACT, _W_DUE, _W_NEW, _W_POT, _W_OWED, _W_INN, _W_BEST, _W_WON, _W_BROKE, _W_PAID, \
    _W_FIX, _W_ROW = range(14, 26)
_C_VOID, _C_UNC, _C_GAMES, _C_POT_SUM, _C_MAX_POT = range(36, 41)
_V_ST = 41
_TOP = np.int64(-(1 << 63))  # bit 63 alone


@numba.njit(cache=True, boundscheck=False, error_model="numpy")
def _vector_round(i: Any, n: Any, ranks: Any, v: Any, stv: Any, snapv: Any, cnt: Any,
                  gat: Any, ante: Any, cap: Any, match_cap: Any,
                  reserve_cap: Any, shortfall: Any, ante_every_round: Any, reante: Any,
                  require_cover: Any, end_on_uncontested: Any, flat: Any, seat_policy: Any,
                  n_pol: Any, width: Any, bucketed: Any, pot_row: Any, table_top: Any,
                  cuts: Any) -> Any:
    """Round ``i`` of the block (pure policies only) at every table of the block at once:
    each step a loop over the ``_LANES`` tables without branches, so that the compiler
    makes vector code of it (one table per SIMD lane); the same rules, in the same order,
    as the scalar round of :func:`run` (antes, the pot's policy row, declarations, the
    showdown's best hand, the uncontested win, every loser matching, elimination, the pot
    cap's reserve, the next dealer). Two passes over the seats: antes and declarations,
    then the settlement.

    A table whose round is rare -- a tie at the showdown (a split pot, its odd chips), an
    ante larger than a stack, a pot above the policies' row table (``pot_row``, flat:
    policy ``p``'s row for ``pot`` at ``p * table_top + pot``) -- is marked in ``_W_FIX``
    and left to the scalar round: the caller puts its state back from the snapshot, takes
    its per-seat counts back (the other counters here skip it) and plays the round again.
    Returns the number of such tables. Seats are bits of per-table integers, as in
    :func:`run`. ``v``: see ``_V_POT``."""
    L = _LANES
    every = np.int64(ante_every_round)
    for lane in range(L):  # the round starts: snapshot, who plays, antes, the pot
        fl = v[_V_FLAGS * L + lane]
        inplay = v[_V_INPLAY * L + lane]
        pot = v[_V_POT * L + lane]
        reserve = v[_V_RESERVE * L + lane]
        for r in range(7):
            v[(_V_SNAP + r) * L + lane] = v[r * L + lane]
        act = np.int64((fl & 1) == 0) & np.int64((inplay & (inplay - 1)) != 0)  # (two or more
        v[_V_FLAGS * L + lane] = fl | (act ^ 1)  # in play: no popcount) else the session is over
        new_game = act & np.int64(pot == 0)
        due = act & (every | new_game | ((fl >> 1) & 1))
        payers = inplay if due else np.int64(0)
        refill = min(reserve, cap) & -new_game if reserve_cap else np.int64(0)
        v[_V_RESERVE * L + lane] = reserve - refill
        pot = pot + refill + ante * _popcount(payers)  # (an ante above a stack: fixed up)
        v[_W_ACT * L + lane] = act
        v[_W_NEW * L + lane] = new_game
        v[_W_DUE * L + lane] = payers
        v[_W_POT * L + lane] = pot
        v[_W_OWED * L + lane] = min(pot, cap) if match_cap else pot
        v[_W_FIX * L + lane] = act & np.int64(pot >= table_top) if bucketed else np.int64(0)
        v[_W_BROKE * L + lane] = 0
        v[_W_INN * L + lane] = 0
        v[_W_BEST * L + lane] = -1
        v[_W_WON * L + lane] = 0
        v[_W_PAID * L + lane] = 0
    if bucketed:  # each policy's row for this pot (else the caller's ``p * width``)
        for p in range(n_pol):
            at_p = (_W_ROW + p) * L
            top = p * table_top
            for lane in range(L):
                at = top + min(v[_W_POT * L + lane], table_top - 1)
                v[np.uint64(at_p + lane)] = pot_row[np.uint64(at)]
    full = np.int64(shortfall == 2)
    uncovered = np.int64(not require_cover)  # (no branch in the loops: vector code)
    debt = shortfall == 2
    table_stakes = shortfall == 1
    eliminate = np.int64(shortfall == 0)
    at_g = n * L if cuts else 0  # (cuts: the declarations themselves, no look-up)
    for s in range(n):  # antes (engine.deal); where each declaration is in its table
        at_p = (_W_ROW + seat_policy[s]) * L
        at_s = (i * n + s) * L
        at_st = s * L
        for lane in range(L):
            x = stv[np.uint64(at_st + lane)]
            snapv[np.uint64(at_st + lane)] = x
            on = (v[_W_DUE * L + lane] >> s) & 1
            v[_W_FIX * L + lane] |= on & np.int64(x < ante) & (full ^ 1)
            x -= ante & -on
            stv[np.uint64(at_st + lane)] = x
            v[_W_BROKE * L + lane] |= (on & np.int64(x <= 0)) << s
            row = v[np.uint64(at_p + lane)]  # (with ``cuts``: the row's cut-off rank)
            hand = np.int64(ranks[np.uint64(at_s + lane)])
            gat[np.uint64(at_g + at_st + lane)] = np.int64(hand >= row) if cuts else row + hand
    if not cuts:
        for j in range(n * L):  # the look-ups (scalar code: a gather of bytes; apart, so
            gat[np.uint64(n * L + j)] = flat[np.uint64(gat[j])]  # the others vectorize)
    for s in range(n):  # declarations (pure policies: 0/1 by rank and row)
        at_s = (i * n + s) * L
        at_st = s * L
        at_cnt = 3 * s * L
        for lane in range(L):
            x = stv[np.uint64(at_st + lane)]
            hand = np.int64(ranks[np.uint64(at_s + lane)])
            dealt = (v[(_V_SNAP + _V_INPLAY) * L + lane] >> s) & 1 & v[_W_ACT * L + lane]
            call = gat[np.uint64(n * L + at_st + lane)] & dealt & (
                uncovered | np.int64(x >= v[_W_OWED * L + lane]))
            v[_W_INN * L + lane] |= call << s
            v[_W_BEST * L + lane] = max(v[_W_BEST * L + lane], hand if call else np.int64(-1))
            cnt[np.uint64(at_cnt + lane)] += dealt
            cnt[np.uint64(at_cnt + L + lane)] += call
    for s in range(n):  # the one winner takes the pot, every loser matches (engine.settle)
        at_s = (i * n + s) * L
        at_st = s * L
        at_cnt = 3 * s * L
        for lane in range(L):
            x = stv[np.uint64(at_st + lane)]
            hand = np.int64(ranks[np.uint64(at_s + lane)])
            ins = (v[_W_INN * L + lane] >> s) & 1
            wins = ins & np.int64(hand == v[_W_BEST * L + lane])
            v[_W_WON * L + lane] |= wins << s
            lose = ins & (wins ^ 1)
            owed = v[_W_OWED * L + lane]
            x += v[_W_POT * L + lane] & -wins
            short = np.int64(x < owed)
            pay = owed if debt else (min(owed, max(x, np.int64(0))) if table_stakes
                                     else owed & (short - 1))
            short &= lose & eliminate
            pay = pay & -lose
            x -= pay
            stv[np.uint64(at_st + lane)] = x
            v[_W_PAID * L + lane] += pay
            v[_V_ELIM * L + lane] |= short << s
            gone = ((ins | ((v[_W_BROKE * L + lane] >> s) & 1)) & np.int64(x <= 0)) | short
            v[_V_INPLAY * L + lane] &= ~(gone << s)
            cnt[np.uint64(at_cnt + 2 * L + lane)] += wins
    ended_rule = np.int64(end_on_uncontested)
    reante_rule = np.int64(reante)
    n_fix = np.int64(0)
    for lane in range(L):  # ties; the pot left, the game's state, the next dealer
        act = v[_W_ACT * L + lane]
        won = v[_W_WON * L + lane]
        fix = v[_W_FIX * L + lane] | (act & np.int64((won & (won - 1)) != 0))
        v[_W_FIX * L + lane] = fix
        n_fix += fix
        inn = v[_W_INN * L + lane]  # none, one or more in (no popcount: vector code)
        void = np.int64(inn == 0)
        sd = np.int64((inn & (inn - 1)) != 0)
        unc = (void | sd) ^ 1
        pot = v[_W_POT * L + lane]
        paid = v[_W_PAID * L + lane]
        new_pot = pot if void else (paid if sd else np.int64(0))
        if reserve_cap:
            excess = max(new_pot - cap, np.int64(0)) & -sd
            v[_V_RESERVE * L + lane] += excess
            new_pot -= excess
        fl = v[(_V_SNAP + _V_FLAGS) * L + lane]
        matched = ((fl >> 2) & 1) & (v[_W_NEW * L + lane] ^ 1)
        ended = ended_rule & unc & matched
        matched = (matched | (sd & np.int64(paid > 0))) & np.int64(new_pot > 0)
        inplay = v[_V_INPLAY * L + lane]
        d = v[(_V_SNAP + _V_DEALER) * L + lane]
        after = inplay & ~((2 << d) - 1)  # the next seat in play after the dealer, else the
        first = _tz(after | (inplay << 32) | _TOP)  # first one (one cttz; n < 32 seats)
        moved = first if first < 32 else (first - 32 if first < 63 else d)
        d = d if void & ((inplay >> d) & 1) else moved
        over = np.int64((inplay & (inplay - 1)) == 0) | ended
        flags = over | ((reante_rule & void) << 1) | (matched << 2)
        v[_V_POT * L + lane] = new_pot if act else pot
        v[_V_DEALER * L + lane] = d if act else v[(_V_SNAP + _V_DEALER) * L + lane]
        v[_V_FLAGS * L + lane] = flags if act else v[_V_FLAGS * L + lane]
        v[_V_PLAYED * L + lane] += act
        ok = act & (fix ^ 1)
        v[_C_VOID * L + lane] += ok & void
        v[_C_UNC * L + lane] += ok & unc
        v[_C_GAMES * L + lane] += ok & v[_W_NEW * L + lane]
        v[_C_POT_SUM * L + lane] += pot & -ok
        v[_C_MAX_POT * L + lane] = max(v[_C_MAX_POT * L + lane], pot & -ok)
    return n_fix


@numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
def run(first_table: Any, n_tables: Any, rounds: Any, buy: Any, dealer: Any,
        ante: Any, cap: Any, match_cap: Any, reserve_cap: Any, shortfall: Any,
        ante_every_round: Any, reante: Any, first_left: Any, require_cover: Any,
        end_on_uncontested: Any, end_share: Any,
        seat_policy: Any, decide: Any, probs: Any, mixed: Any, n_ranks: Any, edges: Any,
        n_edges: Any, given: Any, ranks_given: Any, k: Any, code_to_rank: Any,
        comb_rank: Any, keys: Any, vector: Any, cuts: Any, cut_of: Any,
        record: Any, out_hands: Any,
        out_stacks: Any, out_pot: Any, out_reserve: Any, out_rounds: Any,
        out_over: Any, out_elim: Any, out_dealt: Any, out_ins: Any, out_wins: Any,
        out_stats: Any) -> None:
    """Play ``n_tables`` sessions of at most ``rounds`` rounds, a block of ``_LANES``
    tables at a time.

    The deals do not depend on the play, so a block's next ``_AHEAD`` rounds are dealt
    first, every table at once (:func:`_deal_block`); then each table of the block plays
    those rounds (its state kept in per-table arrays between the blocks of rounds). Seats
    are bits of small integers (in play, in, winners, eliminated, the ante left broke), so
    that a round touches only the seats it concerns: the seats in play for the
    declarations, only those in for the settlement; the per-seat counts (dealt, in, won)
    are counted per mask and summed per seat at the end.

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
    # the block's deals and scratch (_deal_block)
    ranks = np.zeros(_AHEAD * n * _LANES, np.uint16)  # [round, seat, lane]
    codes = np.zeros((_AHEAD, n * k if record else 1, _LANES), np.uint8)
    rs = np.zeros(_LANES, np.uint64)
    used = np.zeros(_LANES, np.uint64)
    dig = np.zeros((3, _LANES), np.uint64)
    bad = np.zeros(_LANES, np.uint64)
    idx = np.zeros(_LANES, np.uint32)
    # each table's state between blocks of rounds
    # (views of the vector rounds' one array ``v``, see _vector_round)
    L = _LANES
    v = np.zeros(_V_ST * L, np.int64)
    stv = np.zeros(n * L, np.int64)  # stacks [seat, lane], their snapshot, per-seat counts
    snapv = np.zeros(n * L, np.int64)
    cnt = np.zeros(3 * n * L, np.int64)  # [seat, dealt|in|won, lane]
    gat = np.zeros(2 * n * L, np.int64)  # the declarations' look-ups: where, what
    st_all = stv.reshape((n, L))
    pot_all = v[_V_POT * L:(_V_POT + 1) * L]
    reserve_all = v[_V_RESERVE * L:(_V_RESERVE + 1) * L]
    dealer_all = v[_V_DEALER * L:(_V_DEALER + 1) * L]
    inplay_all = v[_V_INPLAY * L:(_V_INPLAY + 1) * L]
    elim_all = v[_V_ELIM * L:(_V_ELIM + 1) * L]
    played_all = v[_V_PLAYED * L:(_V_PLAYED + 1) * L]
    flags_all = v[_V_FLAGS * L:(_V_FLAGS + 1) * L]  # bit 0 over, 1 re-ante due, 2 matched
    y_all = np.zeros(_LANES, np.uint64)
    vector = vector and mixed_seats == 0  # the vector rounds: pure policies only
    for p in range(n_pol):  # each policy's row start (pot-dependent ones: every round)
        for lane in range(L):
            v[(_W_ROW + p) * L + lane] = p * width
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
    # every row of the pure policies a cut-off (its 1s above its 0s: in for the ranks from
    # the row's cut on): the vector rounds compare the rank with the cut instead of
    # looking the byte up (a scalar loop); pot_cut[p, pot]: the cut of pot_row[p, pot]
    # (``cuts``, ``cut_of[row start // n_ranks]``: worked out by the caller, once per policy)
    cuts = cuts and vector
    pot_cut = np.zeros((n_pol, table_top if cuts else 1), np.int64)
    if cuts:
        for p in range(n_pol):
            for pot in range(table_top if bucketed else 0):
                pot_cut[p, pot] = cut_of[pot_row[p, pot] // n_ranks]
            for lane in range(L):
                v[(_W_ROW + p) * L + lane] = cut_of[p * width // n_ranks]
    # one pure pot-dependent policy for every seat: its row start, shared by the seats
    one_pure = bucketed and n_pol == 1 and not mixed[0]
    shared_at = np.uint64(0)
    start_inplay = 0
    for s in range(n):
        start_inplay |= int(buy[s] > 0) << s
    n_void = n_unc = games = pot_sum = max_pot = total_rounds = 0
    for t0 in range(0, n_tables, _LANES):
        lanes = min(_LANES, n_tables - t0)
        for lane in range(_LANES):
            rs[lane] = _start(keys, first_table + t0 + lane)
            y_all[lane] = _start_decisions(keys, first_table + t0 + lane)
            for s in range(n):
                st_all[s, lane] = buy[s]
            pot_all[lane] = 0
            reserve_all[lane] = 0
            dealer_all[lane] = dealer
            inplay_all[lane] = start_inplay
            elim_all[lane] = 0
            played_all[lane] = 0
            flags_all[lane] = np.int64(lane >= lanes)  # (past the last table: over)
        live = lanes
        for first in range(0, rounds, _AHEAD):
            if live == 0:
                break
            rounds_now = min(_AHEAD, rounds - first)
            if given:
                for i in range(rounds_now):
                    for s in range(n):
                        for lane in range(lanes):
                            ranks[(i * n + s) * _LANES + lane] = ranks_given[first + i,
                                                                             t0 + lane, s]
            else:
                _deal_block(rounds_now, n, k, rs, used, dig, bad, idx, ranks, codes,
                            record, comb_rank, code_to_rank)
            i_next = 0
            while True:  # vector rounds (the rare tables in scalar code), or scalar only
                if vector:
                    if i_next == rounds_now:
                        break
                    n_fix = _vector_round(
                        i_next, n, ranks, v, stv, snapv, cnt, gat, ante, cap, match_cap,
                        reserve_cap, shortfall, ante_every_round, reante, require_cover,
                        end_on_uncontested, flat, seat_policy, n_pol, width, bucketed,
                        pot_cut.reshape(-1) if cuts else pot_row.reshape(-1), table_top,
                        cuts)
                    if record:
                        for lane in range(lanes):
                            if v[_W_ACT * L + lane]:
                                for s in range(n):
                                    if (v[(_V_SNAP + _V_INPLAY) * L + lane] >> s) & 1:
                                        for c in range(k):
                                            out_hands[first + i_next, t0 + lane, s, c] = (
                                                codes[i_next, s * k + c, lane])
                    i_from = i_next
                    i_to = i_next + 1
                    i_next += 1
                    if n_fix == 0:
                        continue
                else:
                    i_from = 0
                    i_to = rounds_now
                for lane in range(lanes):
                    if vector:  # only the tables left to the scalar round: their state back
                        if not v[_W_FIX * L + lane]:
                            continue
                        for s in range(n):  # (and its per-seat counts taken back)
                            st_all[s, lane] = snapv[s * L + lane]
                            at_c = 3 * s * L + lane
                            cnt[at_c] -= (v[(_V_SNAP + _V_INPLAY) * L + lane] >> s) & 1
                            cnt[at_c + L] -= (v[_W_INN * L + lane] >> s) & 1
                            cnt[at_c + 2 * L] -= (v[_W_WON * L + lane] >> s) & 1
                        for row in range(7):
                            v[row * L + lane] = v[(_V_SNAP + row) * L + lane]
                    flags = flags_all[lane]
                    if flags & 1:
                        continue
                    t = t0 + lane
                    for s in range(n):
                        st[s] = st_all[s, lane]
                    pot = pot_all[lane]
                    reserve = reserve_all[lane]
                    dealer_seat = dealer_all[lane]
                    inplay: Any = inplay_all[lane]  # bit s: seat s can be dealt in
                    elim = elim_all[lane]
                    played = played_all[lane]
                    y = y_all[lane]
                    reante_due = (flags >> 1) & 1 != 0
                    game_matched: Any = (flags >> 2) & 1 != 0
                    over = False
                    count = _popcount(inplay)
                    for i in range(i_from, i_to):
                        step = first + i
                        at_rank = i * n * _LANES + lane  # this round's ranks: + s * _LANES
                        if count < 2:
                            over = True
                            break
                        # antes (engine.deal): new game, ante_every_round, re-ante after a void
                        new_game = pot == 0
                        broke: Any = 0  # the ante left without chips: out unless won (rare)
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
                        # declare: pure policies by their table, then mixed ones seat by seat
                        owed = min(pot, cap) if match_cap else pot
                        inn: Any = 0
                        best: Any = -1
                        todo = inplay & ~mixed_seats  # (a scalar loop: for 2 to 10 seats,
                        while todo:                    # faster than vector code)
                            s = _tz(todo)
                            todo &= todo - 1
                            hand = ranks[at_rank + s * L]  # uint16: an index without wraparound
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
                            r = np.int64(ranks[at_rank + s * _LANES])
                            at = np.int64(seat_at[s]) - seat_policy[s] * width  # row in probs
                            call = np.int64(u < probs[seat_policy[s], at + r])
                            if require_cover:
                                call &= np.int64(st[s] >= owed)
                            inn |= call << s
                            best = max(best, r if call else -1)
                        if record:
                            for s in range(n):
                                if (inplay >> s) & 1:
                                    for c in range(k):
                                        out_hands[step, t, s, c] = codes[i, s * k + c, lane]
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
                                won |= np.int64(ranks[at_rank + s * _LANES] == best) << s
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
                            if first_left and rem > 0:  # odd chips: first winner left of dealer
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
                        # out of play: the seats in that lost their last chip (above) and those
                        # the ante left broke that did not win (rare)
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
                        # next dealer: the same after a void round if still in play, else the
                        # next seat clockwise still in play (engine._next_dealer)
                        if not (void and (inplay >> dealer_seat) & 1):
                            after = inplay & ~((2 << dealer_seat) - 1)
                            if after:
                                dealer_seat = _tz(after)
                            elif inplay:
                                dealer_seat = _tz(inplay)
                        if count < 2 or ended_unc:
                            over = True
                            break
                    for s in range(n):
                        st_all[s, lane] = st[s]
                    pot_all[lane] = pot
                    reserve_all[lane] = reserve
                    dealer_all[lane] = dealer_seat
                    inplay_all[lane] = inplay
                    elim_all[lane] = elim
                    played_all[lane] = played
                    y_all[lane] = y
                    flags_all[lane] = (np.int64(over) | (np.int64(reante_due) << 1)
                                       | (np.int64(game_matched) << 2))
                    live -= 0 if vector else over
                if not vector:
                    break
            if vector:
                live = 0
                for lane in range(lanes):
                    live += 1 - (flags_all[lane] & 1)
        for lane in range(lanes):
            t = t0 + lane
            pot = pot_all[lane]
            reserve = reserve_all[lane]
            elim = elim_all[lane]
            dealer_seat = dealer_all[lane]
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
                        st_all[s, lane] += base + (1 if extra > 0 else 0)
                        extra -= 1
                pot = 0
                reserve = 0
            for s in range(n):
                out_stacks[t, s] = st_all[s, lane]
                out_elim[t, s] = (elim >> s) & 1
            out_pot[t] = pot
            out_reserve[t] = reserve
            out_rounds[t] = played_all[lane]
            out_over[t] = flags_all[lane] & 1
            total_rounds += played_all[lane]
    for lane in range(_LANES):  # the vector rounds' counts
        for s in range(n):
            at_c = 3 * s * L + lane
            out_dealt[s] += cnt[at_c]
            out_ins[s] += cnt[at_c + L]
            out_wins[s] += cnt[at_c + 2 * L]
        n_void += v[_C_VOID * L + lane]
        n_unc += v[_C_UNC * L + lane]
        games += v[_C_GAMES * L + lane]
        pot_sum += v[_C_POT_SUM * L + lane]
        max_pot = max(max_pot, v[_C_MAX_POT * L + lane])
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
