"""Who a connection speaks for: Kafka's ``KafkaPrincipal`` (type and name) and the connection's identity.

Invariant: a connection starts as ``User:ANONYMOUS`` and changes principal only when a TLS client
certificate or a completed SASL exchange says so, exactly as Kafka's default principal builder does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ANONYMOUS", "ClientIdentity", "KafkaPrincipal", "parse_principal"]


@dataclass(frozen=True, slots=True)
class KafkaPrincipal:
    type: str
    name: str

    def __str__(self) -> str:
        return f"{self.type}:{self.name}"


ANONYMOUS = KafkaPrincipal("User", "ANONYMOUS")


def parse_principal(text: str) -> KafkaPrincipal:
    """``Type:name`` as Kafka's ``SecurityUtils.parseKafkaPrincipal``; ValueError without a colon."""
    kind, sep, name = text.partition(":")
    if not sep or not kind:
        raise ValueError(f"expected a string in format principalType:principalName but got {text}")
    return KafkaPrincipal(kind, name)


@dataclass(slots=True)
class ClientIdentity:
    """The connection a request came on, as security sees it: principal, client host, listener.

    ``advertised`` is the endpoint of the listener the client used (Metadata and FindCoordinator
    answer with it); None means the broker's default endpoint.
    """

    principal: KafkaPrincipal = ANONYMOUS
    host: str = "127.0.0.1"
    listener: str = "PLAINTEXT"
    protocol: str = "PLAINTEXT"
    advertised: tuple[str, int] | None = None
    client_id: str = field(default="")
