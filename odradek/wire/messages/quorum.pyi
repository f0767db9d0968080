"""Types of `odradek.wire.messages.quorum`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = [
    "AddRaftVoterRequest",
    "AddRaftVoterResponse",
    "DescribeQuorumRequest",
    "DescribeQuorumResponse",
    "RemoveRaftVoterRequest",
    "RemoveRaftVoterResponse",
    "UnregisterBrokerRequest",
    "UnregisterBrokerResponse",
    "UnregisterControllerRequest",
    "UnregisterControllerResponse",
]

class AddRaftVoterRequestValue(StructValue):
    """AddRaftVoterRequest (api key 80), versions 0-1, flexible 0+."""

    class Listener(StructValue):
        name: str
        host: str
        port: int
        def __init__(
            self, *, name: str = "", host: str = "", port: int = 0, unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    cluster_id: str | None  # nullable v0+
    timeout_ms: int
    voter_id: int
    voter_directory_id: bytes
    listeners: list[Listener]
    ack_when_committed: bool  # v1+
    def __init__(
        self,
        *,
        cluster_id: str | None = "",
        timeout_ms: int = 0,
        voter_id: int = 0,
        voter_directory_id: bytes = ...,
        listeners: list[Listener] = ...,
        ack_when_committed: bool = True,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AddRaftVoterRequest(Message[AddRaftVoterRequestValue]):
    Listener: TypeAlias = AddRaftVoterRequestValue.Listener
    def __call__(
        self,
        *,
        cluster_id: str | None = "",
        timeout_ms: int = 0,
        voter_id: int = 0,
        voter_directory_id: bytes = ...,
        listeners: list[Listener] = ...,
        ack_when_committed: bool = True,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AddRaftVoterRequestValue: ...

AddRaftVoterRequest: _AddRaftVoterRequest

class AddRaftVoterResponseValue(StructValue):
    """AddRaftVoterResponse (api key 80), versions 0-1, flexible 0+."""

    throttle_time_ms: int
    error_code: int
    error_message: str | None  # nullable v0+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AddRaftVoterResponse(Message[AddRaftVoterResponseValue]):
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AddRaftVoterResponseValue: ...

AddRaftVoterResponse: _AddRaftVoterResponse

class DescribeQuorumRequestValue(StructValue):
    """DescribeQuorumRequest (api key 55), versions 0-2, flexible 0+."""

    class TopicData(StructValue):
        class PartitionData(StructValue):
            partition_index: int
            def __init__(self, *, partition_index: int = 0, unknown_tags: dict[int, bytes] | None = None) -> None: ...

        topic_name: str
        partitions: list[PartitionData]
        def __init__(
            self,
            *,
            topic_name: str = "",
            partitions: list[PartitionData] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    topics: list[TopicData]
    def __init__(self, *, topics: list[TopicData] = ..., unknown_tags: dict[int, bytes] | None = None) -> None: ...

class _DescribeQuorumRequest(Message[DescribeQuorumRequestValue]):
    TopicData: TypeAlias = DescribeQuorumRequestValue.TopicData
    def __call__(
        self, *, topics: list[TopicData] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> DescribeQuorumRequestValue: ...

DescribeQuorumRequest: _DescribeQuorumRequest

class DescribeQuorumResponseValue(StructValue):
    """DescribeQuorumResponse (api key 55), versions 0-2, flexible 0+."""

    class TopicData(StructValue):
        class PartitionData(StructValue):
            class ReplicaState(StructValue):
                replica_id: int
                replica_directory_id: bytes  # v2+
                log_end_offset: int
                last_fetch_timestamp: int  # v1+
                last_caught_up_timestamp: int  # v1+
                def __init__(
                    self,
                    *,
                    replica_id: int = 0,
                    replica_directory_id: bytes = ...,
                    log_end_offset: int = 0,
                    last_fetch_timestamp: int = -1,
                    last_caught_up_timestamp: int = -1,
                    unknown_tags: dict[int, bytes] | None = None,
                ) -> None: ...

            partition_index: int
            error_code: int
            error_message: str | None  # v2+, nullable v2+
            leader_id: int
            leader_epoch: int
            high_watermark: int
            current_voters: list[ReplicaState]
            observers: list[ReplicaState]
            def __init__(
                self,
                *,
                partition_index: int = 0,
                error_code: int = 0,
                error_message: str | None = "",
                leader_id: int = 0,
                leader_epoch: int = 0,
                high_watermark: int = 0,
                current_voters: list[ReplicaState] = ...,
                observers: list[ReplicaState] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        topic_name: str
        partitions: list[PartitionData]
        def __init__(
            self,
            *,
            topic_name: str = "",
            partitions: list[PartitionData] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    class Node(StructValue):
        class Listener(StructValue):
            name: str  # v2+
            host: str  # v2+
            port: int  # v2+
            def __init__(
                self, *, name: str = "", host: str = "", port: int = 0, unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        node_id: int  # v2+
        listeners: list[Listener]  # v2+
        def __init__(
            self, *, node_id: int = 0, listeners: list[Listener] = ..., unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    error_code: int
    error_message: str | None  # v2+, nullable v2+
    topics: list[TopicData]
    nodes: list[Node]  # v2+
    def __init__(
        self,
        *,
        error_code: int = 0,
        error_message: str | None = "",
        topics: list[TopicData] = ...,
        nodes: list[Node] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeQuorumResponse(Message[DescribeQuorumResponseValue]):
    TopicData: TypeAlias = DescribeQuorumResponseValue.TopicData
    Node: TypeAlias = DescribeQuorumResponseValue.Node
    def __call__(
        self,
        *,
        error_code: int = 0,
        error_message: str | None = "",
        topics: list[TopicData] = ...,
        nodes: list[Node] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeQuorumResponseValue: ...

DescribeQuorumResponse: _DescribeQuorumResponse

class RemoveRaftVoterRequestValue(StructValue):
    """RemoveRaftVoterRequest (api key 81), versions 0, flexible 0+."""

    cluster_id: str | None  # nullable v0+
    voter_id: int
    voter_directory_id: bytes
    def __init__(
        self,
        *,
        cluster_id: str | None = "",
        voter_id: int = 0,
        voter_directory_id: bytes = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _RemoveRaftVoterRequest(Message[RemoveRaftVoterRequestValue]):
    def __call__(
        self,
        *,
        cluster_id: str | None = "",
        voter_id: int = 0,
        voter_directory_id: bytes = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> RemoveRaftVoterRequestValue: ...

RemoveRaftVoterRequest: _RemoveRaftVoterRequest

class RemoveRaftVoterResponseValue(StructValue):
    """RemoveRaftVoterResponse (api key 81), versions 0, flexible 0+."""

    throttle_time_ms: int
    error_code: int
    error_message: str | None  # nullable v0+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _RemoveRaftVoterResponse(Message[RemoveRaftVoterResponseValue]):
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> RemoveRaftVoterResponseValue: ...

RemoveRaftVoterResponse: _RemoveRaftVoterResponse

class UnregisterBrokerRequestValue(StructValue):
    """UnregisterBrokerRequest (api key 64), versions 0, flexible 0+."""

    broker_id: int
    def __init__(self, *, broker_id: int = 0, unknown_tags: dict[int, bytes] | None = None) -> None: ...

class _UnregisterBrokerRequest(Message[UnregisterBrokerRequestValue]):
    def __call__(
        self, *, broker_id: int = 0, unknown_tags: dict[int, bytes] | None = None
    ) -> UnregisterBrokerRequestValue: ...

UnregisterBrokerRequest: _UnregisterBrokerRequest

class UnregisterBrokerResponseValue(StructValue):
    """UnregisterBrokerResponse (api key 64), versions 0, flexible 0+."""

    throttle_time_ms: int
    error_code: int
    error_message: str | None  # nullable v0+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _UnregisterBrokerResponse(Message[UnregisterBrokerResponseValue]):
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> UnregisterBrokerResponseValue: ...

UnregisterBrokerResponse: _UnregisterBrokerResponse

class UnregisterControllerRequestValue(StructValue):
    """UnregisterControllerRequest (api key 94), versions 0, flexible 0+."""

    controller_id: int
    def __init__(self, *, controller_id: int = 0, unknown_tags: dict[int, bytes] | None = None) -> None: ...

class _UnregisterControllerRequest(Message[UnregisterControllerRequestValue]):
    def __call__(
        self, *, controller_id: int = 0, unknown_tags: dict[int, bytes] | None = None
    ) -> UnregisterControllerRequestValue: ...

UnregisterControllerRequest: _UnregisterControllerRequest

class UnregisterControllerResponseValue(StructValue):
    """UnregisterControllerResponse (api key 94), versions 0, flexible 0+."""

    throttle_time_ms: int
    error_code: int
    error_message: str | None  # nullable v0+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _UnregisterControllerResponse(Message[UnregisterControllerResponseValue]):
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        unknown_tags: dict[int, bytes] | None = None,
    ) -> UnregisterControllerResponseValue: ...

UnregisterControllerResponse: _UnregisterControllerResponse
