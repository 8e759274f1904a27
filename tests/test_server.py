"""The server end to end over real WebSockets on loopback: a scripted session of three
players and a spectator, worked out by hand from the test seeds; every payload of it is
inspected for cards and declarations its recipient may not see; exports and ``guts verify``.

The decks of the seeds (``bytes([n]) * 32``, see ``gutskit.server.fairness``) start:

* seed 1: Qd Ah Ts Jh 6c Td 7h 2h Qc ...
* seed 2: Ad 9c 6s Jh 7h 3h 7d 3s 9s ...
* seed 3: 6d 2s 4s 4c As 7s Kc Ac Qd ...

Three-card Guts, buy-in 20, ante 1, dealer Ana (seat 0): cards go Ben, Cleo, Ana, Ben, ...

* Round 1 (seed 1): Ben Qd Jh 7h, Cleo Ah 6c 2h, Ana Ts Td Qc. Antes: pot 3, stacks 19 each.
  Ana in, Ben in, Cleo out: showdown, Ana's pair of tens beats Ben's queen high: Ana +3 =
  22, Ben matches 3 -> 16, next pot 3. Dealer -> Ben.
* Round 2 (seed 2, dealer Ben: Cleo, Ana, Ben): Cleo Ad Jh 7d, Ana 9c 7h 3s, Ben 6s 3h 9s.
  No ante (the pot is not empty). All out: void, the same dealer deals again, re-ante.
* Round 3 (seed 3, dealer Ben): Cleo 6d 4c Kc, Ana 2s As Ac, Ben 4s 7s Qd. Antes: Ana 21,
  Ben 15, Cleo 18, pot 6. Cleo alone in: uncontested, Cleo 24, pot 0.
* Round 4 (seed 4: 7s Kd 6s 9s 7d 5h 3d 7c 4d ..., dealer Cleo): Ana 7s 9s 3d, Ben Kd 7d 7c,
  Cleo 6s 5h 4d; antes: pot 3; stacks 20, 14, 23. The host ends the session:
  the pot is shared, 1 each: ledger Ana +1, Ben -5, Cleo +4; Ben pays Cleo 4 and Ana 1.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import DB_KINDS, Player, Server, make_db_url, running_server
from typer.testing import CliRunner

from gutskit.cli.app import app as cli_app
from gutskit.core.events import CardsDealt
from gutskit.core.history import event_from_dict

CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")

HANDS = {
    1: {0: "Ts Td Qc", 1: "Qd Jh 7h", 2: "Ah 6c 2h"},
    2: {0: "9c 7h 3s", 1: "6s 3h 9s", 2: "Ad Jh 7d"},
    3: {0: "2s As Ac", 1: "4s 7s Qd", 2: "6d 4c Kc"},
    4: {0: "7s 9s 3d", 1: "Kd 7d 7c", 2: "6s 5h 4d"},
}
SHOWN = {1: {0: "Ts Td Qc", 1: "Qd Jh 7h"}, 2: {}, 3: {}, 4: {}}


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh SQLite database, and PostgreSQL when GUTSKIT_TEST_PG_URL is set."""
    with make_db_url(request.param, tmp_path) as url:
        yield url


def allowed_cards(seat: int | None) -> set[str]:
    """Every card ``seat`` (None = spectator) may ever see in the scripted session."""
    cards: set[str] = set()
    for number, hands in HANDS.items():
        if seat is not None:
            cards.update(hands[seat].split())
        for hand in SHOWN[number].values():
            cards.update(hand.split())
    return cards


