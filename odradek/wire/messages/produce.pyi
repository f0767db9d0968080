"""Types of `odradek.wire.messages.produce`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.primitives import Part
from odradek.wire.schema import Message, StructValue

__all__ = ["ProduceRequest", "ProduceResponse"]

class ProduceRequestValue(StructValue):
    """ProduceRequest (api key 0), versions 0-13, flexible 9+."""

    class TopicProduceData(StructValue):
        class PartitionProduceData(StructValue):
            index: int
            records: Part | None  # nullable v0+
            def __init__(
                self, *, index: int = 0, records: Part | None = None, unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        name: str  # v0-12
        topic_id: bytes  # v13+
        partition_data: list[PartitionProduceData]
        def __init__(
            self,
            *,
            name: str = "",
            topic_id: bytes = ...,
            partition_data: list[PartitionProduceData] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    transactional_id: str | None  # v3+, nullable v3+
    acks: int
    timeout_ms: int
    topic_data: list[TopicProduceData]
    def __init__(
        self,
        *,
        transactional_id: str | None = None,
        acks: int = 0,
        timeout_ms: int = 0,
        topic_data: list[TopicProduceData] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ProduceRequest(Message[ProduceRequestValue]):
    TopicProduceData: TypeAlias = ProduceRequestValue.TopicProduceData
    def __call__(
        self,
        *,
        transactional_id: str | None = None,
        acks: int = 0,
        timeout_ms: int = 0,
        topic_data: list[TopicProduceData] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ProduceRequestValue: ...

ProduceRequest: _ProduceRequest

class ProduceResponseValue(StructValue):
    """ProduceResponse (api key 0), versions 0-13, flexible 9+."""

    class TopicProduceResponse(StructValue):
        class PartitionProduceResponse(StructValue):
            class BatchIndexAndErrorMessage(StructValue):
                batch_index: int  # v8+
                batch_index_error_message: str | None  # v8+, nullable v8+
                def __init__(
                    self,
                    *,
                    batch_index: int = 0,
                    batch_index_error_message: str | None = None,
                    unknown_tags: dict[int, bytes] | None = None,
                ) -> None: ...

            class LeaderIdAndEpoch(StructValue):
                leader_id: int  # v10+
                leader_epoch: int  # v10+
                def __init__(
                    self, *, leader_id: int = -1, leader_epoch: int = -1, unknown_tags: dict[int, bytes] | None = None
                ) -> None: ...

            index: int
            error_code: int
            base_offset: int
            log_append_time_ms: int  # v2+
            log_start_offset: int  # v5+
            record_errors: list[BatchIndexAndErrorMessage]  # v8+
            error_message: str | None  # v8+, nullable v8+
            current_leader: LeaderIdAndEpoch  # v10+, tag 0
            def __init__(
                self,
                *,
                index: int = 0,
                error_code: int = 0,
                base_offset: int = 0,
                log_append_time_ms: int = -1,
                log_start_offset: int = -1,
                record_errors: list[BatchIndexAndErrorMessage] = ...,
                error_message: str | None = None,
                current_leader: LeaderIdAndEpoch = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        name: str  # v0-12
        topic_id: bytes  # v13+
        partition_responses: list[PartitionProduceResponse]
        def __init__(
            self,
            *,
            name: str = "",
            topic_id: bytes = ...,
            partition_responses: list[PartitionProduceResponse] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    class NodeEndpoint(StructValue):
        node_id: int  # v10+
        host: str  # v10+
        port: int  # v10+
        rack: str | None  # v10+, nullable v10+
        def __init__(
            self,
            *,
            node_id: int = 0,
            host: str = "",
            port: int = 0,
            rack: str | None = None,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    responses: list[TopicProduceResponse]
    throttle_time_ms: int  # v1+
    node_endpoints: list[NodeEndpoint]  # v10+, tag 0
    def __init__(
        self,
        *,
        responses: list[TopicProduceResponse] = ...,
        throttle_time_ms: int = 0,
        node_endpoints: list[NodeEndpoint] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ProduceResponse(Message[ProduceResponseValue]):
    TopicProduceResponse: TypeAlias = ProduceResponseValue.TopicProduceResponse
    NodeEndpoint: TypeAlias = ProduceResponseValue.NodeEndpoint
    def __call__(
        self,
        *,
        responses: list[TopicProduceResponse] = ...,
        throttle_time_ms: int = 0,
        node_endpoints: list[NodeEndpoint] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ProduceResponseValue: ...

ProduceResponse: _ProduceResponse
