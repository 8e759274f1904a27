"""Companion mode online (issue 10 part 1): a real table deals, the phones declare and enter
the cards shown, the server moves the chips. Each session is played over WebSocket by one
connection per player (the host is Ana, seat 0, the first dealer) and worked out by hand
against /work/shared/RULES.md (the comments give the arithmetic: the same sessions as
tests/test_companion.py, which checks the core alone). The downloaded hand history replays
through the engine and through ``guts referee`` (:func:`gutskit.core.referee.referee_file`)
to the same stacks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from server_support import Player, Server, running_server
from typer.testing import CliRunner

from gutskit.cli.app import app
from gutskit.core import engine
from gutskit.core.events import Declared
from gutskit.core.history import DeclarationSealed
from gutskit.core.referee import referee_file, settle
from gutskit.io.files import load_records

Table = dict[str, Any]
RUNNER = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": "120",
                        "GUTSKIT_DB": None})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    path: Path = tmp_path_factory.mktemp("companion") / "server.db"
    with running_server(f"sqlite:///{path}") as running:
        yield running


def load_records_text(text: str, tmp_path: Path) -> list[Any]:
    path = tmp_path / "public.jsonl"
    path.write_text(text)
    return load_records(path)


class Phones:
    """A companion room with one phone (WebSocket connection) per player."""

    def __init__(self, server: Server, names: list[str], buy_in: int,
                 rules: Mapping[str, Any]) -> None:
        self.server = server
        created = server.create_room(names[0], buy_in=buy_in, rules=dict(rules),
                                     companion=True)
        self.room_id = created["room_id"]
        self.token = created["token"]
        self.names = names
        self.actions = 0
        self.phones = [Player(server, self.room_id, created["token"])]
        for name in names[1:]:
            phone = Player(server, self.room_id)
            phone.send({"type": "join", "name": name})
            seated = phone.expect("seated")
            phone.seat, phone.token = seated["seat"], seated["token"]
            self.phones.append(phone)
        self.host.send({"type": "start"})
        self.table = self.wait(lambda t: t["round"] == 0)
        assert self.table["companion"]["may_deal"]

    @property
    def host(self) -> Player:
        return self.phones[0]

    def phone(self, name: str) -> Player:
        return self.phones[self.names.index(name)]

    def wait(self, predicate: Callable[[Table], bool]) -> Table:
        """The host's next table view matching ``predicate`` (or the last one received,
        when it matches: the host's own declaration reads up to its ack)."""
        states = [m["table"] for m in self.host.log if m["type"] == "state"]
        if states and not self.host.inbox and predicate(states[-1]) \
                and states[-1] is not self.table:
            self.table = states[-1]
        else:
            self.table = self.host.state(predicate)
        return self.table

    def deal(self) -> None:
        """The dealer's phone says the cards are dealt (the host's when it deals)."""
        number = self.table["round"] + 1
        dealer = self.phones[self.table["dealer"]]
        dealer.send({"type": "deal", "round": number})
        self.wait(lambda t: t["round"] == number and t["phase"] == "declare")

    def declare(self, calls: Mapping[str, str]) -> None:
        number = self.table["round"]
        for name, call in calls.items():
            self.actions += 1  # a round undone is played again under its number: new ids
            answer = self.phone(name).declare(number, call, f"a{self.actions}")
            assert answer["type"] == "ack", answer
        self.wait(lambda t: t["round"] == number and t["phase"] != "declare")

    def show(self, cards: Mapping[str, str]) -> None:
        """Each player in enters their own cards on their phone."""
        number = self.table["round"]
        for name, hand in cards.items():
            self.phone(name).send({"type": "show_cards", "round": number,
                                   "cards": hand.split()})
        self.wait(lambda t: t["round"] == number and t["phase"] in ("deal", "over"))

    def name(self, winners: list[str], low: list[str] | None = None) -> None:
        number = self.table["round"]
        self.host.send({"type": "name_winners", "round": number,
                        "winners": [self.names.index(n) for n in winners],
                        "low_winners": [self.names.index(n) for n in low or []]})
        self.wait(lambda t: t["round"] == number and t["phase"] in ("deal", "over"))

    def round(self, calls: Mapping[str, str], cards: Mapping[str, str] | None = None,
              winners: list[str] | None = None, low: list[str] | None = None) -> None:
        self.deal()
        self.declare(calls)
        if cards is not None:
            assert self.table["phase"] == "showdown"
            self.show(cards)
        elif winners is not None:
            assert self.table["phase"] == "showdown"
            self.name(winners, low)
        assert self.table["phase"] in ("deal", "over")

    def stacks(self) -> dict[str, int]:
        return dict(zip(self.names, self.table["stacks"], strict=True))

    def pot(self) -> int:
        pot: int = self.table["pot"]
        return pot

    def dealer(self) -> str:
        return self.names[self.table["dealer"]]

    def end(self) -> None:
        self.host.send({"type": "end_session"})
        self.wait(lambda t: t["phase"] == "over")

    def check_history(self, tmp_path: Path) -> None:
        """The downloaded history replays through the engine and ``guts referee`` to the
        stacks the phones show; the ledger says who pays whom."""
        response = self.server.get(f"/api/rooms/{self.room_id}/history.jsonl"
                                   f"?token={self.token}")
        assert response.status_code == 200
        path = tmp_path / f"{self.room_id}.jsonl"
        path.write_text(response.text)
        records = load_records(path)  # a viewer's copy: others' sealed declarations
        full = self.server.manager.rooms[self.room_id].events
        assert [r for r in records if not isinstance(r, DeclarationSealed)] == [
            e for e in full if not isinstance(e, Declared) or e.seat == 0]
        state = engine.replay(full)
        assert list(state.stacks) == self.table["stacks"]
        referee = referee_file(records)
        assert referee == self.server.get(f"/api/rooms/{self.room_id}/referee.json"
                                          f"?token={self.token}").json()
        result = settle(referee)  # what `guts referee referee.json` prints
        assert result["stacks"] == self.stacks()
        assert (result["pot"], result["reserve"]) == (state.pot, state.reserve)
        assert settle(referee_file(full))["stacks"] == self.stacks()
        # `guts referee` reads the download itself
        done = RUNNER.invoke(app, ["referee", str(path), "--json"])
        assert done.exit_code == 0, done.output
        assert json.loads(done.output)["stacks"] == self.stacks()
        # a spectator's copy holds the same but Ana's own sealed declarations
        public = load_records_text(self.server.get(
            f"/api/rooms/{self.room_id}/history.jsonl").text, tmp_path)
        assert [r for r in public if not isinstance(r, DeclarationSealed)] == [
            e for e in full if not isinstance(e, Declared)]

    def close(self) -> None:
        for phone in self.phones:
            phone.close()


