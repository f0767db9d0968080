"""Probe sequences for cluster-level administration on a single combined-mode node: the KRaft
quorum (DescribeQuorum, AddRaftVoter, RemoveRaftVoter, UnregisterController), UnregisterBroker,
DescribeCluster's endpoint types, ListConfigResources, and the delegation-token APIs on a broker
with no token secret configured."""

from __future__ import annotations

from collections.abc import Callable

from odradek.wire.api import ApiKey
from probes.groups import coordinator_ready, topic_with
from probes.session import Session, own_broker
from probes.storage import produce_one

__all__ = ["SEQUENCES"]

_METADATA = "__cluster_metadata"
_DIRECTORY = b"\x05" * 16


def quorum(s: Session, names: dict[str, str]) -> None:
    """DescribeQuorum at every version and its refusals, the voter changes a single static
    voter refuses, and unregistering brokers and controllers."""
    for version in (0, 1, 2):
        s.call(f"describe quorum v{version}", ApiKey.DESCRIBE_QUORUM, version,
               topics=[{"topic_name": _METADATA, "partitions": [{"partition_index": 0}]}])  # fmt: skip
    s.call("describe quorum: another partition", ApiKey.DESCRIBE_QUORUM, 2,
           topics=[{"topic_name": _METADATA, "partitions": [{"partition_index": 1}]}])  # fmt: skip
    s.call("describe quorum: another topic", ApiKey.DESCRIBE_QUORUM, 2,
           topics=[{"topic_name": names["topic"], "partitions": [{"partition_index": 0}]}])  # fmt: skip
    s.call("describe quorum: no topics", ApiKey.DESCRIBE_QUORUM, 2, topics=[])
    twice = [{"partition_index": 0}, {"partition_index": 0}]
    s.call("describe quorum: two partitions", ApiKey.DESCRIBE_QUORUM, 2,
           topics=[{"topic_name": _METADATA, "partitions": twice}])  # fmt: skip
    listener = [{"name": "CONTROLLER", "host": "127.0.0.1", "port": 9999}]
    for version in (0, 1):
        s.call(f"add raft voter v{version}", ApiKey.ADD_RAFT_VOTER, version, cluster_id=None, timeout_ms=5000,
               voter_id=2, voter_directory_id=_DIRECTORY, listeners=listener)  # fmt: skip
    s.call("add raft voter: this node again", ApiKey.ADD_RAFT_VOTER, 1, cluster_id=None, timeout_ms=5000,
           voter_id=1, voter_directory_id=_DIRECTORY, listeners=listener)  # fmt: skip
    s.call("add raft voter: another cluster", ApiKey.ADD_RAFT_VOTER, 1, cluster_id="AAAAAAAAAAAAAAAAAAAAAA",
           timeout_ms=5000, voter_id=2, voter_directory_id=_DIRECTORY, listeners=listener)  # fmt: skip
    s.call("remove raft voter: an unknown voter", ApiKey.REMOVE_RAFT_VOTER, 0, cluster_id=None, voter_id=2,
           voter_directory_id=_DIRECTORY)  # fmt: skip
    s.call("remove raft voter: this node, wrong directory", ApiKey.REMOVE_RAFT_VOTER, 0, cluster_id=None,
           voter_id=1, voter_directory_id=_DIRECTORY)  # fmt: skip
    s.call("remove raft voter: another cluster", ApiKey.REMOVE_RAFT_VOTER, 0, cluster_id="AAAAAAAAAAAAAAAAAAAAAA",
           voter_id=2, voter_directory_id=_DIRECTORY)  # fmt: skip
    for broker_id in (5, -1):
        s.call(f"unregister broker {broker_id}", ApiKey.UNREGISTER_BROKER, 0, broker_id=broker_id)
    for controller_id in (5, 1):
        s.call(f"unregister controller {controller_id}", ApiKey.UNREGISTER_CONTROLLER, 0, controller_id=controller_id)
    s.call("describe quorum at the end", ApiKey.DESCRIBE_QUORUM, 2,
           topics=[{"topic_name": _METADATA, "partitions": [{"partition_index": 0}]}])  # fmt: skip


@own_broker
def unregister_itself(s: Session, names: dict[str, str]) -> None:
    """UnregisterBroker naming this very node, and what the node says afterwards (Kafka fences
    itself until it restarts: no broker, no leaders, no coordinator).  A topic of 64 partitions is
    described before and after too: odradek keeps such a topic's answered partitions between
    Metadata requests (`odradek.handlers.metadata`), and fencing must show in them at once."""
    topic, large = names["topic"], f"{names['topic']}-large"
    topic_with(s, topic, 1)
    topic_with(s, large, 64)
    s.call("metadata of 64 partitions before", ApiKey.METADATA, 12, topics=[{"name": large}],
           allow_auto_topic_creation=False, include_topic_authorized_operations=False)  # fmt: skip
    s.call("unregister broker 1 (this node)", ApiKey.UNREGISTER_BROKER, 0, broker_id=1)
    s.call("describe cluster afterwards", ApiKey.DESCRIBE_CLUSTER, 2, include_cluster_authorized_operations=False,
           endpoint_type=1, include_fenced_brokers=True)  # fmt: skip
    s.call("metadata afterwards", ApiKey.METADATA, 12, topics=[{"name": topic}], allow_auto_topic_creation=False,
           include_topic_authorized_operations=False)  # fmt: skip
    s.call("metadata of 64 partitions afterwards", ApiKey.METADATA, 12, topics=[{"name": large}],
           allow_auto_topic_creation=False, include_topic_authorized_operations=False)  # fmt: skip
    produce_one(s, "produce afterwards", topic, 0, 0)
    parts = [{"partition_index": 0, "current_leader_epoch": -1, "timestamp": -1}]
    s.call("list offsets afterwards", ApiKey.LIST_OFFSETS, 9, replica_id=-1, isolation_level=0,
           topics=[{"name": topic, "partitions": parts}])  # fmt: skip
    s.call("find coordinator afterwards", ApiKey.FIND_COORDINATOR, 4, key_type=0, coordinator_keys=[names["group"]])
    new = {"name": names["other"], "num_partitions": 1, "replication_factor": 1, "assignments": [], "configs": []}
    s.call("create a topic afterwards", ApiKey.CREATE_TOPICS, 7, timeout_ms=5000, validate_only=True, topics=[new])
    s.call("unregister broker 1 again", ApiKey.UNREGISTER_BROKER, 0, broker_id=1)
    s.call("describe quorum afterwards", ApiKey.DESCRIBE_QUORUM, 2,
           topics=[{"topic_name": _METADATA, "partitions": [{"partition_index": 0}]}])  # fmt: skip


