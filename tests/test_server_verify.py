"""``guts verify`` against a session built with the engine (no server): the seeds and
the hands are those of tests/test_server.py's scripted session (Ana, Ben, Cleo, buy-in
20, dealer Ana; seeds 1 to 4):

* round 1 (seed 1): Ana Ts Td Qc, Ben Qd Jh 7h, Cleo Ah 6c 2h; Ana and Ben in, Cleo out:
  both hands are shown, Ana's tens win 3, Ben matches 3;
* round 2 (seed 2): all out (void); round 3 (seed 3): Cleo alone in, wins 6;
* round 4 (seed 4) is dealt, then the session ends.

Ana's history (her view) shows her own hands and, in round 1, Ben's hand at the
showdown: 3 + 3 cards in round 1, 3 in each other round. Each test then spoils one thing
(a hand, a record, an amount) and expects ``FAILED`` with exit status 1, or input that
cannot be read and expects ``error:`` with exit status 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gutskit.cli.app import app as cli_app
from gutskit.core import engine
from gutskit.core.events import Declaration, Event
from gutskit.core.history import event_to_dict
from gutskit.core.rules import Rules
from gutskit.core.views import visible_events
from gutskit.server.exports import history_jsonl
from gutskit.server.fairness import commitment, deck_from_seed, session_hash

DECLS = {1: {0: "in", 1: "in", 2: "out"}, 2: {0: "out", 1: "out", 2: "out"},
         3: {0: "out", 1: "out", 2: "in"}, 4: {}}


def build_session() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The fairness file (session over, every seed revealed) and Ana's history."""
    start = engine.start_event(["Ana", "Ben", "Cleo"], 20, dealer=0, rules=Rules())
    events: list[Event] = [start]
    state = engine.evolve(None, start)
    rounds = []
    for number, decls in DECLS.items():
        seed = bytes([number]) * 32
        deck = deck_from_seed(seed)
        state, more = engine.deal(state, engine.hands_from_deck(state, deck))
        events += more
        assert state.round_number == number
        rounds.append({"round": number, "commitment": commitment(seed, deck),
                       "seed": seed.hex()})
        for seat, decl in decls.items():
            state, more = engine.declare(state, seat, Declaration(decl))
            events += more
    state, more = engine.end_session(state)
    events += more
    assert state.stacks == (21, 15, 24)
    header = event_to_dict(start)  # the server's commitment to the session header
    fairness = {"room_id": "r", "algorithm": "gutskit-deck-v1", "session_over": True,
                "session": {"hash": session_hash(header), "started": header},
                "rounds": rounds}
    return fairness, [event_to_dict(e) for e in visible_events(events, 0)]


def run(tmp_path: Path, fairness: Any, history: list[dict[str, Any]] | None = None,
        raw: str | None = None) -> tuple[int, str, str]:
    path = tmp_path / "fairness.json"
    path.write_text(raw if raw is not None else json.dumps(fairness))
    args = ["verify", str(path)]
    if history is not None:
        (tmp_path / "h.jsonl").write_text(history_jsonl(history))
        args += ["--history", str(tmp_path / "h.jsonl")]
    result = CliRunner().invoke(cli_app, args)
    return result.exit_code, result.stdout, result.stderr


def dealt_lines(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in history if e["type"] == "CardsDealt"]


def test_an_honest_session_verifies(tmp_path: Path) -> None:
    fairness, history = build_session()
    assert dealt_lines(history)[0]["hands"] == ["Ts Td Qc", "", ""]
    code, out, err = run(tmp_path, fairness, history)
    assert (code, err) == (0, "")
    lines = out.splitlines()  # the header is wrapped to the console's width
    first = next(i for i, line in enumerate(lines) if line.startswith("round 1:"))
    header, lines = " ".join(lines[:first]), lines[first:]
    assert header.startswith("session header: the hand history's names, seats, stacks")
    assert [line.split(", ")[-1] for line in lines[:4]] == [
        "6 cards of the history match)", "3 cards of the history match)",
        "3 cards of the history match)", "3 cards of the history match)"]
    assert lines[-2:] == ["the hand history replays through the engine",
                          "4 of 4 rounds verified"]


def test_a_changed_hand_that_was_also_shown_fails(tmp_path: Path) -> None:
    fairness, history = build_session()
    dealt_lines(history)[0]["hands"][0] = "2c 3c 4c"  # Ana's round 1, shown at the showdown
    code, _, err = run(tmp_path, fairness, history)
    assert code == 1
    # The replay through the engine sees it first: the dealt hand is not the shown one.
    assert err == ("FAILED: round 1: the recorded RoundResolved differs from the engine's: "
                   "shown [Ts Td Qc, Qd Jh 7h, -] (the engine: [2c 3c 4c, Qd Jh 7h, -])\n")
    fairness["rounds"][0]["seed"] = None  # the seed check, without the replay
    fairness["session_over"] = False
    code, _, err = run(tmp_path, fairness, history)
    assert code == 1


def test_a_shown_hand_unlike_the_dealt_one_fails(tmp_path: Path) -> None:
    fairness, history = build_session()
    resolved = next(e for e in history if e["type"] == "RoundResolved")
    assert resolved["shown"] == ["Ts Td Qc", "Qd Jh 7h", None]
    resolved["shown"][0] = "Ts Td Qd"
    fairness["rounds"][0]["seed"] = None  # even without a seed: shown != dealt
    fairness["session_over"] = False
    history = [e for e in history if e["type"] != "SessionEnded"]
    code, _, err = run(tmp_path, fairness, history)
    assert code == 1
    assert err == ("FAILED: round 1: the recorded RoundResolved differs from the engine's: "
                   "shown [Ts Td Qd, Qd Jh 7h, -] (the engine: [Ts Td Qc, Qd Jh 7h, -])\n")


