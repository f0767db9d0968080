"""Injected faults: which requests they hit and what they do to them.

A `Fault` names an API by Kafka's name (``"Produce"``), optionally a topic, a partition and a
client id, and what happens to the next ``count`` matching requests (every one when None), or
to a ``probability`` share of them (drawn from a generator seeded by ``seed``, so a run repeats):

- ``error``: the request is answered with that Kafka error code where Kafka puts it: per
  partition (or per topic) for the partitions it names and the fault targets, the handler never
  acting on those, the rest served as usual; for APIs that only read (Fetch, Metadata, the
  Describe and List APIs, ...) the handler runs and the targeted entries of its answer carry
  the error (also when the request asks for every topic, as Metadata may).  Errors Kafka
  reports for a whole request (coordinator, group, member and fetch session errors), and other
  requests that name no topics, get the handler's whole-request error answer.
  ``scope="request"`` or ``"partition"`` overrides that choice;
- ``delay_ms``: the answer waits that long on the broker's clock (on a frozen clock: until the
  test advances it), before the broker acts (``when="before"``) or after;
- ``disconnect``: the connection closes without an answer, before the broker acted or after.

`Fault.from_json` and `Fault.to_json` are the control endpoint's form.  Bad values raise
`ValueError` naming the value and what is allowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from odradek.wire.errors import ErrorCode

if TYPE_CHECKING:
    from random import Random

__all__ = ["REQUEST_LEVEL_ERRORS", "Fault", "FaultSet", "parse_error"]

When = Literal["before", "after"]
Scope = Literal["partition", "request"]

#: Errors Kafka reports for a request as a whole (or for its group), never per partition.
REQUEST_LEVEL_ERRORS = frozenset(
    {
        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.NOT_COORDINATOR,
        ErrorCode.ILLEGAL_GENERATION,
        ErrorCode.UNKNOWN_MEMBER_ID,
        ErrorCode.REBALANCE_IN_PROGRESS,
        ErrorCode.INVALID_SESSION_TIMEOUT,
        ErrorCode.INVALID_GROUP_ID,
        ErrorCode.GROUP_AUTHORIZATION_FAILED,
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
        ErrorCode.INVALID_FETCH_SESSION_EPOCH,
        ErrorCode.FENCED_INSTANCE_ID,
        ErrorCode.MEMBER_ID_REQUIRED,
        ErrorCode.GROUP_MAX_SIZE_REACHED,
        ErrorCode.UNSUPPORTED_VERSION,
        ErrorCode.INVALID_REQUEST,
        ErrorCode.UNKNOWN_SERVER_ERROR,
    }
)

_FIELDS = ("api", "error", "delay_ms", "disconnect", "when", "count", "probability", "seed", "topic", "partition")


def parse_error(error: str | int) -> ErrorCode:
    """A Kafka error by name (``"NOT_LEADER_OR_FOLLOWER"``) or code; `ValueError` otherwise."""
    try:
        if isinstance(error, int) and not isinstance(error, bool):
            return ErrorCode(error)
        if isinstance(error, str):
            return ErrorCode[error.strip().upper()]
    except (KeyError, ValueError):
        pass
    raise ValueError(f"unknown Kafka error {error!r}; allowed: Kafka's error names, e.g. NOT_LEADER_OR_FOLLOWER")


@dataclass(frozen=True, slots=True)
class Fault:
    """What to do to which requests (see the module docstring); ``id`` is given on injection."""

    api: str
    error: ErrorCode | None = None
    delay_ms: int = 0
    disconnect: bool = False
    when: When = "before"
    count: int | None = 1
    probability: float = 1.0
    seed: int | None = None
    topic: str | None = None
    partition: int | None = None
    client_id: str | None = None
    scope: Scope | None = None
    id: int = 0

    def validated(self, apis: Mapping[str, int]) -> Fault:
        """This fault with its API name in Kafka's spelling; `ValueError` names a bad value."""
        by_lower = {name.lower(): name for name in apis}
        api = by_lower.get(str(self.api).lower())
        if api is None:
            raise ValueError(f"unknown API {self.api!r} in a fault; allowed: {', '.join(sorted(apis))}")
        if self.error is None and not self.delay_ms and not self.disconnect:
            raise ValueError("a fault needs an error, a delay_ms or disconnect")
        if self.error is not None and self.disconnect:
            raise ValueError("a fault either answers an error or disconnects, not both")
        if self.delay_ms < 0:
            raise ValueError(f"delay_ms must be >= 0, not {self.delay_ms}")
        if self.when not in ("before", "after"):
            raise ValueError(f"when must be 'before' or 'after', not {self.when!r}")
        if self.count is not None and self.count < 1:
            raise ValueError(f"count must be >= 1 or None (every matching request), not {self.count}")
        if not 0.0 < self.probability <= 1.0:
            raise ValueError(f"probability must be in (0, 1], not {self.probability}")
        if self.scope not in (None, "partition", "request"):
            raise ValueError(f"scope must be 'partition', 'request' or None, not {self.scope!r}")
        if self.partition is not None and self.topic is None:
            raise ValueError("a fault naming a partition must name its topic")
        error = parse_error(self.error) if self.error is not None else None
        return replace(self, api=api, error=error)

    @classmethod
    def from_json(cls, data: Any) -> Fault:
        """A fault from the control endpoint's JSON object; `ValueError` names what is wrong."""
        if not isinstance(data, dict):
            raise ValueError("a fault is a JSON object")
        allowed = {*_FIELDS, "client_id", "scope", "id"}
        unknown = set(data) - allowed
        if unknown:
            names, known = ", ".join(sorted(unknown)), ", ".join(sorted(allowed))
            raise ValueError(f"unknown fault field(s) {names}; allowed: {known}")
        if "api" not in data:
            raise ValueError("a fault needs an api")
        values = dict(data)
        if values.get("error") is not None:
            values["error"] = parse_error(values["error"])
        if isinstance(values.get("disconnect"), str):
            values["when"] = values["disconnect"]
            values["disconnect"] = True
        checks: dict[str, type | tuple[type, ...]] = {
            "id": int,
            "delay_ms": int,
            "count": int,
            "partition": int,
            "seed": int,
            "probability": (int, float),
        }
        for name, kind in checks.items():
            item = values.get(name)
            if item is not None and (isinstance(item, bool) or not isinstance(item, kind)):
                raise ValueError(f"{name} must be a number, not {item!r}")
        for name in ("api", "topic", "client_id"):
            if values.get(name) is not None and not isinstance(values[name], str):
                raise ValueError(f"{name} must be a string, not {values[name]!r}")
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["error"] = self.error.name if self.error is not None else None
        return data


