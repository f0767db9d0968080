"""The ``sasl`` fuzz family: what a client sends a SASL mechanism's server side before it is authenticated.

The first byte of an input chooses what the rest is (`MODES`, modulo their number):

- ``plain``: PLAIN's single message (``[authzid] NUL user NUL password``);
- ``scram-sha-256-first`` / ``scram-sha-512-first``: SCRAM's client-first message;
- ``scram-sha-256-final`` / ``scram-sha-512-final``: SCRAM's client-final message, after a valid
  client-first of `USER` has been answered, so the channel binding, nonce and proof checks are reached;
- ``oauthbearer-unsecured`` / ``oauthbearer-jwks``: OAUTHBEARER's initial client response (GS2
  header, ``auth=Bearer <JWT>`` and the other kvpairs), checked by the unsecured validator (with a
  required scope) or against a JWKS file (with an expected audience and issuer);
- ``jwt-unsecured`` / ``jwt-jwks``: a JWT's header and claims as JSON, separated by a NUL, which the
  target encodes (and, for the JWKS, signs with the key the header's ``kid`` names) and hands to the
  validator inside a well-formed message, so the claim checks are fuzzed without spelling base64;
- ``gate-v0``: a bare token after a v0 SaslHandshake, through the SASL gate (`SaslGate`), for PLAIN,
  SCRAM-SHA-256 (its client-final) or OAUTHBEARER, chosen by the next byte.

The mechanism behaves when it refuses with `SaslAuthenticationError` (the gate answers
SASL_AUTHENTICATION_FAILED or closes the connection) or, for OAUTHBEARER, answers the
``invalid_token`` challenge (after which the client's ``\\x01`` must raise it) or, on a token
Kafka drops the connection for (an expiry that overflows), raises `ProtocolViolation`; any other
exception is a crash.  It must never authenticate without the secret (`AuthenticatedWithoutSecret`): PLAIN
only with `PASSWORD`, SCRAM only with the proof derived from it, a JWKS token only when the target
signed it (``jwt-jwks``) or its signing input is a seed's (a signature is never forged), and an
OAUTHBEARER token only for its ``sub``, unexpired, with the required scope or the expected
audience and issuer.

Executions stay cheap: SCRAM credentials are derived once at `MIN_ITERATIONS` (the lowest count a
credential is accepted with), the JWT keys are fixed (Ed25519 and P-256 from constants) and the JWKS
file is written once.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import functools
import hashlib
import hmac
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import scramp
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.hashes import SHA256
from jwt.algorithms import ECAlgorithm, OKPAlgorithm

from odradek.clock import ManualClock
from odradek.security.principal import ANONYMOUS, ClientIdentity
from odradek.security.sasl.authenticator import SaslGate, SaslSettings
from odradek.security.sasl.mechanism import SaslAuthenticationError, SaslServer
from odradek.security.sasl.oauthbearer import OAuthBearerServer
from odradek.security.sasl.plain import PlainServer
from odradek.security.sasl.scram import MIN_ITERATIONS, ScramCredential, ScramServer
from odradek.wire.api import ApiKey, RequestHeader, encode_request_header
from odradek.wire.codec import encode_into
from odradek.wire.errors import ErrorCode, ProtocolViolation
from odradek.wire.messages.cluster import SaslHandshakeRequest
from odradek.wire.primitives import Part, Writer

__all__ = [
    "MODES",
    "PASSWORD",
    "SASL_TOKENS",
    "USER",
    "AuthenticatedWithoutSecret",
    "fuzz_sasl",
    "sasl_outcome",
    "sasl_seeds",
]

USER, PASSWORD = "alice", "alice-secret"
NOW_MS = 1_700_000_000_000
_SALT = b"fuzz-salt-16byte"
_CLIENT_NONCE, _SERVER_NONCE = "fuzzclientnonce", "fuzzservernonce"
_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
_REQUIRED_SCOPE = "kafka"
_AUDIENCE, _ISSUER = "odradek", "https://issuer.fuzz"
_SKEW_S = 30
_INVALID_TOKEN = b'{"status":"invalid_token"}'
_WALL_CLOCK_FUTURE_S = 4_000_000_000


class AuthenticatedWithoutSecret(AssertionError):
    """A mechanism authenticated an input that does not carry the secret."""


# ---- fixed credentials and keys ------------------------------------------------------------


@functools.cache
def _salted_password(mechanism: str) -> bytes:
    return hashlib.pbkdf2_hmac(_HASHES[mechanism], PASSWORD.encode(), _SALT, MIN_ITERATIONS)


@functools.cache
def _credential(mechanism: str) -> ScramCredential:
    salt, stored_key, server_key, iterations = scramp.ScramMechanism(mechanism).make_auth_info(
        PASSWORD, MIN_ITERATIONS, _SALT
    )
    return ScramCredential(salt, stored_key, server_key, iterations)


def _lookup(user: str, mechanism: str) -> ScramCredential | None:
    return _credential(mechanism) if user == USER else None


_ED25519 = ed25519.Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"odradek fuzz ed25519").digest())
_P256 = ec.derive_private_key(int.from_bytes(hashlib.sha256(b"odradek fuzz p-256").digest()) >> 8, ec.SECP256R1())
_KEY_IDS = ("fuzz-ed25519", "fuzz-p256")


@functools.cache
def _jwks_url() -> str:
    ed_jwk = {**json.loads(OKPAlgorithm.to_jwk(_ED25519.public_key())), "kid": _KEY_IDS[0]}
    ec_jwk = {**json.loads(ECAlgorithm.to_jwk(_P256.public_key())), "kid": _KEY_IDS[1]}
    directory = tempfile.mkdtemp(prefix="fuzz-sasl-jwks-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    path = Path(directory) / "jwks.json"
    path.write_text(json.dumps({"keys": [ed_jwk, ec_jwk]}))
    return path.as_uri()


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(signing_input: str, kid: object) -> str:
    """The signature a holder of the keys writes: P-256 (ES256, r||s) when the header names it, else Ed25519."""
    if kid == _KEY_IDS[1]:
        r, s = decode_dss_signature(_P256.sign(signing_input.encode(), ec.ECDSA(SHA256())))
        return _b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
    return _b64url(_ED25519.sign(signing_input.encode()))


def _signing_input(header: bytes, claims: bytes) -> str:
    return f"{_b64url(header)}.{_b64url(claims)}"


def _signed_token(header: bytes, claims: bytes) -> str:
    """A token whose header and claims segments encode these bytes, signed by the fuzz keys."""
    signing_input = _signing_input(header, claims)
    try:
        kid = json.loads(header).get("kid")
    except (ValueError, AttributeError):
        kid = None
    return f"{signing_input}.{_sign(signing_input, kid)}"


def _message(token: str, authorization: str = "", extra: str = "") -> bytes:
    return f"n,{authorization},\x01auth=Bearer {token}\x01{extra}\x01".encode()


# ---- the modes -----------------------------------------------------------------------------


def _plain(data: bytes) -> bytes | None:
    server = PlainServer({USER: PASSWORD})
    answer = server.evaluate(data)
    if data not in (f"\0{USER}\0{PASSWORD}".encode(), f"{USER}\0{USER}\0{PASSWORD}".encode()):
        raise AuthenticatedWithoutSecret(f"PLAIN accepted {data!r}")
    if not server.complete or server.principal_name != USER:
        raise AssertionError("PLAIN answered without completing")
    return answer


def _scram_server(mechanism: str) -> ScramServer:
    server = ScramServer(mechanism, _lookup)
    # A fixed server nonce makes an execution repeatable and lets a seed carry a valid proof.
    server._server = scramp.ScramMechanism(mechanism).make_server(server._auth_info, s_nonce=_SERVER_NONCE)
    return server


def _scram_first(mechanism: str) -> Callable[[bytes], bytes | None]:
    def run(data: bytes) -> bytes | None:
        server = _scram_server(mechanism)
        answer = server.evaluate(data)
        if server.complete:
            raise AuthenticatedWithoutSecret(f"{mechanism} completed on a client-first message")
        if not answer.startswith(b"r="):
            raise AssertionError(f"{mechanism} answered a client-first with {answer!r}")
        return answer

    return run


def _client_first_bare() -> str:
    return f"n={USER},r={_CLIENT_NONCE}"


def _expected_proof(mechanism: str, server_first: str, final_without_proof: str) -> bytes:
    """RFC 5802's ClientProof for this exchange, computed from the password."""
    digest = _HASHES[mechanism]
    client_key = hmac.new(_salted_password(mechanism), b"Client Key", digest).digest()
    stored_key = hashlib.new(digest, client_key).digest()
    auth_message = f"{_client_first_bare()},{server_first},{final_without_proof}".encode()
    signature = hmac.new(stored_key, auth_message, digest).digest()
    return bytes(a ^ b for a, b in zip(client_key, signature, strict=True))


