"""A minimal blocking Kafka connection for tests that must send exact (or broken) bytes.

Real client libraries cannot send a corrupt CRC or a forged frame; this can.  It reuses
odradek's own codec for well-formed requests, so it proves nothing about the codec itself:
tests of behaviour that clients see use the real client libraries.
"""

from __future__ import annotations

import socket
import struct
from typing import Any

from odradek.wire.api import ApiKey, RequestHeader, encode_request_header, response_header_is_flexible
from odradek.wire.codec import decode_from, encode_into
from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.messages.topics import CreateTopicsRequest
from odradek.wire.primitives import Reader, Writer


class RawConnection:
    def __init__(self, bootstrap: str, timeout: float = 10.0) -> None:
        host, port = bootstrap.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self._correlation = 0

    def close(self) -> None:
        self.sock.close()

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv_frame(self) -> bytes | None:
        """One response frame body, or None when the broker closed the connection."""
        size_bytes = self._recv_exact(4)
        if size_bytes is None:
            return None
        (size,) = struct.unpack(">i", size_bytes)
        return self._recv_exact(size)

    def _recv_exact(self, size: int) -> bytes | None:
        chunks = bytearray()
        while len(chunks) < size:
            chunk = self.sock.recv(size - len(chunks))
            if not chunk:
                return None
            chunks += chunk
        return bytes(chunks)

    def request(self, api_key: int, version: int, value: Any) -> Any:
        request_schema, response_schema = ALL_MESSAGES[api_key]
        self._correlation += 1
        writer = Writer()
        flexible = request_schema.is_flexible(version)
        encode_request_header(writer, RequestHeader(api_key, version, self._correlation, "raw-test"), flexible)
        encode_into(request_schema, version, value, writer)
        self.send_raw(struct.pack(">i", len(writer.buf)) + bytes(writer.buf))
        body = self.recv_frame()
        assert body is not None, "broker closed the connection"
        reader = Reader(body)
        assert reader.int32() == self._correlation
        if response_header_is_flexible(api_key, response_schema.is_flexible(version)):
            reader.uvarint()
        return decode_from(response_schema, version, reader)

    def create_topic(self, name: str, partitions: int = 1, configs: dict[str, str] | None = None) -> None:
        """CreateTopics v7 for one topic; fails the test unless the broker created it."""
        Topic = CreateTopicsRequest.CreatableTopic
        entries = [Topic.CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()]
        topic = Topic(name=name, num_partitions=partitions, replication_factor=1, configs=entries)
        answer = self.request(ApiKey.CREATE_TOPICS, 7, CreateTopicsRequest(topics=[topic], timeout_ms=5000))
        assert answer.topics[0].error_code == 0, answer.topics[0].error_message
