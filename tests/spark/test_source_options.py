"""The odradek source's options, micro-batch limits, task splitting, stream end offsets and topic
patterns, checked without Spark or a broker."""

from __future__ import annotations

import pytest

from odradek.pipeline.offset_ranges import OffsetRange, split_batch, split_ranges
from odradek.pipeline.source_options import ByTimestamp, SourceOptionError, parse_options
from odradek.pipeline.source_plan import Bounds, SourcePlanError, limit_offsets, stream_end_offsets
from odradek.pipeline.topic_pattern import TopicPatternError, compile_topic_pattern

BOOTSTRAP = {"kafka.bootstrap.servers": "127.0.0.1:9092"}


def test_options_keep_spark_names_and_pass_kafka_settings_on() -> None:
    options = parse_options(
        {
            **BOOTSTRAP,
            "subscribe": "a, b",
            "startingOffsets": '{"a": {"0": 5, "1": -2}, "b": {"0": -2}}',
            "endingOffsets": '{"a": {"0": 9, "1": -1}, "b": {"0": -1}}',
            "includeHeaders": "TRUE",
            "kafka.isolation.level": "read_committed",
            "kafka.client.id": "loader",
            "kafka.default.api.timeout.ms": "2500",
        },
        streaming=False,
    )
    assert options.topics == ("a", "b")
    assert options.starting == {"a": {0: 5, 1: -2}, "b": {0: -2}}
    assert options.ending == {"a": {0: 9, 1: -1}, "b": {0: -1}}
    assert options.include_headers and options.read_committed and options.timeout_ms == 2500
    assert options.consumer_config == {"isolation.level": "read_committed", "client.id": "loader"}
    stream = parse_options({**BOOTSTRAP, "assign": '{"a": [1, 0, 1]}', "maxOffsetsPerTrigger": "7"}, streaming=True)
    assert stream.assign == {"a": (0, 1)} and stream.starting == "latest" and stream.max_offsets_per_trigger == 7


@pytest.mark.parametrize(
    ("options", "streaming", "message"),
    [
        ({"subscribe": "a"}, False, "kafka.bootstrap.servers is required"),
        ({**BOOTSTRAP}, False, "exactly one of subscribe, subscribePattern and assign must be given, got none"),
        ({**BOOTSTRAP, "subscribe": "a", "assign": '{"a": [0]}'}, False, "got subscribe, assign"),
        ({**BOOTSTRAP, "subscribe": "a", "startingOffsets": "latest"}, False, "startingOffsets cannot be latest"),
        ({**BOOTSTRAP, "subscribe": "a", "endingOffsets": "earliest"}, False, "endingOffsets cannot be earliest"),
        ({**BOOTSTRAP, "subscribe": "a", "startingOffsets": '{"a": {"0": -1}}'}, False, "offset -1 for a-0"),
        ({**BOOTSTRAP, "subscribe": "a", "endingOffsets": '{"a": {"0": -2}}'}, False, "offset -2 for a-0"),
        ({**BOOTSTRAP, "subscribe": "a", "startingOffsets": "{oops"}, False, "neither earliest, latest nor JSON"),
        ({**BOOTSTRAP, "subscribe": "a", "endingOffsets": "latest"}, True, "endingOffsets is for batch reads only"),
        ({**BOOTSTRAP, "subscribe": "a", "maxOffsetsPerTrigger": "0"}, True, "must be a positive integer"),
        ({**BOOTSTRAP, "subscribe": "a", "maxOffsetsPerTrigger": "9"}, False, "for streaming reads only"),
        ({**BOOTSTRAP, "subscribePattern": "a("}, False, "not a Python regular expression"),
        ({**BOOTSTRAP, "subscribePattern": "[a-c[x]]"}, False, r"'\[' inside a character class .* java.util.regex"),
        ({**BOOTSTRAP, "subscribe": "a", "endingTimestamp": "5"}, True, "endingTimestamp is for batch reads only"),
        ({**BOOTSTRAP, "subscribe": "a", "endingOffsetsByTimestamp": "{}"}, True, "endingOffsetsByTimestamp is for"),
        ({**BOOTSTRAP, "subscribe": "a", "startingTimestamp": "soon"}, False, "one timestamp in ms, got 'soon'"),
        ({**BOOTSTRAP, "subscribe": "a", "startingOffsetsByTimestamp": '{"a": 5}'}, False, "must map partitions"),
        (
            {**BOOTSTRAP, "subscribe": "a", "startingOffsetsByTimestampStrategy": "earliest"},
            False,
            "must be error or latest, got 'earliest'",
        ),
        ({**BOOTSTRAP, "subscribe": "a", "minPartitions": "0"}, False, "minPartitions must be a positive integer"),
        ({**BOOTSTRAP, "subscribe": "a", "maxRecordsPerPartition": "-3"}, True, "maxRecordsPerPartition must be"),
        ({**BOOTSTRAP, "assign": '{"a": [-1]}'}, False, "must map to a list of partition numbers"),
        ({**BOOTSTRAP, "subscribe": "a", "kafka.group.id": "g"}, False, "kafka.group.id is set by the odradek source"),
        ({**BOOTSTRAP, "subscribe": "a", "startingOffset": "earliest"}, False, "unknown option 'startingoffset'"),
        ({**BOOTSTRAP, "subscribe": "a", "kafka.isolation.level": "x"}, False, "read_uncommitted or read_committed"),
    ],
)
def test_bad_options_are_named(options: dict[str, str], streaming: bool, message: str) -> None:
    with pytest.raises(SourceOptionError, match=message):
        parse_options(options, streaming)


