"""End to end (Debian's Chromium via Playwright): a frame that changes one part of the
room's screen does not replace the buttons of another part. A click is a press and a
release: when the lobby was rendered whole, a frame arriving between them (another seat
joining, a presence dot, the rules' words) replaced the join button under the pointer,
the release landed on its copy and no click was made, so the player was never seated (a
CI failure of test_chat_with_reactions_as_text_and_the_host_mutes, session 11; of the
join helper, session 6). Here the frame is made to come between the two, deterministically:
the mouse is pressed, another player joins over a WebSocket, the screen shows it, then the
mouse is released.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from server_support import Player, running_server
from test_e2e import DESKTOP, WAIT, browser, open_page, shots

__all__ = ["browser", "shots"]  # the Chromium and screenshot fixtures of test_e2e


def press_on(page: Page, selector: str) -> None:
    """Press the mouse (not yet released) at the middle of ``selector``, marked first (a
    property of the element, not in its HTML) so that the test can tell it is the same
    element after a re-render."""
    target = page.locator(selector)
    expect(target).to_be_visible(timeout=WAIT)
    target.evaluate("el => { el.pressedHere = true; }")
    box = target.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()


def still_pressed_element(page: Page, selector: str) -> bool:
    return bool(page.locator(selector).evaluate("el => el.pressedHere === true"))


def test_a_presence_frame_between_press_and_release_does_not_eat_the_join_click(
        browser: Browser, tmp_path: Path) -> None:
    # As in test_chat_with_reactions_as_text_and_the_host_mutes: the host's own page
    # connects while Ben joins; Ben's lobby turns her dot on (a re-render that moves
    # nothing: a seat added above the button would move it from under the pointer).
    with running_server(f"sqlite:///{tmp_path / 'press.db'}") as server:
        created = server.create_room("Ana")
        room_id = created["room_id"]
        ben = open_page(browser, "en-US", DESKTOP)
        ben.goto(f"{server.http}/r/{room_id}")
        ben.fill("#join-name", "Ben")
        expect(ben.locator(".lobby-seat .dot.off")).to_have_count(1, timeout=WAIT)
        # the rules' metadata loaded (the re-render it brings is not the one tested)
        ben.wait_for_function("() => window.gutskit.state.rulesMeta !== null", timeout=WAIT)
        press_on(ben, "#join-button")
        ana = Player(server, room_id, created["token"])
        # Ben's lobby re-rendered (Ana is connected) while his button is held down ...
        expect(ben.locator(".lobby-seat .dot.on")).to_have_count(1, timeout=WAIT)
        # ... and the button under the pointer is the one pressed, with the name typed
        assert still_pressed_element(ben, "#join-button")
        assert ben.input_value("#join-name") == "Ben"
        ben.mouse.up()  # the click
        expect(ben.locator(".lobby-seat .tag.you")).to_have_count(1, timeout=WAIT)
        expect(ben.locator(".lobby-seat .name")).to_have_text(["Ana", "Ben"])
        assert ana.expect("room", lambda m: len(m["room"]["seats"]) == 2)[
            "room"]["seats"][1]["name"] == "Ben"
        assert ben.errors == [], ben.errors  # type: ignore[attr-defined]
        ana.close()


PATCHED = """
() => {
  const box = document.createElement("div");
  document.body.append(box);
  const patch = window.gutskit.patch;
  const html = (n, label) =>
    `<p id="note">${n} seats</p><div id="row"><button id="go">${label}</button></div>`;
  patch(box, html(1, "Go"));
  const [note, row, go] = ["note", "row", "go"].map((id) => document.getElementById(id));
  patch(box, html(2, "Go"));  // the note changed: the row and its button are kept
  const kept = [document.getElementById("note") === note, document.getElementById("row") === row,
                document.getElementById("go") === go, box.textContent];
  patch(box, html(2, "Stop"));  // the button changed: a new one, and a new row
  const changed = [document.getElementById("row") === row, document.getElementById("go") === go,
                   box.textContent];
  box.remove();
  return [kept, changed];
}
"""


def test_a_re_render_keeps_the_elements_that_did_not_change(browser: Browser,
                                                             tmp_path: Path) -> None:
    """Every part of the room's screen is drawn by the page's patch(): an element with an
    id whose HTML is the same is kept (the one under the pointer stays), whatever else of
    its panel changed; a changed one is replaced."""
    with running_server(f"sqlite:///{tmp_path / 'patch.db'}") as server:
        room_id = server.create_room("Ana")["room_id"]
        page = open_page(browser, "en-US", DESKTOP)
        page.goto(f"{server.http}/r/{room_id}")
        expect(page.locator("#join-name")).to_be_visible(timeout=WAIT)
        kept, changed = page.evaluate(PATCHED)
        assert kept == [False, True, True, "2 seatsGo"]
        assert changed == [False, False, "2 seatsStop"]
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