def test_ten_rounds_under_the_default_rules(server: Server, tmp_path: Path) -> None:
    t = Phones(server, ["Ana", "Ben", "Cleo"], 20, {})
    # 1. A new game: antes 1 -> 19 each, pot 3. Ana and Ben in: Ben's queens beat Ana's ace
    #    high; Ben +3 (22), Ana matches 3 (16). Pot 3. The deal passes left: Ben.
    t.deal()
    assert t.pot() == 3 and t.stacks() == {"Ana": 19, "Ben": 19, "Cleo": 19}
    assert t.table["companion"]["may_deal"] is False  # cards are out
    t.declare({"Ana": "in", "Ben": "in", "Cleo": "out"})
    showdown = t.table["companion"]["showdown"]
    assert t.table["phase"] == "showdown" and showdown["seats"] == [1, 0]  # from the left
    assert t.table["declarations"] == ["in", "in", "out"]  # the fists are open
    # Ben enters first: the others see that he did, not what
    t.phone("Ben").send({"type": "show_cards", "round": 1, "cards": ["Qh", "Qc", "3d"]})
    seen = t.wait(lambda v: v["companion"]["showdown"]["entered"] == [1])
    assert seen["companion"]["showdown"]["mine"] == []
    ben = t.phone("Ben").state(lambda v: v["companion"]["showdown"]["entered"] == [1])
    assert ben["companion"]["showdown"]["mine"] == [{"seat": 1, "cards": ["Qh", "Qc", "3d"]}]
    cleo = t.phone("Cleo").state(lambda v: v["companion"]["showdown"]["entered"] == [1])
    assert cleo["companion"]["showdown"]["mine"] == []
    # Cleo declared out: her cards are not asked for; only the host enters for others
    t.phone("Cleo").send({"type": "show_cards", "round": 1, "cards": ["2h", "2d", "2s"]})
    assert t.phone("Cleo").expect("error")["code"] == "illegal_action"
    t.phone("Cleo").send({"type": "show_cards", "round": 1, "seat": 0,
                          "cards": ["Ah", "Kd", "2c"]})
    assert t.phone("Cleo").expect("error")["code"] == "not_host"
    t.phone("Cleo").send({"type": "name_winners", "round": 1, "winners": [1]})
    assert t.phone("Cleo").expect("error")["code"] == "not_host"
    # a card given twice across the entries: refused without naming the card or Ben
    # (Ben's entry is pending), every entry cleared, no chip moved; both enter again
    t.host.send({"type": "show_cards", "round": 1, "cards": ["Qh", "Kd", "2c"]})
    error = t.host.expect("error")
    assert error["code"] == "entries_conflict" and "Qh" not in error["message"]
    assert "conflict" in error["message"] and "Ben" not in error["message"]
    assert t.host.last_state()["companion"]["showdown"]["entered"] == []
    t.show({"Ben": "Qh Qc 3d", "Ana": "Ah Kd 2c"})
    assert t.stacks() == {"Ana": 16, "Ben": 22, "Cleo": 19}
    assert t.pot() == 3 and t.dealer() == "Ben"
    assert t.table["last_result"]["shown"] == ["Ah Kd 2c", "Qh Qc 3d", None]
    # only the host or the dealer (Ben) says the cards are dealt
    t.phone("Cleo").send({"type": "deal", "round": 2})
    assert t.phone("Cleo").expect("error")["code"] == "not_host"
    # 2. Pot 3, no ante. Ben alone in: uncontested, no cards asked. Ben 25, pot 0.
    t.round({"Ana": "out", "Ben": "in", "Cleo": "out"})
    assert t.stacks() == {"Ana": 16, "Ben": 25, "Cleo": 19}
    assert t.pot() == 0 and t.dealer() == "Cleo"
    # 3. Antes -> 15, 24, 18, pot 3. Nobody in: void; the same dealer, re-ante.
    t.round({"Ana": "out", "Ben": "out", "Cleo": "out"})
    assert t.stacks() == {"Ana": 15, "Ben": 24, "Cleo": 18}
    assert t.pot() == 3 and t.dealer() == "Cleo"
    # 4. Re-ante -> 14, 23, 17, pot 6. All in: Cleo's K-Q-J straight flush wins: +6 (23);
    #    Ana and Ben match 6 (8, 17). Pot 12. Deal to Ana.
    t.round({"Ana": "in", "Ben": "in", "Cleo": "in"},
            cards={"Ana": "2s 3s 4s", "Ben": "As Ad Ac", "Cleo": "Kh Qh Jh"})
    assert t.stacks() == {"Ana": 8, "Ben": 17, "Cleo": 23}
    assert t.pot() == 12 and t.dealer() == "Ana"
    # 5. Pot 12. Ana and Ben in; the host names Ben: +12 (29). Ana owes 12, holds 8:
    #    eliminated, keeps her 8. Pot 0. Deal to Ben.
    t.round({"Ana": "in", "Ben": "in", "Cleo": "out"}, winners=["Ben"])
    assert t.stacks() == {"Ana": 8, "Ben": 29, "Cleo": 23}
    assert t.pot() == 0 and t.table["eliminated"] == [True, False, False]
    assert t.dealer() == "Ben"
    # 6. Antes -> 28, 22, pot 2. Nines and a five each: a split, 1 each. Pot 0.
    t.round({"Ben": "in", "Cleo": "in"}, cards={"Ben": "9h 9d 5c", "Cleo": "9s 9c 5d"})
    assert t.stacks() == {"Ana": 8, "Ben": 29, "Cleo": 23}
    assert t.pot() == 0 and t.dealer() == "Cleo"
    # 7. Antes -> 28, 22, pot 2; a card is exposed: the host calls a misdeal. The antes
    #    stay, the same dealer deals again, no new ante.
    t.deal()
    assert t.table["companion"]["may_misdeal"] is True
    t.host.send({"type": "misdeal", "round": t.table["round"]})
    t.wait(lambda v: v["phase"] == "deal")
    assert t.stacks() == {"Ana": 8, "Ben": 28, "Cleo": 22}
    assert t.pot() == 2 and t.dealer() == "Cleo"
    # 8. The re-deal (no ante): Ben named by mistake: Ben 30, Cleo 20 ... undone by the
    #    host: every chip back, same dealer, a RoundUndone in the history.
    t.round({"Ben": "in", "Cleo": "in"}, winners=["Ben"])
    assert t.stacks() == {"Ana": 8, "Ben": 30, "Cleo": 20} and t.pot() == 2
    assert t.table["companion"]["may_undo"] is True
    t.phone("Ben").send({"type": "undo_round", "round": 8})
    assert t.phone("Ben").expect("error")["code"] == "not_host"
    t.host.send({"type": "undo_round", "round": 8})
    undone = t.host.expect("event", lambda m: m["event"]["type"] == "RoundUndone")
    assert undone["event"]["stacks"] == [8, 28, 22]
    t.wait(lambda v: v["round"] == 7)
    assert t.stacks() == {"Ana": 8, "Ben": 28, "Cleo": 22}
    assert t.pot() == 2 and t.dealer() == "Cleo"
    assert t.table["companion"]["may_undo"] is False  # the last round only, once
    # 9. Cleo alone in: +2 (24). Pot 0. Deal to Ben.
    t.round({"Ben": "out", "Cleo": "in"})
    assert t.stacks() == {"Ana": 8, "Ben": 28, "Cleo": 24}
    assert t.pot() == 0 and t.dealer() == "Ben"
    # 10. Antes -> 27, 23, pot 2. K-Q-7 high each: Ks beats Kd: Ben +2 (29), Cleo 21.
    t.round({"Ben": "in", "Cleo": "in"}, cards={"Ben": "Ks Qd 7c", "Cleo": "Kd Qs 7h"})
    assert t.stacks() == {"Ana": 8, "Ben": 29, "Cleo": 21} and t.pot() == 2
    # The end: the pot of 2 shared by Ben and Cleo, 1 each. 8 + 30 + 22 = 60.
    t.end()
    assert t.stacks() == {"Ana": 8, "Ben": 30, "Cleo": 22}
    ledger = server.get(f"/api/rooms/{t.room_id}/ledger.json").json()
    assert [(x["payer"], x["payee"], x["chips"]) for x in ledger["transfers"]] == [
        ("Ana", "Ben", 10), ("Ana", "Cleo", 2)]
    t.check_history(tmp_path)
    t.close()


