"""``guts play --bots`` / ``--coach`` and the coach (gutskit.strategy.coach)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from gutskit.cli.app import app
from gutskit.core.cards import parse_cards
from gutskit.core.rules import Rules
from gutskit.strategy.certify import load_strategy
from gutskit.strategy.coach import advise_hand
from gutskit.strategy.strategies import (
    BOT_KINDS,
    EquilibriumBot,
    UnknownBotError,
    parse_bot_kinds,
    play_table,
)

RUNNER = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": "200",
                        "GUTSKIT_DB": None})
TWO = Rules(cards_per_hand=2)


def guts(*args: str, input: str | None = None) -> Result:
    return RUNNER.invoke(app, list(args), input=input)


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("hand", ["As Ah", "Js 4d", "7h 2c", "Kd Qc", "Th 7s"])
def test_coach_ev_is_the_certified_solvers_exact_gain(players: int, hand: str) -> None:
    # Two independent exact computations: the coach's EV (joint card removal in
    # strategy.joint, against the certified per-hand strategy) and strategy.certify's own
    # per-hand gains at the opening pot.
    cell = load_strategy(2, players, "recursive")
    cards = parse_cards(hand)
    a = advise_hand(cards, players=players, pot=players, rules=TWO)
    assert a.exact and a.ev_se is None and a.ev is not None
    assert a.ev == pytest.approx(cell.ev_in_minus_out(cards), abs=1e-12)
    assert a.in_probability == cell.in_probability(cards)
    assert a.source == "certified per-hand equilibrium"


def test_coach_beyond_exact_reach_gives_a_standard_error() -> None:
    a = advise_hand(parse_cards("Qs Qh 7d"), players=5, pot=5, rules=Rules(), deals=5_000)
    assert a.in_probability == 1.0  # a pair of queens is above the 5-player threshold
    assert a.ev is not None and a.ev > 0 and a.ev_se is not None and 0 < a.ev_se < 0.2
    assert "s.e." in a.line() and a.source == (
        "per-hand equilibrium, sampled (an estimate, not certified)")


def test_coach_without_a_model_says_why() -> None:
    a = advise_hand(parse_cards("Qs Qh 7d"), players=3, pot=3,
                    rules=Rules(community_card=True))
    assert a.in_probability is None
    assert a.line() == "Coach: no advice here (community_card is not modelled by the solver)."


def test_play_with_coach_through_a_pipe(tmp_path: Path) -> None:
    # Seed 3, 2-card heads-up against one equilibrium bot: the first hand is T♥ 7♠, below
    # the heads-up threshold (jack-seven high) and not one of the certified bluffs, so the
    # equilibrium stays out; going in costs 0.022 chips at the opening pot (certify's
    # exact gain, checked above). The second hand Q♣ J♥ goes in.
    result = guts("play", "-n", "2", "--preset", "german-2card", "--seed", "3", "--coach",
                  "--bots", "equilibrium", "--db", str(tmp_path / "g.db"), input="in\nout\nquit\n")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Opponents: Ava (equilibrium)." in out
    cell = load_strategy(2, 2, "recursive")
    gain = cell.ev_in_minus_out(parse_cards("Th 7s"))
    assert f"{gain:+.3f}" == "-0.022"
    assert ("Coach: the equilibrium stays out with T♥ 7♠ (Ten-seven high; in-probability "
            "0: never in with this hand); in minus out -0.022 chips at pot 2 (exact); "
            "certified per-hand equilibrium.") in out
    assert ("Coach: the equilibrium goes in with J♥ Q♣ (Queen-jack high; in-probability 1: "
            "always in with this hand); ") in out
    # the coach speaks after your declaration and before the reveal
    assert out.index("In or out?") < out.index("Coach:") < out.index("Reveal:")


def test_play_bots_option(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    result = guts("play", "-n", "4", "--seed", "1", "--bots", "equilibrium,loose,cautious",
                  "--db", db, input="quit\n")
    assert result.exit_code == 0, result.stderr
    assert "Opponents: Ava (equilibrium), Bruno (loose), Chen (cautious)." in result.stdout
    bad = guts("play", "--bots", "equilibrium,bluffer", "--db", db, input="quit\n")
    assert bad.exit_code == 2
    assert bad.stderr.strip() == ("error: unknown bot 'bluffer' (known: "
                                  + ", ".join(BOT_KINDS) + ")")
    many = guts("play", "-n", "2", "--bots", "loose,cautious", "--db", db)
    assert many.exit_code == 2
    assert "2 bots listed (loose, cautious) but the table has 1 seat for bots" in many.stderr


def test_default_table_has_an_equilibrium_bot_and_mixed_styles() -> None:
    for n in range(1, 10):
        bots = play_table(n)
        assert isinstance(bots[0], EquilibriumBot)
        assert bots[0].name == "Ava (equilibrium)"
    kinds = [b.name.partition(" (")[2].rstrip(")") for b in play_table(4)]
    assert kinds == ["equilibrium", "loose", "rule-of-thumb", "exploitative"]
    assert [b.name for b in play_table(3, ("random",))] == [
        "Ava (random)", "Bruno (random)", "Chen (random)"]
    with pytest.raises(UnknownBotError, match="no bot kind"):
        parse_bot_kinds("equilibrium,,loose")


def test_a_coach_line_says_exact_or_a_standard_error_never_both() -> None:
    """Fresh user, session 7: a line said "(exact)" of the expected value and "figures are
    estimates ± s.e." of the sampled cell it was computed against. The expected value
    against a cell is exact (joint card removal, 4 players) or sampled (± its standard
    error, 5 players); the cell's words say only what the cell is."""
    hand = parse_cards("Qd 7s 2h")
    exact = advise_hand(hand, players=4, pot=4, rules=Rules())
    assert exact.exact and exact.ev_se is None
    assert exact.line() == (
        "Coach: the equilibrium stays out with Q♦ 7♠ 2♥ (Queen-seven-two high; "
        "in-probability 0: never in with this hand); in minus out -0.157 chips at pot 4 "
        "(exact); per-hand equilibrium, sampled (an estimate, not certified).")
    sampled = advise_hand(hand, players=5, pot=5, rules=Rules(), deals=2000)
    assert not sampled.exact and sampled.ev_se is not None
    line = sampled.line()
    assert f"at pot 5 (± {sampled.ev_se:.3f} s.e.); per-hand equilibrium, sampled" in line
    assert "exact" not in line
