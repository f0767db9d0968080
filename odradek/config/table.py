"""Every Kafka config key odradek knows, each defined once (Kafka 4.x names, types, defaults).

`TOPIC_KEYS` and `BROKER_KEYS` are the whole truth: a topic key and the broker key it inherits
its default from are written as one `_both` entry when Kafka gives them the same type, default
and validator; where Kafka's broker key differs (``retention.ms`` inherits from the
``log.retention.*`` group, whose default is null), both are written out and linked by name.

A broker key with an ``attribute`` is read from ``server.properties`` into `BrokerConfig`; one
with a `Dynamic` mode other than read-only may change at run time: a cluster-wide key per broker
and cluster-wide, a per-broker key (listeners, TLS and SASL settings) only per broker, a
per-listener key (a listener's keystore or truststore) only per broker under a listener's prefix
(``listener.name.<listener>.<key>``), as Kafka 4.4 allows each.  The rest of Kafka 4.4's read-only
broker keys are accepted and reported without being acted on (`odradek.config.reported_keys`), so
`BROKER_KEYS` holds every key Kafka's broker config defines.
"""

from __future__ import annotations

from collections.abc import Mapping

from odradek.config.kept_keys import KEPT_DYNAMIC_KEYS
from odradek.config.keys import (
    INT_MAX,
    LONG_MAX,
    ConfigKey,
    ConfigType,
    Dynamic,
    Scope,
    Validator,
    at_least,
    between,
    between_or,
    one_of,
)
from odradek.config.reported_keys import REPORTED_KEYS

__all__ = ["BROKER_KEYS", "LISTENER_KEYS", "TOPIC_KEYS", "index_by_name"]

