"""End to end (Debian's Chromium via Playwright): the browser table tells the truth (issue
9): whose turn it is under sequential declaration, the ledger after the antes, the void
round under each ``all_out``, Hi-Lo matches per side and a failed *both*, a warning when
the match is more than your stack, and the rebuy button with the host's approval.

Ana plays in the browser (host, seat 0, dealer: the declaration order is Ben, Cleo, Ana);
Ben and Cleo over plain WebSockets. Test seed 1, three cards: Ana Ts Td Qc (a pair of
tens), Ben Qd Jh 7h (queen high), Cleo Ah 6c 2h (ace high); two cards (indonesian):
whatever seed 1 deals, nobody goes in. Screenshots go to ``$GUTSKIT_E2E_SHOTS`` (or the
test's temporary folder).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect
from server_support import Player, Server, running_server, seat_three
from test_e2e import DESKTOP, WAIT, browser, expect_stacks, open_page

__all__ = ["browser"]  # the Chromium fixture of test_e2e


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("GUTSKIT_E2E_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _expect_ledger_row(page: Page, number: int, cells: list[str]) -> None:
    """Row ``number`` of the ledger panel: name, buy-in, stack, net."""
    row = page.locator("#ledger-table tbody tr").nth(number)
    expect(row.locator("td")).to_have_text(cells, timeout=WAIT)


def _ana_in_browser(browser: Browser, server: Server, **room: Any
                    ) -> tuple[Page, str, list[Player]]:
    """Ana's page (English) in a room with Ben and Cleo seated over WebSockets."""
    room_id, players = seat_three(server, seed_reveal="round", **room)
    page = open_page(browser, "en-US", DESKTOP)
    page.context.add_init_script(
        f"localStorage.setItem('gutskit.seat.{room_id}', '{players[0].token}')")
    page.goto(f"{server.http}/r/{room_id}")
    expect(page.locator(".lobby-seat")).to_have_count(3, timeout=WAIT)
    players[0].close()
    return page, room_id, players


def test_sequential_turns_stack_warning_and_void_round_that_carries(
        browser: Browser, tmp_path: Path) -> None:
    """indonesian (sequential, all_out = "carry"), buy-in 2: after the antes every stack is
    1 and the pot 3. Only the seat whose turn it is may declare; Ana is warned that a match
    of 3 is more than her 1 chip (she would be eliminated); all out: the pot of 3 stays."""
    shots = _shots(tmp_path)
    with running_server(f"sqlite:///{tmp_path / 'seq.db'}", seed_numbers=(1, 2)) as server:
        page, _, (_, ben, cleo) = _ana_in_browser(
            browser, server, rules={"preset": "indonesian"}, buy_in=2, reveal_seconds=30)
        page.click("#start")
        expect(page.locator("#turn")).to_have_text("Ben's turn to declare.", timeout=WAIT)
        expect(page.locator("#declare-out")).to_be_disabled()
        expect(page.locator('.seat[data-seat="2"] .fist')).to_have_text("waits for the turn")
        expect(page.locator("#ledger-table tbody tr").first).to_contain_text("Ana", timeout=WAIT)
        page.screenshot(path=str(shots / "truth-sequential-ben.png"), full_page=True)
        ben.state(lambda t: t["my_turn"])
        assert ben.declare(1, "out")["type"] == "ack"
        expect(page.locator("#turn")).to_have_text("Cleo's turn to declare.", timeout=WAIT)
        expect(page.locator("#declare-out")).to_be_disabled()
        cleo.state(lambda t: t["my_turn"])
        assert cleo.declare(1, "out")["type"] == "ack"
        expect(page.locator("#turn")).to_have_text("Your turn to declare.", timeout=WAIT)
        expect(page.locator("#declare-out")).to_be_enabled()
        expect(page.locator(".match-hint")).to_have_text("In and beaten: you match 3.")
        expect(page.locator("#stack-warning")).to_have_text(
            "Careful: the match (3) is more than your 1 chip. Beaten, you could not match "
            "and would be eliminated for the rest of the session (you keep your 1).")
        # The ledger is current after the antes: 1 chip each, as on the seats.
        expect_stacks(page, [1, 1, 1])
        _expect_ledger_row(page, 0, ["Ana", "2", "1", "-1"])
        page.screenshot(path=str(shots / "truth-sequential-warning.png"), full_page=True)
        page.click("#declare-out")
        expect(page.locator("#result")).to_contain_text(
            "Everyone was out: a void round, the cards are dealt again.", timeout=WAIT)
        expect(page.locator("#result")).to_contain_text(
            "No new ante: the pot of 3 stays for the re-deal.")
        page.screenshot(path=str(shots / "truth-void-carry.png"), full_page=True)
        assert page.errors == []  # type: ignore[attr-defined]


