"""From a request frame to a response frame: header, routing, body codec, error policy.

Error policy (Kafka's):
- a header that does not parse, an unknown API key, a body that does not parse, or an
  unsupported version of any API but ApiVersions -> ProtocolViolation (the connection closes);
- an unsupported ApiVersions version -> an ApiVersions v0 answer with UNSUPPORTED_VERSION and
  the supported ranges, so the client can retry with a version we speak;
- a handler that raises -> the handler's error response with UNKNOWN_SERVER_ERROR, and the
  traceback in the log (that is our bug, not the client's).

With an emulated release (`odradek.handlers.emulation`), that release's ranges and refusals
decide instead of the registry's, and its ApiVersions answer replaces ours.  With an
interceptor (`odradek.handlers.interception`: faults, the request journal), the interceptor is
awaited around the handler; when there is none, the hot path pays one attribute test.

Produce frames of the common shape take `odradek.handlers.produce_fast` (no value objects, no
handler coroutine) while there is no interceptor, no emulated release and no client quota; it
answers them as the generic path would, byte for byte, or hands them back untouched.  A
connection calls `Dispatcher.answer_now` straight from its read callback when nothing is queued,
and from its worker before this coroutine otherwise, so such a frame is answered without an await
(`odradek.server.connection`); a frame handed back is not read twice.  Fetch frames, under the
same conditions, take `odradek.handlers.fetch_now`: the handler's synchronous part runs from there,
and a long poll comes back as a `WaitingFetch` the connection awaits, so a fetch that finds its
data costs no coroutine either.

A handler may answer with a `PreparedAnswer` (Fetch does: no value object per partition): its own
frame is sent, unless an interceptor, an emulated release or a client quota needs the answer as a
value, which it then builds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from odradek.handlers.api_versions import supported_api_entries
from odradek.handlers.context import ClientConnection, RequestContext, Services
from odradek.handlers.fetch_now import FETCH_PREFIX, FetchAtOnce, WaitingFetch
from odradek.handlers.frames import (
    Frame,
    encode_response_frame,
    encode_response_frame_in_slices,
    failure_frame,
    handler_frame,
)
from odradek.handlers.interception import Call, Interceptor
from odradek.handlers.produce_fast import NotFast, ProduceFastPath
from odradek.handlers.registry import ApiHandler, PreparedAnswer, Registry
from odradek.handlers.request_time import StepTimer
from odradek.handlers.slices import (
    LARGE_REQUEST_BYTES,
    LoopShare,
    release_in_slices,
    run_in_slices,
)
from odradek.wire.api import (
    ApiKey,
    RequestHeader,
    decode_request_header_at_once,
)
from odradek.wire.codec import decode_from, decode_in_slices
from odradek.wire.errors import ErrorCode, ProtocolViolation
from odradek.wire.messages.api_versions import ApiVersionsResponse
from odradek.wire.primitives import DecodeError, Reader
from odradek.wire.schema import Message, StructValue

if TYPE_CHECKING:
    from odradek.handlers.emulation import Emulation

__all__ = ["Dispatcher"]

log = logging.getLogger("odradek.handlers")


PRODUCE_PREFIX = ApiKey.PRODUCE.to_bytes(2, "big")
"""The first two bytes of every Produce request frame (its API key)."""
_MAY_WAIT = frozenset({ApiKey.FETCH, ApiKey.JOIN_GROUP, ApiKey.SYNC_GROUP})
_QUOTA_APIS = frozenset({ApiKey.PRODUCE, ApiKey.FETCH})
_REQUEST_TIME_EXEMPT = frozenset({ApiKey.SASL_HANDSHAKE, ApiKey.SASL_AUTHENTICATE, ApiKey.WRITE_TXN_MARKERS})


def _carries_throttle_time(message: Message[StructValue], version: int) -> bool:
    """Whether ``message`` has a ``throttle_time_ms`` field in ``version``."""
    return any(f.name == "throttle_time_ms" and version in f.versions for f in message.struct.fields)


_INT16_MAX = 2**15 - 1


def header_versions(registry: Registry) -> dict[int, tuple[int, int]]:
    """For each API key served, the inclusive range of versions whose request header is v2, as
    `Registry.is_flexible` says for every int16 version (``low > high``: none); what
    `decode_request_header_at_once` reads each header with.  A key registered later is not in it
    and its headers take the general decoder, as do unknown keys."""
    versions = {}
    for api_key, _low, _high in registry.supported():
        handler = registry.get(api_key)
        assert handler is not None
        flexible = handler.request.flexible
        versions[api_key] = (flexible.low, _INT16_MAX if flexible.high is None else flexible.high)
    return versions


class Dispatcher:
    def __init__(self, services: Services, registry: Registry, emulation: Emulation | None = None) -> None:
        self._services = services
        self._registry = registry
        self._emulation = emulation
        #: Awaited around every handler when set (see the module docstring).
        self.interceptor: Interceptor | None = None
        self._produce_fast = ProduceFastPath(services) if emulation is None else None
        self._header_versions = header_versions(registry)
        self._fetch_at_once = FetchAtOnce(services, registry, self._header_versions) if emulation is None else None
        #: The last frame `answer_now` handed back, so that `__call__` does not read it twice.
        self._handed_back: bytearray | None = None

    @staticmethod
    def may_wait(body: bytearray) -> bool:
        """Whether this request's answer may be held back (long poll, rebalance barrier)."""
        return len(body) < 2 or (body[0] == 0 and body[1] in _MAY_WAIT)  # each of them below 256

    def answer_now(self, body: bytearray, connection: ClientConnection) -> Frame | WaitingFetch | None:
        """The answer of a request that needs no coroutine: a Produce of the fast path's shape (an
        empty frame for acks=0), or a Fetch (`odradek.handlers.fetch_now`: its frame, or the
        `WaitingFetch` of a long poll to await for it); else None (answer it with `__call__`).
        Neither path runs while an interceptor or a client quota needs the generic one."""
        api_key = body[:2]
        if self.interceptor is not None or self._services.security.quotas:
            return None
        if api_key == FETCH_PREFIX:
            return None if self._fetch_at_once is None else self._fetch_at_once.answer(body, connection)
        if api_key != PRODUCE_PREFIX or self._produce_fast is None:
            return None
        answer = self._produce_fast.answer(body, connection)
        if isinstance(answer, NotFast):
            self._handed_back = body
            return None
        return [] if answer is None else answer

    async def __call__(self, body: bytearray, connection: ClientConnection) -> Frame | None:
        if body is self._handed_back:
            self._handed_back = None
        elif body[:2] == PRODUCE_PREFIX:  # the fast path when it takes the frame
            answer = self.answer_now(body, connection)
            self._handed_back = None
            if isinstance(answer, list):
                return answer or None
        reader = Reader(body)
        try:
            header = decode_request_header_at_once(reader, self._header_versions, self._registry.is_flexible)
        except DecodeError as exc:
            raise ProtocolViolation(f"unparsable request header: {exc}") from None
        version = header.api_version
        if self._emulation is not None:  # the release's refusals first, then odradek's gaps
            refusal = self._emulation.admit(header.api_key, version)
            if refusal is not None:
                correlation_id = header.correlation_id
                return encode_response_frame(ApiKey.API_VERSIONS, 0, correlation_id, ApiVersionsResponse, refusal)
        handler = self._registry.get(header.api_key)
        if handler is None:
            raise ProtocolViolation(f"unknown API key {header.api_key}")
        if self._emulation is None and not self._registry.serves(header.api_key, version):
            if header.api_key == ApiKey.API_VERSIONS:
                return self._unsupported_api_versions(header.correlation_id)
            raise ProtocolViolation(f"{handler.request.name} version {version} is not supported")
        small = len(body) < LARGE_REQUEST_BYTES
        if small:
            try:
                request: StructValue = decode_from(handler.request, version, reader)
            except (DecodeError, ValueError) as exc:
                raise ProtocolViolation(f"unparsable {handler.request.name} v{version}: {exc}") from None
            if header.api_key != ApiKey.METADATA:  # a small Metadata request may still have a huge answer
                return await self._answer(header, handler, request, connection, len(body), None)
        share = LoopShare()
        try:
            if not small:
                try:
                    request = await run_in_slices(decode_in_slices(handler.request, version, reader), share)
                except (DecodeError, ValueError) as exc:
                    raise ProtocolViolation(f"unparsable {handler.request.name} v{version}: {exc}") from None
            frame = await self._answer(header, handler, request, connection, len(body), share)
            if share.steps and self.interceptor is None:  # an interceptor (the journal) may keep it
                await release_in_slices(request, share)
            return frame
        finally:
            share.done()

    async def _answer(
        self,
        header: RequestHeader,
        handler: ApiHandler,
        request: StructValue,
        connection: ClientConnection,
        request_bytes: int,
        share: LoopShare | None,
    ) -> Frame | None:
        """Handle a decoded request and encode its answer (in slices with a ``share``)."""
        version = header.api_version
        context = RequestContext(self._services, header, connection)
        if self.interceptor is not None or self._emulation is not None:
            return await self._answer_slowly(header, handler, request, context, request_bytes)
        try:
            if self._services.security.quotas:
                timer = self._request_timer(header, connection)
                if timer is None:
                    response = await handler.handle(context, request)
                else:
                    step_timer = StepTimer(handler.handle(context, request), timer)
                    response = await step_timer
                if timer is not None or header.api_key in _QUOTA_APIS:
                    spent = None if timer is None else step_timer.nanoseconds
                    if isinstance(response, PreparedAnswer):
                        response = response.value()
                    return self._throttled(header, handler, connection, request_bytes, response, spent)
            else:
                response = await handler.handle(context, request)
            if response is None:
                return None
            if not isinstance(response, StructValue):  # a PreparedAnswer (an ABC: isinstance on it runs Python)
                return response.frame(header.correlation_id)
            if share is None:
                return handler_frame(header, handler, response)
            frame = await encode_response_frame_in_slices(
                header.api_key, version, header.correlation_id, handler.response, response, share
            )
            if share.steps:
                await release_in_slices(response, share)
            return frame
        except ProtocolViolation:
            raise
        except Exception:
            return failure_frame(header, handler, request, connection.peer)

    def _request_timer(self, header: RequestHeader, connection: ClientConnection) -> Callable[[], int] | None:
        """The timer of this request's handler time when a ``request_percentage`` quota charges it
        (Kafka exempts inter-broker requests, and authentication happens before its request
        threads), else None."""
        if header.api_key in _REQUEST_TIME_EXEMPT:
            return None
        throttle = self._services.security.throttle
        if not throttle.charges_request_time(connection.identity.principal.name, header.client_id or ""):
            return None
        return throttle.request_timer

    def _throttled(
        self,
        header: RequestHeader,
        handler: ApiHandler,
        connection: ClientConnection,
        request_bytes: int,
        response: StructValue | None,
        handler_nanoseconds: int | None,
    ) -> Frame | None:
        """Kafka's client quotas: Produce (request bytes), Fetch (answer bytes) and any request's
        handler time (``handler_nanoseconds`` when charged).  A client over a quota gets the largest
        throttle time in the answer (a fetch's without its data) and its connection takes no further
        request for that long (`odradek.security.quotas`).  An answer-less Produce (acks=0) is not
        charged for its time, as in Kafka; the encoding of a charged answer is recorded afterwards
        without throttling it (Kafka's network thread time)."""
        throttle = self._services.security.throttle
        user, client = connection.identity.principal.name, header.client_id or ""
        charged = handler_nanoseconds is not None and response is not None
        delay_ms = 0
        if charged:
            delay_ms = throttle.throttle_request_time(user, client, handler_nanoseconds or 0)
        if header.api_key == ApiKey.PRODUCE:
            delay_ms = max(delay_ms, throttle.throttle_produce(user, client, request_bytes))
        elif header.api_key == ApiKey.FETCH and response is not None:
            started = throttle.request_timer() if charged else 0
            frame = handler_frame(header, handler, response)
            delay_ms = max(delay_ms, throttle.throttle_fetch(user, client, sum(len(part) for part in frame), delay_ms))
            if delay_ms <= 0:
                if charged:
                    throttle.record_request_time(user, client, throttle.request_timer() - started)
                return frame
            response.responses = []  # type: ignore[attr-defined]
        if delay_ms > 0:
            connection.mute(throttle.delay(delay_ms))
            if response is not None and _carries_throttle_time(handler.response, header.api_version):
                response.throttle_time_ms = delay_ms  # type: ignore[attr-defined]
        if response is None:
            return None
        if not charged:
            return handler_frame(header, handler, response)
        started = throttle.request_timer()
        frame = handler_frame(header, handler, response)
        throttle.record_request_time(user, client, throttle.request_timer() - started)
        return frame

    def error_answer(self, body: bytearray, code: ErrorCode) -> Frame | None:
        """The answer to this request frame that carries ``code`` for the whole request (Kafka's
        ``getErrorResponse``), or None when the frame is not a request this broker can decode."""
        reader = Reader(body)
        try:
            header = decode_request_header_at_once(reader, self._header_versions, self._registry.is_flexible)
            handler = self._registry.get(header.api_key)
            if handler is None or not self._registry.serves(header.api_key, header.api_version):
                return None
            request: StructValue = decode_from(handler.request, header.api_version, reader)
        except (DecodeError, ValueError):
            return None
        return handler_frame(header, handler, handler.error_response(request, code))

    async def _answer_slowly(
        self,
        header: RequestHeader,
        handler: ApiHandler,
        request: StructValue,
        context: RequestContext,
        request_bytes: int,
    ) -> Frame | None:
        """The request through the interceptor, and an ApiVersions answer as the emulated release's."""
        timer = self._request_timer(header, context.connection) if self._services.security.quotas else None
        spent: list[int] = []  # the handler's running time, when a request quota charges it

        async def answer(value: StructValue) -> StructValue | None:
            try:
                if timer is None:
                    response = await handler.handle(context, value)
                else:
                    step_timer = StepTimer(handler.handle(context, value), timer)
                    try:
                        response = await step_timer
                    finally:
                        spent.append(step_timer.nanoseconds)
                return response.value() if isinstance(response, PreparedAnswer) else response
            except ProtocolViolation:
                raise
            except Exception:
                peer = context.connection.peer
                log.exception("%s v%d from %s failed", handler.request.name, header.api_version, peer)
            return handler.error_response(value, ErrorCode.UNKNOWN_SERVER_ERROR)

        interceptor = self.interceptor
        if interceptor is None:
            response = await answer(request)
        else:
            response = await interceptor(Call(header, handler, request, context), answer)
        if response is None or context.connection.closed:
            return None
        if self._emulation is not None and header.api_key == ApiKey.API_VERSIONS:
            response = self._emulation.advertise(response)
        if timer is not None or (header.api_key in _QUOTA_APIS and self._services.security.quotas):
            charged = sum(spent) if timer is not None else None
            return self._throttled(header, handler, context.connection, request_bytes, response, charged)
        try:
            return handler_frame(header, handler, response)
        except Exception:
            log.exception("%s v%d: the answer cannot be encoded", handler.request.name, header.api_version)
            raise ProtocolViolation("internal error while answering; closing the connection") from None

    def _unsupported_api_versions(self, correlation_id: int) -> Frame:
        response = ApiVersionsResponse(
            error_code=ErrorCode.UNSUPPORTED_VERSION, api_keys=supported_api_entries(self._registry)
        )
        return encode_response_frame(ApiKey.API_VERSIONS, 0, correlation_id, ApiVersionsResponse, response)
