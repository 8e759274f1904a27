"""End to end (Debian's Chromium via Playwright): what a new user tripped on at the online
table (session 12, fresh user):

* a seat the decision timer counted out is logged as such ("Gus's time ran out: out."),
  never as having declared; the German table says "angesagt" for declared;
* the dealer button stays with the round's dealer while its result is on the table and
  moves with the next deal; a spectator reads "You are watching." once; the keys' hints
  (I/O) on the declaration buttons are not shown on a phone;
* ending the session, removing a seat: a confirmation in the page, Escape or Cancel keeps
  playing;
* a spectator's "Sit at the next session" chairs do not overlap each other or the felt,
  stay inside their panel and show every name whole, on a desktop and on a phone;
* a bot's name for a human: only the reason that applies.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from server_support import Player, running_server
from test_e2e import DESKTOP, WAIT, browser, open_page, seat, set_timers, shots

__all__ = ["browser", "shots"]  # the Chromium and screenshot fixtures of test_e2e

NARROW = {"width": 390, "height": 844}  # the fresh user's phone


def as_host(browser: Browser, http: str, room_id: str, token: str, locale: str = "en-US",
            viewport: dict[str, int] = DESKTOP) -> Page:
    page = open_page(browser, locale, viewport)
    page.context.add_init_script(f"localStorage.setItem('gutskit.seat.{room_id}', '{token}')")
    page.goto(f"{http}/r/{room_id}")
    return page


def test_a_seat_counted_out_by_the_timer_is_not_logged_as_declaring(
        browser: Browser, shots: Path, tmp_path: Path) -> None:
    # Dealer Ana (seat 0); Ben (a phone, French) and Gus (a WebSocket that never declares).
    # Ana in, Ben out; Gus's timer runs out: he is out, Ana in alone wins round 1.
    with running_server(f"sqlite:///{tmp_path / 'timer.db'}", seed_numbers=(1, 2)) as server:
        created = server.create_room("Ana", decision_seconds=600, reveal_seconds=60)
        room_id = created["room_id"]
        ana = as_host(browser, server.http, room_id, created["token"])
        ben = open_page(browser, "fr-FR", NARROW, mobile=True)
        ben.goto(f"{server.http}/r/{room_id}")
        ben.fill("#join-name", "Ben")
        ben.press("#join-name", "Enter")
        expect(ben.locator(".lobby-seat .tag.you")).to_have_count(1, timeout=WAIT)
        gus = Player(server, room_id)
        gus.send({"type": "join", "name": "Gus"})
        gus.expect("seated")
        dee = open_page(browser, "de-DE", NARROW, mobile=True)  # a spectator
        dee.goto(f"{server.http}/r/{room_id}")
        expect(ana.locator(".lobby-seat")).to_have_count(3, timeout=WAIT)
        ana.click("#start")
        expect(ana.locator("#declare-in")).to_be_enabled(timeout=WAIT)
        expect(ben.locator("#declare-out")).to_be_enabled(timeout=WAIT)
        # The keys' hints: on the desktop's buttons, not on the phone's.
        expect(ana.locator("#declare-in kbd")).to_be_visible()
        expect(ben.locator("#declare-out kbd")).to_be_hidden()
        ben.screenshot(path=str(shots / "fresh12-phone-buttons.png"), full_page=True)
        expect(dee.locator('#center .round[data-round="1"]')).to_have_count(1, timeout=WAIT)
        expect(dee.get_by_text("Du schaust zu.")).to_have_count(1)
        ana.click("#declare-in")
        ben.click("#declare-out")
        expect(dee.locator("#log")).to_contain_text("Ana hat angesagt (verdeckt).", timeout=WAIT)
        expect(dee.locator("#log")).to_contain_text("Ben hat angesagt (verdeckt).", timeout=WAIT)
        expect(dee.locator(f"{seat(dee, 0)} .fist.closed")).to_have_text("hat angesagt")
        # Only Gus is silent: his timer is made short (a resume restarts it in full).
        set_timers(server, room_id, decision_seconds=0.2, reveal_seconds=600)
        ana.click("#pause")
        expect(ana.locator("#resume")).to_be_visible(timeout=WAIT)
        ana.click("#resume")
        for page, line in ((ana, "Gus's time ran out: out."),
                           (ben, "Temps écoulé pour Gus : dehors."),
                           (dee, "Die Zeit von Gus ist abgelaufen: raus.")):
            expect(page.locator("#log")).to_contain_text(line, timeout=WAIT)
        expect(ana.locator("#log")).to_contain_text(
            "All fists open: Ana In, Ben Out, Gus Out (timer).")
        for page, wrong in ((ana, "Gus has declared"), (ben, "Gus a déclaré"),
                            (dee, "Gus hat angesagt")):
            expect(page.locator("#log")).not_to_contain_text(wrong)
        # Between rounds: the table's dealer is already Ben (seat 1), the button stays on
        # Ana's seat while round 1's result is shown.
        expect(ana.locator("#result")).to_contain_text("Ana", timeout=WAIT)
        for page in (ana, ben, dee):
            page.wait_for_function("() => window.gutskit.state.table?.dealer === 1",
                                   timeout=WAIT)
            expect(page.locator(f"{seat(page, 0)} .dealer")).to_have_count(1)
            expect(page.locator(".seat .dealer")).to_have_count(1)
        ana.screenshot(path=str(shots / "fresh12-timer-log.png"), full_page=True)
        dee.screenshot(path=str(shots / "fresh12-timer-log-de.png"), full_page=True)
        # The next deal (made short the same way): the button moves to Ben.
        set_timers(server, room_id, reveal_seconds=0, decision_seconds=600)
        ana.click("#pause")
        expect(ana.locator("#resume")).to_be_visible(timeout=WAIT)
        ana.click("#resume")
        for page in (ana, ben, dee):
            expect(page.locator('#center .round[data-round="2"]')).to_have_count(1, timeout=WAIT)
            expect(page.locator(f"{seat(page, 1)} .dealer")).to_have_count(1, timeout=WAIT)
            expect(page.locator(".seat .dealer")).to_have_count(1)
        for page in (ana, ben, dee):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]
        gus.close()


def test_ending_the_session_and_removing_a_seat_ask_first_in_the_page(
        browser: Browser, shots: Path, tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'ask.db'}", seed_numbers=(1, 2)) as server:
        created = server.create_room("Ana", decision_seconds=600, reveal_seconds=60)
        room_id = created["room_id"]
        ana = as_host(browser, server.http, room_id, created["token"])
        ben = Player(server, room_id)
        ben.send({"type": "join", "name": "Ben"})
        ben.expect("seated")
        cleo = Player(server, room_id)
        cleo.send({"type": "join", "name": "Cleo"})
        cleo.expect("seated")
        expect(ana.locator(".lobby-seat")).to_have_count(3, timeout=WAIT)
        ana.click("#start")
        expect(ana.locator("#declare-in")).to_be_enabled(timeout=WAIT)
        dialogs: list[str] = []
        ana.on("dialog", lambda dialog: dialogs.append(dialog.message))
        box = ana.locator("dialog#confirm")
        # End the session: asked in the page; Escape keeps playing.
        ana.click("#end-session")
        expect(box).to_be_visible(timeout=WAIT)
        expect(box).to_contain_text("End the session now? The pot is shared out")
        expect(ana.locator("#confirm-ok")).to_have_text("End the session")
        ana.screenshot(path=str(shots / "fresh12-confirm-end.png"))
        ana.keyboard.press("Escape")
        expect(box).to_be_hidden(timeout=WAIT)
        # Remove Cleo: Cancel keeps her.
        ana.click("#kick-2")
        expect(box).to_contain_text("Remove Cleo from the table?", timeout=WAIT)
        ana.click("#confirm-cancel")
        expect(box).to_be_hidden(timeout=WAIT)
        # Nothing was sent: the session plays on, Cleo seated (a declaration is still taken).
        ana.click("#declare-in")
        expect(ana.locator(f"{seat(ana, 0)} .fist.closed")).to_have_count(1, timeout=WAIT)
        expect(ana.locator(f"{seat(ana, 2)}.kicked")).to_have_count(0)
        assert server.manager.rooms[room_id].status == "playing"
        assert not server.manager.rooms[room_id].seats[2].kicked
        # Confirmed: the session ends.
        ana.click("#end-session")
        ana.click("#confirm-ok")
        expect(ana.locator("#share-out")).to_be_visible(timeout=WAIT)
        assert dialogs == []  # no browser dialog: the page's own
        assert ana.errors == [], ana.errors  # type: ignore[attr-defined]
        ben.close()
        cleo.close()


def boxes(page: Page, selector: str) -> list[dict[str, float]]:
    found: list[dict[str, float]] = page.eval_on_selector_all(
        selector, "els => els.map(e => { const r = e.getBoundingClientRect();"
                  " return {x: r.x, y: r.y, w: r.width, h: r.height}; })")
    return found


def apart(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] + a["w"] <= b["x"] + 0.5 or b["x"] + b["w"] <= a["x"] + 0.5
            or a["y"] + a["h"] <= b["y"] + 0.5 or b["y"] + b["h"] <= a["y"] + 0.5)


def inside(a: dict[str, float], outer: dict[str, float]) -> bool:
    return (a["x"] >= outer["x"] - 0.5 and a["y"] >= outer["y"] - 0.5
            and a["x"] + a["w"] <= outer["x"] + outer["w"] + 0.5
            and a["y"] + a["h"] <= outer["y"] + outer["h"] + 0.5)


def test_the_spectators_chairs_do_not_overlap_on_a_desktop_or_a_phone(
        browser: Browser, shots: Path, tmp_path: Path) -> None:
    # Five seats in play (two bots), one with a long name (on more lines in its chair).
    with running_server(f"sqlite:///{tmp_path / 'chairs.db'}", seed_numbers=(1, 2)) as server:
        created = server.create_room("Hanna", decision_seconds=600, reveal_seconds=60)
        room_id = created["room_id"]
        host = Player(server, room_id, created["token"])
        players = []
        for name in ("Gus", "Bartholomew Fairweather"):
            player = Player(server, room_id)
            player.send({"type": "join", "name": name})
            player.expect("seated")
            players.append(player)
        for style in ("loose", "cautious"):
            host.send({"type": "add_bot", "style": style})
        host.expect("room", lambda m: len(m["room"]["seats"]) == 5)
        host.send({"type": "start"})
        host.expect("room", lambda m: m["room"]["status"] == "playing")
        for viewport, mobile, name in ((DESKTOP, False, "desktop"), (NARROW, True, "phone")):
            page = open_page(browser, "en-US", viewport, mobile=mobile)
            page.goto(f"{server.http}/r/{room_id}")
            panel = page.locator("#sit-next")
            expect(panel.locator(".chair")).to_have_count(10, timeout=WAIT)
            expect(panel.locator('[data-chair-at="2"]')).to_have_attribute(
                "data-chair-name", "Bartholomew Fairweather")
            panel.scroll_into_view_if_needed()
            panel.screenshot(path=str(shots / f"fresh12-sit-chairs-{name}.png"))
            page.screenshot(path=str(shots / f"fresh12-sit-{name}.png"), full_page=True)
            chairs = boxes(page, "#sit-next .chair")
            felt = boxes(page, "#sit-next .chair-felt")[0]
            outer = boxes(page, "#sit-next")[0]
            for i, a in enumerate(chairs):
                assert inside(a, outer), (name, i, a, outer)
                assert apart(a, felt), (name, i, a, felt)
                for j in range(i + 1, len(chairs)):
                    assert apart(a, chairs[j]), (name, i, j, a, chairs[j])
            # clockwise from chair 1 at the bottom: 1 right of 2 right of 3 (the bottom
            # row), 5 above 4 above 3 (the left), 8 above 9 above 10 (the right)
            at = {int(k): v for k, v in zip(page.eval_on_selector_all(
                "#sit-next .chair", "els => els.map(e => e.dataset.chairAt)"), chairs,
                strict=True)}
            assert at[0]["x"] > at[1]["x"] > at[2]["x"], name
            assert at[4]["y"] < at[3]["y"] < at[2]["y"], name
            assert at[7]["y"] < at[8]["y"] < at[9]["y"], name
            assert at[4]["y"] == at[5]["y"] == at[6]["y"] == at[7]["y"], name
            # every name whole (a long one on more lines), none cut ("Bruno (…")
            for chair in (0, 1, 2, 3, 4):
                whole = page.locator(f'#sit-next [data-chair-at="{chair}"] .chair-name').evaluate(
                    "e => e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight")
                assert whole, (name, chair)
            assert page.errors == [], page.errors  # type: ignore[attr-defined]
            page.context.close()
        for player in (host, *players):
            player.close()


def test_a_bots_name_for_a_human_says_only_that(browser: Browser, tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'name.db'}") as server:
        page = open_page(browser, "en-US", NARROW, mobile=True)
        page.goto(server.http)
        page.fill("#host-name", "Ava (bot)")
        page.click("#create-button")
        problem = page.locator("#create-error")
        expect(problem).to_contain_text("This name cannot be used. (name 'Ava (bot)' reads as "
                                        "a bot's name", timeout=WAIT)
        expect(problem).not_to_contain_text("1 to 24")
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
