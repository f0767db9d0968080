"""One raw Kafka connection that speaks in plain data: requests built from dicts, responses
turned into dicts, every exchange recorded as an observation.

The probes send exact requests (a client library would validate, retry or hide them) and the
harness compares what two brokers answered.  Encoding uses odradek's codec, which
compat-tests/codec-diff checks against kafka-clients' own classes, so a difference here is a
difference in behaviour, not in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.schema import ArrayOf, Struct, StructValue
from tests.integration.rawclient import RawConnection

__all__ = ["Observation", "Session", "to_data"]


def _build(struct: Struct, values: dict[str, Any]) -> StructValue:
    """A value of ``struct`` from a dict whose nested lists of dicts become nested structs."""
    known = {f.name: f for f in struct.fields}
    kwargs: dict[str, Any] = {}
    for name, value in values.items():
        kind = known[name].type
        if isinstance(kind, ArrayOf) and isinstance(kind.element, Struct) and value is not None:
            kwargs[name] = [_build(kind.element, item) for item in value]
        elif isinstance(kind, Struct) and value is not None:
            kwargs[name] = _build(kind, value)
        else:
            kwargs[name] = value
    return struct.cls(**kwargs)


def to_data(value: Any) -> Any:
    """A decoded message as JSON-able data (bytes become hex, nested structs dicts)."""
    if isinstance(value, StructValue):
        return {f.name: to_data(getattr(value, f.name)) for f in value._schema.fields}
    if isinstance(value, list):
        return [to_data(item) for item in value]
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    return value


@dataclass
class Observation:
    """One request and the broker's answer (or ``closed`` when it dropped the connection)."""

    label: str
    api: str
    version: int
    request: dict[str, Any]
    response: Any


@dataclass
class Session:
    """A connection plus the list of what happened on it, in order."""

    bootstrap: str
    observations: list[Observation] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._conn = RawConnection(self.bootstrap, timeout=30.0)

    def call(self, label: str, api_key: int, version: int, **fields: Any) -> dict[str, Any]:
        """Send one request, record it, and return the answer as data."""
        request_schema, _ = ALL_MESSAGES[api_key]
        answer = to_data(self._conn.request(api_key, version, _build(request_schema.struct, fields)))
        self.observations.append(Observation(label, request_schema.name, version, fields, answer))
        return answer  # type: ignore[no-any-return]

    def call_or_closed(self, label: str, api_key: int, version: int, **fields: Any) -> dict[str, Any]:
        """As `call`, but a broker that closes the connection instead of answering is recorded as
        ``{"closed": true}`` (the probes of what a broker refuses before authentication)."""
        request_schema, _ = ALL_MESSAGES[api_key]
        try:
            return self.call(label, api_key, version, **fields)
        except (AssertionError, OSError):
            self.observations.append(Observation(label, request_schema.name, version, fields, {"closed": True}))
            return {"closed": True}

    def raw(self, label: str, data: bytes) -> bytes | None:
        """Send size-prefixed ``data`` as it is (a SASL token after SaslHandshake v0) and record the
        answer frame (hex) or the closed connection."""
        try:
            self._conn.send_raw(len(data).to_bytes(4, "big") + data)
            answer = self._conn.recv_frame()
        except OSError:
            answer = None
        response: dict[str, Any] = {"closed": True} if answer is None else {"frame": answer.hex()}
        self.observations.append(Observation(label, "raw", 0, {"bytes": data.hex()}, response))
        return answer

    def close(self) -> None:
        self._conn.close()
