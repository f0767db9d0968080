"""Topic config refusals worded as Apache Kafka 4.3.1 words them (compat-tests/probes/configs.py
and topics.py sent the same values to Kafka)."""

from __future__ import annotations

import pytest

from odradek.config import InvalidConfig, validate


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("min.cleanable.dirty.ratio", "2", "Invalid value 2.0 for configuration min.cleanable.dirty.ratio: "
         "Value must be no more than 1"),
        ("cleanup.policy", "shred", "Invalid value shred for configuration cleanup.policy: "
         "String must be one of: compact, delete"),
        ("cleanup.policy", "compact,shred", "Invalid value shred for configuration cleanup.policy: "
         "String must be one of: compact, delete"),
        ("retention.ms", "-5", "Invalid value -5 for configuration retention.ms: Value must be at least -1"),
        ("retention.ms", "soon", "Invalid value soon for configuration retention.ms: Not a number of type LONG"),
        ("no.such.config", "1", "Unknown topic config name: no.such.config"),
    ],
)  # fmt: skip
def test_refusals_use_kafkas_words(name: str, value: str, message: str) -> None:
    with pytest.raises(InvalidConfig) as refused:
        validate(name, value)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("name", "value"),
    [("cleanup.policy", "compact,delete"), ("min.cleanable.dirty.ratio", "0.1"), ("retention.ms", "-1")],
)
def test_valid_values_pass(name: str, value: str) -> None:
    validate(name, value)