def _scram_final(mechanism: str) -> Callable[[bytes], bytes | None]:
    def run(data: bytes) -> bytes | None:
        server = _scram_server(mechanism)
        server_first = server.evaluate(f"n,,{_client_first_bare()}".encode()).decode()
        answer = server.evaluate(data)
        text = data.decode()
        without_proof, _, proof = text.rpartition(",p=")
        try:
            sent = base64.b64decode(proof)
        except binascii.Error:
            sent = b""
        if not server.complete or sent != _expected_proof(mechanism, server_first, without_proof):
            raise AuthenticatedWithoutSecret(f"{mechanism} accepted the client-final {text!r}")
        return answer

    return run


def _oauth_settings(jwks: bool) -> dict[str, str]:
    if jwks:
        return {
            "sasl.oauthbearer.jwks.endpoint.url": _jwks_url(),
            "sasl.oauthbearer.expected.audience": _AUDIENCE,
            "sasl.oauthbearer.expected.issuer": _ISSUER,
            "sasl.oauthbearer.clock.skew.seconds": str(_SKEW_S),
        }
    return {"jaas.unsecuredValidatorRequiredScope": _REQUIRED_SCOPE}


def _bearer_token(data: bytes) -> str:
    """The token of a message the server accepted (its last ``auth`` kvpair, as it reads them)."""
    fields = dict(item.split("=", 1) for item in data.decode("utf-8", "replace").split("\x01")[1:] if "=" in item)
    return fields.get("auth", "")[len("Bearer ") :].strip()


