"""Feature levels: UpdateFeatures (57).

Transcribed from Apache Kafka 4.4.0's message definitions.  Invariants: flexible in every
version; v0 asks for a downgrade with ``allow_downgrade``, v1+ with ``upgrade_type`` (1 upgrade,
2 safe downgrade, 3 unsafe downgrade) and may only validate; v2 answers without per-feature
results (one top-level error for the whole request).
"""

from odradek.wire.schema import BOOL, INT8, INT16, INT32, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = ["UpdateFeaturesRequest", "UpdateFeaturesResponse"]

_FEATURE_UPDATE_KEY = Struct(
    "FeatureUpdateKey",
    [
        Field("feature", STRING, "0+"),
        Field("max_version_level", INT16, "0+"),
        Field("allow_downgrade", BOOL, "0"),
        Field("upgrade_type", INT8, "1+", default=1),
    ],
)


UpdateFeaturesRequest = Message(
    "UpdateFeaturesRequest",
    api_key=57,
    kind=Kind.REQUEST,
    valid="0-2",
    flexible="0+",
    fields=[
        Field("timeout_ms", INT32, "0+", default=60000),
        Field("feature_updates", ArrayOf(_FEATURE_UPDATE_KEY), "0+"),
        Field("validate_only", BOOL, "1+", default=False),
    ],
)


_UPDATABLE_FEATURE_RESULT = Struct(
    "UpdatableFeatureResult",
    [
        Field("feature", STRING, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+"),
    ],
)


UpdateFeaturesResponse = Message(
    "UpdateFeaturesResponse",
    api_key=57,
    kind=Kind.RESPONSE,
    valid="0-2",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+"),
        Field("results", ArrayOf(_UPDATABLE_FEATURE_RESULT), "0-1", ignorable=True),
    ],
)


# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
UpdateFeaturesRequestValue = UpdateFeaturesRequest.cls
UpdateFeaturesResponseValue = UpdateFeaturesResponse.cls
