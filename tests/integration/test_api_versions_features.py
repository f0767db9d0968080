"""ApiVersions v3+ carries the feature versions Apache Kafka 4.4.0 advertises on a single combined
node (compared with a raw probe of 4.4.0: the same ranges and levels, in the same order)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from inprocess import raw_broker
from rawclient import RawConnection

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.api_versions import ApiVersionsRequest

KAFKA_SUPPORTED = [
    ("group.version", 0, 1),
    ("kraft.version", 0, 1),
    ("metadata.version", 7, 33),
    ("share.version", 0, 2),
    ("streams.version", 0, 1),
    ("transaction.version", 0, 2),
    ("eligible.leader.replicas.version", 0, 1),
]
KAFKA_FINALIZED = [
    ("group.version", 1),
    ("streams.version", 1),
    ("transaction.version", 2),
    ("eligible.leader.replicas.version", 1),
    ("share.version", 2),
    ("metadata.version", 33),
]


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawConnection]:
    with raw_broker(tmp_path_factory.mktemp("api-versions-features")) as (_, connection):
        yield connection


def _ask(conn: RawConnection, version: int) -> Any:
    request = ApiVersionsRequest(client_software_name="test", client_software_version="1")
    answer = conn.request(ApiKey.API_VERSIONS, version, request)
    assert answer.error_code == ErrorCode.NONE
    return answer


@pytest.mark.parametrize("version", [4, 5])
def test_v4_and_later_list_every_supported_feature_and_the_finalized_levels(conn: RawConnection, version: int) -> None:
    answer = _ask(conn, version)
    assert [(f.name, f.min_version, f.max_version) for f in answer.supported_features] == KAFKA_SUPPORTED
    assert [(f.name, f.max_version_level) for f in answer.finalized_features] == KAFKA_FINALIZED
    assert all(f.min_version_level == f.max_version_level for f in answer.finalized_features)
    assert answer.finalized_features_epoch >= 0
    assert answer.zk_migration_ready is False


def test_v3_lists_only_supported_features_whose_minimum_is_at_least_one(conn: RawConnection) -> None:
    answer = _ask(conn, 3)
    assert [(f.name, f.min_version, f.max_version) for f in answer.supported_features] == [("metadata.version", 7, 33)]
    assert [(f.name, f.max_version_level) for f in answer.finalized_features] == KAFKA_FINALIZED
