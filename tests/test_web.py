"""The browser table's static files and JSON helpers (``gutskit.server.web``): the page and
its modules are served, every translation has every text, the rule choices, hand
descriptions and the ledger as JSON (checked against ``ledger.csv``)."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_support import Player, Server, running_server, seeds

from gutskit.core.events import SessionEnded
from gutskit.core.rules import Rules
from gutskit.server.web import HandDescriptionError, describe_hand, ledger_json

STATIC = Path(__file__).parent.parent / "src" / "gutskit" / "server" / "static"
LANGUAGES = ["en", "de", "fr", "et", "id"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("web") / "web.db"
    with running_server(f"sqlite:///{db}", seed_numbers=(1,), dealer=0) as running:
        yield running


def test_the_page_is_served_at_the_root_and_at_room_links(server: Server) -> None:
    for path in ("/", "/r/anything"):
        page = server.get(path)
        assert page.status_code == 200
        assert '<script type="module" src="/static/app.js"></script>' in page.text
    for name, kind in (("app.js", "javascript"), ("i18n.js", "javascript"),
                       ("cards.js", "javascript"), ("net.js", "javascript"),
                       ("app.css", "text/css"), ("i18n/et.json", "json")):
        response = server.get(f"/static/{name}")
        assert response.status_code == 200, name
        assert kind in response.headers["content-type"], name


def test_no_file_is_loaded_from_elsewhere() -> None:
    for path in STATIC.rglob("*"):
        if path.suffix in (".html", ".js", ".css"):
            assert not re.search(r"(src|href)=\"https?://|url\(https?:|import .* from \"https?:",
                                 path.read_text(encoding="utf-8")), path


def test_every_language_has_every_text_with_the_same_placeholders() -> None:
    english = json.loads((STATIC / "i18n" / "en.json").read_text(encoding="utf-8"))
    scripts = "".join((STATIC / name).read_text(encoding="utf-8")
                      for name in ("app.js", "companion.js"))
    used = set(re.findall(r"\bt\(\"([\w.]+)\"", scripts))
    used |= {f"{k}_other" for k in re.findall(r"\btn\(\"(\w+)\"", scripts)}
    assert used - set(english) == set()
    for language in LANGUAGES[1:]:
        texts = json.loads((STATIC / "i18n" / f"{language}.json").read_text(encoding="utf-8"))
        assert set(texts) == set(english), language
        for key, text in english.items():
            assert set(re.findall(r"\{\w+\}", texts[key])) == set(
                re.findall(r"\{\w+\}", text)), (language, key)



def _texts() -> dict[str, dict[str, str]]:
    return {lang: json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
            for lang in LANGUAGES}


def test_counts_are_singular_or_plural_never_chip_s() -> None:
    texts = _texts()
    for language, table in texts.items():
        for key, text in table.items():  # "chip(s)", "jeton(s)", "žetoon(i)", "võitja(d)"
            assert not re.search(r"\w\(\w{1,3}\)", text), (language, key, text)
    filled = {lang: (texts[lang]["res_carried_one"].format(chips=1),
                     texts[lang]["res_carried_other"].format(chips=3)) for lang in LANGUAGES}
    assert filled == {
        "en": ("1 chip of the split did not divide evenly and stays in the pot.",
               "3 chips of the split did not divide evenly and stay in the pot."),
        "de": ("1 Chip der Teilung ging nicht auf und bleibt im Pott.",
               "3 Chips der Teilung gingen nicht auf und bleiben im Pott."),
        "fr": ("1 jeton du partage ne se divise pas et reste dans le pot.",
               "3 jetons du partage ne se divisent pas et restent dans le pot."),
        "et": ("1 žetoon ei jagunenud võrdselt ja jääb potti.",
               "3 žetooni ei jagunenud võrdselt ja jäävad potti."),
        "id": ("1 chip dari pembagian tidak habis dibagi dan tetap di pot.",
               "3 chip dari pembagian tidak habis dibagi dan tetap di pot."),
    }
    en = texts["en"]
    assert en["warn_debt_one"].format(chips=4, stack=1, pays=4, after=-3).startswith(
        "Careful: the match (4) is more than your 1 chip. ")
    assert en["comp_antes_due_one"].format(chips=1) == "Antes at this deal: 1 chip in all."
    assert en["res_to_reserve_one"].format(chips=1) == "1 chip goes to the reserve."
    assert en["log_rebought_other"].format(name="Ana", chips=5) == "Ana buys 5 more chips."
    scripts = "".join((STATIC / name).read_text(encoding="utf-8")
                      for name in ("app.js", "companion.js"))
    for key in ("res_carried", "res_to_reserve", "log_rebought", "comp_antes_due",
                "log_winners_named"):
        assert f'tn("{key}", ' in scripts, key  # the count picks the form
    # the language's plural rule chooses (French: 0 and 1 are singular), not n === 1
    assert "new Intl.PluralRules(current).select(n)" in (STATIC / "i18n.js").read_text(
        encoding="utf-8")


def test_the_end_reasons_gutskit_writes_are_shown_in_every_language() -> None:
    from gutskit.core import table as driver
    from gutskit.core.engine import new_session

    script = (STATIC / "i18n.js").read_text(encoding="utf-8")
    keys = dict(re.findall(r'^ *"([^"]+)": "(end\.\w+)",$', script, re.M))
    _, events = driver.end(new_session(["Ana", "Ben"], 10))
    ended = events[-1]
    assert isinstance(ended, SessionEnded)
    assert keys[ended.reason] == "end.agreed"
    source = Path(driver.__file__).parent.parent
    written = {"the host ended the session": "server/rooms.py",
               "fewer than two players left at the table": "core/table.py",
               "fewer than two players left with chips": "core/engine.py",
               "uncontested win after matched rounds (end_on_uncontested)": "core/engine.py"}
    for reason, module in written.items():
        assert f'"{reason}"' in (source / module).read_text(encoding="utf-8"), reason
        assert reason in keys, reason
    assert 'f"the room was idle for {minutes:g} minutes"' in (
        source / "server" / "rooms.py").read_text(encoding="utf-8")
    assert "/^the room was idle for ([\\d.]+) minutes$/" in script
    texts = _texts()
    assert {lang: texts[lang]["end.host"] for lang in LANGUAGES} == {
        "en": "the host ended the session", "de": "der Gastgeber hat die Sitzung beendet",
        "fr": "l'hôte a terminé la session", "et": "võõrustaja lõpetas sessiooni",
        "id": "tuan rumah mengakhiri sesi"}
    assert texts["de"]["end.idle"].format(minutes=30) == "der Raum war 30 Minuten lang untätig"
    assert 't("log_ended", { reason: endReason(e.reason) })' in (
        STATIC / "app.js").read_text(encoding="utf-8")


def test_the_rule_books_terms_are_used() -> None:
    texts = {lang: json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
             for lang in LANGUAGES}
    assert (texts["de"]["decl.in"], texts["de"]["decl.out"], texts["de"]["pot"]) == (
        "Rein", "Raus", "Pott")
    assert "gleicht" in texts["de"]["res_matches"]  # angleichen
    assert (texts["fr"]["decl.in"], texts["fr"]["decl.out"]) == ("Dedans", "Dehors")
    assert "égale" in texts["fr"]["res_matches"]
    assert (texts["et"]["decl.in"], texts["et"]["decl.out"], texts["et"]["pot"]) == (
        "Sees", "Väljas", "Pott")
    assert "vastab potile" in texts["et"]["res_matches"]
    assert (texts["id"]["decl.in"], texts["id"]["decl.out"]) == ("In", "Out")
    assert "menyumbang sejumlah pot" in texts["id"]["res_matches"]


def test_rules_api_lists_the_choices_of_each_rule(server: Server) -> None:
    data = server.get("/api/rules").json()
    assert data["choices"]["cards_per_hand"] == [2, 3]
    assert data["choices"]["declaration"] == ["simultaneous", "sequential", "drop"]
    assert "pot_cap" not in data["choices"]  # a number, not a choice
    assert set(data["choices"]) <= set(data["rules"])


def test_hands_are_described_under_the_rooms_rules(server: Server) -> None:
    three = server.create_room("Ana")["room_id"]
    two = server.create_room("Ana", rules={"cards_per_hand": 2})["room_id"]
    monte = server.create_room("Ana", rules={"community_card": True})["room_id"]
    got = server.get(f"/api/rooms/{three}/hands?cards=Ts Td Qc&cards=Ah 2s 3c").json()
    assert got["hands"] == [
        {"cards": ["Ts", "Td", "Qc"], "category": "pair", "ranks": ["T", "Q"],
         "description": "Pair of tens, queen kicker"},
        {"cards": ["Ah", "2s", "3c"], "category": "straight", "ranks": ["3"],
         "description": "Straight, ace to three"}]
    got = server.get(f"/api/rooms/{two}/hands?cards=Ah Kd").json()
    assert got["hands"][0]["description"] == "Ace-king high"
    # Own three cards plus the community card: the best three of the four.
    got = server.get(f"/api/rooms/{monte}/hands?cards=Ah Kh 2c Qh").json()
    assert got["hands"][0]["cards"] == ["Ah", "Kh", "Qh"]
    assert got["hands"][0]["description"] == "Straight flush, queen to ace"
    for bad, words in (("Ts Ts Qc", "Ts Ts Qc"), ("Zz 2c 3c", "Zz"), ("Ah Kd", "2 cards")):
        response = server.get(f"/api/rooms/{three}/hands?cards={bad}")
        assert response.status_code == 400
        assert response.json()["code"] == "bad_message"
        assert words in response.json()["message"]
    assert server.get("/api/rooms/nosuchroom/hands?cards=Ah").status_code == 404


def test_describe_hand_errors_name_the_hand() -> None:
    with pytest.raises(HandDescriptionError, match="'Ah Kd Qc Js Tc'"):
        describe_hand("Ah Kd Qc Js Tc", Rules())


def test_ledger_json_matches_ledger_csv_in_the_lobby_and_after_a_session(
        server: Server) -> None:
    """Two players, buy-in 20, seed 1 (Qd Ah Ts Jh 6c Td ...), dealer Ana: Ben Qd Ts 6c,
    Ana Ah Jh Td. Antes: pot 2, 19 each. Both in: Ana's ace high beats Ben's queen high:
    Ana 21, Ben matches 2: 17, pot 2. The host ends the session: 1 each: Ana 22 (+2), Ben 18
    (-2); Ben pays Ana 2."""
    server.manager.new_seed = seeds(1)  # the next seed is 1, whatever ran before
    created = server.create_room("Ana", seed_reveal="round")  # seeds drawn at the deals
    room_id = created["room_id"]
    lobby = server.get(f"/api/rooms/{room_id}/ledger.json").json()
    assert lobby == {"final": False, "pot": 0, "reserve": 0, "transfers": [], "rows": [
        {"seat": 0, "name": "Ana", "buy_in": 20, "cash_out": 20, "net": 0}]}
    ana = Player(server, room_id, created["token"])
    ben = Player(server, room_id)
    ben.send({"type": "join", "name": "Ben"})
    ben.seat = ben.expect("seated")["seat"]
    ana.send({"type": "start"})
    table = ana.state(lambda t: t["phase"] == "declare")
    assert table["hand"] == ["Ah", "Jh", "Td"]
    assert ana.declare(1, "in")["type"] == "ack"
    assert ben.declare(1, "in")["type"] == "ack"
    table = ana.state(lambda t: t["phase"] == "declare" and t["round"] == 2)
    assert (table["stacks"], table["pot"]) == ([21, 17], 2)
    ana.send({"type": "end_session"})
    ana.state(lambda t: t["phase"] == "over")
    data = server.get(f"/api/rooms/{room_id}/ledger.json").json()
    assert data == {"final": True, "pot": 0, "reserve": 0, "rows": [
        {"seat": 0, "name": "Ana", "buy_in": 20, "cash_out": 22, "net": 2},
        {"seat": 1, "name": "Ben", "buy_in": 20, "cash_out": 18, "net": -2}],
        "transfers": [{"payer": "Ben", "payee": "Ana", "chips": 2}]}
    text = server.get(f"/api/rooms/{room_id}/ledger.csv").text
    rows, settlement = text.split("\n\n")
    assert [[int(r["seat"]), r["name"], int(r["buy_in"]), int(r["cash_out"]), int(r["net"])]
            for r in csv.DictReader(io.StringIO(rows))] == [
        [r["seat"], r["name"], r["buy_in"], r["cash_out"], r["net"]] for r in data["rows"]]
    assert list(csv.DictReader(io.StringIO(settlement))) == [
        {"payer": "Ben", "payee": "Ana", "chips": "2"}]
    ana.close()
    ben.close()


def test_ledger_json_while_in_play_has_no_transfers() -> None:
    data = ledger_json(["Ana", "Ben"], [20, 20], [25, 12], final=False, pot=3)
    assert data["transfers"] == [] and data["pot"] == 3
    assert sum(r["net"] for r in data["rows"]) + data["pot"] == 0
