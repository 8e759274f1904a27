"""End to end (Debian's Chromium via Playwright, three phones at 390x844): what a fresh
tester found in companion mode (/work/audit-comp/REPORT.md), each checked on the phones.

* A card conflict at the showdown is told on every phone, in its language, naming no card
  of another seat; the host's card picker starts again from the host's own cards, and the
  cards the host enters are recorded for the seat the host picked.
* The lobby of a companion room shows no declaration timer (none runs at a real table).
* Tap targets on a phone are at least 44 px high (Coach, Sound, the downloads, the chat
  reactions, the host's Mute and Kick, which stand apart).

* The result says a tie and the chip of a split that stays in the pot (RULES.md step 5,
  ``odd_chip = "carry"``), and when equal ranks were separated by the suits.

Stacks worked by hand (default rules: three-card Guts, ante 1, buy-in 20, dealer Ana):
round 1, antes 1 each: pot 3, stacks 19/19/19; Ana and Ben in, Cleo out; Ana 9-9-5 and
Ben 9-9-5 tie (pairs are not split by suit): 1 each, the odd chip stays: 20/20/19, pot 1.
Round 2 (Ben deals; the pot is not empty: no ante), all in; Ana K-K-2 (pair of kings)
beats Ben A-7-3 and Cleo Q-Q-4: Ana takes 1 -> 21, Ben and Cleo match 1 -> 19, 18; pot 2.
Round 3 (Cleo deals), Ana and Ben in: Ana K♠-9-4 beats Ben K♥-9-4 on the suit of the
king (``suit_tiebreak = "high_card"``): Ana 23, Ben matches 2 -> 17, Cleo 18, pot 2.
Screenshots go to ``$GUTSKIT_E2E_SHOTS`` (or the test's temporary folder).
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright._impl._api_structures import FloatRect
from playwright.sync_api import Browser, Page, expect
from server_support import running_server
from test_e2e import WAIT, browser, expect_stacks, join, open_page, shots
from test_e2e_companion import at_round, declare, pick

__all__ = ["browser", "shots"]  # the Chromium and screenshot fixtures of test_e2e

PHONE = {"width": 390, "height": 844}
TAP = 44  # px: the smallest comfortable tap target on a phone (WCAG 2.5.5, Apple's HIG)


def box(page: Page, selector: str) -> FloatRect:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, selector
    return found


def test_a_card_conflict_is_told_on_every_phone_and_the_host_picker_resets(
        browser: Browser, shots: Path, tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'companion.db'}", dealer=0) as server:
        ana = open_page(browser, "en-US", PHONE, mobile=True)
        ana.goto(server.http + "/")
        ana.fill("#host-name", "Ana")
        ana.fill("#buy-in", "20")
        ana.fill("#decision-seconds", "5")  # set before the switch: still no timer shown
        ana.check("#companion-mode")
        ana.click("#create-button")
        ana.wait_for_url(re.compile(r"/r/[A-Za-z0-9_-]+$"))
        invite = ana.input_value("#invite")
        ben = join(browser, invite, "Ben", "de-DE", PHONE, mobile=True)
        cleo = join(browser, invite, "Cleo", "et-EE", PHONE, mobile=True)
        everyone = (ana, ben, cleo)
        expect(ana.locator(".lobby-seat")).to_have_count(3)
        # --- the lobby: no declaration timer in a companion room ------------------------
        expect(ana.locator("#rules-list")).to_contain_text("Ante")
        expect(ana.locator("#rules-list")).not_to_contain_text("timer")
        expect(ben.locator("#rules-list")).not_to_contain_text("5 s")
        # the host's Mute and Kick: tall enough, and apart (a kick is confirmed too)
        mute, kick = box(ana, "#mute-1"), box(ana, "#kick-1")
        assert mute["height"] >= TAP and kick["height"] >= TAP, (mute, kick)
        gap = max(kick["x"] - (mute["x"] + mute["width"]), kick["y"] - (mute["y"] + mute["height"]))
        assert gap >= 16, (mute, kick)
        ana.locator("#lobby").screenshot(path=str(shots / "companion-ux-lobby.png"))
        expect(ben.locator(".lobby-seat .tag.you")).to_have_text("Du")  # German: "du" only
        ana.click("#start")
        expect(ana.locator("#comp-dealt")).to_be_visible(timeout=WAIT)
        expect(ana.locator("#center .round")).to_have_text("No round dealt yet")  # not "Round 0"
        ana.click("#comp-dealt")
        at_round(everyone, 1, "declare")
        # --- round 1: a tie, the odd chip stays ---------------------------------------------
        declare({ana: "in", ben: "in", cleo: "out"})
        at_round(everyone, 1, "showdown")
        pick(ana, "9h 9c 5d")
        ana.click("#comp-send")
        pick(ben, "9s 9d 5c")
        ben.click("#comp-send")
        at_round(everyone, 1, "deal")
        for page in everyone:
            expect_stacks(page, [20, 20, 19])
        result = ana.locator("#result")
        expect(result).to_contain_text("A tie: Ana, Ben share the pot.")
        expect(result).to_contain_text("Ana wins 1")
        expect(result).to_contain_text("Ben wins 1")
        expect(result).to_contain_text(
            "1 chip of the split did not divide evenly and stays in the pot.")
        expect(result).to_contain_text("The pot is now 1.")
        expect(result).not_to_contain_text("suits")
        # the result names its round (the dealer badge has moved on); the hand under the
        # dealer's button is labelled as the last round's
        expect(ana.locator("#result .label")).to_have_text("Round 1: result")
        expect(ana.locator("#my-shown-label")).to_have_text("Your hand in round 1")
        expect(ben.locator("#my-shown-label")).to_have_text("Deine Hand in Runde 1")
        expect(ben.locator("#result")).to_contain_text("Gleichstand: Ana, Ben teilen den Pott.")
        ana.screenshot(path=str(shots / "companion-ux-tie.png"))
        ana.click("#comp-dealt")
        at_round(everyone, 2, "declare")
        # --- tap targets on Cleo's phone --------------------------------------------------
        for selector in ("label:has(#coach)", "label:has(#sound)", "#dl-history", "#dl-ledger",
                         "#react-0"):
            found = box(cleo, selector)
            assert found["height"] >= TAP and found["width"] >= TAP, (selector, found)
        declare({ana: "in", ben: "in", cleo: "in"})
        at_round(everyone, 2, "showdown")
        # --- the conflict: Ben and Cleo both enter the ace of spades -----------------------
        # the host's two rows of names are labelled: whose cards to enter, and the winners
        expect(ana.locator("#comp-targets-label")).to_have_text("Enter cards for")
        ana.click("#comp-winners summary")
        expect(ana.locator("#comp-winners .comp-group .label")).to_have_text("Winners")
        ana.locator("#companion").screenshot(path=str(shots / "companion-ux-host-rows.png"))
        ana.click("#comp-winners summary")
        pick(ana, "Kh Kd 2c")
        ana.click("#comp-send")
        expect(cleo.locator("#comp-entered")).to_contain_text("Ana", timeout=WAIT)
        pick(ben, "As 7d 3c")
        ben.click("#comp-send")
        expect(cleo.locator("#comp-entered")).to_contain_text("Ben", timeout=WAIT)
        pick(cleo, "As Qd 4h")
        cleo.click("#comp-send")
        expect(ana.locator("#comp-conflict")).to_have_text(
            "The cards entered conflict: a card was entered twice. Every entry was cleared: "
            "enter your cards again.", timeout=WAIT)
        expect(ben.locator("#comp-conflict")).to_contain_text("zweimal", timeout=WAIT)
        expect(cleo.locator("#comp-conflict")).to_contain_text("kaks korda", timeout=WAIT)
        expect(cleo.locator("#toast")).to_contain_text("kaks korda", timeout=WAIT)
        expect(ana.locator("#toast")).to_contain_text("entered twice", timeout=WAIT)
        for page, others in ((ana, ("A♠", "7♦", "Q♦", "4♥")), (ben, ("K♥", "Q♦", "4♥")),
                             (cleo, ("K♥", "7♦", "2♣"))):
            expect(page.locator("#comp-waiting")).to_contain_text("Ana", timeout=WAIT)
            text = page.locator("#companion").inner_text() + page.locator("#toast").inner_text()
            for card in others:
                assert card not in text, (card, text)
        # the host's picker starts again from her own cards, not from Cleo's
        expect(ana.locator("#comp-picker")).to_have_attribute("data-target", "seat:0")
        expect(ana.locator("#comp-picker h4")).to_have_text("Your cards")
        cleo.screenshot(path=str(shots / "companion-ux-conflict-et.png"), full_page=True)
        ana.screenshot(path=str(shots / "companion-ux-conflict-host.png"), full_page=True)
        # Ana enters her own cards again: they are hers (Cards in: Ana), and so on
        pick(ana, "Kh Kd 2c")
        ana.click("#comp-send")
        expect(ana.locator("#comp-mine")).to_have_count(0)  # the picker moved on to Ben
        expect(ben.locator("#comp-entered")).to_contain_text("Ana", timeout=WAIT)
        ana.click('[data-comp-target="seat:0"]')
        expect(ana.locator("#comp-mine")).to_contain_text("K♥ K♦ 2♣")
        pick(ben, "As 7d 3c")
        ben.click("#comp-send")
        pick(cleo, "Qs Qd 4h")
        cleo.click("#comp-send")
        at_round(everyone, 2, "deal")
        for page in everyone:
            expect_stacks(page, [21, 19, 18])
            expect(page.locator("#pot")).to_have_text("2")
            expect(page.locator("#ledger-pot")).to_have_text("2", timeout=WAIT)
            expect(page.locator("#ledger-reserve")).to_have_count(0)
        # --- round 3: equal ranks, the suits decide -----------------------------------------
        cleo.click("#comp-dealt")
        at_round(everyone, 3, "declare")
        declare({ana: "in", ben: "in", cleo: "out"})
        at_round(everyone, 3, "showdown")
        pick(ana, "Ks 9d 4c")
        ana.click("#comp-send")
        pick(ben, "Kh 9s 4d")
        ben.click("#comp-send")
        at_round(everyone, 3, "deal")
        for page in everyone:
            expect_stacks(page, [23, 17, 18])
        result = ana.locator("#result")
        expect(result).to_contain_text("Ana wins 2 (King-nine-four high)")
        expect(result).to_contain_text("Ben matches 2 (King-nine-four high)")
        expect(result).to_contain_text("Equal ranks: the suits decided.", timeout=WAIT)
        expect(result).not_to_contain_text("tie")
        expect(cleo.locator("#result")).to_contain_text("otsustasid mastid", timeout=WAIT)
        ana.locator("#center").screenshot(path=str(shots / "companion-ux-suits.png"))
        # the host undoes round 3: every chip back, and no seat keeps its "In" of round 3
        ana.click("#comp-undo")
        ana.click("#confirm-ok")  # the confirmation in the page
        for page in everyone:
            expect_stacks(page, [21, 19, 18])
            expect(page.locator("#center .round")).to_have_text(re.compile("^(Round|Runde|Käsi) 2"))
            expect(page.locator(".seat.is-in")).to_have_count(0)
            expect(page.locator("#my-shown-label")).to_have_count(0)
        expect(ana.locator("#result .label")).to_have_text("Round 2: result")  # what it shows
        ana.screenshot(path=str(shots / "companion-ux-after-undo.png"), full_page=True)
        assert not ana.errors and not ben.errors and not cleo.errors  # type: ignore[attr-defined]