def play_scripted_session(server: Server, protocol: int = 1) -> dict[str, Any]:
    """Play the module's session; return the players, the spectator and the room id."""
    created = server.create_room("Ana", seed_reveal="round")
    room_id = created["room_id"]
    ana = Player(server, room_id, created["token"], protocol=protocol)
    assert ana.seat == 0
    players = [ana]
    for name in ("Ben", "Cleo"):
        player = Player(server, room_id, protocol=protocol)
        player.send({"type": "join", "name": name})
        seated = player.expect("seated")
        player.seat, player.token = seated["seat"], seated["token"]
        players.append(player)
    spectator = Player(server, room_id, protocol=protocol)
    ben, cleo = players[1], players[2]
    ana.send({"type": "start"})

    def at_round(number: int) -> list[dict[str, Any]]:
        def open_round(table: dict[str, Any]) -> bool:
            return bool(table["phase"] == "declare" and table["round"] == number)

        return [p.state(open_round) for p in players]

    views = at_round(1)
    assert [v["hand"] for v in views] == [HANDS[1][s].split() for s in range(3)]
    assert views[0]["stacks"] == [19, 19, 19] and views[0]["pot"] == 3
    assert ana.declare(1, "in")["type"] == "ack"
    assert ben.declare(1, "in")["type"] == "ack"
    # Sealed: Cleo has not declared and sees nothing of Ana's and Ben's calls.
    sealed = cleo.state(lambda t: t["declared"] == [True, True, False])
    assert sealed["declarations"] == [None, None, None]
    assert cleo.declare(1, "out")["type"] == "ack"

    at_round(2)
    for player in players:
        assert player.declare(2, "out")["type"] == "ack"
    views = at_round(3)
    assert views[0]["stacks"] == [21, 15, 18] and views[0]["pot"] == 6
    assert ana.declare(3, "out")["type"] == "ack"
    assert ben.declare(3, "out")["type"] == "ack"
    assert cleo.declare(3, "in")["type"] == "ack"
    # Round 4 (seed 4) is dealt at once: a new game, antes 1 each.
    done = ana.state(lambda t: t["round"] == 4 and t["phase"] == "declare")
    assert done["stacks"] == [20, 14, 23] and done["pot"] == 3
    ana.send({"type": "end_session"})
    final = ana.state(lambda t: t["phase"] == "over")
    assert final["stacks"] == [21, 15, 24] and final["pot"] == 0
    for player in [*players, spectator]:  # each has received the whole session
        player.reach(lambda t: t["phase"] == "over")
    return {"room_id": room_id, "players": players, "spectator": spectator, "final": final}


