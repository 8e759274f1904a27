"""The default deal (``seed_reveal = "shown"``) over a real server session: out hands stay
private from everything published, during and after the session, and ``guts verify``
checks the session from what a spectator and a seat can download.

Ana (host), Ben and Cleo; secret seeds ``bytes([n]) * 32`` commit round n (round 1 in the
lobby, round n + 1 at the deal of round n). Ana and Cleo send client seeds for rounds 1
and 2. Round 1: Ana and Ben in, Cleo out (a showdown: 6 cards shown); round 2: all out;
round 3: Cleo alone in (uncontested: nothing shown); then the host ends the session.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import DB_KINDS, Player, make_db_url, running_server, seat_three
from typer.testing import CliRunner

from gutskit.cli.app import app as cli_app
from gutskit.core.cards import card_name
from gutskit.core.events import CardsDealt, RoundResolved
from gutskit.server.fairness import (
    FairnessError,
    deal_order,
    dealt_deck,
    deck_from_seed,
    leaves,
    secret_from_seed,
)
from gutskit.server.verify import Record, parse_history, verify_rounds, verify_session

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
        for player in [*players, spectator]:  # each has received the whole session
            player.reach(lambda t: t["phase"] == "over")

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
        lines = result.stdout.splitlines()  # the header is wrapped to the console's width
        first = next(i for i, line in enumerate(lines) if line.startswith("round 1:"))
        header, lines = " ".join(lines[:first]), lines[first:]
        assert header == ("session header: the hand history's names, seats, stacks, first "
                          "dealer and rules are the ones committed before the first deal")
        assert lines[-1] == "4 of 4 rounds verified"
        assert lines[0].startswith("round 1: ok (6 cards opened, 2 client seeds")
    # Ana's history: her 3 cards + Ben's 3 shown in round 1, her own 3 in rounds 2 to 4.
    assert [line.split(", ")[-1] for line in lines[:4]] == [
        "6 cards of the history match)", "3 cards of the history match)",
        "3 cards of the history match)", "3 cards of the history match)"]


def _tampered(history: str, change: Callable[[dict[str, Any]], None]) -> list[Record]:
    lines = [json.loads(line) for line in history.splitlines()]
    change(lines[0])
    return parse_history("\n".join(json.dumps(line) for line in lines))


@pytest.mark.parametrize("seed_reveal", ["shown", "round"])
def test_the_session_header_is_committed_before_the_first_deal(
        db_url: str, seed_reveal: str) -> None:
    """The auditor's verify_tamper.py: swapped or renamed seats, a changed starting stack
    and rules that never came into play (suit_tiebreak, pot_cap) in the first line of a
    downloaded history verified. The server publishes the hash of the SessionStarted line
    before the first deal; guts verify names what changed."""
    with running_server(db_url, seed_numbers=(1, 2, 3)) as server:
        room_id, players = seat_three(server, seed_reveal=seed_reveal)
        ana = players[0]
        ana.send({"type": "start"})
        before_deal = []
        while (message := ana.recv())["type"] != "event" \
                or message["event"]["type"] != "CardsDealt":
            before_deal.append(message)
        for player in players:
            player.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
            assert player.declare(1, "in")["type"] == "ack"
        ana.state(lambda t: t["round"] == 2 and t["phase"] == "declare")
        ana.send({"type": "end_session"})
        ana.state(lambda t: t["phase"] == "over")
        late = Player(server, room_id)  # a later connection is told it too
        told_late = late.expect("session")
        fairness = server.get(f"/api/rooms/{room_id}/fairness.json").json()
        history = server.get(f"/api/rooms/{room_id}/history.jsonl").text
    header = json.loads(history.splitlines()[0])
    assert header["type"] == "SessionStarted" and header["names"] == ["Ana", "Ben", "Cleo"]
    # The commitment, reimplemented from docs/fairness.md.
    canonical = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(("gutskit-session-v1|" + canonical).encode()).hexdigest()
    assert [m for m in before_deal if m["type"] == "session"] == [
        {"type": "session", "hash": digest}]
    assert told_late == {"type": "session", "hash": digest}
    assert fairness["session"] == {"hash": digest, "started": header}
    assert verify_session(fairness, parse_history(history)) == (
        "session header: the hand history's names, seats, stacks, first dealer and rules "
        "are the ones committed before the first deal")
    verify_rounds(fairness, parse_history(history))

    def swap(line: dict[str, Any]) -> None:
        line["names"][0], line["names"][1] = line["names"][1], line["names"][0]

    cases: list[tuple[Callable[[dict[str, Any]], None], str]] = [
        (swap, "names: the history has ['Ben', 'Ana', 'Cleo'], the commitment ['Ana', "
               "'Ben', 'Cleo']"),
        (lambda line: line["names"].__setitem__(1, "Mallory"),
         "names: the history has ['Ana', 'Mallory', 'Cleo'], the commitment ['Ana', 'Ben', "
         "'Cleo']"),
        (lambda line: line["stacks"].__setitem__(1, 30),
         "stacks: the history has [20, 30, 20], the commitment [20, 20, 20]"),
        (lambda line: line["rules"].__setitem__("suit_tiebreak", "none"),
         "rules.suit_tiebreak: the history has 'none', the commitment 'high_card'"),
        (lambda line: line["rules"].__setitem__("pot_cap", 1000),
         "rules.pot_cap: the history has 1000, the commitment None"),
    ]
    for change, named in cases:
        with pytest.raises(FairnessError) as failed:
            verify_rounds(fairness, _tampered(history, change))
        assert str(failed.value) == ("the session header of the hand history differs from "
                                     f"the one committed before the first deal: {named}")
    # Editing the committed header too is caught by its hash.
    forged = {**fairness, "session": {**fairness["session"], "started": {
        **header, "names": ["Ben", "Ana", "Cleo"]}}}
    with pytest.raises(FairnessError, match="the session header does not hash to its "
                                            f"commitment {digest}"):
        verify_rounds(forged, _tampered(history, swap))


def test_a_hand_shown_after_an_uncontested_win_is_opened_and_checked(tmp_path: Path) -> None:
    """Audit 2 (showhand_verify.py): the hand the uncontested winner shows by choice is
    opened in fairness.json like a showdown hand, so ``guts verify`` checks it: the real
    spectator download verifies, a forged shown hand in it fails (exit 1) naming the seat
    and the cards. Seed 1 commits round 1; nobody sends a client seed, so the committed
    order is the deal order."""
    with make_db_url("sqlite", tmp_path) as url, running_server(url, seed_numbers=(1, 2)
                                                                  ) as server:
        room_id, players = seat_three(server, reveal_seconds=30)
        ana, _, cleo = players
        ana.send({"type": "start"})
        for player in players:
            player.state(lambda t: t["phase"] == "declare" and t["round"] == 1)
        for player, call in zip(players, ("out", "out", "in"), strict=True):
            assert player.declare(1, call)["type"] == "ack"
        if not any(m["type"] == "state" and m["table"]["can_show"] for m in cleo.log):
            cleo.state(lambda t: t["can_show"])  # (the ack comes after the new state)
        cleos = next(e.hands[2] for e in server.manager.rooms[room_id].events
                     if isinstance(e, CardsDealt))
        assert cleos is not None
        cleo.send({"type": "show_hand"})
        opening = ana.expect("opening", lambda m: m["round"] == 1 and m["opened"] != [])
        ana.send({"type": "end_session"})
        ana.state(lambda t: t["phase"] == "over")
        public = server.get(f"/api/rooms/{room_id}/fairness.json").json()
        history = server.get(f"/api/rooms/{room_id}/history.jsonl").text
        for player in players:
            player.close()
    committed = deck_from_seed(bytes([1]) * 32)
    positions = sorted(committed.index(c) for c in cleos)
    shown_line = json.dumps({"type": "HandShown", "seat": 2,
                             "hand": " ".join(card_name(c) for c in cleos)},
                            separators=(",", ":"))
    assert shown_line in history
    # Exactly Cleo's three cards are opened, at their committed positions: with no client
    # seed the deal is the committed order from the top, the dealer Ana's left (Ben) first.
    assert positions == [1, 4, 7]
    assert [(o["position"], o["card"]) for o in opening["opened"]] == [
        (p, card_name(committed[p])) for p in positions]
    assert public["rounds"][0]["opened"] == opening["opened"]

    def verify(text: str) -> tuple[int, str, str]:
        (tmp_path / "fair.json").write_text(json.dumps(public))
        (tmp_path / "hist.jsonl").write_text(text)
        result = CliRunner().invoke(cli_app, ["verify", str(tmp_path / "fair.json"),
                                              "--history", str(tmp_path / "hist.jsonl")])
        return result.exit_code, result.stdout, result.stderr

    code, out, err = verify(history)
    assert (code, err) == (0, ""), err
    assert "round 1: ok (3 cards opened, 0 client seeds, 3 cards of the history match)" \
        in out
    # A forged shown hand (the audit's As Ad Ah) fails, naming the seat and the cards.
    forged = history.replace(shown_line, shown_line.replace(
        json.loads(shown_line)["hand"], "As Ad Ah"))
    assert forged != history
    code, out, err = verify(forged)
    assert code == 1, out
    assert card_name(cleos[0]) == "Ah"  # Cleo's real hand holds one of the three aces
    assert err == ("FAILED: round 1: seat 2 ('Cleo') showed As Ad Ah after the uncontested "
                   "win, but As Ad are not opened in the fairness file: not the dealt cards, "
                   "or the openings were removed\n")
