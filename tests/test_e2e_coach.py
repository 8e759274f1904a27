"""End to end (Debian's Chromium via Playwright): the browser's Coach switch (issue 12,
item 6). After you declare, the equilibrium's in-probability and its EV for your hand are
shown by your hand, in your language; the switch is kept (``localStorage``) over a reload;
another seat and a spectator never get your advice, even with their own switch on.

Test seeds 1 and 2 (``tests/test_server.py``), three-card Guts, buy-in 20, dealer Ana;
round 1 deals Ana Ts Td Qc, Ben Qd Jh 7h, Cleo Ah 6c 2h (antes: pot 3). Ana (English) and
Ben (German) play in the browser, Cleo over a plain WebSocket (no coach), a spectator
(French) watches with the switch on. The expected figures are
:func:`gutskit.strategy.coach.advice` on each seat's view, taken before it declares; the
browser writes the probability in per cent with one decimal and the EV with a sign and
three decimals, in the number format of its language. Screenshots go to
``$GUTSKIT_E2E_SHOTS`` (or the test's temporary folder).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from server_support import Player, Server, running_server
from test_e2e import DESKTOP, PHONE, WAIT, browser, join, open_page, paused, wait_for_round

from gutskit.core.cards import card_name
from gutskit.core.views import view_for
from gutskit.strategy import coach

__all__ = ["browser"]  # the Chromium fixture of test_e2e

SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def hand_text(cards: tuple[str, ...] | list[str]) -> str:
    """A hand as the browser writes it in text ("10♠ 10♦ Q♣")."""
    return " ".join(f"{'10' if c[0] == 'T' else c[0]}{SUITS[c[1]]}" for c in cards)


def expected_figures(server: Server, room_id: str, seat: int, decimal: str
                     ) -> tuple[str, str, str]:
    """The hand, the in-probability (per cent) and the EV as the page must write them,
    from the coach's advice on ``seat``'s view now (before it declares)."""
    state = server.manager.rooms[room_id].state
    assert state is not None
    advice = coach.advice(view_for(state, seat))
    assert advice is not None and advice.in_probability is not None and advice.ev is not None
    hand = hand_text([card_name(c) for c in advice.hand])
    return (hand, number(100 * advice.in_probability, 1, decimal),
            number(advice.ev, 3, decimal, sign=True))


def number(x: float, digits: int, decimal: str, *, sign: bool = False) -> str:
    """``x`` as the page writes it (``Intl.NumberFormat``: ``decimal`` as the decimal
    sign; with ``sign``, "+" before a number that is not zero once rounded)."""
    text = f"{x:.{digits}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    elif sign and x > 0:
        text = "+" + text
    return text.replace(".", decimal)


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("GUTSKIT_E2E_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def coach_on(page: Page) -> None:
    # The page's script binds the switch once it has run: a click before that (a page just
    # opened, a loaded machine) checks the box without the page knowing.
    # (Polled from here: the page's CSP refuses wait_for_function's string evaluation.)
    deadline = time.monotonic() + WAIT / 1000
    while not page.evaluate("document.querySelector('#coach').onchange !== null"):
        assert time.monotonic() < deadline, "the coach switch was never bound"
        page.wait_for_timeout(50)
    page.check("#coach")
    assert page.evaluate("localStorage.getItem('gutskit.coach')") == "1"


def no_advice(page: Page) -> None:
    """The page holds no coach advice (none received, none shown)."""
    assert page.evaluate("window.gutskit.state.advice") is None
    for text in page.locator("#coach-advice").all_inner_texts():
        assert text == ""


def test_coach_switch_in_two_languages(browser: Browser, tmp_path: Path) -> None:
    folder = shots(tmp_path)
    with running_server(f"sqlite:///{tmp_path / 'coach.db'}", seed_numbers=(1, 2),
                        dealer=0) as server:
        created = server.create_room("Ana", decision_seconds=60, reveal_seconds=1,
                                     seed_reveal="round")
        room_id = created["room_id"]
        invite = f"{server.http}/r/{room_id}"
        ana = open_page(browser, "en-US", DESKTOP)
        ana.context.add_init_script(
            f"localStorage.setItem('gutskit.seat.{room_id}', '{created['token']}')")
        ana.goto(invite)
        expect(ana.locator(".lobby-seat .tag.you")).to_have_count(1, timeout=WAIT)
        coach_on(ana)
        ben = join(browser, invite, "Ben", "de-DE", PHONE, mobile=True)
        coach_on(ben)
        cleo = Player(server, room_id)
        cleo.send({"type": "join", "name": "Cleo"})
        cleo.seat = cleo.expect("seated")["seat"]
        watcher = open_page(browser, "fr-FR", DESKTOP)
        watcher.goto(invite)
        coach_on(watcher)  # a spectator's switch on: still nothing to show
        expect(ana.locator(".lobby-seat")).to_have_count(3, timeout=WAIT)
        ana.click("#start")

        # --- Round 1: Ana declares with the coach on, then Ben; Cleo without. -----------
        for page in (ana, ben):
            wait_for_round(page, 1)
        hand, p, ev = expected_figures(server, room_id, 0, ".")
        assert hand == "10♠ 10♦ Q♣"
        ana.click("#declare-in")
        advice = ana.locator("#me #coach-advice")
        expect(advice).to_contain_text(hand, timeout=WAIT)
        expect(advice).to_contain_text(f"{p}%")
        expect(advice).to_contain_text(f"{ev} ")
        assert (p, ev) == ("100.0", "+1.493")  # docs/protocol.md, "Coach"
        no_advice(ben)  # Ben's own switch is on, but he has not declared
        no_advice(watcher)
        expect(watcher.locator("#coach-advice")).to_have_count(0)  # a spectator: no hand

        ben_hand, ben_p, ben_ev = expected_figures(server, room_id, 1, ",")
        assert ben_hand == "Q♦ J♥ 7♥"
        ben.click("#declare-in")
        ben_advice = ben.locator("#me #coach-advice")
        expect(ben_advice).to_contain_text(ben_hand, timeout=WAIT)
        expect(ben_advice).to_contain_text(f"{ben_p} %")
        expect(ben_advice).to_contain_text(f"{ben_ev} ")
        expect(ben_advice).to_contain_text("Gleichgewicht")  # in German
        # Each page shows its own advice only.
        expect(advice).not_to_contain_text(ben_hand)
        expect(ben_advice).not_to_contain_text(hand)
        with paused(ana, ben):  # the round ends while paused; the advice stays
            assert cleo.declare(1, "out")["type"] == "ack"
            expect(ana.locator(".fist.open")).to_have_count(3, timeout=WAIT)
            expect(ben.locator(".fist.open")).to_have_count(3, timeout=WAIT)
            expect(advice).to_contain_text(hand)
            expect(ben_advice).to_contain_text(ben_hand)
            no_advice(watcher)
            for page in (ana, ben):
                box = page.locator("#coach-advice").bounding_box()
                hand_box = page.locator("#my-shown").bounding_box()
                assert box is not None and hand_box is not None
                assert box["y"] >= hand_box["y"] + hand_box["height"] - 1  # below the hand
            for page in (ana, ben):  # the reveal's card turn is over
                page.wait_for_function(
                    "() => document.getAnimations().every(a => a.playState !== 'running')",
                    timeout=WAIT)
            ana.screenshot(path=str(folder / "coach-desktop-en.png"), full_page=True)
            ben.screenshot(path=str(folder / "coach-phone-de.png"), full_page=True)
            watcher.screenshot(path=str(folder / "coach-spectator-fr.png"))

            # --- A reload keeps the switch (localStorage). ------------------------------
            ana.reload()
            expect(ana.locator(".seat.me")).to_have_count(1, timeout=WAIT)
            expect(ana.locator("#coach")).to_be_checked()

        # --- Round 2: the switch is still on after the reload: advice again. ------------
        wait_for_round(ana, 2)
        hand2, p2, ev2 = expected_figures(server, room_id, 0, ".")
        ana.click("#declare-out")
        expect(advice).to_contain_text(hand2, timeout=WAIT)
        expect(advice).to_contain_text(f"{p2}%")
        expect(advice).to_contain_text(f"{ev2} ")
        # Switched off: the advice goes, and stays off over a reload.
        ana.uncheck("#coach")
        expect(ana.locator("#coach-advice")).to_have_count(0)
        ana.reload()
        expect(ana.locator(".seat.me")).to_have_count(1, timeout=WAIT)
        expect(ana.locator("#coach")).not_to_be_checked()

        cleo.drain()
        assert [m for m in cleo.log if m["type"] == "coach"] == []
        for page in (ana, ben, watcher):
            text = page.inner_text("body")
            assert "coach_advice" not in text and "coach_none" not in text
            assert page.errors == [], page.errors  # type: ignore[attr-defined]
        cleo.close()
