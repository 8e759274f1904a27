"""End to end (Debian's Chromium via Playwright): seating and rematch of the online table
(issue 10, part 2). Screenshots go to ``$GUTSKIT_E2E_SHOTS`` (or the test's temporary
folder), each on a phone (390 x 844) and a desktop:

* seat choice when joining (the chair picker: ten chairs clockwise);
* host approval of who sits down (approve and deny);
* a spectator who asks to sit for the next session, and the rematch with the ledger
  carried; the rematch with the ledger reset keeps the bot.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from server_support import Player, Server, running_server
from test_e2e import DESKTOP, WAIT, browser, open_page, shots

__all__ = ["browser", "shots"]  # the Chromium and screenshot fixtures of test_e2e

PHONE = {"width": 390, "height": 844}


def as_seat(page: Page, server: Server, room_id: str, token: str) -> None:
    """Open the room in ``page`` holding the seat of ``token``."""
    page.context.add_init_script(f"localStorage.setItem('gutskit.seat.{room_id}', '{token}')")
    page.goto(f"{server.http}/r/{room_id}")


def test_a_joining_player_picks_a_free_seat(browser: Browser, shots: Path,
                                            tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'chairs.db'}") as server:
        created = server.create_room("Ana")
        room_id = created["room_id"]
        host = open_page(browser, "en-US", DESKTOP)
        as_seat(host, server, room_id, created["token"])
        expect(host.locator('[data-chair-at="0"]')).to_have_attribute(
            "data-chair-name", "Ana", timeout=WAIT)
        # Ben (German, on a phone) picks the chair 5 (number 4 of the protocol)
        ben = open_page(browser, "de-DE", PHONE, mobile=True)
        ben.goto(f"{server.http}/r/{room_id}")
        expect(ben.locator("#chair-4")).to_contain_text("hier sitzen", timeout=WAIT)
        expect(ben.locator("#chair-table")).to_contain_text("im Uhrzeigersinn")
        ben.click("#chair-4")
        expect(ben.locator("#chair-4")).to_have_attribute("aria-pressed", "true")
        expect(ben.locator("#chosen-chair")).to_have_text("Platz 5")
        ben.screenshot(path=str(shots / "seating-pick-phone.png"), full_page=True)
        ben.fill("#join-name", "Ben")
        ben.click("#join-button")
        expect(ben.locator('.chair.me[data-chair-at="4"]')).to_contain_text("Ben", timeout=WAIT)
        # Cleo takes chair 3 (number 2): she sits between Ana and Ben in the seat order
        cleo = Player(server, room_id)
        cleo.send({"type": "join", "name": "Cleo", "seat": 2})
        assert cleo.expect("seated")["seat"] == 1
        expect(host.locator('[data-chair-at="2"]')).to_have_attribute(
            "data-chair-name", "Cleo", timeout=WAIT)
        expect(host.locator(".lobby-seat .name")).to_have_text(["Ana", "Cleo", "Ben"])
        expect(ben.locator('.chair.me[data-chair-at="4"]')).to_have_count(1)
        expect(ben.locator(".lobby-seat").nth(2).locator(".tag.you")).to_have_count(1)
        # a chair taken while another spectator looked at it: the server says so
        dee = open_page(browser, "fr-FR", PHONE, mobile=True)
        dee.goto(f"{server.http}/r/{room_id}")
        expect(dee.locator("#chair-1")).to_be_visible(timeout=WAIT)
        dee.click("#chair-1")
        eve = Player(server, room_id)
        eve.send({"type": "join", "name": "Eve", "seat": 1})
        eve.expect("seated")
        dee.fill("#join-name", "Dee")
        expect(dee.locator('[data-chair-at="1"]')).to_have_attribute(
            "data-chair-name", "Eve", timeout=WAIT)
        # the pick is dropped once the chair is taken: Dee sits at the lowest free chair
        dee.click("#join-button")
        expect(dee.locator('.chair.me[data-chair-at="3"]')).to_contain_text("Dee", timeout=WAIT)
        host.screenshot(path=str(shots / "seating-lobby-desktop.png"), full_page=True)
        host.click("#start")
        expect(host.locator("#log")).to_contain_text("Ana, Eve, Cleo, Dee, Ben", timeout=WAIT)
        for page in (host, ben, dee):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_host_approval_of_who_sits_down(browser: Browser, shots: Path,
                                        tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'approve.db'}") as server:
        # The host creates the room from the home page with the approval switch on.
        host = open_page(browser, "en-US", DESKTOP)
        host.goto(server.http + "/")
        host.fill("#host-name", "Ana")
        host.check("#approve-seats")
        host.click("#create-button")
        expect(host.locator("#invite")).to_be_visible(timeout=WAIT)
        room_id = host.url.rsplit("/", 1)[1]
        assert server.get(f"/api/rooms/{room_id}").json()["approve_seats"] is True
        ben = open_page(browser, "fr-FR", PHONE, mobile=True)
        ben.goto(f"{server.http}/r/{room_id}")
        expect(ben.locator("#join-button")).to_have_text("Demander une place", timeout=WAIT)
        ben.click("#chair-6")
        ben.fill("#join-name", "Ben")
        ben.click("#join-button")
        state = ben.locator("#seat-request-state")
        expect(state).to_have_text("Vous avez demandé la place 7 : en attente de l'hôte.",
                                   timeout=WAIT)
        expect(ben.locator('.chair.waiting.me[data-chair-at="6"]')).to_contain_text("Ben")
        ben.screenshot(path=str(shots / "seating-waiting-phone.png"), full_page=True)
        requests = host.locator("#seat-requests")
        expect(requests).to_contain_text("Ben asks for seat 7", timeout=WAIT)
        host.screenshot(path=str(shots / "seating-approve-desktop.png"), full_page=True)
        host.click("#approve-seat-1")
        expect(ben.locator('.chair.me.taken[data-chair-at="6"]')).to_contain_text(
            "Ben", timeout=WAIT)
        expect(ben.locator("#seat-request-state")).to_have_count(0)
        expect(ben.locator(".lobby-seat .tag.you")).to_have_count(1)
        # Cleo (Estonian) asks and is refused: she watches on
        cleo = open_page(browser, "et-EE", PHONE, mobile=True)
        cleo.goto(f"{server.http}/r/{room_id}")
        cleo.fill("#join-name", "Cleo")
        cleo.click("#join-button")
        expect(cleo.locator("#seat-request-state")).to_contain_text("ootad võõrustajat",
                                                                    timeout=WAIT)
        expect(requests).to_contain_text("Cleo asks for seat 2", timeout=WAIT)
        host.click("#deny-seat-2")
        expect(cleo.locator("#toast")).to_have_text(
            "Võõrustaja ei andnud sulle kohta. Saad pealt vaadata.", timeout=WAIT)
        expect(cleo.locator("#join-button")).to_be_visible()
        expect(cleo.locator("#seat-request-state")).to_have_count(0)
        expect(requests).to_have_count(0)
        cleo.screenshot(path=str(shots / "seating-refused-phone.png"), full_page=True)
        assert [s["name"] for s in server.get(f"/api/rooms/{room_id}").json()["seats"]] == [
            "Ana", "Ben"]
        for page in (host, ben, cleo):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_a_spectator_asks_to_sit_and_the_rematch_carries_the_ledger(
        browser: Browser, shots: Path, tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'rematch.db'}") as server:
        created = server.create_room("Ana")
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"])  # Ana's decisions
        ben = Player(server, room_id)
        ben.send({"type": "join", "name": "Ben", "seat": 4})
        ben.token = ben.expect("seated")["token"]
        host = open_page(browser, "en-US", DESKTOP)  # Ana's screen
        as_seat(host, server, room_id, created["token"])
        expect(host.locator("#start")).to_be_enabled(timeout=WAIT)
        host.click("#start")
        expect(host.locator("#pot")).to_have_text("2", timeout=WAIT)
        # Dee (Indonesian, phone) watches and asks for chair 3 at the next session
        dee = open_page(browser, "id-ID", PHONE, mobile=True)
        dee.goto(f"{server.http}/r/{room_id}")
        panel = dee.locator("#sit-next")
        expect(panel).to_contain_text("Ikut bermain di sesi berikutnya", timeout=WAIT)
        expect(panel.locator('[data-chair-at="4"]')).to_have_attribute("data-chair-name", "Ben")
        panel.locator("#chair-2").click()
        dee.fill("#join-name", "Dee")
        dee.click("#join-button")
        expect(dee.locator("#seat-request-state")).to_have_text(
            "Kursi 3 milikmu mulai sesi berikutnya.", timeout=WAIT)
        dee.screenshot(path=str(shots / "seating-next-session-phone.png"), full_page=True)
        # Round 1: pot 2 (antes); Ana in alone takes it: 21, 19. The host ends the session
        # (round 2's antes are shared back): Ana +1, Ben -1.
        ana.expect("state", lambda m: m["table"]["phase"] == "declare")
        assert ana.declare(1, "in")["type"] == "ack"
        assert ben.declare(1, "out")["type"] == "ack"
        ana.state(lambda t: t["round"] == 1 and t["phase"] == "deal")
        ana.send({"type": "end_session"})
        ana.state(lambda t: t["phase"] == "over")
        expect(host.locator("#rematch-carried")).to_be_visible(timeout=WAIT)
        host.screenshot(path=str(shots / "seating-rematch-desktop.png"), full_page=True)
        host.click("#rematch-carried")
        # everyone moves to the new room: Ana and Ben with their seats, Dee seated
        host.wait_for_url(lambda url: room_id not in url, timeout=WAIT)
        new_id = host.url.rsplit("/", 1)[1]
        expect(host.locator("#rematch-of")).to_have_attribute("data-carried", "1", timeout=WAIT)
        expect(dee).to_have_url(f"{server.http}/r/{new_id}", timeout=WAIT)
        expect(dee.locator('.chair.me[data-chair-at="2"]')).to_contain_text("Dee", timeout=WAIT)
        expect(dee.locator("#rematch-of")).to_contain_text("buku besar melanjutkan")
        expect(host.locator(".lobby-seat .name")).to_have_text(["Ana", "Dee", "Ben"])
        dee.screenshot(path=str(shots / "seating-rematch-lobby-phone.png"), full_page=True)
        ben2 = Player(server, new_id, ben.token)
        assert ben2.seat == 2
        host.click("#start")
        expect(host.locator("#pot")).to_have_text("3", timeout=WAIT)
        ana2 = Player(server, new_id, created["token"])
        ana2.send({"type": "end_session"})  # the antes are shared back: every net 0
        ledger = host.locator("#ledger-table")
        expect(ledger.locator("thead")).to_contain_text("Earlier", timeout=WAIT)
        rows = ledger.locator("tbody tr")
        expect(rows).to_have_count(3)
        # name, buy-in, stack, net, earlier sessions, total: Ana +1, Dee 0, Ben -1
        expect(rows.nth(0).locator("td")).to_have_text(["Ana", "20", "20", "0", "+1", "+1"])
        expect(rows.nth(1).locator("td")).to_have_text(["Dee", "20", "20", "0", "0", "0"])
        expect(rows.nth(2).locator("td")).to_have_text(["Ben", "20", "20", "0", "-1", "-1"])
        expect(host.locator("#transfers")).to_have_text("Ben pays Ana 1", timeout=WAIT)
        expect(host.locator("#previous-room")).to_have_attribute("href", f"/r/{room_id}")
        host.screenshot(path=str(shots / "seating-carried-ledger-desktop.png"), full_page=True)
        dee.screenshot(path=str(shots / "seating-carried-ledger-phone.png"), full_page=True)
        for page in (host, dee):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_rematch_with_the_ledger_reset_keeps_the_bot(browser: Browser, shots: Path,
                                                     tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'reset.db'}") as server:
        created = server.create_room("Ana")
        room_id = created["room_id"]
        ana = Player(server, room_id, created["token"])
        ana.send({"type": "add_bot", "style": "loose"})
        ana.expect("room", lambda m: len(m["room"]["seats"]) == 2)
        ana.send({"type": "start"})
        ana.state(lambda t: t["phase"] == "declare")
        ana.send({"type": "end_session"})
        ana.state(lambda t: t["phase"] == "over")
        host = open_page(browser, "de-DE", PHONE, mobile=True)
        as_seat(host, server, room_id, created["token"])
        expect(host.locator("#rematch-reset")).to_have_text("Revanche, Abrechnung neu",
                                                            timeout=WAIT)
        host.screenshot(path=str(shots / "seating-rematch-phone.png"), full_page=True)
        host.click("#rematch-reset")
        expect(host.locator("#rematch-of")).to_have_attribute("data-carried", "0", timeout=WAIT)
        expect(host.locator("#rematch-of")).to_contain_text("beginnt bei null")
        expect(host.locator(".lobby-seat .bot-style")).to_have_attribute("data-bot-style",
                                                                         "loose")
        # the old link says where the next session is
        old = open_page(browser, "en-US", DESKTOP)
        old.goto(f"{server.http}/r/{room_id}")
        expect(old.locator("#next-room-link")).to_have_attribute(
            "href", host.url.replace(server.http, ""), timeout=WAIT)
        old.screenshot(path=str(shots / "seating-old-room-desktop.png"), full_page=True)
        for page in (host, old):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]