def test_ten_rounds_under_the_estonian_rule_book(server: Server, tmp_path: Path) -> None:
    t = Phones(server, ["Ana", "Ben", "Cleo", "Dan"], 60, {"preset": "estonian"})
    everyone = {"Ana": "in", "Ben": "in", "Cleo": "in", "Dan": "in"}
    # 1. Antes -> 59 each, pot 4. Ben's sevens win 4 (63); the others match 4 (55). Pot 12.
    t.round(everyone, cards={"Ana": "Ah Kd", "Ben": "7c 7d", "Cleo": "Qs Jd", "Dan": "3c 2d"})
    assert t.stacks() == {"Ana": 55, "Ben": 63, "Cleo": 55, "Dan": 55}
    assert t.pot() == 12 and t.dealer() == "Ben"
    # 2. Ana's aces win 12 (67); Ben 51, Cleo and Dan 43. Pot 36.
    t.round(everyone, cards={"Ana": "As Ad", "Ben": "7h 6h", "Cleo": "Qc Jc", "Dan": "3d 2s"})
    assert t.stacks() == {"Ana": 67, "Ben": 51, "Cleo": 43, "Dan": 43}
    assert t.pot() == 36 and t.dealer() == "Cleo"
    # 3. Cleo's kings win 36 (79); Ana 31, Ben 15, Dan 7. The matches make 108 > the cap
    #    of 50: pot 50, reserve 58. 31 + 15 + 79 + 7 + 50 + 58 = 240.
    t.round(everyone, cards={"Ana": "Ac Qd", "Ben": "8c 7s", "Cleo": "Kc Kh", "Dan": "4c 2h"})
    assert t.stacks() == {"Ana": 31, "Ben": 15, "Cleo": 79, "Dan": 7}
    assert (t.pot(), t.table["reserve"]) == (50, 58) and t.dealer() == "Dan"
    # 4. Ana and Dan in, Dan named: +50 (57). Ana owes 50, holds 31: eliminated. Pot 0;
    #    the deal passes from Dan past Ana to Ben.
    t.round({"Ana": "in", "Ben": "out", "Cleo": "out", "Dan": "in"}, winners=["Dan"])
    assert t.stacks() == {"Ana": 31, "Ben": 15, "Cleo": 79, "Dan": 57}
    assert (t.pot(), t.table["reserve"]) == (0, 58) and t.dealer() == "Ben"
    # 5. The reserve refills the pot to 50 (reserve 8), antes -> 14, 78, 56, pot 53.
    #    Nobody in: void, re-ante.
    three_out = {"Ben": "out", "Cleo": "out", "Dan": "out"}
    t.round(three_out)
    assert t.stacks() == {"Ana": 31, "Ben": 14, "Cleo": 78, "Dan": 56}
    assert (t.pot(), t.table["reserve"]) == (53, 8) and t.dealer() == "Ben"
    # 6. Re-ante -> 13, 77, 55, pot 56. Cleo alone in: +56 (133). Pot 0.
    t.round({**three_out, "Cleo": "in"})
    assert t.stacks() == {"Ana": 31, "Ben": 13, "Cleo": 133, "Dan": 55}
    assert (t.pot(), t.table["reserve"]) == (0, 8) and t.dealer() == "Cleo"
    # 7. The reserve refills 8, antes -> 12, 132, 54, pot 11. A-K each, Ad > Ac: Cleo
    #    +11 (143), Ben 1. Pot 11.
    t.round({"Ben": "in", "Cleo": "in", "Dan": "out"}, cards={"Ben": "Ac Kc", "Cleo": "Ad Ks"})
    assert t.stacks() == {"Ana": 31, "Ben": 1, "Cleo": 143, "Dan": 54}
    assert (t.pot(), t.table["reserve"]) == (11, 0) and t.dealer() == "Dan"
    # 8. Ben's deuces beat Dan's K-Q: Ben +11 (12), Dan 43. Pot 11.
    t.round({"Ben": "in", "Cleo": "out", "Dan": "in"}, cards={"Ben": "2c 2d", "Dan": "Kh Qh"})
    assert t.stacks() == {"Ana": 31, "Ben": 12, "Cleo": 143, "Dan": 43}
    assert t.pot() == 11 and t.dealer() == "Ben"
    # 9. Fives each: a tie, 5 each, the odd chip stays (odd_chip = "carry"). Pot 1.
    t.round({"Ben": "out", "Cleo": "in", "Dan": "in"}, cards={"Cleo": "5s 5h", "Dan": "5d 5c"})
    assert t.stacks() == {"Ana": 31, "Ben": 12, "Cleo": 148, "Dan": 48}
    assert t.pot() == 1 and t.dealer() == "Cleo"
    # 10. All three in, Dan named: +1 (49); Ben and Cleo match 1 (11, 147). Pot 2.
    t.round({"Ben": "in", "Cleo": "in", "Dan": "in"}, winners=["Dan"])
    assert t.stacks() == {"Ana": 31, "Ben": 11, "Cleo": 147, "Dan": 49}
    assert t.pot() == 2 and t.dealer() == "Dan"
    # The end: pot 2 shared from Dan's left skipping Ana: Ben +1, Cleo +1.
    t.end()
    assert t.stacks() == {"Ana": 31, "Ben": 12, "Cleo": 148, "Dan": 49}
    t.check_history(tmp_path)
    t.close()


