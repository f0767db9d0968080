"""What a handler sees of one request: the broker's state, the header, the client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from odradek.wire.api import RequestHeader

if TYPE_CHECKING:
    from odradek.broker import Broker

__all__ = ["ClientConnection", "RequestContext"]


class ClientConnection(Protocol):
    """The little a handler may know about the connection a request came on."""

    peer: str
    closed: bool


@dataclass(frozen=True, slots=True)
class RequestContext:
    broker: Broker
    header: RequestHeader
    connection: ClientConnection

    @property
    def version(self) -> int:
        return self.header.api_version
