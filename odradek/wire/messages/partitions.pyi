"""Types of `odradek.wire.messages.partitions`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = [
    "AlterPartitionReassignmentsRequest",
    "AlterPartitionReassignmentsResponse",
    "ElectLeadersRequest",
    "ElectLeadersResponse",
    "ListPartitionReassignmentsRequest",
    "ListPartitionReassignmentsResponse",
]

class AlterPartitionReassignmentsRequestValue(StructValue):
    """AlterPartitionReassignmentsRequest (api key 45), versions 0-1, flexible 0+."""

    class ReassignableTopic(StructValue):
        class ReassignablePartition(StructValue):
            partition_index: int
            replicas: list[int] | None  # nullable v0+
            def __init__(
                self,
                *,
                partition_index: int = 0,
                replicas: list[int] | None = None,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        name: str
        partitions: list[ReassignablePartition]
        def __init__(
            self,
            *,
            name: str = "",
            partitions: list[ReassignablePartition] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    timeout_ms: int
    allow_replication_factor_change: bool  # v1+
    topics: list[ReassignableTopic]
    def __init__(
        self,
        *,
        timeout_ms: int = 60000,
        allow_replication_factor_change: bool = True,
        topics: list[ReassignableTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AlterPartitionReassignmentsRequest(Message[AlterPartitionReassignmentsRequestValue]):
    ReassignableTopic: TypeAlias = AlterPartitionReassignmentsRequestValue.ReassignableTopic
    def __call__(
        self,
        *,
        timeout_ms: int = 60000,
        allow_replication_factor_change: bool = True,
        topics: list[ReassignableTopic] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AlterPartitionReassignmentsRequestValue: ...

AlterPartitionReassignmentsRequest: _AlterPartitionReassignmentsRequest

class AlterPartitionReassignmentsResponseValue(StructValue):
    """AlterPartitionReassignmentsResponse (api key 45), versions 0-1, flexible 0+."""

    class ReassignableTopicResponse(StructValue):
        class ReassignablePartitionResponse(StructValue):
            partition_index: int
            error_code: int
            error_message: str | None  # nullable v0+
            def __init__(
                self,
                *,
                partition_index: int = 0,
                error_code: int = 0,
                error_message: str | None = "",
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        name: str
        partitions: list[ReassignablePartitionResponse]
        def __init__(
            self,
            *,
            name: str = "",
            partitions: list[ReassignablePartitionResponse] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    allow_replication_factor_change: bool  # v1+
    error_code: int
    error_message: str | None  # nullable v0+
    responses: list[ReassignableTopicResponse]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        allow_replication_factor_change: bool = True,
        error_code: int = 0,
        error_message: str | None = "",
        responses: list[ReassignableTopicResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AlterPartitionReassignmentsResponse(Message[AlterPartitionReassignmentsResponseValue]):
    ReassignableTopicResponse: TypeAlias = AlterPartitionReassignmentsResponseValue.ReassignableTopicResponse
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        allow_replication_factor_change: bool = True,
        error_code: int = 0,
        error_message: str | None = "",
        responses: list[ReassignableTopicResponse] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AlterPartitionReassignmentsResponseValue: ...

AlterPartitionReassignmentsResponse: _AlterPartitionReassignmentsResponse

class ElectLeadersRequestValue(StructValue):
    """ElectLeadersRequest (api key 43), versions 0-2, flexible 2+."""

    class TopicPartitions(StructValue):
        topic: str
        partitions: list[int]
        def __init__(
            self, *, topic: str = "", partitions: list[int] = ..., unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    election_type: int  # v1+
    topic_partitions: list[TopicPartitions] | None  # nullable v0+
    timeout_ms: int
    def __init__(
        self,
        *,
        election_type: int = 0,
        topic_partitions: list[TopicPartitions] | None = ...,
        timeout_ms: int = 60000,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ElectLeadersRequest(Message[ElectLeadersRequestValue]):
    TopicPartitions: TypeAlias = ElectLeadersRequestValue.TopicPartitions
    def __call__(
        self,
        *,
        election_type: int = 0,
        topic_partitions: list[TopicPartitions] | None = ...,
        timeout_ms: int = 60000,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ElectLeadersRequestValue: ...

ElectLeadersRequest: _ElectLeadersRequest

class ElectLeadersResponseValue(StructValue):
    """ElectLeadersResponse (api key 43), versions 0-2, flexible 2+."""

    class ReplicaElectionResult(StructValue):
        class PartitionResult(StructValue):
            partition_id: int
            error_code: int
            error_message: str | None  # nullable v0+
            def __init__(
                self,
                *,
                partition_id: int = 0,
                error_code: int = 0,
                error_message: str | None = "",
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        topic: str
        partition_result: list[PartitionResult]
        def __init__(
            self,
            *,
            topic: str = "",
            partition_result: list[PartitionResult] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    error_code: int  # v1+
    replica_election_results: list[ReplicaElectionResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        replica_election_results: list[ReplicaElectionResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ElectLeadersResponse(Message[ElectLeadersResponseValue]):
    ReplicaElectionResult: TypeAlias = ElectLeadersResponseValue.ReplicaElectionResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        replica_election_results: list[ReplicaElectionResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ElectLeadersResponseValue: ...

ElectLeadersResponse: _ElectLeadersResponse

class ListPartitionReassignmentsRequestValue(StructValue):
    """ListPartitionReassignmentsRequest (api key 46), versions 0, flexible 0+."""

    class ListPartitionReassignmentsTopics(StructValue):
        name: str
        partition_indexes: list[int]
        def __init__(
            self, *, name: str = "", partition_indexes: list[int] = ..., unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    timeout_ms: int
    topics: list[ListPartitionReassignmentsTopics] | None  # nullable v0+
    def __init__(
        self,
        *,
        timeout_ms: int = 60000,
        topics: list[ListPartitionReassignmentsTopics] | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ListPartitionReassignmentsRequest(Message[ListPartitionReassignmentsRequestValue]):
    ListPartitionReassignmentsTopics: TypeAlias = (
        ListPartitionReassignmentsRequestValue.ListPartitionReassignmentsTopics
    )
    def __call__(
        self,
        *,
        timeout_ms: int = 60000,
        topics: list[ListPartitionReassignmentsTopics] | None = None,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ListPartitionReassignmentsRequestValue: ...

ListPartitionReassignmentsRequest: _ListPartitionReassignmentsRequest

class ListPartitionReassignmentsResponseValue(StructValue):
    """ListPartitionReassignmentsResponse (api key 46), versions 0, flexible 0+."""

    class OngoingTopicReassignment(StructValue):
        class OngoingPartitionReassignment(StructValue):
            partition_index: int
            replicas: list[int]
            adding_replicas: list[int]
            removing_replicas: list[int]
            def __init__(
                self,
                *,
                partition_index: int = 0,
                replicas: list[int] = ...,
                adding_replicas: list[int] = ...,
                removing_replicas: list[int] = ...,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        name: str
        partitions: list[OngoingPartitionReassignment]
        def __init__(
            self,
            *,
            name: str = "",
            partitions: list[OngoingPartitionReassignment] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    error_code: int
    error_message: str | None  # nullable v0+
    topics: list[OngoingTopicReassignment]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        topics: list[OngoingTopicReassignment] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ListPartitionReassignmentsResponse(Message[ListPartitionReassignmentsResponseValue]):
    OngoingTopicReassignment: TypeAlias = ListPartitionReassignmentsResponseValue.OngoingTopicReassignment
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        topics: list[OngoingTopicReassignment] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ListPartitionReassignmentsResponseValue: ...

ListPartitionReassignmentsResponse: _ListPartitionReassignmentsResponse
