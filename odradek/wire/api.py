"""API keys and the request/response headers that frame every message body.

Request header: v0 = api_key int16, api_version int16, correlation_id int32;
v1 adds client_id (nullable classic string, never compact); v2 adds a tagged-field section.
Response header: v0 = correlation_id int32; v1 adds a tagged-field section.
A request uses header v2 (response v1) exactly when its API version is flexible, except that
ApiVersions responses always use header v0 so that a client can read the answer before it
knows which versions the broker speaks.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum

from odradek.wire.primitives import Reader, Writer

__all__ = [
    "ApiKey",
    "RequestHeader",
    "decode_request_header",
    "decode_request_header_at_once",
    "encode_request_header",
    "encode_response_header",
    "read_tagged_section",
    "response_header_is_flexible",
    "write_tagged_section",
]


class ApiKey(IntEnum):
    PRODUCE = 0
    FETCH = 1
    LIST_OFFSETS = 2
    METADATA = 3
    OFFSET_COMMIT = 8
    OFFSET_FETCH = 9
    FIND_COORDINATOR = 10
    JOIN_GROUP = 11
    HEARTBEAT = 12
    LEAVE_GROUP = 13
    SYNC_GROUP = 14
    DESCRIBE_GROUPS = 15
    LIST_GROUPS = 16
    SASL_HANDSHAKE = 17
    API_VERSIONS = 18
    CREATE_TOPICS = 19
    DELETE_TOPICS = 20
    DELETE_RECORDS = 21
    INIT_PRODUCER_ID = 22
    OFFSET_FOR_LEADER_EPOCH = 23
    ADD_PARTITIONS_TO_TXN = 24
    ADD_OFFSETS_TO_TXN = 25
    END_TXN = 26
    WRITE_TXN_MARKERS = 27
    TXN_OFFSET_COMMIT = 28
    DESCRIBE_ACLS = 29
    CREATE_ACLS = 30
    DELETE_ACLS = 31
    DESCRIBE_CONFIGS = 32
    ALTER_CONFIGS = 33
    ALTER_REPLICA_LOG_DIRS = 34
    DESCRIBE_LOG_DIRS = 35
    SASL_AUTHENTICATE = 36
    CREATE_PARTITIONS = 37
    CREATE_DELEGATION_TOKEN = 38
    RENEW_DELEGATION_TOKEN = 39
    EXPIRE_DELEGATION_TOKEN = 40
    DESCRIBE_DELEGATION_TOKEN = 41
    DELETE_GROUPS = 42
    ELECT_LEADERS = 43
    INCREMENTAL_ALTER_CONFIGS = 44
    ALTER_PARTITION_REASSIGNMENTS = 45
    LIST_PARTITION_REASSIGNMENTS = 46
    OFFSET_DELETE = 47
    DESCRIBE_CLIENT_QUOTAS = 48
    ALTER_CLIENT_QUOTAS = 49
    DESCRIBE_USER_SCRAM_CREDENTIALS = 50
    ALTER_USER_SCRAM_CREDENTIALS = 51
    DESCRIBE_QUORUM = 55
    UPDATE_FEATURES = 57
    DESCRIBE_CLUSTER = 60
    DESCRIBE_PRODUCERS = 61
    UNREGISTER_BROKER = 64
    DESCRIBE_TRANSACTIONS = 65
    LIST_TRANSACTIONS = 66
    CONSUMER_GROUP_HEARTBEAT = 68
    CONSUMER_GROUP_DESCRIBE = 69
    GET_TELEMETRY_SUBSCRIPTIONS = 71
    PUSH_TELEMETRY = 72
    LIST_CONFIG_RESOURCES = 74
    DESCRIBE_TOPIC_PARTITIONS = 75
    ADD_RAFT_VOTER = 80
    REMOVE_RAFT_VOTER = 81
    UNREGISTER_CONTROLLER = 94


@dataclass(slots=True)
class RequestHeader:
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None = None
    unknown_tags: dict[int, bytes] = field(default_factory=dict)


def read_tagged_section(r: Reader) -> dict[int, bytes]:
    """Read a tagged-field section whose tags are all unknown to the reader."""
    tags: dict[int, bytes] = {}
    for _ in range(r.uvarint()):
        tag = r.uvarint()
        tags[tag] = bytes(r.raw(r.uvarint()))
    return tags


def write_tagged_section(w: Writer, tags: dict[int, bytes]) -> None:
    """Write a tagged-field section of raw payloads in ascending tag order."""
    w.uvarint(len(tags))
    for tag in sorted(tags):
        w.uvarint(tag)
        w.uvarint(len(tags[tag]))
        w.raw(tags[tag])


def decode_request_header(r: Reader, is_flexible: Callable[[int, int], bool]) -> RequestHeader:
    """Read a request header; ``is_flexible(api_key, version)`` decides whether it is v2."""
    api_key = r.int16()
    api_version = r.int16()
    correlation_id = r.int32()
    client_id = r.string()
    header = RequestHeader(api_key, api_version, correlation_id, client_id)
    if is_flexible(api_key, api_version):
        header.unknown_tags = read_tagged_section(r)
    return header


_HEADER_V1 = struct.Struct(">hhih")  # api_key, api_version, correlation_id, client_id's length


def decode_request_header_at_once(
    r: Reader, flexible_versions: Mapping[int, tuple[int, int]], is_flexible: Callable[[int, int], bool]
) -> RequestHeader:
    """`decode_request_header` in one step for the headers clients send (it runs for every request).

    ``flexible_versions`` maps an API key to the inclusive range of versions whose header is v2
    (``low > high`` when none is), agreeing with ``is_flexible`` for every int16 version.  A header
    not taken in one step (an API key the map does not hold, a client id neither null nor valid
    UTF-8, a non-empty tagged section, too few bytes) is decoded by `decode_request_header` from
    its start: the same header, or the same `DecodeError`.
    """
    buf, pos, end = r.buf, r.pos, r.end
    if end - pos >= _HEADER_V1.size:
        api_key, api_version, correlation_id, size = _HEADER_V1.unpack_from(buf, pos)
        bounds = flexible_versions.get(api_key)
        start = pos + _HEADER_V1.size
        stop = start + size if size >= 0 else start
        if bounds is not None and size >= -1 and stop <= end:
            client_id: str | None = None
            taken = True
            if size >= 0:
                try:
                    client_id = str(buf[start:stop], "utf-8")
                except UnicodeDecodeError:
                    taken = False
            if taken and bounds[0] <= api_version <= bounds[1]:  # v2: an empty tagged section, one byte
                taken = stop < end and buf[stop] == 0
                stop += 1
            if taken:
                r.pos = stop
                return RequestHeader(api_key, api_version, correlation_id, client_id)
    return decode_request_header(r, is_flexible)


def encode_request_header(w: Writer, header: RequestHeader, flexible: bool) -> None:
    """Write a request header v1 (or v2 when ``flexible``); used by tests and tools."""
    w.int16(header.api_key)
    w.int16(header.api_version)
    w.int32(header.correlation_id)
    w.string(header.client_id)
    if flexible:
        write_tagged_section(w, header.unknown_tags)


def response_header_is_flexible(api_key: int, body_flexible: bool) -> bool:
    return body_flexible and api_key != ApiKey.API_VERSIONS


def encode_response_header(w: Writer, correlation_id: int, flexible: bool) -> None:
    """Write a response header v0, or v1 (an empty tagged section) when ``flexible``."""
    w.int32(correlation_id)
    if flexible:
        w.uvarint(0)