def test_void_round_reante_in_german_and_the_ledger_after_the_antes(
        browser: Browser, tmp_path: Path) -> None:
    """Defaults (all_out = "reante"), buy-in 20, in German: all out in round 1 (stacks 19,
    pot 3); between rounds the page says everyone antes again, 1 each; round 2 antes: the
    stacks are 18 and the ledger says so too (it was stale after the antes)."""
    shots = _shots(tmp_path)
    with running_server(f"sqlite:///{tmp_path / 're.db'}", seed_numbers=(1, 2)) as server:
        room_id, players = seat_three(server, reveal_seconds=2.5, seed_reveal="round")
        page = open_page(browser, "de-DE", DESKTOP)
        page.context.add_init_script(
            f"localStorage.setItem('gutskit.seat.{room_id}', '{players[0].token}')")
        page.goto(f"{server.http}/r/{room_id}")
        expect(page.locator(".lobby-seat")).to_have_count(3, timeout=WAIT)
        players[0].close()
        page.click("#start")
        expect(page.locator("#declare-out")).to_be_enabled(timeout=WAIT)
        expect(page.locator("#my-hand + .my-desc")).to_have_text("Paar Zehner, Kicker Dame",
                                                                 timeout=WAIT)
        for player in players[1:]:
            assert player.declare(1, "out")["type"] == "ack"
        page.click("#declare-out")
        expect(page.locator("#result")).to_contain_text(
            "Grundeinsätze für das neue Geben: Ana 1, Ben 1, Cleo 1.", timeout=WAIT)
        page.screenshot(path=str(shots / "truth-void-reante-de.png"), full_page=True)
        expect(page.locator('#center .round[data-round="2"][data-phase="declare"]')
               ).to_have_count(1, timeout=WAIT)
        expect_stacks(page, [18, 18, 18])
        for number, name in enumerate(("Ana", "Ben", "Cleo")):
            _expect_ledger_row(page, number, [name, "20", "18", "-2"])
        expect(page.locator("#ledger-pot")).to_have_text("6")
        page.screenshot(path=str(shots / "truth-ledger-after-antes-de.png"), full_page=True)
        assert page.errors == []  # type: ignore[attr-defined]


def test_hi_lo_matches_per_side_and_a_failed_both(browser: Browser, tmp_path: Path) -> None:
    """Hi-Lo, pot 3 (high 2, low 1 when both sides are played). Ben declares low, Cleo high,
    Ana both: her pair of tens is the best high but not the best low, so her both fails:
    Cleo's ace high takes high (2), Ben's queen high low (1), Ana matches both sides (3)."""
    shots = _shots(tmp_path)
    with running_server(f"sqlite:///{tmp_path / 'hilo.db'}", seed_numbers=(1, 2)) as server:
        page, _, (_, ben, cleo) = _ana_in_browser(
            browser, server, rules={"hi_lo": True}, reveal_seconds=30)
        page.click("#start")
        expect(page.locator("#declare-both")).to_be_enabled(timeout=WAIT)
        hints = page.locator(".match-hint")
        expect(hints).to_have_text([
            "High and beaten on that side: you match 2 (that side's pot; 3 if nobody plays "
            "the other side).",
            "Low and beaten on that side: you match 1 (that side's pot; 3 if nobody plays "
            "the other side).",
            "Both and beaten: you match 3."], timeout=WAIT)
        expect(page.locator("#stack-warning")).to_have_count(0)
        page.screenshot(path=str(shots / "truth-hilo-hints.png"), full_page=True)
        assert ben.declare(1, "low")["type"] == "ack"
        assert cleo.declare(1, "high")["type"] == "ack"
        page.click("#declare-both")
        result = page.locator("#result")
        expect(result).to_contain_text("The pot splits: high 2, low 1.", timeout=WAIT)
        expect(result).to_contain_text("Cleo wins high: 2")
        expect(result).to_contain_text("Ben wins low: 1")
        expect(result).to_contain_text(
            "Ana declared Both but did not win or tie low (won by Ben), so loses both ways "
            "and matches 3")
        expect_stacks(page, [16, 20, 21])
        page.screenshot(path=str(shots / "truth-hilo-both-failed.png"), full_page=True)
        assert page.errors == []  # type: ignore[attr-defined]


def test_rebuy_button_and_the_hosts_approval(browser: Browser, tmp_path: Path) -> None:
    """buy-in-limits (minimum buy-in 20, up to 2 rebuys), buy-in 20: after the antes Ana
    has 19, so the page offers a rebuy of at least 20. She asks; the host (Ana) denies it,
    she asks again and approves it; everyone out (a void round, re-ante): it is bought
    between rounds: 19 + 20 - 1 = 38, her buy-in 40 in the ledger."""
    shots = _shots(tmp_path)
    with running_server(f"sqlite:///{tmp_path / 'rebuy.db'}", seed_numbers=(1, 2)) as server:
        page, _, (_, ben, cleo) = _ana_in_browser(
            browser, server, rules={"preset": "buy-in-limits"}, reveal_seconds=1)
        page.click("#start")
        expect(page.locator("#rebuy")).to_be_visible(timeout=WAIT)
        expect(page.locator("#rebuy-chips")).to_have_value("20")
        page.click("#rebuy")
        expect(page.locator("#rebuy-pending")).to_have_text(
            "Your rebuy of 20 waits for the host.", timeout=WAIT)
        expect(page.locator("#rebuy-requests")).to_contain_text("Ana asks for 20")
        page.screenshot(path=str(shots / "truth-rebuy-request.png"), full_page=True)
        page.click("#deny-rebuy-0")
        expect(page.locator("#rebuy-requests")).to_have_count(0, timeout=WAIT)
        page.click("#rebuy")
        page.click("#approve-rebuy-0")
        expect(page.locator("#rebuy-pending")).to_have_text(
            "The host approved your rebuy of 20: it is bought at the next break.",
            timeout=WAIT)
        page.screenshot(path=str(shots / "truth-rebuy-approved.png"), full_page=True)
        for player in (ben, cleo):
            assert player.declare(1, "out")["type"] == "ack"
        page.click("#declare-out")
        expect(page.locator('#center .round[data-round="2"][data-phase="declare"]')
               ).to_have_count(1, timeout=WAIT)
        expect_stacks(page, [38, 18, 18])
        _expect_ledger_row(page, 0, ["Ana", "40", "38", "-2"])
        expect(page.locator("#log")).to_contain_text("Ana buys 20 more chips.")
        page.screenshot(path=str(shots / "truth-rebuy-bought.png"), full_page=True)
        assert page.errors == []  # type: ignore[attr-defined]
