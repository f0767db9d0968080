"""Every served version of the data-path APIs gets an answer a client can decode.

A response field that a version cannot carry must never reach the encoder: this sweeps each
version the broker advertises for the APIs of the data path with a well-formed request.
"""

from __future__ import annotations

from typing import Any

import pytest

from odradek.handlers import load_handlers
from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.fetch import FetchRequest
from odradek.wire.messages.list_offsets import ListOffsetsRequest
from odradek.wire.messages.metadata import MetadataRequest
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.messages.topics import CreateTopicsRequest
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from tests.integration.conftest import BrokerProcess
from tests.integration.rawclient import RawConnection

SERVED = {key: (low, high) for key, low, high in load_handlers().supported()}


def _versions(key: int) -> list[int]:
    low, high = SERVED[key]
    return list(range(low, high + 1))


@pytest.fixture(scope="module")
def topic(broker: BrokerProcess) -> str:
    conn = RawConnection(broker.bootstrap)
    name = "version-sweep"
    conn.request(
        ApiKey.CREATE_TOPICS,
        7,
        CreateTopicsRequest(
            topics=[CreateTopicsRequest.CreatableTopic(name=name, num_partitions=1, replication_factor=1)],
            timeout_ms=5000,
        ),
    )
    conn.close()
    return name


def _produce_request(topic: str, version: int) -> Any:
    batch = build_batch([Record(offset_delta=0, timestamp_delta=0, key=b"k", value=b"v")], base_timestamp=1)
    return ProduceRequest(
        acks=1,
        timeout_ms=1000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic if version < 13 else "",
                topic_id=b"\x00" * 16,
                partition_data=[ProduceRequest.TopicProduceData.PartitionProduceData(index=0, records=batch)],
            )
        ],
    )


@pytest.mark.parametrize("version", _versions(ApiKey.LIST_OFFSETS))
def test_list_offsets_every_version(broker: BrokerProcess, topic: str, version: int) -> None:
    conn = RawConnection(broker.bootstrap)
    request = ListOffsetsRequest(
        replica_id=-1,
        topics=[
            ListOffsetsRequest.ListOffsetsTopic(
                name=topic,
                partitions=[ListOffsetsRequest.ListOffsetsTopic.ListOffsetsPartition(partition_index=0, timestamp=-2)],
            )
        ],
    )
    response = conn.request(ApiKey.LIST_OFFSETS, version, request)
    assert response.topics[0].partitions[0].error_code == ErrorCode.NONE
    conn.close()


@pytest.mark.parametrize("version", _versions(ApiKey.METADATA))
def test_metadata_every_version(broker: BrokerProcess, topic: str, version: int) -> None:
    conn = RawConnection(broker.bootstrap)
    response = conn.request(
        ApiKey.METADATA, version, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)])
    )
    assert [t.error_code for t in response.topics] == [ErrorCode.NONE]
    conn.close()


@pytest.mark.parametrize("version", [v for v in _versions(ApiKey.PRODUCE) if v < 13])
def test_produce_every_version(broker: BrokerProcess, topic: str, version: int) -> None:
    conn = RawConnection(broker.bootstrap)
    response = conn.request(ApiKey.PRODUCE, version, _produce_request(topic, version))
    expected = ErrorCode.UNSUPPORTED_VERSION if version < 3 else ErrorCode.NONE
    assert response.responses[0].partition_responses[0].error_code == expected
    conn.close()


@pytest.mark.parametrize("version", [v for v in _versions(ApiKey.FETCH) if v < 13])
def test_fetch_every_version(broker: BrokerProcess, topic: str, version: int) -> None:
    conn = RawConnection(broker.bootstrap)
    request = FetchRequest(
        max_wait_ms=0,
        min_bytes=0,
        topics=[
            FetchRequest.FetchTopic(
                topic=topic,
                partitions=[
                    FetchRequest.FetchTopic.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 20)
                ],
            )
        ],
    )
    response = conn.request(ApiKey.FETCH, version, request)
    partition = response.responses[0].partitions[0]
    assert partition.error_code == ErrorCode.NONE
    assert partition.records is not None
    conn.close()
