"""What a fresh user (README only) still tripped on in session 11 and polish12 mended: one
name for the rule-of-thumb bot ("standard" read as it), tables and lines that fit 80
(and 60) columns without cutting a name or parting a figure from its error, the companion's
messages in one form, and the session named with each round of a file of several
sessions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from test_cli import guts
from test_verify_replay import build_session
from typer.testing import CliRunner, Result

from gutskit.cli.app import app
from gutskit.core.history import event_to_dict
from gutskit.server.exports import history_jsonl
from gutskit.server.protocol import AddBot, parse_client_message
from gutskit.strategy.bots import RuleOfThumbBot
from gutskit.strategy.strategies import (
    BOT_KINDS,
    PLAY_TABLE,
    bot_kind,
    make_bot,
    parse_bot_kinds,
    play_table,
)

ROOT = Path(__file__).resolve().parents[1]


def at(columns: int, *args: str, input: str | None = None) -> Result:
    """``guts ARGS`` in a terminal ``columns`` wide; a crash fails the test."""
    runner = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None,
                            "COLUMNS": str(columns), "GUTSKIT_DB": None})
    result = runner.invoke(app, list(args), input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def _fits(text: str, width: int) -> list[str]:
    """The lines of ``text``: each at most ``width`` cells, none cut with "…"."""
    lines = text.splitlines()
    assert lines
    assert max(cell_len(line) for line in lines) <= width, max(lines, key=cell_len)
    assert "…" not in text
    return lines


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in re.split("[│┃]", line)[1:-1]]


# --- 1. one name for the rule-of-thumb bot ------------------------------------------------

def test_the_rule_of_thumb_bot_has_one_name_and_standard_is_read_as_it() -> None:
    assert "standard" not in BOT_KINDS and "rule-of-thumb" in BOT_KINDS
    assert "standard" not in PLAY_TABLE
    assert bot_kind("standard") == "rule-of-thumb"
    bot = make_bot("standard")
    assert type(bot) is RuleOfThumbBot and bot.name == "rule-of-thumb" and bot.style == 0.0
    assert parse_bot_kinds("equilibrium, standard,loose") == (
        "equilibrium", "rule-of-thumb", "loose")
    # the default table of guts play: the third bot is the rule-of-thumb one
    assert [b.name for b in play_table(4)] == [
        "Ava (equilibrium)", "Bruno (loose)", "Chen (rule-of-thumb)", "Dara (exploitative)"]
    # a server room stored with bot_style "standard" (any database) seats this bot
    (served,) = play_table(1, ("standard",))
    assert type(served) is RuleOfThumbBot and served.name == "Ava (rule-of-thumb)"


def test_guts_play_and_tournament_show_rule_of_thumb_for_standard(tmp_path: Path) -> None:
    played = guts("play", "--players", "3", "--seed", "7", "--bots", "standard",
                  "--db", str(tmp_path / "g.db"), input="quit\n")
    assert played.exit_code == 0, played.stderr
    assert "Opponents: Ava (rule-of-thumb), Bruno (rule-of-thumb)." in played.stdout
    assert "standard" not in played.stdout
    helped = guts("play", "--help")
    text = " ".join(helped.stdout.replace("│", " ").split())
    assert "equilibrium, rule-of-thumb, cautious, loose, exploitative, random, threshold" in text
    assert "[default: equilibrium,loose,rule-of-thumb,exploitative,...]" in text
    assert "standard" not in text
    played = guts("tournament", "--bots", "standard,random", "--sessions", "2", "--rounds",
                  "5", "--json")
    assert played.exit_code == 0, played.stderr
    data = json.loads(played.stdout)
    assert data["lineup"] == [row["kind"] for row in data["bots"]] == ["rule-of-thumb", "random"]


def test_the_wire_keeps_standard_and_reads_rule_of_thumb_as_it() -> None:
    """The protocol is unchanged for every client: ``standard`` is still the value stored
    and sent (``LobbySeat.bot_style``); ``rule-of-thumb``, the name shown, is accepted and
    read as ``standard`` in one place (``AddBot``)."""
    assert AddBot().style == "standard"
    assert parse_client_message('{"type": "add_bot", "style": "rule-of-thumb"}') == AddBot(
        style="standard")
    assert parse_client_message('{"type": "add_bot", "style": "standard"}') == AddBot(
        style="standard")
    labels = {lang: json.loads((ROOT / "src/gutskit/server/static/i18n" / f"{lang}.json")
                               .read_text(encoding="utf-8"))["bot.standard"]
              for lang in ("en", "de", "et", "fr", "id")}
    assert labels["en"] == "rule of thumb"
    assert "standard" not in labels.values() and "normal" not in labels.values()


# --- 2. guts analyze at 80 columns ---------------------------------------------------------

@pytest.fixture(scope="module")
def tournament_history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 seeded sessions of 50 rounds of the default four bots (seed 0)."""
    path = tmp_path_factory.mktemp("analyze") / "games.jsonl"
    result = guts("tournament", "--sessions", "20", "--rounds", "50", "--history", str(path))
    assert result.exit_code == 0, result.stderr
    return path


