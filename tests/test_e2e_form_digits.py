"""The room form sends a whole number as it was typed (fresh8: JavaScript rounded a buy-in
of 20 nines, and the server answered "got 100000000000000000000"): a buy-in beyond the
server's limit (MAX_CHIPS, 1000000) is refused with the typed digits quoted, and the largest
one is taken as typed."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, expect
from server_support import running_server
from test_e2e import DESKTOP, WAIT, browser, open_page

from gutskit.core.limits import MAX_CHIPS

__all__ = ["browser"]  # the Chromium fixture of test_e2e

NINES = "9" * 20
"""99999999999999999999: more than 2^53, so a JavaScript number rounds it."""


def test_the_form_sends_the_typed_digits(browser: Browser, tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'form.db'}") as server:
        page = open_page(browser, "en-US", DESKTOP)
        page.goto(server.http + "/")
        page.fill("#host-name", "Ana")
        page.fill("#buy-in", NINES)
        page.click("#create-button")
        expect(page.locator("#create-error")).to_have_text(
            "The server refused the request. (buy_in: input should be less than or equal to "
            f"1000000 (got {NINES}))", timeout=WAIT)
        page.fill("#buy-in", str(MAX_CHIPS))
        page.click("#create-button")
        page.wait_for_url(re.compile(r"/r/[A-Za-z0-9_-]+$"), timeout=WAIT)
        room_id = page.url.rsplit("/", 1)[1]
        assert server.manager.rooms[room_id].settings.buy_in == MAX_CHIPS == 1_000_000
