"""The delegation-token APIs: CreateDelegationToken (key 38) v1-3, RenewDelegationToken (39)
v1-2, ExpireDelegationToken (40) v1-2 and DescribeDelegationToken (41) v1-3.

Kafka issues tokens only to clients that authenticated over SASL and only with
``delegation.token.secret.key`` set, which odradek does not take: a client on a SASL listener gets
DELEGATION_TOKEN_AUTH_DISABLED, any other DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, as Kafka 4.4
answers (compat-tests/probes, sequence cluster.delegation_tokens).  A refused creation still
names its owner (the requested one from v3, else the caller) and, from v3, the caller as
requester, with an empty token and times of -1 (0 when tokens are disabled).
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

_TOKEN_PROTOCOLS = ("SASL_PLAINTEXT", "SASL_SSL")


def _refusal(ctx: RequestContext) -> ErrorCode:
    """Why a token request is refused: tokens are issued only to SASL-authenticated clients, and
    never without ``delegation.token.secret.key`` (which odradek does not take)."""
    if ctx.connection.identity.protocol in _TOKEN_PROTOCOLS:
        return ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED
    return ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED


def _never(code: ErrorCode) -> int:
    """The times a refusal carries: 0 when tokens are disabled, -1 when not allowed here."""
    return 0 if code == ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED else -1


def _caller(ctx: RequestContext) -> tuple[str, str]:
    principal = ctx.connection.identity.principal
    return principal.type, principal.name


def _create_answer(
    request: CreateDelegationTokenRequestValue, version: int, code: ErrorCode, caller: tuple[str, str]
) -> CreateDelegationTokenResponseValue:
    owner_type, owner_name = caller
    if version >= 3 and request.owner_principal_name is not None:
        owner_type, owner_name = request.owner_principal_type or "", request.owner_principal_name
    requester = caller if version >= 3 else ("", "")
    never = _never(code)
    return CreateDelegationTokenResponse(
        error_code=code,
        principal_type=owner_type,
        principal_name=owner_name,
        token_requester_principal_type=requester[0],
        token_requester_principal_name=requester[1],
        issue_timestamp_ms=never,
        expiry_timestamp_ms=never,
        max_timestamp_ms=never,
        token_id="",
        hmac=b"",
    )


def _create_error(request: CreateDelegationTokenRequestValue, code: ErrorCode) -> CreateDelegationTokenResponseValue:
    return _create_answer(request, 0, code, ("", ""))


@registry.api(CreateDelegationTokenRequest, CreateDelegationTokenResponse, "1-3", _create_error)
async def create_delegation_token(
    ctx: RequestContext, request: CreateDelegationTokenRequestValue
) -> CreateDelegationTokenResponseValue:
    return _create_answer(request, ctx.version, _refusal(ctx), _caller(ctx))


def _renew_error(request: RenewDelegationTokenRequestValue, code: ErrorCode) -> RenewDelegationTokenResponseValue:
    return RenewDelegationTokenResponse(error_code=code, expiry_timestamp_ms=-1)


@registry.api(RenewDelegationTokenRequest, RenewDelegationTokenResponse, "1-2", _renew_error)
async def renew_delegation_token(
    ctx: RequestContext, request: RenewDelegationTokenRequestValue
) -> RenewDelegationTokenResponseValue:
    code = _refusal(ctx)
    return RenewDelegationTokenResponse(error_code=code, expiry_timestamp_ms=_never(code))


def _expire_error(request: ExpireDelegationTokenRequestValue, code: ErrorCode) -> ExpireDelegationTokenResponseValue:
    return ExpireDelegationTokenResponse(error_code=code, expiry_timestamp_ms=-1)


@registry.api(ExpireDelegationTokenRequest, ExpireDelegationTokenResponse, "1-2", _expire_error)
async def expire_delegation_token(
    ctx: RequestContext, request: ExpireDelegationTokenRequestValue
) -> ExpireDelegationTokenResponseValue:
    code = _refusal(ctx)
    return ExpireDelegationTokenResponse(error_code=code, expiry_timestamp_ms=_never(code))


def _describe_error(
    request: DescribeDelegationTokenRequestValue, code: ErrorCode
) -> DescribeDelegationTokenResponseValue:
    return DescribeDelegationTokenResponse(error_code=code, tokens=[])


@registry.api(DescribeDelegationTokenRequest, DescribeDelegationTokenResponse, "1-3", _describe_error)
async def describe_delegation_token(
    ctx: RequestContext, request: DescribeDelegationTokenRequestValue
) -> DescribeDelegationTokenResponseValue:
    return _describe_error(request, _refusal(ctx))