def test_a_micro_batch_limit_is_shared_in_proportion_to_lag_with_spark_rounding() -> None:
    start = {"t:0": 0, "t:1": 100, "t:2": 50}
    latest = {"t:0": 30, "t:1": 110, "t:2": 50, "u:0": 4}
    assert limit_offsets(start, latest, None) == latest
    assert limit_offsets(start, latest, 40) == latest  # exactly what is behind
    # 21 * 30/40 = 15.75 and 21 * 10/40 = 5.25, both rounded down; a new partition enters as given.
    assert limit_offsets(start, latest, 21) == {**latest, "t:0": 15, "t:1": 105}
    # Shares below one offset are rounded up, so that no partition starves: 0.75 and 0.25 give 1 each.
    assert limit_offsets(start, latest, 1) == {**latest, "t:0": 1, "t:1": 101}
    # Floating point as in Spark: 7 * (1/3) is just under 7/3, rounded down to 2.
    assert limit_offsets({"a:0": 0, "b:0": 0, "c:0": 0}, {"a:0": 5, "b:0": 5, "c:0": 5}, 7) == {
        "a:0": 2,
        "b:0": 2,
        "c:0": 2,
    }


def test_timestamp_options_take_spark_precedence() -> None:
    both = parse_options(
        {
            **BOOTSTRAP,
            "subscribe": "a",
            "startingTimestamp": "1000",
            "startingOffsetsByTimestamp": '{"a": {"0": 5}}',
            "startingOffsets": "earliest",
            "endingOffsetsByTimestamp": '{"a": {"0": -1, "1": 7}}',
            "endingOffsets": "latest",
            "startingOffsetsByTimestampStrategy": "LATEST",
            "minPartitions": "6",
            "maxRecordsPerPartition": "100",
        },
        streaming=False,
    )
    assert both.starting == ByTimestamp(everywhere=1000)
    assert both.ending == ByTimestamp(per_partition={"a": {0: -1, 1: 7}})
    assert both.latest_when_no_timestamp_matches
    assert both.min_partitions == 6 and both.max_records_per_partition == 100
    stream = parse_options({**BOOTSTRAP, "subscribe": "a", "startingOffsetsByTimestamp": '{"a": {"0": 5}}'}, True)
    assert stream.starting == ByTimestamp(per_partition={"a": {0: 5}}) and not stream.latest_when_no_timestamp_matches


def _covers_exactly(tasks: list[OffsetRange], ranges: list[OffsetRange]) -> bool:
    by_partition: dict[tuple[str, int], list[int]] = {(r.topic, r.partition): [] for r in ranges}
    for task in tasks:
        by_partition[task.topic, task.partition].extend(range(task.start, task.end))
    return all(offsets == list(range(r.start, r.end)) for r, offsets in zip(ranges, by_partition.values(), strict=True))


