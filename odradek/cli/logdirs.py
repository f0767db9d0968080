"""Partition sizes on disk, asked of each broker with DescribeLogDirs (API 35).

confluent-kafka's admin client does not offer DescribeLogDirs, so this module sends it itself, over
one plain TCP connection per broker, encoded and decoded with odradek's own codec (which
compat-tests/codec-diff checks byte for byte against kafka-clients).  It asks version 1, which
every Kafka 4.x broker and odradek answer.  It speaks PLAINTEXT only: where a broker needs TLS or
SASL, or does not answer within the timeout, the sizes are unknown (an empty answer), never an error.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterable

from odradek.wire.api import ApiKey, RequestHeader, encode_request_header, response_header_is_flexible
from odradek.wire.codec import decode_from, encode_into
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.cluster import (
    DescribeLogDirsRequest,
    DescribeLogDirsResponse,
    DescribeLogDirsResponseValue,
)
from odradek.wire.primitives import DecodeError, Reader, Writer

__all__ = ["partition_sizes"]

_VERSION = 1
_CLIENT_ID = "odradek-console"
_SIZE = struct.Struct(">i")

TP = tuple[str, int]


def partition_sizes(brokers: Iterable[tuple[str, int]], timeout_s: float) -> dict[TP, int]:
    """Bytes on disk of every partition the ``(host, port)`` brokers hold (the largest copy where
    several brokers hold one); a broker that cannot be asked adds nothing."""
    sizes: dict[TP, int] = {}
    for host, port in brokers:
        try:
            answer = _describe_log_dirs(host, port, timeout_s)
        except (OSError, DecodeError, ValueError):
            continue
        for result in answer.results:
            if result.error_code != ErrorCode.NONE:
                continue
            for topic in result.topics:
                for p in topic.partitions:
                    if not p.is_future_key:
                        key = (topic.name, p.partition_index)
                        sizes[key] = max(sizes.get(key, 0), p.partition_size)
    return sizes


def _describe_log_dirs(host: str, port: int, timeout_s: float) -> DescribeLogDirsResponseValue:
    writer = Writer()
    flexible = DescribeLogDirsRequest.is_flexible(_VERSION)
    encode_request_header(writer, RequestHeader(ApiKey.DESCRIBE_LOG_DIRS, _VERSION, 1, _CLIENT_ID), flexible)
    encode_into(DescribeLogDirsRequest, _VERSION, DescribeLogDirsRequest(topics=None), writer)
    with socket.create_connection((host, port), timeout=timeout_s) as sock:
        sock.sendall(_SIZE.pack(len(writer.buf)) + bytes(writer.buf))
        (size,) = _SIZE.unpack(_read_exactly(sock, _SIZE.size))
        reader = Reader(_read_exactly(sock, size))
    if reader.int32() != 1:
        raise ValueError("DescribeLogDirs answered with another correlation id")
    if response_header_is_flexible(ApiKey.DESCRIBE_LOG_DIRS, DescribeLogDirsResponse.is_flexible(_VERSION)):
        reader.uvarint()
    return decode_from(DescribeLogDirsResponse, _VERSION, reader)


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    buf = bytearray()
    while len(buf) < size:
        chunk = sock.recv(size - len(buf))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        buf += chunk
    return bytes(buf)
