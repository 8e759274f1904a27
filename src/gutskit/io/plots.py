"""Plots (matplotlib, PNG or SVG by the file's extension): the pot snowball and tournament
bankroll curves.

Matplotlib runs with the non-interactive ``Agg`` backend; nothing opens a window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from gutskit.core.errors import GutsError

__all__ = ["PlotError", "bankroll_plot", "snowball_plot"]

FORMATS = (".png", ".svg", ".pdf")


class PlotError(GutsError):
    """A plot file with an unsupported extension, or nothing to plot."""


def _check(path: str | Path) -> Path:
    file = Path(path)
    if file.suffix.lower() not in FORMATS:
        raise PlotError(f"plot file {str(file)!r} must end in {', '.join(FORMATS)}")
    return file


def bankroll_plot(curves: Mapping[str, Sequence[float]], path: str | Path, *,
                  bands: Mapping[str, Sequence[float]] | None = None,
                  title: str = "Bankroll by bot") -> Path:
    """Mean cumulative net chips per seat after each round, one line per bot kind, with
    an optional pointwise band (``bands[kind][r]`` = half-width).

    Raises:
        PlotError: bad extension or no curves.
    """
    file = _check(path)
    if not curves:
        raise PlotError("no bankroll curves to plot")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for kind, values in curves.items():
        x = range(1, len(values) + 1)
        ax.plot(x, values, label=kind)
        if bands is not None and kind in bands:
            lo = [v - h for v, h in zip(values, bands[kind], strict=True)]
            hi = [v + h for v, h in zip(values, bands[kind], strict=True)]
            ax.fill_between(x, lo, hi, alpha=0.2)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("round")
    ax.set_ylabel("mean net chips per seat")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(file)
    plt.close(fig)
    return file


def snowball_plot(pots_by_round: Mapping[int, Sequence[float]], path: str | Path, *,
                  xlabel: str = "matched rounds so far in the game",
                  title: str = "Pot snowball") -> Path:
    """Box plots of the pot (in antes) against the matched rounds so far in a game, with
    the seeds' claim shaded: "10 to 30 times the ante after 3 or 4 matched rounds"
    (German/French seed, "Pottwachstum").

    Raises:
        PlotError: bad extension or no data.
    """
    file = _check(path)
    keys = sorted(k for k, v in pots_by_round.items() if len(v))
    if not keys:
        raise PlotError("no pots to plot")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.boxplot([list(pots_by_round[k]) for k in keys], positions=keys, widths=0.6,
               showfliers=False)
    ax.fill_between([2.5, 4.5], [10, 10], [30, 30], color="orange", alpha=0.25,
                    label="seeds: 10-30 antes after 3 or 4 matched rounds")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("pot after antes (antes)")
    ax.set_title(title)
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(file)
    plt.close(fig)
    return file
