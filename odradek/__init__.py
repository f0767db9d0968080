"""odradek: a Kafka broker in Python that real Kafka clients cannot tell from Apache Kafka.

``from odradek import Broker`` gives the embedded broker for tests and tools
(`odradek.embedded.Broker`); it is imported on first use, so ``import odradek`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from odradek.embedded import Broker

__all__ = ["Broker"]


def __getattr__(name: str) -> Any:
    if name == "Broker":
        from odradek.embedded import Broker

        return Broker
    raise AttributeError(f"module 'odradek' has no attribute {name!r}")
