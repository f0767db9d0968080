"""What the console draws and parses, without a broker: the lag chart, the value formats, --listen."""

from __future__ import annotations

import re

import pytest

from odradek.cli.common import UsageError
from odradek.console.command import parse_listen
from odradek.console.formats import show
from odradek.console.lag import LagHistory, LagSample, lag_chart


def test_the_chart_draws_the_total_and_each_partition_scaled_to_the_peak() -> None:
    samples = [
        LagSample(1_000, {("t", 0): 0, ("t", 1): 2}),
        LagSample(2_000, {("t", 0): 4, ("t", 1): 4}),
        LagSample(3_000, {("t", 0): 1}),
    ]
    svg = str(lag_chart(samples, "lag of g"))
    lines = dict(re.findall(r'data-series="([^"]+)"[^>]*points="([^"]+)"', svg))
    assert set(lines) == {"total", "t-0", "t-1"}
    total = [tuple(map(float, point.split(","))) for point in lines["total"].split()]
    xs, ys = [x for x, _ in total], [y for _, y in total]
    assert xs == sorted(xs) and xs[0] < xs[-1]
    assert ys[1] == min(ys)  # the peak, 8, is drawn highest
    baseline = re.search(r'<line class="axis" x1="\d+" y1="([\d.]+)"', svg)
    assert baseline is not None
    assert lines["t-1"].split()[-1].endswith(f",{float(baseline[1]):.1f}")  # missing from a sample: lag 0
    assert ">total: 1<title>total</title>" in svg and "00:00:01 UTC" in svg and "00:00:03 UTC" in svg


def test_the_chart_escapes_names_and_says_when_it_has_too_few_samples() -> None:
    svg = str(lag_chart([LagSample(0, {("<script>", 0): 1}), LagSample(1, {("<script>", 0): 2})], "a & b"))
    assert "<script>" not in svg and "&lt;script&gt;-0" in svg and "a &amp; b" in svg
    assert "no samples yet" in str(lag_chart([], "g"))
    assert "after the second one" in str(lag_chart([LagSample(0, {})], "g"))


def test_long_legend_labels_keep_their_partition_number() -> None:
    name = "a-very-long-topic-name-that-does-not-fit-the-legend"
    svg = str(lag_chart([LagSample(0, {(name, 12): 1}), LagSample(1, {(name, 12): 1})], "g"))
    assert "…at-does-not-fit-the-legend-12: 1" in svg and f"<title>{name}-12</title>" in svg


def test_history_keeps_the_newest_samples_per_group() -> None:
    history = LagHistory(capacity=2)
    for t in range(3):
        history.record(t, {"g": {("t", 0): t}, **({"h": {}} if t == 0 else {})})
    assert [s.time_ms for s in history.samples("g")] == [1, 2]
    assert [s.time_ms for s in history.samples("h")] == [0]
    assert history.samples("unknown") == []


def test_formats() -> None:
    assert show(None, "hex").text == "null" and show(None, "text").null
    assert show(b"caf\xc3\xa9 \x00\n", "text").text == "café \\x00\n"
    assert show(b"\xff", "text").text == "\\xff"
    assert show(b'{"a":[1,2]}', "json").text == '{\n  "a": [\n    1,\n    2\n  ]\n}'
    assert show(b"plain", "json").note == "not JSON"
    assert show(bytes(range(0x41, 0x52)), "hex").text.splitlines() == [
        "00000000  41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50  |ABCDEFGHIJKLMNOP|",
        "00000010  51                                               |Q|",
    ]


def test_listen_addresses() -> None:
    assert parse_listen("127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert parse_listen("[::1]:0") == ("::1", 0)
    for bad in ("8080", "host:", ":80", "h:99999", "h:x"):
        with pytest.raises(UsageError):
            parse_listen(bad)
