"""A precise readiness probe: poll TCP every few milliseconds, then ApiVersions v0 and Metadata v4.

Client libraries back off 100 ms or more between connection attempts, which would swamp a
sub-second start time, so the probe speaks the two requests itself over a blocking socket.

Request  = size:int32 api_key:int16 api_version:int16 correlation_id:int32 client_id:string body
ApiVersions v0 body = (empty);   response = size correlation_id:int32 error_code:int16 ...
Metadata v4 body    = topics:int32(-1 = all) allow_auto_topic_creation:int8
                      response = size correlation_id:int32 throttle_time_ms:int32 brokers:int32 ...
"""

from __future__ import annotations

import socket
import struct
import subprocess
import time
from typing import Any

HOST = "127.0.0.1"
CLIENT_ID = b"odradek-bench-probe"
POLL_S = 0.005

_HEADER = struct.Struct(">hhih")  # api_key, api_version, correlation_id, client_id length
_METADATA_V4 = struct.Struct(">ib")  # topics (-1 = null), allow_auto_topic_creation
_INT32 = struct.Struct(">i")
_API_VERSIONS_REPLY = struct.Struct(">ih")  # correlation_id, error_code
_METADATA_REPLY = struct.Struct(">iii")  # correlation_id, throttle_time_ms, broker count


class ProbeError(RuntimeError):
    """The broker exited or did not answer in time."""


def _request(api_key: int, version: int, correlation_id: int, body: bytes) -> bytes:
    payload = _HEADER.pack(api_key, version, correlation_id, len(CLIENT_ID)) + CLIENT_ID + body
    return _INT32.pack(len(payload)) + payload


def _read_exact(sock: socket.socket, size: int) -> bytes:
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            raise ConnectionError("connection closed")
        got += n
    return bytes(buf)


def _exchange(sock: socket.socket, frame: bytes) -> bytes:
    sock.sendall(frame)
    (size,) = _INT32.unpack(_read_exact(sock, 4))
    return _read_exact(sock, size)


def _answers(port: int) -> bool:
    """True when ApiVersions succeeds and Metadata lists at least one broker."""
    try:
        with socket.create_connection((HOST, port), timeout=2.0) as sock:
            reply = _exchange(sock, _request(18, 0, 1, b""))
            if _API_VERSIONS_REPLY.unpack_from(reply)[1] != 0:
                return False
            reply = _exchange(sock, _request(3, 4, 2, _METADATA_V4.pack(-1, 0)))
            brokers: int = _METADATA_REPLY.unpack_from(reply)[2]
            return brokers > 0
    except (OSError, struct.error):
        return False


def wait_ready(port: int, proc: subprocess.Popen[Any], timeout_s: float) -> float:
    """Block until the broker answers; returns the monotonic time at which it first did."""
    deadline = time.monotonic() + timeout_s
    while True:
        if _answers(port):
            return time.monotonic()
        if proc.poll() is not None:
            raise ProbeError(f"broker exited with code {proc.returncode} during start-up")
        if time.monotonic() > deadline:
            raise ProbeError(f"broker on {HOST}:{port} not ready after {timeout_s:.0f}s")
        time.sleep(POLL_S)
