"""A declaration the room's rules do not know is refused naming the ones they allow (the
core's :func:`gutskit.core.engine.legal_declarations`), not every word of the protocol
(fresh7: "high/low/both" offered outside Hi-Lo)."""

from __future__ import annotations

from pathlib import Path

from server_support import make_db_url, running_server, seat_three


def test_an_unknown_declaration_lists_only_the_tables_own(tmp_path: Path) -> None:
    with make_db_url("sqlite", tmp_path) as url, running_server(url, seed_numbers=(1,)) \
            as server:
        _, players = seat_three(server)
        ana = players[0]
        ana.send({"type": "start"})
        ana.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
        error = ana.declare(1, "maybe")
        assert (error["type"], error["code"]) == ("error", "illegal_action")
        assert error["message"] == '"maybe" is not a declaration: this table\'s are in, out'
        # a word of Hi-Lo: the engine's own reason
        error = ana.declare(1, "high")
        assert error["message"] == ("'Ana' declared 'high': high, low and both need hi_lo; "
                                    "declare in or out")
        assert ana.declare(1, "in")["type"] == "ack"
