"""Types of `odradek.wire.messages.fetch`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.primitives import Part
from odradek.wire.schema import Message, StructValue

__all__ = ["FetchRequest", "FetchResponse"]

class FetchRequestValue(StructValue):
    """FetchRequest (api key 1), versions 4-18, flexible 12+."""

    class ReplicaState(StructValue):
        replica_id: int  # v15+
        replica_epoch: int  # v15+
        def __init__(
            self, *, replica_id: int = -1, replica_epoch: int = -1, unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    class FetchTopic(StructValue):
        class FetchPartition(StructValue):
            partition: int
            current_leader_epoch: int  # v9+
            fetch_offset: int
            last_fetched_epoch: int  # v12+
            log_start_offset: int  # v5+
            partition_max_bytes: int
            replica_directory_id: bytes  # v17+, tag 0
            high_watermark: int  # v18+, tag 1
            def __init__(
                self,
                *,
                partition: int = 0,
                current_leader_epoch: int = -1,
                fetch_offset: int = 0,
                last_fetched_epoch: int = -1,
                log_start_offset: int = -1,
                partition_max_bytes: int = 0,
                replica_directory_id: bytes = ...,
                high_watermark: int = 9223372036854775807,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        topic: str  # v0-12
        topic_id: bytes  # v13+
        partitions: list[FetchPartition]
        def __init__(
            self,
            *,
            topic: str = "",
            topic_id: bytes = ...,
            partitions: list[FetchPartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    class ForgottenTopic(StructValue):
        topic: str  # v7-12
        topic_id: bytes  # v13+
        partitions: list[int]  # v7+
        def __init__(
            self,
            *,
            topic: str = "",
            topic_id: bytes = ...,
            partitions: list[int] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    cluster_id: str | None  # v12+, nullable v12+, tag 0
    replica_id: int  # v0-14
    replica_state: ReplicaState  # v15+, tag 1
    max_wait_ms: int
    min_bytes: int
    max_bytes: int
    isolation_level: int
    session_id: int  # v7+
    session_epoch: int  # v7+
    topics: list[FetchTopic]
    forgotten_topics_data: list[ForgottenTopic]  # v7+
    rack_id: str  # v11+
    def __init__(
        self,
        *,
        cluster_id: str | None = None,
        replica_id: int = -1,
        replica_state: ReplicaState = ...,
        max_wait_ms: int = 0,
        min_bytes: int = 0,
        max_bytes: int = 2147483647,
        isolation_level: int = 0,
        session_id: int = 0,
        session_epoch: int = -1,
        topics: list[FetchTopic] = ...,
        forgotten_topics_data: list[ForgottenTopic] = ...,
        rack_id: str = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _FetchRequest(Message[FetchRequestValue]):
    ReplicaState: TypeAlias = FetchRequestValue.ReplicaState
    FetchTopic: TypeAlias = FetchRequestValue.FetchTopic
    ForgottenTopic: TypeAlias = FetchRequestValue.ForgottenTopic
    def __call__(
        self,
        *,
        cluster_id: str | None = None,
        replica_id: int = -1,
        replica_state: ReplicaState = ...,
        max_wait_ms: int = 0,
        min_bytes: int = 0,
        max_bytes: int = 2147483647,
        isolation_level: int = 0,
        session_id: int = 0,
        session_epoch: int = -1,
        topics: list[FetchTopic] = ...,
        forgotten_topics_data: list[ForgottenTopic] = ...,
        rack_id: str = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> FetchRequestValue: ...

FetchRequest: _FetchRequest

class FetchResponseValue(StructValue):
    """FetchResponse (api key 1), versions 4-18, flexible 12+."""

    class FetchableTopicResponse(StructValue):
        class PartitionData(StructValue):
            class EpochEndOffset(StructValue):
                epoch: int  # v12+
                end_offset: int  # v12+
                def __init__(
                    self, *, epoch: int = -1, end_offset: int = -1, unknown_tags: dict[int, bytes] | None = None
                ) -> None: ...

            class LeaderIdAndEpoch(StructValue):
                leader_id: int  # v12+
                leader_epoch: int  # v12+
                def __init__(
                    self, *, leader_id: int = -1, leader_epoch: int = -1, unknown_tags: dict[int, bytes] | None = None
                ) -> None: ...

            class SnapshotId(StructValue):
                end_offset: int
                epoch: int
                def __init__(
                    self, *, end_offset: int = -1, epoch: int = -1, unknown_tags: dict[int, bytes] | None = None
                ) -> None: ...

            class AbortedTransaction(StructValue):
                producer_id: int
                first_offset: int
                def __init__(
                    self, *, producer_id: int = 0, first_offset: int = 0, unknown_tags: dict[int, bytes] | None = None
                ) -> None: ...

            partition_index: int
            error_code: int
            high_watermark: int
            last_stable_offset: int
            log_start_offset: int  # v5+
            diverging_epoch: EpochEndOffset  # v12+, tag 0
            current_leader: LeaderIdAndEpoch  # v12+, tag 1
            snapshot_id: SnapshotId  # v12+, tag 2
            aborted_transactions: list[AbortedTransaction] | None  # nullable v4+
            preferred_read_replica: int  # v11+
            records: Part | None  # nullable v0+
            def __init__(
                self,
                *,
                partition_index: int = 0,
                error_code: int = 0,
                high_watermark: int = 0,
                last_stable_offset: int = -1,
                log_start_offset: int = -1,
                diverging_epoch: EpochEndOffset = ...,
                current_leader: LeaderIdAndEpoch = ...,
                snapshot_id: SnapshotId = ...,
                aborted_transactions: list[AbortedTransaction] | None = ...,
                preferred_read_replica: int = -1,
                records: Part | None = None,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        topic: str  # v0-12
        topic_id: bytes  # v13+
        partitions: list[PartitionData]
        def __init__(
            self,
            *,
            topic: str = "",
            topic_id: bytes = ...,
            partitions: list[PartitionData] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    class NodeEndpoint(StructValue):
        node_id: int  # v16+
        host: str  # v16+
        port: int  # v16+
        rack: str | None  # v16+, nullable v16+
        def __init__(
            self,
            *,
            node_id: int = 0,
            host: str = "",
            port: int = 0,
            rack: str | None = None,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    error_code: int  # v7+
    session_id: int  # v7+
    responses: list[FetchableTopicResponse]
    node_endpoints: list[NodeEndpoint]  # v16+, tag 0
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        session_id: int = 0,
        responses: list[FetchableTopicResponse] = ...,
        node_endpoints: list[NodeEndpoint] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _FetchResponse(Message[FetchResponseValue]):
    FetchableTopicResponse: TypeAlias = FetchResponseValue.FetchableTopicResponse
    NodeEndpoint: TypeAlias = FetchResponseValue.NodeEndpoint
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        session_id: int = 0,
        responses: list[FetchableTopicResponse] = ...,
        node_endpoints: list[NodeEndpoint] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> FetchResponseValue: ...

FetchResponse: _FetchResponse
