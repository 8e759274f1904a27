"""What the fresh user and the attacker of session 9 found and session 10 mended (polish10):
each behaviour asserted exactly (values worked out by hand, messages word for word)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_cli import assert_user_error, guts

# --- away then back before the next deal: dealt the next round of the game --------------------


def test_away_then_back_before_the_next_deal_is_dealt_the_next_round(tmp_path: Path) -> None:
    # Seed 7, 20 chips: round 1 antes 1 each (pot 3); you type away, then go in. Ava's
    # Q-J-T straight wins 3 (19 + 3 = 22); you (8-7-3 high) and Bruno (4-3-2 straight)
    # match 3 each (16): the pot of 6 carries over, the game goes on. You were dealt into
    # every round of it, so back between rounds deals you round 2 (no ante: 16 stays 16).
    db = tmp_path / "g.db"
    result = guts("play", "--players", "3", "--seed", "7", "--chips", "20", "--db", str(db),
                  input="away\nin\nback\nout\nq\n")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "Stacks: You 16 · Ava 22 · Bruno 16" in text
    assert ("You are away. Enter = watch the next round, back (b) = come back, quit (q): "
            "back You are back and dealt in from the next deal. ") in text
    assert "comes back when the next game starts" not in text
    assert "You come back when the next game starts" not in text
    # round 2: your 2-2-8; you out, Bruno's pair of fives beats Ava's pair of threes: Bruno
    # takes the 6 (22), Ava matches 6 (16)
    assert ("Round 2 · game 1 · dealer Bruno ─" in result.stdout)
    assert "Your cards: 2♠ 2♥ 8♥ (Pair of twos, eight kicker) Pot 6" in text
    assert "Reveal: You out · Ava IN · Bruno IN" in text
    assert "Stacks: You 16 · Ava 16 · Bruno 22" in text
    history = guts("history", "1", "--json", "--db", str(db))
    assert history.exit_code == 0, history.stderr
    events = [json.loads(line) for line in history.stdout.splitlines() if line.strip()]
    kinds = [e["type"] for e in events]
    assert kinds.count("SeatAway") == 1 and kinds.count("SeatBack") == 1
    dealt = [e for e in events if e["type"] == "CardsDealt"]
    assert len(dealt) == 3 and all(hand is not None for d in dealt for hand in d["hands"])
    refereed = guts("referee", "-", input=history.stdout)  # the driver's rule, replayed
    assert (refereed.exit_code, refereed.stderr) == (0, "")


# --- threshold: one parser: a percentile everywhere, a hand for guts odds too -----------------

def _odds_json(strategy: str) -> dict[str, Any]:
    result = guts("odds", "Qs Qh 7d", "--players", "2", "--strategy", strategy, "--json")
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_odds_takes_a_percentile_threshold_as_the_bots_do() -> None:
    # threshold:0 plays every hand: the same odds as always-in; threshold:1 plays none
    # (the best hand's percentile, ties counted half, is below 1): nobody is ever in
    every = _odds_json("threshold:0")
    assert every["strategy"] == "in at percentile 0 or better"
    assert every["opponents_in"] == _odds_json("always-in")["opponents_in"]
    none = _odds_json("threshold:100%")
    assert none["strategy"] == "in at percentile 1 or better"
    assert [(k["k"], k["probability"]) for k in none["opponents_in"]] == [(0, 1.0), (1, 0.0)]
    # a percent and a fraction are the same threshold
    assert _odds_json("threshold:60%") == _odds_json("threshold:0.6")


def test_odds_still_takes_a_hand_threshold_and_names_both_forms_when_wrong() -> None:
    assert _odds_json("threshold:9c 9d 2h")["strategy"] == (
        "in with Pair of nines, two kicker or better")
    assert assert_user_error(guts("odds", "Qs Qh 7d", "-s", "threshold:Qs Jd")) == (
        "error: --strategy 'threshold:Qs Jd': hand 'Qs Jd' has 2 cards, expected 3 "
        "(threshold: takes a hand, e.g. threshold:'7h 7d', or a percentile from 0 to 1 or 0% "
        "to 100%, e.g. threshold:0.7 or threshold:70%)")
    assert assert_user_error(guts("odds", "Qs Qh 7d", "-s", "threshold:150%")) == (
        "error: threshold percentile '150%' in 'threshold:150%' must be from 0 to 1 or 0% to "
        "100%, e.g. threshold:0.7 or threshold:70%")


def test_a_bot_takes_a_percent_and_says_a_hand_is_for_odds() -> None:
    played = guts("play", "--players", "2", "--seed", "1", "--bots", "threshold:70%",
                  input="q\n")
    assert played.exit_code == 0, played.stderr
    assert "Opponents: Ava (threshold:70%)." in played.stdout
    assert assert_user_error(guts("play", "--bots", "threshold:Qs Jd 2c")) == (
        "error: threshold percentile 'Qs Jd 2c' in 'threshold:Qs Jd 2c' is not a number: a "
        "bot's threshold is a percentile (from 0 to 1 or 0% to 100%, e.g. threshold:0.7 or "
        "threshold:70%; a hand such as threshold:'9c 9d 2h' is taken by guts odds --strategy "
        "only)")


# --- which chip bound applies where -----------------------------------------------------------

def test_the_model_chip_bound_is_named_in_help_and_errors() -> None:
    from gutskit.cli.options import MODEL_CHIPS
    from gutskit.core.limits import MAX_CHIPS

    assert (MODEL_CHIPS, MAX_CHIPS) == (10**12, 10**6)
    helped = guts("odds", "--help")
    assert helped.exit_code == 0
    assert ("Pot in chips (1..10^12, a model's amount: the 1,000,000 bound is for a table's "
            "buy-in)") in " ".join(helped.stdout.replace("│", " ").split())
    assert assert_user_error(guts("tournament", "--chips", str(10**12 + 1))) == (
        "error: --chips 1000000000001 is out of range: it must be from 1 to 1000000000000 "
        "(see 'guts tournament --help')")
    assert assert_user_error(guts("play", "--chips", str(10**6 + 1))) == (
        "error: --chips 1000001 is out of range: it must be from 1 to 1000000 "
        "(see 'guts play --help')")


# --- wording: an unknown event, GUTSKIT_DB='', the default number of players -------------------

_STARTED = ('{"type": "SessionStarted", "rules": {}, "names": ["A", "B"], "stacks": [5, 5], '
            '"dealer": 0}\n')


def test_the_referee_names_an_unknown_event_type_not_an_unknown_key() -> None:
    assert assert_user_error(guts("referee", "-", input='{"type": "Bogus", "x": 1}\n')) == (
        'error: standard input: event 1 (line 1): unknown hand-history event type "Bogus"')
    assert assert_user_error(guts("referee", "-", input='{"type": "Bogus"}\n{"type": "B"}\n')
                             ) == ('error: standard input: event 1 (line 1): unknown '
                                   'hand-history event type "Bogus"')
    assert assert_user_error(guts("referee", "-", input='{"type": "CardsDealt"}\n')) == (
        "error: standard input: event 1 (line 1): a hand history starts with a "
        'SessionStarted event, not "CardsDealt"')
    assert assert_user_error(guts("referee", "-", input=_STARTED + '{"type": "Nope"}\n')) == (
        'error: standard input: event 2 (line 2): unknown hand-history event type "Nope"')


def test_an_empty_gutskit_db_is_refused_by_name() -> None:
    from test_cli import RUNNER

    from gutskit.cli.app import app

    result = RUNNER.invoke(app, ["history"], env={"GUTSKIT_DB": ""})
    assert assert_user_error(result) == (
        "error: GUTSKIT_DB is set but empty: unset it to use the default database, or set it "
        "to a database file or URL (or give --db)")


def test_odds_advise_and_solve_show_their_default_number_of_players() -> None:
    for command, default in (("odds", 2), ("advise", 5), ("solve", 5)):
        helped = guts(command, "--help")
        assert helped.exit_code == 0
        text = " ".join(helped.stdout.replace("│", " ").split())
        assert f"Players at the table, you included (2..10). [default: {default}]" in text


# --- another program's database: "1 table or view", "2 tables or views" -----------------------

def test_another_programs_database_counts_its_tables_and_views(tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE t (x)")
        connection.execute("CREATE VIEW v AS SELECT 1 AS x")
    connection.close()
    assert assert_user_error(guts("history", "--db", str(other))) == (
        f"error: {str(other)!r} is another program's database (it holds 2 tables or views, "
        "none of gutskit's): give a new file or a gutskit database")


def test_the_referee_quotes_an_unreadable_file_as_the_other_readers_do(tmp_path: Path) -> None:
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe{}")
    assert assert_user_error(guts("referee", str(binary))) == (
        f"error: {str(binary)!r} is not a UTF-8 text file")
    assert assert_user_error(guts("analyze", "--history", str(binary))) == (
        f"error: hand history {str(binary)!r} is not a UTF-8 text file")
