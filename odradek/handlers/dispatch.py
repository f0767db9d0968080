"""From a request frame to a response frame: header, routing, body codec, error policy.

Error policy (Kafka's):
- a header that does not parse, an unknown API key, a body that does not parse, or an
  unsupported version of any API but ApiVersions -> ProtocolViolation (the connection closes);
- an unsupported ApiVersions version -> an ApiVersions v0 answer with UNSUPPORTED_VERSION and
  the supported ranges, so the client can retry with a version we speak;
- a handler that raises -> the handler's error response with UNKNOWN_SERVER_ERROR, and the
  traceback in the log (that is our bug, not the client's).
"""

from __future__ import annotations

import logging
import struct
from typing import TYPE_CHECKING, Any

from odradek.handlers.api_versions import supported_api_entries
from odradek.handlers.context import ClientConnection, RequestContext
from odradek.handlers.registry import Registry
from odradek.wire.api import (
    ApiKey,
    decode_request_header,
    encode_response_header,
    response_header_is_flexible,
)
from odradek.wire.codec import decode_from, encode_into
from odradek.wire.errors import ErrorCode, ProtocolViolation
from odradek.wire.messages.api_versions import ApiVersionsResponse
from odradek.wire.primitives import DecodeError, Reader, Writer

if TYPE_CHECKING:
    from odradek.broker import Broker

__all__ = ["Dispatcher"]

log = logging.getLogger("odradek.handlers")

_SIZE = struct.Struct(">i")


class Dispatcher:
    def __init__(self, broker: Broker, registry: Registry) -> None:
        self._broker = broker
        self._registry = registry

    async def __call__(self, body: bytearray, connection: ClientConnection) -> bytearray | None:
        reader = Reader(body)
        try:
            header = decode_request_header(reader, self._registry.is_flexible)
        except DecodeError as exc:
            raise ProtocolViolation(f"unparsable request header: {exc}") from None
        handler = self._registry.get(header.api_key)
        if handler is None:
            raise ProtocolViolation(f"unknown API key {header.api_key}")
        version = header.api_version
        if not self._registry.serves(header.api_key, version):
            if header.api_key == ApiKey.API_VERSIONS:
                return self._unsupported_api_versions(header.correlation_id)
            raise ProtocolViolation(f"{handler.request.name} version {version} is not supported")
        try:
            request = decode_from(handler.request, version, reader)
        except (DecodeError, ValueError) as exc:
            raise ProtocolViolation(f"unparsable {handler.request.name} v{version}: {exc}") from None
        context = RequestContext(self._broker, header, connection)
        try:
            response = await handler.handle(context, request)
        except ProtocolViolation:
            raise
        except Exception:
            log.exception("%s v%d from %s failed", handler.request.name, version, connection.peer)
            response = handler.error_response(request, ErrorCode.UNKNOWN_SERVER_ERROR)
        if response is None:
            return None
        flexible = handler.response.is_flexible(version)
        return self._frame(header.api_key, header.correlation_id, flexible, handler.response, version, response)

    @staticmethod
    def _frame(api_key: int, correlation_id: int, flexible: bool, message: Any, version: int, value: Any) -> bytearray:
        writer = Writer(bytearray(4))
        encode_response_header(writer, correlation_id, response_header_is_flexible(api_key, flexible))
        encode_into(message, version, value, writer)
        _SIZE.pack_into(writer.buf, 0, len(writer.buf) - 4)
        return writer.buf

    def _unsupported_api_versions(self, correlation_id: int) -> bytearray:
        response = ApiVersionsResponse(
            error_code=ErrorCode.UNSUPPORTED_VERSION, api_keys=supported_api_entries(self._registry)
        )
        return self._frame(ApiKey.API_VERSIONS, correlation_id, False, ApiVersionsResponse, 0, response)