def _oauthbearer(data: bytes, jwks: bool) -> tuple[OAuthBearerServer, bytes | None]:
    """The server and its answer to a message, None when refused: by the invalid_token challenge
    (then the client's acknowledgement must fail), or by closing the connection as Kafka does when
    a token's expiry overflows (`ProtocolViolation`)."""
    server = OAuthBearerServer(_oauth_settings(jwks), ManualClock(NOW_MS))
    try:
        answer = server.evaluate(data)
    except ProtocolViolation:
        if server.complete:
            raise AssertionError("OAUTHBEARER completed and closed the connection") from None
        return server, None
    if answer == _INVALID_TOKEN:
        if server.complete:
            raise AssertionError("OAUTHBEARER completed with an invalid_token challenge")
        try:
            server.evaluate(b"\x01")
        except SaslAuthenticationError:
            return server, None
        raise AssertionError("OAUTHBEARER accepted the acknowledgement of an invalid_token challenge")
    if not server.complete:
        raise AssertionError(f"OAUTHBEARER answered {answer!r} without completing")
    return server, answer


def _check_claims(server: OAuthBearerServer, token: str, jwks: bool, signed_by_target: bool = False) -> None:
    """What a token that authenticated must hold (see the module docstring); a JWKS token the target
    did not sign itself must be one of the seeds' (its signing input: a signature is not forged)."""
    header_segment, claims_segment, signature = [*token.split("."), "", ""][:3]
    header, claims = json.loads(_b64url_decode(header_segment)), json.loads(_b64url_decode(claims_segment))
    expiry = claims.get("exp")
    problems = []
    if server.principal_name != claims.get("sub"):
        problems.append("the principal is not the token's sub")
    if not isinstance(expiry, int | float) or expiry * 1000 + (_SKEW_S * 1000 if jwks else 0) <= NOW_MS:
        problems.append("the token has expired")
    if jwks:
        if not signed_by_target and f"{header_segment}.{claims_segment}" not in _seed_signing_inputs():
            problems.append("the token was not signed by the fuzz keys")
        audience = claims.get("aud")
        if claims.get("iss") != _ISSUER or _AUDIENCE not in (audience if isinstance(audience, list) else [audience]):
            problems.append("the audience or issuer is not the expected one")
    else:
        scope = claims.get("scope")
        if header.get("alg") != "none" or signature:
            problems.append("an unsecured token is signed")
        if _REQUIRED_SCOPE not in (scope.split() if isinstance(scope, str) else scope or ()):
            problems.append("the required scope is missing")
    if problems:
        raise AuthenticatedWithoutSecret(f"OAUTHBEARER accepted {token!r}: {'; '.join(problems)}")


