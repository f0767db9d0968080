"""The SASL exchange on a SASL listener: Kafka's ``SaslServerAuthenticator`` as a frame gate.

Every frame of the connection passes here before the dispatcher (`odradek.server.connection`).
States and what each accepts, as Kafka does:

- ``HANDSHAKE_OR_VERSIONS`` (new connection): ApiVersions (answered by the dispatcher, once) or
  SaslHandshake;
- ``HANDSHAKE`` (after ApiVersions): SaslHandshake;
- ``AUTHENTICATE`` (after SaslHandshake v1): SaslAuthenticate requests;
- ``RAW`` (after SaslHandshake v0): bare size-prefixed SASL tokens, answered the same way;
- ``COMPLETE``: everything goes to the dispatcher, except, when the session expires
  (``connections.max.reauth.ms`` or the token's lifetime), a new SaslHandshake, which starts a
  re-authentication (KIP-368) with the same mechanism and principal, and any request after the
  expiry, which closes the connection.  Without an expiry Kafka does not re-authenticate: the
  handshake reaches the handler, which answers ILLEGAL_SASL_STATE.

Anything else closes the connection (one log line): another API before the handshake, a frame that
is not a Kafka request, an unsupported version; another API after the handshake is first answered
with that API's error answer carrying ILLEGAL_SASL_STATE, as Kafka does.  A mechanism that is not enabled is answered
UNSUPPORTED_SASL_MECHANISM with the enabled list, a failed authentication SASL_AUTHENTICATION_FAILED
with Kafka's message; both close the connection once answered.  Until authenticated, frames are
limited to ``sasl.server.max.receive.size``.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from odradek.clock import Clock
from odradek.security.gate import GateAnswer
from odradek.security.principal import ClientIdentity, KafkaPrincipal
from odradek.security.sasl.mechanism import SaslAuthenticationError, SaslServer
from odradek.wire.api import ApiKey, RequestHeader, decode_request_header, encode_response_header
from odradek.wire.codec import decode_from, encode_into
from odradek.wire.errors import ErrorCode, ProtocolViolation
from odradek.wire.messages.cluster import SaslHandshakeRequest, SaslHandshakeResponse
from odradek.wire.messages.security import SaslAuthenticateRequest, SaslAuthenticateResponse
from odradek.wire.primitives import DecodeError, Part, Reader, Writer
from odradek.wire.schema import Message, StructValue

__all__ = ["SaslConnection", "SaslGate", "SaslSettings"]

log = logging.getLogger("odradek.security")

_API_VERSIONS_MAX = 5
_FLEXIBLE: dict[int, int] = {ApiKey.API_VERSIONS: 3, ApiKey.SASL_AUTHENTICATE: 2}


class _State(enum.Enum):
    HANDSHAKE_OR_VERSIONS = 1
    HANDSHAKE = 2
    AUTHENTICATE = 3
    RAW = 4
    COMPLETE = 5


class SaslConnection(Protocol):
    """What the gate changes on its connection."""

    identity: ClientIdentity

    def set_max_frame_bytes(self, limit: int) -> None: ...


@dataclass(frozen=True, slots=True)
class SaslSettings:
    """One SASL listener's settings."""

    mechanisms: tuple[str, ...]
    new_server: Callable[[str], SaslServer]
    reauth_ms: int
    max_receive_bytes: int
    max_request_bytes: int
    error_answer: Callable[[bytearray, ErrorCode], list[Part] | None]
    """The dispatcher's error answer of a request frame with one error code (None: not a request)."""


def _flexible(api_key: int, version: int) -> bool:
    first = _FLEXIBLE.get(api_key)
    return first is not None and version >= first


