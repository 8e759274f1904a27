"""Issue 12 review: every number the strategy commands print says how it was obtained, and
out-of-range inputs give one ``error:`` line (exit 2) instead of a traceback or a hang."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import assert_user_error, guts

from gutskit.core.cards import parse_cards
from gutskit.core.rules import MAX_ANTE, Rules, RulesError, rules_from_mapping
from gutskit.strategy.odds import MAX_POT, OddsError, odds

HUGE = "9" * 400


def test_solve_prints_the_certified_figures_of_2_cards_3_players() -> None:
    result = guts("solve", "--cards", "2", "--players", "3")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    # docs/strategy.md's certified table: +0.4364 exact, exploitability 0 exact; the
    # threshold strategy's own exploitability under exact card removal 5.6e-05.
    assert "certified per-hand equilibrium" in text
    assert "value +0.4364 exact" in text
    assert "exploitability 0 exact" in text
    assert "exploitability 5.6e-05 exact" in text
    # the threshold model's +0.4404 is labelled as the approximation it is
    assert ("threshold model, approximate (the opponents' hands treated as independent): "
            "in rate 0.309; value +0.4404") in text
    # each figure says what it is (a fresh user's questions: "in rate"? "top"?)
    assert "in rate (share of hands that go in) 0.3" in text
    assert "that is the strongest 32.0" not in text  # (the 2-card cell: 1,326 hands)
    assert " of the 1,326 2-card hands (continuous Guts, hand strengths uniform on [0, 1]:" \
        in text


def test_solve_3_cards_5_players_reports_the_sampled_figure_with_its_error() -> None:
    result = guts("solve", "--cards", "3", "--players", "5")
    text = " ".join(result.stdout.split())
    assert "per-hand equilibrium, sampled (an estimate, not certified)" in text
    assert "exploitability lower-bound estimate 0.00018 ± 0.0001" in text
    assert ("that is the strongest 15.73% of the 22,100 3-card hands (continuous Guts, hand "
            "strengths uniform on [0, 1]: the strongest 15.91%)") in text
    assert "certified per-hand" not in text  # a sampled cell is an estimate
    assert "the best deviation wins at least that" in text
    assert "approximate" in text and "exploitability 0.0465" in text


def test_solve_heads_up_says_exact_and_json_carries_the_certificate() -> None:
    text = " ".join(guts("solve", "--cards", "2", "--players", "2").stdout.split())
    assert "value +0.5130 exact" in text
    assert "threshold model, exact card removal" in text
    data = json.loads(guts("solve", "--cards", "2", "--players", "3", "--json").stdout)
    assert data["figures"] == "threshold model, opponents independent: approximate"
    assert data["certified"]["certified"] == "exact"
    assert data["certified"]["value"] == 0.4364
    assert data["certified"]["value_standard_error"] is None
    assert data["certified"]["threshold_exploitability"] == pytest.approx(5.6e-05, abs=1e-6)


def test_solve_at_another_pot_has_no_certified_figure() -> None:
    data = json.loads(guts("solve", "--cards", "2", "--players", "3", "--pot", "9",
                           "--json").stdout)
    assert data["certified"] is None


@pytest.mark.parametrize("args", [
    ("odds", "As Kd", "--players", "3", "--pot", "999999999999999999999999999"),
    ("odds", "As Kd", "--pot", HUGE),
    ("advise", "As Kd", "--pot", HUGE),
    ("solve", "--pot", HUGE),
    ("solve", "--rule", f"ante={HUGE}"),
    ("tournament", "--rule", f"ante={HUGE}"),
    ("tournament", "--rounds", "99999999999999999999"),
    ("tournament", "--chips", "99999999999999999999999999"),
    ("tournament", "--sessions", "99999999999999999999"),
    ("sim", "--rounds", "99999999999999999999"),
])
def test_out_of_range_numbers_are_one_line_errors(args: tuple[str, ...]) -> None:
    assert_user_error(guts(*args))


def test_ante_and_pot_bounds_in_the_core() -> None:
    assert Rules(ante=MAX_ANTE).ante == 1_000_000
    with pytest.raises(RulesError, match=r"^ante: must be at most 1000000 \(got 1000001\)$"):
        rules_from_mapping({"ante": MAX_ANTE + 1})
    hand = parse_cards("As Kd")
    assert odds(hand, players=3, pot=MAX_POT).ev  # the largest pot still has an EV
    with pytest.raises(OddsError, match=r"pot must be 1\.\.1000000000000 chips"):
        odds(hand, players=3, pot=MAX_POT + 1)


def test_solve_table_labels_the_bisection_figures() -> None:
    from gutskit.cli.strategy import _TABLE_FOOTER

    assert "approximate" in _TABLE_FOOTER and "exact heads-up" in _TABLE_FOOTER


def test_solve_export_says_a_sampled_exploitability_is_a_lower_bound_estimate(
        tmp_path: Path) -> None:
    out = tmp_path / "cell.json"
    result = guts("solve", "--cards", "3", "--players", "5", "--export", str(out))
    assert result.exit_code == 0, result.stderr
    assert " ".join(result.stdout.split()) == (
        f"22100 hands written to {out}: 3 cards, 5 players, recursive model, in rate (share "
        "of hands that go in) 0.175710, exploitability lower-bound estimate 0.000183 ± 0.0001 "
        "chips per round; per-hand equilibrium, sampled (an estimate, not certified)")


def test_advise_explains_its_two_figures_and_does_not_call_a_sampled_cell_certified() -> None:
    text = " ".join(guts("advise", "Qs Qh 7d", "--players", "5", "--pot", "5").stdout.split())
    assert "chips over the game, your share of the pots a match builds counted;" in text
    assert "counting this round only)" in text and "one-round view" not in text
    assert ("equilibrium: per-hand equilibrium, sampled (an estimate, not certified) -> "
            "in") in text


def test_odds_equilibrium_is_the_stored_per_hand_cell_and_says_so() -> None:
    """Audit: ``guts odds --strategy equilibrium`` used the threshold solver's strategy; it
    plays the stored per-hand cell now (the one EquilibriumBot and the coach play)."""
    from gutskit.strategy.certify import stored_strategy
    from gutskit.strategy.solver import equilibrium

    data = json.loads(guts("odds", "Qs Qh", "--players", "3", "--json").stdout)
    assert data["strategy"] == "certified per-hand equilibrium"
    rules = Rules(cards_per_hand=2)
    cell = stored_strategy(2, 3, "recursive", rules, sampled=True)
    assert cell is not None and cell.certified == "exact"
    # nobody else in: both opponents out, each with the stored cell's in-probabilities
    nobody = data["opponents_in"][0]["probability"]
    assert nobody == pytest.approx(0.4646170147, abs=1e-9)
    threshold = odds(parse_cards("Qs Qh"), players=3, rules=rules,
                     strategy=equilibrium(cards_per_hand=2, players=3, rules=rules).strategy())
    assert abs(threshold.in_count[0] - nobody) > 1e-4  # not the threshold solver's
    text = " ".join(guts("odds", "Qs Qh 7d", "--players", "5").stdout.split())
    assert ("opponents play: per-hand equilibrium, sampled (an estimate, not "
            "certified)") in text
