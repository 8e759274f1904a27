"""What the fresh user and the attacker of session 9 found and session 10 mended (polish10):
each behaviour asserted exactly (values worked out by hand, messages word for word)."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import guts

# --- away then back before the next deal: dealt the next round of the game ----------------------


def test_away_then_back_before_the_next_deal_is_dealt_the_next_round(tmp_path: Path) -> None:
    # Seed 7, 20 chips: round 1 antes 1 each (pot 3); you type away, then go in. Ava's
    # Q-J-T straight wins 3 (19 + 3 = 22); you (8-7-3 high) and Bruno (4-3-2 straight)
    # match 3 each (16): the pot of 6 carries over, the game goes on. You were dealt into
    # every round of it, so back between rounds deals you round 2 (no ante: 16 stays 16).
    db = tmp_path / "g.db"
    result = guts("play", "--players", "3", "--seed", "7", "--chips", "20", "--db", str(db),
                  input="away\nin\nback\nout\nq\n")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "Stacks: You 16 · Ava 22 · Bruno 16" in text
    assert ("You are away. Enter = watch the next round, back (b) = come back, quit (q): "
            "back You are back and dealt in from the next deal. ") in text
    assert "comes back when the next game starts" not in text
    assert "You come back when the next game starts" not in text
    # round 2: your 2-2-8; you out, Bruno's pair of fives beats Ava's pair of threes: Bruno
    # takes the 6 (22), Ava matches 6 (16)
    assert ("Round 2 · game 1 · dealer Bruno ─" in result.stdout)
    assert "Your cards: 2♠ 2♥ 8♥ (Pair of twos, eight kicker) Pot 6" in text
    assert "Reveal: You out · Ava IN · Bruno IN" in text
    assert "Stacks: You 16 · Ava 16 · Bruno 22" in text
    history = guts("history", "1", "--json", "--db", str(db))
    assert history.exit_code == 0, history.stderr
    events = [json.loads(line) for line in history.stdout.splitlines() if line.strip()]
    kinds = [e["type"] for e in events]
    assert kinds.count("SeatAway") == 1 and kinds.count("SeatBack") == 1
    dealt = [e for e in events if e["type"] == "CardsDealt"]
    assert len(dealt) == 3 and all(hand is not None for d in dealt for hand in d["hands"])
