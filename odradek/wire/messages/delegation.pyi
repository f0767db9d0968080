"""Types of `odradek.wire.messages.delegation`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = [
    "CreateDelegationTokenRequest",
    "CreateDelegationTokenResponse",
    "DescribeDelegationTokenRequest",
    "DescribeDelegationTokenResponse",
    "ExpireDelegationTokenRequest",
    "ExpireDelegationTokenResponse",
    "RenewDelegationTokenRequest",
    "RenewDelegationTokenResponse",
]

class CreateDelegationTokenRequestValue(StructValue):
    """CreateDelegationTokenRequest (api key 38), versions 1-3, flexible 2+."""

    class CreatableRenewers(StructValue):
        principal_type: str
        principal_name: str
        def __init__(
            self, *, principal_type: str = "", principal_name: str = "", unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    owner_principal_type: str | None  # v3+, nullable v3+
    owner_principal_name: str | None  # v3+, nullable v3+
    renewers: list[CreatableRenewers]
    max_lifetime_ms: int
    def __init__(
        self,
        *,
        owner_principal_type: str | None = "",
        owner_principal_name: str | None = "",
        renewers: list[CreatableRenewers] = ...,
        max_lifetime_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _CreateDelegationTokenRequest(Message[CreateDelegationTokenRequestValue]):
    CreatableRenewers: TypeAlias = CreateDelegationTokenRequestValue.CreatableRenewers
    def __call__(
        self,
        *,
        owner_principal_type: str | None = "",
        owner_principal_name: str | None = "",
        renewers: list[CreatableRenewers] = ...,
        max_lifetime_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> CreateDelegationTokenRequestValue: ...

CreateDelegationTokenRequest: _CreateDelegationTokenRequest

class CreateDelegationTokenResponseValue(StructValue):
    """CreateDelegationTokenResponse (api key 38), versions 1-3, flexible 2+."""

    error_code: int
    principal_type: str
    principal_name: str
    token_requester_principal_type: str  # v3+
    token_requester_principal_name: str  # v3+
    issue_timestamp_ms: int
    expiry_timestamp_ms: int
    max_timestamp_ms: int
    token_id: str
    hmac: bytes
    throttle_time_ms: int
    def __init__(
        self,
        *,
        error_code: int = 0,
        principal_type: str = "",
        principal_name: str = "",
        token_requester_principal_type: str = "",
        token_requester_principal_name: str = "",
        issue_timestamp_ms: int = 0,
        expiry_timestamp_ms: int = 0,
        max_timestamp_ms: int = 0,
        token_id: str = "",
        hmac: bytes = b"",
        throttle_time_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _CreateDelegationTokenResponse(Message[CreateDelegationTokenResponseValue]):
    def __call__(
        self,
        *,
        error_code: int = 0,
        principal_type: str = "",
        principal_name: str = "",
        token_requester_principal_type: str = "",
        token_requester_principal_name: str = "",
        issue_timestamp_ms: int = 0,
        expiry_timestamp_ms: int = 0,
        max_timestamp_ms: int = 0,
        token_id: str = "",
        hmac: bytes = b"",
        throttle_time_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> CreateDelegationTokenResponseValue: ...

CreateDelegationTokenResponse: _CreateDelegationTokenResponse

class DescribeDelegationTokenRequestValue(StructValue):
    """DescribeDelegationTokenRequest (api key 41), versions 1-3, flexible 2+."""

    class DescribeDelegationTokenOwner(StructValue):
        principal_type: str
        principal_name: str
        def __init__(
            self, *, principal_type: str = "", principal_name: str = "", unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    owners: list[DescribeDelegationTokenOwner] | None  # nullable v0+
    def __init__(
        self, *, owners: list[DescribeDelegationTokenOwner] | None = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _DescribeDelegationTokenRequest(Message[DescribeDelegationTokenRequestValue]):
    DescribeDelegationTokenOwner: TypeAlias = DescribeDelegationTokenRequestValue.DescribeDelegationTokenOwner
    def __call__(
        self, *, owners: list[DescribeDelegationTokenOwner] | None = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> DescribeDelegationTokenRequestValue: ...

DescribeDelegationTokenRequest: _DescribeDelegationTokenRequest

class DescribeDelegationTokenResponseValue(StructValue):
    """DescribeDelegationTokenResponse (api key 41), versions 1-3, flexible 2+."""

    class DescribedDelegationToken(StructValue):
        class DescribedDelegationTokenRenewer(StructValue):
            principal_type: str
            principal_name: str
            def __init__(
                self,
                *,
                principal_type: str = "",
                principal_name: str = "",
                unknown_tags: dict[int, bytes] | None = None,
            ) -> None: ...

        principal_type: str
        principal_name: str
        token_requester_principal_type: str  # v3+
        token_requester_principal_name: str  # v3+
        issue_timestamp: int
        expiry_timestamp: int
        max_timestamp: int
        token_id: str
        hmac: bytes
        renewers: list[DescribedDelegationTokenRenewer]
        def __init__(
            self,
            *,
            principal_type: str = "",
            principal_name: str = "",
            token_requester_principal_type: str = "",
            token_requester_principal_name: str = "",
            issue_timestamp: int = 0,
            expiry_timestamp: int = 0,
            max_timestamp: int = 0,
            token_id: str = "",
            hmac: bytes = b"",
            renewers: list[DescribedDelegationTokenRenewer] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    error_code: int
    tokens: list[DescribedDelegationToken]
    throttle_time_ms: int
    def __init__(
        self,
        *,
        error_code: int = 0,
        tokens: list[DescribedDelegationToken] = ...,
        throttle_time_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeDelegationTokenResponse(Message[DescribeDelegationTokenResponseValue]):
    DescribedDelegationToken: TypeAlias = DescribeDelegationTokenResponseValue.DescribedDelegationToken
    def __call__(
        self,
        *,
        error_code: int = 0,
        tokens: list[DescribedDelegationToken] = ...,
        throttle_time_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeDelegationTokenResponseValue: ...

DescribeDelegationTokenResponse: _DescribeDelegationTokenResponse

class ExpireDelegationTokenRequestValue(StructValue):
    """ExpireDelegationTokenRequest (api key 40), versions 1-2, flexible 2+."""

    hmac: bytes
    expiry_time_period_ms: int
    def __init__(
        self, *, hmac: bytes = b"", expiry_time_period_ms: int = 0, unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _ExpireDelegationTokenRequest(Message[ExpireDelegationTokenRequestValue]):
    def __call__(
        self, *, hmac: bytes = b"", expiry_time_period_ms: int = 0, unknown_tags: dict[int, bytes] | None = None
    ) -> ExpireDelegationTokenRequestValue: ...

ExpireDelegationTokenRequest: _ExpireDelegationTokenRequest

class ExpireDelegationTokenResponseValue(StructValue):
    """ExpireDelegationTokenResponse (api key 40), versions 1-2, flexible 2+."""

    error_code: int
    expiry_timestamp_ms: int
    throttle_time_ms: int
    def __init__(
        self,
        *,
        error_code: int = 0,
        expiry_timestamp_ms: int = 0,
        throttle_time_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _ExpireDelegationTokenResponse(Message[ExpireDelegationTokenResponseValue]):
    def __call__(
        self,
        *,
        error_code: int = 0,
        expiry_timestamp_ms: int = 0,
        throttle_time_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> ExpireDelegationTokenResponseValue: ...

ExpireDelegationTokenResponse: _ExpireDelegationTokenResponse

class RenewDelegationTokenRequestValue(StructValue):
    """RenewDelegationTokenRequest (api key 39), versions 1-2, flexible 2+."""

    hmac: bytes
    renew_period_ms: int
    def __init__(
        self, *, hmac: bytes = b"", renew_period_ms: int = 0, unknown_tags: dict[int, bytes] | None = None
    ) -> None: ...

class _RenewDelegationTokenRequest(Message[RenewDelegationTokenRequestValue]):
    def __call__(
        self, *, hmac: bytes = b"", renew_period_ms: int = 0, unknown_tags: dict[int, bytes] | None = None
    ) -> RenewDelegationTokenRequestValue: ...

RenewDelegationTokenRequest: _RenewDelegationTokenRequest

class RenewDelegationTokenResponseValue(StructValue):
    """RenewDelegationTokenResponse (api key 39), versions 1-2, flexible 2+."""

    error_code: int
    expiry_timestamp_ms: int
    throttle_time_ms: int
    def __init__(
        self,
        *,
        error_code: int = 0,
        expiry_timestamp_ms: int = 0,
        throttle_time_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _RenewDelegationTokenResponse(Message[RenewDelegationTokenResponseValue]):
    def __call__(
        self,
        *,
        error_code: int = 0,
        expiry_timestamp_ms: int = 0,
        throttle_time_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> RenewDelegationTokenResponseValue: ...

RenewDelegationTokenResponse: _RenewDelegationTokenResponse
