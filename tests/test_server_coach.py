"""The browser's coach over a real WebSocket: a seat that declares with ``coach: true``
gets one ``coach`` message after its ack, with the values of
:func:`gutskit.strategy.coach.advice` on its own view; no other seat, no spectator and no
declaration without ``coach`` gets one.

Seed 1 (see tests/test_server.py): round 1 deals Ana Ts Td Qc, Ben Qd Jh 7h,
Cleo Ah 6c 2h; antes 1 each: pot 3.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from server_support import DB_KINDS, Player, make_db_url, running_server, seat_three

from gutskit.core.views import view_for
from gutskit.strategy import coach


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with make_db_url(request.param, tmp_path) as url:
        yield url


def test_coach_message_only_to_the_declaring_connection(db_url: str) -> None:
    with running_server(db_url, seed_numbers=(1,)) as server:
        room_id, players = seat_three(server)
        ana, ben, cleo = players
        spectator = Player(server, room_id)
        ana.send({"type": "start"})
        for player in players:
            table = player.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
        assert table["pot"] == 3
        state = server.manager.rooms[room_id].state
        assert state is not None
        expected = coach.advice(view_for(state, 0))
        assert expected is not None and expected.in_probability is not None

        ana.send({"type": "declare", "round": 1, "action_id": "a1", "declaration": "in",
                  "coach": True})
        assert ana.expect_any(("ack", "error"))["type"] == "ack"
        got = ana.expect("coach")
        assert got == {
            "type": "coach", "round": 1, "hand": ["Ts", "Td", "Qc"],
            "description": expected.description, "players": 3, "pot": 3,
            "in_probability": expected.in_probability, "source": expected.source,
            "ev": expected.ev, "ev_se": expected.ev_se, "exact": expected.exact,
            "note": expected.note, "line": expected.line(),
        }
        assert expected.hand == tuple(state.hands[0] or ())
        # Ben declares without the coach: an ack and nothing more.
        assert ben.declare(1, "in")["type"] == "ack"
        assert cleo.declare(1, "out")["type"] == "ack"
        for player in [*players, spectator]:
            player.drain()
            assert [m for m in player.log if m["type"] == "coach"] == (
                [got] if player is ana else [])
