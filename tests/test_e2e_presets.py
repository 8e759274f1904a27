"""End to end (Debian's Chromium via Playwright): every preset of ``guts rules --list``
played to a showdown at the browser table (issue 9, "Done when").

For each preset one room on one server (module scope; one Chromium for the module, two
browser contexts per test):

* Ana, the host, plays in the browser (the page's language rotates over the five
  translations): she adds a bot from the lobby, starts, passes a card by clicking it (Pass
  the Trash), waits for her turn (sequential declaration) and declares *in* (Hi-Lo:
  *both*) with her button.
* Ben, a friend over a plain WebSocket, always goes in (Hi-Lo: *high*): with Ana's *in*
  that makes round 1 a showdown whatever the cards and whatever the bot does (the deal is
  the default provably fair one, mixed with the browsers' client seeds).
* A spectator watches by the invite link in a second browser context.

A screenshot of Ana's page at the showdown goes to ``$GUTSKIT_E2E_SHOTS`` (or the test's
temporary folder).

The values the pages must show are the server's: the full (unredacted) hand history of
the room (``Room.events``) for the dealt and shown cards, the winners, the ghost hand and
the community card; ``ledger.json`` for the stacks; the stacks on the page, the pot and the
reserve sum to the chips bought in. Both pages record, with a ``MutationObserver``, every
card they ever show (a ``data-card`` element or a card written as text, e.g. ``10♦``) and
when: before the showdown the spectator shows no card at all and Ana none but her own;
after it, only the cards the round's public result shows.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from server_support import Player, Server, running_server
from test_e2e import DESKTOP, WAIT, browser, cards_on, open_page, seat

from gutskit.core.history import event_to_dict
from gutskit.core.rules import PRESETS

__all__ = ["browser"]  # the Chromium fixture of test_e2e

RAW_KEYS = [key for key in json.loads(
    (Path(__file__).parents[1] / "src/gutskit/server/static/i18n/en.json").read_text())
    if "." in key or "_" in key]
"""The translation keys a page would show if a text were missing (``t()`` falls back to
the key): those with a dot or an underscore, which no translated text contains."""

LOCALES = ["en-US", "de-DE", "fr-FR", "et-EE", "id-ID"]
BUY_IN = 20

# Installed in every page before its scripts: every card the page shows, with the round
# and phase of the table at that moment (``window.__cards``: [round, phase, card]).
CARD_WATCH = r"""
(() => {
  window.__cards = [];
  const seen = new Set();
  const SUIT = { "♣": "c", "♦": "d", "♥": "h", "♠": "s" };
  const scan = () => {
    const table = window.gutskit?.state?.table;
    const round = table ? table.round : 0;
    const phase = table ? table.phase : "none";
    const found = new Set();
    document.querySelectorAll("[data-card]").forEach((e) => found.add(e.dataset.card));
    const text = document.body ? document.body.textContent : "";
    for (const m of text.matchAll(/(10|[2-9JQKA])([♣♦♥♠])/g)) {
      found.add((m[1] === "10" ? "T" : m[1]) + SUIT[m[2]]);
    }
    for (const card of found) {
      const key = `${round}|${phase}|${card}`;
      if (!seen.has(key)) { seen.add(key); window.__cards.push([round, phase, card]); }
    }
  };
  new MutationObserver(scan).observe(document, {
    subtree: true, childList: true, characterData: true, attributes: true,
  });
})();
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("presets") / "presets.db"
    with running_server(f"sqlite:///{db}", bot_delay=(0.0, 0.0)) as running:
        yield running


def watched_page(browser: Browser, locale: str) -> Page:
    page = open_page(browser, locale, DESKTOP)
    page.context.add_init_script(CARD_WATCH)
    return page


def sightings(page: Page) -> list[tuple[int, str, str]]:
    """What :data:`CARD_WATCH` recorded: (round, phase, card)."""
    return [tuple(x) for x in page.evaluate("window.__cards")]


def friend_state(friend: Player, predicate: Any) -> dict[str, Any]:
    """Ben's latest table view if it matches ``predicate``, else the next one that does."""
    for message in reversed(friend.log):
        if message["type"] == "state":
            if predicate(message["table"]):
                return message["table"]  # type: ignore[no-any-return]
            break
    return friend.state(predicate)


def public_events(server: Server, room_id: str) -> list[dict[str, Any]]:
    """The room's full hand history (every card), as dictionaries."""
    return [event_to_dict(e) for e in server.manager.rooms[room_id].events]


