"""Incremental fetch sessions (KIP-227) over the wire: create, incremental, errors, close."""

from __future__ import annotations

from typing import Any

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.fetch import FetchRequest
from odradek.wire.messages.produce import ProduceRequest
from odradek.wire.messages.topics import CreateTopicsRequest
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record
from tests.integration.conftest import BrokerProcess
from tests.integration.rawclient import RawConnection

VERSION = 12


def _fetch(conn: RawConnection, topic: str, session_id: int, epoch: int, offsets: dict[int, int]) -> Any:
    request = FetchRequest(
        max_wait_ms=0,
        min_bytes=0,
        session_id=session_id,
        session_epoch=epoch,
        topics=[
            FetchRequest.FetchTopic(
                topic=topic,
                partitions=[
                    FetchRequest.FetchTopic.FetchPartition(partition=p, fetch_offset=o, partition_max_bytes=1 << 20)
                    for p, o in offsets.items()
                ],
            )
        ]
        if offsets
        else [],
    )
    return conn.request(ApiKey.FETCH, VERSION, request)


def _produce(conn: RawConnection, topic: str, partition: int) -> None:
    batch = build_batch([Record(offset_delta=0, timestamp_delta=0, key=b"k", value=b"v")], base_timestamp=1)
    conn.request(
        ApiKey.PRODUCE,
        9,
        ProduceRequest(
            acks=1,
            timeout_ms=1000,
            topic_data=[
                ProduceRequest.TopicProduceData(
                    name=topic,
                    partition_data=[
                        ProduceRequest.TopicProduceData.PartitionProduceData(index=partition, records=batch)
                    ],
                )
            ],
        ),
    )


def _partitions(response: Any) -> dict[int, Any]:
    return {p.partition_index: p for t in response.responses for p in t.partitions}


def test_incremental_fetch_returns_only_what_changed(broker: BrokerProcess, topic_name: str) -> None:
    conn = RawConnection(broker.bootstrap)
    conn.request(
        ApiKey.CREATE_TOPICS,
        7,
        CreateTopicsRequest(
            topics=[CreateTopicsRequest.CreatableTopic(name=topic_name, num_partitions=2, replication_factor=1)],
            timeout_ms=5000,
        ),
    )
    full = _fetch(conn, topic_name, 0, 0, {0: 0, 1: 0})
    assert full.error_code == ErrorCode.NONE and full.session_id > 0
    assert sorted(_partitions(full)) == [0, 1]
    session = full.session_id

    quiet = _fetch(conn, topic_name, session, 1, {})
    assert quiet.error_code == ErrorCode.NONE and _partitions(quiet) == {}

    _produce(conn, topic_name, 1)
    changed = _fetch(conn, topic_name, session, 2, {})
    assert list(_partitions(changed)) == [1]
    assert _partitions(changed)[1].high_watermark == 1
    assert len(_partitions(changed)[1].records) > 0

    stale = _fetch(conn, topic_name, session, 2, {})
    assert stale.error_code == ErrorCode.INVALID_FETCH_SESSION_EPOCH

    unknown = _fetch(conn, topic_name, session + 1, 1, {})
    assert unknown.error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND

    closing = _fetch(conn, topic_name, session, -1, {0: 0})
    assert closing.error_code == ErrorCode.NONE and closing.session_id == 0
    assert _fetch(conn, topic_name, session, 3, {}).error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND
    conn.close()


def test_a_full_fetch_naming_a_session_replaces_it(broker: BrokerProcess, topic_name: str) -> None:
    """Epoch 0 with a session id: Kafka 4.3.1 closes that session and opens a new one (probed)."""
    conn = RawConnection(broker.bootstrap)
    topic = CreateTopicsRequest.CreatableTopic(name=topic_name, num_partitions=1, replication_factor=1)
    conn.request(ApiKey.CREATE_TOPICS, 7, CreateTopicsRequest(topics=[topic], timeout_ms=5000))
    first = _fetch(conn, topic_name, 0, 0, {0: 0}).session_id
    again = _fetch(conn, topic_name, first, 0, {0: 0})
    assert again.error_code == ErrorCode.NONE and again.session_id not in (0, first)
    assert _fetch(conn, topic_name, first, 1, {}).error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND
    assert _fetch(conn, topic_name, again.session_id, 1, {}).error_code == ErrorCode.NONE
    conn.close()
