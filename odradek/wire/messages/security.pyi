"""Types of `odradek.wire.messages.security`, written by `python -m odradek.wire.stubgen`: do not edit."""

from typing import TypeAlias

from odradek.wire.schema import Message, StructValue

__all__ = [
    "AlterUserScramCredentialsRequest",
    "AlterUserScramCredentialsResponse",
    "DescribeUserScramCredentialsRequest",
    "DescribeUserScramCredentialsResponse",
    "SaslAuthenticateRequest",
    "SaslAuthenticateResponse",
]

class AlterUserScramCredentialsRequestValue(StructValue):
    """AlterUserScramCredentialsRequest (api key 51), versions 0, flexible 0+."""

    class ScramCredentialDeletion(StructValue):
        name: str
        mechanism: int
        def __init__(
            self, *, name: str = "", mechanism: int = 0, unknown_tags: dict[int, bytes] | None = None
        ) -> None: ...

    class ScramCredentialUpsertion(StructValue):
        name: str
        mechanism: int
        iterations: int
        salt: bytes
        salted_password: bytes
        def __init__(
            self,
            *,
            name: str = "",
            mechanism: int = 0,
            iterations: int = 0,
            salt: bytes = b"",
            salted_password: bytes = b"",
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    deletions: list[ScramCredentialDeletion]
    upsertions: list[ScramCredentialUpsertion]
    def __init__(
        self,
        *,
        deletions: list[ScramCredentialDeletion] = ...,
        upsertions: list[ScramCredentialUpsertion] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AlterUserScramCredentialsRequest(Message[AlterUserScramCredentialsRequestValue]):
    ScramCredentialDeletion: TypeAlias = AlterUserScramCredentialsRequestValue.ScramCredentialDeletion
    ScramCredentialUpsertion: TypeAlias = AlterUserScramCredentialsRequestValue.ScramCredentialUpsertion
    def __call__(
        self,
        *,
        deletions: list[ScramCredentialDeletion] = ...,
        upsertions: list[ScramCredentialUpsertion] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AlterUserScramCredentialsRequestValue: ...

AlterUserScramCredentialsRequest: _AlterUserScramCredentialsRequest

class AlterUserScramCredentialsResponseValue(StructValue):
    """AlterUserScramCredentialsResponse (api key 51), versions 0, flexible 0+."""

    class AlterUserScramCredentialsResult(StructValue):
        user: str
        error_code: int
        error_message: str | None  # nullable v0+
        def __init__(
            self,
            *,
            user: str = "",
            error_code: int = 0,
            error_message: str | None = None,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    results: list[AlterUserScramCredentialsResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[AlterUserScramCredentialsResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _AlterUserScramCredentialsResponse(Message[AlterUserScramCredentialsResponseValue]):
    AlterUserScramCredentialsResult: TypeAlias = AlterUserScramCredentialsResponseValue.AlterUserScramCredentialsResult
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        results: list[AlterUserScramCredentialsResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> AlterUserScramCredentialsResponseValue: ...

AlterUserScramCredentialsResponse: _AlterUserScramCredentialsResponse

class DescribeUserScramCredentialsRequestValue(StructValue):
    """DescribeUserScramCredentialsRequest (api key 50), versions 0, flexible 0+."""

    class UserName(StructValue):
        name: str
        def __init__(self, *, name: str = "", unknown_tags: dict[int, bytes] | None = None) -> None: ...

    users: list[UserName] | None  # nullable v0+
    def __init__(self, *, users: list[UserName] | None = ..., unknown_tags: dict[int, bytes] | None = None) -> None: ...

class _DescribeUserScramCredentialsRequest(Message[DescribeUserScramCredentialsRequestValue]):
    UserName: TypeAlias = DescribeUserScramCredentialsRequestValue.UserName
    def __call__(
        self, *, users: list[UserName] | None = ..., unknown_tags: dict[int, bytes] | None = None
    ) -> DescribeUserScramCredentialsRequestValue: ...

DescribeUserScramCredentialsRequest: _DescribeUserScramCredentialsRequest

class DescribeUserScramCredentialsResponseValue(StructValue):
    """DescribeUserScramCredentialsResponse (api key 50), versions 0, flexible 0+."""

    class DescribeUserScramCredentialsResult(StructValue):
        class CredentialInfo(StructValue):
            mechanism: int
            iterations: int
            def __init__(
                self, *, mechanism: int = 0, iterations: int = 0, unknown_tags: dict[int, bytes] | None = None
            ) -> None: ...

        user: str
        error_code: int
        error_message: str | None  # nullable v0+
        credential_infos: list[CredentialInfo]
        def __init__(
            self,
            *,
            user: str = "",
            error_code: int = 0,
            error_message: str | None = None,
            credential_infos: list[CredentialInfo] = ...,
            unknown_tags: dict[int, bytes] | None = None,
        ) -> None: ...

    throttle_time_ms: int
    error_code: int
    error_message: str | None  # nullable v0+
    results: list[DescribeUserScramCredentialsResult]
    def __init__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = None,
        results: list[DescribeUserScramCredentialsResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _DescribeUserScramCredentialsResponse(Message[DescribeUserScramCredentialsResponseValue]):
    DescribeUserScramCredentialsResult: TypeAlias = (
        DescribeUserScramCredentialsResponseValue.DescribeUserScramCredentialsResult
    )
    def __call__(
        self,
        *,
        throttle_time_ms: int = 0,
        error_code: int = 0,
        error_message: str | None = None,
        results: list[DescribeUserScramCredentialsResult] = ...,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> DescribeUserScramCredentialsResponseValue: ...

DescribeUserScramCredentialsResponse: _DescribeUserScramCredentialsResponse

class SaslAuthenticateRequestValue(StructValue):
    """SaslAuthenticateRequest (api key 36), versions 0-2, flexible 2+."""

    auth_bytes: bytes
    def __init__(self, *, auth_bytes: bytes = b"", unknown_tags: dict[int, bytes] | None = None) -> None: ...

class _SaslAuthenticateRequest(Message[SaslAuthenticateRequestValue]):
    def __call__(
        self, *, auth_bytes: bytes = b"", unknown_tags: dict[int, bytes] | None = None
    ) -> SaslAuthenticateRequestValue: ...

SaslAuthenticateRequest: _SaslAuthenticateRequest

class SaslAuthenticateResponseValue(StructValue):
    """SaslAuthenticateResponse (api key 36), versions 0-2, flexible 2+."""

    error_code: int
    error_message: str | None  # nullable v0+
    auth_bytes: bytes
    session_lifetime_ms: int  # v1+
    def __init__(
        self,
        *,
        error_code: int = 0,
        error_message: str | None = None,
        auth_bytes: bytes = b"",
        session_lifetime_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> None: ...

class _SaslAuthenticateResponse(Message[SaslAuthenticateResponseValue]):
    def __call__(
        self,
        *,
        error_code: int = 0,
        error_message: str | None = None,
        auth_bytes: bytes = b"",
        session_lifetime_ms: int = 0,
        unknown_tags: dict[int, bytes] | None = None,
    ) -> SaslAuthenticateResponseValue: ...

SaslAuthenticateResponse: _SaslAuthenticateResponse
