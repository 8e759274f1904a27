"""Rooms under the variants that deal cards beyond the hands (Monte Carlo, the ghost hand,
the Estonian rule book with all its variants) deal them, reach a showdown, settle it as the
variant says, and ``guts verify`` checks their deals.

The deck of test seed 1 (``bytes([1]) * 32``, see ``gutskit.server.fairness``) starts
Qd Ah Ts Jh 6c Td 7h 2h Qc 8d 8c 4h 2c Kh. Dealer Ana (seat 0): cards go Ben, Cleo, Ana.

* monte-carlo (three cards): Ben Qd Jh 7h, Cleo Ah 6c 2h, Ana Ts Td Qc; the community card
  8d (the 10th card). All in: Ana's tens (Ts Td Qc) beat Ben's Q-J-8 and Cleo's A-8-6:
  Ana +3 -> 22; Ben and Cleo match 3 -> 16 each; next pot 6, no ante (not empty).
* ghost-hand (three cards): the same hands; the ghost hand 8d 8c 4h (cards 10-12), a pair
  of eights. Ana's tens beat it strictly: the same money as above.
* estonian-full (two cards): Ben Qd Jh, Cleo Ah 6c, Ana Ts Td; the ghost 7h 2h. All in:
  Ana's tens beat the ghost and win 3 -> 22; only the worst hand (Ben's Q-J) matches 3 ->
  16; Cleo keeps 19. Round 2: everyone antes but Ben (the last matcher): pot 3 + 2 = 5,
  Ana 21, Cleo 18.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import DB_KINDS, make_db_url, running_server, seat_three
from typer.testing import CliRunner

from gutskit.cli.app import app as cli_app


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with make_db_url(request.param, tmp_path) as url:
        yield url


CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("monte-carlo", {"community": "8d", "ghost": None, "matched": [0, 3, 3]},
     {"stacks": [22, 16, 16], "pot": 6}),
    ("ghost-hand", {"community": None, "ghost": "8d 8c 4h", "matched": [0, 3, 3]},
     {"stacks": [22, 16, 16], "pot": 6}),
    ("estonian-full", {"community": None, "ghost": "7h 2h", "matched": [0, 3, 0]},
     {"stacks": [21, 16, 18], "pot": 5}),
]


@pytest.mark.parametrize(("preset", "result", "round_two"), CASES)
def test_a_variant_room_deals_and_reaches_a_showdown(
        db_url: str, tmp_path: Path, preset: str, result: dict[str, Any],
        round_two: dict[str, Any]) -> None:
    with running_server(db_url, seed_numbers=(1, 2)) as server:
        room_id, players = seat_three(server, rules={"preset": preset})
        players[0].send({"type": "start"})
        for player in players:
            player.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
            assert player.declare(1, "in")["type"] == "ack"
        table = players[0].state(lambda t: t["round"] == 2 and t["phase"] == "declare")
        last = table["last_result"]
        assert last["outcome"] == "showdown"
        assert last["winners"] == [0] and last["won"] == [3, 0, 0]
        assert last["matched"] == result["matched"]
        assert last["community"] == result["community"]
        assert last["ghost"] == result["ghost"]
        assert last["ghost_won"] is False
        assert (table["stacks"], table["pot"]) == (round_two["stacks"], round_two["pot"])
        players[0].send({"type": "end_session"})
        players[0].state(lambda t: t["phase"] == "over")
        fairness = server.get(f"/api/rooms/{room_id}/fairness.json").json()
        for player in players:
            player.close()
    path = tmp_path / "fairness.json"
    path.write_text(json.dumps(fairness))
    verified = CliRunner().invoke(cli_app, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
    assert "2 of 2 rounds verified" in verified.output
