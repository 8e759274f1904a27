"""What a fresh user tripped on in session 11 and polish11b mended: options that were
silently ignored and error messages that did not say what to type. Every message is
asserted word for word."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import assert_user_error, guts
from test_verify_replay import build_session

from gutskit.core.history import event_to_dict
from gutskit.server.exports import history_jsonl


def test_rules_list_refuses_preset() -> None:
    """--list lists every preset; with --preset it used to ignore --preset silently."""
    line = assert_user_error(guts("rules", "--list", "--preset", "social"))
    assert line == ("error: --list lists every preset and cannot be used with --preset; to "
                    "see one preset's rules, leave out --list (guts rules --preset NAME)")


def test_rules_list_refuses_rule_and_preset_naming_both() -> None:
    line = assert_user_error(guts("rules", "-l", "-p", "social", "--rule", "pot_cap=5"))
    assert line == ("error: --list lists every preset and cannot be used with --preset or "
                    "--rule; to see one preset's rules, leave out --list (guts rules "
                    "--preset NAME)")


def test_rules_list_alone_still_lists() -> None:
    result = guts("rules", "--list", "--json")
    assert result.exit_code == 0
    listed = json.loads(result.stdout)
    assert listed["social"]["description"].startswith("German rule book's advice for social play")


def test_an_unquoted_hand_gets_a_hint_to_quote_it() -> None:
    assert assert_user_error(guts("odds", "Ah", "Kh", "Qh")) == (
        'error: Got unexpected extra argument(s) (Kh Qh); quote the hand: guts odds '
        '"Ah Kh Qh"')
    assert assert_user_error(guts("advise", "Qs", "Qh", "7d")) == (
        'error: Got unexpected extra argument(s) (Qh 7d); quote the hand: guts advise '
        '"Qs Qh 7d"')
    assert assert_user_error(guts("compare", "Ah", "Kh", "Qh", "As", "Ks", "Qs")) == (
        'error: Got unexpected extra argument(s) (Qh As Ks Qs); quote each hand: '
        'guts compare "Ah Kh Qh" "As Ks Qs"')


def test_extra_arguments_that_are_not_cards_get_no_hint() -> None:
    assert assert_user_error(guts("odds", "Ah", "Kh", "Zz")) == (
        "error: Got unexpected extra argument(s) (Kh Zz) (see 'guts odds --help')")


def test_compare_one_card_hands_get_a_hint_to_quote_them() -> None:
    assert assert_user_error(guts("compare", "Ah", "Kh")) == (
        "error: hand 'Ah' has 1 card; Guts hands have 2 or 3; quote each hand, e.g. guts "
        'compare "Ah Kh Qh" "As Ks Qs"')


def test_verify_history_summary_fits_80_columns(tmp_path: Path) -> None:
    """The summary of a history without commitments (~140 characters) is wrapped to the
    console's 80 columns when piped, words intact."""
    _, _, events = build_session()
    path = tmp_path / "h.jsonl"
    path.write_text(history_jsonl([event_to_dict(e) for e in events]))
    result = guts("verify", str(path), columns=80)
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[-2:] == [
        "4 rounds replay through the engine; fairness is not provable for this history:",
        "it has no commitments (a server room's fairness.json has them)"]


def test_advise_writes_plus_minus_one_way() -> None:
    """The method line said "+/-" where every figure said "±"."""
    result = guts("advise", "Qs Qh 7d", "--players", "5", "--pot", "5", columns=80)
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "+/-" not in text
    assert ("declarations averaged exactly per deal; every figure ± its standard error"
            in text)
    assert "+1.162 ± 0.013 chips" in text


def test_chips_help_says_what_the_limit_bounds() -> None:
    """1,000,000 bounds a buy-in or rebuy, not every amount at a table (a stack may grow
    past it up to MAX_TABLE_CHIPS, which guts referee names)."""
    result = guts("play", "--help")
    assert result.exit_code == 0
    text = " ".join(result.stdout.replace("│", " ").split())
    assert ("Everyone's buy-in, in chips (1..1000000, gutskit's largest buy-in or rebuy; a "
            "stack that wins pots may grow past it)." in text)