MIB = 1024 * 1024
BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST = (
    ConfigType.BOOLEAN,
    ConfigType.STRING,
    ConfigType.INT,
    ConfigType.SHORT,
    ConfigType.LONG,
    ConfigType.DOUBLE,
    ConfigType.LIST,
)
CLUSTER_WIDE = Dynamic.CLUSTER_WIDE
PER_BROKER = Dynamic.PER_BROKER
_COMPRESSION = one_of("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
_RETENTION = ("log.retention.ms", "log.retention.minutes", "log.retention.hours")
_ROLL = ("log.roll.ms", "log.roll.hours")
_JITTER = ("log.roll.jitter.ms", "log.roll.jitter.hours")
_FLUSH = ("log.flush.interval.ms", "log.flush.scheduler.interval.ms")

_topic: list[ConfigKey] = []
_broker: list[ConfigKey] = []


def _attr(name: str, static: bool) -> str | None:
    return name.replace(".", "_") if static else None


def _b(
    name: str,
    kind: ConfigType,
    default: str | None,
    doc: str,
    validator: Validator | None = None,
    *,
    dynamic: Dynamic = Dynamic.READ_ONLY,
    static: bool = False,
    local_default: str | None = None,
    group: tuple[str, ...] = (),
    resolved: str | None = None,
) -> None:
    _broker.append(
        ConfigKey(
            name, Scope.BROKER, kind, default, doc, validator, dynamic, None,
            _attr(name, static), local_default, group, resolved,
        )
    )  # fmt: skip


def _t(
    name: str, kind: ConfigType, default: str, doc: str, validator: Validator | None = None, synonym: str | None = None
) -> None:
    _topic.append(ConfigKey(name, Scope.TOPIC, kind, default, doc, validator, synonym=synonym))


def _both(
    topic: str,
    broker: str,
    kind: ConfigType,
    default: str,
    doc: str,
    validator: Validator | None = None,
    *,
    static: bool = False,
) -> None:
    """A topic key and its broker synonym with Kafka's shared type, default and validator."""
    _t(topic, kind, default, doc, validator, broker)
    _b(broker, kind, default, doc, validator, dynamic=CLUSTER_WIDE, static=static)


# Topic keys with their broker synonym (Kafka's LogConfig and DynamicLogConfig).
_both(
    "cleanup.policy",
    "log.cleanup.policy",
    LIST,
    "delete",
    "What happens to old segments: delete them, compact them by key, or both.",
    one_of("compact", "delete"),
    static=True,
)
_both(
    "compression.gzip.level",
    "compression.gzip.level",
    INT,
    "-1",
    "The gzip level used when the broker compresses with gzip (-1: the codec's default).",
    between_or(1, 9, -1),
)
_both(
    "compression.lz4.level",
    "compression.lz4.level",
    INT,
    "9",
    "The lz4 level used when the broker compresses with lz4.",
    between(1, 17),
)
_both(
    "compression.type",
    "compression.type",
    STRING,
    "producer",
    "The codec batches are stored with; producer keeps what the producer sent.",
    _COMPRESSION,
)
_both(
    "compression.zstd.level",
    "compression.zstd.level",
    INT,
    "3",
    "The zstd level used when the broker compresses with zstd.",
    between(-131072, 22),
)
_both(
    "delete.retention.ms",
    "log.cleaner.delete.retention.ms",
    LONG,
    "86400000",
    "How long compaction keeps a tombstone after it first cleaned it.",
    at_least(0),
)
_both(
    "file.delete.delay.ms",
    "log.segment.delete.delay.ms",
    LONG,
    "60000",
    "How long the files of a removed segment stay on disk before they are deleted.",
    at_least(0),
    static=True,
)
_both(
    "flush.messages",
    "log.flush.interval.messages",
    LONG,
    str(LONG_MAX),
    "Unflushed messages that force an fsync.",
    at_least(1),
    static=True,
)
_t(
    "flush.ms",
    LONG,
    str(LONG_MAX),
    "Time since the last fsync that forces one at an append.",
    at_least(0),
    "log.flush.interval.ms",
)
_t("errors.deadletterqueue.group.enable", BOOLEAN, "false", "Whether share groups may use a dead-letter queue.")
_t("follower.replication.throttled.replicas", LIST, "", "Follower replicas whose replication is throttled.")
_both(
    "index.interval.bytes",
    "log.index.interval.bytes",
    INT,
    "4096",
    "Log bytes between two offset index entries.",
    at_least(0),
    static=True,
)
_t("leader.replication.throttled.replicas", LIST, "", "Leader replicas whose replication is throttled.")
_both(
    "local.retention.bytes",
    "log.local.retention.bytes",
    LONG,
    "-2",
    "Local size kept when tiered storage is on (-2: retention.bytes).",
    at_least(-2),
)
_both(
    "local.retention.ms",
    "log.local.retention.ms",
    LONG,
    "-2",
    "Local time kept when tiered storage is on (-2: retention.ms).",
    at_least(-2),
)
_both(
    "max.compaction.lag.ms",
    "log.cleaner.max.compaction.lag.ms",
    LONG,
    str(LONG_MAX),
    "Dirty records older than this force a compaction.",
    at_least(1),
)
_t(
    "max.decompressed.message.bytes",
    INT,
    "2147483639",
    "The largest batch the broker decompresses.",
    at_least(1),
    "max.decompressed.message.bytes",
)
_both(
    "max.message.bytes",
    "message.max.bytes",
    INT,
    "1048588",
    "The largest record batch a produce may append.",
    at_least(0),
    static=True,
)
_both(
    "message.timestamp.after.max.ms",
    "log.message.timestamp.after.max.ms",
    LONG,
    "3600000",
    "How far in the future a CreateTime timestamp may be.",
    at_least(0),
)
_both(
    "message.timestamp.before.max.ms",
    "log.message.timestamp.before.max.ms",
    LONG,
    str(LONG_MAX),
    "How far in the past a CreateTime timestamp may be.",
    at_least(0),
)
_both(
    "message.timestamp.type",
    "log.message.timestamp.type",
    STRING,
    "CreateTime",
    "Which timestamp the log keeps: the producer's or the broker's append time.",
    one_of("CreateTime", "LogAppendTime"),
    static=True,
)
_both(
    "min.cleanable.dirty.ratio",
    "log.cleaner.min.cleanable.ratio",
    DOUBLE,
    "0.5",
    "The dirty share of a log that makes compaction worth it.",
    between(0.0, 1),
)
_both(
    "min.compaction.lag.ms",
    "log.cleaner.min.compaction.lag.ms",
    LONG,
    "0",
    "Records younger than this are not compacted.",
    at_least(0),
)
_both(
    "min.insync.replicas", "min.insync.replicas", INT, "1", "In-sync replicas an acks=all produce needs.", at_least(1)
)
_both("preallocate", "log.preallocate", BOOLEAN, "false", "Whether new segment files are preallocated.")
_t(
    "remote.copy.lag.bytes",
    LONG,
    "-1",
    "Bytes a segment may wait before it is copied to remote storage.",
    at_least(-1),
    "log.remote.copy.lag.bytes",
)
_t(
    "remote.copy.lag.ms",
    LONG,
    "0",
    "Time a segment may wait before it is copied to remote storage.",
    at_least(-1),
    "log.remote.copy.lag.ms",
)
_t("remote.log.copy.disable", BOOLEAN, "false", "Whether copying to remote storage is paused.")
_t("remote.log.delete.on.disable", BOOLEAN, "false", "Whether remote data is deleted when tiering is turned off.")
_t("remote.storage.enable", BOOLEAN, "false", "Whether the topic uses tiered storage.")
_both(
    "retention.bytes",
    "log.retention.bytes",
    LONG,
    "-1",
    "Delete old segments while the log stays at least this big (-1: no limit).",
    static=True,
)
_t(
    "retention.ms",
    LONG,
    "604800000",
    "Delete segments whose newest record is older (-1: keep all).",
    at_least(-1),
    "log.retention.ms",
)
_both(
    "segment.bytes",
    "log.segment.bytes",
    INT,
    "1073741824",
    "Roll before a segment would exceed this size.",
    at_least(MIB),
    static=True,
)
_both(
    "segment.index.bytes",
    "log.index.size.max.bytes",
    INT,
    "10485760",
    "Index size at which the segment rolls.",
    at_least(4),
    static=True,
)
_t(
    "segment.jitter.ms",
    LONG,
    "0",
    "Random time taken off segment.ms so that segments roll apart.",
    at_least(0),
    "log.roll.jitter.ms",
)
_t("segment.ms", LONG, "604800000", "Roll a non-empty segment this old.", at_least(1), "log.roll.ms")
_both(
    "unclean.leader.election.enable",
    "unclean.leader.election.enable",
    BOOLEAN,
    "false",
    "Whether a replica out of sync may become leader.",
)

# Broker keys whose Kafka synonym group or default differs from the topic key's.
_b(
    "log.retention.ms",
    LONG,
    None,
    "Default retention time; overrides the minutes and hours.",
    dynamic=CLUSTER_WIDE,
    static=True,
    group=_RETENTION,
    resolved="retention_ms",
)
_b(
    "log.retention.minutes",
    INT,
    None,
    "Default retention time in minutes; overrides the hours.",
    static=True,
    group=_RETENTION,
)
_b("log.retention.hours", INT, "168", "Default retention time in hours.", static=True, group=_RETENTION)
_b("log.roll.ms", LONG, None, "Default segment age that rolls; overrides the hours.", dynamic=CLUSTER_WIDE, group=_ROLL)
_b("log.roll.hours", INT, "168", "Default segment age that rolls, in hours.", group=_ROLL)
_b("log.roll.jitter.ms", LONG, None, "Default roll jitter; overrides the hours.", dynamic=CLUSTER_WIDE, group=_JITTER)
_b("log.roll.jitter.hours", INT, "0", "Default roll jitter in hours.", group=_JITTER)
_b(
    "log.flush.interval.ms",
    LONG,
    None,
    "Default time between fsyncs (null: the scheduler interval).",
    dynamic=CLUSTER_WIDE,
    static=True,
    group=_FLUSH,
    resolved="flush_interval_ms",
)
_b("log.flush.scheduler.interval.ms", LONG, str(LONG_MAX), "How often logs are checked for a due fsync.", group=_FLUSH)

# The log cleaner's reconfigurable keys and the thread pools.
_b(
    "log.cleaner.backoff.ms",
    LONG,
    "15000",
    "Pause between two compaction passes.",
    at_least(0),
    dynamic=CLUSTER_WIDE,
    static=True,
)
_b(
    "log.cleaner.dedupe.buffer.size",
    LONG,
    str(128 * MIB),
    "Memory of the compaction key map.",
    dynamic=CLUSTER_WIDE,
    static=True,
)
_b(
    "log.cleaner.io.buffer.load.factor",
    DOUBLE,
    "0.9",
    "How full the compaction key map may get.",
    dynamic=CLUSTER_WIDE,
    static=True,
)
_b("log.cleaner.io.buffer.size", INT, "524288", "Compaction I/O buffer memory.", at_least(0), dynamic=CLUSTER_WIDE)
_b(
    "log.cleaner.io.max.bytes.per.second",
    DOUBLE,
    "1.7976931348623157E308",
    "Compaction I/O throttle.",
    dynamic=CLUSTER_WIDE,
)
_b("log.cleaner.threads", INT, "1", "Compaction threads.", at_least(0), dynamic=CLUSTER_WIDE)
_b("background.threads", INT, "10", "Background task threads.", at_least(1), dynamic=CLUSTER_WIDE)
_b("num.io.threads", INT, "8", "Request handler threads.", at_least(1), dynamic=CLUSTER_WIDE)
_b("num.network.threads", INT, "3", "Network threads.", at_least(1), dynamic=CLUSTER_WIDE)
_b(
    "num.recovery.threads.per.data.dir",
    INT,
    "2",
    "Log recovery threads per data directory.",
    at_least(1),
    dynamic=CLUSTER_WIDE,
)
_b("num.replica.fetchers", INT, "1", "Replica fetcher threads.", at_least(1), dynamic=CLUSTER_WIDE)

# Read-only broker keys odradek reads from server.properties.
_b("node.id", INT, None, "This broker's id.", static=True, local_default="1")
_b("broker.id", INT, "-1", "This broker's id (the older name of node.id).")
_b("listeners", LIST, "PLAINTEXT://:9092", "Where the broker accepts connections.", dynamic=PER_BROKER)
_b("advertised.listeners", LIST, None, "Where clients are told to connect (null: listeners).")
_b("authorizer.class.name", STRING, "", "The authorizer's class (empty: none, every request allowed).")
_b("log.dirs", LIST, None, "The data directory.", static=True, local_default="./data")
_b("num.partitions", INT, "1", "Partitions of an auto-created topic or one created without a count.", static=True)
_b("default.replication.factor", INT, "1", "Replication factor of a topic created without one.", static=True)
_b("auto.create.topics.enable", BOOLEAN, "true", "Whether a metadata request creates a missing topic.", static=True)
_b("delete.topic.enable", BOOLEAN, "true", "Whether topics may be deleted.", static=True)
_b("socket.request.max.bytes", INT, str(100 * MIB), "The largest request the broker reads.", static=True)
_b("socket.send.buffer.bytes", INT, "102400", "SO_SNDBUF of client sockets (-1: the OS's).", static=True)
_b("socket.receive.buffer.bytes", INT, "102400", "SO_RCVBUF of client sockets (-1: the OS's).", static=True)
_b(
    "queued.max.request.bytes",
    LONG,
    "-1",
    "Bytes of requests received and not yet answered, over every connection, before no more are read (-1: no limit).",
    static=True,
)
_b("log.retention.check.interval.ms", LONG, "300000", "How often retention runs.", static=True)
_b(
    "log.flush.offset.checkpoint.interval.ms",
    INT,
    "60000",
    "How often each data directory's recovery points are written to its checkpoint file.",
    at_least(0),
    static=True,
)
_b("log.cleaner.enable", BOOLEAN, "true", "Whether compaction runs.", static=True)
_b("fetch.max.bytes", INT, str(55 * MIB), "The largest fetch response.", static=True)
_b("replica.fetch.max.bytes", INT, str(MIB), "Bytes a replica fetch asks per partition.", static=True)
_b("max.incremental.fetch.session.cache.slots", INT, "1000", "Incremental fetch sessions kept.", static=True)
_b(
    "group.initial.rebalance.delay.ms",
    INT,
    "3000",
    "Wait for more members before a new group's first rebalance.",
    static=True,
)
_b("offsets.topic.num.partitions", INT, "50", "Partitions of __consumer_offsets.", static=True)
_b("group.min.session.timeout.ms", INT, "6000", "The shortest session timeout a member may ask for.", static=True)
_b("group.max.session.timeout.ms", INT, "1800000", "The longest session timeout a member may ask for.", static=True)
_b("group.max.size", INT, str(INT_MAX), "Members a group may hold.", static=True)
_b("offsets.retention.minutes", INT, "10080", "How long committed offsets of an empty group are kept.", static=True)
_b("offsets.retention.check.interval.ms", LONG, "600000", "How often expired offsets are removed.", static=True)
_b("offset.metadata.max.bytes", INT, "4096", "The largest metadata a committed offset may carry.", static=True)
_b("transaction.max.timeout.ms", INT, "900000", "The longest transaction timeout a producer may ask for.", at_least(1),
   static=True)  # fmt: skip
_b(
    "transactional.id.expiration.ms",
    INT,
    "604800000",
    "How long an idle transactional id is kept.",
    at_least(1),
    static=True,
)
_b(
    "transaction.abort.timed.out.transaction.cleanup.interval.ms",
    INT,
    "10000",
    "How often transactions open past their timeout are aborted.",
    at_least(1),
    static=True,
)
_b(
    "transaction.remove.expired.transaction.cleanup.interval.ms",
    INT,
    "3600000",
    "How often expired transactional ids are removed.",
    at_least(1),
    static=True,
)
_b("transaction.state.log.num.partitions", INT, "50", "Partitions of __transaction_state.", at_least(1), static=True)
_b("transaction.state.log.segment.bytes", INT, "104857600", "Segment size of __transaction_state.", at_least(1),
   static=True)  # fmt: skip
_b("transaction.state.log.replication.factor", SHORT, "3", "Replication factor of __transaction_state.", at_least(1))
_b("transaction.state.log.min.isr", INT, "2", "min.insync.replicas of __transaction_state.", at_least(1))
_b("transaction.state.log.load.buffer.size", INT, "5242880", "Bytes read at a time when loading.", at_least(1))
_b(
    "producer.id.expiration.ms",
    INT,
    "86400000",
    "How long a partition keeps the state of a producer that stopped writing.",
    at_least(1),
    dynamic=CLUSTER_WIDE,
    static=True,
)
_b(
    "producer.id.expiration.check.interval.ms",
    INT,
    "600000",
    "How often expired producer state is removed.",
    at_least(1),
    static=True,
)
_b(
    "transaction.partition.verification.enable",
    BOOLEAN,
    "true",
    "Whether a transactional write is checked with the transaction coordinator first.",
    dynamic=CLUSTER_WIDE,
    static=True,
)

_broker.extend(KEPT_DYNAMIC_KEYS)
_broker.extend(REPORTED_KEYS)


# Plain dicts typed read-only: the produce path looks keys up per batch, and a dict is the fastest.
def index_by_name(keys: list[ConfigKey]) -> dict[str, ConfigKey]:
    """The keys by name; a name defined twice is a mistake in the table (the later row would
    silently replace the earlier one), so it raises ValueError."""
    index: dict[str, ConfigKey] = {}
    for key in keys:
        if key.name in index:
            raise ValueError(f"config key {key.name!r} is defined twice")
        index[key.name] = key
    return index


TOPIC_KEYS: Mapping[str, ConfigKey] = index_by_name(sorted(_topic, key=lambda k: k.name))
BROKER_KEYS: Mapping[str, ConfigKey] = index_by_name(_broker)

#: Broker keys whose static value odradek derives from its listener and node id settings.
LISTENER_KEYS = ("listeners", "advertised.listeners", "broker.id", "listener.security.protocol.map")
