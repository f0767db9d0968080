"""SASL/OAUTHBEARER (RFC 7628, Kafka's KIP-255) with ``pyjwt``.

The client's message is ``gs2-header \\x01 auth=Bearer <token> \\x01 [key=value \\x01]* \\x01``.  The
token is checked one of two ways, as Kafka's broker does:

- unsecured (Kafka's default ``OAuthBearerUnsecuredValidatorCallbackHandler``, for tests): an
  ``alg: none`` JWT without signature, with an ``exp`` in the future (``unsecuredValidatorAllowableClockSkewMs``),
  the principal in ``sub`` (``unsecuredValidatorPrincipalClaimName``) and, when
  ``unsecuredValidatorRequiredScope`` is set, those scopes in ``scope``;
- signed, once ``sasl.oauthbearer.jwks.endpoint.url`` names a JWKS (a ``file:`` URL; read at each
  login, so a rotated key applies at once): the signature against the key of the token's ``kid``, the
  expiry, ``nbf`` and ``iat`` on the broker's clock (``sasl.oauthbearer.clock.skew.seconds``),
  ``sasl.oauthbearer.expected.audience`` and
  ``expected.issuer`` when set, the principal in ``sasl.oauthbearer.sub.claim.name``.

A refused token is answered, as Kafka does, with a JSON error challenge (``{"status":"invalid_token"}``);
the client acknowledges it with ``\\x01`` and the exchange then fails with that JSON as the message.
A token whose header or claims hold JSON's non-standard literals (``NaN``, ``Infinity``,
``-Infinity``), which Python's parser (and so pyjwt's) reads but Kafka's refuses, is refused as
invalid: checked against Kafka 4.4.0 for unsecured tokens (probe ``secured.sasl_oauth_literals``);
signed tokens get the same parse, not probed (the probes' Kafka has no JWKS listener).
The token's expiry bounds the session (KIP-368).  ``pyjwt`` (and ``cryptography`` behind it) is
imported by the first token checked, so a broker whose listeners offer no OAUTHBEARER never loads it.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote, urlparse

from odradek.clock import Clock
from odradek.security.sasl.mechanism import SaslAuthenticationError
from odradek.wire.errors import ProtocolViolation

__all__ = ["OAuthBearerServer"]

_MESSAGE = re.compile(r"^([ny]|p=[^,]*),(a=[^,]*)?,\x01(.*)\x01\x01$", re.DOTALL)
_INVALID = json.dumps({"status": "invalid_token"}, separators=(",", ":"))
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class OAuthBearerServer:
    mechanism = "OAUTHBEARER"

    def __init__(self, settings: Mapping[str, str], clock: Clock) -> None:
        self._settings = settings
        self._clock = clock
        self._name = ""
        self._lifetime_ms: int | None = None
        self._complete = False
        self._error: str | None = None

    @property
    def complete(self) -> bool:
        return self._complete

    @property
    def principal_name(self) -> str:
        return self._name

    @property
    def lifetime_ms(self) -> int | None:
        return self._lifetime_ms

    def evaluate(self, token: bytes) -> bytes:
        if token == b"\x01" and self._error is not None:
            raise SaslAuthenticationError(self._error, self._error)
        self._error = None
        match = _MESSAGE.match(token.decode("utf-8", "replace"))
        if match is None:
            raise SaslAuthenticationError("Invalid OAUTHBEARER client first message")
        fields = dict(item.split("=", 1) for item in match.group(3).split("\x01") if "=" in item)
        auth = fields.get("auth", "")
        if not auth.startswith("Bearer "):
            raise SaslAuthenticationError("Invalid OAUTHBEARER client first message")
        claims = self._validate(auth[len("Bearer ") :].strip())
        if claims is None:
            self._error = _INVALID
            return _INVALID.encode()
        name, expires_ms = claims
        authorization = (match.group(2) or "a=")[2:]
        if authorization and authorization != name:
            message = (
                f"Authentication failed: Client requested an authorization id ({authorization}) that is different"
                f" from the token's principal name ({name})"
            )
            raise SaslAuthenticationError(message, message)
        self._name, self._lifetime_ms, self._complete = name, expires_ms, True
        return b""

    def _validate(self, token: str) -> tuple[str, int] | None:
        """(principal, expiry in epoch ms) of a valid token, else None."""
        if not _standard_json(token):
            return None
        if self._settings.get("sasl.oauthbearer.jwks.endpoint.url"):
            return self._signed(token)
        return self._unsecured(token)

    def _unsecured(self, token: str) -> tuple[str, int] | None:
        import jwt

        try:
            header = jwt.get_unverified_header(token)
            claims = jwt.decode(token, options={"verify_signature": False, "verify_exp": False})
        except jwt.PyJWTError:
            return None
        if header.get("alg") != "none" or not token.endswith("."):
            return None
        skew = int(self._settings.get("jaas.unsecuredValidatorAllowableClockSkewMs", "0"))
        principal_claim = self._settings.get("jaas.unsecuredValidatorPrincipalClaimName", "sub")
        name = claims.get(principal_claim)
        expires_ms = _epoch_ms(claims.get("exp"))
        if expires_ms is None or not isinstance(name, str) or not name:
            return None
        if expires_ms + skew <= self._clock.time_ms():
            return None
        required = self._settings.get("jaas.unsecuredValidatorRequiredScope", "").split()
        granted = _scopes(claims.get("scope"))
        if granted is None or not set(required) <= granted:
            return None
        return name, expires_ms

    def _signed(self, token: str) -> tuple[str, int] | None:
        import jwt
        from jwt.algorithms import get_default_algorithms

        url = urlparse(self._settings["sasl.oauthbearer.jwks.endpoint.url"])
        try:
            keys = jwt.PyJWKSet.from_json(Path(unquote(url.path)).read_text())
            header = jwt.get_unverified_header(token)
            key = next(k for k in keys.keys if k.key_id == header.get("kid"))
            # Kafka finds no verification key when the token's algorithm is not one of the key's kind
            # (HS256 naming an EC key); pyjwt would raise TypeError preparing the key.
            algorithm = get_default_algorithms().get(str(header.get("alg")))
            if algorithm is None or not isinstance(algorithm, type(key.Algorithm)):
                return None
            audience = self._settings.get("sasl.oauthbearer.expected.audience")
            issuer = self._settings.get("sasl.oauthbearer.expected.issuer")
            claims = jwt.decode(
                token,
                key.key,
                algorithms=[str(header.get("alg"))],
                audience=[a.strip() for a in audience.split(",")] if audience else None,
                issuer=issuer or None,
                options={
                    "require": ["exp"],
                    "verify_aud": bool(audience),
                    "verify_exp": False,
                    "verify_nbf": False,
                    "verify_iat": False,
                },
            )
        except (OSError, StopIteration, jwt.PyJWTError, ValueError):
            return None
        name = claims.get(self._settings.get("sasl.oauthbearer.sub.claim.name", "sub"))
        expires_ms = _epoch_ms(claims["exp"])
        if expires_ms is None or not isinstance(name, str) or not name:
            return None
        skew_ms = int(self._settings.get("sasl.oauthbearer.clock.skew.seconds", "30")) * 1000
        if not _valid_at(self._clock.time_ms(), skew_ms, expires_ms, claims.get("nbf"), claims.get("iat")):
            return None
        return name, expires_ms


class _NonStandardLiteral(Exception):
    """JSON's NaN, Infinity or -Infinity, met while parsing (`_standard_json`)."""