def test_analyze_collusion_table_fits_80_columns_uncut(tournament_history: Path) -> None:
    report = json.loads(guts("analyze", "--history", str(tournament_history), "--alpha",
                             "0.5", "--json").stdout)
    pairs = report["collusion"]["pairs"]
    assert [p["players"] for p in pairs if p["flagged"]] == [["equilibrium", "exploitative"]]
    result = at(80, "analyze", "--history", str(tournament_history), "--alpha", "0.5")
    assert result.exit_code == 0, result.stderr
    lines = _fits(result.stdout, 80)
    start = next(i for i, line in enumerate(lines) if line.startswith("┃ pair"))
    assert _cells(lines[start - 1]) == ["", "", "both", "", "z", "z", "", "p"]
    assert _cells(lines[start]) == ["pair", "rounds", "in", "expected", "agree", "cards", "p",
                                    "(Holm)"]
    body = lines[start + 2:lines.index(next(line for line in lines[start:]
                                            if line.startswith("└")))]
    # each pair: its names over two lines ("A &" / "B"), COLLUSION? under a flagged one;
    # the z of each direction on its own line; every figure the --json report's
    rows = [_cells(line) for line in body]
    firsts = [i for i, row in enumerate(rows) if row[1]]
    assert len(firsts) == len(pairs)
    for i, pair in zip(firsts, pairs, strict=True):
        a, b = pair["players"]
        assert [rows[i][0], rows[i + 1][0]] == [f"{a} &", b]
        assert rows[i][1:] == [str(pair["rounds"]), str(pair["both_in"]),
                               f"{pair['expected_both_in']:.1f}", f"{pair['z']:+.2f}",
                               f"{pair['signal']['z'][0]:+.2f}", f"{pair['p_value']:.2g}",
                               f"{pair['p_adjusted']:.2g}"]
        assert rows[i + 1][5] == f"{pair['signal']['z'][1]:+.2f}"
        flag = rows[i + 2][0] if i + 2 < len(rows) and not rows[i + 2][1] else ""
        assert flag == ("COLLUSION?" if pair["flagged"] else "")
    # the players and bluff tables keep every name whole too
    tops = [i for i, line in enumerate(lines) if line.startswith("┡")]
    ends = [i for i, line in enumerate(lines) if line.startswith("└")]
    for top, end, names in ((tops[0], ends[0], report["players"]),
                            (tops[-1], ends[-1], report["bluff_signals"])):
        shown = [_cells(line)[0] for line in lines[top + 1:end]]
        assert [name for name in shown if name] == list(names)


# --- 3, 7. guts verify: the header wrapped; the session with each round --------------------

def test_verify_with_history_wraps_the_session_header_to_80(tmp_path: Path) -> None:
    fairness, history, _ = build_session()
    (tmp_path / "fairness.json").write_text(json.dumps(fairness))
    (tmp_path / "h.jsonl").write_text(history_jsonl(history))
    result = at(80, "verify", str(tmp_path / "fairness.json"), "--history",
                str(tmp_path / "h.jsonl"))
    assert (result.exit_code, result.stderr) == (0, "")
    lines = _fits(result.stdout, 80)
    assert lines[:3] == [
        "session header: the hand history's names, seats, stacks, first dealer and rules",
        "are the ones committed before the first deal",
        "round 1: ok (6 cards opened, 2 client seeds, 6 cards of the history match)"]
    wide = at(200, "verify", str(tmp_path / "fairness.json"), "--history",
              str(tmp_path / "h.jsonl"))
    assert wide.stdout.splitlines()[0] == (
        "session header: the hand history's names, seats, stacks, first dealer and rules "
        "are the ones committed before the first deal")


