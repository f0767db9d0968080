"""Probe sequence for the controller mutation quota (``controller_mutation_rate``, KIP-599): which
CreateTopics, CreatePartitions and DeleteTopics a client over its quota may still make.

The quota is a token bucket of ``(controller.quota.window.num - 1) * window * rate`` partitions that
refills at the rate; a rate of 0.1 per second leaves a burst of one partition, so a first topic of
twelve partitions (admitted: the bucket is not empty before it) leaves a deficit that takes
110 s to refill, and every later request of the sequence meets an exhausted quota whatever the
machine's speed. Each request after the first goes on a fresh connection (the quota is the client
id's, but a throttled connection is muted for the throttle time, which would refill the bucket).
Throttle times are timing and not compared; whether an answer was throttled is recorded as its own
observation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.security import _entity, _op, _quotas_settle
from probes.session import Observation, Session

__all__ = ["SEQUENCES"]

#: The probes' client id (tests/integration/rawclient.py), which the quota is set on.
CLIENT_ID = "raw-test"


def _topic(name: str, partitions: int) -> dict[str, Any]:
    return {"name": name, "num_partitions": partitions, "replication_factor": 1, "assignments": [], "configs": []}


def _fresh(s: Session, label: str, api_key: int, version: int, **fields: Any) -> dict[str, Any]:
    """One request on a new connection recording into ``s``, and whether it was throttled."""
    session = Session(s.bootstrap, observations=s.observations)
    try:
        answer = session.call(label, api_key, version, **fields)
    finally:
        session._conn.close()
    throttled = {"throttled": answer.get("throttle_time_ms", 0) > 0}
    s.observations.append(Observation(f"{label}: throttled", "note", 0, {}, throttled))
    return answer


def controller_mutation_quota(s: Session, names: dict[str, str]) -> None:
    run = names["topic"]
    big, small, later, checked = f"{run}-big", f"{run}-small", f"{run}-later", f"{run}-checked"
    s.call(
        "set controller_mutation_rate 0.1",
        ApiKey.ALTER_CLIENT_QUOTAS,
        1,
        entries=[{"entity": _entity(("client-id", CLIENT_ID)), "ops": [_op("controller_mutation_rate", 0.1)]}],
        validate_only=False,
    )
    _quotas_settle(s, 1)
    create = {"timeout_ms": 5000, "validate_only": False}
    _fresh(s, "create 12 partitions, v7", ApiKey.CREATE_TOPICS, 7, topics=[_topic(big, 12)], **create)
    _fresh(s, "create two more, v7", ApiKey.CREATE_TOPICS, 7, topics=[_topic(small, 1), _topic(later, 2)], **create)
    _fresh(s, "create, validate only, v7", ApiKey.CREATE_TOPICS, 7, topics=[_topic(checked, 1)],
           timeout_ms=5000, validate_only=True)  # fmt: skip
    _fresh(s, "create one, v5", ApiKey.CREATE_TOPICS, 5, topics=[_topic(small, 1)], **create)
    grow = {"timeout_ms": 5000, "validate_only": False}
    _fresh(s, "grow, v3", ApiKey.CREATE_PARTITIONS, 3, topics=[{"name": big, "count": 13, "assignments": None}], **grow)
    _fresh(s, "grow, v2", ApiKey.CREATE_PARTITIONS, 2, topics=[{"name": small, "count": 2, "assignments": None}],
           **grow)  # fmt: skip
    _fresh(s, "delete, v6", ApiKey.DELETE_TOPICS, 6, topics=[{"name": big, "topic_id": bytes(16)}], timeout_ms=5000)
    _fresh(s, "delete, v4", ApiKey.DELETE_TOPICS, 4, topic_names=[small], timeout_ms=5000)
    s.call(
        "remove the quota",
        ApiKey.ALTER_CLIENT_QUOTAS,
        1,
        entries=[{"entity": _entity(("client-id", CLIENT_ID)), "ops": [_op("controller_mutation_rate", remove=True)]}],
        validate_only=False,
    )
    _quotas_settle(s, 0)


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "quotas.controller_mutation": controller_mutation_quota,
}