def describe_cluster(s: Session, names: dict[str, str]) -> None:
    """DescribeCluster at every version and endpoint type."""
    s.call("describe cluster v0", ApiKey.DESCRIBE_CLUSTER, 0, include_cluster_authorized_operations=False)
    for version in (1, 2):
        for endpoint_type in (1, 2, 0, 3):
            s.call(f"describe cluster v{version}, endpoint type {endpoint_type}", ApiKey.DESCRIBE_CLUSTER, version,
                   include_cluster_authorized_operations=version == 2, endpoint_type=endpoint_type)  # fmt: skip
    s.call("describe cluster v2 with fenced brokers", ApiKey.DESCRIBE_CLUSTER, 2,
           include_cluster_authorized_operations=False, endpoint_type=1, include_fenced_brokers=True)  # fmt: skip


def config_resources(s: Session, names: dict[str, str]) -> None:
    """ListConfigResources (KIP-1142) for every type, after a topic and a group exist."""
    topic_with(s, names["topic"], 1)
    coordinator_ready(s, names["group"])
    s.call("list config resources v0 (client metrics)", ApiKey.LIST_CONFIG_RESOURCES, 0)
    for label, types in (
        ("every type", []),
        ("topics", [2]),
        ("brokers", [4]),
        ("broker loggers", [8]),
        ("client metrics", [16]),
        ("groups", [32]),
        ("topics and brokers", [2, 4]),
        ("an unknown type", [99]),
        ("unknown type 0", [0]),
        ("topics twice", [2, 2]),
    ):
        answer = s.call(f"list config resources v1: {label}", ApiKey.LIST_CONFIG_RESOURCES, 1, resource_types=types)
        # Keep this sequence's names and the broker's (every broker and topic of the run is listed).
        answer["config_resources"] = sorted(
            (r for r in answer["config_resources"] if not str(r["resource_name"]).startswith("probe-")
             or names["topic"] in str(r["resource_name"]) or names["group"] in str(r["resource_name"])),
            key=lambda r: (r["resource_type"], str(r["resource_name"])),
        )  # fmt: skip
        s.observations[-1].response = answer


def delegation_tokens(s: Session, names: dict[str, str]) -> None:
    """The delegation-token APIs on a broker without ``delegation.token.secret.key``."""
    renewers = [{"principal_type": "User", "principal_name": "alice"}]
    for version in (1, 2, 3):
        fields: dict[str, object] = {"renewers": renewers, "max_lifetime_ms": -1}
        if version >= 3:
            fields |= {"owner_principal_type": None, "owner_principal_name": None}
        s.call(f"create token v{version}", ApiKey.CREATE_DELEGATION_TOKEN, version, **fields)
    s.call("create token v3 for an owner", ApiKey.CREATE_DELEGATION_TOKEN, 3, renewers=[], max_lifetime_ms=1000,
           owner_principal_type="User", owner_principal_name="bob")  # fmt: skip
    s.call("create token v3 with a bad renewer type", ApiKey.CREATE_DELEGATION_TOKEN, 3,
           renewers=[{"principal_type": "Group", "principal_name": "x"}], max_lifetime_ms=-1,
           owner_principal_type=None, owner_principal_name=None)  # fmt: skip
    for version in (1, 2):
        s.call(
            f"renew token v{version}", ApiKey.RENEW_DELEGATION_TOKEN, version, hmac=b"\x01\x02", renew_period_ms=1000
        )
        s.call(f"expire token v{version}", ApiKey.EXPIRE_DELEGATION_TOKEN, version, hmac=b"\x01\x02",
               expiry_time_period_ms=-1)  # fmt: skip
    for version in (1, 2, 3):
        s.call(f"describe tokens v{version}: every owner", ApiKey.DESCRIBE_DELEGATION_TOKEN, version, owners=None)
        s.call(f"describe tokens v{version}: one owner", ApiKey.DESCRIBE_DELEGATION_TOKEN, version,
               owners=[{"principal_type": "User", "principal_name": "alice"}])  # fmt: skip
    s.call("describe tokens: no owners", ApiKey.DESCRIBE_DELEGATION_TOKEN, 3, owners=[])


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "cluster.quorum": quorum,
    "cluster.unregister_itself": unregister_itself,
    "cluster.describe_cluster": describe_cluster,
    "cluster.config_resources": config_resources,
    "cluster.delegation_tokens": delegation_tokens,
}
