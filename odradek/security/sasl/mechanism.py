"""What every SASL mechanism's server side offers the authenticator.

A server is made per exchange; `evaluate` takes the client's next token and returns the server's
answer.  Invariants: `complete` becomes True exactly once, after which `principal_name` is the
authenticated name; a wrong credential raises `SaslAuthenticationError`, whose message goes to the
client only when ``client_message`` says so (Kafka never tells which of user or password was wrong).
A message Kafka cannot evaluate at all, so that it drops the connection without an answer (an
OAUTHBEARER expiry that overflows), raises `ProtocolViolation` instead.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["SaslAuthenticationError", "SaslServer"]


class SaslAuthenticationError(Exception):
    """The client failed to authenticate; ``client_message`` is what it is told, None for Kafka's generic text."""

    def __init__(self, detail: str, client_message: str | None = None) -> None:
        super().__init__(detail)
        self.client_message = client_message


class SaslServer(Protocol):
    mechanism: str

    @property
    def complete(self) -> bool: ...

    @property
    def principal_name(self) -> str: ...

    @property
    def lifetime_ms(self) -> int | None:
        """When the credential itself expires (epoch ms; OAUTHBEARER tokens), else None."""
        ...

    def evaluate(self, token: bytes) -> bytes: ...
