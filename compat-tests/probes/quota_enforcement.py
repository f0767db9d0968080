"""Probe sequences for the enforced client quotas.

The controller mutation quota (``controller_mutation_rate``, KIP-599): which
CreateTopics, CreatePartitions and DeleteTopics a client over its quota may still make.

The quota is a token bucket of ``(controller.quota.window.num - 1) * window * rate`` partitions that
refills at the rate; a rate of 0.1 per second leaves a burst of one partition, so a first topic of
twelve partitions (admitted: the bucket is not empty before it) leaves a deficit that takes
110 s to refill, and every later request of the sequence meets an exhausted quota whatever the
machine's speed. Each request after the first goes on a fresh connection (the quota is the client
id's, but a throttled connection is muted for the throttle time, which would refill the bucket).
Throttle times are timing and not compared; whether an answer was throttled is recorded as its own
observation.

The request quota (``request_percentage``, KIP-124) charges a request's handler time; a quota of
0.00001 % is exceeded by any request on any machine (10 us of handler time is 0.001 percent-seconds,
0.0001 % over the 10 s a first sample counts as), so each request after it is throttled, and the
throttle time, (rate - quota) / quota * 10 s, is far above one window: whether it is bounded to one
window (``quota.window.size.seconds``, 1 s) is recorded as its own observation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.groups import until
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


def _throttle_of(s: Session, label: str, api_key: int, version: int, *, keep: bool = True, **fields: Any) -> None:
    """One request on a new connection: whether it was throttled, and by exactly one window; the
    answer itself is kept unless ``keep`` is false (ApiVersions: the version ranges are other
    probes' subject)."""
    session = Session(s.bootstrap, observations=s.observations)
    try:
        answer = session.call(label, api_key, version, **fields)
    finally:
        session._conn.close()
    if not keep:
        s.observations.pop()
    throttle_ms = answer.get("throttle_time_ms", 0)
    seen = {"throttled": throttle_ms > 0, "one window": throttle_ms == 1000}
    s.observations.append(Observation(f"{label}: throttle", "note", 0, {}, seen))


def request_percentage_quota(s: Session, names: dict[str, str]) -> None:
    entity = _entity(("client-id", CLIENT_ID))
    s.call(
        "set request_percentage 0.00001",
        ApiKey.ALTER_CLIENT_QUOTAS,
        1,
        entries=[{"entity": entity, "ops": [_op("request_percentage", 0.00001)]}],
        validate_only=False,
    )
    _quotas_settle(s, 1)

    def enforced() -> bool:  # the broker's quota manager may apply the record after Describe shows it
        session = Session(s.bootstrap, observations=s.observations)
        try:
            return bool(session.call("versions", ApiKey.API_VERSIONS, 3, **_VERSIONS).get("throttle_time_ms", 0) > 0)
        finally:
            session._conn.close()

    until(s, enforced, "the request quota in force")
    _throttle_of(s, "ApiVersions v3", ApiKey.API_VERSIONS, 3, keep=False, **_VERSIONS)
    _throttle_of(s, "Metadata v12", ApiKey.METADATA, 12, topics=[], allow_auto_topic_creation=False,
                 include_topic_authorized_operations=False)  # fmt: skip
    _throttle_of(s, "DescribeClientQuotas v1", ApiKey.DESCRIBE_CLIENT_QUOTAS, 1, components=[], strict=False)
    _throttle_of(s, "FindCoordinator v4", ApiKey.FIND_COORDINATOR, 4, key_type=0, coordinator_keys=[names["group"]])
    _throttle_of(s, "ListGroups v4", ApiKey.LIST_GROUPS, 4, states_filter=[])
    s.call(
        "remove the quota",
        ApiKey.ALTER_CLIENT_QUOTAS,
        1,
        entries=[{"entity": entity, "ops": [_op("request_percentage", remove=True)]}],
        validate_only=False,
    )
    _quotas_settle(s, 0)


_VERSIONS = {"client_software_name": "probe", "client_software_version": "1"}

SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "quotas.controller_mutation": controller_mutation_quota,
    "quotas.request_percentage": request_percentage_quota,
}
