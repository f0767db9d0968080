"""GROUP config resources (resource type 32): Kafka 4's per-group configs, defined once here.

Each key has Kafka's type, its default (the broker config it inherits from, named as its
synonym) and two kinds of check, in Kafka 4.4's order and words (checked key by key with
compat-tests/probes, sequence configs.groups): ConfigDef's own ("Invalid value X for configuration
K: ..."), then the bounds the broker sets ("K must be in the range MIN to MAX inclusive.").
Every failure is INVALID_CONFIG; an unknown name is "Unknown group config name: K"; APPEND and
SUBTRACT are refused for every key.

The classic group protocol reads none of these keys (its members send their own timeouts); the
consumer, share and streams protocols, when they arrive, read them from here.  The overrides of
every group are kept in one JSON document in the data directory (`GroupConfigStore`), replaced
atomically; a group without overrides is not in it (ListConfigResources lists only the groups in it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from odradek.config.describe import DescribedConfig, Synonym
from odradek.config.keys import ConfigKey, ConfigType, Scope, Source, at_least, check_value, one_of
from odradek.config.validation import InvalidConfig
from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = ["GROUP_CONFIGS_FILE", "GROUP_KEYS", "GroupConfigStore", "describe_group", "validate_group"]

GROUP_CONFIGS_FILE = "__odradek_group_configs.json"
INT, STRING, BOOLEAN, LIST = ConfigType.INT, ConfigType.STRING, ConfigType.BOOLEAN, ConfigType.LIST

_DURATION = re.compile(r"^[-+]?P(?:[-+]?\d+D)?(?:T(?:[-+]?\d+H)?(?:[-+]?\d+M)?(?:[-+]?\d+(?:[.,]\d{0,9})?S)?)?$", re.I)


def _offset_reset(value: object) -> str | None:
    text = str(value)
    if text in ("earliest", "latest"):
        return None
    if (
        text.startswith("by_duration:")
        and _DURATION.match(text.removeprefix("by_duration:"))
        and text != "by_duration:P"
    ):
        return None
    return (
        f"Invalid value `{text}` for configuration share.auto.offset.reset. The value must be either "
        "'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'."
    )


@dataclass(frozen=True, slots=True)
class _Bound:
    """The broker's bounds of a group key: a range, or a maximum alone."""

    low: int | None
    high: int

    def problem(self, name: str, value: int) -> str | None:
        if self.low is None:
            return None if value <= self.high else f"{name} must be less than or equal to {self.high}"
        if self.low <= value <= self.high:
            return None
        return f"{name} must be in the range {self.low} to {self.high} inclusive."


def _assignor(value: object) -> str | None:
    if value == "sticky":
        return None
    return f"streams.assignor.name '{value}' is not a registered task assignor. Registered assignors are: [sticky]."


_HEARTBEAT, _SESSION = _Bound(5000, 15000), _Bound(45000, 60000)
_DLQ = "errors.deadletterqueue."

_ROWS: tuple[tuple[str, ConfigType, str, str, Callable[[object], str | None] | None, _Bound | None], ...] = (
    ("consumer.assignment.interval.ms", INT, "1000", "group.consumer.assignment.interval.ms", at_least(0), None),
    ("consumer.heartbeat.interval.ms", INT, "5000", "group.consumer.heartbeat.interval.ms", at_least(1), _HEARTBEAT),
    ("consumer.session.timeout.ms", INT, "45000", "group.consumer.session.timeout.ms", at_least(1), _SESSION),
    (_DLQ + "copy.record.enable", BOOLEAN, "false", _DLQ + "copy.record.enable", None, None),
    (_DLQ + "topic.name", STRING, "", _DLQ + "topic.name", None, None),
    ("share.assignment.interval.ms", INT, "1000", "group.share.assignment.interval.ms", at_least(0), None),
    ("share.auto.offset.reset", STRING, "latest", "share.auto.offset.reset", _offset_reset, None),
    ("share.delivery.count.limit", INT, "5", "group.share.delivery.count.limit", at_least(2), _Bound(2, 10)),
    ("share.heartbeat.interval.ms", INT, "5000", "group.share.heartbeat.interval.ms", at_least(1), _HEARTBEAT),
    ("share.isolation.level", STRING, "read_uncommitted", "share.isolation.level",
     one_of("read_committed", "read_uncommitted"), None),
    ("share.partition.max.record.locks", INT, "2000", "group.share.partition.max.record.locks", at_least(100),
     _Bound(100, 4000)),
    ("share.record.lock.duration.ms", INT, "30000", "group.share.record.lock.duration.ms", at_least(1),
     _Bound(15000, 60000)),
    ("share.renew.acknowledge.enable", BOOLEAN, "true", "share.renew.acknowledge.enable", None, None),
    ("share.session.timeout.ms", INT, "45000", "group.share.session.timeout.ms", at_least(1), _SESSION),
    ("streams.assignment.interval.ms", INT, "1000", "group.streams.assignment.interval.ms", at_least(0), None),
    ("streams.assignor.name", STRING, "sticky", "group.streams.assignors", None, None),
    ("streams.heartbeat.interval.ms", INT, "5000", "group.streams.heartbeat.interval.ms", at_least(1), _HEARTBEAT),
    ("streams.initial.rebalance.delay.ms", INT, "3000", "group.streams.initial.rebalance.delay.ms", at_least(0), None),
    ("streams.num.standby.replicas", INT, "0", "group.streams.num.standby.replicas", at_least(0), _Bound(None, 2)),
    ("streams.rack.aware.assignment.tags", LIST, "", "group.streams.rack.aware.assignment.tags", None, None),
    ("streams.session.timeout.ms", INT, "45000", "group.streams.session.timeout.ms", at_least(1), _SESSION),
)  # fmt: skip