def test_ten_rounds_of_hi_lo(server: Server, tmp_path: Path) -> None:
    t = Phones(server, ["Ana", "Ben", "Cleo"], 30, {"preset": "hi-lo"})
    # 1. Antes -> 29 each, pot 3 (high 2, low 1). Ana alone high +2 (31), Ben alone low
    #    +1 (30). Pot 0.
    t.round({"Ana": "high", "Ben": "low", "Cleo": "out"},
            cards={"Ana": "Ah Kd 9c", "Ben": "2c 3d 5h"})
    assert t.stacks() == {"Ana": 31, "Ben": 30, "Cleo": 29} and t.pot() == 0
    # 2. Antes -> 30, 29, 28, pot 3. Ana's queens beat Ben's jacks high: Ana +2 (32), Ben
    #    matches 2 (27); Cleo alone low +1 (29). Pot 2.
    t.round({"Ana": "high", "Ben": "high", "Cleo": "low"},
            cards={"Ana": "Qs Qd 4c", "Ben": "Js Jd 9h", "Cleo": "2d 4h 6s"})
    assert t.stacks() == {"Ana": 32, "Ben": 27, "Cleo": 29} and t.pot() == 2
    # 3. Pot 2. Ana both, wins both ways: +2 (34); Cleo matches the low pot 1 (28). Pot 1.
    t.round({"Ana": "both", "Ben": "out", "Cleo": "low"},
            cards={"Ana": "2h 3c 5d", "Cleo": "2s 4c 6d"})
    assert t.stacks() == {"Ana": 34, "Ben": 27, "Cleo": 28} and t.pot() == 1
    # 4. Ana both, Ben high; Ben named high, nobody low: Ana fails, matches 1 (33); Ben
    #    +1 (28). Pot 1.
    t.round({"Ana": "both", "Ben": "high", "Cleo": "out"}, winners=["Ben"], low=[])
    assert t.stacks() == {"Ana": 33, "Ben": 28, "Cleo": 28} and t.pot() == 1
    # 5. Nobody in: void, same dealer (Ben).
    t.round({"Ana": "out", "Ben": "out", "Cleo": "out"})
    assert t.stacks() == {"Ana": 33, "Ben": 28, "Cleo": 28} and t.dealer() == "Ben"
    # 6. Re-ante -> 32, 27, 27, pot 4. Ana alone high +2 (34). Low: 5-3-2 each, 5d > 5c:
    #    Ben's is lower: +2 (29), Cleo matches 2 (25). Pot 2.
    t.round({"Ana": "high", "Ben": "low", "Cleo": "low"},
            cards={"Ana": "Ts 9s 8s", "Ben": "2s 3h 5c", "Cleo": "2c 3s 5d"})
    assert t.stacks() == {"Ana": 34, "Ben": 29, "Cleo": 25} and t.pot() == 2
    assert t.dealer() == "Cleo"
    # 7. Misdeal: no ante was due (pot 2), nothing moves, Cleo deals again.
    t.deal()
    t.host.send({"type": "misdeal", "round": t.table["round"]})
    t.wait(lambda v: v["phase"] == "deal")
    assert t.stacks() == {"Ana": 34, "Ben": 29, "Cleo": 25} and t.pot() == 2
    assert t.dealer() == "Cleo"
    # 8. Only high declared: it plays for all 2. Ana named: +2 (36), Ben 27. Pot 2.
    t.round({"Ana": "high", "Ben": "high", "Cleo": "out"}, winners=["Ana"])
    assert t.stacks() == {"Ana": 36, "Ben": 27, "Cleo": 25} and t.pot() == 2
    # 9. Low: Ben's 7-4-2 under Ana's K-Q-9: Ben +1 (28), Ana 35. High: Cleo alone +1
    #    (26). Pot 1.
    t.round({"Ana": "low", "Ben": "low", "Cleo": "high"},
            cards={"Ana": "Kd Qc 9h", "Ben": "7d 4s 2h", "Cleo": "Ac Ah 3d"})
    assert t.stacks() == {"Ana": 35, "Ben": 28, "Cleo": 26} and t.pot() == 1
    # 10. Ben alone in: +1 (29). 35 + 29 + 26 = 90.
    t.round({"Ana": "out", "Ben": "high", "Cleo": "out"})
    assert t.stacks() == {"Ana": 35, "Ben": 29, "Cleo": 26} and t.pot() == 0
    t.end()
    t.check_history(tmp_path)
    t.close()


