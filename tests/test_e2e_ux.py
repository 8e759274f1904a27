"""End to end (Debian's Chromium via Playwright): what a hostile tester found at the
browser table (issue 5): the log numbers, the end of the session (share-out, no stale
result), "(timer)", the table while disconnected, the reconnect backoff, the Ante field.

Two players, buy-in 20, ante 1, dealer Ana; Ana plays in the browser, Ben over a plain
WebSocket. Seed 1: Ben Qd Ts 6c, Ana Ah Jh Td; antes: pot 2, stacks 19, 19. Ana in, Ben
silent: the timer counts him out, Ana wins 2 uncontested: 21, 19, pot 0. Round 2 (seed
2): a new game, antes: pot 2, stacks 20, 18. Ana's connection drops and comes back; the
host ends the session: the pot is shared, 1 each: 21, 19.
"""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Browser, expect
from server_support import Player, running_server
from test_e2e import DESKTOP, WAIT, browser, expect_stacks, open_page, seat, set_timers

__all__ = ["browser"]  # the Chromium fixture of test_e2e


def test_timer_session_end_disconnect_and_form(browser: Browser, tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'ux.db'}", seed_numbers=(1, 2),
                        dealer=0) as server:
        page = open_page(browser, "en-US", DESKTOP)
        page.goto(server.http + "/")
        expect(page.locator("#rule-ante")).to_have_attribute("min", "1")  # ante 0 is refused

        created = server.create_room("Ana", decision_seconds=30, reveal_seconds=1,
                                     seed_reveal="round")
        room_id = created["room_id"]
        page.context.add_init_script(
            f"localStorage.setItem('gutskit.seat.{room_id}', '{created['token']}')")
        page.goto(f"{server.http}/r/{room_id}")
        ben = Player(server, room_id)
        ben.send({"type": "join", "name": "Ben"})
        ben.expect("seated")
        expect(page.locator(".lobby-seat")).to_have_count(2, timeout=WAIT)
        page.click("#start")

        # Round 1: Ana in; Ben silent until the timer counts him out.
        expect(page.locator("#declare-in")).to_be_enabled(timeout=WAIT)
        page.click("#declare-in")
        expect(page.locator(f"{seat(page, 0)} .fist.closed")).to_have_count(1, timeout=WAIT)
        # Ana has declared: a short timer now (a resume restarts it with the room's
        # setting) ends for Ben alone, however slowly the machine runs.
        set_timers(server, room_id, decision_seconds=1)
        page.click("#pause")
        page.click("#resume")
        ben.expect("event", lambda m: m["event"]["type"] == "RoundResolved")
        set_timers(server, room_id, decision_seconds=60)
        expect(page.locator("#log")).to_contain_text("All fists open: Ana In, Ben Out (timer).",
                                                     timeout=WAIT)

        # Round 2: the connection drops (and stays down until we let it retry).
        expect(page.locator('#center .round[data-round="2"][data-phase="declare"]')
               ).to_have_count(1, timeout=WAIT)
        expect_stacks(page, [20, 18])
        expect(page.locator("#declare-in")).to_be_enabled(timeout=WAIT)
        page.evaluate("() => { const c = window.gutskit.state.conn; c.open = () => {};"
                      " c.drop(); }")
        expect(page.locator("#banner .state.bad")).to_contain_text("Disconnected",
                                                                   timeout=WAIT)
        expect(page.locator("#declare-in")).to_be_disabled()
        expect(page.locator("#declare-out")).to_be_disabled()
        shown = page.inner_text("#countdown .secs")
        time.sleep(1.5)
        assert page.inner_text("#countdown .secs") == shown  # the countdown waits
        # The retry backoff stays short (a server restart is back within seconds).
        delays = page.evaluate("() => { const c = window.gutskit.state.conn; const out = [];"
                               " for (let i = 0; i < 8; i++) { c.schedule();"
                               " out.push(c.retryAt - Date.now()); } return out; }")
        assert max(delays) <= 3000 and delays[-1] >= 1500, delays
        page.evaluate("() => { const c = window.gutskit.state.conn; delete c.open;"
                      " c.retryNow(); }")
        expect(page.locator("#declare-in")).to_be_enabled(timeout=WAIT)
        expect(page.locator("#banner .state.bad")).to_have_count(0)

        # The host ends the session: the pot of 2 is shared, 1 each.
        page.click("#end-session")
        page.click("#confirm-ok")  # the confirmation in the page
        expect(page.locator("#share-out")).to_have_text("Share-out: Ana 1, Ben 1.",
                                                        timeout=WAIT)
        expect(page.locator("#pot")).to_have_text("0")
        expect_stacks(page, [21, 19])
        expect(page.locator("#center")).not_to_contain_text("The pot is now")
        expect(page.locator(f"{seat(page, 0)} .seat-delta")).to_have_text("+1 share")
        expect(page.locator(f"{seat(page, 1)} .seat-delta")).to_have_text("+1 share")
        expect(page.locator("#log")).to_contain_text("Share-out: Ana 1, Ben 1.")

        # The log's numbers fit: three digits (the log shows up to 300 entries).
        padding, width = page.evaluate(
            "() => { const ol = document.getElementById('log');"
            " const li = ol.querySelector('li'); const cs = getComputedStyle(li);"
            " const ctx = document.createElement('canvas').getContext('2d');"
            " ctx.font = `${cs.fontSize} ${cs.fontFamily}`;"
            " return [parseFloat(getComputedStyle(ol).paddingLeft),"
            " ctx.measureText('300.').width]; }")
        assert padding >= width + 8, (padding, width)
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
        ben.close()