def test_verify_names_the_session_of_every_round_of_a_file_of_sessions(tmp_path: Path
                                                                       ) -> None:
    _, _, events = build_session()  # 4 rounds dealt, then the end
    one = [event_to_dict(e) for e in events]
    (tmp_path / "one.jsonl").write_text(history_jsonl(one))
    alone = at(80, "verify", str(tmp_path / "one.jsonl"))
    assert (alone.exit_code, alone.stderr) == (0, "")
    assert alone.stdout.splitlines()[:4] == [
        f"round {n}: replays through the engine" for n in range(1, 5)]
    (tmp_path / "two.jsonl").write_text(history_jsonl(one + one))
    both = at(80, "verify", str(tmp_path / "two.jsonl"))
    assert (both.exit_code, both.stderr) == (0, "")
    assert both.stdout.splitlines() == [
        *(f"session {s}, round {n}: replays through the engine"
          for s in (1, 2) for n in range(1, 5)),
        "8 rounds replay through the engine; fairness is not provable for this history:",
        "it has no commitments (a server room's fairness.json has them)"]
    # a failure in the first session names it too
    changed = json.loads(json.dumps(one + one))
    resolved = next(e for e in changed if e["type"] == "RoundResolved")
    assert resolved["winners"] == [1]
    resolved["winners"] = [0]
    (tmp_path / "bad.jsonl").write_text(history_jsonl(changed))
    failed = at(80, "verify", str(tmp_path / "bad.jsonl"))
    assert failed.exit_code == 1
    assert failed.stderr.startswith("FAILED: session 1, round 1: the recorded RoundResolved "
                                    "differs"), failed.stderr


# --- 4. the companion's messages in one form ----------------------------------------------

def test_companion_messages_say_what_is_wrong_then_what_to_type(tmp_path: Path) -> None:
    lines = ["", "Ana Zed", "", "Ana=high", "Ana Ben", "Qh Kd 2c", "Ah Kd 2c",
             "winner: Ben", "undo", "", "misdeal", "end"]
    result = at(200, "companion", "--players", "Ana,Ben,Cleo", "--chips", "20", "--db",
                str(tmp_path / "g.db"), input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.stderr
    out = result.stdout.splitlines()
    for line in (
            "'Zed' is not a player at this table (Ana, Ben, Cleo).",
            "Type the names of the players who are in, or none.",
            "'Ana=high': 'high' is not a call here: type only the names of the players who "
            "are in.",
            "Card Kd is given to both 'Ben' and 'Ana'. Type the showdown again.",
            "Round 1 is undone (at the table): every chip goes back; pot 0.",
            "Misdeal (called at the table): the cards are thrown in; the antes stay in the "
            "pot and the same dealer deals again."):
        assert line in out, line
    assert not any("undone by the host" in line or "is entered again" in line for line in out)


# --- 5. guts odds / advise: value ± error kept together ----------------------------------

@pytest.mark.parametrize("columns", [80, 60])
def test_odds_keeps_value_and_error_together(columns: int) -> None:
    data = json.loads(guts("odds", "Qs Jd 2c", "--players", "6", "--json").stdout)
    result = at(columns, "odds", "Qs Jd 2c", "--players", "6", "--pot", "10")
    assert result.exit_code == 0, result.stderr
    lines = _fits(result.stdout, columns)
    for line in lines:  # every ± of a figure has its error beside it, its value before it
        for match in re.finditer("±", line):  # (or above it, in the table at 60 columns)
            after, before = line[match.end():], line[:match.start()]
            if re.match(" (its )?standard error", after):
                continue  # "(Monte Carlo, ± standard error)", "every figure ± its ..."
            assert re.match(r" \d+\.\d+", after), line
            assert re.search(r"\d%? $", before) or (columns == 60 and before.endswith("│ ")), \
                line
    rows = [_cells(line) for line in lines if line.startswith("│")]
    first = data["opponents_in"][0]
    expected = [f"{100 * first[k]:.2f}% ± {100 * first[f'{k}_se']:.2f}"
                for k in ("probability", "win", "tie", "lose")]
    if columns == 80:  # one line per row
        assert rows[0] == ["0", *expected]
    else:  # the error under its value
        assert [" ".join(pair) for pair in zip(rows[0][1:], rows[1][1:], strict=True)] == \
            expected
        assert rows[0][0] == "0" and rows[1][0] == ""
    text = " ".join(result.stdout.split())
    assert (f"If you go in: win {100 * data['win']:.2f}% ± "
            f"{100 * data['win_se']:.2f}, tie") in text


@pytest.mark.parametrize("columns", [80, 60])
def test_advise_never_parts_a_figure_from_its_error(columns: int) -> None:
    result = at(columns, "advise", "Qs Jd 2c", "--players", "6")
    assert result.exit_code == 0, result.stderr
    lines = _fits(result.stdout, columns)
    figures = re.compile(r"[-+]?\d[\d.]*%? ± \d[\d.]*")
    for line in lines:
        assert not line.endswith("±") and not line.lstrip().startswith("±"), line
    # every "value ± error" of the text is whole on one of its lines (6 of them)
    joined = "\n".join(lines)
    assert len(figures.findall(joined)) == len(figures.findall(" ".join(joined.split()))) == 6
    assert any(line.startswith("Advice: OUT  (in minus out: -") for line in lines)


# --- 6. ± in the docs ----------------------------------------------------------------------

def test_the_docs_write_plus_minus_one_way() -> None:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    assert [str(d.relative_to(ROOT)) for d in docs if "+/-" in d.read_text(encoding="utf-8")
            ] == []