def test_a_dealt_room_refuses_companion_messages_and_a_companion_room_refuses_bots(
        server: Server) -> None:
    created = server.create_room("Ana")
    host = Player(server, created["room_id"], created["token"])
    host.send({"type": "misdeal", "round": 1})
    assert host.expect("error")["code"] == "illegal_action"
    host.close()
    t = Phones(server, ["Ana", "Ben"], 10, {})
    assert server.get(f"/api/rooms/{t.room_id}").json()["companion"] is True
    t.host.send({"type": "add_bot", "style": "standard"})
    assert t.host.expect("error")["code"] in ("illegal_action", "not_in_lobby")
    assert t.table["time_left"] is None  # no clock at a real table
    t.close()


def test_the_host_undoes_a_round_at_its_showdown(server: Server) -> None:
    t = Phones(server, ["Ana", "Ben"], 10, {})
    # Antes 1 each -> 9, 9, pot 2; both in; at the showdown the table finds a card was
    # missing: the host undoes the round: the antes go back (10, 10, pot 0), Ana deals
    # round 1 again.
    t.deal()
    t.declare({"Ana": "in", "Ben": "in"})
    assert t.table["phase"] == "showdown" and t.table["companion"]["may_undo"] is True
    t.phone("Ben").send({"type": "show_cards", "round": 1, "cards": ["2c", "3c", "4c"]})
    t.host.send({"type": "undo_round", "round": 1})
    t.wait(lambda v: v["round"] == 0)
    assert t.stacks() == {"Ana": 10, "Ben": 10} and t.pot() == 0 and t.dealer() == "Ana"
    assert t.table["companion"]["showdown"] is None and t.table["companion"]["may_deal"]
    # the round is played again under its number; Ben's old entry is gone
    t.deal()
    t.declare({"Ana": "in", "Ben": "in"})
    showdown: Any = t.table["companion"]["showdown"]
    assert showdown["entered"] == []
    t.show({"Ana": "Ah Ad 2c", "Ben": "Kh Kd 3c"})
    assert t.stacks() == {"Ana": 11, "Ben": 7} and t.pot() == 2
    t.close()


