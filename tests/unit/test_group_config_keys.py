"""GROUP config keys: Kafka 4.4's checks in its words (compat-tests/probes, configs.groups),
describe with the broker synonyms, and the store across a crash."""

from __future__ import annotations

import pytest

from odradek.config.groups import GROUP_KEYS, GroupConfigStore, describe_group, validate_group
from odradek.config.keys import Source
from odradek.config.validation import InvalidConfig
from odradek.storage.filesystem import MemoryFileSystem


@pytest.mark.parametrize(
    ("configs", "message"),
    [
        ({"no.such": "1"}, "Unknown group config name: no.such"),
        (
            {"consumer.session.timeout.ms": "0"},
            "Invalid value 0 for configuration consumer.session.timeout.ms: Value must be at least 1",
        ),
        (
            {"consumer.session.timeout.ms": "60001"},
            "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive.",
        ),
        ({"share.delivery.count.limit": "11"}, "share.delivery.count.limit must be in the range 2 to 10 inclusive."),
        (
            {"share.partition.max.record.locks": "99"},
            "Invalid value 99 for configuration share.partition.max.record.locks: Value must be at least 100",
        ),
        ({"streams.num.standby.replicas": "3"}, "streams.num.standby.replicas must be less than or equal to 2"),
        (
            {"streams.assignor.name": "x"},
            "streams.assignor.name 'x' is not a registered task assignor. Registered assignors are: [sticky].",
        ),
        (
            {"share.auto.offset.reset": "none"},
            "Invalid value none for configuration share.auto.offset.reset: Invalid value `none` for configuration "
            "share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format "
            "'by_duration:<PnDTnHnMn.nS>'.",
        ),
    ],
)
def test_refusals_are_kafkas(configs: dict[str, str], message: str) -> None:
    with pytest.raises(InvalidConfig) as caught:
        validate_group(configs)
    assert str(caught.value) == message


def test_accepted_values() -> None:
    validate_group({"share.auto.offset.reset": "by_duration:PT1H30M", "consumer.heartbeat.interval.ms": "15000"})
    validate_group({name: key.default for name, key in GROUP_KEYS.items() if key.default is not None})


def test_describe_puts_the_override_before_the_broker_default() -> None:
    (entry,) = describe_group({"consumer.session.timeout.ms": "50000"}, ["consumer.session.timeout.ms", "nope"])
    assert (entry.value, entry.source) == ("50000", Source.GROUP_CONFIG)
    assert [(s.name, s.value, s.source) for s in entry.synonyms] == [
        ("consumer.session.timeout.ms", "50000", Source.GROUP_CONFIG),
        ("group.consumer.session.timeout.ms", "45000", Source.DEFAULT_CONFIG),
    ]
    assert len(describe_group({})) == len(GROUP_KEYS) == 21


def test_the_store_keeps_groups_with_overrides_only() -> None:
    fs = MemoryFileSystem()
    fs.makedirs("/data")
    store = GroupConfigStore(fs, "/data/groups.json")
    store.set("a", {"share.isolation.level": "read_committed"})
    store.set("b", {"consumer.session.timeout.ms": "50000"})
    store.set("b", {})
    fs.crash()
    again = GroupConfigStore(fs, "/data/groups.json")
    assert again.groups() == ["a"] and again.get("a") == {"share.isolation.level": "read_committed"}
