"""The server tells each seat what the core says (issue 9, "the browser and terminal tell
the truth"): whose turn it is under sequential declaration, the antes of the next deal
after a void round under each ``all_out``, what a seat would match if beaten (per side
under Hi-Lo, what a short stack pays under ``shortfall``), and when it may ask for a rebuy
(which the host approves or denies).

Three seats, dealer Ana (seat 0): the declaration order is Ben, Cleo, Ana. Test seed 1,
three cards: Ana Ts Td Qc, Ben Qd Jh 7h, Cleo Ah 6c 2h (tests/test_server.py); two cards
(test seed 1 under ``cards_per_hand = 2``): worked out by the deal below.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server_support import Player, running_server, seat_three


def _declaring(players: list[Player], number: int) -> list[dict[str, Any]]:
    return [p.state(lambda t: t["phase"] == "declare" and t["round"] == number)
            for p in players]


def test_sequential_declaration_tells_only_the_seat_whose_turn_it_is(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'seq.db'}", seed_numbers=(1, 2)) as server:
        _, players = seat_three(server, rules={"preset": "indonesian"})
        ana, ben, cleo = players
        ana.send({"type": "start"})
        tables = _declaring(players, 1)
        assert [t["my_turn"] for t in tables] == [False, True, False]
        assert all(t["to_act"] == [1] for t in tables)  # everyone sees whose turn it is
        refused = ana.declare(1, "out")  # out of turn: refused, and she was not told to
        assert refused["type"] == "error" and refused["code"] == "illegal_action"
        assert ben.declare(1, "out")["type"] == "ack"
        tables = [ana.state(lambda t: t["to_act"] == [2]), ben.last_state(),  # before its ack
                  cleo.state(lambda t: t["to_act"] == [2])]
        assert [t["my_turn"] for t in tables] == [False, False, True]
        assert [t["to_act"] for t in tables] == [[2], [2], [2]]
        assert cleo.declare(1, "out")["type"] == "ack"
        table = ana.state(lambda t: t["to_act"] == [0])
        assert table["my_turn"] and table["declarations"][1:] == ["out", "out"]
        assert ana.declare(1, "out")["type"] == "ack"
        # Everyone out under all_out = "carry": the pot stays and nobody antes again.
        between = ana.last_state()  # the state of her declaration comes before its ack
        assert between["phase"] == "deal"
        assert between["next_antes"] is None and between["pot"] == 3
        assert between["to_act"] == [] and not between["my_turn"]
        assert between["last_result"]["outcome"] == "void"


def _void_round(tmp_path: Path, rules: dict[str, Any]) -> dict[str, Any]:
    """Everyone out in round 1 (seed 1, three cards); the table as Ana sees it between
    rounds."""
    tmp_path.mkdir()
    with running_server(f"sqlite:///{tmp_path / 'void.db'}", seed_numbers=(1, 2)) as server:
        _, players = seat_three(server, rules=rules, reveal_seconds=5)
        players[0].send({"type": "start"})
        tables = _declaring(players, 1)
        assert tables[0]["hand"] == ["Ts", "Td", "Qc"]
        assert [t["next_antes"] for t in tables] == [None] * 3  # a round is in progress
        for player in players[1:]:
            assert player.declare(1, "out")["type"] == "ack"
        assert players[0].declare(1, "out")["type"] == "ack"
        table: dict[str, Any] = players[0].last_state()  # before the ack
        assert table["phase"] == "deal"
        return table


def test_the_next_antes_after_a_void_round_follow_all_out(tmp_path: Path) -> None:
    reante = _void_round(tmp_path / "reante", {"all_out": "reante"})
    assert reante["next_antes"] == [1, 1, 1] and reante["pot"] == 3  # everyone antes again
    carry = _void_round(tmp_path / "carry", {"all_out": "carry"})
    assert carry["next_antes"] is None and carry["pot"] == 3  # the pot just stays
    best = _void_round(tmp_path / "best", {"all_out": "best_pays_antes"})
    # Ana's pair of tens is the best hand: she pays the three antes of the re-deal.
    assert best["last_result"]["ante_payers"] == [0]
    assert best["next_antes"] == [3, 0, 0] and best["pot"] == 3


def _quotes(tmp_path: Path, rules: dict[str, Any], buy_in: int) -> dict[int, Any]:
    tmp_path.mkdir()
    with running_server(f"sqlite:///{tmp_path / 'q.db'}", seed_numbers=(1,)) as server:
        _, players = seat_three(server, rules=rules, buy_in=buy_in)
        players[0].send({"type": "start"})
        return {p.seat or 0: t for p, t in zip(players, _declaring(players, 1), strict=True)}


def test_what_a_beaten_seat_would_match_and_pay(tmp_path: Path) -> None:
    # Buy-in 2, ante 1: stacks 1, pot 3. A beaten "in" owes 3 with 1 chip.
    stakes = _quotes(tmp_path / "ts", {"shortfall": "table_stakes"}, 2)
    assert stakes[1]["matches"] == [
        {"declaration": "in", "least": 3, "most": 3, "pays": 1, "eliminated": False}]
    eliminate = _quotes(tmp_path / "el", {}, 2)
    assert eliminate[0]["matches"] == [
        {"declaration": "in", "least": 3, "most": 3, "pays": 0, "eliminated": True}]
    debt = _quotes(tmp_path / "debt", {"shortfall": "debt"}, 2)
    assert debt[2]["matches"] == [
        {"declaration": "in", "least": 3, "most": 3, "pays": 3, "eliminated": False}]
    # Hi-Lo, pot 3: high 2 and low 1 when both sides are played; a side alone takes the
    # whole pot (3); a failed "both" matches both sides (2 + 1).
    hilo = _quotes(tmp_path / "hilo", {"hi_lo": True}, 20)
    assert hilo[0]["matches"] == [
        {"declaration": "high", "least": 2, "most": 3, "pays": 3, "eliminated": False},
        {"declaration": "low", "least": 1, "most": 3, "pays": 3, "eliminated": False},
        {"declaration": "both", "least": 3, "most": 3, "pays": 3, "eliminated": False}]


def test_the_rebuy_offer_and_the_hosts_denial(tmp_path: Path) -> None:
    """buy-in-limits (minimum buy-in 20, up to 2 rebuys): after the antes every stack is
    19, below 20, so each seat may ask for a rebuy of at least 20; the host denies Ben's."""
    with running_server(f"sqlite:///{tmp_path / 'rebuy.db'}", seed_numbers=(1, 2)) as server:
        room_id, players = seat_three(server, rules={"preset": "buy-in-limits"})
        ana, ben, _ = players
        ana.send({"type": "start"})
        assert [t["rebuy"] for t in _declaring(players, 1)] == [20, 20, 20]
        ben.send({"type": "rebuy", "chips": 20})
        ana.expect("room", lambda m: m["room"]["rebuy_requests"])
        ben.send({"type": "deny_rebuy", "seat": 1})
        assert ben.expect("error")["code"] == "not_host"
        ana.send({"type": "deny_rebuy", "seat": 1})
        ana.expect("room", lambda m: m["room"]["rebuy_requests"] == [])
        assert server.manager.rooms[room_id].rebuys == {}
        ana.send({"type": "deny_rebuy", "seat": 1})
        assert ana.expect("error")["message"] == "seat 1 has asked for no rebuy"
    with running_server(f"sqlite:///{tmp_path / 'none.db'}", seed_numbers=(1,)) as server:
        _, players = seat_three(server)  # the defaults allow no rebuys
        players[0].send({"type": "start"})
        assert [t["rebuy"] for t in _declaring(players, 1)] == [None, None, None]
