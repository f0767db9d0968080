"""Scenario files (compat-tests/scenarios/*.json): loading, parameter expansion and instantiation.

A scenario file holds one object:
    name         identifier; with params, each variant is "<name>.<value>"
    description  one line
    fast         true if the scenario (every variant) belongs to the --fast subset;
                 or a list of param values, e.g. ["none", "zstd"], to include only those variants
    params       optional {"param": [values...]}: one variant per value ({param} is substituted in all text)
    topics       labels of the topics it uses (default ["main"]); "{topic}" means "{topic:main}"
    groups       labels of the consumer groups it uses (default ["main"]); "{group}" means "{group:main}"
    steps        protocol steps (see PROTOCOL.md), the harness's own steps kill_driver and restart_broker
                 (harness/runner.py), plus runner-only keys:
                   expect     partial match against the normalised observation (harness/expect.py);
                              default {"ok": true}; null accepts anything
                   retry_s    resend the step until "expect" holds or this many seconds pass
                   delay_s    wait this many seconds before sending the step (for broker behaviour
                              that is driven by wall-clock time, e.g. segment.ms rolls)
                   timeout_s  per-step timeout (default 60)
                   compare    false excludes the step from the odradek-vs-kafka comparison
                   setup      true: the step only prepares state; if the driver answers unsupported,
                              the helper driver (harness/runner.py HELPER_DRIVER) performs it and the
                              cell is not marked unsupported for it
                   fallback   true: if the driver answers unsupported, the helper performs the step so
                              that later steps still have their data; the cell stays unsupported
                   driver     "<name>": send the step to a secondary process of the same client, started on
                              first use (harness/sessions.py); absent: the main driver process
                   by_driver  {"<driver>": {field: value, ...}}: fields (including "expect") replaced
                              for that driver only, for what differs because the CLIENT differs (kcat
                              cannot set record timestamps, has no ListOffsets timestamps, ...); never
                              for what the broker decides
    checks       extra checks over all observations (harness/checks.py)
    security     optional connection mode of harness/security.py MODES (e.g. "sasl_ssl-scram-sha-256"):
                 the scenario runs on the secured broker, its driver connecting through that listener
                 with that mechanism and user (the helper driver stays on the super user's PLAINTEXT)

Byte fields may be written as {"utf8": "text"} or {"fill": "x", "size": N} and become base64.
A produce step's "records" may be {"generate": {"count": N, "key": "k-{i}", "value": "v-{i}",
"timestamp_base": T, "value_size": S}} (key/value templates may be null; timestamps are T + i when a base
is given; with "value_size" each value is padded with "." to S bytes; "partition_cycle": N sends record i
to partition i % N).

Invariant: topic placeholders are substituted only in what is sent to drivers; expectations keep the
placeholders, because observations are normalised back to them (harness/normalise.py).
"""

from __future__ import annotations

