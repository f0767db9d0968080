"""Types of `odradek.wire.messages.features`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = ["UpdateFeaturesRequest", "UpdateFeaturesResponse"]

class UpdateFeaturesRequestValue(StructValue):
    """UpdateFeaturesRequest (api key 57), versions 0-2, flexible 0+."""

    class FeatureUpdateKey(StructValue):
        feature: str
        max_version_level: int
        allow_downgrade: bool  # v0
        upgrade_type: int  # v1+
        def __init__(
            self,
            *,
            feature: str = "",
            max_version_level: int = 0,
            allow_downgrade: bool = False,
            upgrade_type: int = 1,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    timeout_ms: int
    feature_updates: list[FeatureUpdateKey]
    validate_only: bool  # v1+
    def __init__(
        self,
        *,
        timeout_ms: int = 60000,
        feature_updates: list[FeatureUpdateKey] = ...,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _UpdateFeaturesRequest(Message[UpdateFeaturesRequestValue]):
    FeatureUpdateKey: TypeAlias = UpdateFeaturesRequestValue.FeatureUpdateKey
    def __call__(
        self,
        *,
        timeout_ms: int = 60000,
        feature_updates: list[FeatureUpdateKey] = ...,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> UpdateFeaturesRequestValue: ...

UpdateFeaturesRequest: _UpdateFeaturesRequest

class UpdateFeaturesResponseValue(StructValue):
    """UpdateFeaturesResponse (api key 57), versions 0-2, flexible 0+."""

    class UpdatableFeatureResult(StructValue):
        feature: str
        error_code: int
        error_message: str | None  # nullable v0+
        def __init__(
            self,
            *,
            feature: str = "",
            error_code: int = 0,
            error_message: str | None = "",
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    error_code: int
    error_message: str | None  # nullable v0+
    results: list[UpdatableFeatureResult]  # v0-1
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        results: list[UpdatableFeatureResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _UpdateFeaturesResponse(Message[UpdateFeaturesResponseValue]):
    UpdatableFeatureResult: TypeAlias = UpdateFeaturesResponseValue.UpdatableFeatureResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        results: list[UpdatableFeatureResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> UpdateFeaturesResponseValue: ...

UpdateFeaturesResponse: _UpdateFeaturesResponse