def _oauthbearer_message(jwks: bool) -> Callable[[bytes], bytes | None]:
    def run(data: bytes) -> bytes | None:
        server, answer = _oauthbearer(data, jwks)
        if answer is not None:
            _check_claims(server, _bearer_token(data), jwks)
        return answer

    return run


def _jwt_parts(jwks: bool) -> Callable[[bytes], bytes | None]:
    def run(data: bytes) -> bytes | None:
        header, _, claims = data.partition(b"\0")
        token = _signed_token(header, claims) if jwks else f"{_b64url(header)}.{_b64url(claims)}."
        server, answer = _oauthbearer(_message(token), jwks)
        if answer is not None:
            _check_claims(server, token, jwks, signed_by_target=jwks)
        return answer

    return run


class _Connection:
    """What the gate changes on its connection: the identity (and a frame limit, ignored here)."""

    def __init__(self) -> None:
        self.identity = ClientIdentity()

    def set_max_frame_bytes(self, limit: int) -> None:
        pass


def _new_server(mechanism: str) -> SaslServer:
    if mechanism == "PLAIN":
        return PlainServer({USER: PASSWORD})
    if mechanism == "OAUTHBEARER":
        return OAuthBearerServer(_oauth_settings(jwks=False), ManualClock(NOW_MS))
    return _scram_server(mechanism)


def _no_error_answer(body: bytearray, code: ErrorCode) -> list[Part] | None:
    return None


_GATE_SETTINGS = SaslSettings(
    ("PLAIN", "SCRAM-SHA-256", "OAUTHBEARER"), _new_server, 0, 65536, 1 << 20, _no_error_answer
)
#: What a gate mode's token is, by mechanism: the mode that checks the same token outside the gate.
_GATE_MODES = {"PLAIN": "plain", "SCRAM-SHA-256": "scram-sha-256-final", "OAUTHBEARER": "oauthbearer-unsecured"}


def _handshake_v0(mechanism: str) -> bytearray:
    writer = Writer()
    encode_request_header(writer, RequestHeader(ApiKey.SASL_HANDSHAKE, 0, 1, "fuzz"), False)
    encode_into(SaslHandshakeRequest, 0, SaslHandshakeRequest(mechanism=mechanism), writer)
    return bytearray(writer.getvalue())


def _gate_v0(data: bytes) -> bytes | None:
    """One byte choosing the mechanism, then a bare token after a v0 SaslHandshake (SCRAM's
    client-final, after the gate has passed a valid client-first): the gate closes the connection
    (ProtocolViolation) on a refusal, and authenticates only a token the mechanism's own mode accepts.
    The gate's answer when it authenticated, else None (refused, or OAUTHBEARER's error challenge)."""
    if not data:
        return None
    mechanism = _GATE_SETTINGS.mechanisms[data[0] % len(_GATE_SETTINGS.mechanisms)]
    connection = _Connection()
    gate = SaslGate(connection, _GATE_SETTINGS, ManualClock(NOW_MS))
    gate.admit(_handshake_v0(mechanism))
    if mechanism.startswith("SCRAM"):
        gate.admit(bytearray(f"n,,{_client_first_bare()}".encode()))
    try:
        answer = gate.admit(bytearray(data[1:]))
    except ProtocolViolation:
        return None
    if answer is None or answer.close_after:
        raise AssertionError(f"the gate passed a bare {mechanism} token on, or closed without a reason")
    if gate.authenticated:
        dict(MODES)[_GATE_MODES[mechanism]](data[1:])  # raises unless the token carries the secret
        if connection.identity.principal == ANONYMOUS:
            raise AssertionError("the gate authenticated without setting the principal")
        return b"".join(part for part in answer.parts if isinstance(part, bytes | bytearray | memoryview))
    if connection.identity.principal != ANONYMOUS:
        raise AssertionError("the gate set a principal without authenticating")
    return None


