"""Fetch answered from the connection's read callback: no handler coroutine, no task, no await.

A consumer's fetch usually finds its data at once, and then everything the Fetch handler does is
synchronous (`odradek.handlers.fetch.begin_fetch`); running it through the dispatch coroutine cost a
task, a trip through the event loop and a coroutine per request.  `FetchAtOnce.answer` takes a Fetch
frame the generic path would hand to the handler unchanged (the dispatcher sees to no interceptor, no
emulated release and no client quota; here: a small frame whose header and body decode, a version
the registry serves) and runs `begin_fetch` on it:

- an answer (records ready, an error, no time to wait) comes back as the response frame, the bytes
  the generic path would send for it;
- a long poll comes back as a `WaitingFetch`, which the connection awaits (in request order) for
  the answer; the fetch session was updated once, by `begin_fetch`, and is not touched again;
- anything else is None, and the frame takes the generic path untouched (which refuses what does
  not decode exactly as before).

The dispatcher's error policy holds (`odradek.handlers.frames.failure_frame`): an exception while
answering is logged and answered with the handler's UNKNOWN_SERVER_ERROR response.
"""

from __future__ import annotations

from dataclasses import dataclass

from odradek.handlers.context import ClientConnection, RequestContext, Services
from odradek.handlers.fetch import FetchWait, begin_fetch
from odradek.handlers.frames import failure_frame, handler_frame
from odradek.handlers.registry import ApiHandler, Registry
from odradek.handlers.slices import LARGE_REQUEST_BYTES
from odradek.wire.api import ApiKey, RequestHeader, decode_request_header_at_once
from odradek.wire.codec import decode_from
from odradek.wire.errors import ProtocolViolation
from odradek.wire.messages.fetch import FetchRequest
from odradek.wire.primitives import DecodeError, Part, Reader
from odradek.wire.schema import StructValue

__all__ = ["FETCH_PREFIX", "FetchAtOnce", "WaitingFetch"]

FETCH_PREFIX = ApiKey.FETCH.to_bytes(2, "big")
"""The first two bytes of every Fetch request frame (its API key)."""


@dataclass(frozen=True, slots=True)
class WaitingFetch:
    """A Fetch begun at once that waits for data: `answer` is its response frame, once."""

    header: RequestHeader
    handler: ApiHandler
    request: StructValue
    wait: FetchWait
    peer: str

    async def answer(self) -> list[Part] | None:
        try:
            answer = await self.wait.finish()
            parts: list[Part] = answer.frame(self.header.correlation_id)
        except ProtocolViolation:
            raise
        except Exception:
            return failure_frame(self.header, self.handler, self.request, self.peer)
        return parts


class FetchAtOnce:
    """See the module docstring; one per dispatcher."""

    __slots__ = ("_header_versions", "_registry", "_services")

    def __init__(self, services: Services, registry: Registry, header_versions: dict[int, tuple[int, int]]) -> None:
        self._services = services
        self._registry = registry
        self._header_versions = header_versions

    def answer(self, body: bytearray, connection: ClientConnection) -> list[Part] | WaitingFetch | None:
        """``body`` is a Fetch frame (it starts with `FETCH_PREFIX`); the caller has checked that no
        interceptor, emulated release or client quota is in place."""
        if len(body) >= LARGE_REQUEST_BYTES:
            return None
        registry = self._registry
        reader = Reader(body)
        try:
            header = decode_request_header_at_once(reader, self._header_versions, registry.is_flexible)
            handler = registry.get(ApiKey.FETCH)
            if handler is None or not registry.serves(ApiKey.FETCH, header.api_version):
                return None
            request = decode_from(FetchRequest, header.api_version, reader)
        except (DecodeError, ValueError):
            return None
        context = RequestContext(self._services, header, connection)
        try:
            outcome = begin_fetch(context, request)
            if isinstance(outcome, FetchWait):
                return WaitingFetch(header, handler, request, outcome, connection.peer)
            if isinstance(outcome, StructValue):  # a top-level session error
                return handler_frame(header, handler, outcome)
            parts: list[Part] = outcome.frame(header.correlation_id)
            return parts
        except ProtocolViolation:
            raise
        except Exception:
            return failure_frame(header, handler, request, connection.peer)
