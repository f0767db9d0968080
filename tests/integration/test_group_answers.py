"""Group answers whose exact shape was checked against Apache Kafka 4.3.1 with the raw probes
(compat-tests/probes): the order of OffsetDelete's entries and JoinGroup's null protocol name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from inprocess import raw_broker
from rawclient import RawConnection

from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.groups import JoinGroupRequest
from odradek.wire.messages.offsets import OffsetCommitRequest, OffsetDeleteRequest

_CommitTopic = OffsetCommitRequest.OffsetCommitRequestTopic
_DeleteTopic = OffsetDeleteRequest.OffsetDeleteRequestTopic


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[RawConnection]:
    with raw_broker(tmp_path / "data") as (_, connection):
        yield connection


def _commit(conn: RawConnection, group: str, topic: str, partitions: list[int]) -> None:
    parts = [
        _CommitTopic.OffsetCommitRequestPartition(partition_index=p, committed_offset=1, committed_metadata=None)
        for p in partitions
    ]
    request = OffsetCommitRequest(
        group_id=group,
        generation_id_or_member_epoch=-1,
        member_id="",
        topics=[_CommitTopic(name=topic, partitions=parts)],
    )
    answer = conn.request(ApiKey.OFFSET_COMMIT, 9, request)
    assert all(p.error_code == ErrorCode.NONE for p in answer.topics[0].partitions)


def _delete_request(group: str, topics: list[tuple[str, list[int]]]) -> OffsetDeleteRequest:
    Partition = _DeleteTopic.OffsetDeleteRequestPartition
    return OffsetDeleteRequest(
        group_id=group,
        topics=[
            _DeleteTopic(name=name, partitions=[Partition(partition_index=p) for p in parts]) for name, parts in topics
        ],
    )


def test_offset_delete_answers_refused_partitions_first_like_kafka(conn: RawConnection) -> None:
    conn.create_topic("a", 2)
    conn.create_topic("b", 1)
    _commit(conn, "g", "a", [0, 1])
    _commit(conn, "g", "b", [0])
    request = _delete_request("g", [("b", [0]), ("a", [0, 7, 1]), ("missing", [0])])
    answer = conn.request(ApiKey.OFFSET_DELETE, 0, request)
    got = [(t.name, [(p.partition_index, p.error_code) for p in t.partitions]) for t in answer.topics]
    unknown = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert got == [("a", [(7, unknown), (0, 0), (1, 0)]), ("missing", [(0, unknown)]), ("b", [(0, 0)])]


@pytest.mark.parametrize(("version", "protocol_name"), [(6, ""), (7, None), (9, None)])
def test_join_with_an_empty_group_id_names_no_protocol(
    conn: RawConnection, version: int, protocol_name: str | None
) -> None:
    request = JoinGroupRequest(
        group_id="",
        session_timeout_ms=10_000,
        rebalance_timeout_ms=10_000,
        member_id="",
        protocol_type="consumer",
        protocols=[],
    )
    answer = conn.request(ApiKey.JOIN_GROUP, version, request)
    assert (answer.error_code, answer.protocol_name) == (ErrorCode.INVALID_GROUP_ID, protocol_name)
