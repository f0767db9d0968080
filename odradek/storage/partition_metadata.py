"""The ``partition.metadata`` file of a partition directory, in Kafka's format.

Content: ``version: 0`` and ``topic_id: <id>`` on two lines, the id as URL-safe base64 of its
16 bytes without padding, no trailing newline (byte for byte what Kafka writes).  An empty or
missing file (a crash right after a non-durable creation) reads as "no topic id"; anything
else that is not version 0 raises `StorageError`.
"""

from __future__ import annotations

import base64
import binascii
import uuid

from odradek.storage.errors import StorageError
from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = [
    "PARTITION_METADATA_FILE",
    "decode_topic_id",
    "encode_topic_id",
    "read_partition_metadata",
    "write_partition_metadata",
]

PARTITION_METADATA_FILE = "partition.metadata"


def encode_topic_id(topic_id: uuid.UUID) -> str:
    """Kafka's text form of a topic id: URL-safe base64 of the 16 bytes, without padding."""
    return base64.urlsafe_b64encode(topic_id.bytes).rstrip(b"=").decode("ascii")


def decode_topic_id(text: str) -> uuid.UUID:
    """The inverse of `encode_topic_id`; raises `ValueError` on anything else."""
    try:
        raw = base64.urlsafe_b64decode(text + "==")
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"invalid topic id {text!r}") from exc
    if len(raw) != 16 or len(text) != 22:
        raise ValueError(f"invalid topic id {text!r}")
    return uuid.UUID(bytes=raw)


def write_partition_metadata(fs: FileSystem, directory: str, topic_id: uuid.UUID, *, durable: bool) -> None:
    content = f"version: 0\ntopic_id: {encode_topic_id(topic_id)}".encode()
    path = f"{directory}/{PARTITION_METADATA_FILE}"
    if durable:
        write_file_atomic(fs, path, content)
        return
    handle = fs.open_append(path)
    try:
        handle.write(content)
    finally:
        handle.close()


def read_partition_metadata(fs: FileSystem, directory: str) -> uuid.UUID | None:
    path = f"{directory}/{PARTITION_METADATA_FILE}"
    if not fs.exists(path) or fs.size(path) == 0:
        return None  # a crash right after a non-durable creation; the broker re-adopts the log
    fields = {}
    for line in read_file(fs, path).decode("utf-8", "replace").splitlines():
        name, colon, value = line.partition(":")
        if colon:
            fields[name.strip()] = value.strip()
    if fields.get("version") != "0" or "topic_id" not in fields:
        raise StorageError(f"{path} is not a version 0 partition metadata file")
    try:
        return decode_topic_id(fields["topic_id"])
    except ValueError as exc:
        raise StorageError(f"{path}: {exc}") from exc