def test_action_ids_built_from_the_round_number_work_after_an_undo(server: Server) -> None:
    """Audit 2: a client that builds its action ids as prefix + round was answered
    ``duplicate`` (and its declaration dropped) when an undone round was dealt again under
    its number. The server's dedupe key is per dealt round instance now (docs/protocol.md):
    the same ids are taken afresh in the new deal and still deduplicated within it."""
    t = Phones(server, ["Ana", "Ben"], 10, {})
    ana, ben = t.phone("Ana"), t.phone("Ben")
    t.deal()
    assert ana.declare(1, "in", "ana-1")["type"] == "ack"
    assert ben.declare(1, "out", "ben-1")["type"] == "ack"
    t.wait(lambda v: v["round"] == 1 and v["phase"] == "deal")
    assert t.stacks() == {"Ana": 11, "Ben": 9}  # Ana alone in: she takes the pot of 2
    t.host.send({"type": "undo_round", "round": 1})
    t.wait(lambda v: v["round"] == 0)
    assert t.stacks() == {"Ana": 10, "Ben": 10}
    t.deal()  # round 1 again: both in this time, under the same ids
    first = ana.declare(1, "in", "ana-1")
    assert first == {"type": "ack", "action_id": "ana-1", "duplicate": False}
    again = ana.declare(1, "in", "ana-1")  # a retry within the new deal: applied once
    assert again == {"type": "ack", "action_id": "ana-1", "duplicate": True}
    assert ben.declare(1, "in", "ben-1") == {"type": "ack", "action_id": "ben-1",
                                             "duplicate": False}
    t.wait(lambda v: v["round"] == 1 and v["phase"] == "showdown")
    t.show({"Ana": "Ah Ad 2c", "Ben": "Kh Kd 3c"})
    assert t.stacks() == {"Ana": 11, "Ben": 7} and t.pot() == 2  # Ben matches the pot of 2
    t.deal()
    # a late retry of round 1's action in round 2 is still a duplicate, not stale_round
    assert ben.declare(1, "in", "ben-1") == {"type": "ack", "action_id": "ben-1",
                                             "duplicate": True}
    t.close()


