"""What a fresh user found in session 10 (task fixb10): an ante above the buy-in refused by
one core rule on every front end with the server's message, a player named twice in the
companion's declarations refused and asked again, and the all-out penalty's antes told as
the engine charged them."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli import assert_user_error, guts

from gutskit.core.rules import Rules, RulesError, check_buy_in

# --- 1. an ante above the buy-in: one rule in the core -----------------------------------------

def test_the_buy_in_rule_lives_in_the_core() -> None:
    check_buy_in(Rules(ante=100), 100)  # an ante of the whole buy-in may start
    with pytest.raises(RulesError) as refused:
        check_buy_in(Rules(ante=200), 100)
    assert str(refused.value) == "ante: an ante of 200 is more than the buy-in of 100"
    with pytest.raises(RulesError) as below:
        check_buy_in(Rules(min_buy_in=50), 20)
    assert str(below.value) == "min_buy_in: the buy-in of 20 is below the minimum buy-in of 50"


@pytest.mark.parametrize(("args", "message"), [
    (["play", "--rule", "ante=200"], "ante: an ante of 200 is more than the buy-in of 100"),
    (["sim", "--rule", "ante=200", "--rounds", "5"],
     "ante: an ante of 200 is more than the buy-in of 100"),
    (["companion", "-n", "A,B", "--chips", "5", "--rule", "ante=10"],
     "ante: an ante of 10 is more than the buy-in of 5"),
    (["tournament", "--chips", "5", "--rule", "ante=10", "--rounds", "5", "--sessions", "2"],
     "ante: an ante of 10 is more than the buy-in of 5"),
    (["play", "--rule", "min_buy_in=200"],
     "min_buy_in: the buy-in of 100 is below the minimum buy-in of 200"),
])
def test_every_command_with_chips_refuses_an_ante_above_the_buy_in(
        tmp_path: Path, args: list[str], message: str) -> None:
    db = ["--db", str(tmp_path / "g.db")] if args[0] in ("play", "companion") else []
    result = guts(*args, *db, input="q\n")
    assert assert_user_error(result) == f"error: {message}"
    assert not (tmp_path / "g.db").exists()  # refused before anything is saved


# --- 2. a player named twice in the companion's declarations -----------------------------------

def test_hi_lo_refuses_a_player_named_twice_and_asks_again(tmp_path: Path) -> None:
    lines = ["", "Ana=high Ben=low Ana=low", "none", "end"]
    result = guts("companion", "-n", "Ana,Ben,Cleo", "--chips", "30", "--preset", "hi-lo",
                  "--db", str(tmp_path / "g.db"), input="\n".join(lines) + "\n")
    out = " ".join(result.output.split())
    assert result.exit_code == 0, out
    assert "'Ana' is named twice: name each player once" in out
    after = out.split("'Ana' is named twice", 1)[1]
    assert "Who is in? Names with high, low or both" in after  # asked again
    assert "Ana LOW" not in out and "Ana HIGH" not in out  # nothing applied


def test_a_name_typed_twice_is_refused_without_hi_lo_too(tmp_path: Path) -> None:
    lines = ["", "Ana Ben ana", "none", "end"]
    result = guts("companion", "-n", "Ana,Ben,Cleo", "--chips", "30",
                  "--db", str(tmp_path / "g.db"), input="\n".join(lines) + "\n")
    out = " ".join(result.output.split())
    assert result.exit_code == 0, out
    assert "'Ana' is named twice: name each player once" in out
    assert "Who is in? Names, or none:" in out.split("'Ana' is named twice", 1)[1]


# --- 3. the all-out penalty's antes ------------------------------------------------------------

def test_the_all_out_penalty_says_who_paid_the_antes(tmp_path: Path) -> None:
    """estonian-full, 3 players, seed 4, answers in, out, in: round 2 is void (everyone
    out) and Ava holds the best hand (T5 high), so round 3's antes are Ava's alone: one
    ante per player, 3 chips, into the 8 left in the pot -> 11 (Ava 98 -> 95)."""
    result = guts("play", "--preset", "estonian-full", "--players", "3", "--seed", "4",
                  "--db", str(tmp_path / "p.db"), input="i\no\ni\nq\n")
    out = result.output
    assert result.exit_code == 0, out
    assert "Ava holds the best hand" in out
    assert "Ava pays the 3 antes (all-out penalty). Pot: 11." in out
    assert "Re-ante after the void round" not in out
    assert "Stacks: You 107 · Ava 95 · Bruno 98" in out
    # round 2 under losers_pay = "worst": You matched in round 1 and ante nothing
    assert "Antes (every round): antes: Ava 1, Bruno 1. Pot: 8." in out