GROUP_KEYS: Mapping[str, ConfigKey] = {
    name: ConfigKey(name, Scope.GROUP, kind, default, f"Per-group {name}.", validator, synonym=synonym)
    for name, kind, default, synonym, validator, _ in _ROWS
}
_BOUNDS = {name: bound for name, _, _, _, _, bound in _ROWS if bound is not None}


def validate_group(configs: Mapping[str, str]) -> None:
    """Raise `InvalidConfig` (Kafka's INVALID_CONFIG) unless ``configs`` may be a group's overrides."""
    for name, value in configs.items():
        key = GROUP_KEYS.get(name)
        if key is None:
            raise InvalidConfig(f"Unknown group config name: {name}")
        problem = check_value(key, value)
        if problem is not None:
            raise InvalidConfig(problem)
    for name, value in configs.items():
        bound = _BOUNDS.get(name)
        problem = bound.problem(name, int(value)) if bound is not None else None
        if problem is None and name == "streams.assignor.name":
            problem = _assignor(value)
        if problem is not None:
            raise InvalidConfig(problem)


def describe_group(overrides: Mapping[str, str], names: list[str] | None = None) -> list[DescribedConfig]:
    """Every group config (``names`` filters, unknown names ignored) with its override, if any,
    before its broker synonym's default, sorted by name."""
    wanted = sorted(GROUP_KEYS) if not names else [n for n in sorted(set(names)) if n in GROUP_KEYS]
    described = []
    for name in wanted:
        key = GROUP_KEYS[name]
        assert key.synonym is not None and key.default is not None
        synonyms = [Synonym(key.synonym, key.default, Source.DEFAULT_CONFIG)]
        if name in overrides:
            synonyms.insert(0, Synonym(name, overrides[name], Source.GROUP_CONFIG))
        source = synonyms[0].source
        described.append(DescribedConfig(name, synonyms[0].value, source, False, tuple(synonyms), key.type))
    return described


class GroupConfigStore:
    """Every group's overrides, in one JSON document ``{"version": 1, "groups": {group: {k: v}}}``
    replaced atomically through the FileSystem seam."""

    def __init__(self, fs: FileSystem, path: str) -> None:
        self._fs = fs
        self._path = path
        self._groups: dict[str, dict[str, str]] = {}
        if fs.exists(path):
            self._groups = {g: dict(c) for g, c in json.loads(read_file(fs, path))["groups"].items()}

    def get(self, group: str) -> dict[str, str]:
        return dict(self._groups.get(group, {}))

    def groups(self) -> list[str]:
        """The groups with overrides, sorted."""
        return sorted(self._groups)

    def set(self, group: str, configs: Mapping[str, str]) -> None:
        """Replace ``group``'s overrides durably (none: the group leaves the document)."""
        groups = {g: c for g, c in self._groups.items() if g != group}
        if configs:
            groups[group] = dict(configs)
        document = {"version": 1, "groups": groups}
        write_file_atomic(self._fs, self._path, json.dumps(document, indent=1, sort_keys=True).encode())
        self._groups = groups
