"""The delegation-token APIs: CreateDelegationToken (key 38) v1-3, RenewDelegationToken (39)
v1-2, ExpireDelegationToken (40) v1-2 and DescribeDelegationToken (41) v1-3.

Kafka issues tokens only to clients that authenticated over SASL (or SSL) and only with
``delegation.token.secret.key`` set; this broker serves neither, so every request gets
DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, as Kafka 4.4 answers a PLAINTEXT client (checked with
compat-tests/probes, sequence cluster.delegation_tokens).  A refused creation still names its
owner (the requested one from v3, else the caller, ``User:ANONYMOUS``) and, from v3, the caller
as requester, with -1 times and an empty token.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.delegation import (
    CreateDelegationTokenRequest,
    CreateDelegationTokenRequestValue,
    CreateDelegationTokenResponse,
    CreateDelegationTokenResponseValue,
    DescribeDelegationTokenRequest,
    DescribeDelegationTokenRequestValue,
    DescribeDelegationTokenResponse,
    DescribeDelegationTokenResponseValue,
    ExpireDelegationTokenRequest,
    ExpireDelegationTokenRequestValue,
    ExpireDelegationTokenResponse,
    ExpireDelegationTokenResponseValue,
    RenewDelegationTokenRequest,
    RenewDelegationTokenRequestValue,
    RenewDelegationTokenResponse,
    RenewDelegationTokenResponseValue,
)

NOT_ALLOWED = ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED
"""Why every token request is refused here: no SASL or SSL authentication."""
CALLER = ("User", "ANONYMOUS")
"""The principal of an unauthenticated client."""


def _create_answer(
    request: CreateDelegationTokenRequestValue, version: int, code: ErrorCode
) -> CreateDelegationTokenResponseValue:
    owner_type, owner_name = CALLER
    if version >= 3 and request.owner_principal_name is not None:
        owner_type, owner_name = request.owner_principal_type or "", request.owner_principal_name
    requester = CALLER if version >= 3 else ("", "")
    return CreateDelegationTokenResponse(
        error_code=code,
        principal_type=owner_type,
        principal_name=owner_name,
        token_requester_principal_type=requester[0],
        token_requester_principal_name=requester[1],
        issue_timestamp_ms=-1,
        expiry_timestamp_ms=-1,
        max_timestamp_ms=-1,
        token_id="",
        hmac=b"",
    )


def _create_error(request: CreateDelegationTokenRequestValue, code: ErrorCode) -> CreateDelegationTokenResponseValue:
    return _create_answer(request, 0, code)


@registry.api(CreateDelegationTokenRequest, CreateDelegationTokenResponse, "1-3", _create_error)
async def create_delegation_token(
    ctx: RequestContext, request: CreateDelegationTokenRequestValue
) -> CreateDelegationTokenResponseValue:
    return _create_answer(request, ctx.version, NOT_ALLOWED)


def _renew_error(request: RenewDelegationTokenRequestValue, code: ErrorCode) -> RenewDelegationTokenResponseValue:
    return RenewDelegationTokenResponse(error_code=code, expiry_timestamp_ms=-1)


@registry.api(RenewDelegationTokenRequest, RenewDelegationTokenResponse, "1-2", _renew_error)
async def renew_delegation_token(
    ctx: RequestContext, request: RenewDelegationTokenRequestValue
) -> RenewDelegationTokenResponseValue:
    return _renew_error(request, NOT_ALLOWED)


def _expire_error(request: ExpireDelegationTokenRequestValue, code: ErrorCode) -> ExpireDelegationTokenResponseValue:
    return ExpireDelegationTokenResponse(error_code=code, expiry_timestamp_ms=-1)


@registry.api(ExpireDelegationTokenRequest, ExpireDelegationTokenResponse, "1-2", _expire_error)
async def expire_delegation_token(
    ctx: RequestContext, request: ExpireDelegationTokenRequestValue
) -> ExpireDelegationTokenResponseValue:
    return _expire_error(request, NOT_ALLOWED)


def _describe_error(
    request: DescribeDelegationTokenRequestValue, code: ErrorCode
) -> DescribeDelegationTokenResponseValue:
    return DescribeDelegationTokenResponse(error_code=code, tokens=[])


@registry.api(DescribeDelegationTokenRequest, DescribeDelegationTokenResponse, "1-3", _describe_error)
async def describe_delegation_token(
    ctx: RequestContext, request: DescribeDelegationTokenRequestValue
) -> DescribeDelegationTokenResponseValue:
    return _describe_error(request, NOT_ALLOWED)
