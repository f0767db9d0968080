"""Normalisation of observations so that two brokers' runs can be compared value for value.

What varies between runs but not in behaviour, and how it is replaced:
- concrete topic names (unique per run) -> their placeholders "{topic}", "{topic:label}";
- list_topics results -> only the scenario's own topics (the broker is shared by every scenario);
- timestamps the scenario did not supply (client clock or broker LogAppendTime) -> "<time>";
- UUIDs anywhere, and any value under a key ending in "_id" (cluster ids, topic ids) -> "<id>";
- loopback addresses with a port -> "<addr>".
"""

from __future__ import annotations

import re
from typing import Any

_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_ADDR = re.compile(r"127\.0\.0\.1:\d+|localhost:\d+")


class Normaliser:
    def __init__(self, placeholders: dict[str, str], explicit_timestamps: set[int]) -> None:
        # Longest names first so that a name that is a prefix of another is not replaced inside it.
        self.names = sorted(placeholders.items(), key=lambda item: -len(item[1]))
        self.timestamps = explicit_timestamps

    def text(self, value: str) -> str:
        for placeholder, name in self.names:
            value = value.replace(name, placeholder)
        value = _UUID.sub("<id>", value)
        return _ADDR.sub("<addr>", value)

    def observation(self, obs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = self._walk(obs)
        topics = out.get("topics")
        if isinstance(topics, dict):
            out["topics"] = {name: count for name, count in topics.items() if "{topic" in name}
        return out

    def _walk(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, str):
            return "<id>" if key is not None and key.endswith("_id") else self.text(value)
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            if key == "timestamp" and value not in self.timestamps:
                return "<time>"
            return value
        if isinstance(value, list):
            return [self._walk(item, key) for item in value]
        if isinstance(value, dict):
            return {self.text(k): self._walk(v, k) for k, v in value.items()}
        return value