MODES: tuple[tuple[str, Callable[[bytes], bytes | None]], ...] = (
    ("plain", _plain),
    ("scram-sha-256-first", _scram_first("SCRAM-SHA-256")),
    ("scram-sha-512-first", _scram_first("SCRAM-SHA-512")),
    ("scram-sha-256-final", _scram_final("SCRAM-SHA-256")),
    ("scram-sha-512-final", _scram_final("SCRAM-SHA-512")),
    ("oauthbearer-unsecured", _oauthbearer_message(jwks=False)),
    ("oauthbearer-jwks", _oauthbearer_message(jwks=True)),
    ("jwt-unsecured", _jwt_parts(jwks=False)),
    ("jwt-jwks", _jwt_parts(jwks=True)),
    ("gate-v0", _gate_v0),
)
_MODE_BYTE = {name: index for index, (name, _) in enumerate(MODES)}


def sasl_outcome(data: bytes) -> str:
    """``authenticated``, ``challenged`` (a SCRAM server-first) or ``refused``; raises what `fuzz_sasl` raises."""
    if not data:
        return "refused"
    name, run = MODES[data[0] % len(MODES)]
    try:
        answer = run(data[1:])
    except SaslAuthenticationError:
        return "refused"
    if answer is None:
        return "refused"
    return "challenged" if name.endswith("-first") else "authenticated"


def fuzz_sasl(data: bytes) -> bytes | None:
    """The mechanism's answer to an input (see the module docstring), None when it refused."""
    if not data:
        return None
    _, run = MODES[data[0] % len(MODES)]
    try:
        return run(data[1:])
    except SaslAuthenticationError:
        return None


# ---- seeds and tokens ----------------------------------------------------------------------

#: Words of the mechanisms' text formats (SCRAM attributes, GS2 and OAUTHBEARER kvpairs, JWT claims
#: and JSON values) for the mutator to insert.
SASL_TOKENS: tuple[bytes, ...] = (
    *(f"{name}=".encode() for name in "nrcpa"),
    b",p=",
    b"=2C",
    b"=3D",
    b"biws",
    b"tokenauth=true",
    b"p=tls-unique",
    b"\x01",
    b"auth=Bearer ",
    *(f'"{claim}":'.encode() for claim in ("alg", "kid", "typ", "crit", "sub", "exp", "nbf", "iat", "iss", "aud")),
    b'"scope":',
    b'"none"',
    b'"EdDSA"',
    b'"ES256"',
    b'"HS256"',
    b'"RS256"',
    *(f'"{value}"'.encode() for value in (USER, _AUDIENCE, _ISSUER, _REQUIRED_SCOPE, *_KEY_IDS)),
    b"null",
    b"true",
    b"NaN",
    b"Infinity",
    b"1e400",
    b"-0.5",
    b"[]",
    b"{}",
)


def _seed(mode: str, payload: bytes | str) -> bytes:
    return bytes([_MODE_BYTE[mode]]) + (payload.encode() if isinstance(payload, str) else payload)


def _scram_final_seeds(mechanism: str) -> Iterator[str]:
    client = scramp.ScramClient([mechanism], USER, PASSWORD, c_nonce=_CLIENT_NONCE)
    client.get_client_first()
    server = _scram_server(mechanism)
    client.set_server_first(server.evaluate(f"n,,{_client_first_bare()}".encode()).decode())
    final: str = client.get_client_final()
    yield final
    yield final[:-4] + "AAA="
    yield final.replace(f"r={_CLIENT_NONCE}", "r=other")
    yield final.replace("c=biws", "c=eSws")