@pytest.mark.parametrize(("spoil", "message"), [
    (lambda f: f.update(rounds=[]), "the fairness file lists no rounds: nothing to verify"),
    (lambda f: f.update(algorithm="other"),
     "algorithm 'other' is not 'gutskit-deal-v2' or 'gutskit-deck-v1', the ones this "
     "verifier checks"),
    (lambda f: f["rounds"][2].update(seed=None),
     "round 3: the session is over but its seed was not revealed"),
    (lambda f: f["rounds"].pop(1),
     "the rounds must be 1 to N in order, each once: round 2 is missing (rounds [1, 3, 4])"),
])
def test_incomplete_fairness_files_fail(tmp_path: Path, spoil: Any, message: str) -> None:
    fairness, _ = build_session()
    spoil(fairness)
    code, _, err = run(tmp_path, fairness)
    assert (code, err) == (1, f"FAILED: {message}\n")


def test_history_rounds_without_a_commitment_fail(tmp_path: Path) -> None:
    fairness, history = build_session()
    fairness["rounds"] = fairness["rounds"][:3]
    code, _, err = run(tmp_path, fairness, history)
    assert (code, err) == (1, "FAILED: round 4 of the hand history has no commitment in "
                              "the fairness file\n")


def test_an_unrevealed_seed_fails_once_the_history_ends(tmp_path: Path) -> None:
    fairness, history = build_session()
    del fairness["session_over"]
    fairness["rounds"][3]["seed"] = None
    code, _, err = run(tmp_path, fairness, history)
    assert (code, err) == (1, "FAILED: round 4: the session is over but its seed was not "
                              "revealed\n")
    # Without the end of the session, an unrevealed round is only reported.
    code, out, _ = run(tmp_path, fairness,
                       [e for e in history if e["type"] != "SessionEnded"])
    assert code == 0 and out.splitlines()[-3:] == [
        "round 4: not opened yet", "the hand history replays through the engine",
        "3 of 4 rounds verified"]


def test_a_tampered_amount_fails_in_one_line(tmp_path: Path) -> None:
    fairness, history = build_session()
    resolved = next(e for e in history if e["type"] == "RoundResolved")
    resolved["won"][0] += 50
    code, out, err = run(tmp_path, fairness, history)
    assert code == 1 and out == ""
    assert err == ("FAILED: round 1: the recorded RoundResolved differs from the engine's: "
                   "won [53, 0, 0] (the engine: [3, 0, 0])\n")
    assert len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(("raw", "message"), [
    ("not json", "is not a JSON object (it is not JSON): give a fairness.json or a hand "
                 "history (JSON Lines)"),
    ("[]", "is not a JSON object (it holds []): give a fairness.json or a hand history "
           "(JSON Lines)"),
    ("{}", 'a fairness file is a JSON object with a "rounds" list '
           "(GET /api/rooms/<id>/fairness.json)"),
    ('{"rounds": [{"round": "1"}]}', 'bad fairness record {"round": "1"}'),
])
def test_unreadable_input_is_a_user_error(tmp_path: Path, raw: str, message: str) -> None:
    code, out, err = run(tmp_path, None, raw=raw)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and len(err.splitlines()) == 1


def test_no_arguments_and_a_missing_file_are_user_errors(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli_app, ["verify"])
    assert result.exit_code == 2
    assert result.stderr == ("error: give a fairness.json file or a hand history, or "
                             "--commitment and --seed\n")
    result = CliRunner().invoke(cli_app, ["verify", str(tmp_path / "nope.json")])
    assert result.exit_code == 2 and result.stderr.startswith("error: cannot read")


def test_a_bad_seed_or_a_broken_fairness_file_are_user_errors(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli_app, ["verify", "--commitment", "1217", "--seed", "zz"])
    assert result.exit_code == 2
    assert result.stderr == ("error: --seed: seed 'zz' is not hexadecimal (the room's seed: "
                             "64 hex digits, revealed after the round)\n")
    # the wrong length, or a commitment that is not a SHA-256 digest, is bad input too
    # (exit 2), never a FAILED check (exit 1)
    result = CliRunner().invoke(cli_app, ["verify", "--commitment", "ab" * 32, "--seed", "00"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("error: --seed: seed '00' has 1 byte, expected 32 (the room's "
                             "seed: 64 hex digits, revealed after the round)\n")
    result = CliRunner().invoke(cli_app, ["verify", "--commitment", "1217", "--seed",
                                          "ab" * 32])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("error: --commitment '1217' is not a commitment (a SHA-256 "
                             "digest: 64 hex digits, published before the round)\n")
    bad = tmp_path / "bad.json"
    bad.write_text('{"rounds": [')
    (tmp_path / "h.jsonl").write_text("")
    result = CliRunner().invoke(cli_app, ["verify", str(bad), "--history",
                                          str(tmp_path / "h.jsonl")])
    assert result.exit_code == 2
    assert result.stderr == (f"error: {str(bad)!r} is not a JSON object (it is not JSON): "
                             "with --history, FILE is the room's fairness.json (guts verify "
                             f"fairness.json --history {tmp_path / 'h.jsonl'}; a hand history "
                             f"alone: guts verify {bad})\n")


def test_help_names_the_fairness_url() -> None:
    result = CliRunner().invoke(cli_app, ["verify", "--help"])
    assert "/api/rooms/ROOM_ID/fairness.json" in result.stdout