@pytest.mark.parametrize("protocol", [1, 2])
def test_scripted_session_results_exports_and_leaks(db_url: str, tmp_path: Path,
                                                    protocol: int) -> None:
    with running_server(db_url, seed_numbers=(1, 2, 3, 4)) as server:
        session = play_scripted_session(server, protocol)
        room_id = session["room_id"]
        players: list[Player] = session["players"]
        spectator: Player = session["spectator"]

        # Round 4 was dealt (seed 4) before the host ended it: the pot of 3 antes is
        # shared evenly among the three seated players, 1 each.
        assert session["final"]["stacks"] == [21, 15, 24]
        resolved = [m["event"] for m in players[0].log if m["type"] == "event"
                    and m["event"]["type"] == "RoundResolved"]
        assert [r["outcome"] for r in resolved] == ["showdown", "void", "uncontested"]
        assert resolved[0]["won"] == [3, 0, 0] and resolved[0]["matched"] == [0, 3, 0]
        assert resolved[0]["pot_after"] == 3
        assert resolved[2]["winners"] == [2] and resolved[2]["won"] == [0, 0, 6]

        ledger = server.get(f"/api/rooms/{room_id}/ledger.csv")
        assert ledger.status_code == 200
        rows = list(csv.reader(io.StringIO(ledger.text)))
        assert rows[0] == ["seat", "name", "buy_in", "cash_out", "net"]
        assert rows[1:4] == [["0", "Ana", "20", "21", "1"], ["1", "Ben", "20", "15", "-5"],
                             ["2", "Cleo", "20", "24", "4"]]
        assert rows[5:] == [["payer", "payee", "chips"], ["Ben", "Cleo", "4"],
                            ["Ben", "Ana", "1"]]

        exports = {}
        for player in players:
            text = server.get(f"/api/rooms/{room_id}/history.jsonl?token={player.token}").text
            exports[player.seat] = text
        exports[None] = server.get(f"/api/rooms/{room_id}/history.jsonl").text
        forged = server.get(f"/api/rooms/{room_id}/history.jsonl?token=not-a-token")
        assert forged.status_code == 403

        fairness = server.get(f"/api/rooms/{room_id}/fairness.json").json()
        assert [r["round"] for r in fairness["rounds"]] == [1, 2, 3, 4]
        assert all(r["seed"] is not None for r in fairness["rounds"])

    if protocol == 2:
        # One frame per change: every frame is an array; the reveal (the last call, the
        # events, the seed, the new view) arrives as one frame.
        for player in [*players, spectator]:
            assert all(raw.startswith("[") for raw in player.raw)
            reveal = [json.loads(raw) for raw in player.raw if "DeclarationsRevealed" in raw]
            assert len(reveal) == 3
            kinds = [m["type"] for m in reveal[0]]
            if kinds[-1] == "ack":  # the player whose call closed the round
                kinds.pop()
            assert kinds == ["event", "event", "event", "reveal", "state"], kinds
    # Every payload each recipient got: no card it may not see, no sealed declaration.
    for player in [*players, spectator]:
        seat = player.seat
        allowed = allowed_cards(seat)
        for raw in [*player.raw, exports[seat]]:
            for card in CARD.findall(raw):
                assert card in allowed, f"seat {seat} received {card} in {raw[:200]}"
        assert_sealed(player.log, seat)
    # The exported history is the same redaction as the events sent.
    ana_events = [event_from_dict(json.loads(line)) for line in exports[0].splitlines()
                  if json.loads(line)["type"] != "DeclarationSealed"]
    dealt = [e for e in ana_events if isinstance(e, CardsDealt)]
    assert [e.hands[1] for e in dealt[:3]] == [(), (), ()]

    # guts verify: commitments and every card Ana saw.
    fairness_file = tmp_path / "fairness.json"
    fairness_file.write_text(json.dumps(fairness))
    history_file = tmp_path / "ana.jsonl"
    history_file.write_text(exports[0])
    result = CliRunner().invoke(cli_app, ["verify", str(fairness_file), "--history",
                                          str(history_file)])
    assert result.exit_code == 0, result.output
    assert "4 of 4 rounds verified" in result.output
    # Ana saw 3 + 3 cards in round 1 (her hand, Ben's at the showdown), then her own 3.
    lines = result.output.splitlines()  # the header is wrapped to the console's width
    first = next(i for i, line in enumerate(lines) if line.startswith("round 1:"))
    header, lines = " ".join(lines[:first]), lines[first:]
    assert header.startswith("session header: the hand history's names, seats, stacks")
    assert [line.split(", ")[-1] for line in lines[:4]] == [
        "6 cards of the history match)", "3 cards of the history match)",
        "3 cards of the history match)", "3 cards of the history match)"]
    assert lines[0].startswith("round 1: ok (deck starts Qd Ah Ts Jh 6c Td")

    tampered = dict(fairness)
    tampered["rounds"] = [dict(r) for r in fairness["rounds"]]
    tampered["rounds"][1]["seed"] = "00" * 32
    fairness_file.write_text(json.dumps(tampered))
    result = CliRunner().invoke(cli_app, ["verify", str(fairness_file)])
    assert result.exit_code == 1
    assert "round 2" in result.output and "does not match" in result.output


def assert_sealed(log: list[dict[str, Any]], seat: int | None) -> None:
    """Between a deal and the reveal, no message to ``seat`` says what another seat
    declared."""
    declaring = False
    for message in log:
        if message["type"] == "event":
            kind = message["event"]["type"]
            if kind == "CardsDealt":
                declaring = True
            elif kind == "DeclarationsRevealed":
                declaring = False
            elif kind == "Declared":
                assert message["event"]["seat"] == seat, f"{seat} saw {message}"
        if message["type"] in ("state", "welcome") and declaring and message.get("table"):
            table = message["table"]
            for other, decl in enumerate(table["declarations"]):
                if other != seat:
                    assert decl is None, f"seat {seat} saw {other}'s declaration: {table}"
