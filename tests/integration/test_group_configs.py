"""GROUP config resources through kafka-python's admin client: set, describe, list, bounds, and
persistence across a restart."""

from __future__ import annotations

import pytest
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient

from tests.integration.conftest import BrokerProcess


def _described(client: KafkaAdminClient, group: str) -> dict[str, tuple[str, str]]:
    resource = ConfigResource(ConfigResourceType.GROUP, group)
    answer = client.describe_configs([resource], config_filter="all")
    return {name: (c["value"], c["config_source"]) for name, c in answer["group"][group].items()}


def test_group_configs_are_set_described_listed_and_kept(
    tmp_path_factory: pytest.TempPathFactory, topic_name: str
) -> None:
    broker = BrokerProcess(tmp_path_factory.mktemp("group-configs"))
    broker.start()
    group = f"g-{topic_name}"
    try:
        client = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        try:
            assert _described(client, group)["consumer.session.timeout.ms"] == ("45000", "DEFAULT_CONFIG")
            changes = {"consumer.session.timeout.ms": "50000", "share.auto.offset.reset": "earliest"}
            client.alter_configs([ConfigResource(ConfigResourceType.GROUP, group, configs=changes)], incremental=True)
            bad = {"consumer.session.timeout.ms": "70000"}
            refused = client.alter_configs(
                [ConfigResource(ConfigResourceType.GROUP, group, configs=bad)], incremental=True
            )
            assert refused == {
                "group": {
                    group: "[Error 40] InvalidConfigurationError: consumer.session.timeout.ms must be in the range "
                    "45000 to 60000 inclusive."
                }
            }
            assert client.list_config_resources(["GROUP"]) == {"group": [group]}
        finally:
            client.close()
        broker.restart()
        client = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        try:
            described = _described(client, group)
        finally:
            client.close()
        assert described["consumer.session.timeout.ms"] == ("50000", "DYNAMIC_GROUP_CONFIG")
        assert described["share.auto.offset.reset"] == ("earliest", "DYNAMIC_GROUP_CONFIG")
        assert described["consumer.heartbeat.interval.ms"] == ("5000", "DEFAULT_CONFIG")
    finally:
        broker.stop()
