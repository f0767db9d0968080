"""SaslHandshake (key 17) v0-1 and SaslAuthenticate (key 36) v0-2 where no SASL exchange is due.

On a SASL listener the exchange happens before any request reaches a handler
(`odradek.security.sasl.authenticator`), and a re-authentication's SaslHandshake is taken there too.
What reaches these handlers is what Kafka's request handler answers: a SaslHandshake on a listener
without SASL, or any SaslAuthenticate after authentication, gets ILLEGAL_SASL_STATE.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.cluster import (
    SaslHandshakeRequest,
    SaslHandshakeRequestValue,
    SaslHandshakeResponse,
    SaslHandshakeResponseValue,
)
from odradek.wire.messages.security import (
    SaslAuthenticateRequest,
    SaslAuthenticateRequestValue,
    SaslAuthenticateResponse,
    SaslAuthenticateResponseValue,
)

_AFTER_AUTHENTICATION = "SaslAuthenticate request received after successful authentication"


def _handshake_error(request: SaslHandshakeRequestValue, code: ErrorCode) -> SaslHandshakeResponseValue:
    return SaslHandshakeResponse(error_code=code, mechanisms=[])


def _authenticate_error(request: SaslAuthenticateRequestValue, code: ErrorCode) -> SaslAuthenticateResponseValue:
    return SaslAuthenticateResponse(error_code=code, auth_bytes=b"")


@registry.api(SaslHandshakeRequest, SaslHandshakeResponse, "0-1", _handshake_error)
async def sasl_handshake(ctx: RequestContext, request: SaslHandshakeRequestValue) -> SaslHandshakeResponseValue:
    return SaslHandshakeResponse(error_code=ErrorCode.ILLEGAL_SASL_STATE, mechanisms=[])


@registry.api(SaslAuthenticateRequest, SaslAuthenticateResponse, "0-2", _authenticate_error)
async def sasl_authenticate(
    ctx: RequestContext, request: SaslAuthenticateRequestValue
) -> SaslAuthenticateResponseValue:
    return SaslAuthenticateResponse(
        error_code=ErrorCode.ILLEGAL_SASL_STATE, error_message=_AFTER_AUTHENTICATION, auth_bytes=b""
    )
