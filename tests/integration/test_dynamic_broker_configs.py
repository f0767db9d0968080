"""Dynamic broker configs against a real broker process, through confluent-kafka and kafka-python.

Neither Python client can name the cluster-wide resource (an empty broker name): both refuse it
before sending, so those requests go through the raw connection.  The error codes and messages
expected here are the ones Kafka 4.3.1 answered to the same requests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import (
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    Consumer,
    KafkaError,
    KafkaException,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewTopic,
    ResourceType,
)
from kafka import KafkaAdminClient
from kafka.admin import ConfigResource as KafkaPythonResource
from kafka.admin import ConfigResourceType

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.configs import AlterConfigsRequest, IncrementalAlterConfigsRequest
from tests.integration.conftest import BrokerProcess
from tests.integration.inprocess import InProcessBroker
from tests.integration.rawclient import RawConnection

SET, DELETE, APPEND = AlterConfigOpType.SET, AlterConfigOpType.DELETE, AlterConfigOpType.APPEND


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[BrokerProcess]:
    proc = BrokerProcess(tmp_path / "data")
    proc.start()
    yield proc
    proc.stop()


def _admin(broker: BrokerProcess) -> AdminClient:
    return AdminClient({"bootstrap.servers": broker.bootstrap})


def _topic(admin: AdminClient, configs: dict[str, str] | None = None) -> str:
    name = f"t-{uuid.uuid4().hex[:10]}"
    admin.create_topics([NewTopic(name, 1, 1, config=configs or {})])[name].result(timeout=20)
    return name


def _describe(admin: AdminClient, kind: ResourceType, name: str) -> dict[str, Any]:
    resource = ConfigResource(kind, name)
    return dict(admin.describe_configs([resource])[resource].result(timeout=20))


def _alter_broker(admin: AdminClient, *entries: tuple[str, str | None, AlterConfigOpType], **kw: Any) -> Any:
    configs = [ConfigEntry(name, value, incremental_operation=op) for name, value, op in entries]
    resource = ConfigResource(ResourceType.BROKER, "1", incremental_configs=configs)
    return admin.incremental_alter_configs([resource], **kw)[resource]


def _refusal(future: Any) -> tuple[int, str]:
    with pytest.raises(KafkaException) as caught:
        future.result(timeout=20)
    error: KafkaError = caught.value.args[0]
    return int(error.code()), error.str()


def _raw_cluster_alter(broker: BrokerProcess, configs: list[tuple[str, int, str | None]]) -> tuple[int, str | None]:
    resource = IncrementalAlterConfigsRequest.AlterConfigsResource
    request = IncrementalAlterConfigsRequest(
        resources=[
            resource(
                resource_type=ResourceType.BROKER.value,
                resource_name="",
                configs=[resource.AlterableConfig(name=n, config_operation=op, value=v) for n, op, v in configs],
            )
        ],
        validate_only=False,
    )
    conn = RawConnection(broker.bootstrap)
    try:
        (answer,) = conn.request(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, request).responses
    finally:
        conn.close()
    return answer.error_code, answer.error_message


def test_cluster_wide_retention_reaches_topics_and_survives_a_restart(broker: BrokerProcess) -> None:
    admin = _admin(broker)
    plain = _topic(admin)
    overridden = _topic(admin, {"retention.ms": "1000000"})
    assert _raw_cluster_alter(broker, [("log.retention.ms", 0, "3600000")]) == (ErrorCode.NONE, None)

    def check(admin: AdminClient) -> None:
        retention = _describe(admin, ResourceType.TOPIC, plain)["retention.ms"]
        assert (retention.value, retention.source) == ("3600000", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.value)
        assert _describe(admin, ResourceType.TOPIC, overridden)["retention.ms"].value == "1000000"
        client = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        try:
            described = client.describe_configs(
                [KafkaPythonResource(ConfigResourceType.BROKER, "1", ["log.retention.ms"])],
                include_synonyms=True,
                config_filter="all",
            )
        finally:
            client.close()
        entry = described["broker"]["1"]["log.retention.ms"]
        assert (entry["value"], entry["config_source"]) == ("3600000", "DYNAMIC_DEFAULT_BROKER_CONFIG")
        assert [(s["name"], s["source"]) for s in entry["synonyms"]] == [
            ("log.retention.ms", "DYNAMIC_DEFAULT_BROKER_CONFIG"),
            ("log.retention.hours", "DEFAULT_CONFIG"),
        ]

    check(admin)
    broker.restart()
    check(_admin(broker))


def _produce(broker: BrokerProcess, topic: str, size: int) -> KafkaError | None:
    producer = Producer(
        {"bootstrap.servers": broker.bootstrap, "message.max.bytes": 100_000, "compression.type": "none"}
    )
    outcome: list[KafkaError | None] = []
    producer.produce(topic, value=b"x" * size, on_delivery=lambda err, _msg: outcome.append(err))
    producer.flush(20)
    assert len(outcome) == 1
    return outcome[0]


def test_per_broker_message_max_bytes_applies_at_once(broker: BrokerProcess) -> None:
    admin = _admin(broker)
    topic = _topic(admin)
    assert _produce(broker, topic, 5000) is None
    _alter_broker(admin, ("message.max.bytes", "2000", SET)).result(timeout=20)
    refused = _produce(broker, topic, 5000)
    assert refused is not None and refused.code() == KafkaError.MSG_SIZE_TOO_LARGE
    assert _produce(broker, topic, 100) is None
    described = _describe(admin, ResourceType.TOPIC, topic)["max.message.bytes"]
    assert (described.value, described.source) == ("2000", ConfigSource.DYNAMIC_BROKER_CONFIG.value)
    _alter_broker(admin, ("message.max.bytes", None, DELETE)).result(timeout=20)
    assert _produce(broker, topic, 5000) is None


def test_refusals_match_kafka(broker: BrokerProcess) -> None:
    admin = _admin(broker)
    cases = [
        (("broker.id", "5", SET), ErrorCode.INVALID_REQUEST, "Cannot update these configs dynamically: [broker.id]"),
        (
            ("log.retention.hours", "1", SET),
            ErrorCode.INVALID_REQUEST,
            "Cannot update these configs dynamically: [log.retention.hours]",
        ),
        (
            ("log.segment.bytes", "5", SET),
            ErrorCode.INVALID_REQUEST,
            "Invalid value 5 for configuration log.segment.bytes: Value must be at least 1048576",
        ),
        (
            ("log.retention.ms", "100", APPEND),
            ErrorCode.INVALID_CONFIG,
            "Config value append is not allowed for config key: log.retention.ms",
        ),
    ]
    for entry, code, message in cases:
        assert _refusal(_alter_broker(admin, entry)) == (code, message)
    _alter_broker(admin, ("log.segment.bytes", "2097152", SET), validate_only=True).result(timeout=20)
    assert _describe(admin, ResourceType.BROKER, "1")["log.segment.bytes"].value == "1073741824"
    assert _raw_cluster_alter(broker, [("min.insync.replicas", 1, None)]) == (
        ErrorCode.INVALID_CONFIG,
        "Cluster-level min.insync.replicas cannot be removed while ELR is enabled.",
    )


@pytest.mark.filterwarnings("ignore:alter_configs has been deprecated:DeprecationWarning")
def test_alter_configs_replaces_the_whole_broker_layer(broker: BrokerProcess) -> None:
    admin = _admin(broker)
    _alter_broker(admin, ("log.cleanup.policy", "compact", APPEND), ("num.io.threads", "4", SET)).result(timeout=20)
    described = _describe(admin, ResourceType.BROKER, "1")
    assert described["log.cleanup.policy"].value == "delete,compact"
    assert described["num.io.threads"].source == ConfigSource.DYNAMIC_BROKER_CONFIG.value
    resource = ConfigResource(ResourceType.BROKER, "1", set_config={"log.retention.bytes": "123456789"})
    admin.alter_configs([resource])[resource].result(timeout=20)
    described = _describe(admin, ResourceType.BROKER, "1")
    assert (described["log.cleanup.policy"].value, described["num.io.threads"].value) == ("delete", "8")
    assert described["log.retention.bytes"].source == ConfigSource.DYNAMIC_BROKER_CONFIG.value


def test_wrong_broker_ids_are_invalid_request(broker: BrokerProcess) -> None:
    resource = AlterConfigsRequest.AlterConfigsResource
    request = AlterConfigsRequest(
        resources=[
            resource(resource_type=4, resource_name=name, configs=[resource.AlterableConfig(name="x", value="1")])
            for name in ("2", "abc")
        ],
        validate_only=True,
    )
    conn = RawConnection(broker.bootstrap)
    try:
        answers = conn.request(ApiKey.ALTER_CONFIGS, 2, request).responses
    finally:
        conn.close()
    assert [(a.error_code, a.error_message) for a in answers] == [
        (ErrorCode.INVALID_REQUEST, "Unexpected broker id, expected 1, but received 2"),
        (ErrorCode.INVALID_REQUEST, "Node id must be an integer, but it is: abc"),
    ]


def _segment_bytes(proc: InProcessBroker, topic: str) -> int:
    log = proc.broker.logs.get(topic, 0)
    assert log is not None
    return log.config.segment_bytes


def test_a_topic_without_override_follows_broker_changes_live(tmp_path: Path) -> None:
    proc = InProcessBroker(tmp_path / "data")
    proc.start()
    try:
        admin = AdminClient({"bootstrap.servers": proc.bootstrap})
        plain = _topic(admin)
        pinned = _topic(admin, {"segment.bytes": "3145728", "message.timestamp.type": "CreateTime"})
        configs = [
            ConfigEntry("log.segment.bytes", "2097152", incremental_operation=SET),
            ConfigEntry("log.message.timestamp.type", "LogAppendTime", incremental_operation=SET),
        ]
        resource = ConfigResource(ResourceType.BROKER, "1", incremental_configs=configs)
        admin.incremental_alter_configs([resource])[resource].result(timeout=20)
        segment_bytes = {t: proc.call(lambda t=t: _segment_bytes(proc, t)) for t in (plain, pinned)}
        assert segment_bytes == {plain: 2097152, pinned: 3145728}
        producer = Producer({"bootstrap.servers": proc.bootstrap})
        for topic in (plain, pinned):
            producer.produce(topic, value=b"v", timestamp=1_000)
        assert producer.flush(20) == 0
        consumer = Consumer(
            {"bootstrap.servers": proc.bootstrap, "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest"}
        )
        try:
            kinds = {}
            for topic in (plain, pinned):
                consumer.assign([TopicPartition(topic, 0, 0)])
                message = consumer.poll(20)
                assert message is not None and message.error() is None
                kinds[topic] = message.timestamp()
        finally:
            consumer.close()
        assert kinds[plain][0] == TIMESTAMP_LOG_APPEND_TIME and kinds[plain][1] != 1_000
        assert kinds[pinned] == (TIMESTAMP_CREATE_TIME, 1_000)
    finally:
        proc.stop()


#: Where kafka-configs lives: Kafka's core jar up to 4.3, the kafka-tools jar from 4.4.
_CONFIG_COMMANDS = {"kafka/admin/ConfigCommand.class": "kafka.admin.ConfigCommand",
                    "org/apache/kafka/tools/ConfigCommand.class": "org.apache.kafka.tools.ConfigCommand"}  # fmt: skip


def _config_command() -> tuple[Path, str] | None:
    """Kafka's jars as compat-tests caches them (``$ODRADEK_CACHE/kafka-<version>/libs`` and
    ``kafka-tools-<version>/libs``, newest first) that hold ConfigCommand, and its class name."""
    if shutil.which("java") is None:
        return None
    cache = Path(os.environ.get("ODRADEK_CACHE", Path.home() / ".cache" / "odradek"))
    for folder in sorted((p.parent for p in cache.glob("kafka-*/.complete")), reverse=True):
        for jar in [*folder.glob("libs/kafka_2.*.jar"), *folder.glob("libs/kafka-tools-[0-9]*.jar")]:
            with zipfile.ZipFile(jar) as archive:
                names = set(archive.namelist())
            for entry, class_name in _CONFIG_COMMANDS.items():
                if entry in names:
                    return folder / "libs", class_name
    return None


def test_kafka_configs_tool_sets_and_describes_the_cluster_default(broker: BrokerProcess) -> None:
    """Kafka's own ``kafka-configs --entity-default``: the one real client that names ``""``."""
    found = _config_command()
    if found is None:
        pytest.skip("needs java and a Kafka release's ConfigCommand cached by compat-tests")
    libs, config_command = found

    def configs(*args: str) -> subprocess.CompletedProcess[str]:
        command = ["java", "-cp", f"{libs}/*", config_command, "--bootstrap-server", broker.bootstrap]
        return subprocess.run([*command, *args], capture_output=True, text=True, timeout=120, check=False)

    default = ("--entity-type", "brokers", "--entity-default")
    assert configs("--alter", *default, "--add-config", "log.retention.ms=3600000").returncode == 0
    described = configs("--describe", *default)
    assert (
        "log.retention.ms=3600000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=3600000}"
        in (described.stdout)
    )
    refused = configs("--alter", *default, "--delete-config", "min.insync.replicas")
    assert refused.returncode != 0
    assert (
        "InvalidConfigurationException: Cluster-level min.insync.replicas cannot be removed while ELR is enabled."
        in refused.stderr + refused.stdout
    )
