"""Probe sequence for GROUP config resources (resource type 32, Kafka 4's per-group configs):
DescribeConfigs of every key with its broker synonym, IncrementalAlterConfigs with each key's
bounds, validate-only, deletes, the refusals, ListConfigResources of groups, and AlterConfigs."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.session import Session

__all__ = ["SEQUENCES"]

GROUP, SET, DELETE, APPEND = 32, 0, 1, 2

#: Each group key with values on both sides of its bounds (and of its type).
_TRIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("consumer.session.timeout.ms", ("45000", "50000", "60000", "44999", "60001", "0", "-1", "x")),
    ("consumer.heartbeat.interval.ms", ("5000", "15000", "4999", "15001", "x")),
    ("consumer.assignment.interval.ms", ("0", "1000", "-1", "x")),
    ("share.session.timeout.ms", ("45000", "60000", "44999", "60001")),
    ("share.heartbeat.interval.ms", ("5000", "15000", "4999", "15001")),
    ("share.record.lock.duration.ms", ("15000", "60000", "14999", "60001")),
    ("share.delivery.count.limit", ("2", "10", "1", "11")),
    ("share.partition.max.record.locks", ("100", "2000", "10000", "99", "10001")),
    ("share.auto.offset.reset", ("earliest", "latest", "by_duration:PT1H", "none", "x")),
    ("share.isolation.level", ("read_committed", "read_uncommitted", "x")),
    ("share.renew.acknowledge.enable", ("true", "maybe")),
    ("share.assignment.interval.ms", ("0", "-1")),
    ("streams.session.timeout.ms", ("45000", "60000", "44999", "60001")),
    ("streams.heartbeat.interval.ms", ("5000", "15000", "4999", "15001")),
    ("streams.num.standby.replicas", ("0", "2", "3", "-1")),
    ("streams.initial.rebalance.delay.ms", ("0", "3000", "-1")),
    ("streams.assignment.interval.ms", ("0", "-1")),
    ("streams.assignor.name", ("sticky", "x")),
    ("streams.rack.aware.assignment.tags", ("a,b", "")),
    ("errors.deadletterqueue.topic.name", ("dlq.x", "x")),
    ("errors.deadletterqueue.copy.record.enable", ("true", "x")),
)


def _describe(s: Session, label: str, name: str, keys: list[str] | None, version: int = 4) -> Any:
    resource = {"resource_type": GROUP, "resource_name": name, "configuration_keys": keys}
    answer = s.call(label, ApiKey.DESCRIBE_CONFIGS, version, resources=[resource], include_synonyms=True,
                    include_documentation=False)  # fmt: skip
    for result in answer["results"]:
        result["configs"].sort(key=lambda c: c["name"])
    s.observations[-1].response = answer
    return answer


def _alter(
    s: Session, label: str, name: str, configs: list[tuple[str, int, str | None]], validate_only: bool = True
) -> Any:
    resource = {
        "resource_type": GROUP,
        "resource_name": name,
        "configs": [{"name": key, "config_operation": op, "value": value} for key, op, value in configs],
    }
    return s.call(label, ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, resources=[resource], validate_only=validate_only)


def _settled(s: Session, group: str, key: str, value: str) -> None:
    """Wait until the group describes ``key`` as ``value``: Kafka applies config changes through
    its metadata log, a moment after the alter answered."""
    for _ in range(50):
        resource = {"resource_type": GROUP, "resource_name": group, "configuration_keys": [key]}
        answer = s.call("settle", ApiKey.DESCRIBE_CONFIGS, 4, resources=[resource], include_synonyms=False,
                        include_documentation=False)  # fmt: skip
        s.observations.pop()
        if answer["results"][0]["configs"][0]["value"] == value:
            return
        time.sleep(0.1)
    raise RuntimeError(f"{key} of {group} never became {value}")


def group_configs(s: Session, names: dict[str, str]) -> None:
    group, other = names["group"], names["other"]
    _describe(s, "describe a group without configs", group, None)
    _describe(
        s,
        "describe two keys and an unknown one",
        group,
        ["consumer.session.timeout.ms", "share.isolation.level", "no.such"],
    )
    _describe(s, "describe v1", group, ["consumer.heartbeat.interval.ms"], version=1)
    _describe(s, "describe the empty group name", "", None)
    for key, values in _TRIES:
        for value in values:
            _alter(s, f"{key}={value}", group, [(key, SET, value)])
    _alter(s, "an unknown key", group, [("no.such.config", SET, "1")])
    _alter(s, "a broker key", group, [("group.consumer.session.timeout.ms", SET, "50000")])
    _alter(s, "a null value", group, [("consumer.session.timeout.ms", SET, None)])
    _alter(s, "append to a number", group, [("consumer.session.timeout.ms", APPEND, "1")])
    _alter(s, "append to a list", group, [("streams.rack.aware.assignment.tags", APPEND, "c")])
    _alter(
        s, "a key twice", group, [("share.delivery.count.limit", SET, "3"), ("share.delivery.count.limit", SET, "4")]
    )
    above = [("consumer.session.timeout.ms", SET, "45000"), ("consumer.heartbeat.interval.ms", SET, "15000")]
    _alter(s, "heartbeat above the session timeout", group, above)
    _alter(s, "the empty group name", "", [("consumer.session.timeout.ms", SET, "50000")])
    _alter(s, "set for real", group,
           [("consumer.session.timeout.ms", SET, "50000"), ("share.auto.offset.reset", SET, "earliest"),
            ("streams.num.standby.replicas", SET, "1")], validate_only=False)  # fmt: skip
    _settled(s, group, "streams.num.standby.replicas", "1")
    _describe(s, "describe after setting", group, None)
    s.call("list config resources of groups", ApiKey.LIST_CONFIG_RESOURCES, 1, resource_types=[32])
    _alter(s, "delete one, set another", group,
           [("consumer.session.timeout.ms", DELETE, None), ("consumer.heartbeat.interval.ms", SET, "6000")],
           validate_only=False)  # fmt: skip
    _describe(
        s, "describe after deleting one", group, ["consumer.session.timeout.ms", "consumer.heartbeat.interval.ms"]
    )
    legacy = {"resource_type": GROUP, "resource_name": other,
              "configs": [{"name": "consumer.session.timeout.ms", "value": "50000"}]}  # fmt: skip
    s.call("alter configs (the old API) of a group", ApiKey.ALTER_CONFIGS, 2, validate_only=False, resources=[legacy])
    _settled(s, other, "consumer.session.timeout.ms", "50000")
    _describe(s, "describe the other group", other, ["consumer.session.timeout.ms"])
    _alter(s, "delete every key", group,
           [("share.auto.offset.reset", DELETE, None), ("streams.num.standby.replicas", DELETE, None),
            ("consumer.heartbeat.interval.ms", DELETE, None)], validate_only=False)  # fmt: skip
    _settled(s, group, "consumer.heartbeat.interval.ms", "5000")
    s.call("list config resources of groups at the end", ApiKey.LIST_CONFIG_RESOURCES, 1, resource_types=[32])


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "configs.groups": group_configs,
}
