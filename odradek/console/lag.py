"""Consumer-group lag over time: samples taken while the console runs, and their chart as SVG.

`LagHistory` keeps, per group, the last ``capacity`` samples ``(epoch ms, {partition: lag})``;
nothing is kept across restarts of the console.  `lag_chart` draws one group's samples as a small
server-rendered SVG: one line per partition plus the group's total, time on the x axis.  Every
text in the SVG is escaped; the chart is a pure function of the samples, so it is tested as text.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from markupsafe import Markup, escape

__all__ = ["LagHistory", "LagSample", "lag_chart"]

TP = tuple[str, int]

_WIDTH, _HEIGHT = 860, 240
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 260, 16, 28
_LABEL = 30
_COLOURS = ("#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563")
_MAX_LINES = len(_COLOURS)


@dataclass(frozen=True, slots=True)
class LagSample:
    time_ms: int
    lag: Mapping[TP, int]

    @property
    def total(self) -> int:
        return sum(self.lag.values())


class LagHistory:
    """Samples per group, oldest first; written by the sampler, read by the pages (thread-safe)."""

    def __init__(self, capacity: int = 720) -> None:
        self._capacity = capacity
        self._samples: dict[str, deque[LagSample]] = {}
        self._lock = threading.Lock()

    def record(self, time_ms: int, lag_by_group: Mapping[str, Mapping[TP, int]]) -> None:
        """Add one sample for every group in ``lag_by_group``; groups that are gone keep their past."""
        with self._lock:
            for group, lag in lag_by_group.items():
                samples = self._samples.setdefault(group, deque(maxlen=self._capacity))
                samples.append(LagSample(time_ms, dict(lag)))

    def samples(self, group: str) -> list[LagSample]:
        with self._lock:
            return list(self._samples.get(group, ()))


def _clock(time_ms: int) -> str:
    return datetime.fromtimestamp(time_ms / 1000, UTC).strftime("%H:%M:%S")


def _short(label: str) -> str:
    """A legend label that fits: long topic names keep their end (the partition number)."""
    return label if len(label) <= _LABEL else "…" + label[-(_LABEL - 1) :]


def lag_chart(samples: list[LagSample], title: str) -> Markup:
    """An SVG line chart of the samples: the total lag and (up to seven) partitions' lags."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="lag-chart" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'
    )
    if len(samples) < 2:
        note = "collecting samples: the chart appears after the second one" if samples else "no samples yet"
        text = f'<text x="{_WIDTH // 2}" y="{_HEIGHT // 2}" text-anchor="middle" class="empty">{note}</text>'
        return Markup(head + text + "</svg>")
    partitions = sorted({tp for s in samples for tp in s.lag})
    series: list[tuple[str, list[int]]] = [("total", [s.total for s in samples])]
    series += [(f"{t}-{p}", [s.lag.get((t, p), 0) for s in samples]) for t, p in partitions[: _MAX_LINES - 1]]
    t0, t1 = samples[0].time_ms, samples[-1].time_ms
    peak = max(max(values) for _, values in series) or 1
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM

    def x(time_ms: int) -> float:
        return _LEFT + (time_ms - t0) / max(t1 - t0, 1) * plot_w

    def y(lag: int) -> float:
        return _TOP + plot_h - lag / peak * plot_h

    parts = [head]
    base = _TOP + plot_h
    parts.append(
        f'<line class="axis" x1="{_LEFT}" y1="{base}" x2="{_LEFT + plot_w}" y2="{base}" stroke="#999"/>'
        f'<line class="axis" x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{_TOP + plot_h}" stroke="#999"/>'
    )
    for value in sorted({0, peak // 2, peak}):
        parts.append(
            f'<text x="{_LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end" font-size="11">{value}</text>'
            f'<line x1="{_LEFT}" y1="{y(value):.1f}" x2="{_LEFT + plot_w}" y2="{y(value):.1f}" stroke="#eee"/>'
        )
    parts.append(f'<text x="{_LEFT}" y="{_HEIGHT - 8}" font-size="11">{_clock(t0)} UTC</text>')
    parts.append(
        f'<text x="{_LEFT + plot_w}" y="{_HEIGHT - 8}" text-anchor="end" font-size="11">{_clock(t1)} UTC</text>'
    )
    for index, (label, values) in enumerate(series):
        colour = _COLOURS[index % len(_COLOURS)]
        points = " ".join(f"{x(s.time_ms):.1f},{y(v):.1f}" for s, v in zip(samples, values, strict=True))
        width = 3 if index == 0 else 1.5
        parts.append(
            f'<polyline class="series" data-series="{escape(label)}" fill="none" stroke="{colour}" '
            f'stroke-width="{width}" points="{points}"/>'
        )
        legend_y = _TOP + 14 * index + 8
        parts.append(
            f'<rect x="{_WIDTH - _RIGHT + 12}" y="{legend_y - 8}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{_WIDTH - _RIGHT + 28}" y="{legend_y + 1}" font-size="11">{escape(_short(label))}: {values[-1]}'
            f"<title>{escape(label)}</title></text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))
