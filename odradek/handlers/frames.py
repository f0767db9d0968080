"""Response frames from message values, and the answer to a request whose handling failed.

Both the dispatcher (`odradek.handlers.dispatch`) and the paths that answer without its coroutine
(`odradek.handlers.fetch_now`) write frames here, so a frame and the error policy are one thing:
an unexpected exception while answering is logged once and answered with the handler's
UNKNOWN_SERVER_ERROR response; when even that cannot be encoded, the connection closes
(`ProtocolViolation`).
"""

from __future__ import annotations

import logging
import struct
from typing import TypeVar

from odradek.handlers.registry import ApiHandler
from odradek.handlers.slices import LoopShare, run_in_slices
from odradek.wire.api import RequestHeader, encode_response_header, response_header_is_flexible
from odradek.wire.codec import encode_in_slices, encode_into
from odradek.wire.errors import ErrorCode, ProtocolViolation
from odradek.wire.primitives import Part, Writer
from odradek.wire.schema import Message, StructValue

__all__ = [
    "Frame",
    "encode_response_frame",
    "encode_response_frame_in_slices",
    "failure_frame",
    "handler_frame",
]

Frame = list[Part]
"""The pieces of one response frame; a fetch response's record sets may be `FilePart`s."""

log = logging.getLogger("odradek.handlers")

_SIZE = struct.Struct(">i")

T = TypeVar("T", bound=StructValue)
"""A response message's value class."""


def encode_response_frame(api_key: int, version: int, correlation_id: int, message: Message[T], value: T) -> Frame:
    """Size prefix, response header and body, as the pieces of one vectored write.

    Record batches of a fetch response are not copied: they stay the buffers the storage layer
    read them into, or file parts the connection sends from the segment file.
    """
    head = bytearray(4)
    writer = Writer(head)
    flexible = response_header_is_flexible(api_key, message.is_flexible(version))
    encode_response_header(writer, correlation_id, flexible)
    encode_into(message, version, value, writer)
    _SIZE.pack_into(head, 0, writer.size() - 4)
    return writer.parts()


async def encode_response_frame_in_slices(
    api_key: int, version: int, correlation_id: int, message: Message[T], value: T, share: LoopShare
) -> Frame:
    """`encode_response_frame`, sharing the event loop while a huge answer is encoded."""
    head = bytearray(4)
    writer = Writer(head)
    flexible = response_header_is_flexible(api_key, message.is_flexible(version))
    encode_response_header(writer, correlation_id, flexible)
    await run_in_slices(encode_in_slices(message, version, value, writer), share)
    _SIZE.pack_into(head, 0, writer.size() - 4)
    return writer.parts()


def handler_frame(header: RequestHeader, handler: ApiHandler, value: StructValue) -> Frame:
    """The frame of ``value``, the answer of ``handler`` to the request ``header`` names."""
    return encode_response_frame(header.api_key, header.api_version, header.correlation_id, handler.response, value)


def failure_frame(header: RequestHeader, handler: ApiHandler, request: StructValue, peer: str) -> Frame:
    """Called while handling the exception that answering ``request`` raised: logs it, and returns
    the handler's UNKNOWN_SERVER_ERROR answer (or raises `ProtocolViolation` when that cannot be
    encoded either)."""
    name = handler.request.name
    log.exception("%s v%d from %s failed", name, header.api_version, peer)
    try:
        return handler_frame(header, handler, handler.error_response(request, ErrorCode.UNKNOWN_SERVER_ERROR))
    except Exception:
        log.exception("%s v%d: the error response cannot be encoded either", name, header.api_version)
        raise ProtocolViolation("internal error while answering; closing the connection") from None
