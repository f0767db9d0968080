"""Probe sequences for transactions under Kafka's StandardAuthorizer (the secured broker of
harness/security.py): what a principal may do with transactional ids, groups and topics it holds
some ACLs on, asked with raw requests, error for error.

alice may WRITE one transactional id and DESCRIBE another, WRITE and READ one topic, READ one
group; everything else is refused.  bob holds no ACL at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from odradek.wire.api import ApiKey
from probes.groups import coordinator_ready, topic_with, until
from probes.secured import _acl, _authenticated, _filter, _until_acls
from probes.session import Session
from probes.transactions import Txn, _batch, _mask_times

__all__ = ["SEQUENCES"]

TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID = 2, 3, 4, 5
ANY, LITERAL = 1, 3
READ, WRITE, DESCRIBE = 3, 4, 8
ALLOW = 3


def _offsets(txn: Txn, label: str, group: str, topics: list[str]) -> Any:
    return txn.s.call(
        label,
        ApiKey.TXN_OFFSET_COMMIT,
        3,
        transactional_id=txn.tid,
        group_id=group,
        producer_id=txn.pid,
        producer_epoch=txn.epoch,
        generation_id_or_member_epoch=-1,
        member_id="",
        group_instance_id=None,
        topics=[
            {"name": t, "partitions": [{"partition_index": 0, "committed_offset": 1, "committed_metadata": None}]}
            for t in topics
        ],
    )


def transaction_acls(s: Session, names: dict[str, str]) -> None:
    run = names["topic"]
    allowed, denied, missing = f"{run}-allowed", f"{run}-denied", f"{run}-missing"
    writable, readable, hidden = f"{run}-tx-write", f"{run}-tx-describe", f"{run}-tx-hidden"
    group, other_group = names["group"], names["other"]
    for topic in (allowed, denied):
        topic_with(s, topic, 1)
    acls = [
        _acl(TRANSACTIONAL_ID, writable, LITERAL, "User:alice", WRITE, ALLOW),
        _acl(TRANSACTIONAL_ID, readable, LITERAL, "User:alice", DESCRIBE, ALLOW),
        _acl(TOPIC, allowed, LITERAL, "User:alice", WRITE, ALLOW),
        _acl(TOPIC, allowed, LITERAL, "User:alice", READ, ALLOW),
        _acl(GROUP, group, LITERAL, "User:alice", READ, ALLOW),
    ]
    s.call("create acls", ApiKey.CREATE_ACLS, 3, creations=acls)
    _until_acls(s, "User:alice", len(acls))
    admin_readable = Txn(s, readable)
    admin_readable.find()
    admin_readable.init_ready()
    alice = _authenticated(s, names, "alice")
    bob = _authenticated(s, names, "bob")
    try:
        for key in (writable, readable, hidden):
            alice.call(
                f"find coordinator {key[len(run) :]}",
                ApiKey.FIND_COORDINATOR,
                4,
                key_type=1,
                coordinator_keys=[key],
            )
        ok, refused, described = Txn(alice, writable), Txn(alice, hidden), Txn(alice, readable)
        refused.init("init producer id: no ACL on the transactional id")
        described.init("init producer id: DESCRIBE only")
        alice.call("init producer id: idempotent, WRITE on a topic", ApiKey.INIT_PRODUCER_ID, 4,
                   transactional_id=None, transaction_timeout_ms=60_000, producer_id=-1, producer_epoch=-1)  # fmt: skip
        bob.call("init producer id: idempotent, no ACL", ApiKey.INIT_PRODUCER_ID, 4,
                 transactional_id=None, transaction_timeout_ms=60_000, producer_id=-1, producer_epoch=-1)  # fmt: skip
        until(alice, lambda: ok.init("init")["error_code"] == 0, "init")
        ok.add("add partitions: allowed, denied, missing", {allowed: [0], denied: [0], missing: [0]})
        refused.pid, refused.epoch = ok.pid, ok.epoch
        refused.add("add partitions: transactional id refused", {allowed: [0]})
        ok.add_batched("add partitions v4: a broker's request", {allowed: [0]}, verify_only=True)
        ok.add("add partitions: allowed", {allowed: [0]})
        ok.produce("produce: transactional id refused", allowed, 0, _batch(ok.pid, ok.epoch, 0), tid=hidden)
        ok.produce("produce: to a denied topic", denied, 0, _batch(ok.pid, ok.epoch, 0))
        ok.produce("produce", allowed, 0, _batch(ok.pid, ok.epoch, 0))
        ok.add_offsets("add offsets: group refused", other_group)
        refused.add_offsets("add offsets: transactional id refused", group)
        ok.add_offsets("add offsets", group)
        _offsets(ok, "txn offset commit: before the group's coordinator was looked up", group, [allowed])
        coordinator_ready(s, group)
        _offsets(ok, "txn offset commit: allowed, denied, missing", group, [denied, allowed, missing])
        _offsets(ok, "txn offset commit: allowed", group, [allowed])
        _offsets(ok, "txn offset commit: group refused", other_group, [allowed])
        _offsets(refused, "txn offset commit: transactional id refused", group, [allowed])
        described_all = alice.call(
            "describe transactions", ApiKey.DESCRIBE_TRANSACTIONS, 0, transactional_ids=[writable, readable, hidden]
        )
        alice.observations[-1].response = _mask_times(described_all)
        wanted = [{"name": t, "partition_indexes": [0]} for t in (allowed, denied, missing)]
        alice.call("describe producers", ApiKey.DESCRIBE_PRODUCERS, 0, topics=wanted)
        listed = alice.call("list transactions", ApiKey.LIST_TRANSACTIONS, 1,
                            state_filters=[], producer_id_filters=[], duration_filter=-1)  # fmt: skip
        listed["transaction_states"] = sorted(listed["transaction_states"], key=lambda t: t["transactional_id"])
        alice.call("write txn markers", ApiKey.WRITE_TXN_MARKERS, 1, markers=[
            {"producer_id": ok.pid, "producer_epoch": ok.epoch, "transaction_result": False,
             "topics": [{"name": allowed, "partition_indexes": [0]}], "coordinator_epoch": 0}])  # fmt: skip
        refused.end("end txn: transactional id refused", commit=True)
        ok.end("end txn", commit=True)
    finally:
        alice.close()
        bob.close()
    s.call("delete the ACLs", ApiKey.DELETE_ACLS, 3, filters=[_filter(ANY, None, ANY, "User:alice")])


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "secured.transaction_acls": transaction_acls,
}
