"""Probe sequence for Kafka 4.4's dynamic broker keys, key by key: each one set (validate only)
per broker and cluster-wide, with a value of the wrong type when it is a number, and under a
listener prefix when it is a TLS or SASL key; then described, then a few set for real, described
and removed again (the broker is left as it started)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.session import Session

__all__ = ["SEQUENCES"]

BROKER, SET, DELETE = 4, 0, 1
_LISTENER = "listener.name.plaintext."

#: (key, a value Kafka accepts or refuses for a reason of its own, whether the key is a number):
#: Kafka's default, or "x" where it has none.
_KEYS: tuple[tuple[str, str, bool], ...] = (
    ("background.threads", "10", True),
    ("compression.gzip.level", "-1", True),
    ("compression.lz4.level", "9", True),
    ("compression.type", "producer", False),
    ("compression.zstd.level", "3", True),
    ("config.providers", "x", False),
    ("cordoned.log.dirs", "x", False),
    ("errors.deadletterqueue.auto.create.topics.enable", "false", False),
    ("errors.deadletterqueue.topic.name.prefix", "dlq.", False),
    ("follower.fetch.last.tiered.offset.enable", "false", False),
    ("group.consumer.assignment.interval.ms", "1000", True),
    ("group.coordinator.cached.buffer.max.bytes", "1048588", True),
    ("group.share.assignment.interval.ms", "1000", True),
    ("group.streams.assignment.interval.ms", "1000", True),
    ("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT", False),
    ("log.cleaner.backoff.ms", "1000", True),
    ("log.cleaner.dedupe.buffer.size", "134217728", True),
    ("log.cleaner.delete.retention.ms", "86400000", True),
    ("log.cleaner.io.buffer.load.factor", "0.9", True),
    ("log.cleaner.io.buffer.size", "524288", True),
    ("log.cleaner.io.max.bytes.per.second", "1.7976931348623157E308", True),
    ("log.cleaner.max.compaction.lag.ms", "9223372036854775807", True),
    ("log.cleaner.min.cleanable.ratio", "0.5", True),
    ("log.cleaner.min.compaction.lag.ms", "0", True),
    ("log.cleaner.threads", "1", True),
    ("log.cleanup.policy", "delete", False),
    ("log.flush.interval.messages", "9223372036854775807", True),
    ("log.flush.interval.ms", "x", True),
    ("log.index.interval.bytes", "4096", True),
    ("log.index.size.max.bytes", "10485760", True),
    ("log.local.retention.bytes", "-2", True),
    ("log.local.retention.ms", "-2", True),
    ("log.message.timestamp.after.max.ms", "3600000", True),
    ("log.message.timestamp.before.max.ms", "9223372036854775807", True),
    ("log.message.timestamp.type", "CreateTime", False),
    ("log.preallocate", "false", False),
    ("log.remote.copy.lag.bytes", "-1", True),
    ("log.remote.copy.lag.ms", "0", True),
    ("log.retention.bytes", "-1", True),
    ("log.retention.ms", "x", True),
    ("log.roll.jitter.ms", "x", True),
    ("log.roll.ms", "x", True),
    ("log.segment.bytes", "1073741824", True),
    ("log.segment.delete.delay.ms", "60000", True),
    ("max.connection.creation.rate", "2147483647", True),
    ("max.connections", "2147483647", True),
    ("max.connections.per.ip", "2147483647", True),
    ("max.connections.per.ip.overrides", "x", False),
    ("max.decompressed.message.bytes", "2147483639", True),
    ("message.max.bytes", "1048588", True),
    ("metric.reporters", "org.apache.kafka.common.metrics.JmxReporter", False),
    ("min.insync.replicas", "1", True),
    ("num.io.threads", "8", True),
    ("num.network.threads", "3", True),
    ("num.recovery.threads.per.data.dir", "2", True),
    ("num.replica.fetchers", "1", True),
    ("principal.builder.class", "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder", False),
    ("producer.id.expiration.ms", "86400000", True),
    ("remote.fetch.max.wait.ms", "500", True),
    ("remote.list.offsets.request.timeout.ms", "30000", True),
    ("remote.log.index.file.cache.total.size.bytes", "1073741824", True),
    ("remote.log.manager.copier.thread.pool.size", "10", True),
    ("remote.log.manager.copy.max.bytes.per.second", "9223372036854775807", True),
    ("remote.log.manager.expiration.thread.pool.size", "10", True),
    ("remote.log.manager.fetch.max.bytes.per.second", "9223372036854775807", True),
    ("remote.log.manager.follower.thread.pool.size", "2", True),
    ("remote.log.reader.threads", "10", True),
    ("sasl.enabled.mechanisms", "GSSAPI", False),
    ("sasl.jaas.config", "x", False),
    ("sasl.kerberos.kinit.cmd", "/usr/bin/kinit", False),
    ("sasl.kerberos.min.time.before.relogin", "60000", True),
    ("sasl.kerberos.principal.to.local.rules", "DEFAULT", False),
    ("sasl.kerberos.service.name", "x", False),
    ("sasl.kerberos.ticket.renew.jitter", "0.05", True),
    ("sasl.kerberos.ticket.renew.window.factor", "0.8", True),
    ("sasl.login.refresh.buffer.seconds", "300", True),
    ("sasl.login.refresh.min.period.seconds", "60", True),
    ("sasl.login.refresh.window.factor", "0.8", True),
    ("sasl.login.refresh.window.jitter", "0.05", True),
    ("sasl.mechanism.inter.broker.protocol", "GSSAPI", False),
    ("share.coordinator.cached.buffer.max.bytes", "1048588", True),
    ("ssl.cipher.suites", "x", False),
    ("ssl.client.auth", "none", False),
    ("ssl.enabled.protocols", "TLSv1.2,TLSv1.3", False),
    ("ssl.endpoint.identification.algorithm", "https", False),
    ("ssl.engine.factory.class", "x", False),
    ("ssl.key.password", "x", False),
    ("ssl.keymanager.algorithm", "SunX509", False),
    ("ssl.keystore.certificate.chain", "x", False),
    ("ssl.keystore.key", "x", False),
    ("ssl.keystore.location", "x", False),
    ("ssl.keystore.password", "x", False),
    ("ssl.keystore.type", "JKS", False),
    ("ssl.protocol", "TLSv1.3", False),
    ("ssl.provider", "x", False),
    ("ssl.secure.random.implementation", "x", False),
    ("ssl.trustmanager.algorithm", "PKIX", False),
    ("ssl.truststore.certificates", "x", False),
    ("ssl.truststore.location", "x", False),
    ("ssl.truststore.password", "x", False),
    ("ssl.truststore.type", "JKS", False),
    ("transaction.partition.verification.enable", "true", False),
    ("unclean.leader.election.enable", "false", False),
)  # fmt: skip


def _alter(s: Session, label: str, name: str, configs: list[tuple[str, int, str | None]], validate_only: bool) -> Any:
    resource = {
        "resource_type": BROKER,
        "resource_name": name,
        "configs": [{"name": key, "config_operation": op, "value": value} for key, op, value in configs],
    }
    return s.call(label, ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, resources=[resource], validate_only=validate_only)


def _describe(s: Session, label: str, name: str, keys: list[str]) -> None:
    resource = {"resource_type": BROKER, "resource_name": name, "configuration_keys": keys}
    s.call(label, ApiKey.DESCRIBE_CONFIGS, 4, resources=[resource], include_synonyms=True, include_documentation=False)


def dynamic_broker_keys(s: Session, names: dict[str, str]) -> None:
    for key, value, number in _KEYS:
        _alter(s, f"{key}: per broker", "1", [(key, SET, value)], validate_only=True)
        _alter(s, f"{key}: cluster-wide", "", [(key, SET, value)], validate_only=True)
        if number:
            _alter(s, f"{key}: not a number", "1", [(key, SET, "notanumber")], validate_only=True)
        if key.startswith(("ssl.", "sasl.")):
            _alter(s, f"{key}: per listener", "1", [(_LISTENER + key, SET, value)], validate_only=True)
            _alter(s, f"{key}: per listener, cluster-wide", "", [(_LISTENER + key, SET, value)], validate_only=True)
    two = [("ssl.protocol", SET, "TLSv1.3"), ("sasl.kerberos.kinit.cmd", SET, "k")]
    _alter(s, "two per-broker keys cluster-wide", "", two, validate_only=True)
    _alter(s, "a keystore unprefixed and a read-only key", "1",
           [("ssl.keystore.type", SET, "JKS"), ("broker.id", SET, "1")], validate_only=True)  # fmt: skip
    _alter(s, "a keystore unprefixed and a bad number", "1",
           [("ssl.keystore.type", SET, "JKS"), ("num.io.threads", SET, "x")], validate_only=True)  # fmt: skip
    _describe(s, "describe every dynamic key of this broker", "1", sorted(key for key, _, _ in _KEYS))
    # For real, only under a listener's prefix: Kafka applies a broker's dynamic configs through
    # its metadata log, and whether an unprefixed TLS or SASL key may change depends on what the
    # listeners hold at that moment (the previous change may not be applied yet): racy on Kafka.
    prefixed = _LISTENER + "sasl.kerberos.min.time.before.relogin"
    for key, value, _ in _KEYS:
        if key.startswith(("ssl.", "sasl.")) and key != "ssl.engine.factory.class":
            _alter(s, f"set {_LISTENER + key} for real", "1", [(_LISTENER + key, SET, value)], validate_only=False)
            if key != prefixed.removeprefix(_LISTENER):
                _alter(s, f"remove {_LISTENER + key}", "1", [(_LISTENER + key, DELETE, None)], validate_only=False)
    _alter(s, "set a tiered storage key cluster-wide for real", "", [("remote.fetch.max.wait.ms", SET, "600")],
           validate_only=False)  # fmt: skip
    _settled(s, "", "remote.fetch.max.wait.ms", "600")
    described = [prefixed, "sasl.kerberos.min.time.before.relogin", "remote.fetch.max.wait.ms"]
    _describe(s, "describe them", "1", described)
    _describe(s, "describe the cluster default", "", ["remote.fetch.max.wait.ms"])
    _alter(s, "remove the listener's SASL key", "1", [(prefixed, DELETE, None)], validate_only=False)
    _alter(s, "remove the cluster default", "", [("remote.fetch.max.wait.ms", DELETE, None)], validate_only=False)
    _settled(s, "", "remote.fetch.max.wait.ms", None)
    _describe(s, "describe after removing", "1", described)


def _settled(s: Session, name: str, key: str, value: str | None) -> None:
    """Wait until the broker describes ``key`` with ``value`` (None: absent or null): Kafka
    applies dynamic broker configs through its metadata log, a moment after the alter answered."""
    for _ in range(50):
        resource = {"resource_type": BROKER, "resource_name": name, "configuration_keys": [key]}
        answer = s.call("settle", ApiKey.DESCRIBE_CONFIGS, 4, resources=[resource], include_synonyms=False,
                        include_documentation=False)  # fmt: skip
        s.observations.pop()
        configs = answer["results"][0]["configs"]
        if (configs[0]["value"] if configs else None) == value:
            return
        time.sleep(0.1)
    raise RuntimeError(f"{key} never became {value}")


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "configs.dynamic_broker_keys": dynamic_broker_keys,
}
