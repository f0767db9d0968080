"""SASL/PLAIN (RFC 4616) against the users of the listener's JAAS config (``user_<name>="<password>"``).

The client's single message is ``[authzid] NUL authcid NUL passwd`` in UTF-8.  Kafka's checks and
messages: three tokens, a username, a password, an authorization id equal to the username if any, then
the password compared in constant time.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping

from odradek.security.sasl.mechanism import SaslAuthenticationError

__all__ = ["PlainServer"]


class PlainServer:
    mechanism = "PLAIN"

    def __init__(self, users: Mapping[str, str]) -> None:
        self._users = users
        self._name = ""
        self._complete = False

    @property
    def complete(self) -> bool:
        return self._complete

    @property
    def principal_name(self) -> str:
        return self._name

    @property
    def lifetime_ms(self) -> int | None:
        return None

    def evaluate(self, token: bytes) -> bytes:
        def fail(message: str) -> SaslAuthenticationError:
            return SaslAuthenticationError(message, message)

        if self._complete:
            raise fail("Authentication failed: PLAIN exchange already completed")
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            raise fail("Invalid SASL/PLAIN response: not UTF-8") from None
        tokens = text.split("\0")
        if len(tokens) != 3:
            raise fail(f"Invalid SASL/PLAIN response: expected 3 tokens, got {len(tokens)}")
        authorization_id, username, password = tokens
        if not username:
            raise fail("Authentication failed: username not specified")
        if not password:
            raise fail("Authentication failed: password not specified")
        expected = self._users.get(username)
        if expected is None or not hmac.compare_digest(expected.encode(), password.encode()):
            raise fail("Authentication failed: Invalid username or password")
        if authorization_id and authorization_id != username:
            raise fail("Authentication failed: Client requested an authorization id that is different from username")
        self._name = username
        self._complete = True
        return b""
