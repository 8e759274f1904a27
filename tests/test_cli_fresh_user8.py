"""What the fresh user of session 7 found and session 8 mended (each error one line on
stderr, exit 2, no traceback): a tampered hand history settled silently by ``guts referee``,
a worked case refused for its ``expected`` key, ..."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CASES_DIR
from test_cli import assert_user_error, guts

# --- guts referee on a tampered hand history ----------------------------------------------------

def _history(tmp_path: Path) -> str:
    """Seed 7, 3 players, You in/out/in/out/in then quit (round 1: Ava's Qd Th Jd beats
    You's 8d 3c 7s and Bruno's 4d 2s 3h; Ava wins the pot of 3, You and Bruno match 3)."""
    db = str(tmp_path / "g.db")
    played = guts("play", "--players", "3", "--seed", "7", "--db", db,
                  input="i\no\ni\no\ni\nq\n")
    assert played.exit_code == 0, played.stderr
    result = guts("history", "1", "--json", "--db", db)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_the_referee_settles_an_untouched_history_quietly(tmp_path: Path) -> None:
    result = guts("referee", "-", input=_history(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""


@pytest.mark.parametrize("as_json", [False, True])
def test_the_referee_says_when_the_recorded_result_differs(tmp_path: Path,
                                                           as_json: bool) -> None:
    text = _history(tmp_path).replace('"won": [0, 3, 0]', '"won": [0, 30, 0]', 1)
    result = guts("referee", "-", *(["--json"] if as_json else []), input=text)
    assert result.exit_code == 1, result.stderr
    assert result.stderr == (
        "warning: the hand history does not match the referee's result: round 1: the "
        "recorded RoundResolved differs from the engine's: won [0, 30, 0] (the engine: "
        "[0, 3, 0]) (the referee settles the recorded hands and declarations; see guts "
        "verify)\n")
    if as_json:  # the referee's own settlement is still printed: ante 1 each, Ava takes
        # the pot of 3, You and Bruno match it
        assert json.loads(result.stdout)["rounds"][0]["deltas"] == {
            "You": -4, "Ava": 2, "Bruno": -4}
    else:
        assert "Final stacks" in result.stdout


def test_the_referee_names_a_changed_winner(tmp_path: Path) -> None:
    text = _history(tmp_path).replace('"winners": [1], "won": [0, 3, 0], "matched": [3, 0, 3]',
                                      '"winners": [2], "won": [0, 0, 3], "matched": [3, 3, 0]',
                                      1)
    result = guts("referee", "-", input=text)
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "warning: the hand history does not match the referee's result: round 1: the "
        "recorded RoundResolved differs from the engine's: winners [2] (the engine: [1]); "
        "won [0, 0, 3] (the engine: [0, 3, 0]); matched [3, 3, 0] (the engine: [3, 0, 3])")


# --- a worked case given to guts referee --------------------------------------------------------

def test_the_referee_checks_a_worked_case_against_its_expected_values() -> None:
    result = guts("referee", str(CASES_DIR / "seed-example-pot-5.json"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.rstrip().endswith("The worked case's expected values match.")


def test_the_referee_names_a_worked_case_value_that_differs(tmp_path: Path) -> None:
    case = json.loads((CASES_DIR / "seed-example-pot-5.json").read_text())
    case["expected"]["pot"] = 12
    case["expected"]["rounds"][0]["winners"] = ["Ana"]
    file = tmp_path / "case.json"
    file.write_text(json.dumps(case))
    result = guts("referee", str(file))
    assert result.exit_code == 1
    assert result.stderr == (
        "warning: the worked case's expected values differ: rounds[0].winners[0]: \"Ben\" "
        "(the case expects \"Ana\"); pot: 10 (the case expects 12)\n")


def test_a_worked_case_whose_input_is_not_an_object_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "case.json"
    file.write_text('{"input": [1], "expected": {}}')
    assert assert_user_error(guts("referee", str(file))) == (
        f"error: {file} is a worked case whose 'input' (the referee file) is not a JSON "
        "object: it holds [1]")


# --- guts tournament --bots with one kind ------------------------------------------------------

def test_too_few_bot_kinds_name_the_bots_option() -> None:
    assert assert_user_error(guts("tournament", "--bots", "equilibrium")) == (
        "error: --bots 'equilibrium' names 1 bot kind, one per seat: a table has 2 to 10 "
        "players, got 1 (or give --players N: the kinds are repeated to fill the seats)")


# --- long values are shortened; "1 byte" -------------------------------------------------------

def test_a_long_commitment_is_quoted_by_its_start() -> None:
    line = assert_user_error(guts("verify", "--commitment", "a" * 5000, "--seed", "00" * 32))
    assert line == (f"error: --commitment '{'a' * 59}…' is not a commitment (a SHA-256 "
                    "digest: 64 hex digits, published before the round)")


@pytest.mark.parametrize(("seed", "said"), [
    ("00", "'00' has 1 byte"),
    ("a" * 5000, f"'{'a' * 59}…' has 2500 bytes"),
])
def test_a_short_or_long_seed_is_counted_in_bytes(seed: str, said: str) -> None:
    assert assert_user_error(guts("verify", "--commitment", "00" * 32, "--seed", seed)) == (
        f"error: --seed: seed {said}, expected 32 (the room's seed: 64 hex digits, revealed "
        "after the round)")


# --- "starting at at column" ---------------------------------------------------------------------

def test_a_json_error_says_at_once() -> None:
    assert assert_user_error(guts("referee", "-", input='{"a": "x')) == (
        "error: standard input is not valid JSON: Unterminated string starting at line 1, "
        "column 7")
    assert assert_user_error(guts("referee", "-", input='{"type": "SessionStarted", "x": "ab\n')
                             ) == ("error: standard input: event 1 (line 1): not valid JSON "
                                   "(Unterminated string starting at column 33)")
    assert assert_user_error(guts("referee", "-", input="{nope")) == (
        "error: standard input is not valid JSON: Expecting property name enclosed in double "
        "quotes at line 1, column 2")


# --- the terminal game: answers quoted as typed; back after away -------------------------------

def test_a_wrong_answer_is_quoted_as_typed(tmp_path: Path) -> None:
    result = guts("play", "--players", "3", "--seed", "7", "--db", str(tmp_path / "g.db"),
                  input="MAYBE\nq\n")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "In or out? [i/o/q] MAYBE Sorry, 'MAYBE' is not an answer. Type in (i)" in text


def test_back_typed_while_the_round_needs_your_declaration(tmp_path: Path) -> None:
    # Seed 7: away in round 1, then back before declaring; round 1 still needs you (in).
    # You missed no round, so you are back at once (session 10: before, the pot of 6
    # carrying over dealt you out until the next game; see test_cli_polish10).
    result = guts("play", "--players", "3", "--seed", "7", "--db", str(tmp_path / "g.db"),
                  input="away\nback\ni\nq\n")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert ("In or out? [i/o/q] back You are back and dealt in from the next deal. This "
            "round still needs your declaration.") in text
    assert "is not an answer" not in text
    assert "Reveal: You IN · Ava IN · Bruno IN" in text


# --- GUTSKIT_DB named when the database came from it ----------------------------------------------

def test_a_bad_gutskit_db_is_named(tmp_path: Path) -> None:
    from test_cli import RUNNER

    from gutskit.cli.app import app

    result = RUNNER.invoke(app, ["play", "--players", "2"], input="",
                           env={"GUTSKIT_DB": str(tmp_path)})
    assert assert_user_error(result) == (
        f"error: GUTSKIT_DB='{tmp_path}': cannot open database '{tmp_path}': it is a folder; "
        f"it takes a database file (e.g. '{tmp_path}/gutskit.db') or a URL (scheme://...)")
    # --db given: the option is named, as before
    assert assert_user_error(guts("play", "--players", "2", "--db", str(tmp_path))) == (
        f"error: cannot open database '{tmp_path}': it is a folder; --db takes a database "
        f"file (e.g. '{tmp_path}/gutskit.db') or a URL (scheme://...)")


# --- guts companion: the same name twice; one wrong hand asked again alone ---------------------

@pytest.mark.parametrize(("players", "line"), [
    ("Ana,Ana", "error: --players 'Ana,Ana': 'Ana' is named twice; give each player a "
                "different name"),
    ("Ana,ana", "error: --players 'Ana,ana': 'ana' looks like 'Ana'; give each player a name "
                "the table can tell apart"),
    ("Ana,\u0410na", "error: --players 'Ana,\u0410na': '\u0410na' looks like 'Ana' (U+0410 "
                     "CYRILLIC CAPITAL LETTER A); give each player a name the table can tell "
                     "apart"),
])
def test_a_name_given_twice_is_said_so(tmp_path: Path, players: str, line: str) -> None:
    assert assert_user_error(guts("companion", "--players", players, "--db",
                                  str(tmp_path / "g.db"), input="")) == line


def test_one_wrong_hand_is_asked_again_alone(tmp_path: Path) -> None:
    result = guts("companion", "--players", "Ana,Ben", "--db", str(tmp_path / "g.db"),
                  input="\nAna Ben\nQh Qc\nQh Qc 3d\nAh Kd 2c\nend\n")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert ("Ben's cards: Qh Qc Ben: hand 'Qh Qc' has 2 cards, expected 3. Type Ben's cards "
            "again. Ben's cards: Qh Qc 3d Ana's cards: Ah Kd 2c Cards shown at the table: Ana "
            "A♥ K♦ 2♣ · Ben Q♥ Q♣ 3♦") in text


# --- the preset that sets the number of cards ----------------------------------------------------

@pytest.mark.parametrize(("args", "line"), [
    (("advise", "As Kd 2c", "--preset", "german-2card"),
     "error: hand 'As Kd 2c' has 3 cards, expected 2 (--preset german-2card sets "
     "cards_per_hand = 2)"),
    (("odds", "As Kd", "--preset", "german-2card", "--rule", "cards_per_hand=3"),
     "error: hand 'As Kd' has 2 cards, expected 3 (set by --rule cards_per_hand=3)"),
    (("advise", "As Kd", "--preset", "social"),
     "error: hand 'As Kd' has 2 cards, expected 3 (--preset social keeps the default, "
     "cards_per_hand = 3)"),
])
def test_a_hand_of_the_wrong_size_names_what_set_the_size(args: tuple[str, ...],
                                                          line: str) -> None:
    assert assert_user_error(guts(*args)) == line


# --- guts compare under Hi-Lo: both pots ----------------------------------------------------

def test_compare_under_hi_lo_names_both_pots() -> None:
    result = guts("compare", "Ah 2s 3c", "Kd Qd Jc", "--preset", "hi-lo")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[2:] == [
        "Second hand wins the high pot: same category, higher cards.",
        "First hand wins the low pot: it is the lower hand."]
    data = json.loads(guts("compare", "Ah 2s 3c", "Kd Qd Jc", "--preset", "hi-lo",
                           "--json").stdout)
    assert (data["winner"], data["low_winner"]) == ("second", "first")
    tie = guts("compare", "Ah 2s 3c", "Ad 2c 3h", "--preset", "hi-lo", "--rule",
               "suit_tiebreak=none")
    assert tie.stdout.splitlines()[2:] == ["Tie: the high pot is split.",
                                           "Tie for the low pot too: it is split."]
    # without Hi-Lo: one pot, as before
    plain = json.loads(guts("compare", "Ah 2s 3c", "Kd Qd Jc", "--json").stdout)
    assert "low_winner" not in plain


# --- scripts/build_compiled.py: one error line, exit 2 -------------------------------------------

def test_the_compiled_build_refuses_an_out_folder_inside_a_file(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[1] / "scripts" / "build_compiled.py"
    file = tmp_path / "file"
    file.write_text("")
    done = subprocess.run([sys.executable, str(script), "--out", str(file / "compiled")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (f"error: cannot build into '{file}/compiled': '{file}' is a file, "
                           "not a folder\n")
