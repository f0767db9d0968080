"""Probe sequence on the secured broker (harness/security.py) for the admin APIs: what a SASL
user without the ACLs they need is answered by CreatePartitions, OffsetForLeaderEpoch,
ElectLeaders, the reassignment and log-directory APIs, DescribeQuorum and the voter and
unregister APIs, and what the delegation-token APIs answer a SASL-authenticated client."""

from __future__ import annotations

from collections.abc import Callable

from odradek.wire.api import ApiKey
from probes.groups import topic_with, until
from probes.secured import ALLOW, ALTER, ANY, LITERAL, TOPIC, _acl, _authenticated, _filter
from probes.session import Session

__all__ = ["SECURED_ADMIN_SEQUENCES"]

_METADATA = "__cluster_metadata"


def admin_refusals(s: Session, names: dict[str, str]) -> None:
    run = names["topic"]
    allowed, denied = f"{run}-allowed", f"{run}-denied"
    for topic in (allowed, denied):
        topic_with(s, topic, 1)
    s.call("create acls", ApiKey.CREATE_ACLS, 3, creations=[_acl(TOPIC, allowed, LITERAL, "User:alice", ALTER, ALLOW)])
    until(
        s,
        lambda: bool(s.call("describe", ApiKey.DESCRIBE_ACLS, 3, **_filter(TOPIC, allowed, ANY))["resources"]),
        "the ACL to apply",
    )
    alice = _authenticated(s, names, "alice")
    try:
        grow = [{"name": t, "count": 2, "assignments": None} for t in (allowed, denied, f"{run}-missing")]
        alice.call("create partitions", ApiKey.CREATE_PARTITIONS, 3, topics=grow, timeout_ms=5000, validate_only=True)
        epochs = [
            {"topic": t, "partitions": [{"partition": 0, "current_leader_epoch": -1, "leader_epoch": 0}]}
            for t in (allowed, denied)
        ]
        alice.call("offset for leader epoch", ApiKey.OFFSET_FOR_LEADER_EPOCH, 4, replica_id=-1, topics=epochs)
        alice.call("elect leaders", ApiKey.ELECT_LEADERS, 2, election_type=0, timeout_ms=5000,
                   topic_partitions=[{"topic": allowed, "partitions": [0]}])  # fmt: skip
        alice.call("alter reassignments", ApiKey.ALTER_PARTITION_REASSIGNMENTS, 1, timeout_ms=5000,
                   topics=[{"name": allowed, "partitions": [{"partition_index": 0, "replicas": [1]}]}])  # fmt: skip
        alice.call("list reassignments", ApiKey.LIST_PARTITION_REASSIGNMENTS, 0, timeout_ms=5000, topics=None)
        alice.call("alter replica log dirs", ApiKey.ALTER_REPLICA_LOG_DIRS, 2,
                   dirs=[{"path": "/nowhere", "topics": [{"name": allowed, "partitions": [0]}]}])  # fmt: skip
        alice.call("describe quorum", ApiKey.DESCRIBE_QUORUM, 2,
                   topics=[{"topic_name": _METADATA, "partitions": [{"partition_index": 0}]}])  # fmt: skip
        alice.call("unregister broker", ApiKey.UNREGISTER_BROKER, 0, broker_id=5)
        alice.call("unregister controller", ApiKey.UNREGISTER_CONTROLLER, 0, controller_id=5)
        alice.call("remove raft voter", ApiKey.REMOVE_RAFT_VOTER, 0, cluster_id=None, voter_id=2,
                   voter_directory_id=b"\x05" * 16)  # fmt: skip
        upgrade = [{"feature": "group.version", "max_version_level": 1, "upgrade_type": 1}]
        alice.call("update features", ApiKey.UPDATE_FEATURES, 1, timeout_ms=5000, validate_only=True,
                   feature_updates=upgrade)  # fmt: skip
        alice.call("list config resources", ApiKey.LIST_CONFIG_RESOURCES, 1, resource_types=[])
        alice.call("create token", ApiKey.CREATE_DELEGATION_TOKEN, 3, renewers=[], max_lifetime_ms=-1,
                   owner_principal_type=None, owner_principal_name=None)  # fmt: skip
        alice.call("describe tokens", ApiKey.DESCRIBE_DELEGATION_TOKEN, 3, owners=None)
        alice.call("renew token", ApiKey.RENEW_DELEGATION_TOKEN, 2, hmac=b"\x01", renew_period_ms=1000)
    finally:
        alice.close()
    s.call("delete the ACL", ApiKey.DELETE_ACLS, 3, filters=[_filter(ANY, None, ANY, "User:alice")])


SECURED_ADMIN_SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "secured.admin_refusals": admin_refusals,
}