def _claims(**overrides: Any) -> bytes:
    claims: dict[str, Any] = {"sub": USER, "exp": NOW_MS // 1000 + 3600, "iat": NOW_MS // 1000}
    return json.dumps({**claims, **overrides}, separators=(",", ":")).encode()


@functools.cache
def _jwks_seed_parts() -> tuple[tuple[bytes, bytes], ...]:
    """Header and claims of the seeds' signed tokens: for each key, valid ones, then for another audience.
    (The JWKS validator checks times against the wall clock, pyjwt's, not the injected one: hence
    an expiry far ahead.)"""
    late = {"exp": _WALL_CLOCK_FUTURE_S, "iss": _ISSUER}
    parts = []
    for kid, alg in zip(_KEY_IDS, ("EdDSA", "ES256"), strict=True):
        header = json.dumps({"alg": alg, "kid": kid, "typ": "JWT"}, separators=(",", ":")).encode()
        parts += [(header, _claims(**late, aud=[_AUDIENCE, "other"])), (header, _claims(**late, aud="elsewhere"))]
    return tuple(parts)


@functools.cache
def _seed_signing_inputs() -> frozenset[str]:
    return frozenset(_signing_input(header, claims) for header, claims in _jwks_seed_parts())


def sasl_seeds() -> Iterator[bytes]:
    """Valid and nearly valid messages of every mode, built with scramp and pyjwt's keys."""
    for payload in (f"\0{USER}\0{PASSWORD}", f"{USER}\0{USER}\0{PASSWORD}", f"\0{USER}\0wrong", f"bob\0{USER}\0x"):
        yield _seed("plain", payload)
    for mechanism in _HASHES:
        short = mechanism.lower()
        for first in (
            f"n,,{_client_first_bare()}",
            f"y,a={USER},n={USER},r={_CLIENT_NONCE}",
            f"n,,n=b=2Cob,r={_CLIENT_NONCE},tokenauth=true",
            f"p=tls-unique,,n={USER},r={_CLIENT_NONCE}",
        ):
            yield _seed(f"{short}-first", first)
        for final in _scram_final_seeds(mechanism):
            yield _seed(f"{short}-final", final)
    none_header = b'{"alg":"none"}'
    unsecured = f"{_b64url(none_header)}.{_b64url(_claims(scope=_REQUIRED_SCOPE))}."
    yield _seed("oauthbearer-unsecured", _message(unsecured))
    yield _seed("oauthbearer-unsecured", _message(unsecured, f"a={USER}", "host=localhost\x01port=9092\x01"))
    yield _seed("oauthbearer-unsecured", _message(unsecured, "a=mallory"))
    yield _seed("oauthbearer-unsecured", b"\x01")
    for header, claims in _jwks_seed_parts():
        yield _seed("oauthbearer-jwks", _message(_signed_token(header, claims)))
    late = {"exp": _WALL_CLOCK_FUTURE_S, "iss": _ISSUER}
    for header, valid in _jwks_seed_parts()[::2]:
        alg = json.loads(header)["alg"]
        yield _seed("jwt-jwks", header + b"\0" + valid)
        yield _seed("jwt-jwks", header + b"\0" + _claims(**late, aud=_AUDIENCE, nbf=_WALL_CLOCK_FUTURE_S - 60))
        yield _seed("jwt-jwks", header.replace(alg.encode(), b"HS256") + b"\0" + valid)
    yield _seed("jwt-unsecured", none_header + b"\0" + _claims(scope=[_REQUIRED_SCOPE, "other"]))
    yield _seed("jwt-unsecured", none_header + b"\0" + _claims(scope=_REQUIRED_SCOPE, exp=NOW_MS // 1000 - 1))
    yield _seed("jwt-unsecured", b'{"alg":"HS256"}\0' + _claims(scope=_REQUIRED_SCOPE))
    gate_tokens = {
        "PLAIN": f"\0{USER}\0{PASSWORD}".encode(),
        "SCRAM-SHA-256": next(_scram_final_seeds("SCRAM-SHA-256")).encode(),
        "OAUTHBEARER": _message(unsecured),
    }
    for index, mechanism in enumerate(_GATE_SETTINGS.mechanisms):
        yield _seed("gate-v0", bytes([index]) + gate_tokens[mechanism])
