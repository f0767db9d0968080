"""The odradek source's options and micro-batch limits, checked without Spark or a broker."""

from __future__ import annotations

import pytest

from odradek.pipeline.source_options import SourceOptionError, parse_options
from odradek.pipeline.source_plan import limit_offsets

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
        ({**BOOTSTRAP, "subscribePattern": "a("}, False, "is not a regular expression"),
        ({**BOOTSTRAP, "assign": '{"a": [-1]}'}, False, "must map to a list of partition numbers"),
        ({**BOOTSTRAP, "subscribe": "a", "kafka.group.id": "g"}, False, "kafka.group.id is set by the odradek source"),
        ({**BOOTSTRAP, "subscribe": "a", "startingOffset": "earliest"}, False, "unknown option 'startingoffset'"),
        ({**BOOTSTRAP, "subscribe": "a", "kafka.isolation.level": "x"}, False, "read_uncommitted or read_committed"),
    ],
)
def test_bad_options_are_named(options: dict[str, str], streaming: bool, message: str) -> None:
    with pytest.raises(SourceOptionError, match=message):
        parse_options(options, streaming)


def test_a_micro_batch_limit_is_shared_in_proportion_to_lag() -> None:
    start = {"t:0": 0, "t:1": 100, "t:2": 50}
    latest = {"t:0": 30, "t:1": 110, "t:2": 50, "u:0": 4}
    assert limit_offsets(start, latest, None) == latest
    assert limit_offsets(start, latest, 40) == latest  # exactly what is behind
    limited = limit_offsets(start, latest, 21)
    assert limited["u:0"] == 4 and limited["t:2"] == 50  # a new partition enters as given; no lag, no share
    assert sum(limited[k] - start[k] for k in start) == 21
    assert all(start[k] <= limited[k] <= latest[k] for k in start)
    assert limited["t:0"] - start["t:0"] >= 15
    assert limit_offsets(start, latest, 1) == {**latest, "t:0": 1, "t:1": 100}  # the remainder goes to the most behind
