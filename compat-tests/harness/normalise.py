"""Normalisation of observations so that two brokers' runs can be compared value for value.

What varies between runs but not in behaviour, and how it is replaced:
- concrete topic names (unique per run) -> their placeholders "{topic}", "{topic:label}";
- concrete consumer group ids -> their placeholders "{group}", "{group:label}";
- list_topics and list_groups results -> only the scenario's own topics and groups (the broker is
  shared by every scenario);
- timestamps the scenario did not supply (client clock or broker LogAppendTime) -> "<time>" when
  they fall inside the cell's run (not before it started, less than a minute after it was observed),
  else "<time outside the run>": a LogAppendTime that is not the broker's clock shows up as a problem;
- UUIDs anywhere, and any value under a key ending in "_id" (cluster ids, topic ids) -> "<id>";
- loopback addresses with a port -> "<addr>";
- "CLIENT_ERROR:<Name>: detail" under an "error" key -> "CLIENT_ERROR:<Name>" (the exception class or
  local error name only: details carry deadlines, retry counts and sizes); a CLIENT_ERROR text that
  does not start with a name keeps its words, with every number replaced by "<n>".

``comparable`` then drops what is never compared between brokers although checks read it:
``by_member`` (members_wait's per-member view, keyed by member name, with rebalance counts that depend
on timing).
"""

from __future__ import annotations

import re
import time
from typing import Any

_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_ADDR = re.compile(r"127\.0\.0\.1:\d+|localhost:\d+")
_CLIENT_ERROR = "CLIENT_ERROR:"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.$]*(?=:|$)")
_NUMBER = re.compile(r"\d+")
#: Observation fields left out of the cross-broker comparison (checks still see them).
NOT_COMPARED = frozenset({"by_member"})


def client_error(text: str) -> str:
    """A CLIENT_ERROR reduced to what is stable between runs: its leading name, else its words."""
    detail = text[len(_CLIENT_ERROR) :].strip()
    name = _NAME.match(detail)
    return _CLIENT_ERROR + (name.group() if name else _NUMBER.sub("<n>", detail))


#: Clock slack between the harness and the broker/client clocks when judging a timestamp "in the run".
_SLACK_MS = 1000
_LATE_MS = 60_000


class Normaliser:
    def __init__(self, placeholders: dict[str, str], explicit_timestamps: set[int], not_before_ms: int = 0) -> None:
        """``not_before_ms``: wall-clock ms when the cell started; unset timestamps before it are flagged."""
        # Longest names first so that a name that is a prefix of another is not replaced inside it.
        self.names = sorted(placeholders.items(), key=lambda item: -len(item[1]))
        self.timestamps = explicit_timestamps
        self.not_before_ms = not_before_ms

    def _time(self, value: int) -> str:
        in_run = self.not_before_ms - _SLACK_MS <= value <= int(time.time() * 1000) + _LATE_MS
        return "<time>" if in_run else "<time outside the run>"

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
        groups = out.get("groups")
        if isinstance(groups, list):
            out["groups"] = [g for g in groups if isinstance(g, dict) and "{group" in str(g.get("group"))]
        return out

    def _walk(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, str):
            if key == "error" and value.startswith(_CLIENT_ERROR):
                return client_error(self.text(value))
            return "<id>" if key is not None and key.endswith("_id") else self.text(value)
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            if key == "timestamp" and value not in self.timestamps:
                return self._time(value)
            return value
        if isinstance(value, list):
            return [self._walk(item, key) for item in value]
        if isinstance(value, dict):
            return {self.text(k): self._walk(v, k) for k, v in value.items()}
        return value


def comparable(observation: dict[str, Any]) -> dict[str, Any]:
    """The part of a normalised observation that is compared with the reference broker's."""
    return {key: value for key, value in observation.items() if key not in NOT_COMPARED}
