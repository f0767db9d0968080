"""Medians, spread and the noisy flag.

Spread is the interquartile range divided by the median (robust with 5-10 samples, unlike
max-min which one outlier decides). A figure is noisy when its spread exceeds ``NOISY_SPREAD``
or when other processes used a meaningful share of the machine while it was measured.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

NOISY_SPREAD = 0.10
#: CPU taken from a run by others, in cores (processes other than the broker and the load generator,
#: plus the hypervisor's steal), above which a run counts as contended (the machine has 2 cores; the
#: idle peer broker and the kernel stay well below).
CONTENDED_CORES = 0.15


@dataclass(frozen=True, slots=True)
class Summary:
    """The median of a set of samples and how widely they spread."""

    median: float
    spread: float
    samples: int

    @property
    def noisy(self) -> bool:
        return self.spread > NOISY_SPREAD


def _quartiles(values: Sequence[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def summarise(values: Sequence[float]) -> Summary | None:
    """None when there is nothing to summarise."""
    clean = [value for value in values if value == value]  # drops NaN
    if not clean:
        return None
    median = statistics.median(clean)
    low, high = _quartiles(clean)
    spread = (high - low) / abs(median) if median else (0.0 if high == low else float("inf"))
    return Summary(median=median, spread=spread, samples=len(clean))


def pair_ratios(numerators: Sequence[float | None], denominators: Sequence[float | None]) -> list[float]:
    """Per-pair ratios (run i of one broker over run i of the other); pairs with a gap are skipped."""
    ratios: list[float] = []
    for top, bottom in zip(numerators, denominators, strict=False):
        if top is not None and bottom:
            ratios.append(top / bottom)
    return ratios
