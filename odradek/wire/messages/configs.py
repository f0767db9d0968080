"""Config APIs: DescribeConfigs (32), AlterConfigs (33), IncrementalAlterConfigs (44),
ListConfigResources (74, KIP-1142; v0 was ListClientMetricsResources and lists only those).

Transcribed from Apache Kafka 4.4.0's message definitions; DescribeConfigs v0 was removed by KIP-896.
Invariants: config values are nullable strings; `config_operation` is 0 set, 1 delete, 2 append,
3 subtract; resource types are Kafka's ConfigResource.Type codes.
"""

from odradek.wire.schema import BOOL, INT8, INT16, INT32, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "AlterConfigsRequest",
    "AlterConfigsResponse",
    "DescribeConfigsRequest",
    "DescribeConfigsResponse",
    "IncrementalAlterConfigsRequest",
    "IncrementalAlterConfigsResponse",
    "ListConfigResourcesRequest",
    "ListConfigResourcesResponse",
]

_DESCRIBE_CONFIGS_RESOURCE = Struct(
    "DescribeConfigsResource",
    [
        Field("resource_type", INT8, "0+"),
        Field("resource_name", STRING, "0+"),
        Field("configuration_keys", ArrayOf(STRING), "0+", nullable="0+"),
    ],
)

DescribeConfigsRequest = Message(
    "DescribeConfigsRequest",
    api_key=32,
    kind=Kind.REQUEST,
    valid="1-4",
    flexible="4+",
    fields=[
        Field("resources", ArrayOf(_DESCRIBE_CONFIGS_RESOURCE), "0+"),
        Field("include_synonyms", BOOL, "1+"),
        Field("include_documentation", BOOL, "3+"),
    ],
)

_DESCRIBE_CONFIGS_SYNONYM = Struct(
    "DescribeConfigsSynonym",
    [
        Field("name", STRING, "1+"),
        Field("value", STRING, "1+", nullable="0+"),
        Field("source", INT8, "1+"),
    ],
)

_DESCRIBE_CONFIGS_RESOURCE_RESULT = Struct(
    "DescribeConfigsResourceResult",
    [
        Field("name", STRING, "0+"),
        Field("value", STRING, "0+", nullable="0+"),
        Field("read_only", BOOL, "0+"),
        Field("config_source", INT8, "1+", default=-1, ignorable=True),
        Field("is_sensitive", BOOL, "0+"),
        Field("synonyms", ArrayOf(_DESCRIBE_CONFIGS_SYNONYM), "1+", ignorable=True),
        Field("config_type", INT8, "3+", ignorable=True),
        Field("documentation", STRING, "3+", nullable="0+", ignorable=True),
    ],
)

_DESCRIBE_CONFIGS_RESULT = Struct(
    "DescribeConfigsResult",
    [
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+"),
        Field("resource_type", INT8, "0+"),
        Field("resource_name", STRING, "0+"),
        Field("configs", ArrayOf(_DESCRIBE_CONFIGS_RESOURCE_RESULT), "0+"),
    ],
)

DescribeConfigsResponse = Message(
    "DescribeConfigsResponse",
    api_key=32,
    kind=Kind.RESPONSE,
    valid="1-4",
    flexible="4+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("results", ArrayOf(_DESCRIBE_CONFIGS_RESULT), "0+"),
    ],
)

_ALTERABLE_CONFIG = Struct(
    "AlterableConfig",
    [
        Field("name", STRING, "0+"),
        Field("value", STRING, "0+", nullable="0+"),
    ],
)

_ALTER_CONFIGS_RESOURCE = Struct(
    "AlterConfigsResource",
    [
        Field("resource_type", INT8, "0+"),
        Field("resource_name", STRING, "0+"),
        Field("configs", ArrayOf(_ALTERABLE_CONFIG), "0+"),
    ],
)

