"""The answer a connection's gate gives instead of dispatching a frame (see `odradek.server.connection`)."""

from __future__ import annotations

from dataclasses import dataclass

from odradek.wire.primitives import Part

__all__ = ["GateAnswer"]


@dataclass(frozen=True, slots=True)
class GateAnswer:
    """The response's parts, and whether (and why) the connection closes once they are sent."""

    parts: list[Part]
    close_after: bool = False
    reason: str = ""