def test_ranges_split_into_tasks_as_spark_splits_them() -> None:
    big, small = OffsetRange("t", 0, 0, 30), OffsetRange("t", 1, 0, 5)
    # Five tasks wanted: the small range stays whole, the large one takes the other four (7, 7, 8, 8).
    five = split_ranges([big, small], 5, None)
    assert [(t.partition, t.start, t.end) for t in five] == [(0, 0, 7), (0, 7, 14), (0, 14, 22), (0, 22, 30), (1, 0, 5)]
    assert len(split_ranges([big, small], 8, None)) == 8
    # Rounding can give fewer than asked, as with the connector: three ranges of 10 stay three for 4.
    even = [OffsetRange("t", p, 0, 10) for p in range(3)]
    assert split_ranges(even, 4, None) == even
    assert [t.size for t in split_ranges([big, small], None, 7)] == [6, 6, 6, 6, 6, 5]
    # A batch splits only when minPartitions exceeds its partitions, empty ones included, or a range
    # as planned (-2 earliest, -1 latest) exceeds maxRecordsPerPartition.
    assert split_batch([big, small], [30, 5, 0], 3, None) == [big, small]
    assert len(split_batch([big, small], [30, 5, 0], 4, None)) == 4
    assert split_batch([big, small], [1, 1, 1], None, 7) == [big, small]
    assert len(split_batch([big, small], [30, 1, 1], None, 7)) == 6
    for min_partitions in (None, 1, 2, 3, 7, 35, 100):
        for max_records in (None, 1, 4, 29, 30, 31):
            tasks = split_ranges([big, small], min_partitions, max_records)
            assert _covers_exactly(tasks, [big, small]), (min_partitions, max_records)
            assert max_records is None or all(t.size <= max_records for t in tasks)


def test_a_stream_follows_a_partition_that_went_back_or_away_only_without_fail_on_data_loss() -> None:
    start = {"t:0": 10, "t:1": 4, "gone:0": 7}
    bounds = {("t", 0): Bounds(0, 3), ("t", 1): Bounds(0, 9), ("new", 0): Bounds(2, 5)}
    assert stream_end_offsets(start, bounds, fail_on_data_loss=False) == {"t:0": 3, "t:1": 9, "new:0": 2}
    with pytest.raises(SourcePlanError, match=r"gone-0 is gone .* read it up to offset 7"):
        stream_end_offsets(start, bounds, fail_on_data_loss=True)
    with pytest.raises(SourcePlanError, match="t-0 ends at offset 3 but the query has read up to 10"):
        stream_end_offsets({"t:0": 10}, bounds, fail_on_data_loss=True)


@pytest.mark.parametrize(
    ("pattern", "construct"),
    [
        ("[a-c[x]]", r"'\[' inside a character class"),
        ("[[:alpha:]]+", "nested set"),
        ("[a-z&&[^b]]", "set intersection"),
        (r"a\141", "a backslash before a digit"),
        (r"(a)\1", "a backslash before a digit"),
        ("a{,3}", "not a repetition"),
        ("a{b", "not a repetition"),
        ("(?P<n>a)", "Python-only"),
        ("(?#note)a", "Python-only"),
        ("(a)?(?(1)b|c)", "Python-only"),
        ("(?x)a b", "verbose flag"),
        ("(?a)a", "ASCII flag"),
        (r"\p{Alpha}", "bad escape"),
        (r"\Qa.b\E", "bad escape"),
        ("(?<n>a)", "unknown extension"),
        ("a(?i)b", "global flags not at the start"),
    ],
)
def test_topic_patterns_java_reads_otherwise_are_refused(pattern: str, construct: str) -> None:
    with pytest.raises(TopicPatternError, match=construct):
        compile_topic_pattern(pattern)


def test_topic_patterns_both_dialects_read_alike_are_accepted() -> None:
    for pattern in ("orders-.*", "[a-z0-9._-]+", r"(?i)ORDERS-\d{2,}", "[]a]+", "[^]a]+", "a{2}", "(?=o).*", "x++"):
        compile_topic_pattern(pattern)
    assert compile_topic_pattern("(?i)k").fullmatch("\u212a") is None  # ASCII-only case folding, as in Java
