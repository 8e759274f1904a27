"""Sessions split over processes and a Dask cluster give the same tournament as one
process (gutskit.strategy.parallel)."""

from __future__ import annotations

from pathlib import Path

import pytest
from distributed import LocalCluster
from typer.testing import CliRunner

from gutskit.cli.app import app
from gutskit.core.rules import Rules
from gutskit.strategy import parallel
from gutskit.strategy.parallel import ParallelError, chunks, run_chunks
from gutskit.strategy.tournament import TournamentError, TournamentResult, run_tournament


def _square(arg: int, first: int, count: int) -> list[int]:
    return [arg + i * i for i in range(first, first + count)]


def _local_cluster() -> LocalCluster:
    """Two single-thread workers inside this process (a real scheduler at an address)."""
    return LocalCluster(n_workers=2, threads_per_worker=1,  # type: ignore[no-untyped-call]
                        processes=False, dashboard_address=None)


def test_chunks_cover_every_item_once() -> None:
    assert chunks(10, 3) == [(0, 4), (4, 3), (7, 3)]
    assert chunks(3, 8) == [(0, 1), (1, 1), (2, 1)]
    assert chunks(0, 4) == []
    assert chunks(7, 1) == [(0, 7)]


def _tournament(**kwargs: object) -> TournamentResult:
    return run_tournament(["rule-of-thumb", "random", "threshold:0.7"], sessions=7, rounds=15,
                          seed=3, rules=Rules(cards_per_hand=2), chips=40,
                          exploitability=False, **kwargs)  # type: ignore[arg-type]


def test_tournament_is_identical_on_1_and_2_processes_and_a_dask_cluster(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # (the scheduler runs in this process: on a loaded machine its answer may take longer
    # than the 10 s a user waits for one; the test is about the results, not the wait)
    monkeypatch.setattr(parallel, "CONNECT_TIMEOUT", "120s")
    one = _tournament()
    done: list[int] = []
    two = _tournament(processes=2, progress=done.append)
    assert done[-1] == 7 and done == sorted(done)
    with _local_cluster() as cluster:
        on_cluster = _tournament(cluster=cluster.scheduler_address)
    expected = one.to_dict()
    assert two.to_dict() == expected
    assert on_cluster.to_dict() == expected
    assert two.bankroll == one.bankroll and on_cluster.bankroll == one.bankroll
    assert one.rounds_played > 0
    # and the history is the same, sessions in order
    log1: list[object] = []
    log2: list[object] = []
    _tournament(history=log1)
    _tournament(history=log2, processes=2)
    assert log1 == log2 and log1


def test_run_chunks_keeps_item_order_on_a_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "CONNECT_TIMEOUT", "120s")  # (as above)
    with _local_cluster() as cluster:
        got = run_chunks(_square, 5, 11, cluster=cluster.scheduler_address)
    assert got == [5 + i * i for i in range(11)]
    assert run_chunks(_square, 5, 11, processes=2) == got
    assert run_chunks(_square, 5, 11) == got


def test_errors() -> None:
    with pytest.raises(ParallelError, match="0"):
        run_chunks(_square, 0, 3, processes=0)
    with pytest.raises(TournamentError, match=r"tcp://127\.0\.0\.1:9"):
        _tournament(cluster="tcp://127.0.0.1:9")


def test_cli_processes_and_bad_cluster(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["tournament", "--bots", "random,threshold:0.5", "--sessions", "4", "--rounds",
            "5", "--no-exploitability", "--json"]
    one = runner.invoke(app, args)
    two = runner.invoke(app, [*args, "--processes", "2"])
    assert one.exit_code == 0 and two.exit_code == 0
    assert one.stdout == two.stdout
    bad = runner.invoke(app, [*args, "--cluster", "tcp://127.0.0.1:9"])
    assert bad.exit_code == 2
    assert "error:" in bad.stderr and "tcp://127.0.0.1:9" in bad.stderr
