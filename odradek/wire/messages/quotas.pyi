"""Types of `odradek.wire.messages.quotas`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = [
    "AlterClientQuotasRequest",
    "AlterClientQuotasResponse",
    "DescribeClientQuotasRequest",
    "DescribeClientQuotasResponse",
]

class AlterClientQuotasRequestValue(StructValue):
    """AlterClientQuotasRequest (api key 49), versions 0-1, flexible 1+."""

    class EntryData(StructValue):
        class EntityData(StructValue):
            entity_type: str
            entity_name: str | None  # nullable v0+
            def __init__(
                self,
                *,
                entity_type: str = "",
                entity_name: str | None = "",
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        class OpData(StructValue):
            key: str
            value: float
            remove: bool
            def __init__(
                self,
                *,
                key: str = "",
                value: float = 0.0,
                remove: bool = False,
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        entity: list[EntityData]
        ops: list[OpData]
        def __init__(
            self,
            *,
            entity: list[EntityData] = ...,
            ops: list[OpData] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    entries: list[EntryData]
    validate_only: bool
    def __init__(
        self,
        *,
        entries: list[EntryData] = ...,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AlterClientQuotasRequest(Message[AlterClientQuotasRequestValue]):
    EntryData: TypeAlias = AlterClientQuotasRequestValue.EntryData
    def __call__(
        self,
        *,
        entries: list[EntryData] = ...,
        validate_only: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AlterClientQuotasRequestValue: ...

AlterClientQuotasRequest: _AlterClientQuotasRequest

class AlterClientQuotasResponseValue(StructValue):
    """AlterClientQuotasResponse (api key 49), versions 0-1, flexible 1+."""

    class EntryData(StructValue):
        class EntityData(StructValue):
            entity_type: str
            entity_name: str | None  # nullable v0+
            def __init__(
                self,
                *,
                entity_type: str = "",
                entity_name: str | None = "",
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        error_code: int
        error_message: str | None  # nullable v0+
        entity: list[EntityData]
        def __init__(
            self,
            *,
            error_code: int = 0,
            error_message: str | None = None,
            entity: list[EntityData] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    entries: list[EntryData]
    def __init__(
        self, *, throttle_time_ms: int = 0, entries: list[EntryData] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _AlterClientQuotasResponse(Message[AlterClientQuotasResponseValue]):
    EntryData: TypeAlias = AlterClientQuotasResponseValue.EntryData
    def __call__(
        self, *, throttle_time_ms: int = 0, entries: list[EntryData] = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> AlterClientQuotasResponseValue: ...

AlterClientQuotasResponse: _AlterClientQuotasResponse

class DescribeClientQuotasRequestValue(StructValue):
    """DescribeClientQuotasRequest (api key 48), versions 0-1, flexible 1+."""

    class ComponentData(StructValue):
        entity_type: str
        match_type: int
        match: str | None  # nullable v0+
        def __init__(
            self,
            *,
            entity_type: str = "",
            match_type: int = 0,
            match: str | None = "",
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    components: list[ComponentData]
    strict: bool
    def __init__(
        self,
        *,
        components: list[ComponentData] = ...,
        strict: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeClientQuotasRequest(Message[DescribeClientQuotasRequestValue]):
    ComponentData: TypeAlias = DescribeClientQuotasRequestValue.ComponentData
    def __call__(
        self,
        *,
        components: list[ComponentData] = ...,
        strict: bool = False,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeClientQuotasRequestValue: ...

DescribeClientQuotasRequest: _DescribeClientQuotasRequest

class DescribeClientQuotasResponseValue(StructValue):
    """DescribeClientQuotasResponse (api key 48), versions 0-1, flexible 1+."""

    class EntryData(StructValue):
        class EntityData(StructValue):
            entity_type: str
            entity_name: str | None  # nullable v0+
            def __init__(
                self,
                *,
                entity_type: str = "",
                entity_name: str | None = "",
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        class ValueData(StructValue):
            key: str
            value: float
            def __init__(
                self, *, key: str = "", value: float = 0.0, unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        entity: list[EntityData]
        values: list[ValueData]
        def __init__(
            self,
            *,
            entity: list[EntityData] = ...,
            values: list[ValueData] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    error_code: int
    error_message: str | None  # nullable v0+
    entries: list[EntryData] | None  # nullable v0+
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = None,
        entries: list[EntryData] | None = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeClientQuotasResponse(Message[DescribeClientQuotasResponseValue]):
    EntryData: TypeAlias = DescribeClientQuotasResponseValue.EntryData
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = None,
        entries: list[EntryData] | None = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeClientQuotasResponseValue: ...

DescribeClientQuotasResponse: _DescribeClientQuotasResponse