class _Armed:
    __slots__ = ("fault", "fired", "remaining", "rng")

    def __init__(self, fault: Fault, remaining: int | None, rng: Random | None) -> None:
        self.fault = fault
        self.remaining = remaining
        self.rng = rng
        self.fired = 0


class FaultSet:
    """The faults in force, in injection order; the first that matches a request takes it."""

    def __init__(self) -> None:
        self._armed: list[_Armed] = []
        self._next_id = 1

    def __bool__(self) -> bool:
        return bool(self._armed)

    def add(self, fault: Fault) -> Fault:
        fault = replace(fault, id=self._next_id)
        self._next_id += 1
        rng = None
        if fault.probability < 1.0:
            from random import Random

            rng = Random(fault.seed)
        self._armed.append(_Armed(fault, fault.count, rng))
        return fault

    def remove(self, fault_id: int) -> bool:
        before = len(self._armed)
        self._armed = [a for a in self._armed if a.fault.id != fault_id]
        return len(self._armed) < before

    def clear(self) -> None:
        self._armed.clear()

    def listing(self) -> list[dict[str, Any]]:
        """Every fault in force with how often it fired and how many requests it has left."""
        return [{**a.fault.to_json(), "fired": a.fired, "remaining": a.remaining} for a in self._armed]

    def take(
        self, api: str, client_id: str | None, pairs: Iterable[tuple[str, int | None]], every_topic: bool = False
    ) -> Fault | None:
        """The fault that takes this request (one of its count is used), or None; a request for
        ``every_topic`` matches any topic."""
        names: list[tuple[str, int | None]] | None = None
        for armed in self._armed:
            fault = armed.fault
            if fault.api != api or (fault.client_id is not None and fault.client_id != client_id):
                continue
            if fault.topic is not None and not every_topic:
                names = list(pairs) if names is None else names
                if not any(targets(fault, pair) for pair in names):
                    continue
            if armed.rng is not None and armed.rng.random() >= fault.probability:
                continue
            armed.fired += 1
            if armed.remaining is not None:
                armed.remaining -= 1
                if armed.remaining == 0:
                    self._armed.remove(armed)
            return fault
        return None


def targets(fault: Fault, pair: tuple[str, int | None]) -> bool:
    """Whether ``fault`` targets this topic and partition (None: a whole topic)."""
    topic, partition = pair
    if fault.topic is not None and fault.topic != topic:
        return False
    return fault.partition is None or partition is None or fault.partition == partition
