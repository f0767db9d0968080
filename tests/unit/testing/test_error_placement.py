"""Where an injected error goes, read from the message schemas (`odradek.testing.shapes`)."""

from __future__ import annotations

from odradek.testing import shapes
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.metadata import MetadataRequest, MetadataResponse
from odradek.wire.messages.offsets import OffsetCommitResponse, OffsetFetchRequest
from odradek.wire.messages.produce import ProduceRequest, ProduceResponse

NLF = ErrorCode.NOT_LEADER_OR_FOLLOWER


def _no_ids(_: bytes) -> str | None:
    return None


def _produce(version: int) -> object:
    Topic = ProduceRequest.TopicProduceData
    parts = [Topic.PartitionProduceData(index=i, records=b"") for i in (0, 1, 2)]
    return ProduceRequest(acks=1, timeout_ms=1000, topic_data=[Topic(name="orders", partition_data=parts)])


def test_the_topic_level_of_produce_fetch_and_offset_commit_is_found_from_the_schema() -> None:
    level = shapes.topic_level(ProduceRequest, 9)
    assert level is not None
    assert (level.field, level.name_field, level.partitions_field, level.partition_key) == (
        "topic_data",
        "name",
        "partition_data",
        "index",
    )
    v13 = shapes.topic_level(ProduceRequest, 13)
    assert v13 is not None and v13.name_field is None and v13.id_field == "topic_id"
    commit = shapes.topic_level(OffsetCommitResponse, 8)
    assert commit is not None and commit.partition_key == "partition_index"
    metadata = shapes.topic_level(MetadataRequest, 12)
    assert metadata is not None and metadata.partitions_field is None
    assert shapes.topic_level(OffsetFetchRequest, 8) is None  # topics sit under groups there


def test_pairs_lists_what_a_request_names() -> None:
    request = _produce(9)
    assert shapes.pairs(ProduceRequest, 9, request, _no_ids) == [("orders", 0), ("orders", 1), ("orders", 2)]  # type: ignore[arg-type]


def test_a_refused_partition_leaves_the_request_and_comes_back_as_an_error_entry() -> None:
    request = _produce(9)
    kept, taken = shapes.without(ProduceRequest, 9, request, lambda pair: pair == ("orders", 1), _no_ids)  # type: ignore[arg-type]
    assert shapes.pairs(ProduceRequest, 9, kept, _no_ids) == [("orders", 0), ("orders", 2)]
    assert [(topic.name, indexes) for topic, indexes in taken] == [("orders", [1])]
    Topic = ProduceResponse.TopicProduceResponse
    ok = [Topic.PartitionProduceResponse(index=i, base_offset=5) for i in (0, 2)]
    response = ProduceResponse(responses=[Topic(name="orders", partition_responses=ok)])
    assert shapes.add_errors(ProduceResponse, 9, response, [("orders", None, [1])], NLF)
    entries = {p.index: p for p in response.responses[0].partition_responses}
    assert entries[1].error_code == NLF and entries[1].base_offset == -1 and entries[1].log_start_offset == -1
    assert entries[0].error_code == 0 and entries[0].base_offset == 5


def test_a_read_answer_is_overwritten_in_place_and_topic_errors_drop_their_partitions() -> None:
    Topic = MetadataResponse.MetadataResponseTopic
    partitions = [Topic.MetadataResponsePartition(partition_index=0, leader_id=1, leader_epoch=3)]
    response = MetadataResponse(
        topics=[Topic(name="a", partitions=partitions), Topic(name="b", partitions=list(partitions))]
    )
    changed = shapes.overwrite_errors(
        MetadataResponse, 12, response, lambda pair: pair[0] == "a", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, _no_ids
    )
    assert changed == 1
    a, b = response.topics
    assert a.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION and a.partitions == []
    assert b.error_code == 0 and b.partitions[0].leader_id == 1


def test_error_names_and_plain_values_for_the_journal() -> None:
    Topic = OffsetCommitResponse.OffsetCommitResponseTopic
    response = OffsetCommitResponse(
        topics=[
            Topic(
                name="t",
                partitions=[
                    Topic.OffsetCommitResponsePartition(partition_index=0, error_code=NLF),
                    Topic.OffsetCommitResponsePartition(partition_index=1, error_code=NLF),
                ],
            )
        ]
    )
    assert shapes.error_names(response, 8) == ["NOT_LEADER_OR_FOLLOWER"]
    request = _produce(9)
    plain = shapes.plain(request, 9)  # type: ignore[arg-type]
    assert plain["topic_data"][0]["partition_data"][0] == {"index": 0, "records": {"record_bytes": 0}}
