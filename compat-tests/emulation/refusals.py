"""How a release answers requests outside what it advertised, seen by a client on the wire.

Each case runs on its own raw connection, because a release that refuses a request may close the
connection. The outcome is ``closed`` (no answer, the connection was closed) or ``answered``
(a response frame with the request's correlation id). The cases:

- ``unknown_api_key``: a request header for the api key one above the highest advertised, with
  no body (the release cannot know a body layout for a key it does not have);
- ``version_above_max``: Metadata at one above its advertised max, header only, for the same reason;
- ``api_versions_above_max``: ApiVersions at one above its advertised max; Kafka answers it in v0
  form with an error code, and the API list it sends in that answer is recorded too;
- ``produce_v0``: Produce v0 with acks=1 and no topics (well formed: acks int16, timeout int32,
  empty topic array), which tells whether an advertised v0 is actually served;
- ``list_offsets_v0``: ListOffsets v0 with replica_id -1 and no topics (replica_id int32, empty
  topic array), the API whose v0 Kafka 4.0 stopped advertising.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from odradek.wire.api import ApiKey, RequestHeader, encode_request_header
from odradek.wire.primitives import Reader, Writer
from tests.integration.rawclient import RawConnection

CORRELATION_ID = 7
TIMEOUT_S = 30.0
_INT16_INT32 = struct.Struct(">hi")


@dataclass(frozen=True, slots=True)
class Refusals:
    unknown_api_key: str
    version_above_max: str
    api_versions_above_max_error: int
    api_versions_above_max_apis: dict[int, tuple[int, int]]
    produce_v0: str
    list_offsets_v0: str


def _exchange(bootstrap: str, api_key: int, version: int, body: bytes, flexible: bool) -> bytes | None:
    """Send one request; the response body after the correlation id, or None if the connection closed."""
    writer = Writer()
    encode_request_header(writer, RequestHeader(api_key, version, CORRELATION_ID, "odradek-emulation"), flexible)
    frame = bytes(writer.buf) + body
    conn = RawConnection(bootstrap, timeout=TIMEOUT_S)
    try:
        conn.send_raw(struct.pack(">i", len(frame)) + frame)
        answer = conn.recv_frame()
    except ConnectionResetError:
        return None
    except TimeoutError as exc:
        raise RuntimeError(f"no answer and no close after {TIMEOUT_S:.0f}s to api {api_key} v{version}") from exc
    finally:
        conn.close()
    if answer is None:
        return None
    (correlation,) = struct.unpack_from(">i", answer)
    if correlation != CORRELATION_ID:
        raise RuntimeError(f"answer to api {api_key} v{version} carries correlation id {correlation}")
    return answer[4:]


def _outcome(answer: bytes | None) -> str:
    return "closed" if answer is None else "answered"


def probe_refusals(bootstrap: str, apis: dict[int, tuple[int, int]]) -> Refusals:
    """Run every case of the module docstring against ``bootstrap``, whose advertised ranges are ``apis``."""
    unknown = _exchange(bootstrap, max(apis) + 1, 0, b"", flexible=False)
    above = _exchange(bootstrap, ApiKey.METADATA, apis[ApiKey.METADATA][1] + 1, b"", flexible=True)
    api_versions = _exchange(bootstrap, ApiKey.API_VERSIONS, apis[ApiKey.API_VERSIONS][1] + 1, b"", flexible=True)
    if api_versions is None:
        raise RuntimeError("ApiVersions above its max closed the connection instead of answering")
    reader = Reader(api_versions)
    error = reader.int16()
    listed = {}
    for _ in range(reader.int32()):
        key, low, high = reader.int16(), reader.int16(), reader.int16()
        listed[key] = (low, high)
    produce = _exchange(bootstrap, ApiKey.PRODUCE, 0, _INT16_INT32.pack(1, 1000) + struct.pack(">i", 0), False)
    list_offsets = _exchange(bootstrap, ApiKey.LIST_OFFSETS, 0, struct.pack(">ii", -1, 0), flexible=False)
    return Refusals(_outcome(unknown), _outcome(above), error, listed, _outcome(produce), _outcome(list_offsets))
