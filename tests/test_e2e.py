"""End to end: three browsers (Debian's Chromium driven by Playwright) play a session at the
browser table of ``guts serve``.

The server runs in this process on 127.0.0.1 (a free port, a temporary SQLite database)
with the test seeds of ``tests/test_server.py``, so every card and chip is known:

Three-card Guts, buy-in 20, ante 1, dealer Ana (seat 0); cards go Ben, Cleo, Ana, ...

* Round 1 (seed 1): Ana Ts Td Qc, Ben Qd Jh 7h, Cleo Ah 6c 2h; antes: pot 3, stacks 19.
  Ana in (button), Ben in (key I), Cleo out: showdown, Ana's pair of tens beats Ben's queen
  high: Ana 19 + 3 = 22, Ben matches 3: 16, Cleo 19, next pot 3.
* Round 2 (seed 2, dealer Ben): Ana and Ben out, Cleo silent: the timer ends, Cleo counts
  as out, a void round: the pot stays 3.
* Round 3 (seed 3, dealer Ben): Ana 2s As Ac, Ben 4s 7s Qd, Cleo 6d 4c Kc; antes 3: pot 6,
  stacks 21, 15, 18. Ben reloads his page (his seat and cards come back); Ana out, Ben out,
  Cleo in alone: uncontested, Cleo 18 + 6 = 24, pot 0.
* Round 4 (seed 4, dealer Cleo): antes 3, stacks 20, 14, 23. The host ends the session:
  the pot is shared, 1 each: Ana 21 (+1), Ben 15 (-5), Cleo 24 (+4); Ben pays Cleo 4 and
  Ana 1.

Ana's browser speaks English, Ben's French, Cleo's German (chosen from the browser's
language); Cleo's screen is a phone's (375 px wide). Screenshots of the table go to
``$GUTSKIT_E2E_SHOTS`` (or the test's temporary folder).

Debian's Chromium (``/usr/bin/chromium``, installed by ``.ci/run``) is required: the test
fails when it is missing.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright
from server_support import Server, running_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 375, "height": 740}
WAIT = 60000  # ms: the longest any screen may take to show what the server decided (a
# generous bound for a loaded machine: a passing test waits only as long as it must)
expect.set_options(timeout=WAIT)  # every expect(...) of every browser test, not Playwright's
# 5 s: a check written without timeout= right after a click waits for the screen as long
# (every test_e2e_*.py imports this module)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium "
                    "(apt-get install -y chromium; .ci/run does this)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                              args=CHROMIUM_ARGS, timeout=120_000)
        yield chromium
        chromium.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("GUTSKIT_E2E_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_page(browser: Browser, locale: str, viewport: dict[str, int], *,
              mobile: bool = False) -> Page:
    context = browser.new_context(locale=locale, viewport=viewport,  # type: ignore[arg-type]
                                  is_mobile=mobile, has_touch=mobile)
    page = context.new_page()
    # Every action (goto, click, inner_text...) waits for its page up to WAIT, not
    # Playwright's 30 s: a loaded machine's Chromium is slow.
    page.set_default_timeout(WAIT)
    page.set_default_navigation_timeout(WAIT)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # A Content-Security-Policy violation is only a console message: count it as an error.
    page.on("console", lambda message: errors.append(message.text)
            if "Content Security Policy" in message.text else None)
    page.on("dialog", lambda dialog: dialog.accept())
    page.errors = errors  # type: ignore[attr-defined]
    return page


def cards_on(page: Page, selector: str = "[data-card]") -> list[str]:
    """The face-up cards a page shows (``data-card`` of every card element)."""
    cards: list[str] = page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.card)")
    return cards


def seat(page: Page, number: int) -> str:
    return f'.seat[data-seat="{number}"]'


def watch(page: Page, selector: str, attribute: str | None = None) -> None:
    """Record in the page, from now on, every value the first element matching
    ``selector`` shows (its text, or its ``attribute``), in order, without repeats (read by
    :func:`seen`). For what the screen shows only for a moment (a reaction beside a seat,
    4 s; each number of a count, 1 s): a loaded machine's test may look seconds late, and
    an ``expect`` of it then fails though the screen showed it."""
    page.evaluate("""([selector, attribute]) => {
        const seen = (window.__seen ??= {})[selector] = [];
        const look = () => {
            const element = document.querySelector(selector);
            if (!element) return;
            const value = attribute ? element.getAttribute(attribute) : element.textContent;
            if (value !== null && seen[seen.length - 1] !== value) seen.push(value);
        };
        new MutationObserver(look).observe(document.documentElement, {
            subtree: true, childList: true, characterData: true, attributes: true});
        look();
    }""", [selector, attribute])


def seen(page: Page, selector: str, until: list[str]) -> list[str]:
    """The values :func:`watch` recorded for ``selector``, once they end with ``until``
    (waiting up to WAIT for it)."""
    deadline = time.monotonic() + WAIT / 1000
    while True:
        values: list[str] = page.evaluate("(s) => (window.__seen || {})[s] || []", selector)
        if values[-len(until):] == until or time.monotonic() > deadline:
            return values
        page.wait_for_timeout(100)


def expect_stacks(page: Page, stacks: list[int]) -> None:
    for number, chips in enumerate(stacks):
        expect(page.locator(f"{seat(page, number)} .stack .num")).to_have_text(
            str(chips), timeout=WAIT)


def wait_for_round(page: Page, number: int) -> None:
    """Wait until round ``number`` is being declared and this seat may declare."""
    expect(page.locator(f'#center .round[data-round="{number}"][data-phase="declare"]')
           ).to_have_count(1, timeout=WAIT)
    expect(page.locator("#declare-out")).to_be_enabled(timeout=WAIT)


@contextmanager
def paused(host: Page, *others: Page) -> Iterator[None]:
    """The host pauses the table (the timer and the next deal stop) while the screens are
    checked, then resumes it."""
    host.click("#pause")
    for page in (host, *others):
        expect(page.locator("#banner .state.warn")).to_be_visible(timeout=WAIT)
    yield
    host.click("#resume")
    expect(host.locator("#pause")).to_be_visible(timeout=WAIT)


def join(browser: Browser, invite: str, name: str, locale: str, viewport: dict[str, int],
         *, mobile: bool = False) -> Page:
    page = open_page(browser, locale, viewport, mobile=mobile)
    page.goto(invite)
    page.fill("#join-name", name)
    # Enter in the name field submits the form (as #join-button does) without aiming at a
    # point on the page: the lobby re-renders as frames arrive, and once under load (CI,
    # session 6) a click at the button's place did not join.
    page.press("#join-name", "Enter")
    expect(page.locator(".lobby-seat .tag.you")).to_have_count(1, timeout=WAIT)
    return page


def set_timers(server: Server, room_id: str, **seconds: float) -> None:
    """Change a room's ``decision_seconds`` / ``reveal_seconds`` in play (the next timer
    started uses them: a deal, a new turn, a resume)."""
    room = server.manager.rooms[room_id]
    room.settings = dataclasses.replace(room.settings, **seconds)  # type: ignore[arg-type]


def server_ledger(server: Server, room_id: str) -> list[dict[str, str]]:
    text = server.get(f"/api/rooms/{room_id}/ledger.csv").text
    table = text.split("\n\n")[0]
    return list(csv.DictReader(io.StringIO(table)))


def test_three_browsers_play_a_session(browser: Browser, shots: Path, tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'e2e.db'}", seed_numbers=(1, 2, 3, 4),
                        dealer=0, bot_delay=(0.0, 0.0)) as server:
        # --- Ana creates the room from the home page, adds and kicks a bot. ---------------
        ana = open_page(browser, "en-US", DESKTOP)
        ana.goto(server.http + "/")
        expect(ana.locator("html")).to_have_attribute("lang", "en")
        ana.fill("#host-name", "Ana")
        ana.fill("#buy-in", "20")
        ana.fill("#decision-seconds", "30")
        ana.fill("#reveal-seconds", "2.5")
        # Whole seeds: the deals are the test seeds' (the default mixes in the browsers'
        # random client seeds, tests/test_server_fairness.py).
        ana.select_option("#seed-reveal", "round")
        ana.click("#create-button")
        ana.wait_for_url(re.compile(r"/r/[A-Za-z0-9_-]+$"))
        room_id = ana.url.rsplit("/", 1)[1]
        invite = ana.input_value("#invite")
        assert invite == f"{server.http}/r/{room_id}"
        ana.click("#add-bot")
        expect(ana.locator(".lobby-seat")).to_have_count(2)
        ana.click("#kick-1")
        ana.click("#confirm-ok")  # the confirmation in the page
        expect(ana.locator(".lobby-seat")).to_have_count(1)

        # --- Ben (French) and Cleo (German, phone) join by the link. ----------------------
        ben = join(browser, invite, "Ben", "fr-FR", DESKTOP)
        cleo = join(browser, invite, "Cleo", "de-DE", PHONE, mobile=True)
        everyone = (ana, ben, cleo)
        expect(ana.locator(".lobby-seat")).to_have_count(3)
        expect(cleo.locator("#lobby h3").first).to_have_text("3 Plätze besetzt")
        ana.click("#start")

        # --- Round 1: sealed declarations, the reveal, the showdown. ----------------------
        wait_for_round(ana, 1)
        with paused(ana, ben, cleo):
            for page in everyone:
                wait_for_round(page, 1)
                expect(page.locator("#pot")).to_have_text("3")
                expect_stacks(page, [19, 19, 19])
            assert sorted(cards_on(ana, "#my-hand [data-card]")) == ["Qc", "Td", "Ts"]
            assert sorted(cards_on(ben, "#my-hand [data-card]")) == ["7h", "Jh", "Qd"]
            assert sorted(cards_on(cleo, "#my-hand [data-card]")) == ["2h", "6c", "Ah"]
            for page, own in ((ana, {"Ts", "Td", "Qc"}), (ben, {"Qd", "Jh", "7h"}),
                              (cleo, {"Ah", "6c", "2h"})):
                assert set(cards_on(page)) == own  # nobody sees another's cards
            expect(ana.locator("#my-hand + .my-desc")).to_have_text("Pair of tens, queen kicker")
            expect(ben.locator("#declare-in")).to_contain_text("Dedans")
            expect(cleo.locator("#declare-in")).to_contain_text("Rein")
            expect(cleo.locator("#declare-out")).to_contain_text("Raus")
            # A spectator (Estonian) by the same link: no cards, no buttons.
            watcher = open_page(browser, "et-EE", PHONE, mobile=True)
            watcher.goto(invite)
            expect(watcher.locator("#banner .state.info")).to_have_text("Sa vaatad pealt.",
                                                                        timeout=WAIT)
            expect(watcher.locator(".seat")).to_have_count(3)
            assert cards_on(watcher) == []
            expect(watcher.locator("[data-declare]")).to_have_count(0)
        expect(ana.locator("#countdown .secs")).to_have_text(re.compile(r"^([1-9]|[12]\d|30) s$"))

        ana.click("#declare-in")
        expect(ana.locator("#my-declaration")).to_contain_text("You declared In")
        # Ana's fist is closed on the others' screens: declared, not what.
        expect(ben.locator(f"{seat(ben, 0)} .fist.closed")).to_have_text("a déclaré")
        expect(cleo.locator(f"{seat(cleo, 0)} .fist.closed")).to_have_text("hat angesagt")
        ben.locator("body").press("i")  # the keyboard shortcut
        expect(cleo.locator("#waiting")).to_have_text("Warten auf 1 Spieler")
        expect(ana.locator(".fist.open")).to_have_count(0)
        with paused(ana, ben, cleo):  # the round ends while paused: the next deal waits
            cleo.click("#declare-out")  # seats may declare while the table is paused
            for page in everyone:  # all fists open at once
                expect(page.locator(".fist.open")).to_have_count(3, timeout=WAIT)
                expect(page.locator(f"{seat(page, 0)}.is-in")).to_have_count(1)
                expect(page.locator(f"{seat(page, 1)}.is-in")).to_have_count(1)
                expect(page.locator(f"{seat(page, 2)}.is-out")).to_have_count(1)
                expect(page.locator(f"{seat(page, 0)}.winner")).to_have_count(1)
                expect(page.locator("#pot")).to_have_text("3")
                expect_stacks(page, [22, 16, 19])
            # The shown hands: Ana's and Ben's, to everyone; Cleo's (out) to nobody else.
            assert sorted(cards_on(ana, f"{seat(ana, 1)} [data-card]")) == ["7h", "Jh", "Qd"]
            assert sorted(cards_on(cleo, f"{seat(cleo, 0)} [data-card]")) == ["Qc", "Td", "Ts"]
            for page in (ana, ben, watcher):
                assert not {"Ah", "6c", "2h"} & set(cards_on(page))
            expect(watcher.locator(".fist.open")).to_have_count(3)
            assert sorted(cards_on(watcher)) == ["7h", "Jh", "Qc", "Qd", "Td", "Ts"]
            expect(ana.locator("#my-shown + .my-desc")).to_have_text("Pair of tens, queen kicker")
            expect(ben.locator(seat(ben, 0))).to_contain_text("Paire de dix, kicker dame")
            expect(ana.locator("#result")).to_contain_text("Ana wins 3")
            expect(ana.locator("#result")).to_contain_text("Ben matches 3")
            expect(ana.locator("#result")).to_contain_text("The pot is now 3.")
            expect(cleo.locator("#result")).to_contain_text("Ben gleicht 3 an")
            expect(ben.locator("#result")).to_contain_text("Ana gagne 3")
            time.sleep(1.5)  # the reveal animation ends
            ana.screenshot(path=str(shots / "table-desktop.png"))
            cleo.screenshot(path=str(shots / "table-phone.png"), full_page=True)

        # --- Round 2: Cleo stays silent; the timer counts her out: a void round. ----------
        for page in everyone:
            wait_for_round(page, 2)
        assert sorted(cards_on(cleo, "#my-hand [data-card]")) == ["7d", "Ad", "Jh"]
        ana.keyboard.press("o")
        ben.click("#declare-out")
        expect(cleo.locator("#waiting")).to_have_text("Warten auf 1 Spieler")
        # Ana and Ben have declared: the timer is made short now (and the result kept on
        # the table), so it ends for Cleo alone however slowly the machine runs. A resume
        # restarts the timer in full, with the room's new setting.
        set_timers(server, room_id, decision_seconds=1, reveal_seconds=600)
        ana.click("#pause")
        ana.click("#resume")
        expect(ana.locator(".fist.open")).to_have_count(3, timeout=WAIT)
        with paused(ana):
            set_timers(server, room_id, decision_seconds=30, reveal_seconds=2.5)
            for page in everyone:
                expect(page.locator(f"{seat(page, 2)}.is-out")).to_have_count(1, timeout=WAIT)
                expect(page.locator(".fist.open.in")).to_have_count(0)
            expect(ana.locator("#result")).to_contain_text("Everyone was out")
            expect(ana.locator("#pot")).to_have_text("3")
            expect_stacks(ana, [22, 16, 19])

        # --- Round 3: Ben reloads his page and gets his seat back. ------------------------
        wait_for_round(ana, 3)
        with paused(ana):
            ben.reload()
            expect(ben.locator(f"{seat(ben, 1)}.me")).to_have_count(1, timeout=WAIT)
            assert sorted(cards_on(ben, "#my-hand [data-card]")) == ["4s", "7s", "Qd"]
            expect(ben.locator("#log")).to_contain_text("Manche 1 distribuée")  # the history
            for page in everyone:
                wait_for_round(page, 3)
                expect(page.locator("#pot")).to_have_text("6")
        ana.click("#declare-out")
        cleo.click("#declare-in")
        expect(ben.locator(f"{seat(ben, 2)} .fist.closed")).to_have_count(1, timeout=WAIT)
        with paused(ana):  # the round ends while paused
            ben.keyboard.press("o")
            expect(ana.locator(".fist.open")).to_have_count(3, timeout=WAIT)
            for page, text in ((ana, "Cleo was in alone and wins 6 uncontested"),
                               (ben, "Personne d'autre n'est dedans : Cleo remporte 6 "
                                     "sans abattage"),
                               (cleo, "Cleo ist allein „rein“ und gewinnt 6 unangefochten")):
                expect(page.locator("#result")).to_contain_text(text, timeout=WAIT)
                expect(page.locator("#pot")).to_have_text("0")
                expect_stacks(page, [21, 15, 24])
            for page in (ana, ben):  # an uncontested winner does not show her cards
                assert not {"6d", "4c", "Kc"} & set(cards_on(page))

            # --- A dropped connection: reconnected automatically. -------------------------
            before = ben.evaluate("window.gutskit.state.statuses.length")
            ben.evaluate("window.gutskit.drop()")
            ben.wait_for_function(
                "n => window.gutskit.state.statuses.length > n + 2"
                " && window.gutskit.state.status === 'open'", arg=before, timeout=WAIT)
            statuses = ben.evaluate("window.gutskit.state.statuses")[before:]
            assert statuses == ["waiting", "connecting", "open"]
            expect(ben.locator(f"{seat(ben, 1)}.me")).to_have_count(1)
            expect(ben.locator("#banner .state.bad")).to_have_count(0)

        # --- Round 4: the host ends the session; the ledger. ------------------------------
        wait_for_round(ana, 4)
        ana.click("#end-session")
        ana.click("#confirm-ok")  # the confirmation in the page
        for page in everyone:
            expect(page.locator("#banner .state.over")).to_be_visible(timeout=WAIT)
            expect_stacks(page, [21, 15, 24])
            expect(page.locator("#ledger-pot")).to_have_text("0")  # nothing left in the pot
            expect(page.locator("#ledger-table tfoot td").nth(3)).to_have_text("")
        rows = ana.eval_on_selector_all(
            "#ledger-table tbody tr",
            "trs => trs.map(tr => [...tr.cells].map(td => td.textContent.trim()))")
        assert rows == [["Ana", "20", "21", "+1"], ["Ben", "20", "15", "-5"],
                        ["Cleo", "20", "24", "+4"]]
        expect(ana.locator("#transfers li")).to_have_text(["Ben pays Cleo 4", "Ben pays Ana 1"])
        expect(cleo.locator("#transfers li")).to_have_text(
            ["Ben zahlt Cleo 4", "Ben zahlt Ana 1"])
        ledger = server_ledger(server, room_id)
        assert [[r["name"], r["buy_in"], r["cash_out"], r["net"]] for r in ledger] == [
            [name, buy_in, stack, net.replace("+", "")] for name, buy_in, stack, net in rows]
        assert sum(int(r["net"]) for r in ledger) == 0
        room = server.manager.rooms[room_id]
        assert room.state is not None and room.state.stacks == (21, 15, 24)
        assert ana.get_attribute("#dl-ledger", "href") == f"/api/rooms/{room_id}/ledger.csv"

        for page in (*everyone, watcher):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_pass_the_trash_and_hi_lo_with_bots(browser: Browser, shots: Path,
                                            tmp_path: Path) -> None:
    """Pass the Trash and Hi-Lo, one player (Indonesian browser) and two bots. Seed 1,
    dealer Ana: Ava (bot) Qd Jh 7h, Bruno (bot) Ah 6c 2h, Ana Ts Td Qc. Ana passes Ts to
    Ava (on her left) and receives one of Bruno's cards; then she declares high."""
    with running_server(f"sqlite:///{tmp_path / 'e2e.db'}", seed_numbers=(1,), dealer=0,
                        bot_delay=(0.0, 0.1)) as server:
        created = server.create_room("Ana", rules={"pass_the_trash": True, "hi_lo": True},
                                     decision_seconds=30, reveal_seconds=30,
                                     seed_reveal="round")
        room_id = created["room_id"]
        page = open_page(browser, "id-ID", DESKTOP)
        # The room's creator: the seat token is in this browser's storage.
        page.context.add_init_script(
            f"localStorage.setItem('gutskit.seat.{room_id}', '{created['token']}')")
        page.goto(f"{server.http}/r/{room_id}")
        expect(page.locator(".lobby-seat .tag.you")).to_have_count(1, timeout=WAIT)
        for count in (2, 3):
            page.click("#add-bot")
            expect(page.locator(".lobby-seat")).to_have_count(count)
        page.click("#start")
        expect(page.locator("[data-pass]")).to_have_count(3, timeout=WAIT)
        assert cards_on(page, "[data-pass] [data-card]") == ["Ts", "Td", "Qc"]
        expect(page.locator("#me .prompt")).to_have_text(
            "Pilih kartu yang dioper ke Ava (bot).")
        page.click("#pass-Ts")
        expect(page.locator("#declare-high")).to_be_enabled(timeout=WAIT)
        hand = cards_on(page, "#my-hand [data-card]")
        received = (set(hand) - {"Td", "Qc"}).pop()
        assert len(hand) == 3 and received in {"Ah", "6c", "2h"}
        expect(page.locator("#me")).to_contain_text("Anda mengoper 10♠.")
        expect(page.locator("[data-declare]")).to_have_text(
            ["Tinggi H", "Rendah L", "Keduanya B", "Out O"])
        page.keyboard.press("h")
        expect(page.locator(".fist.open")).to_have_count(3, timeout=WAIT)
        expect(page.locator(f"{seat(page, 0)}.is-in .fist")).to_contain_text("Tinggi")
        expect(page.locator("#result")).to_be_visible()
        stacks = [int(page.inner_text(f"{seat(page, n)} .stack .num")) for n in range(3)]
        pot = int(page.inner_text("#pot"))
        assert sum(stacks) + pot == 60  # no chip created or destroyed
        room = server.manager.rooms[room_id]
        assert room.state is not None
        assert (list(room.state.stacks), room.state.pot) == (stacks, pot)
        time.sleep(1.5)  # the reveal animation ends
        page.screenshot(path=str(shots / "hi-lo-desktop.png"))
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
