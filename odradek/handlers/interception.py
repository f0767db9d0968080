"""The dispatcher's one hook around a handler: how test doubles see and bend requests.

An `Interceptor` installed on the dispatcher (`Dispatcher.interceptor`) is awaited instead of
the handler with the decoded `Call` and an `Answer`: the handler behind the dispatcher's error
policy (a handler that raises answers its error response with UNKNOWN_SERVER_ERROR).  It may
call the answer with the request or a changed request, replace the answer, delay it, or close
the connection (`Call.connection.close()`; the dispatcher then sends nothing).  Without an
interceptor the dispatcher never builds a `Call`: the hook costs one attribute test.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from odradek.handlers.context import ClientConnection, RequestContext
from odradek.handlers.registry import ApiHandler
from odradek.wire.api import RequestHeader
from odradek.wire.schema import StructValue

__all__ = ["Answer", "Call", "Interceptor"]

Answer = Callable[[StructValue], Awaitable[StructValue | None]]
"""Run the handler on a request value: its answer, or None (no answer, Produce acks=0)."""


class Call:
    """One decoded request on its way to its handler (a plain class: this module is imported
    by every broker, and a dataclass would cost each start-up half a millisecond)."""

    __slots__ = ("context", "handler", "header", "request")

    def __init__(self, header: RequestHeader, handler: ApiHandler, request: StructValue, context: RequestContext):
        self.header = header
        self.handler = handler
        self.request = request
        self.context = context

    @property
    def api_name(self) -> str:
        """Kafka's name of the API (``"Produce"``), from the request schema's name."""
        return self.handler.request.name.removesuffix("Request")

    @property
    def version(self) -> int:
        return self.header.api_version

    @property
    def connection(self) -> ClientConnection:
        return self.context.connection


class Interceptor(Protocol):
    async def __call__(self, call: Call, answer: Answer) -> StructValue | None:
        """The answer to send (None: none); see the module docstring."""
        ...
