"""``guts referee`` settles a seat's and a spectator's ``history.jsonl`` download from the
online table (:func:`gutskit.server.exports.history_jsonl`, filtered for its viewer): such a
copy holds only the cards its viewer saw, and the referee takes the other hands from what
each showdown shows (``RoundResolved.shown``), never reporting a hand it was not shown as a
violation (fresh user, session 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from server_support import Player, running_server, seat_three
from typer.testing import CliRunner

from gutskit.cli.app import app
from gutskit.core.referee import RefereeError, referee_file, settle
from gutskit.io.files import load_records


def _table(player: Player, round_number: int, phase: str) -> dict[str, object]:
    for message in player.log:
        table = message.get("table") or {}
        if message["type"] == "state" and (table["round"], table["phase"]) == (
                round_number, phase):
            return table
    return player.state(lambda t: (t["round"], t["phase"]) == (round_number, phase))


def test_a_seats_and_a_spectators_download_settle_to_the_tables_stacks(
        tmp_path: Path) -> None:
    # Test seeds 1 and 2, three-card Guts, ante 1, 20 chips each, dealer Ana.
    # Round 1 (seed 1: Ana Ts Td Qc, Ben Qd Jh 7h, Cleo Ah 6c 2h): Ana and Ben in, Cleo
    # out. Pot 3 after the antes: Ana's pair of tens beats Ben's queen high: Ana takes 3,
    # Ben matches 3: stacks 22 / 16 / 19, pot 3, the game goes on (no ante next round).
    # Round 2 (seed 2, dealer Ben): Ben in alone takes the pot of 3 unseen (19).
    # Round 3 (a new game, antes 1 each: 21 / 18 / 18, pot 3) is dealt when the copies
    # are downloaded: unfinished, its antes stay in the pot (a referee file's misdeal).
    with running_server(f"sqlite:///{tmp_path / 'views.db'}", seed_numbers=(1, 2)
                        ) as server:
        room_id, (ana, ben, cleo) = seat_three(server, reveal_seconds=0.5)
        ana.send({"type": "start"})
        _table(cleo, 1, "declare")
        for player, call in ((ana, "in"), (ben, "in"), (cleo, "out")):
            assert player.declare(1, call)["type"] == "ack"
        _table(cleo, 2, "declare")
        for player, call in ((ana, "out"), (ben, "in"), (cleo, "out")):
            assert player.declare(2, call)["type"] == "ack"
        assert _table(cleo, 2, "deal")["stacks"] == [22, 19, 19]
        assert _table(cleo, 3, "declare")["stacks"] == [21, 18, 18]  # new game: antes
        copies = {name: server.get(f"/api/rooms/{room_id}/history.jsonl?token={p.token}").text
                  for name, p in (("Ana", ana), ("Cleo", cleo))}
        copies["spectator"] = server.get(f"/api/rooms/{room_id}/history.jsonl").text
        for player in (ana, ben, cleo):
            player.close()
    cleos = [json.loads(line) for line in copies["Cleo"].splitlines()]
    dealt = [e["hands"] for e in cleos if e["type"] == "CardsDealt"]
    assert dealt[0] == ["", "", "Ah 6c 2h"]  # Cleo's copy: her own cards only
    resolved = [e for e in cleos if e["type"] == "RoundResolved"]
    assert resolved[0]["shown"] == ["Ts Td Qc", "Qd Jh 7h", None]
    for viewer, text in copies.items():
        path = tmp_path / f"{viewer}.jsonl"
        path.write_text(text)
        data = referee_file(load_records(path))
        rounds = data["rounds"]
        # the showdown's hands come from what it showed; Ben's uncontested hand is not
        # needed (nobody but Ben saw it)
        assert rounds[0]["hands"]["Ana"] == "Ts Td Qc"
        assert rounds[0]["hands"]["Ben"] == "Qd Jh 7h"
        assert "Ben" not in rounds[1].get("hands", {})
        result = settle(data)
        assert [r["winners"] for r in result["rounds"]] == [["Ana"], ["Ben"], []]
        assert [r["outcome"] for r in result["rounds"]] == [
            "showdown", "uncontested", "misdeal"]
        assert [r["deltas"] for r in result["rounds"]] == [
            {"Ana": 2, "Ben": -4, "Cleo": -1}, {"Ana": 0, "Ben": 3, "Cleo": 0},
            {"Ana": -1, "Ben": -1, "Cleo": -1}]
        assert result["stacks"] == {"Ana": 21, "Ben": 18, "Cleo": 18}
        assert result["pot"] == 3
        cli = CliRunner().invoke(app, ["referee", str(path), "--json"])
        assert cli.exit_code == 0, cli.output
        assert json.loads(cli.output)["stacks"] == {"Ana": 21, "Ben": 18, "Cleo": 18}


def test_a_showdown_without_the_hands_of_those_in_is_refused_naming_the_player() -> None:
    # Ana and Ben in, Ben's cards not written down: the showdown cannot be settled.
    data = {"rules": {"cards_per_hand": 3}, "dealer": "Ana",
            "players": [{"name": "Ana", "stack": 10}, {"name": "Ben", "stack": 10}],
            "rounds": [{"hands": {"Ana": "Ts Td Qc"},
                        "declarations": {"Ana": "in", "Ben": "in"}}]}
    with pytest.raises(RefereeError) as error:
        settle(data)
    assert str(error.value) == ("round 1: 'Ben' is in, but their cards were not recorded: "
                                "the showdown compares the hands of everyone in")
    # Ben alone in: an uncontested win needs no cards (he takes the pot of 2 unseen)
    data["rounds"] = [{"hands": {}, "declarations": {"Ana": "out", "Ben": "in"}}]
    assert settle(data)["stacks"] == {"Ana": 9, "Ben": 11}
