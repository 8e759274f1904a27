"""The vectorized simulator against the engine: identical deals give identical stacks, and
independent random play agrees statistically."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from gutskit.core.engine import Phase, deal, deal_from_rng, declare_all, end_session, new_session
from gutskit.core.events import Declaration
from gutskit.core.rules import Rules
from gutskit.core.views import joint_views
from gutskit.strategy.bots import RandomBot, RuleOfThumbBot
from gutskit.strategy.fast import (
    FastPolicy,
    FastResult,
    UnsupportedRulesError,
    check_supported,
    simulate,
    simulate_deals,
)
from gutskit.strategy.strategies import ThresholdBot, fast_policy
from gutskit.strategy.tables import hand_table


def _deals(rounds: int, tables: int, seats: int, k: int, seed: int) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(seed)
    keys = rng.random((rounds, tables, 52))
    deck = np.argsort(keys, axis=2)[..., : seats * k]
    return deck.reshape(rounds, tables, seats, k)


def _engine_stacks(rules: Rules, bots: list[Any], hands: np.ndarray[Any, Any],
                   stacks: list[int], seed: int, strict: bool = False
                   ) -> tuple[list[list[int]], list[int]]:
    """Final stacks and rounds played of engine sessions on ``hands`` (the hands of seats
    not in play are ignored; ``strict``: they must be ``-1``, and so must every hand after
    the session ended, as the compiled kernel records them)."""
    rng = random.Random(seed)
    finals, played = [], []
    for t in range(hands.shape[1]):
        state = new_session([f"p{i}" for i in range(len(bots))], stacks, rules=rules)
        rounds = 0
        for r in range(hands.shape[0]):
            if state.phase is Phase.OVER or len(state.seats_in_play) < 2:
                assert not strict or bool(np.all(hands[r:, t] < 0))
                break
            if strict:
                dealt_in = [bool(hands[r, t, s, 0] >= 0) for s in range(len(bots))]
                assert dealt_in == [state.in_play(s) for s in range(len(bots))]
            deal_hands = tuple(tuple(int(c) for c in hands[r, t, s]) if state.in_play(s)
                               else None for s in range(len(bots)))
            state, _ = deal(state, deal_hands)
            calls = {s: bots[s].declare(v, rng) for s, v in joint_views(state).items()}
            state, _ = declare_all(state, calls)
            rounds += 1
        state, _ = end_session(state)
        finals.append(list(state.stacks))
        played.append(rounds)
    return finals, played


CASES = [
    (Rules(), [0.3, 0.5, 0.7, 0.9], 200),
    (Rules(cards_per_hand=2, all_out="carry", suit_tiebreak="none"), [0.2, 0.6, 0.6, 0.8, 0.4],
     100),
    (Rules(cards_per_hand=2, suit_tiebreak="none", odd_chip="first_left_of_dealer"),
     [0.1, 0.1, 0.1], 100),
    (Rules(pot_cap=12, pot_cap_mode="match"), [0.2, 0.4, 0.5], 60),
    (Rules(pot_cap=12, pot_cap_mode="reserve"), [0.2, 0.4, 0.5], 60),
    (Rules(shortfall="table_stakes", ante_every_round=True), [0.1, 0.5, 0.6, 0.7], 25),
    (Rules(shortfall="debt"), [0.1, 0.5, 0.6], 25),
    (Rules(require_cover=True, cards_per_hand=2), [0.0, 0.3, 0.5], 20),
    (Rules(end_on_uncontested=True), [0.3, 0.6, 0.8], 100),
    (Rules(), [0.05, 0.2, 0.5, 0.5, 0.6, 0.7, 0.7, 0.8], 30),
    (Rules(cards_per_hand=2, declaration="sequential", all_out="carry",
           suit_tiebreak="none"), [0.3, 0.5, 0.7], 40),
]


def _same(a: FastResult, b: FastResult) -> None:
    """Every field of two results is identical."""
    for name in ("stacks", "buy_ins", "pot", "reserve", "rounds_played", "over",
                 "eliminated", "dealt", "ins", "wins"):
        assert getattr(a, name).tolist() == getattr(b, name).tolist(), name
    assert (a.outcomes, a.pot_sum, a.max_pot, a.games) == (
        b.outcomes, b.pot_sum, b.max_pot, b.games)


@pytest.mark.parametrize(("rules", "thresholds", "chips"), CASES)
def test_same_deals_same_stacks(rules: Rules, thresholds: list[float], chips: int) -> None:
    """Engine, numpy path and compiled kernel on the same deals: the same stacks, and the
    two simulator kernels agree on every statistic."""
    n, k = len(thresholds), rules.cards_per_hand
    hands = _deals(40, 30, n, k, seed=len(thresholds) * 7 + chips)
    bots = [ThresholdBot(t) for t in thresholds]
    finals, played = _engine_stacks(rules, bots, hands, [chips] * n, seed=1)
    policies = [FastPolicy.threshold(t, rules.ranking) for t in thresholds]
    result = simulate_deals(rules, policies, hands, stacks=chips, kernel="numpy")
    assert result.stacks.tolist() == finals
    assert result.rounds_played.tolist() == played
    assert int(result.stacks.sum()) == chips * n * hands.shape[1]
    _same(simulate_deals(rules, policies, hands, stacks=chips, kernel="numba"), result)
    # without the end-of-session share, pot and reserve are left on the table
    _same(simulate_deals(rules, policies, hands, stacks=chips, kernel="numba",
                         end_share=False),
          simulate_deals(rules, policies, hands, stacks=chips, kernel="numpy",
                         end_share=False))


@pytest.mark.parametrize(("rules", "thresholds", "chips"), CASES)
def test_kernel_own_deals_replayed_through_engine(rules: Rules, thresholds: list[float],
                                                  chips: int) -> None:
    """The compiled kernel's own deals (its random stream, ``record_deals``) replayed
    through the engine: the same stacks and rounds at every table, cards dealt exactly to
    the seats the engine has in play, no card twice in a round."""
    n = len(thresholds)
    policies = [FastPolicy.threshold(t, rules.ranking) for t in thresholds]
    result = simulate(rules, policies, tables=30, rounds=40, stacks=chips, seed=chips + n,
                      kernel="numba", record_deals=True)
    hands = result.hands
    assert hands is not None and hands.shape == (40, 30, n, rules.cards_per_hand)
    finals, played = _engine_stacks(rules, [ThresholdBot(t) for t in thresholds], hands,
                                    [chips] * n, seed=1, strict=True)
    assert result.stacks.tolist() == finals
    assert result.rounds_played.tolist() == played
    for r in range(40):
        for t in range(30):
            cards = hands[r, t][hands[r, t] >= 0]
            assert len(set(cards.tolist())) == cards.size
    # recording changes nothing
    _same(result, simulate(rules, policies, tables=30, rounds=40, stacks=chips,
                           seed=chips + n, kernel="numba"))


def test_kernel_own_deals_rule_of_thumb_replayed_through_engine() -> None:
    """The same with the rule-of-thumb bots' pot-dependent tables (several seats sharing
    one policy, a binary search of its pot edges every round)."""
    rules = Rules()
    plain, cautious, loose = (fast_policy(RuleOfThumbBot(style=style), rules, 5)
                           for style in (0.0, 0.04, -0.08))
    assert plain is not None and cautious is not None and loose is not None
    policies = [plain, plain, cautious, plain, loose]
    bots = [RuleOfThumbBot(), RuleOfThumbBot(), RuleOfThumbBot(style=0.04), RuleOfThumbBot(),
            RuleOfThumbBot(style=-0.08)]
    result = simulate(rules, policies, tables=20, rounds=60, stacks=400, seed=2,
                      kernel="numba", record_deals=True)
    assert result.hands is not None
    finals, played = _engine_stacks(rules, bots, result.hands, [400] * 5, seed=1,
                                    strict=True)
    assert result.stacks.tolist() == finals
    assert result.rounds_played.tolist() == played
    with pytest.raises(ValueError, match="record_deals"):
        simulate(rules, policies, tables=1, rounds=1, kernel="numpy", record_deals=True)


def test_rule_of_thumb_policy_matches_bot_deal_by_deal() -> None:
    rules = Rules(shortfall="debt")
    bots = [RuleOfThumbBot(), RuleOfThumbBot(style=0.04), RuleOfThumbBot(style=-0.08),
            RuleOfThumbBot()]
    hands = _deals(60, 20, 4, 3, seed=5)
    finals, _ = _engine_stacks(rules, bots, hands, [10**6] * 4, seed=1)
    policies = [fast_policy(b, rules, 4) for b in bots]
    assert all(p is not None for p in policies)
    pols = [p for p in policies if p is not None]
    result = simulate_deals(rules, pols, hands, stacks=10**6, kernel="numpy")
    assert result.stacks.tolist() == finals
    _same(simulate_deals(rules, pols, hands, stacks=10**6, kernel="numba"), result)


def test_random_play_agrees_statistically() -> None:
    """Engine sessions with its own shuffles vs the simulator's deals: each measured mean
    must lie within 4 combined standard errors (sessions are independent draws)."""
    rules = Rules()
    bots: list[Any] = [ThresholdBot(0.6), RandomBot(0.3), ThresholdBot(0.8), RandomBot(0.1)]
    sessions, rounds = 300, 20
    rng = random.Random(11)
    eng: dict[str, list[float]] = {
        "in0": [], "in1": [], "pot": [], "net0": [], "net1": [], "showdown": []}
    for _ in range(sessions):
        state = new_session(["a", "b", "c", "d"], 10**6, rules=rules)
        ins = np.zeros(4)
        pots = 0
        sd = 0
        for _ in range(rounds):
            state, _ = deal_from_rng(state, rng)
            pots += state.pot
            calls = {s: bots[s].declare(v, rng) for s, v in joint_views(state).items()}
            ins += [calls[s] is Declaration.IN for s in range(4)]
            state, _ = declare_all(state, calls)
            sd += sum(1 for d in calls.values() if d is Declaration.IN) >= 2
        state, _ = end_session(state)
        eng["in0"].append(ins[0] / rounds)
        eng["in1"].append(ins[1] / rounds)
        eng["pot"].append(pots / rounds)
        eng["net0"].append((state.stacks[0] - 10**6) / rounds)
        eng["net1"].append((state.stacks[1] - 10**6) / rounds)
        eng["showdown"].append(sd / rounds)
    policies = [fast_policy(b, rules, 4) for b in bots]
    for kernel in ("numpy", "numba"):
        fast = simulate(rules, [p for p in policies if p is not None], tables=20_000,
                        rounds=rounds, stacks=10**6, seed=3, kernel=kernel)
        _agrees(rules, eng, fast, rounds, sessions)


def _agrees(rules: Rules, eng: dict[str, list[float]], fast: FastResult, rounds: int,
            sessions: int) -> None:
    per_table = rounds
    fast_vals = {
        "in0": (fast.in_rate[0], None), "in1": (fast.in_rate[1], None),
        "pot": (fast.mean_pot, None),
        "net0": (float(fast.net[:, 0].mean()) / per_table, fast.net[:, 0] / per_table),
        "net1": (float(fast.net[:, 1].mean()) / per_table, fast.net[:, 1] / per_table),
        "showdown": (fast.outcomes["showdown"] / fast.total_rounds, None),
    }
    for name, values in eng.items():
        e = np.array(values)
        se_e = e.std(ddof=1) / np.sqrt(len(e))
        f_mean, f_samples = fast_vals[name]
        se_f = 0.0 if f_samples is None else float(f_samples.std(ddof=1) / np.sqrt(len(
            f_samples)))
        tol = 4 * float(np.hypot(se_e, max(se_f, se_e / np.sqrt(20_000 / sessions))))
        assert abs(e.mean() - f_mean) < tol, (name, e.mean(), f_mean, tol)
    # and the in-rates are the known exact values: P(percentile >= t), p for random bots
    table = hand_table(rules.ranking)
    exact0 = float((table.percentile >= 0.6).mean())
    assert fast.in_rate[0] == pytest.approx(exact0, abs=0.005)
    assert fast.in_rate[1] == pytest.approx(0.3, abs=0.005)


def test_unsupported_rules_are_refused() -> None:
    with pytest.raises(UnsupportedRulesError, match="all_out = 'best_pays_antes'"):
        check_supported(Rules(all_out="best_pays_antes"))
    with pytest.raises(UnsupportedRulesError, match="hi_lo = True"):
        check_supported(Rules(hi_lo=True))
    with pytest.raises(UnsupportedRulesError, match="ghost_hand"):
        simulate(Rules(ghost_hand=True), [FastPolicy.constant(0.5, Rules().ranking)] * 2,
                 tables=1, rounds=1)
    check_supported(Rules(declaration="sequential", pot_cap=50))


def test_bad_arguments() -> None:
    rules = Rules()
    pol = FastPolicy.threshold(0.5, rules.ranking)
    with pytest.raises(ValueError, match="2 to 10 seats"):
        simulate(rules, [pol], tables=1, rounds=1)
    with pytest.raises(ValueError, match="ranks"):
        simulate(Rules(cards_per_hand=2), [pol, pol], tables=1, rounds=1)
    with pytest.raises(ValueError, match="pot edges"):
        FastPolicy(np.zeros((2, 5)))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        FastPolicy(np.full((1, 5), 2.0))
    with pytest.raises(ValueError, match="shape"):
        simulate_deals(rules, [pol, pol], np.zeros((2, 2, 2, 2), dtype=int))


def test_deals_are_disjoint_and_uniform() -> None:
    from gutskit.strategy.fast import _Dealer

    table = hand_table(Rules().ranking)
    dealer = _Dealer(table, np.random.Generator(np.random.SFC64(4)))
    combos = dealer.deal(20_000, 10)
    cards = table.cards[combos].astype(np.int64)  # (seats, tables, 3)
    per_table = np.sort(cards.transpose(1, 0, 2).reshape(20_000, 30), axis=1)
    assert np.all(np.diff(per_table, axis=1) > 0)  # 30 distinct cards at every table
    # the last seat's cards are uniform over the 52 cards: chi-square, 51 dof
    counts = np.bincount(cards[9].ravel(), minlength=52)
    expected = 20_000 * 3 / 52
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 90  # P(chi2_51 > 90) < 0.001


def test_kernel_tables_split_across_calls_play_the_same_deals() -> None:
    """Table t's deals depend only on (seed, first_table + t): one call of 12 tables equals
    calls of 5 and 7 tables (what the parallel layer relies on), and a seed repeats."""
    rules = Rules()
    pols = [FastPolicy.threshold(0.5, rules.ranking), FastPolicy.constant(0.4, rules.ranking),
            FastPolicy.threshold(0.7, rules.ranking)]
    whole = simulate(rules, pols, tables=12, rounds=30, stacks=50, seed=9, kernel="numba")
    head = simulate(rules, pols, tables=5, rounds=30, stacks=50, seed=9, kernel="numba")
    tail = simulate(rules, pols, tables=7, rounds=30, stacks=50, seed=9, kernel="numba",
                    first_table=5)
    assert whole.stacks.tolist() == head.stacks.tolist() + tail.stacks.tolist()
    assert whole.ins.tolist() == (head.ins + tail.ins).tolist()
    _same(whole, simulate(rules, pols, tables=12, rounds=30, stacks=50, seed=9,
                          kernel="numba"))
    assert whole.stacks.tolist() != simulate(rules, pols, tables=12, rounds=30, stacks=50,
                                             seed=10, kernel="numba").stacks.tolist()


def test_kernel_deals_are_disjoint_and_uniform() -> None:
    from gutskit.strategy.fast_kernel import deal_cards, table_keys

    cards = deal_cards(table_keys(4), 0, 20_000, 10, 3)  # ten hands of three cards
    assert np.all(np.diff(np.sort(cards, axis=1), axis=1) > 0)  # 30 distinct cards
    for position in (0, 1, 2, 29):  # first hand's cards and the last card: chi-square, 51 dof
        counts = np.bincount(cards[:, position], minlength=52)
        expected = 20_000 / 52
        assert float(((counts - expected) ** 2 / expected).sum()) < 90  # P < 0.001
    # one 32-bit draw deals a whole hand: its three cards are jointly uniform, e.g. the
    # first two (52 x 51 ordered pairs, chi-square with 2651 dof: mean 2651, sd 72.8)
    pairs = deal_cards(table_keys(5), 0, 200_000, 1, 3)
    counts = np.bincount(pairs[:, 0] * 52 + pairs[:, 1], minlength=52 * 52)
    cells = counts[np.arange(52 * 52) % 53 != 0]  # drop the impossible (c, c) cells
    assert cells.size == 52 * 51 and int(counts.sum() - cells.sum()) == 0
    expected = 200_000 / (52 * 51)
    assert float(((cells - expected) ** 2 / expected).sum()) < 2651 + 5 * 72.8
    two = deal_cards(table_keys(6), 0, 20_000, 26, 2)  # 2-card hands: the whole deck
    assert np.all(np.sort(two, axis=1) == np.arange(52))


@pytest.mark.parametrize(("k", "seats", "tables"), [(3, 5, 70), (3, 10, 130), (2, 4, 65)])
def test_kernel_block_deals_are_the_streams_definition(k: int, seats: int, tables: int) -> None:
    """The kernel deals a block of tables at a time (vector code, redraws of the cards
    already dealt in a loop of their own); its first round is card for card what the
    stream's plain definition (``deal_cards``, one table and one card at a time) deals,
    for a full block, a partial one and 10 seats (30 cards: many redraws)."""
    from gutskit.strategy.fast_kernel import deal_cards, table_keys

    rules = Rules(cards_per_hand=2, suit_tiebreak="none") if k == 2 else Rules()
    policies = [FastPolicy.threshold(0.5, rules.ranking)] * seats
    result = simulate(rules, policies, tables=tables, rounds=1, stacks=10, seed=8,
                      kernel="numba", record_deals=True, first_table=3)
    assert result.hands is not None
    expected = deal_cards(table_keys(8), 3, tables, seats, k)
    assert result.hands[0].reshape(tables, seats * k).tolist() == expected.tolist()


def test_unknown_kernel() -> None:
    rules = Rules()
    with pytest.raises(ValueError, match="'gpu'"):
        simulate(rules, [FastPolicy.constant(0.5, rules.ranking)] * 2, tables=1, rounds=1,
                 kernel="gpu")  # type: ignore[arg-type]


def test_policy_holds_read_only_copies() -> None:
    """A policy keeps its own read-only arrays, so what it works out once (whether it is
    pure, the kernel's 0/1 table) stays true when the caller changes the array it gave."""
    given = np.zeros((1, 4))
    given[0, 2:] = 1.0
    policy = FastPolicy(given)
    given[0, 0] = 0.5
    assert policy.deterministic
    assert policy.in_prob[0].tolist() == [0.0, 0.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="read-only"):
        policy.in_prob[0, 0] = 0.5


def test_combination_ranks_match_the_ranking() -> None:
    """The kernel's 3-card ranks by combination index (``lo + C(mid, 2) + C(hi, 3)``) are
    the ranking's own for every hand, in any order of its cards; made once per table."""
    from math import comb

    from gutskit.strategy.fast_kernel import comb_ranks

    code_to_rank = hand_table(Rules().ranking).code_to_rank
    by_comb = comb_ranks(code_to_rank)
    assert comb_ranks(code_to_rank) is by_comb
    assert by_comb.shape == (22_100,)
    for lo in range(52):
        for mid in range(lo + 1, 52):
            for hi in range(mid + 1, 52):
                index = lo + comb(mid, 2) + comb(hi, 3)
                assert by_comb[index] == code_to_rank[(hi * 52 + lo) * 52 + mid]


@pytest.mark.parametrize(("rules", "thresholds", "chips"), CASES)
def test_kernel_vector_rounds_match_scalar_rounds(rules: Rules, thresholds: list[float],
                                                  chips: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled kernel's vector rounds (a block of 64 tables at once; ties, short antes
    and pots above the row table fixed up by the scalar round) give exactly the results of
    its scalar rounds: 130 tables (two full blocks and a partial one), every rule case."""
    import gutskit.strategy.fast as fast

    n = len(thresholds)
    policies = [FastPolicy.threshold(t, rules.ranking) for t in thresholds]
    for end_share in (True, False):
        vector = simulate(rules, policies, tables=130, rounds=40, stacks=chips, seed=chips,
                          kernel="numba", end_share=end_share)
        monkeypatch.setattr(fast, "_VECTOR_ROUNDS", False)
        scalar = simulate(rules, policies, tables=130, rounds=40, stacks=chips, seed=chips,
                          kernel="numba", end_share=end_share)
        monkeypatch.setattr(fast, "_VECTOR_ROUNDS", True)
        _same(vector, scalar)
        assert int(vector.stacks.sum() + vector.pot.sum() + vector.reserve.sum()) == (
            130 * n * chips)


def test_kernel_vector_rounds_rule_of_thumb_and_mixed(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    """The same with pot-dependent tables (several seats sharing one, deep and shallow
    stacks: pots above the row table go to the scalar round) and, with a mixed strategy at
    the table, the scalar rounds only (the vector rounds play pure policies)."""
    import gutskit.strategy.fast as fast

    rules = Rules()
    plain, loose = (fast_policy(RuleOfThumbBot(style=style), rules, 5) for style in
                    (0.0, -0.08))
    assert plain is not None and loose is not None
    mixed = FastPolicy.constant(0.4, rules.ranking)
    for policies, stacks in (([plain, plain, loose, plain, loose], 400),
                             ([plain] * 5, 10**9), ([plain, mixed, loose], 100)):
        vector = simulate(rules, policies, tables=70, rounds=60, stacks=stacks, seed=3,
                          kernel="numba")
        monkeypatch.setattr(fast, "_VECTOR_ROUNDS", False)
        scalar = simulate(rules, policies, tables=70, rounds=60, stacks=stacks, seed=3,
                          kernel="numba")
        monkeypatch.setattr(fast, "_VECTOR_ROUNDS", True)
        _same(vector, scalar)


def test_kernel_vector_rounds_cut_offs_and_look_ups(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pure policies whose every row is a cut-off (in from some rank on) are declared in
    the vector rounds by comparing the rank with the row's cut; a row that is not (here in
    with the lowest tenth of the ranks too, a bluff) sends every table back to the look-up
    of each declaration. Both give exactly the scalar rounds' results, with one row and
    with pot-dependent rows (the pot after antes crosses the edge at 12 chips)."""
    import gutskit.strategy.fast as fast

    rules = Rules()
    pct = hand_table(rules.ranking).rank_percentile
    cut = (pct >= 0.7).astype(np.float64)
    bluff = ((pct >= 0.8) | (pct < 0.1)).astype(np.float64)
    never = np.zeros_like(cut)
    always = np.ones_like(cut)
    assert 0 < cut.sum() < cut.size and bluff[0] == 1 and bluff[-1] == 1
    sets = {
        "cut-offs, one row": [FastPolicy(cut[None, :]), FastPolicy(always[None, :]),
                              FastPolicy(never[None, :])],
        "cut-offs by pot": [FastPolicy(np.stack([cut, always]), np.array([12]))] * 4,
        "a bluff, one row": [FastPolicy(cut[None, :]), FastPolicy(bluff[None, :])] * 2,
        "a bluff by pot": [FastPolicy(np.stack([bluff, cut]), np.array([12])),
                           FastPolicy(cut[None, :]), FastPolicy(cut[None, :])],
    }
    for label, policies in sets.items():
        vector = simulate(rules, policies, tables=70, rounds=30, stacks=60, seed=5,
                          kernel="numba")
        monkeypatch.setattr(fast, "_VECTOR_ROUNDS", False)
        scalar = simulate(rules, policies, tables=70, rounds=30, stacks=60, seed=5,
                          kernel="numba")
        monkeypatch.setattr(fast, "_VECTOR_ROUNDS", True)
        _same(vector, scalar)
        assert vector.outcomes["showdown"] > 0, label
        assert int(vector.stacks.sum() + vector.pot.sum() + vector.reserve.sum()) == (
            70 * len(policies) * 60), label
