"""DescribeConfigs, AlterConfigs and IncrementalAlterConfigs through real admin clients.

Checks what the clients report (values, sources, synonyms), the errors Kafka gives, that a
change survives a restart and that it reaches the live partition logs at once.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewTopic,
)

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.configs import DescribeConfigsRequest, IncrementalAlterConfigsRequest
from tests.integration.inprocess import InProcessBroker
from tests.integration.rawclient import RawConnection


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[InProcessBroker]:
    proc = InProcessBroker(tmp_path / "data", ["log.segment.bytes=2097152"])
    proc.start()
    yield proc
    proc.stop()


def _admin(bootstrap: str) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap})


def _topic(admin: AdminClient, configs: dict[str, str] | None = None) -> str:
    name = f"t-{uuid.uuid4().hex[:10]}"
    admin.create_topics([NewTopic(name, 2, 1, config=configs or {})])[name].result(timeout=20)
    return name


def _describe(admin: AdminClient, topic: str) -> dict[str, Any]:
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    return dict(admin.describe_configs([resource])[resource].result(timeout=20))


def _error_code(future: Any) -> int:
    with pytest.raises(KafkaException) as caught:
        future.result(timeout=20)
    return int(caught.value.args[0].code())


def test_describe_topic_reports_values_sources_and_synonyms(broker: InProcessBroker) -> None:
    admin = _admin(broker.bootstrap)
    topic = _topic(admin, {"retention.ms": "1234", "cleanup.policy": "compact"})
    entries = _describe(admin, topic)
    retention = entries["retention.ms"]
    assert retention.value == "1234"
    assert retention.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert [(s.name, s.value) for s in retention.synonyms.values()] == [("retention.ms", "1234")]
    segment = entries["segment.bytes"]
    assert (segment.value, segment.source) == ("2097152", ConfigSource.STATIC_BROKER_CONFIG.value)
    assert "log.segment.bytes" in segment.synonyms, "synonyms are keyed by name in this client"
    assert entries["retention.bytes"].value == "-1"
    assert entries["retention.bytes"].is_default
    assert not entries["retention.bytes"].is_read_only
    assert len(entries) >= 30


def test_describe_errors_and_broker_resource(broker: InProcessBroker) -> None:
    conn = RawConnection(broker.bootstrap)
    try:
        request = DescribeConfigsRequest(
            resources=[
                DescribeConfigsRequest.DescribeConfigsResource(
                    resource_type=2, resource_name="missing-topic", configuration_keys=None
                ),
                DescribeConfigsRequest.DescribeConfigsResource(
                    resource_type=2, resource_name="bad/name", configuration_keys=None
                ),
                DescribeConfigsRequest.DescribeConfigsResource(
                    resource_type=4, resource_name="1", configuration_keys=["log.segment.bytes", "nope"]
                ),
                DescribeConfigsRequest.DescribeConfigsResource(
                    resource_type=4, resource_name="7", configuration_keys=None
                ),
                DescribeConfigsRequest.DescribeConfigsResource(
                    resource_type=4, resource_name="", configuration_keys=None
                ),
            ],
            include_synonyms=True,
            include_documentation=True,
        )
        response = conn.request(ApiKey.DESCRIBE_CONFIGS, 4, request)
    finally:
        conn.close()
    missing, bad, own, other, defaults = response.results
    assert (missing.error_code, missing.configs) == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, [])
    assert bad.error_code == ErrorCode.INVALID_TOPIC_EXCEPTION
    assert own.error_code == ErrorCode.NONE
    assert [(c.name, c.value, c.config_source, c.documentation) for c in own.configs] == [
        ("log.segment.bytes", "2097152", 4, None)
    ]
    assert [(s.name, s.value, s.source) for s in own.configs[0].synonyms] == [
        ("log.segment.bytes", "2097152", 4),
        ("log.segment.bytes", "1073741824", 5),
    ]
    assert other.error_code == ErrorCode.INVALID_REQUEST
    # A freshly formatted Kafka 4.x cluster holds one cluster-wide dynamic default.
    assert defaults.error_code == ErrorCode.NONE
    assert [(c.name, c.value, c.config_source, [(s.name, s.source) for s in c.synonyms]) for c in defaults.configs] == [
        ("min.insync.replicas", "1", 3, [("min.insync.replicas", 3)])
    ]


@pytest.mark.filterwarnings("ignore:alter_configs has been deprecated:DeprecationWarning")
def test_alter_configs_replaces_the_overrides_and_applies_them(broker: InProcessBroker, tmp_path: Path) -> None:
    admin = _admin(broker.bootstrap)
    topic = _topic(admin, {"retention.ms": "1234", "cleanup.policy": "compact"})
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, set_config={"retention.bytes": "5000000"})
    admin.alter_configs([resource])[resource].result(timeout=20)
    entries = _describe(admin, topic)
    assert entries["retention.bytes"].value == "5000000"
    assert entries["retention.ms"].value == "604800000"
    assert entries["cleanup.policy"].value == "delete"
    for partition in (0, 1):
        log = broker.call(lambda p=partition: broker.broker.logs.get(topic, p))
        assert log is not None
        assert (log.config.retention_bytes, log.config.retention_ms) == (5000000, 604800000)
        assert log.config.cleanup_policy == frozenset({"delete"})

    validate_only = ConfigResource(ConfigResource.Type.TOPIC, topic, set_config={"retention.bytes": "1"})
    admin.alter_configs([validate_only], validate_only=True)[validate_only].result(timeout=20)
    assert _describe(admin, topic)["retention.bytes"].value == "5000000"

    bad = ConfigResource(ConfigResource.Type.TOPIC, topic, set_config={"segment.bytes": "12"})
    assert _error_code(admin.alter_configs([bad])[bad]) == KafkaError.INVALID_CONFIG
    unknown = ConfigResource(ConfigResource.Type.TOPIC, topic, set_config={"no.such": "1"})
    assert _error_code(admin.alter_configs([unknown])[unknown]) == KafkaError.INVALID_CONFIG
    missing = ConfigResource(ConfigResource.Type.TOPIC, "missing-topic", set_config={"retention.ms": "1"})
    assert _error_code(admin.alter_configs([missing])[missing]) == KafkaError.UNKNOWN_TOPIC_OR_PART


def test_incremental_alter_configs_operations(broker: InProcessBroker) -> None:
    admin = _admin(broker.bootstrap)
    topic = _topic(admin, {"retention.ms": "1234"})

    def alter(*entries: ConfigEntry, validate_only: bool = False) -> Any:
        resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=list(entries))
        return admin.incremental_alter_configs([resource], validate_only=validate_only)[resource]

    alter(
        ConfigEntry("retention.bytes", "777", incremental_operation=AlterConfigOpType.SET),
        ConfigEntry("retention.ms", None, incremental_operation=AlterConfigOpType.DELETE),
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND),
    ).result(timeout=20)
    entries = _describe(admin, topic)
    assert entries["retention.bytes"].value == "777"
    assert entries["retention.ms"].value == "604800000"
    assert entries["retention.ms"].source == ConfigSource.DEFAULT_CONFIG.value
    assert entries["cleanup.policy"].value == "delete,compact"
    alter(ConfigEntry("cleanup.policy", "delete", incremental_operation=AlterConfigOpType.SUBTRACT)).result(timeout=20)
    assert _describe(admin, topic)["cleanup.policy"].value == "compact"
    log = broker.call(lambda: broker.broker.logs.get(topic, 0))
    assert log is not None and log.config.cleanup_policy == frozenset({"compact"})
    assert log.config.retention_bytes == 777

    alter(ConfigEntry("retention.bytes", "1", incremental_operation=AlterConfigOpType.SET), validate_only=True).result(
        timeout=20
    )
    assert _describe(admin, topic)["retention.bytes"].value == "777"
    not_a_list = alter(ConfigEntry("retention.ms", "5", incremental_operation=AlterConfigOpType.APPEND))
    assert _error_code(not_a_list) == KafkaError.INVALID_CONFIG
    bad_value = alter(ConfigEntry("retention.ms", "soon", incremental_operation=AlterConfigOpType.SET))
    assert _error_code(bad_value) == KafkaError.INVALID_CONFIG


def test_incremental_alter_rejects_unknown_operations_and_duplicate_keys(broker: InProcessBroker) -> None:
    topic = _topic(_admin(broker.bootstrap))
    resource = IncrementalAlterConfigsRequest.AlterConfigsResource
    alterable = resource.AlterableConfig
    request = IncrementalAlterConfigsRequest(
        resources=[
            resource(
                resource_type=2,
                resource_name=topic,
                configs=[alterable(name="retention.ms", config_operation=9, value="1")],
            ),
            resource(
                resource_type=2,
                resource_name=topic,
                configs=[
                    alterable(name="retention.ms", config_operation=0, value="1"),
                    alterable(name="retention.ms", config_operation=1, value=None),
                ],
            ),
            resource(
                resource_type=4,
                resource_name="1",
                configs=[
                    alterable(name="log.retention.ms", config_operation=0, value="1"),
                    alterable(name="log.segment.bytes", config_operation=9, value="1"),
                ],
            ),
        ],
        validate_only=False,
    )
    conn = RawConnection(broker.bootstrap)
    try:
        response = conn.request(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, request)
    finally:
        conn.close()
    assert [r.error_code for r in response.responses] == [ErrorCode.INVALID_REQUEST] * 3
    assert response.responses[2].error_message == "Unknown operations type 9"


def test_altered_configs_survive_a_restart(tmp_path: Path) -> None:
    first = InProcessBroker(tmp_path / "data")
    first.start()
    try:
        admin = _admin(first.bootstrap)
        topic = _topic(admin)
        resource = ConfigResource(
            ConfigResource.Type.TOPIC,
            topic,
            incremental_configs=[ConfigEntry("retention.ms", "99000", incremental_operation=AlterConfigOpType.SET)],
        )
        admin.incremental_alter_configs([resource])[resource].result(timeout=20)
    finally:
        first.stop()
    second = InProcessBroker(tmp_path / "data")
    second.start()
    try:
        assert _describe(_admin(second.bootstrap), topic)["retention.ms"].value == "99000"
        log = second.call(lambda: second.broker.logs.get(topic, 0))
        assert log is not None and log.config.retention_ms == 99000
    finally:
        second.stop()


def test_describe_broker_reports_its_start_up_security_settings(tmp_path: Path) -> None:
    """Security settings from the command line read back as STATIC_BROKER_CONFIG, as Kafka answers
    them; the authorizer's own super.users comes back hidden and sensitive."""
    settings = ["sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256", "ssl.keystore.type=PEM", "super.users=User:admin"]
    proc = InProcessBroker(tmp_path / "data", settings)
    proc.start()
    try:
        resource = ConfigResource(ConfigResource.Type.BROKER, "1")
        admin = _admin(proc.bootstrap)
        entries = dict(admin.describe_configs([resource])[resource].result(timeout=20))
    finally:
        proc.stop()
    mechanisms = entries["sasl.enabled.mechanisms"]
    assert (mechanisms.value, mechanisms.source) == ("PLAIN,SCRAM-SHA-256", ConfigSource.STATIC_BROKER_CONFIG.value)
    assert (entries["ssl.keystore.type"].value, entries["ssl.keystore.type"].source) == (
        "PEM",
        ConfigSource.STATIC_BROKER_CONFIG.value,
    )
    users = entries["super.users"]
    assert (users.value, users.is_sensitive, users.source) == (None, True, ConfigSource.STATIC_BROKER_CONFIG.value)
