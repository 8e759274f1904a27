"""End to end (Debian's Chromium via Playwright): companion mode on three phones at a
pretend real table (issue 10 part 1). Ana creates the room on her phone with the companion
switch, Ben and Cleo join by the link; the dealer's phone says the cards are dealt, each
declares on their own phone, the players in enter their real cards with the card picker
(Ana, the host, also enters Cleo's once and names a winner once), the host undoes a round
and ends the session. The stacks are those of tests/test_companion.py's default-rules
session, worked out by hand there; the history the server kept settles to the same stacks
through ``guts referee`` (:func:`gutskit.core.referee.referee_file`). Screenshots go to
``$GUTSKIT_E2E_SHOTS`` (or the test's temporary folder).
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from server_support import running_server
from test_e2e import WAIT, browser, expect_stacks, join, open_page, seen, shots, watch

from gutskit.core.referee import referee_file, settle

__all__ = ["browser", "shots"]  # the Chromium and screenshot fixtures of test_e2e

PHONE = {"width": 390, "height": 844}


def phone(browser: Browser) -> Page:
    page = open_page(browser, "en-US", PHONE, mobile=True)
    page.on("dialog", lambda dialog: dialog.accept())  # the host's confirmations
    return page


def at_round(pages: tuple[Page, ...], number: int, phase: str) -> None:
    for page in pages:
        expect(page.locator(f'#center .round[data-round="{number}"][data-phase="{phase}"]')
               ).to_have_count(1, timeout=WAIT)


def pick(page: Page, cards: str) -> None:
    """Enter ``cards`` ("Qh Qc 3d") with the card picker: a rank, then a suit, per card."""
    for card in cards.split():
        page.click(f'[data-comp-rank="{card[0]}"]')
        page.click(f'[data-comp-suit="{card[1]}"]')
    expect(page.locator("#comp-slots [data-card]")).to_have_count(len(cards.split()))
    assert page.eval_on_selector_all("#comp-slots [data-card]",
                                     "els => els.map(e => e.dataset.card)") == cards.split()


def declare(calls: dict[Page, str]) -> None:
    for page, call in calls.items():
        page.click(f"#declare-{call}")


def test_three_phones_play_companion_rounds_with_real_cards(
        browser: Browser, shots: Path, tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'companion.db'}", dealer=0) as server:
        # --- Ana creates a companion room on her phone; Ben and Cleo join by the link. --
        ana = phone(browser)
        ana.goto(server.http + "/")
        ana.fill("#host-name", "Ana")
        ana.fill("#buy-in", "20")
        ana.check("#companion-mode")
        expect(ana.locator("#decision-seconds")).to_be_hidden()  # no clock at a real table
        expect(ana.locator("#seed-reveal")).to_be_hidden()  # no deck to prove
        ana.screenshot(path=str(shots / "companion-create.png"), full_page=True)
        ana.click("#create-button")
        ana.wait_for_url(re.compile(r"/r/[A-Za-z0-9_-]+$"))
        room_id = ana.url.rsplit("/", 1)[1]
        expect(ana.locator("#comp-badge")).to_have_text("Real cards", timeout=WAIT)
        expect(ana.locator("#add-bot")).to_have_count(0)  # no bots at a real table
        invite = ana.input_value("#invite")
        ben = join(browser, invite, "Ben", "en-US", PHONE, mobile=True)
        cleo = join(browser, invite, "Cleo", "en-US", PHONE, mobile=True)
        everyone = (ana, ben, cleo)
        expect(ana.locator(".lobby-seat")).to_have_count(3)
        ana.click("#start")

        # --- Round 1: Ana deals at the table and says so; Ben's phone waits for her. ------
        expect(ana.locator("#comp-dealt")).to_be_visible(timeout=WAIT)
        expect(ben.locator("#comp-wait-dealer")).to_have_text("Waiting for Ana to deal.")
        expect(ben.locator("#comp-dealt")).to_have_count(0)
        ana.screenshot(path=str(shots / "companion-deal.png"), full_page=True)
        ana.click("#comp-dealt")
        at_round(everyone, 1, "declare")
        for page in everyone:
            expect(page.locator("#pot")).to_have_text("3")
            expect_stacks(page, [19, 19, 19])
            expect(page.locator("#comp-look")).to_be_visible()
        declare({ana: "in", ben: "in", cleo: "out"})
        # The fists open on every phone; the showdown asks Ben and Ana (from the dealer's
        # left), not Cleo, who was out.
        at_round(everyone, 1, "showdown")
        expect(cleo.locator("#comp-picker")).to_have_count(0)
        expect(cleo.locator("#comp-waiting")).to_have_text("Waiting for: Ben, Ana")
        pick(ben, "Qh Qc 3d")
        ben.screenshot(path=str(shots / "companion-picker.png"), full_page=True)
        ben.click("#comp-send")
        expect(ana.locator("#comp-entered")).to_have_text("Cards in: Ben", timeout=WAIT)
        expect(ben.locator("#comp-mine")).to_contain_text("Q♥ Q♣ 3♦")
        assert ana.locator("#companion [data-card]").count() == 0  # Ben's entry stays his
        pick(ana, "Ah Kd 2c")
        ana.screenshot(path=str(shots / "companion-host-showdown.png"), full_page=True)
        ana.click("#comp-send")
        at_round(everyone, 1, "deal")
        for page in everyone:
            expect_stacks(page, [16, 22, 19])
            expect(page.locator("#comp-dealer")).to_have_text("Ben deals round 2.")
            # the cards shown are on every phone: Ben's on the seats of the others
        expect(cleo.locator('.seat[data-seat="1"] [data-card]')).to_have_count(3)
        cleo.screenshot(path=str(shots / "companion-result.png"), full_page=True)

        # --- Round 2: Ben deals; alone in, he takes the pot of 3 uncontested. -------------
        expect(ana.locator("#comp-dealt")).to_be_visible()  # the host may say it too
        expect(cleo.locator("#comp-dealt")).to_have_count(0)
        ben.click("#comp-dealt")
        at_round(everyone, 2, "declare")
        declare({ana: "out", ben: "in", cleo: "out"})
        at_round(everyone, 2, "deal")
        for page in everyone:
            expect_stacks(page, [16, 25, 19])
        # --- Round 3: Cleo deals, antes 1 each; nobody in: void, re-ante, Cleo again. -----
        cleo.click("#comp-dealt")
        at_round(everyone, 3, "declare")
        declare({ana: "out", ben: "out", cleo: "out"})
        at_round(everyone, 3, "deal")
        for page in everyone:
            expect_stacks(page, [15, 24, 18])
        expect(cleo.locator("#comp-dealt")).to_be_visible()
        # --- Round 4: all in; Ana, the host, enters Cleo's cards for her. -----------------
        cleo.click("#comp-dealt")
        at_round(everyone, 4, "declare")
        declare({ana: "in", ben: "in", cleo: "in"})
        at_round(everyone, 4, "showdown")
        pick(ben, "As Ad Ac")
        ben.click("#comp-send")
        ana.click('[data-comp-target="seat:2"]')
        pick(ana, "Kh Qh Jh")
        ana.click("#comp-send")
        expect(cleo.locator("#comp-entered")).to_have_text("Cards in: Ben, Cleo", timeout=WAIT)
        expect(ana.locator('[data-comp-target="seat:0"]')).to_have_class(
            re.compile("chosen"), timeout=WAIT)
        pick(ana, "2s 3s 4s")
        ana.click("#comp-send")
        at_round(everyone, 4, "deal")
        for page in everyone:
            expect_stacks(page, [8, 17, 23])
            expect(page.locator("#pot")).to_have_text("12")
        # --- Round 5: Ana deals; Ana and Ben in; the host names Ben without cards. -------
        ana.click("#comp-dealt")
        at_round(everyone, 5, "declare")
        declare({ana: "in", ben: "in", cleo: "out"})
        at_round(everyone, 5, "showdown")
        ana.click("#comp-winners summary")
        ana.click('[data-comp-name="high:1"]')
        ana.screenshot(path=str(shots / "companion-name-winners.png"), full_page=True)
        ana.click("#comp-confirm-winners")
        at_round(everyone, 5, "deal")
        for page in everyone:
            expect_stacks(page, [8, 29, 23])  # Ana could not match 12: eliminated
        # ... and undoes it (the table agreed Ana's cards were better after all): every
        # chip back, Ana deals round 5 again.
        expect(ben.locator("#comp-undo")).to_have_count(0)  # the host's alone
        ana.click("#comp-undo")
        ana.click("#confirm-ok")  # the confirmation in the page
        at_round(everyone, 4, "deal")
        for page in everyone:
            expect_stacks(page, [8, 17, 23])
            expect(page.locator("#comp-dealer")).to_have_text("Ana deals round 5.")
        expect(ana.locator("#log")).to_contain_text("Round 5 was undone by the host")
        ana.click("#comp-dealt")
        at_round(everyone, 5, "declare")
        expect(ana.locator("#log li").first).to_have_text("Round 5 dealt.")  # its number again
        declare({ana: "in", ben: "in", cleo: "out"})
        at_round(everyone, 5, "showdown")
        pick(ben, "9c 9d 2h")
        ben.click("#comp-send")
        pick(ana, "Jc Jd 5s")
        ana.click("#comp-send")
        at_round(everyone, 5, "deal")
        # Ana's jacks win the pot of 12 (20); Ben matches 12 (5). Pot 12.
        for page in everyone:
            expect_stacks(page, [20, 5, 23])
            expect(page.locator("#pot")).to_have_text("12")

        # --- The end: the pot of 12 shared, 4 each. Who pays whom. ------------------------
        ana.click("#end-session")
        ana.click("#confirm-ok")  # the confirmation in the page
        for page in everyone:
            expect_stacks(page, [24, 9, 27])
        expect(cleo.locator("#transfers")).to_contain_text("Ben", timeout=WAIT)
        cleo.screenshot(path=str(shots / "companion-ledger.png"), full_page=True)
        events = server.manager.rooms[room_id].events
        assert settle(referee_file(events))["stacks"] == {"Ana": 24, "Ben": 9, "Cleo": 27}
        # the referee file Cleo's phone offers settles to the same stacks
        link = cleo.get_attribute("#dl-referee", "href")
        assert link is not None and "/referee.json?token=" in link
        assert cleo.locator("#dl-fairness").count() == 0
        assert settle(server.get(link.removeprefix(server.http)).json())["stacks"] == {
            "Ana": 24, "Ben": 9, "Cleo": 27}
        for page in everyone:
            assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_drop_counts_down_and_the_host_enters_the_ghost_hand(
        browser: Browser, shots: Path, tmp_path: Path) -> None:
    """The full Estonian rule book (drop declaration, a ghost hand): the server runs the
    count of "1-2-3 drop" and both phones show its numbers 3, 2, 1 before the fists open.
    Ben drops; Ana, the host and dealer, starts the count without touching her fist: she
    holds her cards, so she is in when it ends. Alone in, she must beat the ghost hand,
    which the host enters after her own cards."""
    with running_server(f"sqlite:///{tmp_path / 'drop.db'}", dealer=0) as server:
        created = server.create_room("Ana", buy_in=20, rules={"preset": "estonian-full"},
                                     companion=True)
        ana = host_phone(browser, server, created)
        invite = f"{server.http}/r/{created['room_id']}"
        ben = join(browser, invite, "Ben", "en-US", PHONE, mobile=True)
        ana.click("#start")
        ana.click("#comp-dealt")
        at_round((ana, ben), 1, "declare")
        for page in (ana, ben):
            expect_stacks(page, [19, 19])  # antes 1 each, pot 2
        expect(ana.locator("#comp-look")).to_contain_text("whoever has not dropped")
        expect(ben.locator("#comp-count-start")).to_have_count(0)  # host or dealer only
        declare({ben: "out"})
        for page in (ana, ben):  # each number shows for 1 s: recorded as it shows
            watch(page, "#comp-count", "data-count")
        ana.click("#comp-count-start")
        # The server counts; both phones show the same number at each step, fists closed.
        expect(ben.locator("#comp-count")).to_have_count(1, timeout=WAIT)
        ben.screenshot(path=str(shots / "companion-drop-count.png"), full_page=True)
        for page in (ana, ben):
            assert seen(page, "#comp-count", ["3", "2", "1"]) == ["3", "2", "1"]
        expect(ana.locator("#comp-picker")).to_be_visible(timeout=WAIT)
        expect(ana.locator("#comp-count")).to_have_count(0)
        for page in (ana, ben):
            expect(page.locator('.seat[data-seat="0"] .fist.open')).to_have_text("In")
            expect(page.locator('.seat[data-seat="1"] .fist.open')).to_have_text("Out")
            assert page.evaluate("window.gutskit.state.countShown") == 1
        expect(ben.locator("#comp-waiting")).to_have_text("Waiting for: Ana, Ghost hand")
        pick(ana, "As Ad")
        ana.click("#comp-send")
        expect(ana.locator('[data-comp-target="ghost"]')).to_have_class(re.compile("chosen"),
                                                                         timeout=WAIT)
        pick(ana, "Kh Qd")
        ana.screenshot(path=str(shots / "companion-ghost.png"), full_page=True)
        ana.click("#comp-send")
        at_round((ana, ben), 1, "deal")
        for page in (ana, ben):  # Ana's aces beat the ghost's K-Q: she takes the pot of 2
            expect_stacks(page, [21, 19])
            expect(page.locator("#pot")).to_have_text("0")
        for page in (ana, ben):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]


def host_phone(browser: Browser, server: object, created: dict[str, str]) -> Page:
    """The host's phone on a room created through the API (the seat token kept where the
    create form keeps it)."""
    page = phone(browser)
    http = server.http  # type: ignore[attr-defined]
    page.goto(http + "/")
    page.evaluate(f"localStorage.setItem('gutskit.seat.{created['room_id']}', "
                  f"'{created['token']}')")
    page.goto(f"{http}/r/{created['room_id']}")
    return page


def name_winners(host: Page, **sides: list[int]) -> None:
    """The host opens *Or name the winners* and taps ``sides`` (high=[seats], low=[...],
    losers=[...])."""
    if host.locator("#comp-winners[open]").count() == 0:
        host.click("#comp-winners summary")
    for side, seats in sides.items():
        for number in seats:
            host.click(f'[data-comp-name="{side}:{number}"]')
            expect(host.locator(f'[data-comp-name="{side}:{number}"]')).to_have_attribute(
                "aria-pressed", "true")


def test_the_host_names_the_winners_of_hi_lo_rounds(
        browser: Browser, shots: Path, tmp_path: Path) -> None:
    """Hi-Lo (preset ``hi-lo``): the table agrees not to enter cards and the host names each
    side's winners on her phone. Stacks worked out by hand against RULES.md (Variants,
    Hi-Lo Guts: two pots, odd chip high; a *both* player must win both ways; each side's
    losers match that side's pot)."""
    with running_server(f"sqlite:///{tmp_path / 'hilo.db'}", dealer=0) as server:
        created = server.create_room("Ana", buy_in=20, rules={"preset": "hi-lo"},
                                     companion=True)
        ana = host_phone(browser, server, created)
        invite = f"{server.http}/r/{created['room_id']}"
        ben = join(browser, invite, "Ben", "en-US", PHONE, mobile=True)
        cleo = join(browser, invite, "Cleo", "en-US", PHONE, mobile=True)
        everyone = (ana, ben, cleo)
        ana.click("#start")
        # 1. Ana deals; antes 1 each -> 19, 19, 19, pot 3 (high 2, low 1: odd chip high).
        ana.click("#comp-dealt")
        at_round(everyone, 1, "declare")
        for page in everyone:
            expect_stacks(page, [19, 19, 19])
        declare({ana: "high", ben: "high", cleo: "low"})
        at_round(everyone, 1, "showdown")
        # the host names only the high side first: the low pot needs its winner (Cleo
        # declared low); refused with the reason, nothing moves
        name_winners(ana, high=[1])
        ana.click("#comp-confirm-winners")
        expect(ana.locator("#toast")).to_contain_text("the low pot needs a winner",
                                                       timeout=WAIT)
        at_round(everyone, 1, "showdown")
        expect(ana.locator("[data-comp-name='low:2']")).to_be_visible()
        # each side offers only the seats that declared it (or both)
        assert ana.eval_on_selector_all("[data-comp-name]",
                                        "els => els.map(e => e.dataset.compName)") == [
            "high:0", "high:1", "low:2"]
        name_winners(ana, low=[2])
        ana.screenshot(path=str(shots / "companion-hilo-name.png"), full_page=True)
        ana.click("#comp-confirm-winners")
        at_round(everyone, 1, "deal")
        # Ben wins the high pot of 2 (21); Ana, beaten high, matches it (17); Cleo alone
        # low takes the low pot of 1 (20). Next pot 2 (Ana's match). 17 + 21 + 20 + 2 = 60.
        for page in everyone:
            expect_stacks(page, [17, 21, 20])
            expect(page.locator("#pot")).to_have_text("2")
            expect(page.locator("#comp-dealer")).to_have_text("Ben deals round 2.")
            expect(page.locator("#log")).to_contain_text(
                "The table named the winner: Ben. Low winners: Cleo.")
        cleo.screenshot(path=str(shots / "companion-hilo-result.png"), full_page=True)
        # 2. Ben deals; the pot is not empty: no ante. Ana both, Ben low, Cleo high. The
        #    host names Ana on both sides: she wins both ways, the pot of 2 (high 1, low 1):
        #    19. Cleo, beaten high, matches 1 (19); Ben, beaten low, matches 1 (20). Pot 2.
        ben.click("#comp-dealt")
        at_round(everyone, 2, "declare")
        for page in everyone:
            expect_stacks(page, [17, 21, 20])
        declare({ana: "both", ben: "low", cleo: "high"})
        at_round(everyone, 2, "showdown")
        assert ana.eval_on_selector_all("[data-comp-name]",
                                        "els => els.map(e => e.dataset.compName)") == [
            "high:0", "high:2", "low:0", "low:1"]  # Ana (both) on each side
        name_winners(ana, high=[0], low=[0])
        ana.click("#comp-confirm-winners")
        at_round(everyone, 2, "deal")
        for page in everyone:
            expect_stacks(page, [19, 20, 19])
            expect(page.locator("#pot")).to_have_text("2")
        ana.screenshot(path=str(shots / "companion-hilo-both.png"), full_page=True)
        events = server.manager.rooms[created["room_id"]].events
        assert settle(referee_file(events))["stacks"] == {"Ana": 19, "Ben": 20, "Cleo": 19}
        for page in everyone:
            assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_the_host_names_the_winner_and_the_worst_hand_under_single_loser(
        browser: Browser, shots: Path, tmp_path: Path) -> None:
    """Single loser (preset ``single-loser``, RULES.md Variants: only the worst hand among
    those in matches; everyone antes every hand but the player(s) who matched): the host
    names the winner and the worst hand."""
    with running_server(f"sqlite:///{tmp_path / 'single.db'}", dealer=0) as server:
        created = server.create_room("Ana", buy_in=20, rules={"preset": "single-loser"},
                                     companion=True)
        ana = host_phone(browser, server, created)
        invite = f"{server.http}/r/{created['room_id']}"
        ben = join(browser, invite, "Ben", "en-US", PHONE, mobile=True)
        cleo = join(browser, invite, "Cleo", "en-US", PHONE, mobile=True)
        everyone = (ana, ben, cleo)
        ana.click("#start")
        # 1. Antes 1 each -> 19, 19, 19, pot 3. All three in; the host names Ana the winner
        #    and Cleo the worst hand: Ana +3 (22), Cleo alone matches 3 (16), Ben, beaten
        #    but not the worst, pays nothing (19). Pot 3.
        ana.click("#comp-dealt")
        at_round(everyone, 1, "declare")
        declare({ana: "in", ben: "in", cleo: "in"})
        at_round(everyone, 1, "showdown")
        name_winners(ana, high=[0])
        ana.click("#comp-confirm-winners")  # the worst hand not named yet: refused
        expect(ana.locator("#toast")).to_contain_text("name the loser(s) too", timeout=WAIT)
        name_winners(ana, losers=[2])
        ana.screenshot(path=str(shots / "companion-single-loser-name.png"), full_page=True)
        ana.click("#comp-confirm-winners")
        at_round(everyone, 1, "deal")
        for page in everyone:
            expect_stacks(page, [22, 19, 16])
            expect(page.locator("#pot")).to_have_text("3")
            expect(page.locator("#log")).to_contain_text(
                "The table named the winner: Ana. Worst hand (matches): Cleo.")
        # 2. Ben deals. Everyone antes but Cleo, who matched: 21, 18, 16, pot 5. Ana and Ben
        #    in; Ben named the winner, Ana the worst hand: Ben +5 (23), Ana matches 5 (16).
        ben.click("#comp-dealt")
        at_round(everyone, 2, "declare")
        for page in everyone:
            expect_stacks(page, [21, 18, 16])
            expect(page.locator("#pot")).to_have_text("5")
        declare({ana: "in", ben: "in", cleo: "out"})
        at_round(everyone, 2, "showdown")
        name_winners(ana, high=[1], losers=[0])
        ana.click("#comp-confirm-winners")
        at_round(everyone, 2, "deal")
        for page in everyone:  # 16 + 23 + 16 + pot 5 = 60
            expect_stacks(page, [16, 23, 16])
            expect(page.locator("#pot")).to_have_text("5")
        cleo.screenshot(path=str(shots / "companion-single-loser-result.png"), full_page=True)
        events = server.manager.rooms[created["room_id"]].events
        assert settle(referee_file(events))["stacks"] == {"Ana": 16, "Ben": 23, "Cleo": 16}
        for page in everyone:
            assert page.errors == [], page.errors  # type: ignore[attr-defined]