def test_a_showdown_entry_never_reveals_the_entries_pending_from_other_seats(
        server: Server) -> None:
    """The audit's probe (/work/audit2/comp_probe.py): the last seat to enter sends hands
    with a repeated card to read the others' pending cards off the error. Each entry is
    checked on its own; a conflict across entries names no card and no seat and clears
    every entry, so the probe recovers nothing."""
    t = Phones(server, ["Ana", "Ben", "Cleo"], 10, {})
    t.deal()
    t.declare({"Ana": "in", "Ben": "in", "Cleo": "in"})
    showdown: Any = t.table["companion"]["showdown"]
    assert showdown["seats"] == [1, 2, 0]  # from Ana's (the dealer's) left
    t.phone("Ben").send({"type": "show_cards", "round": 1, "cards": ["Qh", "7d", "2s"]})
    t.phone("Cleo").send({"type": "show_cards", "round": 1, "cards": ["Jc", "8h", "4d"]})
    t.wait(lambda v: v["companion"]["showdown"]["entered"] == [1, 2])
    ana = t.host
    errors = []
    for probe in ("Qh", "Jc", "5c"):  # two of the others' cards, one free card
        ana.send({"type": "show_cards", "round": 1, "cards": [probe, "3c", "3c"]})
        errors.append(ana.expect("error"))
    assert [e["message"] for e in errors] == ["card 3c is entered twice in your entries"] * 3
    # a probe with distinct cards that conflicts: one generic answer, every entry cleared
    ana.send({"type": "show_cards", "round": 1, "cards": ["Qh", "3c", "4c"]})
    error = ana.expect("error")
    assert error["code"] == "entries_conflict"  # the phone says it in its own language
    assert error["message"].startswith("the cards entered conflict")
    for secret in ("Qh", "Ben", "Cleo", "7d", "Jc"):
        assert secret not in error["message"]
    table = ana.last_state()
    assert table["phase"] == "showdown"
    assert table["companion"]["showdown"]["entered"] == []
    assert table["companion"]["showdown"]["conflicts"] == 1
    assert table["companion"]["showdown"]["mine"] == []
    # every phone is told (the audit-comp tester: only the last sender was): Ben's and
    # Cleo's states count the conflict, their entries are cleared, no card is in them
    for name in ("Ben", "Cleo"):
        seen = t.phone(name).state(
            lambda v: v["companion"]["showdown"]["conflicts"] == 1)
        assert seen["companion"]["showdown"]["entered"] == []
        assert seen["companion"]["showdown"]["mine"] == []
    # everyone enters again: Ana A-9-5 high beats Ben Q-7-2, Cleo J-8-4:
    # antes 1 each (pot 3): Ana wins 3 -> 12; Ben and Cleo match 3 each -> 6, 6, pot 6
    t.show({"Ben": "Qh 7d 2s", "Cleo": "Jc 8h 4d", "Ana": "Ac 9d 5h"})
    assert t.stacks() == {"Ana": 12, "Ben": 6, "Cleo": 6} and t.pot() == 6
    t.close()


def test_the_host_undoes_the_round_that_ended_the_session(server: Server) -> None:
    """The audit's comp_undo_end.py: the host names the wrong winner, Ben is eliminated and
    the session ends; undo_round takes it all back (docs/companion.md: even the end of the
    session), the room plays again. After end_session nothing can be undone."""
    t = Phones(server, ["Ana", "Ben"], 2, {"shortfall": "eliminate"})
    # Antes 1 each -> 1, 1, pot 2; both in; Ana named: wins 2 -> 3; Ben owes a match of 2
    # with 1 chip: eliminated (keeps the 1 he could not pay with), the session ends.
    t.deal()
    t.declare({"Ana": "in", "Ben": "in"})
    t.name(["Ana"])
    assert t.table["phase"] == "over" and t.stacks() == {"Ana": 3, "Ben": 1}
    assert t.table["eliminated"] == [False, True]
    assert server.get(f"/api/rooms/{t.room_id}").json()["status"] == "over"
    assert t.table["companion"]["may_undo"] is True
    ledger = server.get(f"/api/rooms/{t.room_id}/ledger.json").json()
    assert ledger["final"] is True
    t.host.send({"type": "undo_round", "round": 1})
    t.wait(lambda v: v["round"] == 0 and v["phase"] == "deal")
    assert t.stacks() == {"Ana": 2, "Ben": 2} and t.pot() == 0
    assert t.table["eliminated"] == [False, False] and t.dealer() == "Ana"
    assert server.get(f"/api/rooms/{t.room_id}").json()["status"] == "playing"
    ledger = server.get(f"/api/rooms/{t.room_id}/ledger.json").json()
    assert ledger["final"] is False and [r["cash_out"] for r in ledger["rows"]] == [2, 2]
    # the round is played again: Ben wins this time -> Ana 1 + ... Ana matches 2 with 1
    # chip: eliminated; Ben 1 + 2 = 3; the session ends again
    t.deal()
    t.declare({"Ana": "in", "Ben": "in"})
    t.name(["Ben"])
    assert t.table["phase"] == "over" and t.stacks() == {"Ana": 1, "Ben": 3}
    # after the table agreed to stop (end_session) nothing can be undone
    t.host.send({"type": "undo_round", "round": 1})
    t.wait(lambda v: v["round"] == 0 and v["phase"] == "deal")
    t.end()
    t.host.send({"type": "undo_round", "round": 0})
    assert t.host.expect("error")["code"] in ("not_playing", "illegal_action")
    assert server.get(f"/api/rooms/{t.room_id}").json()["status"] == "over"
    t.close()


