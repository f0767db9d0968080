"""FindCoordinator (key 10), versions 0-6, flexible from 3.

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants: v0-3 look up one `key`;
v4+ look up a batch of `coordinator_keys` and answer with one `coordinators` entry each, the
single-key response fields existing only up to v3.
"""

from odradek.wire.schema import INT8, INT16, INT32, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = ["FindCoordinatorRequest", "FindCoordinatorResponse"]

FindCoordinatorRequest = Message(
    "FindCoordinatorRequest",
    api_key=10,
    kind=Kind.REQUEST,
    valid="0-6",
    flexible="3+",
    fields=[
        Field("key", STRING, "0-3"),
        Field("key_type", INT8, "1+"),
        Field("coordinator_keys", ArrayOf(STRING), "4+"),
    ],
)

_COORDINATOR = Struct(
    "Coordinator",
    [
        Field("key", STRING, "4+"),
        Field("node_id", INT32, "4+"),
        Field("host", STRING, "4+"),
        Field("port", INT32, "4+"),
        Field("error_code", INT16, "4+"),
        Field("error_message", STRING, "4+", nullable="4+", ignorable=True),
    ],
)

FindCoordinatorResponse = Message(
    "FindCoordinatorResponse",
    api_key=10,
    kind=Kind.RESPONSE,
    valid="0-6",
    flexible="3+",
    fields=[
        Field("throttle_time_ms", INT32, "1+", ignorable=True),
        Field("error_code", INT16, "0-3"),
        Field("error_message", STRING, "1-3", nullable="1-3", ignorable=True),
        Field("node_id", INT32, "0-3"),
        Field("host", STRING, "0-3"),
        Field("port", INT32, "0-3"),
        Field("coordinators", ArrayOf(_COORDINATOR), "4+"),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
FindCoordinatorRequestValue = FindCoordinatorRequest.cls
FindCoordinatorResponseValue = FindCoordinatorResponse.cls
