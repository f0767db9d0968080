"""The topic catalog: every topic's name, id, partition count and config overrides.

This is the part of Kafka's cluster metadata a single broker needs.  It is persisted as one
JSON document through the FileSystem seam's `write_file_atomic` (temporary file, fsync, rename,
directory fsync), so a crash leaves either the old or the new catalog, never half of one.

Invariants: names and ids are unique; a topic has at least one partition and never fewer than it
had (CreatePartitions only grows it); each partition's leader epoch never goes down (a catalog
written before epochs were kept reads as epoch 0 everywhere); names obey Kafka's
rules (1-249 characters of ``[a-zA-Z0-9._-]``, not ``.`` or ``..``) and may not collide with an
existing name once ``.`` and ``_`` are treated as equal.
"""

from __future__ import annotations

import json
import posixpath
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = ["TopicCatalog", "TopicError", "TopicInfo", "validate_topic_name"]

_LEGAL = re.compile(r"^[a-zA-Z0-9._-]+$")
MAX_NAME_LENGTH = 249
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})


class TopicError(ValueError):
    """A topic operation that Kafka refuses; ``code_name`` is the Kafka error name."""

    def __init__(self, code_name: str, message: str) -> None:
        super().__init__(message)
        self.code_name = code_name


def validate_topic_name(name: str) -> None:
    """Raise TopicError(INVALID_TOPIC_EXCEPTION) for a name Kafka would refuse, worded as
    Kafka 4.3.1 words it (checked with compat-tests/probes)."""
    if not name:
        raise TopicError("INVALID_TOPIC_EXCEPTION", "Topic name is invalid: the empty string is not allowed")
    if name in (".", ".."):
        raise TopicError("INVALID_TOPIC_EXCEPTION", f"Topic name is invalid: '{name}' is not allowed")
    if len(name) > MAX_NAME_LENGTH:
        raise TopicError(
            "INVALID_TOPIC_EXCEPTION",
            f"Topic name is invalid: the length of '{name}' is longer than the max allowed length {MAX_NAME_LENGTH}",
        )
    if not _LEGAL.match(name):
        raise TopicError(
            "INVALID_TOPIC_EXCEPTION",
            f"Topic name is invalid: '{name}' contains one or more characters other than "
            "ASCII alphanumerics, '.', '_' and '-'",
        )


@dataclass(slots=True)
class TopicInfo:
    name: str
    topic_id: bytes
    partitions: int
    configs: dict[str, str] = field(default_factory=dict)
    leader_epochs: list[int] = field(default_factory=list)
    """Each partition's leader epoch (as many as ``partitions``; a new partition starts at 0)."""

    @property
    def internal(self) -> bool:
        return self.name in INTERNAL_TOPICS


class TopicCatalog:
    """Topics by name and by id, persisted to ``path`` on ``fs`` on every change."""

    def __init__(self, fs: FileSystem, path: str) -> None:
        self._fs = fs
        self._path = path
        self._by_name: dict[str, TopicInfo] = {}
        self._by_id: dict[bytes, TopicInfo] = {}
        self.quorum_epoch = 0
        """How many times this node started leading (the KRaft quorum's leader epoch, as
        DescribeQuorum reports it: a single voter elects itself once per start)."""
        self.metadata_offset = 0
        """How many metadata changes were saved (DescribeQuorum's high watermark)."""
        if fs.exists(path):
            document = json.loads(read_file(fs, path))
            self.quorum_epoch = document.get("quorum_epoch", 0)
            self.metadata_offset = document.get("metadata_offset", 0)
            for entry in document["topics"]:
                count = entry["partitions"]
                epochs = entry.get("leader_epochs", [])
                epochs += [0] * (count - len(epochs))
                self._add(TopicInfo(entry["name"], uuid.UUID(entry["id"]).bytes, count, entry["configs"], epochs))

    def __iter__(self) -> Iterator[TopicInfo]:
        return iter(list(self._by_name.values()))

    def __len__(self) -> int:
        return len(self._by_name)

    def get(self, name: str) -> TopicInfo | None:
        return self._by_name.get(name)

    def by_id(self, topic_id: bytes) -> TopicInfo | None:
        return self._by_id.get(topic_id)

    def check_new(self, name: str, partitions: int) -> None:
        """Raise TopicError when ``create(name, partitions)`` would be refused."""
        validate_topic_name(name)
        if name in self._by_name:
            raise TopicError("TOPIC_ALREADY_EXISTS", f"Topic '{name}' already exists.")
        folded = name.replace(".", "_")
        for other in self._by_name:
            if other.replace(".", "_") == folded:
                raise TopicError("INVALID_TOPIC_EXCEPTION", f"Topic '{name}' collides with existing topic: {other}")
        if partitions < 1:
            raise TopicError("INVALID_PARTITIONS", "Number of partitions must be larger than 0.")

    def create(
        self,
        name: str,
        partitions: int,
        configs: Mapping[str, str] | None = None,
        topic_id: bytes | None = None,
    ) -> TopicInfo:
        self.check_new(name, partitions)
        info = TopicInfo(name, topic_id or uuid.uuid4().bytes, partitions, dict(configs or {}), [0] * partitions)
        self._add(info)
        self._save()
        return info

    def delete(self, name: str) -> TopicInfo:
        info = self._by_name.pop(name)
        del self._by_id[info.topic_id]
        self._save()
        return info

    def set_partition_count(self, name: str, partitions: int) -> TopicInfo:
        """Grow the topic to ``partitions`` (durably); raises `KeyError` for an unknown topic and
        `ValueError` when that is not more than it has (a topic never shrinks)."""
        info = self._by_name[name]
        if partitions <= info.partitions:
            raise ValueError(f"{name} has {info.partitions} partitions; {partitions} is not an increase")
        previous, info.partitions = info.partitions, partitions
        info.leader_epochs += [0] * (partitions - previous)
        try:
            self._save()
        except BaseException:
            info.partitions = previous
            del info.leader_epochs[previous:]
            raise
        return info

    def start_leading(self) -> None:
        """This node starts (again) leading every partition: each leader epoch goes up by 2,
        durably, as a single Kafka node's do at every start (fenced at shutdown or at its new
        registration, its partitions lose their leader: +1; unfenced, it leads them again: +1),
        and the quorum's leader epoch goes up by 1."""
        self.quorum_epoch += 1
        for info in self._by_name.values():
            info.leader_epochs = [epoch + 2 for epoch in info.leader_epochs]
        self._save()

    def set_configs(self, name: str, configs: Mapping[str, str]) -> TopicInfo:
        """Replace the topic's config overrides (durably); raises `KeyError` for an unknown topic."""
        info = self._by_name[name]
        previous, info.configs = info.configs, dict(configs)
        try:
            self._save()
        except BaseException:
            info.configs = previous
            raise
        return info

    def _add(self, info: TopicInfo) -> None:
        self._by_name[info.name] = info
        self._by_id[info.topic_id] = info

    def _save(self) -> None:
        self.metadata_offset += 1
        document = {
            "version": 1,
            "quorum_epoch": self.quorum_epoch,
            "metadata_offset": self.metadata_offset,
            "topics": [
                {
                    "name": t.name,
                    "id": str(uuid.UUID(bytes=t.topic_id)),
                    "partitions": t.partitions,
                    "configs": t.configs,
                    "leader_epochs": t.leader_epochs,
                }
                for t in self._by_name.values()
            ],
        }
        self._fs.makedirs(posixpath.dirname(self._path) or ".")
        write_file_atomic(self._fs, self._path, json.dumps(document, indent=1).encode())
