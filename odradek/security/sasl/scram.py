"""SASL/SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, Kafka's KIP-84) with ``scramp``.

Credentials are Kafka's ``ScramCredential``: salt, stored key, server key and iteration count,
derived from the salted password a client sends in AlterUserScramCredentials (the broker never
sees or keeps a password).  Kafka's rules: the user name is the SCRAM ``saslname`` with ``=2C`` and
``=3D`` decoded; an authorization id, if any, must equal it; an unknown user, a wrong proof, a
replayed or altered final message all fail with Kafka's generic message.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass

from scramp import ScramException, ScramMechanism

from odradek.security.sasl.mechanism import SaslAuthenticationError

__all__ = [
    "MAX_ITERATIONS",
    "MECHANISMS",
    "MIN_ITERATIONS",
    "ScramCredential",
    "ScramServer",
    "credential_from_salted_password",
]

#: Kafka's ScramMechanism codes (DescribeUserScramCredentials, AlterUserScramCredentials).
MECHANISMS = {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}
_HASHES = {"SCRAM-SHA-256": hashlib.sha256, "SCRAM-SHA-512": hashlib.sha512}
MIN_ITERATIONS = 4096
MAX_ITERATIONS = 16384


@dataclass(frozen=True, slots=True)
class ScramCredential:
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int


def credential_from_salted_password(
    mechanism: str, salt: bytes, salted_password: bytes, iterations: int
) -> ScramCredential:
    """RFC 5802: ClientKey = HMAC(SaltedPassword, "Client Key"), StoredKey = H(ClientKey),
    ServerKey = HMAC(SaltedPassword, "Server Key")."""
    digest = _HASHES[mechanism]
    client_key = hmac.new(salted_password, b"Client Key", digest).digest()
    server_key = hmac.new(salted_password, b"Server Key", digest).digest()
    return ScramCredential(salt, digest(client_key).digest(), server_key, iterations)


def _username(saslname: str) -> str:
    return saslname.replace("=2C", ",").replace("=3D", "=")


class ScramServer:
    """One SCRAM exchange: client-first -> server-first, client-final -> server-final."""

    def __init__(self, mechanism: str, lookup: Callable[[str, str], ScramCredential | None]) -> None:
        self.mechanism = mechanism
        self._lookup = lookup
        self._server = ScramMechanism(mechanism).make_server(self._auth_info)
        self._step = 0
        self._name = ""

    def _auth_info(self, saslname: str) -> tuple[bytes, bytes, bytes, int] | None:
        credential = self._lookup(_username(saslname), self.mechanism)
        if credential is None or credential.iterations < MIN_ITERATIONS:
            return None
        return credential.salt, credential.stored_key, credential.server_key, credential.iterations

    @property
    def complete(self) -> bool:
        return self._step == 2

    @property
    def principal_name(self) -> str:
        return self._name

    @property
    def lifetime_ms(self) -> int | None:
        return None

    def evaluate(self, token: bytes) -> bytes:
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            raise SaslAuthenticationError("SCRAM message is not UTF-8") from None
        try:
            if self._step == 0:
                return self._first(text)
            if self._step == 1:
                self._server.set_client_final(text)
                answer: str = self._server.get_server_final()
                self._step = 2
                return answer.encode()
        except ScramException as exc:
            raise SaslAuthenticationError(f"SCRAM exchange failed: {exc}") from None
        raise SaslAuthenticationError("SCRAM exchange already completed")

    def _first(self, text: str) -> bytes:
        header = text.split(",", 2)
        if len(header) < 3:
            raise SaslAuthenticationError("malformed SCRAM client-first message")
        bare = dict(item.split("=", 1) for item in header[2].split(",") if "=" in item)
        unsupported = set(bare) - {"n", "r", "tokenauth"}
        if unsupported or "tokenauth" in bare:
            raise SaslAuthenticationError(
                f"unsupported SCRAM extensions {sorted(unsupported | set(bare) & {'tokenauth'})}"
            )
        name = _username(bare.get("n", ""))
        authorization = header[1]
        if authorization.startswith("a=") and _username(authorization[2:]) not in ("", name):
            message = "Authentication failed: Client requested an authorization id that is different from username"
            raise SaslAuthenticationError(message, message)
        self._server.set_client_first(text)
        answer: str = self._server.get_server_first()
        self._name = name
        self._step = 1
        return answer.encode()
