"""ApiVersions (key 18), versions 0-5, flexible from 3.

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants:
- version 3+ request bodies carry the client software name and version (KIP-511);
- version 5 adds the cluster id and node id the client expects to reach (KIP-1242);
- the response's feature lists and epochs are tagged fields 0-3 and exist only in flexible versions.
The response header is always v0 (no tagged header fields), which is the codec's and api's concern.
"""

from odradek.wire.schema import BOOL, INT16, INT32, INT64, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = ["ApiVersionsRequest", "ApiVersionsResponse"]

ApiVersionsRequest = Message(
    "ApiVersionsRequest",
    api_key=18,
    kind=Kind.REQUEST,
    valid="0-5",
    flexible="3+",
    fields=[
        Field("client_software_name", STRING, "3+", ignorable=True),
        Field("client_software_version", STRING, "3+", ignorable=True),
        Field("cluster_id", STRING, "5+", nullable="5+", default=None, ignorable=True),
        Field("node_id", INT32, "5+", default=-1, ignorable=True),
    ],
)

_API_VERSION = Struct(
    "ApiVersion",
    [
        Field("api_key", INT16, "0+"),
        Field("min_version", INT16, "0+"),
        Field("max_version", INT16, "0+"),
    ],
)

_SUPPORTED_FEATURE_KEY = Struct(
    "SupportedFeatureKey",
    [
        Field("name", STRING, "3+"),
        Field("min_version", INT16, "3+"),
        Field("max_version", INT16, "3+"),
    ],
)

_FINALIZED_FEATURE_KEY = Struct(
    "FinalizedFeatureKey",
    [
        Field("name", STRING, "3+"),
        Field("max_version_level", INT16, "3+"),
        Field("min_version_level", INT16, "3+"),
    ],
)

ApiVersionsResponse = Message(
    "ApiVersionsResponse",
    api_key=18,
    kind=Kind.RESPONSE,
    valid="0-5",
    flexible="3+",
    fields=[
        Field("error_code", INT16, "0+"),
        Field("api_keys", ArrayOf(_API_VERSION), "0+"),
        Field("throttle_time_ms", INT32, "1+", ignorable=True),
        Field("supported_features", ArrayOf(_SUPPORTED_FEATURE_KEY), "3+", tag=0, tagged="3+", ignorable=True),
        Field("finalized_features_epoch", INT64, "3+", tag=1, tagged="3+", default=-1, ignorable=True),
        Field("finalized_features", ArrayOf(_FINALIZED_FEATURE_KEY), "3+", tag=2, tagged="3+", ignorable=True),
        Field("zk_migration_ready", BOOL, "3+", tag=3, tagged="3+", ignorable=True),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
ApiVersionsRequestValue = ApiVersionsRequest.cls
ApiVersionsResponseValue = ApiVersionsResponse.cls
