"""Probe sequence for configs: DescribeConfigs of topics, this broker and the cluster default
(named keys only: Kafka describes some 340 broker configs, odradek the ones it models),
IncrementalAlterConfigs and AlterConfigs on topics and brokers, and their refusals.

The run starts from the broker's defaults and puts back every broker config it changes, so
later sequences see a default broker."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.groups import topic_with
from probes.session import Session

__all__ = ["SEQUENCES"]

TOPIC, BROKER = 2, 4
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
_TOPIC_KEYS = [
    "retention.ms",
    "cleanup.policy",
    "max.message.bytes",
    "min.insync.replicas",
    "segment.bytes",
    "message.timestamp.type",
    "compression.type",
    "unclean.leader.election.enable",
]
_BROKER_KEYS = [
    "log.retention.ms",
    "log.retention.hours",
    "message.max.bytes",
    "log.cleanup.policy",
    "min.insync.replicas",
    "num.io.threads",
    "log.segment.bytes",
    "broker.id",
    "node.id",
]


def _describe(s: Session, label: str, kind: int, name: str, keys: list[str] | None, version: int = 4) -> Any:
    resource = {"resource_type": kind, "resource_name": name, "configuration_keys": keys}
    return s.call(
        label,
        ApiKey.DESCRIBE_CONFIGS,
        version,
        resources=[resource],
        include_synonyms=True,
        include_documentation=False,
    )


def _incremental(
    s: Session,
    label: str,
    kind: int,
    name: str,
    changes: list[tuple[str, int, str | None]],
    validate_only: bool = False,
) -> Any:
    configs = [{"name": n, "config_operation": op, "value": v} for n, op, v in changes]
    return s.call(
        label,
        ApiKey.INCREMENTAL_ALTER_CONFIGS,
        1,
        validate_only=validate_only,
        resources=[{"resource_type": kind, "resource_name": name, "configs": configs}],
    )


def _alter(s: Session, label: str, kind: int, name: str, configs: dict[str, str | None]) -> Any:
    entries = [{"name": n, "value": v} for n, v in configs.items()]
    return s.call(
        label,
        ApiKey.ALTER_CONFIGS,
        2,
        validate_only=False,
        resources=[{"resource_type": kind, "resource_name": name, "configs": entries}],
    )


def _settled(s: Session, name: str, key: str, value: str | None) -> None:
    """Wait until this broker describes ``key`` with ``value``: Kafka applies dynamic broker
    configs through its metadata log, a moment after the alter answered."""
    for _ in range(50):
        answer = _describe(s, "settle", BROKER, name, [key])
        s.observations.pop()
        configs = answer["results"][0]["configs"]
        if configs and configs[0]["value"] == value:
            return
        time.sleep(0.1)
    raise RuntimeError(f"{key} never became {value}")


def topic_configs(s: Session, names: dict[str, str]) -> None:
    topic = names["topic"]
    topic_with(s, topic, 1, {"retention.ms": "3600000"})
    _describe(s, "describe named topic configs with synonyms", TOPIC, topic, _TOPIC_KEYS)
    _describe(s, "describe v1 named topic configs", TOPIC, topic, _TOPIC_KEYS, version=1)
    _describe(s, "describe an unknown topic", TOPIC, names["missing"], None)
    _describe(s, "describe an unknown config name", TOPIC, topic, ["no.such.config"])
    _incremental(
        s, "set and delete", TOPIC, topic, [("cleanup.policy", SET, "compact"), ("retention.ms", DELETE, None)]
    )
    _incremental(s, "append to a list config", TOPIC, topic, [("cleanup.policy", APPEND, "delete")])
    _incremental(s, "subtract from a list config", TOPIC, topic, [("cleanup.policy", SUBTRACT, "compact")])
    _incremental(s, "append to a non-list config", TOPIC, topic, [("retention.ms", APPEND, "5")])
    _incremental(s, "set an unknown config", TOPIC, topic, [("no.such.config", SET, "1")])
    _incremental(s, "set a bad value", TOPIC, topic, [("retention.ms", SET, "soon")])
    _incremental(s, "set a value out of range", TOPIC, topic, [("min.cleanable.dirty.ratio", SET, "2")])
    _incremental(s, "set a bad enum value", TOPIC, topic, [("cleanup.policy", SET, "shred")])
    _incremental(s, "set a list with one bad element", TOPIC, topic, [("cleanup.policy", SET, "compact,shred")])
    _incremental(s, "set retention.ms below -1", TOPIC, topic, [("retention.ms", SET, "-5")])
    _incremental(s, "the same key twice", TOPIC, topic, [("retention.ms", SET, "1"), ("retention.ms", SET, "2")])
    _incremental(s, "validate only", TOPIC, topic, [("segment.bytes", SET, "2000000")], validate_only=True)
    _incremental(s, "an unknown topic", TOPIC, names["missing"], [("retention.ms", SET, "1")])
    s.call(
        "alter configs with the same key twice",
        ApiKey.ALTER_CONFIGS,
        2,
        validate_only=False,
        resources=[
            {
                "resource_type": TOPIC,
                "resource_name": topic,
                "configs": [{"name": "retention.ms", "value": "1"}, {"name": "retention.ms", "value": "2"}],
            }
        ],
    )
    _alter(s, "alter configs replaces the overrides", TOPIC, topic, {"max.message.bytes": "5000"})
    _describe(s, "describe after the alters", TOPIC, topic, _TOPIC_KEYS)


#: Topic configs Kafka 4.4 added, with a value each of them refuses.
_NEW_IN_44 = {
    "max.decompressed.message.bytes": "0",
    "remote.copy.lag.ms": "-2",
    "remote.copy.lag.bytes": "-2",
    "errors.deadletterqueue.group.enable": "maybe",
}


def topic_configs_new_in_44(s: Session, names: dict[str, str]) -> None:
    topic = names["topic"]
    topic_with(s, topic, 1, {})
    _describe(s, "describe the configs Kafka 4.4 added", TOPIC, topic, list(_NEW_IN_44))
    for key, bad in _NEW_IN_44.items():
        _incremental(s, f"set {key} to {bad}", TOPIC, topic, [(key, SET, bad)])
    _incremental(
        s,
        "set each of them to a valid value",
        TOPIC,
        topic,
        [
            ("max.decompressed.message.bytes", SET, "1048576"),
            ("remote.copy.lag.ms", SET, "60000"),
            ("remote.copy.lag.bytes", SET, "1000000"),
        ],
    )
    _describe(s, "describe them after the alter", TOPIC, topic, list(_NEW_IN_44))


def broker_configs(s: Session, names: dict[str, str]) -> None:
    _describe(s, "describe this broker's named configs", BROKER, "1", _BROKER_KEYS)
    _describe(s, "describe the cluster default", BROKER, "", _BROKER_KEYS)
    _describe(s, "describe another broker", BROKER, "7", ["message.max.bytes"])
    _describe(s, "describe a broker by a non-number", BROKER, "one", ["message.max.bytes"])
    _incremental(s, "set cluster-wide log.retention.ms", BROKER, "", [("log.retention.ms", SET, "7200000")])
    _settled(s, "1", "log.retention.ms", "7200000")
    _describe(s, "the cluster default now", BROKER, "", ["log.retention.ms"])
    _describe(s, "this broker now", BROKER, "1", ["log.retention.ms"])
    _incremental(s, "set message.max.bytes for this broker", BROKER, "1", [("message.max.bytes", SET, "2000000")])
    _settled(s, "1", "message.max.bytes", "2000000")
    _describe(s, "this broker's message.max.bytes", BROKER, "1", ["message.max.bytes"])
    _incremental(s, "set a read-only broker config", BROKER, "1", [("broker.id", SET, "5")])
    _incremental(s, "set a bad broker value", BROKER, "1", [("log.segment.bytes", SET, "5")])
    _incremental(s, "append to a broker non-list", BROKER, "1", [("message.max.bytes", APPEND, "5")])
    _incremental(s, "another broker's config", BROKER, "7", [("message.max.bytes", SET, "5000")])
    _incremental(s, "put back log.retention.ms", BROKER, "", [("log.retention.ms", DELETE, None)])
    _incremental(s, "put back message.max.bytes", BROKER, "1", [("message.max.bytes", DELETE, None)])
    _settled(s, "1", "message.max.bytes", "1048588")
    _describe(s, "this broker after putting back", BROKER, "1", ["log.retention.ms", "message.max.bytes"])


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "configs.topic": topic_configs,
    "configs.topic_new_in_44": topic_configs_new_in_44,
    "configs.broker": broker_configs,
}
