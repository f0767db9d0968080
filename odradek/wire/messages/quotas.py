"""Client quota APIs: DescribeClientQuotas (48), AlterClientQuotas (49), v0-1.

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants: flexible from v1; an entity
is a list of (type, name) with a null name meaning the default entity of that type; a match type is
0 exact name, 1 the default entity, 2 any entity of the type (`match` null unless exact).
"""

from odradek.wire.schema import BOOL, FLOAT64, INT8, INT16, INT32, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "AlterClientQuotasRequest",
    "AlterClientQuotasResponse",
    "DescribeClientQuotasRequest",
    "DescribeClientQuotasResponse",
]


def _entity() -> Struct:
    return Struct("EntityData", [Field("entity_type", STRING, "0+"), Field("entity_name", STRING, "0+", nullable="0+")])


_COMPONENT = Struct(
    "ComponentData",
    [
        Field("entity_type", STRING, "0+"),
        Field("match_type", INT8, "0+"),
        Field("match", STRING, "0+", nullable="0+"),
    ],
)

DescribeClientQuotasRequest = Message(
    "DescribeClientQuotasRequest",
    api_key=48,
    kind=Kind.REQUEST,
    valid="0-1",
    flexible="1+",
    fields=[Field("components", ArrayOf(_COMPONENT), "0+"), Field("strict", BOOL, "0+")],
)

_DESCRIBE_ENTRY = Struct(
    "EntryData",
    [
        Field("entity", ArrayOf(_entity()), "0+"),
        Field(
            "values", ArrayOf(Struct("ValueData", [Field("key", STRING, "0+"), Field("value", FLOAT64, "0+")])), "0+"
        ),
    ],
)

DescribeClientQuotasResponse = Message(
    "DescribeClientQuotasResponse",
    api_key=48,
    kind=Kind.RESPONSE,
    valid="0-1",
    flexible="1+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
        Field("entries", ArrayOf(_DESCRIBE_ENTRY), "0+", nullable="0+"),
    ],
)

_OP = Struct("OpData", [Field("key", STRING, "0+"), Field("value", FLOAT64, "0+"), Field("remove", BOOL, "0+")])

AlterClientQuotasRequest = Message(
    "AlterClientQuotasRequest",
    api_key=49,
    kind=Kind.REQUEST,
    valid="0-1",
    flexible="1+",
    fields=[
        Field(
            "entries",
            ArrayOf(Struct("EntryData", [Field("entity", ArrayOf(_entity()), "0+"), Field("ops", ArrayOf(_OP), "0+")])),
            "0+",
        ),
        Field("validate_only", BOOL, "0+"),
    ],
)

_ALTER_ENTRY = Struct(
    "EntryData",
    [
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
        Field("entity", ArrayOf(_entity()), "0+"),
    ],
)

AlterClientQuotasResponse = Message(
    "AlterClientQuotasResponse",
    api_key=49,
    kind=Kind.RESPONSE,
    valid="0-1",
    flexible="1+",
    fields=[Field("throttle_time_ms", INT32, "0+"), Field("entries", ArrayOf(_ALTER_ENTRY), "0+")],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
AlterClientQuotasRequestValue = AlterClientQuotasRequest.cls
AlterClientQuotasResponseValue = AlterClientQuotasResponse.cls
DescribeClientQuotasRequestValue = DescribeClientQuotasRequest.cls
DescribeClientQuotasResponseValue = DescribeClientQuotasResponse.cls
