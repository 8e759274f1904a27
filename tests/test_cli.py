"""The ``guts`` command line: every command's happy path with real values, and every user
error (exit status 2, one ``error:`` line on stderr, nothing on stdout)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import CASES_DIR, assert_subset, load_case, referee_cases
from typer.testing import CliRunner, Result

from gutskit.cli.app import app
from gutskit.core.rules import PRESETS


def _runner(columns: int) -> CliRunner:
    """A runner with no colour, no ``GUTSKIT_DB`` and a terminal ``columns`` wide."""
    return CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None,
                          "COLUMNS": str(columns), "GUTSKIT_DB": None})


RUNNER = _runner(120)
NARROW = _runner(80)
"""A runner at the default terminal width (80 columns)."""


def guts(*args: str, input: str | None = None, columns: int = 120) -> Result:
    """Run ``guts ARGS`` in-process in a terminal ``columns`` wide (120 or 80); a crash
    (not a SystemExit) fails the test."""
    result = (NARROW if columns == 80 else RUNNER).invoke(app, list(args), input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def assert_user_error(result: Result, *needles: str) -> str:
    """Exit 2, nothing on stdout, one ``error:`` line on stderr containing every needle."""
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert "Traceback" not in result.stderr
    return lines[0]


# ---------------------------------------------------------------------------------------------
# guts compare

COMPARE_CASES = load_case(CASES_DIR / "compare.json")


def _rule_args(rules: dict[str, Any]) -> list[str]:
    args: list[str] = []
    for key, value in rules.items():
        args += ["--rule", f"{key}={json.dumps(value)}"]
    return args


@pytest.mark.parametrize("case", COMPARE_CASES, ids=[c["why"] for c in COMPARE_CASES])
def test_compare_public_cases(case: dict[str, Any]) -> None:
    result = guts("compare", case["first"], case["second"], "--cards", str(case["cards"]),
                  *_rule_args(case["rules"]), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["winner"] == case["winner"]


@pytest.mark.parametrize("case", COMPARE_CASES, ids=[c["why"] for c in COMPARE_CASES])
def test_compare_infers_the_card_count(case: dict[str, Any]) -> None:
    result = guts("compare", case["first"], case["second"], *_rule_args(case["rules"]),
                  "--json")
    assert json.loads(result.stdout)["winner"] == case["winner"]


def test_compare_json_is_exactly_the_documented_object() -> None:
    result = guts("compare", "9c Th Jd", "Ac Kc 7c", "--json")
    assert json.loads(result.stdout) == {
        "winner": "first",
        "hands": [{"category": "straight", "description": "Straight, nine to jack"},
                  {"category": "flush", "description": "Flush, ace-king-seven high"}],
    }


def test_compare_tie_and_categories_of_two_card_hands() -> None:
    result = guts("compare", "Ah Kd", "As Kc", "--rule", "suit_tiebreak=none", "--json")
    assert json.loads(result.stdout) == {
        "winner": "tie",
        "hands": [{"category": "high_card", "description": "Ace-king high"},
                  {"category": "high_card", "description": "Ace-king high"}],
    }
    pairs = json.loads(guts("compare", "2h 2c", "A♠ 10♦", "--json").stdout)
    assert pairs["winner"] == "first"
    assert [h["category"] for h in pairs["hands"]] == ["pair", "high_card"]


def test_compare_text_output_describes_both_hands_and_the_verdict() -> None:
    result = guts("compare", "9c Th Jd", "Ac Kc 7c")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "First   9♣ T♥ J♦  Straight, nine to jack"
    assert lines[1] == "Second  A♣ K♣ 7♣  Flush, ace-king-seven high"
    assert lines[2] == "First hand wins: straight beats flush."
    suits = guts("compare", "Ah Kd", "As Kc").stdout
    assert "Second hand wins: equal ranks, broken by suit (suit_tiebreak = high_card)." in suits
    tie = guts("compare", "Ah Kd", "As Kc", "--rule", "suit_tiebreak=none").stdout
    assert "Tie: the pot is split." in tie


@pytest.mark.parametrize(("args", "needles"), [
    (["9c Th Jx", "Ac Kc 7c"], ["Jx"]),
    (["9c Th Jd", "Ac Kc 9c 8c"], ["Ac Kc 9c 8c", "has 4 cards"]),
    (["9c Th Jd", "9c Kc 7c"], ["duplicate card '9c'"]),
    (["As Ks", "Qd Qc", "--rule", "antes=2"], ["antes"]),
    (["As Ks", "Qd Qc", "--rule", "suit_tiebreak=sometimes"], ["suit_tiebreak", "sometimes"]),
    (["As Ks", "Qd Qc", "--rule", "nonsense"], ["KEY=VALUE", "nonsense"]),
    (["As Ks", "Qd Qc", "--cards", "4"], ["--cards"]),
    (["As Ks Qs Js", "Qd Qc Qh Qs"], ["4 cards"]),
    (["As Ks"], ["Missing argument"]),
])
def test_compare_user_errors(args: list[str], needles: list[str]) -> None:
    assert_user_error(guts("compare", *args), *needles)


# ---------------------------------------------------------------------------------------------
# guts referee


@pytest.mark.parametrize("path", referee_cases(), ids=lambda p: p.stem)
def test_referee_public_cases(path: Path, tmp_path: Path) -> None:
    case = load_case(path)
    file = tmp_path / "input.json"
    file.write_text(json.dumps(case["input"]), encoding="utf-8")
    result = guts("referee", str(file), "--json")
    assert result.exit_code == 0, result.stderr
    assert_subset(json.loads(result.stdout), case["expected"])


def test_referee_reads_stdin() -> None:
    case = load_case(CASES_DIR / "seed-example-pot-8.json")
    result = guts("referee", "-", "--json", input=json.dumps(case["input"]))
    out = json.loads(result.stdout)
    assert out["stacks"] == {"Ana": 58, "Ben": 42, "Cleo": 42, "Dev": 50}
    assert out["pot"] == 16


def test_referee_text_output_has_a_table_per_round_and_final_stacks() -> None:
    data = {
        "rules": {"cards_per_hand": 2},
        "players": [{"name": "Ana", "stack": 10}, {"name": "Ben", "stack": 10},
                    {"name": "Cleo", "stack": 10}],
        "dealer": "Cleo",
        "rounds": [
            # antes 1 each (pot 3); Ana alone in: takes 3 uncontested.
            {"hands": {"Ana": "As Ad"}, "declarations": {"Ana": "in", "Ben": "out",
                                                         "Cleo": "out"}},
            # new game, antes again (pot 3); Ben (kings) beats Cleo (queens): Ben takes 3,
            # Cleo matches 3 into the next pot.
            {"hands": {"Ben": "Ks Kd", "Cleo": "Qs Qd"},
             "declarations": {"Ana": "out", "Ben": "in", "Cleo": "in"}},
        ],
    }
    result = guts("referee", "-", input=json.dumps(data))
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "Round 1 · dealer Cleo · pot 3 → 0 · uncontested" in text
    assert "Round 2 · dealer Ana · pot 3 → 3 · showdown" in text
    assert re.search(r"Ana\s+│\s+1\s+│ in\s+│ A♠ A♦\s+│ wins\s+│\s+\+2\s+│\s+12", text)
    assert re.search(r"Cleo\s+│\s+1\s+│ in\s+│ Q♠ Q♦\s+│ matches\s+│\s+-4\s+│\s+5", text)
    assert re.search(r"Ben\s+│\s+1\s+│ in\s+│ K♠ K♦\s+│ wins\s+│\s+\+2\s+│\s+11", text)
    assert re.search(r"Ana\s+│\s+1\s+│ out\s+│\s+│\s+│\s+-1\s+│\s+11", text)
    final = text[text.index("Final stacks"):]
    assert re.search(r"Ana\s+│\s+11", final)
    assert re.search(r"Ben\s+│\s+11", final)
    assert re.search(r"Cleo\s+│\s+5", final)
    assert "Pot: 3 · reserve: 0" in text


def _base_referee() -> dict[str, Any]:
    return {
        "rules": {"cards_per_hand": 3, "ante": 1},
        "players": [{"name": "Ana", "stack": 50}, {"name": "Ben", "stack": 50},
                    {"name": "Cleo", "stack": 50}, {"name": "Dev", "stack": 50}],
        "dealer": "Dev",
        "pot": 8,
        "rounds": [{
            "hands": {"Ana": "Qs Qh 7d", "Ben": "Jc Ts 4h", "Cleo": "9d 9c 8s",
                      "Dev": "5c 4d 2h"},
            "declarations": {"Ana": "in", "Ben": "in", "Cleo": "in", "Dev": "out"},
        }],
    }


def _mutated(path: str, value: Any) -> dict[str, Any]:
    """The base referee input with the item at ``path`` (``a.b.0.c``) set, or deleted when
    ``value`` is ``...``."""
    data = _base_referee()
    *parents, last = path.split(".")
    node: Any = data
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key: Any = int(last) if isinstance(node, list) else last
    if value is ...:
        del node[key]
    else:
        node[key] = value
    return data


REFEREE_ERRORS = [
    ("unknown card", "rounds.0.hands.Ana", "Qs Qh 7x", ["'7x'", "Ana"]),
    ("duplicate card across players", "rounds.0.hands.Ben", "Qs Ts 4h",
     ["Qs", "'Ana'", "'Ben'"]),
    ("duplicate card in a hand", "rounds.0.hands.Ben", "Jc Jc 4h", ["duplicate card 'Jc'"]),
    ("duplicate name", "players.1.name", "Ana", ["duplicate player name 'Ana'"]),
    ("unknown name in declarations", "rounds.0.declarations.Zed", "in", ["'Zed'"]),
    ("unknown name in hands", "rounds.0.hands.Zed", "As Ks Qs", ["'Zed'"]),
    ("unknown dealer", "dealer", "Zed",
     ['dealer must be one of the players (Ana, Ben, Cleo, Dev), not "Zed"']),
    ("wrong card count", "rounds.0.hands.Ana", "Qs Qh", ["'Qs Qh'", "expected 3"]),
    ("dealt player without a declaration", "rounds.0.declarations.Dev", ...,
     ["'Dev'", "no declaration"]),
    ("in player without a hand", "rounds.0.hands.Cleo", ..., ["'Cleo'", "cards were not recorded"]),
    ("negative stack", "players.0.stack", -5, ["'Ana'", "negative", "-5"]),
    ("fractional stack", "players.2.stack", 12.5, ["'Cleo'", "12.5"]),
    ("stack as a string", "players.2.stack", "50", ["'Cleo'", '"50"']),
    ("unknown rule", "rules.antes", 1, ["'antes'"]),
    ("bad rule value", "rules.all_out", "sometimes", ["all_out", "sometimes"]),
    ("bad declaration", "rounds.0.declarations.Ana", "maybe", ["'Ana'", '"maybe"']),
    ("negative pot", "pot", -1, ["pot", "-1"]),
    ("unknown key", "rounds.0.bets", {}, ["'bets'"]),
]


@pytest.mark.parametrize(("path", "value", "needles"),
                         [(p, v, n) for _, p, v, n in REFEREE_ERRORS],
                         ids=[name for name, *_ in REFEREE_ERRORS])
def test_referee_invalid_input(path: str, value: Any, needles: list[str],
                               tmp_path: Path) -> None:
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(_mutated(path, value)), encoding="utf-8")
    assert_user_error(guts("referee", str(file)), *needles)
    assert_user_error(guts("referee", str(file), "--json"), *needles)


def test_referee_bad_json(tmp_path: Path) -> None:
    file = tmp_path / "broken.json"
    file.write_text('{"players": [', encoding="utf-8")
    assert_user_error(guts("referee", str(file), "--json"), "not valid JSON", "line 1")
    assert_user_error(guts("referee", "-", input="{nope"), "standard input",
                      "not valid JSON")


def test_referee_rejects_a_duplicate_json_key() -> None:
    text = json.dumps(_base_referee()).replace('"Dev": "out"', '"Dev": "out", "Ana": "out"')
    assert_user_error(guts("referee", "-", input=text), "duplicate key 'Ana'")


def test_referee_unreadable_file(tmp_path: Path) -> None:
    assert_user_error(guts("referee", str(tmp_path / "missing.json")), "missing.json",
                      "No such file")
    assert_user_error(guts("referee", str(tmp_path)), str(tmp_path))
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    assert_user_error(guts("referee", str(binary)), "binary.json")


def test_referee_input_must_be_an_object() -> None:
    assert_user_error(guts("referee", "-", input="[1, 2]"), "object")


# ---------------------------------------------------------------------------------------------
# guts rules


def test_rules_json_of_a_preset() -> None:
    out = json.loads(guts("rules", "--preset", "indonesian", "--json").stdout)
    assert out["cards_per_hand"] == 2
    assert out["declaration"] == "sequential"
    assert out["all_out"] == "carry"
    assert out["suit_tiebreak"] == "none"
    assert out["ante"] == 1


def test_rules_from_a_toml_file_with_overrides(tmp_path: Path) -> None:
    file = tmp_path / "house.toml"
    file.write_text('cards_per_hand = 2\npot_cap = 50\npot_cap_mode = "reserve"\n',
                    encoding="utf-8")
    out = json.loads(guts("rules", "--rules", str(file), "--rule", "ante=2", "--json").stdout)
    assert (out["cards_per_hand"], out["pot_cap"], out["pot_cap_mode"], out["ante"]) == (
        2, 50, "reserve", 2)


def test_rules_table_shows_value_default_and_description() -> None:
    text = guts("rules", "--preset", "social").stdout
    row = next(line for line in text.splitlines() if line.startswith("│ pot_cap "))
    assert re.search(r"│ pot_cap\s+│ 50\s+│ none\s+│ Largest pot", row)
    assert "House rules" in text


def test_rules_list_presets() -> None:
    text = guts("rules", "--list").stdout
    for name in PRESETS:
        assert f"│ {name} " in text
    listed = json.loads(guts("rules", "--list", "--json").stdout)
    assert set(listed) == set(PRESETS)
    assert listed["indonesian"]["rules"]["declaration"] == "sequential"


def test_rules_errors(tmp_path: Path) -> None:
    file = tmp_path / "house.toml"
    file.write_text("cards_per_hand = 2\n", encoding="utf-8")
    assert_user_error(guts("rules", "--preset", "social", "--rules", str(file)),
                      "--preset and --rules")
    assert_user_error(guts("rules", "--preset", "klondike"), "unknown preset 'klondike'")
    assert_user_error(guts("rules", "--rules", str(tmp_path / "nope.toml")), "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("cards_per_hand = 4\n", encoding="utf-8")
    assert_user_error(guts("rules", "--rules", str(bad)), "cards_per_hand")
    notoml = tmp_path / "notoml.toml"
    notoml.write_text("this is = = not toml\n", encoding="utf-8")
    assert_user_error(guts("rules", "--rules", str(notoml)), "not valid TOML")
    assert_user_error(guts("rules", "--rule", "pot_cap=0"), "pot_cap")


# ---------------------------------------------------------------------------------------------
# guts sim


def test_sim_is_deterministic_under_a_seed() -> None:
    args = ("sim", "--players", "4", "--rounds", "300", "--seed", "11", "--json")
    first = guts(*args)
    second = guts(*args)
    assert first.exit_code == 0, first.stderr
    assert first.stdout == second.stdout
    text_a = guts("sim", "-n", "4", "-R", "300", "--seed", "11").stdout
    text_b = guts("sim", "-n", "4", "-R", "300", "--seed", "11").stdout
    assert text_a == text_b


def test_sim_json_summary() -> None:
    out = json.loads(guts("sim", "-n", "5", "-R", "400", "--seed", "3", "--chips", "40",
                          "--json").stdout)
    assert set(out) == {"players", "rounds", "games", "completed_games", "sessions",
                        "largest_pot", "mean_pot_growth", "outcomes", "final_stacks", "chips",
                        "seed", "rules"}
    assert out["rounds"] == 400
    assert sum(out["outcomes"].values()) == 400
    assert out["seed"] == 3
    assert out["chips"] == 40
    assert len(out["players"]) == 5
    assert list(out["final_stacks"]) == out["players"]
    # Every session starts with 5 x 40 chips; the last one is ended, so its chips are back
    # in the stacks.
    assert sum(out["final_stacks"].values()) == 200
    assert 1 <= out["completed_games"] <= out["games"] <= 400
    assert out["largest_pot"] >= 5  # five antes of 1
    assert out["mean_pot_growth"] >= 1.0


def test_sim_zero_rounds_is_refused() -> None:
    # a fresh user's find: 0 rounds printed an empty summary; it is a mistake now
    assert_user_error(guts("sim", "-n", "3", "-R", "0", "--json"),
                      "--rounds 0 is out of range: it must be from 1 to 10000000")


def test_sim_starts_new_sessions() -> None:
    # Sessions end at the first uncontested win after a matched showdown; with small stacks
    # and many rounds several sessions are played, and the counts go on.
    out = json.loads(guts("sim", "-n", "3", "-R", "600", "--seed", "5", "--chips", "10",
                          "--rule", "end_on_uncontested=true", "--json").stdout)
    assert out["sessions"] > 1
    assert sum(out["final_stacks"].values()) == 30


def test_sim_text_summary() -> None:
    text = guts("sim", "-n", "3", "-R", "200", "--seed", "2").stdout
    assert "Final stacks (last session)" in text
    assert re.search(r"Rounds: 200 \(\d+ showdowns, \d+ uncontested, \d+ void\)", text)
    assert re.search(r"Games: \d+ · sessions: \d+", text)
    assert re.search(r"Largest pot: \d+", text)
    assert "Mean pot growth per game: " in text
    assert "Seed: 2" in text
    assert "simulating" not in text  # no progress bar when not on a terminal


def test_sim_user_errors() -> None:
    assert_user_error(guts("sim", "--players", "11"), "--players")
    assert_user_error(guts("sim", "--players", "1"), "--players")
    assert_user_error(guts("sim", "--rounds", "-3"), "--rounds")
    assert_user_error(guts("sim", "--rounds", "many"), "--rounds")
    assert_user_error(guts("sim", "--preset", "nope"), "unknown preset 'nope'")


# ---------------------------------------------------------------------------------------------
# the group


def test_help_of_every_command_has_examples() -> None:
    for command in ("play", "sim", "compare", "referee", "rules", "history"):
        result = guts(command, "--help")
        assert result.exit_code == 0
        assert "Examples" in result.stdout
        assert f"guts {command}" in result.stdout


def test_unknown_command_is_a_user_error() -> None:
    assert_user_error(guts("deal"), "deal")


# ---------------------------------------------------------------------------------------------
# docs/referee.md: the examples are real outputs

REFEREE_DOC = Path(__file__).resolve().parents[1] / "docs" / "referee.md"


def _doc_blocks(after: str) -> list[tuple[str, str]]:
    """(language, text) of the fenced blocks of docs/referee.md after the text ``after``."""
    doc = REFEREE_DOC.read_text(encoding="utf-8")
    return re.findall(r"```(\w*)\n(.*?)```", doc[doc.index(after):], re.S)


def _strip(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


@pytest.mark.parametrize("example", ["night", "tie", "short"])
def test_referee_doc_examples_are_real_outputs(example: str, tmp_path: Path) -> None:
    blocks = _doc_blocks(f"`{example}.json`")
    data = json.loads(blocks[0][1])
    printed = blocks[1][1]
    file = tmp_path / f"{example}.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    assert _strip(guts("referee", str(file)).stdout) == _strip(printed)
    if example == "night":
        assert blocks[2][0] == "json"
        assert json.loads(guts("referee", str(file), "--json").stdout) == json.loads(
            blocks[2][1])


def test_referee_doc_error_table_is_real(tmp_path: Path) -> None:
    doc = REFEREE_DOC.read_text(encoding="utf-8")
    night = json.loads(_doc_blocks("`night.json`")[0][1])
    messages = re.findall(r"^\| [^|]+ \| `(error: .*)` \|$", doc, re.M)
    assert len(messages) == 4
    broken = [json.loads(json.dumps(night)) for _ in range(4)]
    broken[0]["rounds"][1]["hands"]["Dev"] = "Qs 2c 3c"
    del broken[1]["rounds"][1]["declarations"]["Dev"]
    broken[2]["players"][0]["stack"] = 20.5
    broken[3] = {"players": []}
    for data, message in zip(broken, messages, strict=True):
        result = guts("referee", "-", input=json.dumps(data))
        assert result.stderr.strip() == message
    bad = json.loads(json.dumps(night))
    bad["rounds"][1]["hands"]["Ana"] = "Qs Qh"
    assert guts("referee", "-", input=json.dumps(bad)).stderr.strip() == (
        "error: round 2: hand of 'Ana': hand 'Qs Qh' has 2 cards, expected 3")
    assert "error: round 2: hand of 'Ana': hand 'Qs Qh' has 2 cards, expected 3" in doc


def test_compare_hands_of_different_sizes_names_both() -> None:
    result = guts("compare", "Ah Kd", "Qs Qd Qc")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: the hands differ in size: 'Ah Kd' has 2 cards, 'Qs Qd Qc' has 3 cards; "
        "compare hands of the same size")
    assert result.stdout == ""