class SaslGate:
    """The gate of one connection (see the module docstring)."""

    def __init__(self, connection: SaslConnection, settings: SaslSettings, clock: Clock) -> None:
        self._connection = connection
        self._settings = settings
        self._clock = clock
        self._state = _State.HANDSHAKE_OR_VERSIONS
        self._server: SaslServer | None = None
        self._mechanism = ""
        self._principal: KafkaPrincipal | None = None
        self._expires_ms: int | None = None
        self._reauthenticating = False
        connection.set_max_frame_bytes(min(settings.max_receive_bytes, settings.max_request_bytes))

    @property
    def authenticated(self) -> bool:
        return self._state is _State.COMPLETE

    def admit(self, body: bytearray) -> GateAnswer | None:
        state = self._state
        if state is _State.RAW:
            return self._raw_token(bytes(body))
        try:
            header = decode_request_header(Reader(body), _flexible)
        except DecodeError:
            raise ProtocolViolation("a frame that is not a Kafka request during SASL authentication") from None
        if state is _State.COMPLETE:
            if header.api_key == ApiKey.SASL_HANDSHAKE and self._expires_ms is not None:
                self._reauthenticating = True
                return self._handshake(body, header)
            if self._expires_ms is not None and self._clock.time_ms() >= self._expires_ms:
                raise ProtocolViolation(
                    "the SASL session expired (connections.max.reauth.ms or the credential's lifetime)"
                    " without re-authentication"
                )
            return None
        name = _api_name(header.api_key)
        if state is _State.AUTHENTICATE:
            if header.api_key != ApiKey.SASL_AUTHENTICATE:
                reason = f"Unexpected Kafka request of type {name} during SASL authentication."
                parts = self._settings.error_answer(body, ErrorCode.ILLEGAL_SASL_STATE)
                if parts is None:
                    raise ProtocolViolation(reason)
                return GateAnswer(parts, True, reason)
            return self._authenticate(body, header)
        if header.api_key == ApiKey.API_VERSIONS:
            if state is not _State.HANDSHAKE_OR_VERSIONS:
                raise ProtocolViolation(
                    f"Unexpected ApiVersions request received during SASL authentication state {state.name}"
                )
            if 0 <= header.api_version <= _API_VERSIONS_MAX:
                self._state = _State.HANDSHAKE
            return None
        if header.api_key != ApiKey.SASL_HANDSHAKE:
            raise ProtocolViolation(f"Unexpected Kafka request of type {name} during SASL handshake.")
        return self._handshake(body, header)

    def _decode(self, message: Message, body: bytearray, header: RequestHeader) -> StructValue:
        if header.api_version not in message.valid:
            raise ProtocolViolation(
                f"Version {header.api_version} is not supported for apiKey {_api_name(header.api_key)}"
            )
        reader = Reader(body)
        decode_request_header(reader, _flexible)
        try:
            value: StructValue = decode_from(message, header.api_version, reader)
            return value
        except (DecodeError, ValueError) as exc:
            raise ProtocolViolation(f"unparsable {message.name}: {exc}") from None

    def _handshake(self, body: bytearray, header: RequestHeader) -> GateAnswer:
        request = self._decode(SaslHandshakeRequest, body, header)
        mechanism = str(getattr(request, "mechanism", ""))
        enabled = list(self._settings.mechanisms)
        if mechanism not in enabled:
            response = SaslHandshakeResponse(error_code=ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms=enabled)
            reason = f"Unsupported SASL mechanism {mechanism}"
            return GateAnswer(_frame(header, SaslHandshakeResponse, response), True, reason)
        if self._reauthenticating and (header.api_version == 0 or mechanism != self._mechanism):
            raise ProtocolViolation(
                f"SASL re-authentication with mechanism {mechanism} (v{header.api_version}) refused"
            )
        self._mechanism = mechanism
        self._server = self._settings.new_server(mechanism)
        self._state = _State.RAW if header.api_version == 0 else _State.AUTHENTICATE
        response = SaslHandshakeResponse(error_code=ErrorCode.NONE, mechanisms=enabled)
        return GateAnswer(_frame(header, SaslHandshakeResponse, response), False, "")

    def _authenticate(self, body: bytearray, header: RequestHeader) -> GateAnswer:
        request = self._decode(SaslAuthenticateRequest, body, header)
        server = self._server
        assert server is not None
        try:
            challenge = server.evaluate(bytes(getattr(request, "auth_bytes", b"")))
            if server.complete:
                self._complete(server)
        except SaslAuthenticationError as exc:
            message = exc.client_message or (
                f"Authentication failed during {'re-authentication' if self._reauthenticating else 'authentication'}"
                f" due to invalid credentials with SASL mechanism {self._mechanism}"
            )
            response = SaslAuthenticateResponse(error_code=ErrorCode.SASL_AUTHENTICATION_FAILED, error_message=message)
            return GateAnswer(_frame(header, SaslAuthenticateResponse, response), True, f"{message} ({exc})")
        lifetime = 0
        if server.complete and self._expires_ms is not None and header.api_version >= 1:
            lifetime = max(0, self._expires_ms - self._clock.time_ms())
        response = SaslAuthenticateResponse(
            error_code=ErrorCode.NONE, error_message="", auth_bytes=challenge, session_lifetime_ms=lifetime
        )
        return GateAnswer(_frame(header, SaslAuthenticateResponse, response), False, "")

    def _raw_token(self, token: bytes) -> GateAnswer:
        server = self._server
        assert server is not None
        try:
            challenge = server.evaluate(token)
            if server.complete:
                self._complete(server)
        except SaslAuthenticationError as exc:
            raise ProtocolViolation(f"SASL authentication failed with mechanism {self._mechanism}: {exc}") from None
        size = len(challenge).to_bytes(4, "big")
        if server.complete and not challenge:
            return GateAnswer([size], False, "")
        return GateAnswer([size, challenge], False, "")

    def _complete(self, server: SaslServer) -> None:
        principal = KafkaPrincipal("User", server.principal_name)
        if self._reauthenticating and principal != self._principal:
            raise SaslAuthenticationError(
                f"Cannot change principals during re-authentication from {self._principal}: {principal}"
            )
        self._principal = principal
        self._connection.identity.principal = principal
        # Kafka bounds a session by the credential's own expiry (an OAUTHBEARER token's) and by
        # connections.max.reauth.ms when that is set, whichever comes first; without either, never.
        deadlines = [server.lifetime_ms] if server.lifetime_ms is not None else []
        if self._settings.reauth_ms > 0:
            deadlines.append(self._clock.time_ms() + self._settings.reauth_ms)
        self._expires_ms = min(deadlines) if deadlines else None
        self._state = _State.COMPLETE
        self._reauthenticating = False
        self._connection.set_max_frame_bytes(self._settings.max_request_bytes)


def _api_name(api_key: int) -> str:
    try:
        return ApiKey(api_key).name
    except ValueError:
        return str(api_key)


def _frame(header: RequestHeader, message: Message, value: StructValue) -> list[Part]:
    head = bytearray(4)
    writer = Writer(head)
    encode_response_header(writer, header.correlation_id, message.is_flexible(header.api_version))
    encode_into(message, header.api_version, value, writer)
    head[0:4] = (writer.size() - 4).to_bytes(4, "big")
    return writer.parts()
