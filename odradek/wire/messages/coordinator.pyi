"""Types of `odradek.wire.messages.coordinator`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = ["FindCoordinatorRequest", "FindCoordinatorResponse"]

class FindCoordinatorRequestValue(StructValue):
    """FindCoordinatorRequest (api key 10), versions 0-6, flexible 3+."""

    key: str  # v0-3
    key_type: int  # v1+
    coordinator_keys: list[str]  # v4+
    def __init__(
        self,
        *,
        key: str = "",
        key_type: int = 0,
        coordinator_keys: list[str] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _FindCoordinatorRequest(Message[FindCoordinatorRequestValue]):
    def __call__(
        self,
        *,
        key: str = "",
        key_type: int = 0,
        coordinator_keys: list[str] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> FindCoordinatorRequestValue: ...

FindCoordinatorRequest: _FindCoordinatorRequest

class FindCoordinatorResponseValue(StructValue):
    """FindCoordinatorResponse (api key 10), versions 0-6, flexible 3+."""

    class Coordinator(StructValue):
        key: str  # v4+
        node_id: int  # v4+
        host: str  # v4+
        port: int  # v4+
        error_code: int  # v4+
        error_message: str | None  # v4+, nullable v4+
        def __init__(
            self,
            *,
            key: str = "",
            node_id: int = 0,
            host: str = "",
            port: int = 0,
            error_code: int = 0,
            error_message: str | None = "",
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int  # v1+
    error_code: int  # v0-3
    error_message: str | None  # v1-3, nullable v1-3
    node_id: int  # v0-3
    host: str  # v0-3
    port: int  # v0-3
    coordinators: list[Coordinator]  # v4+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        node_id: int = 0,
        host: str = "",
        port: int = 0,
        coordinators: list[Coordinator] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _FindCoordinatorResponse(Message[FindCoordinatorResponseValue]):
    Coordinator: TypeAlias = FindCoordinatorResponseValue.Coordinator
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = "",
        node_id: int = 0,
        host: str = "",
        port: int = 0,
        coordinators: list[Coordinator] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> FindCoordinatorResponseValue: ...

FindCoordinatorResponse: _FindCoordinatorResponse
