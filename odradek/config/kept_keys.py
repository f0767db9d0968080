"""Kafka 4.4"s dynamic broker keys that odradek keeps without acting on them: TLS and SASL
settings, listeners, connection limits, tiered storage, the coordinators" buffers, share groups"
dead-letter queues and a few more.  Each can be changed at run time in the update mode Kafka
gives it (checked key by key with compat-tests/probes, sequence configs.dynamic_broker_keys); the
values are validated by type, persisted with the other dynamic configs and described.

Part of the one config table (`odradek.config.table` adds these to `BROKER_KEYS`); rows are
``(name, type, Kafka"s default, update mode)``, the default as DescribeConfigs prints it.
"""

from __future__ import annotations

from odradek.config.keys import ConfigKey, ConfigType, Dynamic, Scope

__all__ = ["KEPT_DYNAMIC_KEYS"]

BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST, CLASS, PASSWORD = (
    ConfigType.BOOLEAN,
    ConfigType.STRING,
    ConfigType.INT,
    ConfigType.SHORT,
    ConfigType.LONG,
    ConfigType.DOUBLE,
    ConfigType.LIST,
    ConfigType.CLASS,
    ConfigType.PASSWORD,
)
CLUSTER_WIDE, PER_BROKER, PER_LISTENER = Dynamic.CLUSTER_WIDE, Dynamic.PER_BROKER, Dynamic.PER_LISTENER

_PROTOCOL_MAP = "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT"
_PRINCIPAL_BUILDER = "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder"

_DOCS = (
    ("ssl.", "TLS setting of the broker's listeners."),
    ("sasl.", "SASL setting of the broker's listeners."),
    ("remote.", "Tiered storage setting (odradek keeps no remote log)."),
    ("log.remote.", "Tiered storage setting (odradek keeps no remote log)."),
    ("follower.fetch.last.tiered", "Tiered storage setting (odradek keeps no remote log)."),
    ("max.connection", "Connection limit of the broker's listeners."),
    ("group.", "Group coordinator setting."),
    ("share.coordinator", "Share coordinator setting."),
    ("errors.deadletterqueue", "Share groups' dead-letter queue setting."),
)

