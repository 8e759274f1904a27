"""``guts companion`` driven through a pipe: the default-rules session of
tests/test_companion.py typed line by line (stacks worked by hand there), bad entries
quoted back and asked again, the history saved and replayed by ``guts referee``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner, Result

from gutskit.cli.app import app
from gutskit.core.engine import Phase, replay
from gutskit.core.events import CardsShown, RoundUndone, WinnersNamed
from gutskit.io.storage import open_store

RUNNER = CliRunner(env={"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "COLUMNS": "120",
                        "GUTSKIT_DB": None})


def guts(*args: str, input: str | None = None) -> Result:
    result = RUNNER.invoke(app, list(args), input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


TEN_ROUNDS = [
    # 1. dealer Ana: Ana and Ben in; a name that is not at the table first
    "", "Ana Zed", "Ana Ben",
    #    the showdown asks from the dealer's left: Ben, then Ana; two bad entries first
    "Qh Qc", "Qh Qc 3d", "Qh Kd 2c", "Qh Qc 3d", "Ah Kd 2c",
    "", "Ben",  # 2. Ben alone: uncontested
    "", "none",  # 3. void: Cleo deals again, everyone re-antes
    "", "ana, BEN, cleo", "2s 3s 4s", "As Ad Ac", "Kh Qh Jh",  # 4. dealer Cleo
    "", "Ana Ben", "winner: Ben",  # 5. Ana cannot match 12: eliminated
    "", "Ben Cleo", "9s 9c 5d", "9h 9d 5c",  # 6. dealer Ben: a split
    "", "misdeal",  # 7. the antes stay, Cleo deals again
    "", "Ben Cleo", "winner: Ben", "undo",  # 8. named by mistake, undone
    "", "Cleo",  # 9. the re-deal, no ante
    "", "Ben Cleo", "Kd Qs 7h", "Ks Qd 7c",  # 10. dealer Ben: Ks beats Kd
    "end",
]


def test_ten_rounds_typed_through_a_pipe(tmp_path: Path) -> None:
    db = tmp_path / "guts.db"
    result = guts("companion", "--players", "Ana,Ben,Cleo", "--chips", "20", "--db", str(db),
                  input="\n".join(TEN_ROUNDS) + "\n")
    out = " ".join(result.output.split())  # long lines wrap at the console's width
    assert result.exit_code == 0, out
    # bad entries are quoted back with the reason, and asked again
    assert "'Zed' is not a player at this table (Ana, Ben, Cleo)." in out
    assert "Ben: hand 'Qh Qc' has 2 cards, expected 3. Type Ben's cards again." in out
    assert "Card Qh is given to both 'Ben' and 'Ana'. Type the showdown again." in out
    # the stacks of tests/test_companion.py, round by round
    for line in ("Stacks: Ana 16 · Ben 22 · Cleo 19",  # 1
                 "Stacks: Ana 16 · Ben 25 · Cleo 19",  # 2
                 "Stacks: Ana 15 · Ben 24 · Cleo 18",  # 3
                 "Stacks: Ana 8 · Ben 17 · Cleo 23",  # 4
                 "Stacks: Ana 8 (out) · Ben 29 · Cleo 23",  # 5, 6
                 "Stacks: Ana 8 (out) · Ben 30 · Cleo 20",  # 8, then undone
                 "Stacks: Ana 8 · Ben 28 · Cleo 22 · next dealer: Cleo",
                 "Stacks: Ana 8 (out) · Ben 28 · Cleo 24",  # 9
                 "Stacks: Ana 8 (out) · Ben 29 · Cleo 21"):  # 10
        assert line in out, line
    assert "Pot: 3 · next dealer: Ben" in out
    assert "Round 8 is undone (at the table): every chip goes back; pot 2." in out
    assert "Settle up: Ana pays Ben 10; Ana pays Cleo 2." in out
    # the history saved, as played
    events = open_store(db).events(1)
    state = replay(events)
    assert state.phase is Phase.OVER and state.stacks == (8, 30, 22)
    assert sum(isinstance(e, CardsShown) for e in events) == 4
    assert sum(isinstance(e, WinnersNamed) for e in events) == 2
    assert sum(isinstance(e, RoundUndone) for e in events) == 1
    # exported and replayed by guts referee to the same stacks
    exported = guts("history", "1", "--db", str(db), "--json")
    history = tmp_path / "night.jsonl"
    history.write_text(exported.output, encoding="utf-8")
    settled = json.loads(guts("referee", str(history), "--json").output)
    assert settled["stacks"] == {"Ana": 8, "Ben": 30, "Cleo": 22}
    assert settled["payments"] == [{"from": "Ana", "to": "Ben", "chips": 10},
                                   {"from": "Ana", "to": "Cleo", "chips": 2}]
    # guts analyze reads it and re-settles every showdown from its cards or named winners;
    # 8 rounds resolved (10 deals less the misdeal and the round undone)
    analysis = guts("analyze", "--history", str(history))
    assert analysis.exit_code == 0, analysis.output
    assert "(1 session, 8 rounds" in analysis.output


def test_hi_lo_winners_named_and_a_rule_refused(tmp_path: Path) -> None:
    lines = ["", "Ana=high Ben=lo", "Ana=high Ben=low Cleo=both",
             # Cleo (both) named high only: refused, the showdown is asked again
             "winner: Cleo", "Ben",
             "winner: Ana", "Ben",  # Ana high, Ben low, Cleo lost both
             "end"]
    result = guts("companion", "-n", "Ana,Ben,Cleo", "--chips", "30", "--preset", "hi-lo",
                  "--db", str(tmp_path / "g.db"), input="\n".join(lines) + "\n")
    out = " ".join(result.output.split())  # long lines wrap at the console's width
    assert result.exit_code == 0, out
    assert "'Ana=high Ben=lo'" not in out  # quoted per word:
    assert "'Ben=lo': 'lo' is not high, low or both." in out
    assert ("'Cleo' declared both: they win both ways or neither (a both player who does "
            "not win or tie both ways loses both). Type the showdown again.") in out
    # antes 1 -> 29 each, pot 3: high 2 to Ana (31), low 1 to Ben (30); Cleo failed both
    # ways and matches both pots, 2 + 1 = 3 (26). Next pot 3.
    assert "Stacks: Ana 31 · Ben 30 · Cleo 26" in out
    assert "Pot: 3 · next dealer: Ben" in out


def test_a_real_pipe_and_a_bad_command_line(tmp_path: Path) -> None:
    bad = guts("companion", "-n", "Ana", "--db", str(tmp_path / "g.db"))
    assert bad.exit_code == 2
    assert "error: --players 'Ana': name 2 to 10 players separated by commas" in " ".join(
        bad.output.split())
    bad = guts("companion", "-n", "Ana,Ben", "--dealer", "Zed", "--db", str(tmp_path / "g.db"))
    assert bad.exit_code == 2 and "error: --dealer 'Zed' is not one of the players" in (
        " ".join(bad.output.split()))
    # fresh user, session 5: "ANA" typed at the table silently meant 'ana'
    bad = guts("companion", "-n", "Ana,Ben,ana", "--db", str(tmp_path / "g.db"))
    assert bad.exit_code == 2 and ("error: --players 'Ana,Ben,ana': 'ana' looks like 'Ana'"
                                   in " ".join(bad.output.split()))
    assert not (tmp_path / "g.db").exists()  # refused before anything is stored
    done = subprocess.run(
        [sys.executable, "-m", "gutskit.cli.app", "companion", "-n", "Ana,Ben", "--chips",
         "5", "--db", str(tmp_path / "p.db")],
        input="\nAna\n", capture_output=True, text=True, timeout=120, check=False)
    # antes 1 -> 4, 4, pot 2; Ana alone in takes 2 (6); the input ends: the table stops
    assert done.returncode == 0, done.stderr
    assert "Stacks: Ana 6 · Ben 4" in done.stdout
    assert "Settle up: Ben pays Ana 1." in done.stdout


def test_a_misdeal_is_counted_among_the_rounds_dealt_and_a_rebuy_says_why_not(
        tmp_path: Path) -> None:
    """Round 1 is misdealt (antes 1 each stay: pot 3), the re-deal is round 2 (no new
    ante): Ben alone in takes 3 (22). The prompt offers round 3 next and the summary counts
    2 rounds, one of them the misdeal. A rebuy under rules without rebuys is refused with
    the core's reason (the rule named), not "not an answer"."""
    result = guts("companion", "--players", "Ana,Ben,Cleo", "--chips", "20", "--db",
                  str(tmp_path / "m.db"), input="\nmisdeal\nrebuy Ana 5\n\nBen\nend\n")
    assert result.exit_code == 0, result.output
    text = result.output
    assert "The rules allow no rebuys (rebuys = false)." in text  # as every warning reads
    assert "not an answer here" not in text
    assert "Stacks: Ana 19 · Ben 22 · Cleo 19" in text
    assert "Enter = deal round 3" in text
    assert "2 rounds dealt (1 misdeal: thrown in and dealt again under the next number)." in text