def counts_seen(phone: Player, number: int) -> list[int]:
    """The numbers of round ``number``'s count this phone was shown, in order (each once),
    and a check that its fists opened only after the last one."""
    seen: list[int] = []
    opened_at = None
    for index, message in enumerate(phone.log):
        if message["type"] == "state" and message["table"]["round"] == number:
            count = message["table"]["companion"]["count"]
            if count is not None and (not seen or seen[-1] != count):
                assert opened_at is None, "a count shown after the fists opened"
                seen.append(count)
        if (message["type"] == "event" and message["event"]["type"] == "DeclarationsRevealed"
                and opened_at is None and seen):
            opened_at = index
    assert opened_at is not None, "the fists never opened after the count"
    return seen


def test_the_server_runs_the_1_2_3_drop_count(server: Server) -> None:
    """Under ``declaration = "drop"`` (RULES.md step 3: "on the count, players who are out
    drop their cards") the server runs the count: every phone is shown 3, 2, 1 and the
    fists open after it, on the server's word; a player who has not dropped when the count
    ends holds their cards and is in; a drop after the count is refused, naming the rule."""
    t = Phones(server, ["Ana", "Ben", "Cleo"], 20, {"declaration": "drop"})
    # 1. Ana deals: antes 1 each -> 19, 19, 19, pot 3. Every fist in: the count starts by
    #    itself. Cleo alone in takes the pot of 3 uncontested (22). Pot 0.
    t.deal()
    number = t.table["round"]
    for name, call in (("Ana", "out"), ("Ben", "out"), ("Cleo", "in")):
        t.actions += 1
        assert t.phone(name).declare(number, call, f"a{t.actions}")["type"] == "ack"
    t.wait(lambda v: v["round"] == 1 and v["phase"] == "deal")
    assert t.stacks() == {"Ana": 19, "Ben": 19, "Cleo": 22} and t.pot() == 0
    for phone in t.phones:  # each phone has received the whole round (not only the host)
        phone.reach(lambda v: v["round"] == 1 and v["phase"] == "deal")
        assert counts_seen(phone, 1) == [3, 2, 1]
    # a late drop: the count of round 1 is over
    late = t.phone("Ana").declare(1, "out", "late-1")
    assert late["type"] == "error" and late["code"] == "illegal_action"
    assert late["message"] == ("too late: the count of round 1 is over and the fists are "
                               "open (1-2-3 drop: a player who did not drop on the count is "
                               "in)")
    # 2. Ben deals: antes -> 18, 18, 21, pot 3. Cleo drops; Cleo (not the host, not the
    #    dealer) may not start the count; Ben, the dealer, starts it while Ana and he still
    #    hold their cards: when it ends both are in (held), a showdown.
    t.deal()
    assert t.table["companion"]["may_count"] is True  # the host's phone
    t.actions += 1
    assert t.phone("Cleo").declare(2, "out", f"a{t.actions}")["type"] == "ack"
    t.phone("Cleo").send({"type": "count", "round": 2})
    refused = t.phone("Cleo").expect("error")
    assert refused["code"] == "not_host"
    t.phone("Ben").send({"type": "count", "round": 2})
    t.wait(lambda v: v["round"] == 2 and v["companion"]["count"] == 3)
    t.phone("Ben").send({"type": "count", "round": 2})
    again = t.phone("Ben").expect("error")
    assert again["message"] == "the count of round 2 is already running"
    t.wait(lambda v: v["round"] == 2 and v["phase"] == "showdown")
    assert t.table["companion"]["showdown"]["seats"] == [0, 1]  # from Ben's left: Ana, Ben
    late = t.phone("Ana").declare(2, "out", "late-2")
    assert late["type"] == "error" and late["message"].startswith(
        "too late: the count of round 2 is over")
    # Ben's queens beat Ana's ace high: Ben +3 (21), Ana matches 3 (15). Pot 3.
    t.show({"Ana": "Ah Kd 2c", "Ben": "Qh Qc 3d"})
    assert t.stacks() == {"Ana": 15, "Ben": 21, "Cleo": 21} and t.pot() == 3
    events = server.manager.rooms[t.room_id].events
    held = [e for e in events if isinstance(e, Declared)][-3:]
    assert [(e.seat, e.declaration.value) for e in held] == [(2, "out"), (0, "in"),
                                                             (1, "in")]
    t.close()
