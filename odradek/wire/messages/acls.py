"""ACL APIs: DescribeAcls (29), CreateAcls (30), DeleteAcls (31), v1-3 (v0 removed by KIP-896).

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants: flexible from v2; codes are
Kafka's ResourceType, PatternType, AclOperation and AclPermissionType; a pattern type defaults to
LITERAL (3).  A null filter string matches anything.
"""

from odradek.wire.schema import INT8, INT16, INT32, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "CreateAclsRequest",
    "CreateAclsResponse",
    "DeleteAclsRequest",
    "DeleteAclsResponse",
    "DescribeAclsRequest",
    "DescribeAclsResponse",
]


def _filter_fields() -> list[Field]:
    return [
        Field("resource_type_filter", INT8, "0+"),
        Field("resource_name_filter", STRING, "0+", nullable="0+"),
        Field("pattern_type_filter", INT8, "1+", default=3),
        Field("principal_filter", STRING, "0+", nullable="0+"),
        Field("host_filter", STRING, "0+", nullable="0+"),
        Field("operation", INT8, "0+"),
        Field("permission_type", INT8, "0+"),
    ]


DescribeAclsRequest = Message(
    "DescribeAclsRequest", api_key=29, kind=Kind.REQUEST, valid="1-3", flexible="2+", fields=_filter_fields()
)

_ACL_DESCRIPTION = Struct(
    "AclDescription",
    [
        Field("principal", STRING, "0+"),
        Field("host", STRING, "0+"),
        Field("operation", INT8, "0+"),
        Field("permission_type", INT8, "0+"),
    ],
)

_DESCRIBE_ACLS_RESOURCE = Struct(
    "DescribeAclsResource",
    [
        Field("resource_type", INT8, "0+"),
        Field("resource_name", STRING, "0+"),
        Field("pattern_type", INT8, "1+", default=3),
        Field("acls", ArrayOf(_ACL_DESCRIPTION), "0+"),
    ],
)

DescribeAclsResponse = Message(
    "DescribeAclsResponse",
    api_key=29,
    kind=Kind.RESPONSE,
    valid="1-3",
    flexible="2+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
        Field("resources", ArrayOf(_DESCRIBE_ACLS_RESOURCE), "0+"),
    ],
)

_ACL_CREATION = Struct(
    "AclCreation",
    [
        Field("resource_type", INT8, "0+"),
        Field("resource_name", STRING, "0+"),
        Field("resource_pattern_type", INT8, "1+", default=3),
        Field("principal", STRING, "0+"),
        Field("host", STRING, "0+"),
        Field("operation", INT8, "0+"),
        Field("permission_type", INT8, "0+"),
    ],
)

CreateAclsRequest = Message(
    "CreateAclsRequest",
    api_key=30,
    kind=Kind.REQUEST,
    valid="1-3",
    flexible="2+",
    fields=[Field("creations", ArrayOf(_ACL_CREATION), "0+")],
)

_ACL_CREATION_RESULT = Struct(
    "AclCreationResult",
    [Field("error_code", INT16, "0+"), Field("error_message", STRING, "0+", nullable="0+", default=None)],
)

CreateAclsResponse = Message(
    "CreateAclsResponse",
    api_key=30,
    kind=Kind.RESPONSE,
    valid="1-3",
    flexible="2+",
    fields=[Field("throttle_time_ms", INT32, "0+"), Field("results", ArrayOf(_ACL_CREATION_RESULT), "0+")],
)

DeleteAclsRequest = Message(
    "DeleteAclsRequest",
    api_key=31,
    kind=Kind.REQUEST,
    valid="1-3",
    flexible="2+",
    fields=[Field("filters", ArrayOf(Struct("DeleteAclsFilter", _filter_fields())), "0+")],
)

_MATCHING_ACL = Struct(
    "DeleteAclsMatchingAcl",
    [
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
        Field("resource_type", INT8, "0+"),
        Field("resource_name", STRING, "0+"),
        Field("pattern_type", INT8, "1+", default=3),
        Field("principal", STRING, "0+"),
        Field("host", STRING, "0+"),
        Field("operation", INT8, "0+"),
        Field("permission_type", INT8, "0+"),
    ],
)

_FILTER_RESULT = Struct(
    "DeleteAclsFilterResult",
    [
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
        Field("matching_acls", ArrayOf(_MATCHING_ACL), "0+"),
    ],
)

DeleteAclsResponse = Message(
    "DeleteAclsResponse",
    api_key=31,
    kind=Kind.RESPONSE,
    valid="1-3",
    flexible="2+",
    fields=[Field("throttle_time_ms", INT32, "0+"), Field("filter_results", ArrayOf(_FILTER_RESULT), "0+")],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
CreateAclsRequestValue = CreateAclsRequest.cls
CreateAclsResponseValue = CreateAclsResponse.cls
DeleteAclsRequestValue = DeleteAclsRequest.cls
DeleteAclsResponseValue = DeleteAclsResponse.cls
DescribeAclsRequestValue = DescribeAclsRequest.cls
DescribeAclsResponseValue = DescribeAclsResponse.cls