_ROWS: tuple[tuple[str, ConfigType, str | None, Dynamic], ...] = (
    ("config.providers", LIST, "", CLUSTER_WIDE),
    ("cordoned.log.dirs", LIST, "", PER_BROKER),
    ("errors.deadletterqueue.auto.create.topics.enable", BOOLEAN, "false", CLUSTER_WIDE),
    ("errors.deadletterqueue.topic.name.prefix", STRING, "dlq.", CLUSTER_WIDE),
    ("follower.fetch.last.tiered.offset.enable", BOOLEAN, "false", CLUSTER_WIDE),
    ("group.consumer.assignment.interval.ms", INT, "1000", CLUSTER_WIDE),
    ("group.coordinator.cached.buffer.max.bytes", INT, "1048588", CLUSTER_WIDE),
    ("group.share.assignment.interval.ms", INT, "1000", CLUSTER_WIDE),
    ("group.streams.assignment.interval.ms", INT, "1000", CLUSTER_WIDE),
    ("listener.security.protocol.map", STRING, _PROTOCOL_MAP, PER_BROKER),
    ("log.remote.copy.lag.bytes", LONG, "-1", CLUSTER_WIDE),
    ("log.remote.copy.lag.ms", LONG, "0", CLUSTER_WIDE),
    ("max.connection.creation.rate", INT, "2147483647", CLUSTER_WIDE),
    ("max.connections", INT, "2147483647", CLUSTER_WIDE),
    ("max.connections.per.ip", INT, "2147483647", CLUSTER_WIDE),
    ("max.connections.per.ip.overrides", STRING, "", CLUSTER_WIDE),
    ("max.decompressed.message.bytes", INT, "2147483639", CLUSTER_WIDE),
    ("metric.reporters", LIST, "org.apache.kafka.common.metrics.JmxReporter", CLUSTER_WIDE),
    ("principal.builder.class", CLASS, _PRINCIPAL_BUILDER, PER_BROKER),
    ("producer.id.expiration.ms", INT, "86400000", CLUSTER_WIDE),
    ("remote.fetch.max.wait.ms", INT, "500", CLUSTER_WIDE),
    ("remote.list.offsets.request.timeout.ms", LONG, "30000", CLUSTER_WIDE),
    ("remote.log.index.file.cache.total.size.bytes", LONG, "1073741824", CLUSTER_WIDE),
    ("remote.log.manager.copier.thread.pool.size", INT, "10", CLUSTER_WIDE),
    ("remote.log.manager.copy.max.bytes.per.second", LONG, "9223372036854775807", CLUSTER_WIDE),
    ("remote.log.manager.expiration.thread.pool.size", INT, "10", CLUSTER_WIDE),
    ("remote.log.manager.fetch.max.bytes.per.second", LONG, "9223372036854775807", CLUSTER_WIDE),
    ("remote.log.manager.follower.thread.pool.size", INT, "2", CLUSTER_WIDE),
    ("remote.log.reader.threads", INT, "10", CLUSTER_WIDE),
    ("sasl.enabled.mechanisms", LIST, "GSSAPI", PER_BROKER),
    ("sasl.jaas.config", PASSWORD, None, PER_BROKER),
    ("sasl.kerberos.kinit.cmd", STRING, "/usr/bin/kinit", PER_BROKER),
    ("sasl.kerberos.min.time.before.relogin", LONG, "60000", PER_BROKER),
    ("sasl.kerberos.principal.to.local.rules", LIST, "DEFAULT", PER_BROKER),
    ("sasl.kerberos.service.name", STRING, None, PER_BROKER),
    ("sasl.kerberos.ticket.renew.jitter", DOUBLE, "0.05", PER_BROKER),
    ("sasl.kerberos.ticket.renew.window.factor", DOUBLE, "0.8", PER_BROKER),
    ("sasl.login.refresh.buffer.seconds", SHORT, "300", PER_BROKER),
    ("sasl.login.refresh.min.period.seconds", SHORT, "60", PER_BROKER),
    ("sasl.login.refresh.window.factor", DOUBLE, "0.8", PER_BROKER),
    ("sasl.login.refresh.window.jitter", DOUBLE, "0.05", PER_BROKER),
    ("sasl.mechanism.inter.broker.protocol", STRING, "GSSAPI", PER_BROKER),
    ("share.coordinator.cached.buffer.max.bytes", INT, "1048588", CLUSTER_WIDE),
    ("ssl.cipher.suites", LIST, "", PER_BROKER),
    ("ssl.client.auth", STRING, "none", PER_BROKER),
    ("ssl.enabled.protocols", LIST, "TLSv1.2,TLSv1.3", PER_BROKER),
    ("ssl.endpoint.identification.algorithm", STRING, "https", PER_BROKER),
    ("ssl.engine.factory.class", CLASS, None, CLUSTER_WIDE),
    ("ssl.key.password", PASSWORD, None, PER_LISTENER),
    ("ssl.keymanager.algorithm", STRING, "SunX509", PER_BROKER),
    ("ssl.keystore.certificate.chain", PASSWORD, None, PER_LISTENER),
    ("ssl.keystore.key", PASSWORD, None, PER_LISTENER),
    ("ssl.keystore.location", STRING, None, PER_LISTENER),
    ("ssl.keystore.password", PASSWORD, None, PER_LISTENER),
    ("ssl.keystore.type", STRING, "JKS", PER_LISTENER),
    ("ssl.protocol", STRING, "TLSv1.3", PER_BROKER),
    ("ssl.provider", STRING, None, PER_BROKER),
    ("ssl.secure.random.implementation", STRING, None, PER_BROKER),
    ("ssl.trustmanager.algorithm", STRING, "PKIX", PER_BROKER),
    ("ssl.truststore.certificates", PASSWORD, None, PER_LISTENER),
    ("ssl.truststore.location", STRING, None, PER_LISTENER),
    ("ssl.truststore.password", PASSWORD, None, PER_LISTENER),
    ("ssl.truststore.type", STRING, "JKS", PER_LISTENER),
    ("transaction.partition.verification.enable", BOOLEAN, "true", CLUSTER_WIDE),
)  # fmt: skip


def _doc(name: str) -> str:
    return next(
        (doc for prefix, doc in _DOCS if name.startswith(prefix)), "Broker setting Kafka lets change at run time."
    )


KEPT_DYNAMIC_KEYS: tuple[ConfigKey, ...] = tuple(
    ConfigKey(name, Scope.BROKER, kind, default, _doc(name), dynamic=mode) for name, kind, default, mode in _ROWS
)
