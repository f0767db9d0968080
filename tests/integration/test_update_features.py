"""UpdateFeatures through kafka-python's admin client: a safe downgrade and an upgrade back, the
refusals in Kafka's words, and the levels ApiVersions reports, kept across a restart."""

from __future__ import annotations

import pytest
from kafka.admin import KafkaAdminClient
from kafka.errors import InvalidUpdateVersionError

from tests.integration.conftest import BrokerProcess


def _finalized(client: KafkaAdminClient) -> dict[str, int]:
    described = client.describe_features()
    return {name: levels["finalized"][1] for name, levels in described.items() if "finalized" in levels}


def test_feature_levels_change_and_are_kept(tmp_path_factory: pytest.TempPathFactory) -> None:
    broker = BrokerProcess(tmp_path_factory.mktemp("features"))
    broker.start()
    try:
        client = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        try:
            assert _finalized(client)["transaction.version"] == 2
            assert client.update_features({"transaction.version": ("SAFE_DOWNGRADE", 1)}) == {
                "transaction.version": "OK"
            }
            with pytest.raises(InvalidUpdateVersionError, match="Refusing to perform the requested downgrade"):
                client.update_features({"metadata.version": ("SAFE_DOWNGRADE", 32)})
            assert _finalized(client)["transaction.version"] == 1
        finally:
            client.close()
        broker.restart()
        client = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        try:
            assert _finalized(client)["transaction.version"] == 1
            client.update_features({"transaction.version": ("UPGRADE", 2)})
            assert _finalized(client)["transaction.version"] == 2
        finally:
            client.close()
    finally:
        broker.stop()
