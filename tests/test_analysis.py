"""Hand-history analysis: hand-worked statistics, a planted colluding pair, bluff signals,
the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gutskit.cli.app import app
from gutskit.core.cards import parse_cards
from gutskit.core.engine import (
    deal,
    deal_from_rng,
    declare_all,
    end_session,
    new_session,
    start_event,
)
from gutskit.core.events import Declaration, Event
from gutskit.core.rules import Rules
from gutskit.core.views import joint_views
from gutskit.io.files import dump_history
from gutskit.strategy.analysis import AnalysisError, analyze, load_sessions, split_sessions
from gutskit.strategy.bots import RandomBot, RuleOfThumbBot, Strategy
from gutskit.strategy.strategies import ThresholdBot

IN, OUT = Declaration.IN, Declaration.OUT


def _worked_session() -> list[Event]:
    """Four rounds worked by hand (module docstring of this test)."""
    start = start_event(["A", "B", "C"], 100, dealer=0)
    state = new_session(["A", "B", "C"], 100, dealer=0)
    events: list[Event] = [start]
    rounds = [
        (("As Ah Kd", "2c 3d 5h", "Ks Kh 4c"), (IN, OUT, IN)),    # A beats C; C matches 3
        (("2s 4d 7c", "Qs Qh Jd", "3c 3s 9h"), (OUT, IN, OUT)),   # B alone: takes 3
        (("2s 4d 7c", "Qs Qh Jd", "3c 3s 9h"), (OUT, OUT, OUT)),  # new game, void
        (("2s 4d 7c", "Qs Qh Jd", "3c 3s 9h"), (IN, OUT, OUT)),   # re-ante, A alone: 6
    ]
    for hands, calls in rounds:
        state, ev = deal(state, tuple(parse_cards(h) for h in hands))
        events += ev
        state, ev = declare_all(state, dict(enumerate(calls)))
        events += ev
    state, ev = end_session(state)
    return events + ev


def test_hand_worked_statistics() -> None:
    report = analyze([_worked_session()])
    assert (report.rounds, report.games) == (4, 2)
    a, b, c = (report.players[n] for n in "ABC")
    assert (a["in_rate"], b["in_rate"], c["in_rate"]) == (0.5, 0.25, 0.25)
    assert (a["win_rate"], b["win_rate"], c["win_rate"]) == (0.5, 0.25, 0.0)
    assert (a["net"], b["net"], c["net"]) == (6, 0, -6)
    assert a["uncontested_wins"] == 1 and a["showdowns"] == 1
    # A: dealer in round 1 (+2), dealer's left in rounds 3 and 4 (-1, +5), last in round 2
    assert {p: (v["rounds"], v["net"]) for p, v in a["net_by_position"].items()} == {
        "0": (1, 2), "1": (2, 4), "2": (1, 0)}
    assert report.escalation[0]["rounds"] == 3 and report.escalation[0]["mean"] == 4.0
    assert report.escalation[1] == {"rounds": 1, "mean": 3.0, "median": 3.0, "p25": 3.0,
                                    "p75": 3.0, "max": 3.0}
    assert report.bluffs["A"]["shown"] == 1 and report.bluffs["C"]["shown"] == 1
    assert report.bluffs["A"]["weakest"]["hand"] == "Pair of aces, king kicker"
    assert report.bluffs["B"]["shown"] == 0


def _play(bots: list[Strategy], rounds: int, seed: int,
          colluders: tuple[int, int] | None = None) -> list[Event]:
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(len(bots))]
    start = start_event(names, 10**6, rules=Rules())
    state = new_session(names, 10**6)
    events: list[Event] = [start]
    for _ in range(rounds):
        state, ev = deal_from_rng(state, rng)
        events += ev
        calls = {s: bots[s].declare(v, rng) for s, v in joint_views(state).items()}
        if colluders is not None:
            calls[colluders[1]] = calls[colluders[0]]  # the partner copies the signal
        state, ev = declare_all(state, calls)
        events += ev
    state, ev = end_session(state)
    return events + ev


BOTS: list[Strategy] = [ThresholdBot(0.7), RuleOfThumbBot(), ThresholdBot(0.6),
                        RandomBot(0.3), ThresholdBot(0.8)]


def test_collusion_found_and_not_invented() -> None:
    planted = analyze([_play(BOTS, 800, seed=1, colluders=(0, 2))])
    assert planted.flagged_pairs == [("P0", "P2")]
    top = planted.collusion[0]
    assert top["players"] == ["P0", "P2"] and top["z"] > 10 and top["p_adjusted"] < 0.001
    honest = analyze([_play(BOTS, 800, seed=2)])
    assert honest.flagged_pairs == []
    assert min(c["p_adjusted"] for c in honest.collusion) > 0.01


def test_bluff_signals_catch_the_random_bot() -> None:
    report = analyze([_play(BOTS, 400, seed=3)])
    random_bot = report.bluffs["P3"]
    assert random_bot["below_median"] > 0
    assert random_bot["share_below_rule_of_thumb"] > 0.5
    for tight in ("P1", "P4"):
        assert report.bluffs[tight]["below_median"] == 0


def test_sources_agree(tmp_path: Path) -> None:
    from gutskit.io.storage import open_store

    first, second = _worked_session(), _play(BOTS[:3], 30, seed=4)
    path = tmp_path / "two.jsonl"
    dump_history([*first, *second], path)
    from_file = load_sessions(history=path)
    assert len(from_file) == 2
    store = open_store(tmp_path / "g.db")
    for events in (first, second):
        sid = store.create_session("test", events[0])  # type: ignore[arg-type]
        store.append(sid, events[1:])
    from_db = load_sessions(db=str(tmp_path / "g.db"))
    assert analyze(from_db).to_dict() == analyze(from_file).to_dict()
    with pytest.raises(AnalysisError, match="either"):
        load_sessions()
    with pytest.raises(AnalysisError, match="SessionStarted"):
        split_sessions(first[1:])


def test_cli_analyze(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    dump_history(_worked_session(), path)
    runner = CliRunner()
    result = runner.invoke(app, ["analyze", "--history", str(path), "--json", "--plot",
                                 str(tmp_path / "snow.png")])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["players"]["A"]["net"] == 6
    assert (tmp_path / "snow.png").stat().st_size > 1000
    text = runner.invoke(app, ["analyze", "--history", str(path)])
    assert text.exit_code == 0 and "Collusion" in text.stdout
    missing = runner.invoke(app, ["analyze", "--history", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and "error:" in missing.stderr


def test_a_deal_after_an_ante_of_a_last_chip_is_analysed(tmp_path: Path) -> None:
    """paths11 found ``guts analyze`` refusing a history ``guts referee`` and ``guts
    verify`` replay: a deal was checked after its antes, where a seat whose last chip
    went in as the ante has 0 chips and seems out of play (the engine checks a deal before
    posting its antes). Seed 6, 2 chips each: round 1 You alone in take the antes' pot of 2
    (You 3, Ava 1); round 2 both ante 1 (Ava all in, 0), both in, Ava's ace high beats
    your king high: Ava takes 2, you match 2 (You 0, Ava 2); you quit at the rebuy and the
    pot of 2 is shared (You 1, Ava 3). In rounds: You +1 then -3 (-2 in 2 rounds, net -1
    with the share); Ava -1 then +1."""
    from test_cli import guts

    db = tmp_path / "a.db"
    played = guts("play", "-n", "2", "--seed", "6", "--chips", "2", "--rule", "rebuys=true",
                  "--rule", "max_rebuys=1", "--bots", "loose", "--db", str(db),
                  input="i\ni\nquit\n")
    assert played.exit_code == 0, played.output
    analysed = guts("analyze", "--db", str(db), "--json")
    assert analysed.exit_code == 0, analysed.output
    players = json.loads(analysed.output)["players"]
    assert {name: (p["net"], p["net_in_rounds"], p["in_rate"], p["showdowns"])
            for name, p in players.items()} == {"You": (-1, -2, 1.0, 1),
                                                "Ava": (1, 0, 0.5, 1)}
    assert {n: {k: v["net"] for k, v in p["net_by_position"].items()}
            for n, p in players.items()} == {"You": {"0": 1, "1": -3},
                                             "Ava": {"0": 1, "1": -1}}
