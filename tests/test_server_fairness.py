"""The default deal (``seed_reveal = "shown"``) over a real server session: out hands stay
private from everything published, during and after the session, and ``guts verify``
checks the session from what a spectator and a seat can download.

Ana (host), Ben and Cleo; secret seeds ``bytes([n]) * 32`` commit round n (round 1 in the
lobby, round n + 1 at the deal of round n). Ana and Cleo send client seeds for rounds 1
and 2. Round 1: Ana and Ben in, Cleo out (a showdown: 6 cards shown); round 2: all out;
round 3: Cleo alone in (uncontested: nothing shown); then the host ends the session.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_support import DB_KINDS, Player, make_db_url, running_server, seat_three
from typer.testing import CliRunner

from gutskit.cli.app import app as cli_app
from gutskit.core.cards import card_name
from gutskit.core.events import CardsDealt, RoundResolved
from gutskit.server.fairness import (
    deal_order,
    dealt_deck,
    deck_from_seed,
    leaves,
    secret_from_seed,
)

HEX = re.compile(r"[0-9a-f]{32,}")


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with make_db_url(request.param, tmp_path) as url:
        yield url


SEEDS = {0: "a1" * 16, 2: "c3" * 32}


def send_seeds(players: list[Player], number: int) -> None:
    for player in players:
        if player.seat in SEEDS:
            player.send({"type": "client_seed", "round": number, "seed": SEEDS[player.seat]})


def test_out_hands_stay_private_and_the_session_verifies(db_url: str, tmp_path: Path) -> None:
    with running_server(db_url, seed_numbers=(1, 2, 3, 4)) as server:
        room_id, players = seat_three(server)
        ana, ben, _ = players
        spectator = Player(server, room_id, protocol=2)
        assert spectator.expect("commitment")["round"] == 1  # committed in the lobby
        send_seeds(players, 1)
        # A second seed for the same round, a spectator's and a stale round are refused.
        ana.send({"type": "client_seed", "round": 1, "seed": "00" * 16})
        assert ana.expect("error")["code"] == "already_seeded"
        spectator.send({"type": "client_seed", "round": 1, "seed": "00" * 16})
        assert spectator.expect("error")["code"] == "not_seated"
        ben.send({"type": "client_seed", "round": 2, "seed": "00" * 16})
        assert ben.expect("error")["code"] == "stale_round"
        ana.send({"type": "start"})
        dealt = ana.expect("deal_seeds")
        assert dealt["round"] == 1 and dealt["client_seeds"] == [SEEDS[0], None, SEEDS[2]]
        assert ana.expect("commitment")["round"] == 2
        for player in players:
            player.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
        send_seeds(players, 2)
        for player, call in zip(players, ("in", "in", "out"), strict=True):
            assert player.declare(1, call)["type"] == "ack"
        for player in players:
            player.state(lambda t: t["phase"] == "declare" and t["round"] == 2)
            assert player.declare(2, "out")["type"] == "ack"
        for player, call in zip(players, ("out", "out", "in"), strict=True):
            player.state(lambda t: t["phase"] == "declare" and t["round"] == 3)
            assert player.declare(3, call)["type"] == "ack"
        ana.state(lambda t: t["round"] == 4 and t["phase"] == "declare")
        ana.send({"type": "end_session"})
        ana.state(lambda t: t["phase"] == "over")
        for player in [*players, spectator]:
            player.drain()

        room = server.manager.rooms[room_id]
        events = room.events
        public = server.get(f"/api/rooms/{room_id}/fairness.json").json()
        own = {p.seat: server.get(f"/api/rooms/{room_id}/fairness.json?token={p.token}").json()
               for p in players}
        histories = {p.seat: server.get(f"/api/rooms/{room_id}/history.jsonl?token={p.token}")
                     .text for p in players}
        histories[None] = server.get(f"/api/rooms/{room_id}/history.jsonl").text
        assert server.get(f"/api/rooms/{room_id}/fairness.json?token=nope").status_code == 403
        secrets_hex = {d.round: d.seed for d in room.deals.values()}

    # The server's truth: every round's dealt hands and what was shown.
    dealt_hands = [e.hands for e in events if isinstance(e, CardsDealt)]
    results = [e for e in events if isinstance(e, RoundResolved)]
    assert [r.outcome.value for r in results] == ["showdown", "void", "uncontested"]
    shown = [{c for h in r.shown if h for c in h} for r in results] + [set()]
    assert [len(s) for s in shown] == [6, 0, 0, 0]
    # The client seeds changed the deal: round 1 is not the committed order's deal.
    secret = secret_from_seed(bytes([1]) * 32)
    commitment = public["rounds"][0]["commitment"]
    deck = dealt_deck(secret, deal_order(commitment, [SEEDS[0], None, SEEDS[2]]))
    assert deck != deck_from_seed(bytes([1]) * 32)
    assert dealt_hands[0][1] == (deck[0], deck[3], deck[6])  # dealer Ana: Ben gets 1st

    # Salts of leaves that were never opened, and the server seeds: never published.
    closed_salts: dict[int, list[str]] = {}
    for number in range(1, 5):
        secret = secret_from_seed(bytes([number]) * 32)
        assert leaves(secret) == public["rounds"][number - 1]["leaves"]
        closed_salts[number] = [secret.salts[i].hex() for i, c in enumerate(secret.deck)
                                if c not in shown[number - 1]]
    forbidden = {s for salts in closed_salts.values() for s in salts} | {
        s for s in secrets_hex.values()}
    spectator_sees = "\n".join([*spectator.raw, json.dumps(public), histories[None]])
    assert not set(HEX.findall(spectator_sees)) & forbidden
    # Openings hold exactly the shown cards.
    for number, record in enumerate(public["rounds"][:4], 1):
        assert {o["card"] for o in record["opened"]} == {card_name(c)
                                                         for c in shown[number - 1]}
    assert public["rounds"][4]["client_seeds"] is None  # round 5: committed, never dealt
    # Each seat: beyond the public openings, only its own dealt cards.
    for player in players:
        seat = player.seat
        assert seat is not None
        mine = {(r + 1, c) for r, hands in enumerate(dealt_hands) for c in hands[seat] or ()}
        allowed_salts = set()
        for number, record in enumerate(own[seat]["rounds"][:4], 1):
            secret = secret_from_seed(bytes([number]) * 32)
            cards = {o["card"] for o in record["own"]}
            assert cards == {card_name(c) for r, c in mine if r == number}
            allowed_salts |= {o["salt"] for o in record["own"]}
        sees = "\n".join([*player.raw, json.dumps(own[seat]), histories[seat]])
        assert not (set(HEX.findall(sees)) & forbidden) - allowed_salts
        # No out hand of another seat appears among the cards it was sent.
        for number, hands in enumerate(dealt_hands, 1):
            for other, hand in enumerate(hands):
                never_shown = set(hand or ()) - shown[number - 1]
                if other != seat and never_shown:
                    opened = {o["card"] for o in own[seat]["rounds"][number - 1]["opened"]}
                    assert not {card_name(c) for c in never_shown} & opened

    # guts verify: the spectator's download, and Ana's with her own openings.
    for name, fairness, history in (("spectator", public, histories[None]),
                                    ("ana", own[0], histories[0])):
        (tmp_path / f"{name}.json").write_text(json.dumps(fairness))
        (tmp_path / f"{name}.jsonl").write_text(history)
        result = CliRunner().invoke(cli_app, ["verify", str(tmp_path / f"{name}.json"),
                                              "--history", str(tmp_path / f"{name}.jsonl")])
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        assert lines[-1] == "4 of 4 rounds verified"
        assert lines[0].startswith("round 1: ok (6 cards opened, 2 client seed(s)")
    # Ana's history: her 3 cards + Ben's 3 shown in round 1, her own 3 in rounds 2 to 4.
    assert [line.split(", ")[-1] for line in lines[:4]] == [
        "6 cards of the history match)", "3 cards of the history match)",
        "3 cards of the history match)", "3 cards of the history match)"]
