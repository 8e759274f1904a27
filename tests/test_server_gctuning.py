"""The garbage-collector settings of ``guts serve`` (:mod:`gutskit.server.gctuning`)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import running_server

from gutskit.server.gctuning import THRESHOLDS, GcTuning


class _Node:
    """A cycle: the node refers to itself."""

    def __init__(self) -> None:
        self.me: _Node | None = self


@pytest.fixture
def restored() -> Iterator[None]:
    """Whatever a test does, this process's collector is as before afterwards."""
    thresholds = gc.get_threshold()
    callbacks = list(gc.callbacks)
    yield
    gc.callbacks[:] = callbacks
    gc.set_threshold(*thresholds)
    gc.unfreeze()


def test_install_freezes_sets_thresholds_and_remove_restores(restored: None) -> None:
    gc.set_threshold(900, 8, 9)
    tuning = GcTuning()
    tuning.install()
    assert gc.get_threshold() == THRESHOLDS == (700, 10, 10)
    assert gc.get_freeze_count() > 0
    assert tuning._callback in gc.callbacks
    tuning.remove()
    assert gc.get_threshold() == (900, 8, 9)
    assert gc.get_freeze_count() == 0
    assert tuning._callback not in gc.callbacks


@pytest.mark.parametrize("generation", [0, 1, 2])
def test_survivors_of_every_collection_are_frozen(restored: None, generation: int) -> None:
    tuning = GcTuning()
    tuning.install()
    frozen = gc.get_freeze_count()
    kept = [[n] for n in range(1000)]  # 1001 new tracked lists
    gc.collect(generation)
    assert gc.get_freeze_count() >= frozen + 1001
    assert kept[999] == [999]


def test_young_cycles_are_collected_and_frozen_ones_by_the_reclaim(restored: None) -> None:
    tuning = GcTuning()
    old = _Node()
    old_alive = weakref.ref(old)
    tuning.install()  # the old node is frozen with everything else
    young = _Node()
    young_alive = weakref.ref(young)
    del old, young  # two garbage cycles: one frozen, one young
    gc.collect(0)
    assert young_alive() is None  # a young collection frees the young cycle
    gc.collect()
    assert old_alive() is not None  # frozen: not examined, even by a full collection
    assert tuning.reclaim() >= 1
    assert old_alive() is None
    assert tuning.reclaims == 1
    assert gc.get_freeze_count() > 0  # the survivors are frozen again


def test_reclaim_without_install_does_nothing(restored: None) -> None:
    assert GcTuning().reclaim() == 0
    assert gc.get_freeze_count() == 0


def test_install_twice_and_remove_twice_are_harmless(restored: None) -> None:
    gc.set_threshold(900, 8, 9)
    tuning = GcTuning()
    tuning.install()
    tuning.install()
    assert gc.callbacks.count(tuning._callback) == 1
    tuning.remove()
    tuning.remove()
    assert gc.get_threshold() == (900, 8, 9)


def test_the_app_tunes_the_collector_while_it_runs_when_configured(
        restored: None, tmp_path: Path) -> None:
    gc.set_threshold(900, 8, 9)
    # a real server, as every server test runs (starlette's TestClient warns that it wants
    # httpx2, which gutskit does not use): the app's start-up and shut-down run as served
    with running_server(f"sqlite:///{tmp_path / 'g.db'}", tune_gc=True) as server:
        assert server.get("/api/rules").status_code == 200
        assert gc.get_threshold() == THRESHOLDS
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (900, 8, 9)
    assert gc.get_freeze_count() == 0


def test_the_app_leaves_the_collector_alone_by_default(restored: None, tmp_path: Path
                                                        ) -> None:
    gc.set_threshold(900, 8, 9)
    with running_server(f"sqlite:///{tmp_path / 'g.db'}") as server:
        assert server.get("/api/rules").status_code == 200
        assert gc.get_threshold() == (900, 8, 9)
        assert gc.get_freeze_count() == 0


def test_guts_serve_asks_for_the_tuning(monkeypatch: pytest.MonkeyPatch, tmp_path: Path
                                        ) -> None:
    import uvicorn

    import gutskit.server.app
    from gutskit.cli.serve import serve

    seen: dict[str, Any] = {}
    made = gutskit.server.app.create_app

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen["config"] = kwargs["config"]
        return made(*args, **kwargs)

    def no_run(_server: uvicorn.Server, sockets: Any = None) -> None:
        for sock in sockets or ():
            sock.close()

    monkeypatch.setattr(gutskit.server.app, "create_app", spy)
    monkeypatch.setattr(uvicorn.Server, "run", no_run)
    serve(port=0, db=str(tmp_path / "s.db"))
    assert seen["config"].tune_gc is True
