"""The request journal: every request a broker answered while it was on, decoded.

Off by default; once on (`Journal.start`), the interceptor records one `JournalEntry` per
request that reached a handler: the API and version, the client id and correlation id, the
topics and partitions it named, its group or transactional id, every error code of the answer,
the fault that took it if one did, when the broker received it (broker clock) and how long the
answer took (real time), and the request and answer themselves as JSON-ready data (byte strings
and record sets as their sizes).  The journal keeps the newest ``capacity`` entries.

`Journal.requests` filters entries; `Journal.dump` writes them as JSON lines.  Requests the
dispatcher refuses before routing (unknown API, a version not served, an unparsable body) close
the connection and are not journalled.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any, NamedTuple

__all__ = ["DEFAULT_CAPACITY", "Journal", "JournalEntry"]

DEFAULT_CAPACITY = 10_000


class JournalEntry(NamedTuple):
    api: str
    api_key: int
    version: int
    client_id: str | None
    correlation_id: int
    peer: str
    #: ``[topic, partition]`` pairs the request named (partition None: the whole topic).
    partitions: list[tuple[str, int | None]]
    group: str | None
    transactional_id: str | None
    #: Names of the non-zero error codes of the answer, each once.
    errors: list[str]
    #: What the broker did: ``"answered"``, ``"no answer"`` (Produce acks=0) or ``"disconnected"``.
    outcome: str
    #: The id of the fault that took the request, if one did.
    fault: int | None
    received_ms: int
    duration_ms: float
    request: dict[str, Any]
    response: dict[str, Any] | None

    @property
    def topics(self) -> list[str]:
        """The topics named, each once, in order."""
        return list(dict.fromkeys(topic for topic, _ in self.partitions))

    def to_json(self) -> dict[str, Any]:
        data = self._asdict()
        data["partitions"] = [list(pair) for pair in self.partitions]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JournalEntry:
        values = dict(data)
        values["partitions"] = [(topic, partition) for topic, partition in values["partitions"]]
        return cls(**values)


def matches(
    entry: JournalEntry,
    *,
    api: str | None = None,
    version: int | None = None,
    client_id: str | None = None,
    topic: str | None = None,
    partition: int | None = None,
    group: str | None = None,
    transactional_id: str | None = None,
    error: str | None = None,
) -> bool:
    if api is not None and entry.api.lower() != api.lower():
        return False
    if version is not None and entry.version != version:
        return False
    if client_id is not None and entry.client_id != client_id:
        return False
    if group is not None and entry.group != group:
        return False
    if transactional_id is not None and entry.transactional_id != transactional_id:
        return False
    if error is not None and error.upper() not in entry.errors:
        return False
    if topic is not None or partition is not None:
        return any(
            (topic is None or t == topic) and (partition is None or p is None or p == partition)
            for t, p in entry.partitions
        )
    return True


class Journal:
    """A bounded journal of requests; `record` is called on the broker's loop only."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.enabled = False
        self._entries: deque[JournalEntry] = deque(maxlen=capacity)

    def start(self, capacity: int | None = None) -> None:
        if capacity is not None and capacity != self._entries.maxlen:
            if capacity < 1:
                raise ValueError(f"a journal keeps at least one entry, not {capacity}")
            self._entries = deque(self._entries, maxlen=capacity)
        self.enabled = True

    def stop(self) -> None:
        self.enabled = False

    def clear(self) -> None:
        self._entries.clear()

    def record(self, entry: JournalEntry) -> None:
        self._entries.append(entry)

    def entries(self) -> list[JournalEntry]:
        return list(self._entries)

    def requests(self, **filters: Any) -> list[JournalEntry]:
        """The entries matching every filter given (api, version, client_id, topic, partition,
        group, transactional_id, error), oldest first."""
        return [entry for entry in self._entries if matches(entry, **filters)]


def dump(entries: Iterable[JournalEntry], target: str | Path | IO[str]) -> int:
    """Write ``entries`` as JSON lines to a path or an open text file; how many were written."""
    count = 0
    if isinstance(target, str | Path):
        with open(target, "w", encoding="utf-8") as out:
            return dump(entries, out)
    for entry in entries:
        target.write(json.dumps(entry.to_json(), separators=(",", ":")) + "\n")
        count += 1
    return count
