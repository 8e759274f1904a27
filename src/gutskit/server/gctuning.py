"""Garbage-collector settings of a ``guts serve`` process (issue 11: the reveal latency's
tail).

A server holding a few hundred rooms keeps a large heap of long-lived objects (every
room's events, states and views: about 330,000 tracked objects at 200 six-seat tables) and
allocates briskly while playing. With CPython's default thresholds, ``(700, 10, 10)``, the
collector ran about 1,960 young, 180 middle and 16 full collections (one each time the heap
had grown by a quarter, over all of it) in 3,700 rounds of 200 tables in the rooms' own
process (``benchmarks/bench_rooms.py``): a quarter of the server's CPU went to the
collector, and the full collections stopped the event loop for 200 to 400 ms of CPU (0.75 s
on a loaded machine: every reveal due meanwhile waited). docs/performance.md "Garbage
collection" has the figures.

:class:`GcTuning` (installed by ``guts serve`` once the stored rooms are loaded, removed at
shutdown):

* **freezes** what exists once the server has started (``gc.freeze``: the modules, the
  rooms rebuilt from the store) and, after every collection, what survived it: each
  collection then examines only what was allocated since the previous one, never the old
  heap, so no pause grows with the number of rooms. The server's steady play makes no
  cyclic garbage (its objects are freed by their reference counts; ``Room._broadcast_state``
  made the only cycle, of two closures, at every broadcast, until issue 11), so little is
  missed by not looking at older objects;
* once an hour (:data:`RECLAIM_SECONDS`, :meth:`GcTuning.reclaim`, run by the app between
  two events of its loop) unfreezes everything and runs a full collection: cycles that
  became garbage among frozen objects (a room closed, a connection gone) are freed then,
  at the price of one longer pause an hour;
* keeps CPython's thresholds, :data:`THRESHOLDS`: a young collection every 700
  allocations net of deallocations. Larger ones cost less in all but pause longer (200
  tables: 0.67 / 0.54 / 0.48 ms of collector CPU per round with 700 / 2,000 / 5,000, pauses
  of 2.0 / 10.6 / 37 ms at the median), and the pause is what the reveal latency sees.
"""

from __future__ import annotations

import gc

__all__ = ["RECLAIM_SECONDS", "THRESHOLDS", "GcTuning"]

THRESHOLDS = (700, 10, 10)
"""``gc.set_threshold`` while :class:`GcTuning` is installed (CPython's default, set
explicitly)."""

RECLAIM_SECONDS = 3600.0
"""How often :meth:`GcTuning.reclaim` should run (seconds; the app's lifespan does)."""


class GcTuning:
    """The collector settings above, for this process; :meth:`remove` restores the
    previous ones (thresholds, nothing frozen, no callback).

    Args:
        thresholds: ``gc.set_threshold`` values while installed.
    """

    def __init__(self, thresholds: tuple[int, int, int] = THRESHOLDS) -> None:
        self.thresholds = thresholds
        self.previous: tuple[int, int, int] | None = None
        self.reclaims = 0
        """Full collections of everything (:meth:`reclaim`) so far."""

    def install(self) -> None:
        """Collect and freeze what exists now, set the thresholds, and freeze the
        survivors of every collection from now on (installing twice: once)."""
        if self.previous is not None:
            return
        self.previous = gc.get_threshold()
        gc.collect()
        gc.freeze()
        gc.set_threshold(*self.thresholds)
        gc.callbacks.append(self._callback)

    def reclaim(self) -> int:
        """Unfreeze, collect everything (every generation), freeze the survivors again;
        the objects collected (0 when not installed)."""
        if self.previous is None:
            return 0
        gc.unfreeze()
        collected = gc.collect()  # the callback freezes the survivors
        self.reclaims += 1
        return collected

    def remove(self) -> None:
        """Restore the previous thresholds, unfreeze, drop the callback."""
        if self.previous is None:
            return
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)
        gc.set_threshold(*self.previous)
        gc.unfreeze()
        self.previous = None

    @staticmethod
    def _callback(phase: str, _info: dict[str, int]) -> None:
        if phase == "stop":
            gc.freeze()
