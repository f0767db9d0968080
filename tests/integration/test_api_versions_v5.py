"""ApiVersions v5 (KIP-1242) answered as Apache Kafka 4.4.0 answers it (compared with the raw
probes in compat-tests/probes/versions.py, sequence versions.new_in_44)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from inprocess import raw_broker
from rawclient import RawConnection

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.api_versions import ApiVersionsRequest
from odradek.wire.messages.metadata import MetadataRequest


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawConnection]:
    with raw_broker(tmp_path_factory.mktemp("api-versions-v5")) as (_, connection):
        yield connection


def _cluster(conn: RawConnection) -> tuple[str, int]:
    answer = conn.request(ApiKey.METADATA, 12, MetadataRequest(topics=[], allow_auto_topic_creation=False))
    return answer.cluster_id, answer.brokers[0].node_id


def _ask(conn: RawConnection, cluster_id: str | None, node_id: int) -> Any:
    request = ApiVersionsRequest(
        client_software_name="test", client_software_version="1", cluster_id=cluster_id, node_id=node_id
    )
    return conn.request(ApiKey.API_VERSIONS, 5, request)


def test_v5_is_advertised_and_answers_without_expectations(conn: RawConnection) -> None:
    answer = _ask(conn, None, -1)
    assert answer.error_code == ErrorCode.NONE
    served = {entry.api_key: (entry.min_version, entry.max_version) for entry in answer.api_keys}
    assert served[ApiKey.API_VERSIONS] == (0, 5)


def test_v5_naming_this_cluster_and_node_is_answered(conn: RawConnection) -> None:
    cluster_id, node_id = _cluster(conn)
    answer = _ask(conn, cluster_id, node_id)
    assert answer.error_code == ErrorCode.NONE
    assert answer.api_keys


@pytest.mark.parametrize("wrong", ["cluster", "node"])
def test_v5_naming_another_cluster_or_node_requires_a_rebootstrap(conn: RawConnection, wrong: str) -> None:
    cluster_id, node_id = _cluster(conn)
    if wrong == "cluster":
        cluster_id = "AAAAAAAAAAAAAAAAAAAAAA"
    else:
        node_id += 7
    answer = _ask(conn, cluster_id, node_id)
    assert (answer.error_code, list(answer.api_keys)) == (ErrorCode.REBOOTSTRAP_REQUIRED, [])


@pytest.mark.parametrize("given", ["cluster", "node"])
def test_v5_naming_only_one_of_the_two_is_invalid(conn: RawConnection, given: str) -> None:
    cluster_id, node_id = _cluster(conn)
    answer = _ask(conn, cluster_id, -1) if given == "cluster" else _ask(conn, None, node_id)
    assert (answer.error_code, list(answer.api_keys)) == (ErrorCode.INVALID_REQUEST, [])
