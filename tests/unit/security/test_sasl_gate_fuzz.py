"""Fuzzing the SASL gate, the state a client is in before it authenticates.

Random frames (random bytes, well-formed headers of random APIs and versions, handshakes with random
mechanisms, authentications with random and mutated tokens, SCRAM messages replayed or altered) are
fed to fresh gates.  Invariants, frame after frame:

- the gate raises nothing but ProtocolViolation (the connection closes), never another exception;
- before authentication, the only frame it lets through to the dispatcher is an ApiVersions request:
  no topic name, record or other answer reaches an unauthenticated client;
- nobody authenticates without the password.

``make test`` runs a short run; ``ODRADEK_FUZZ_FRAMES=100000`` (``make fuzz-security``) a long one.
"""

from __future__ import annotations

import os
import random
import struct

from scramp import ScramClient, ScramMechanism

from odradek.clock import ManualClock
from odradek.security.principal import ANONYMOUS, ClientIdentity
from odradek.security.sasl.authenticator import SaslGate, SaslSettings
from odradek.security.sasl.mechanism import SaslServer
from odradek.security.sasl.oauthbearer import OAuthBearerServer
from odradek.security.sasl.plain import PlainServer
from odradek.security.sasl.scram import ScramCredential, ScramServer
from odradek.wire.api import ApiKey, RequestHeader, encode_request_header
from odradek.wire.codec import encode_into
from odradek.wire.errors import ErrorCode, ProtocolViolation
from odradek.wire.messages.cluster import SaslHandshakeRequest
from odradek.wire.messages.security import SaslAuthenticateRequest
from odradek.wire.primitives import Part, Writer

FRAMES = int(os.environ.get("ODRADEK_FUZZ_FRAMES", "4000"))
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "OAUTHBEARER")
_SALT, _STORED, _SERVER, _ITERATIONS = ScramMechanism("SCRAM-SHA-256").make_auth_info("secret", 4096)
CREDENTIAL = ScramCredential(_SALT, _STORED, _SERVER, _ITERATIONS)


class _Connection:
    def __init__(self) -> None:
        self.identity = ClientIdentity()
        self.limit = 0

    def set_max_frame_bytes(self, limit: int) -> None:
        self.limit = limit


def _server(mechanism: str) -> SaslServer:
    if mechanism == "PLAIN":
        return PlainServer({"alice": "secret"})
    if mechanism == "OAUTHBEARER":
        return OAuthBearerServer({}, ManualClock(0))
    return ScramServer(mechanism, lambda user, mech: CREDENTIAL if user == "alice" else None)


def _error_answer(body: bytearray, code: ErrorCode) -> list[Part] | None:
    return [b"error-answer"]


SETTINGS = SaslSettings(MECHANISMS, _server, 0, 524288, 104857600, _error_answer)


def _request(api_key: int, version: int, message: object | None, rng: random.Random) -> bytearray:
    writer = Writer()
    flexible = (api_key == ApiKey.SASL_AUTHENTICATE and version >= 2) or (
        api_key == ApiKey.API_VERSIONS and version >= 3
    )
    encode_request_header(writer, RequestHeader(api_key, version, rng.randrange(2**31), "fuzz"), flexible)
    if message is not None:
        encode_into(
            SaslHandshakeRequest if api_key == ApiKey.SASL_HANDSHAKE else SaslAuthenticateRequest,
            version,
            message,
            writer,
        )
    else:
        writer.raw(rng.randbytes(rng.randrange(0, 64)))
    return bytearray(writer.buf)


def _token(rng: random.Random) -> bytes:
    choice = rng.randrange(6)
    if choice == 0:
        return rng.randbytes(rng.randrange(0, 200))
    if choice == 1:
        return b"\0alice\0" + rng.choice([b"wrong", b"", b"secre", b"secret\0x"])
    if choice == 2:
        client = ScramClient(["SCRAM-SHA-256"], rng.choice(["alice", "bob", "a=2C"]), "wrong")
        return client.get_client_first().encode()
    if choice == 3:
        return b"c=biws,r=" + rng.randbytes(12).hex().encode() + b",p=" + rng.randbytes(32).hex().encode()
    if choice == 4:
        return b"n,,\x01auth=Bearer " + rng.randbytes(30).hex().encode() + b"\x01\x01"
    return b"\x01"


def _frame(rng: random.Random) -> bytearray:
    kind = rng.randrange(7)
    if kind == 0:
        return bytearray(rng.randbytes(rng.randrange(0, 80)))
    if kind == 1:
        return _request(rng.randrange(-5, 80), rng.randrange(-2, 20), None, rng)
    if kind == 2:
        return _request(ApiKey.API_VERSIONS, rng.randrange(0, 6), None, rng)
    if kind == 3:
        mechanism = rng.choice([*MECHANISMS, "GSSAPI", "", "plain", "x" * 300])
        return _request(ApiKey.SASL_HANDSHAKE, rng.randrange(0, 2), SaslHandshakeRequest(mechanism=mechanism), rng)
    if kind == 4:
        version = rng.randrange(0, 3)
        return _request(ApiKey.SASL_AUTHENTICATE, version, SaslAuthenticateRequest(auth_bytes=_token(rng)), rng)
    if kind == 5:
        return bytearray(_token(rng))
    frame = _request(ApiKey.SASL_AUTHENTICATE, 2, SaslAuthenticateRequest(auth_bytes=_token(rng)), rng)
    position = rng.randrange(len(frame))
    frame[position] ^= 1 << rng.randrange(8)
    return frame


def test_the_gate_before_authentication_survives_random_frames() -> None:
    rng = random.Random(int(os.environ.get("ODRADEK_FUZZ_SEED", "368")))
    passed_through: set[int] = set()
    closed = 0
    gate = SaslGate(_Connection(), SETTINGS, ManualClock(0))
    connection = _Connection()
    for _ in range(FRAMES):
        body = _frame(rng)
        try:
            answer = gate.admit(body)
        except ProtocolViolation:
            closed += 1
            answer = None
            connection = _Connection()
            gate = SaslGate(connection, SETTINGS, ManualClock(0))
            continue
        if answer is None and not gate.authenticated:
            (api_key,) = struct.unpack_from(">h", body)
            passed_through.add(api_key)
        elif answer is not None and answer.close_after:
            connection = _Connection()
            gate = SaslGate(connection, SETTINGS, ManualClock(0))
        assert connection.identity.principal == ANONYMOUS
    assert passed_through <= {ApiKey.API_VERSIONS}
    assert closed > FRAMES // 10
