"""The handler registry: which APIs and versions this broker serves, and by what.

Handler modules register ``(api key, min version, max version)`` with their request and
response schemas; ApiVersions is computed from here and never listed by hand.
Invariant: one registration per API key (a second one fails at import time), and the
registered range lies inside the request schema's valid versions.

`Registry.api` is generic: a handler typed ``(ctx, request: ProduceRequestValue) ->
ProduceResponseValue | None`` registers with ``ProduceRequest``/``ProduceResponse`` (typed
``Message[ProduceRequestValue]``/``Message[ProduceResponseValue]`` by their stubs), and mypy
checks that handler, error responder and schemas agree.  The registry itself holds handlers of
every API, so what it stores takes an ``Any`` request (a handler of one API takes no other
value) and answers some `StructValue`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from odradek.wire.errors import ErrorCode
from odradek.wire.primitives import Part
from odradek.wire.schema import Message, StructValue

if TYPE_CHECKING:
    from odradek.handlers.context import RequestContext

__all__ = ["ApiHandler", "ErrorResponder", "Handler", "HandlerFn", "PreparedAnswer", "Registry", "registry"]

Req = TypeVar("Req", bound=StructValue)
Resp = TypeVar("Resp", bound=StructValue)
Value = TypeVar("Value", bound=StructValue, covariant=True)


class PreparedAnswer(ABC, Generic[Value]):
    """An answer a handler keeps in a compact form of its own instead of a message value, because
    building the value would cost more than the work behind it (Fetch of many partitions).

    Invariant: ``frame(c)`` is, byte for byte, the frame the generic codec encodes from ``value()``
    with correlation id ``c`` and throttle time 0.  The dispatcher sends `frame` when nothing needs
    the value, and asks for `value` when something reads or changes the answer before it is sent
    (an interceptor, an emulated release, client quotas).
    """

    __slots__ = ()

    @abstractmethod
    def frame(self, correlation_id: int) -> list[Part]:
        """The whole response frame: size prefix, response header, body."""

    @abstractmethod
    def value(self) -> Value:
        """The same answer as a message value."""


Handler = Callable[["RequestContext", Req], Awaitable[Resp | PreparedAnswer[Resp] | None]]
"""A handler of one API: its request value in, its response (a value, or one prepared for sending),
or None (no answer), out."""
HandlerFn = Handler[Any, StructValue]
ErrorResponder = Callable[[Any, ErrorCode], StructValue]


@dataclass(frozen=True, slots=True)
class ApiHandler:
    """One served API: its schemas, the versions we accept, the coroutine that answers.

    ``handle`` returns the response value (or a `PreparedAnswer` of it), or None when no response
    is sent (Produce acks=0).
    ``error_response`` builds the answer that carries one error code for the whole request;
    the dispatcher uses it when a handler fails unexpectedly.
    """

    request: Message
    response: Message
    min_version: int
    max_version: int
    handle: HandlerFn
    error_response: ErrorResponder

    @property
    def api_key(self) -> int:
        return self.request.api_key


class Registry:
    def __init__(self) -> None:
        self._handlers: dict[int, ApiHandler] = {}
        self._supported: tuple[tuple[int, int, int], ...] | None = None

    def register(self, handler: ApiHandler) -> None:
        key = handler.api_key
        if key in self._handlers:
            raise ValueError(f"API key {key} registered twice")
        if handler.min_version not in handler.request.valid or handler.max_version not in handler.request.valid:
            raise ValueError(f"{handler.request.name}: {handler.min_version}-{handler.max_version} not in schema")
        self._handlers[key] = handler
        self._supported = None

    def get(self, api_key: int) -> ApiHandler | None:
        return self._handlers.get(api_key)

    def supported(self) -> tuple[tuple[int, int, int], ...]:
        """(api key, min, max) for every served API, in key order (kept until the next `register`)."""
        if self._supported is None:
            self._supported = tuple(sorted((h.api_key, h.min_version, h.max_version) for h in self._handlers.values()))
        return self._supported

    def is_flexible(self, api_key: int, version: int) -> bool:
        handler = self._handlers.get(api_key)
        return handler is not None and handler.request.is_flexible(version)

    def serves(self, api_key: int, version: int) -> bool:
        handler = self._handlers.get(api_key)
        return handler is not None and handler.min_version <= version <= handler.max_version

    def api(
        self,
        request: Message[Req],
        response: Message[Resp],
        versions: str,
        error_response: Callable[[Req, ErrorCode], Resp],
    ) -> Callable[[Handler[Req, Resp]], Handler[Req, Resp]]:
        """Decorator form: ``@registry.api(ProduceRequest, ProduceResponse, "0-13", produce_error)``."""
        low, _, high = versions.partition("-")

        def decorate(fn: Handler[Req, Resp]) -> Handler[Req, Resp]:
            self.register(ApiHandler(request, response, int(low), int(high or low), fn, error_response))
            return fn

        return decorate


registry = Registry()
