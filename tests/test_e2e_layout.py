"""End to end (Debian's Chromium via Playwright): the table's layout leaves every seat in
view at the common screen sizes (fresh user, session 7: at 1100 x 900 the "LAST ROUND"
panel in the middle of the felt covered the player's own seat).

Three players, buy-in 20, ante 1, dealer Ana; Ana plays in the browser, Ben and Cleo over
plain WebSockets. Seed 1: Ana Ts Td Qc, Ben Qd Jh 7h, Cleo Ah 6c 2h; antes: pot 3. Ana and
Ben in, Cleo out: Ana's pair of tens wins 3, Ben matches 3 (stacks 22, 16, 19; next pot
3). Between rounds the result panel shows that round's lines; the next deal waits (a long
reveal pause and the host's pause).
"""

from __future__ import annotations

from pathlib import Path

from playwright._impl._api_structures import FloatRect
from playwright.sync_api import Browser, Page, expect
from server_support import Player, running_server
from test_e2e import WAIT, browser, expect_stacks, open_page, seat, set_timers, shots

__all__ = ["browser", "shots"]  # the Chromium fixtures of test_e2e

SIZES = [(1100, 900), (1366, 768), (1280, 860), (390, 844)]


def _box(page: Page, selector: str) -> FloatRect:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


def _overlap(a: FloatRect, b: FloatRect) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def _check_sizes(page: Page, shots: Path, name: str) -> None:
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function(  # the reveal's card turn is over (the clock runs on)
            "() => document.getAnimations().every(a => !(a instanceof CSSAnimation) || "
            "a.playState !== 'running' || a.effect.getTiming().iterations === Infinity)",
            timeout=WAIT)
        page.screenshot(path=str(shots / f"layout-{name}-{width}x{height}.png"),
                        full_page=True)
        result = _box(page, "#result")
        for number in range(3):  # no seat, yours above all, under the result panel
            box = _box(page, seat(page, number))
            assert not _overlap(result, box), (width, height, number, result, box)
        if width > 900:  # two columns: the felt stays in its own
            felt, side = _box(page, ".felt"), _box(page, "aside.side")
            assert felt["x"] + felt["width"] <= side["x"], (width, height, felt, side)
        center = _box(page, "#center")
        mine = _box(page, seat(page, 0))
        assert not _overlap(center, mine), (width, height, center, mine)


def test_the_result_panel_leaves_your_seat_in_view(browser: Browser, shots: Path,
                                                    tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'layout.db'}", seed_numbers=(1, 2),
                        dealer=0) as server:
        created = server.create_room("Ana", decision_seconds=600, reveal_seconds=60,
                                     seed_reveal="round")
        room_id = created["room_id"]
        page = open_page(browser, "en-US", {"width": 1100, "height": 900})
        page.context.add_init_script(
            f"localStorage.setItem('gutskit.seat.{room_id}', '{created['token']}')")
        page.goto(f"{server.http}/r/{room_id}")
        others = []
        for name in ("Ben", "Cleo"):
            player = Player(server, room_id)
            player.send({"type": "join", "name": name})
            player.expect("seated")
            others.append(player)
        ben, cleo = others
        expect(page.locator(".lobby-seat")).to_have_count(3, timeout=WAIT)
        page.click("#start")
        expect(page.locator("#declare-in")).to_be_enabled(timeout=WAIT)
        page.click("#declare-in")
        assert ben.declare(1, "in")["type"] == "ack"
        assert cleo.declare(1, "out")["type"] == "ack"
        expect_stacks(page, [22, 16, 19])
        page.click("#pause")  # the next deal waits while the screens are measured
        expect(page.locator("#banner .state.warn")).to_be_visible(timeout=WAIT)
        result = page.locator("#result")
        expect(result).to_contain_text("Ana", timeout=WAIT)
        lines = result.locator("p")
        assert lines.count() >= 2  # the winner, the match, the next pot
        _check_sizes(page, shots, "fresh")
        # Round 2 (seed 2): while it is declared (pot, round, who is waited for, the
        # clock) the result panel shows the last round: the centre is at its tallest.
        page.set_viewport_size({"width": 1100, "height": 900})
        set_timers(server, room_id, reveal_seconds=0.5)  # the resume deals at once
        page.click("#resume")
        expect(page.locator('#center .round[data-round="2"][data-phase="declare"]')
               ).to_have_count(1, timeout=WAIT)
        expect(page.locator("#countdown")).to_be_visible(timeout=WAIT)
        expect(result).to_contain_text("Last round", ignore_case=True)
        _check_sizes(page, shots, "last")
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
        for player in (ben, cleo):
            player.close()
