"""Issue 12 review: every number the strategy commands print says how it was obtained, and
out-of-range inputs give one ``error:`` line (exit 2) instead of a traceback or a hang."""

from __future__ import annotations

import json

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
    assert "certified per-hand equilibrium (exact)" in text
    assert "value +0.4364 exact" in text
    assert "exploitability 0 exact" in text
    assert "exploitability 5.6e-05 exact" in text
    # the threshold model's +0.4404 is labelled as the approximation it is
    assert "threshold model, opponents independent: approximate: in rate 0.309; value +0.4404" \
        in text


def test_solve_3_cards_5_players_reports_the_sampled_figure_with_its_error() -> None:
    result = guts("solve", "--cards", "3", "--players", "5")
    text = " ".join(result.stdout.split())
    assert "certified per-hand equilibrium (sampled)" in text
    assert "exploitability lower-bound estimate 0.00018 ± 0.0001" in text
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
    assert Rules(ante=MAX_ANTE).ante == 10**9
    with pytest.raises(RulesError, match="ante: must be at most 1000000000"):
        rules_from_mapping({"ante": MAX_ANTE + 1})
    hand = parse_cards("As Kd")
    assert odds(hand, players=3, pot=MAX_POT).ev  # the largest pot still has an EV
    with pytest.raises(OddsError, match=r"pot must be 1\.\.1000000000000 chips"):
        odds(hand, players=3, pot=MAX_POT + 1)


def test_solve_table_labels_the_bisection_figures() -> None:
    from gutskit.cli.strategy import _TABLE_FOOTER

    assert "approximate" in _TABLE_FOOTER and "exact heads-up" in _TABLE_FOOTER