AlterConfigsRequest = Message(
    "AlterConfigsRequest",
    api_key=33,
    kind=Kind.REQUEST,
    valid="0-2",
    flexible="2+",
    fields=[
        Field("resources", ArrayOf(_ALTER_CONFIGS_RESOURCE), "0+"),
        Field("validate_only", BOOL, "0+"),
    ],
)

_ALTER_CONFIGS_RESOURCE_RESPONSE = Struct(
    "AlterConfigsResourceResponse",
    [
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+"),
        Field("resource_type", INT8, "0+"),
        Field("resource_name", STRING, "0+"),
    ],
)

AlterConfigsResponse = Message(
    "AlterConfigsResponse",
    api_key=33,
    kind=Kind.RESPONSE,
    valid="0-2",
    flexible="2+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("responses", ArrayOf(_ALTER_CONFIGS_RESOURCE_RESPONSE), "0+"),
    ],
)

_INCREMENTAL_ALTER_CONFIGS_ALTERABLE_CONFIG = Struct(
    "AlterableConfig",
    [
        Field("name", STRING, "0+"),
        Field("config_operation", INT8, "0+"),
        Field("value", STRING, "0+", nullable="0+"),
    ],
)

_INCREMENTAL_ALTER_CONFIGS_ALTER_CONFIGS_RESOURCE = Struct(
    "AlterConfigsResource",
    [
        Field("resource_type", INT8, "0+"),
        Field("resource_name", STRING, "0+"),
        Field("configs", ArrayOf(_INCREMENTAL_ALTER_CONFIGS_ALTERABLE_CONFIG), "0+"),
    ],
)

IncrementalAlterConfigsRequest = Message(
    "IncrementalAlterConfigsRequest",
    api_key=44,
    kind=Kind.REQUEST,
    valid="0-1",
    flexible="1+",
    fields=[
        Field("resources", ArrayOf(_INCREMENTAL_ALTER_CONFIGS_ALTER_CONFIGS_RESOURCE), "0+"),
        Field("validate_only", BOOL, "0+"),
    ],
)

_INCREMENTAL_ALTER_CONFIGS_ALTER_CONFIGS_RESOURCE_RESPONSE = Struct(
    "AlterConfigsResourceResponse",
    [
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+"),
        Field("resource_type", INT8, "0+"),
        Field("resource_name", STRING, "0+"),
    ],
)

IncrementalAlterConfigsResponse = Message(
    "IncrementalAlterConfigsResponse",
    api_key=44,
    kind=Kind.RESPONSE,
    valid="0-1",
    flexible="1+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("responses", ArrayOf(_INCREMENTAL_ALTER_CONFIGS_ALTER_CONFIGS_RESOURCE_RESPONSE), "0+"),
    ],
)

ListConfigResourcesRequest = Message(
    "ListConfigResourcesRequest",
    api_key=74,
    kind=Kind.REQUEST,
    valid="0-1",
    flexible="0+",
    fields=[
        Field("resource_types", ArrayOf(INT8), "1+"),
    ],
)


_CONFIG_RESOURCE = Struct(
    "ConfigResource",
    [
        Field("resource_name", STRING, "0+"),
        Field("resource_type", INT8, "1+", default=16, ignorable=True),
    ],
)


ListConfigResourcesResponse = Message(
    "ListConfigResourcesResponse",
    api_key=74,
    kind=Kind.RESPONSE,
    valid="0-1",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("config_resources", ArrayOf(_CONFIG_RESOURCE), "0+"),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
AlterConfigsRequestValue = AlterConfigsRequest.cls
AlterConfigsResponseValue = AlterConfigsResponse.cls
DescribeConfigsRequestValue = DescribeConfigsRequest.cls
DescribeConfigsResponseValue = DescribeConfigsResponse.cls
IncrementalAlterConfigsRequestValue = IncrementalAlterConfigsRequest.cls
IncrementalAlterConfigsResponseValue = IncrementalAlterConfigsResponse.cls
ListConfigResourcesRequestValue = ListConfigResourcesRequest.cls
ListConfigResourcesResponseValue = ListConfigResourcesResponse.cls