def cards(hand: str | None) -> set[str]:
    return set(hand.split()) if hand else set()


@pytest.mark.parametrize("preset", list(PRESETS))
def test_preset_to_a_showdown_in_chromium(browser: Browser, server: Server, preset: str,
                                          tmp_path: Path) -> None:
    rules = PRESETS[preset][1]
    hi_lo = bool(rules.get("hi_lo"))
    sequential = rules.get("declaration") == "sequential"
    locale = LOCALES[list(PRESETS).index(preset) % len(LOCALES)]
    created = server.create_room("Ana", rules={"preset": preset}, buy_in=BUY_IN,
                                 decision_seconds=60, reveal_seconds=60)
    room_id = created["room_id"]
    url = f"{server.http}/r/{room_id}"

    # --- The lobby: Ben joins over a WebSocket, Ana adds a bot, a spectator watches. -----
    ana = watched_page(browser, locale)
    ana.context.add_init_script(
        f"localStorage.setItem('gutskit.seat.{room_id}', '{created['token']}')")
    ana.goto(url)
    expect(ana.locator(".lobby-seat .tag.you")).to_have_count(1, timeout=WAIT)
    ben = Player(server, room_id)
    ben.send({"type": "join", "name": "Ben"})
    seated = ben.expect("seated")
    ben.seat, ben.token = seated["seat"], seated["token"]
    expect(ana.locator(".lobby-seat")).to_have_count(2, timeout=WAIT)
    ana.click("#add-bot")
    expect(ana.locator(".lobby-seat")).to_have_count(3, timeout=WAIT)
    watcher = watched_page(browser, "en-US")
    watcher.goto(url)
    expect(watcher.locator(".lobby-seat")).to_have_count(3, timeout=WAIT)
    ana.click("#start")

    # --- Round 1: Pass the Trash, then the declarations. ---------------------------------
    deciding = '#center .round[data-round="1"][data-phase="{}"]'
    if rules.get("pass_the_trash"):
        expect(ana.locator(deciding.format("pass"))).to_have_count(1, timeout=WAIT)
        expect(ana.locator("[data-pass]")).to_have_count(3, timeout=WAIT)
        dealt = cards_on(ana, "[data-pass] [data-card]")
        table = friend_state(ben, lambda t: t["phase"] == "pass")
        ben.send({"type": "pass_card", "round": 1, "action_id": "ben-p1",
                  "card": table["hand"][0]})
        assert ben.expect_any(("ack", "error"))["type"] == "ack"
        ana.click(f'[data-pass="{dealt[0]}"]')
        expect(ana.locator("[data-pass]")).to_have_count(0, timeout=WAIT)
    expect(ana.locator(deciding.format("declare"))).to_have_count(1, timeout=WAIT)
    expect(watcher.locator(deciding.format("declare"))).to_have_count(1, timeout=WAIT)
    history = public_events(server, room_id)
    dealt_event = next(e for e in history if e["type"] == "CardsDealt")
    ana_cards = cards(dealt_event["hands"][0])
    view = server.manager.rooms[room_id].view_of(0)
    assert view is not None
    own_now = set(view.hand or [])
    passed = next((e for e in history if e["type"] == "CardsPassed"), None)
    if passed is not None:  # Ana passed to Ben (her left) and received the bot's card
        assert passed["passes"][0] == dealt[0]
        assert own_now == ana_cards - {dealt[0]} | {passed["passes"][2]}
    if rules.get("no_peek"):
        assert own_now == set()
        expect(ana.locator("#my-hand .card.back")).to_have_count(3, timeout=WAIT)
    else:
        expect(ana.locator("#my-hand [data-card]")).to_have_count(len(own_now), timeout=WAIT)
        assert set(cards_on(ana, "#my-hand [data-card]")) == own_now
    assert cards_on(watcher) == []
    ben_decl = "high" if hi_lo else "in"
    ana_decl = "both" if hi_lo else "in"
    if sequential:
        # Ben, on the dealer's left, calls first; Ana (the dealer) calls last: her buttons
        # stay off until her turn.
        expect(ana.locator(f'[data-declare="{ana_decl}"]')).to_be_disabled()
    assert ben.declare(1, ben_decl)["type"] == "ack"
    button = ana.locator(f'[data-declare="{ana_decl}"]')
    expect(button).to_be_enabled(timeout=WAIT)
    assert cards_on(watcher) == []
    ana.click(f'[data-declare="{ana_decl}"]')

    # --- The showdown: both pages against the server's history and ledger. --------------
    dealt_in = friend_state(ben, lambda t: t["round"] == 1)["dealt_in"]
    n_in = sum(dealt_in)
    for page in (ana, watcher):
        expect(page.locator(".fist.open")).to_have_count(n_in, timeout=WAIT)
    history = public_events(server, room_id)
    result = next(e for e in history if e["type"] == "RoundResolved")
    revealed = next(e for e in history if e["type"] == "DeclarationsRevealed")
    assert revealed["declarations"][0] == ana_decl and revealed["declarations"][1] == ben_decl
    assert result["outcome"] == "showdown", result
    shown = result["shown"]
    assert shown[0] and shown[1], result  # Ana and Ben were in: their cards are shown
    visible = set().union(*(cards(h) for h in shown), cards(result.get("ghost")),
                          cards(result.get("community")))
    room = server.manager.rooms[room_id]
    assert room.state is not None
    stacks, pot, reserve = list(room.state.stacks), room.state.pot, room.state.reserve
    ledger = server.get(f"/api/rooms/{room_id}/ledger.json").json()
    assert [r["cash_out"] for r in ledger["rows"]] == stacks
    assert (ledger["pot"], ledger["reserve"]) == (pot, reserve)
    assert sum(stacks) + pot + reserve == sum(r["buy_in"] for r in ledger["rows"]) == 3 * BUY_IN
    winners = {s for s, chips in enumerate(result["won"]) if chips > 0}
    assert winners or result.get("ghost_won"), result

    for page in (ana, watcher):
        for number, hand in enumerate(shown):
            where = ("#my-shown [data-card]" if page is ana and number == 0
                     else f"{seat(page, number)} .seat-cards [data-card]")
            expect(page.locator(where)).to_have_count(len(cards(hand)), timeout=WAIT)
            assert set(cards_on(page, where)) == cards(hand), (number, hand)
        expect(page.locator(".seat.winner")).to_have_count(len(winners), timeout=WAIT)
        for number in winners:
            expect(page.locator(f"{seat(page, number)}.winner")).to_have_count(1)
        for number, chips in enumerate(stacks):
            expect(page.locator(f"{seat(page, number)} .stack .num")).to_have_text(
                str(chips), timeout=WAIT)
        expect(page.locator("#pot")).to_have_text(str(pot))
        if reserve or rules.get("pot_cap_mode") == "reserve":
            expect(page.locator("#reserve")).to_have_text(str(reserve))
        for extra in ("ghost", "community"):
            expect(page.locator(f'[data-extra="{extra}"] [data-card]')).to_have_count(
                len(cards(result.get(extra))), timeout=WAIT)
            assert set(cards_on(page, f'[data-extra="{extra}"] [data-card]')) == cards(
                result.get(extra))
        expect(page.locator("#ledger-table tbody tr")).to_have_count(3, timeout=WAIT)
        expect(page.locator("#ledger-table tbody tr td:nth-child(3)")).to_have_text(
            [str(chips) for chips in stacks], timeout=WAIT)
        expect(page.locator("#ledger-pot")).to_have_text(str(pot + reserve), timeout=WAIT)

    ana.wait_for_function(  # the reveal's card turn is over
        "() => document.getAnimations().every(a => a.playState !== 'running')", timeout=WAIT)
    folder = Path(os.environ.get("GUTSKIT_E2E_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    ana.screenshot(path=str(folder / f"preset-{preset}.png"), full_page=True)

    # --- What each page ever showed, and when. ------------------------------------------
    deciding_phases = {"none", "pass", "declare"}
    mine = set() if rules.get("no_peek") else ana_cards | own_now
    for page, allowed_before in ((watcher, set()), (ana, mine)):
        seen = sightings(page)
        before = {c for r, phase, c in seen if r <= 1 and phase in deciding_phases}
        after = {c for r, phase, c in seen if r == 1 and phase not in deciding_phases}
        assert before <= allowed_before, (preset, before - allowed_before)
        assert after <= visible | allowed_before, (preset, after - visible - allowed_before)
    assert {c for _, _, c in sightings(watcher)} == visible
    for page in (ana, watcher):
        text = page.inner_text("body")
        raw = sorted(key for key in RAW_KEYS if key in text)
        assert raw == [], (preset, raw)  # every text translated, no key shown as such
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
    ben.close()
    for page in (ana, watcher):
        page.context.close()