def _refuse_literal(literal: str) -> object:
    raise _NonStandardLiteral(literal)


def _standard_json(token: str) -> bool:
    """False when the token's header or claims parse only with a non-standard literal (NaN,
    Infinity, -Infinity), which Kafka's JSON parser refuses; whatever else is wrong with the token
    is left to pyjwt, which says so."""
    for segment in token.split(".")[:2]:
        try:
            json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)), parse_constant=_refuse_literal)
        except _NonStandardLiteral:
            return False
        except (binascii.Error, ValueError, RecursionError):
            return True
    return True


def _valid_at(now_ms: int, skew_ms: int, expires_ms: int, not_before: object, issued_at: object) -> bool:
    """The time claims of a signed token checked on the broker's clock (the test double's may be
    virtual), as pyjwt checks them on the wall clock: not expired (``exp`` after now less the
    skew), not before ``nbf`` and not issued after now plus the skew; an ``nbf`` or ``iat`` that is
    not a finite number makes the token invalid."""
    if expires_ms <= now_ms - skew_ms:
        return False
    for claim in (not_before, issued_at):
        if claim is None:
            continue
        if isinstance(claim, bool) or not isinstance(claim, int | float) or not math.isfinite(claim):
            return False
        if claim * 1000 > now_ms + skew_ms:
            return False
    return True


def _epoch_ms(seconds: object) -> int | None:
    """A NumericDate claim (seconds, maybe fractional) in epoch milliseconds; None when it is not a
    number (NaN included: Kafka's JSON parser refuses it).  Raises ProtocolViolation when the
    milliseconds overflow Kafka's int64 (1e400, 1e308, 10**400): Kafka closes the connection then."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds != seconds:
        return None
    milliseconds = seconds * 1000
    if not _INT64_MIN <= milliseconds <= _INT64_MAX:
        raise ProtocolViolation(f"OAUTHBEARER token expiry {seconds!r} s overflows 64-bit milliseconds")
    return int(milliseconds)


def _scopes(claim: object) -> set[str] | None:
    """The scopes of a ``scope`` claim: a space-separated string, or the strings of a list (Kafka's
    unsecured validator accepts a list whatever else it holds); absent: none.  None when it is
    neither a string nor a list, which makes the token invalid, as it does for Kafka."""
    if claim is None:
        return set()
    if isinstance(claim, str):
        return set(claim.split())
    if isinstance(claim, list):
        return {scope for scope in claim if isinstance(scope, str)}
    return None