import base64
import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCENARIOS_DIR = Path(__file__).resolve().parents[1] / "scenarios"
RUNNER_KEYS = frozenset(
    {"expect", "retry_s", "delay_s", "timeout_s", "compare", "setup", "fallback", "by_driver", "driver"}
)
DEFAULT_STEP_TIMEOUT_S = 60.0
_TOPIC_RE = re.compile(r"\{topic(?::([A-Za-z0-9_]+))?\}")
_GROUP_RE = re.compile(r"\{group(?::([A-Za-z0-9_]+))?\}")


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    description: str
    fast: bool
    topics: tuple[str, ...]
    steps: list[dict[str, Any]]
    checks: list[dict[str, Any]] = field(default_factory=list)
    groups: tuple[str, ...] = ("main",)
    #: A harness/security.py MODES key: run on the secured broker through that listener; None: plain broker.
    security: str | None = None

    def for_driver(self, driver: str) -> list[dict[str, Any]]:
        """The steps as ``driver`` runs them: each step's ``by_driver`` entry for it merged over the step."""
        out: list[dict[str, Any]] = []
        for step in self.steps:
            override = (step.get("by_driver") or {}).get(driver) or {}
            out.append({k: v for k, v in {**step, **override}.items() if k != "by_driver"})
        return out

    def explicit_timestamps(self) -> set[int]:
        """Every timestamp the scenario itself supplies (these survive normalisation)."""
        found: set[int] = set()
        for step in self.steps:
            for record in step.get("records") or []:
                if isinstance(record.get("timestamp"), int):
                    found.add(record["timestamp"])
            spec = step.get("spec")
            if isinstance(spec, dict) and isinstance(spec.get("timestamp"), int):
                found.add(spec["timestamp"])
        return found

    def instantiate(self, tag: str, driver: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Driver-ready steps for ``driver`` with concrete names, and the map placeholder -> concrete name.

        Besides topics ("{topic}", "{topic:label}"), "{group}" and "{group:label}" become consumer
        group ids unique to the run, driver and scenario."""
        slug = re.sub(r"[^A-Za-z0-9-]", "-", self.name)
        names = {label: f"compat-{tag}-{slug}-{label}" for label in self.topics}
        groups = {label: f"compat-{tag}-{slug}-group-{label}" for label in self.groups}

        def sub(text: str) -> str:
            text = _TOPIC_RE.sub(lambda m: names[m.group(1) or "main"], text)
            return _GROUP_RE.sub(lambda m: groups[m.group(1) or "main"], text)

        steps = [
            {k: _map_strings(v, sub) for k, v in step.items() if k not in RUNNER_KEYS}
            for step in self.for_driver(driver)
        ]
        placeholders = {(f"{{topic:{label}}}" if label != "main" else "{topic}"): name for label, name in names.items()}
        placeholders |= {
            (f"{{group:{label}}}" if label != "main" else "{group}"): name for label, name in groups.items()
        }
        return steps, placeholders


def _map_strings(value: Any, fn: Any) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_map_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {fn(k): _map_strings(v, fn) for k, v in value.items()}
    return value


def _bytes_literals(value: Any) -> Any:
    """Replace {"utf8": s} and {"fill": c, "size": n} with base64 strings, recursively."""
    if isinstance(value, list):
        return [_bytes_literals(v) for v in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"utf8"}:
        return base64.b64encode(str(value["utf8"]).encode()).decode("ascii")
    if set(value) == {"fill", "size"}:
        return base64.b64encode(str(value["fill"]).encode() * int(value["size"])).decode("ascii")
    return {k: _bytes_literals(v) for k, v in value.items()}


def _generate(spec: dict[str, Any]) -> list[dict[str, Any]]:
    def text(template: str | None, i: int) -> str | None:
        if template is None:
            return None
        return base64.b64encode(template.replace("{i}", str(i)).encode()).decode("ascii")

    def padded(template: str | None, i: int) -> str | None:
        size = spec.get("value_size")
        if template is None or size is None:
            return text(template, i)
        raw = template.replace("{i}", str(i)).encode()
        return base64.b64encode(raw + b"." * (int(size) - len(raw))).decode("ascii")

    records: list[dict[str, Any]] = []
    base = spec.get("timestamp_base")
    for i in range(int(spec["count"])):
        records.append(
            {
                "key": text(spec.get("key", "key-{i}"), i),
                "value": padded(spec.get("value", "value-{i}"), i),
                "headers": [],
                "partition": i % int(spec["partition_cycle"]) if "partition_cycle" in spec else spec.get("partition"),
                "timestamp": None if base is None else int(base) + i,
            }
        )
    return records


def _prepare_step(step: dict[str, Any]) -> dict[str, Any]:
    overrides = step.get("by_driver")
    if isinstance(overrides, dict):
        step = {**step, "by_driver": {name: _prepare_step(o) for name, o in overrides.items()}}
    records = step.get("records")
    if isinstance(records, dict) and "generate" in records:
        step = {**step, "records": _generate(records["generate"])}
    step = _bytes_literals(step)
    for record in step.get("records") or []:
        record.setdefault("headers", [])
        record.setdefault("partition", None)
        record.setdefault("timestamp", None)
        record.setdefault("key", None)
        record.setdefault("value", None)
    return step


def _variants(raw: dict[str, Any]) -> list[tuple[str, dict[str, str], bool]]:
    params: dict[str, list[Any]] = raw.get("params") or {}
    fast = raw.get("fast", False)
    if not params:
        return [(raw["name"], {}, bool(fast))]
    if len(params) != 1:
        raise ValueError(f"scenario {raw['name']}: at most one param is supported")
    ((param, values),) = params.items()
    return [
        (f"{raw['name']}.{value}", {param: str(value)}, fast is True or (isinstance(fast, list) and value in fast))
        for value in values
    ]


def load_file(path: Path) -> list[Scenario]:
    raw = json.loads(path.read_text())
    out: list[Scenario] = []
    for name, params, fast in _variants(raw):

        def sub(text: str, params: dict[str, str] = params) -> str:
            for key, value in params.items():
                text = text.replace("{" + key + "}", value)
            return text

        body = _map_strings(copy.deepcopy({"steps": raw["steps"], "checks": raw.get("checks", [])}), sub)
        ids = [step["id"] for step in body["steps"]]
        if len(ids) != len(set(ids)) or "close" in ids:
            raise ValueError(f"scenario {name}: step ids must be unique and not 'close'")
        out.append(
            Scenario(
                name=name,
                description=sub(raw.get("description", "")),
                fast=fast,
                topics=tuple(raw.get("topics", ["main"])),
                groups=tuple(raw.get("groups", ["main"])),
                steps=[_prepare_step(step) for step in body["steps"]],
                checks=body["checks"],
                security=sub(raw["security"]) if raw.get("security") else None,
            )
        )
    return out


def load_all(root: Path = SCENARIOS_DIR) -> list[Scenario]:
    scenarios: list[Scenario] = []
    for path in sorted(root.glob("*.json")):
        scenarios.extend(load_file(path))
    return scenarios


def select(scenarios: list[Scenario], names: list[str] | None, fast: bool) -> list[Scenario]:
    """Filter by exact name or by prefix before '.', and by the fast flag."""
    chosen = [s for s in scenarios if not fast or s.fast]
    if names:
        chosen = [s for s in chosen if s.name in names or s.name.split(".")[0] in names]
    return chosen
