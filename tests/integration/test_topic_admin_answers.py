"""Topic administration answers whose wording and order were checked against Apache Kafka 4.3.1
with the raw probes (compat-tests/probes/topics.py): auto-creation's first answer, CreateTopics'
refusals, DeleteTopics' messages, the cluster's authorized operations; and the order of every
topic in Metadata, also for a user who may describe only some (Kafka 4.4.0)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from inprocess import raw_broker
from rawclient import RawConnection

from odradek.security.acl import AclOperation, PatternType, Permission, ResourceType
from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.acls import CreateAclsRequest
from odradek.wire.messages.cluster import DescribeClusterRequest, SaslHandshakeRequest
from odradek.wire.messages.metadata import MetadataRequest
from odradek.wire.messages.security import SaslAuthenticateRequest
from odradek.wire.messages.topics import CreateTopicsRequest, DeleteTopicsRequest

_MANUAL = "The manual partition assignment includes "
_SPECIFIED = "A manual partition assignment was specified, but "
_ILLEGAL_CHARS = "contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
_Creatable = CreateTopicsRequest.CreatableTopic
_Assignment = _Creatable.CreatableReplicaAssignment


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawConnection]:
    with raw_broker(tmp_path_factory.mktemp("topic-admin")) as (_, connection):
        yield connection


def _create(conn: RawConnection, *topics: Any) -> list[tuple[str, int, str | None]]:
    answer = conn.request(ApiKey.CREATE_TOPICS, 7, CreateTopicsRequest(topics=list(topics), timeout_ms=5000))
    return [(t.name, t.error_code, t.error_message) for t in answer.topics]


def _topic(name: str, partitions: int = 1, replication: int = 1, assignments: list[Any] | None = None) -> Any:
    return _Creatable(
        name=name, num_partitions=partitions, replication_factor=replication, assignments=assignments or []
    )


def test_auto_creation_answers_unknown_first_then_lists_the_topic(conn: RawConnection) -> None:
    request = MetadataRequest(
        topics=[MetadataRequest.MetadataRequestTopic(name="auto-made")], allow_auto_topic_creation=True
    )
    first = conn.request(ApiKey.METADATA, 12, request).topics[0]
    assert (first.error_code, first.partitions) == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, [])
    second = conn.request(ApiKey.METADATA, 12, request).topics[0]
    assert (second.error_code, len(second.partitions)) == (ErrorCode.NONE, 1)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Topic name is invalid: the empty string is not allowed"),
        ("..", "Topic name is invalid: '..' is not allowed"),
        (
            "a!",
            f"Topic name is invalid: 'a!' {_ILLEGAL_CHARS}",
        ),
        ("x" * 250, f"Topic name is invalid: the length of '{'x' * 250}' is longer than the max allowed length 249"),
    ],
)
def test_invalid_names_are_worded_as_kafka_words_them(conn: RawConnection, name: str, message: str) -> None:
    assert _create(conn, _topic(name)) == [(name, ErrorCode.INVALID_TOPIC_EXCEPTION, message)]


def test_a_name_given_twice_is_answered_once_after_the_others(conn: RawConnection) -> None:
    got = _create(conn, _topic("dup-e"), _topic("dup-d"), _topic("dup-d"), _topic("dup-f"), _topic("dup-e"))
    assert got == [
        ("dup-f", ErrorCode.NONE, None),
        ("dup-e", ErrorCode.INVALID_REQUEST, "Duplicate topic name."),
        ("dup-d", ErrorCode.INVALID_REQUEST, "Duplicate topic name."),
    ]


@pytest.mark.parametrize(
    ("partitions", "replication", "assignments", "code", "message"),
    [
        (1, -1, [[1]], ErrorCode.INVALID_REQUEST, _SPECIFIED + "numPartitions was not set to -1."),
        (-1, 1, [[1]], ErrorCode.INVALID_REQUEST, _SPECIFIED + "replication factor was not set to -1."),
        (-1, -1, [[1], []], ErrorCode.INVALID_REPLICA_ASSIGNMENT, _MANUAL + "an empty replica list."),
        (-1, -1, [[1, 1]], ErrorCode.INVALID_REPLICA_ASSIGNMENT, _MANUAL + "the broker 1 more than once."),
        (
            -1,
            -1,
            [[9, 1]],
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            _MANUAL + "broker 9, but no such broker is registered.",
        ),
    ],
)
def test_manual_assignments_are_checked_like_kafka(
    conn: RawConnection, partitions: int, replication: int, assignments: list[list[int]], code: ErrorCode, message: str
) -> None:
    listed = [_Assignment(partition_index=i, broker_ids=ids) for i, ids in enumerate(assignments)]
    assert _create(conn, _topic("manual", partitions, replication, listed)) == [("manual", code, message)]


def test_delete_refusals_carry_kafkas_messages(conn: RawConnection) -> None:
    State = DeleteTopicsRequest.DeleteTopicState
    request = DeleteTopicsRequest(
        topics=[State(name="never-made"), State(name=None, topic_id=b"\x01" * 16), State(name=None)], timeout_ms=5000
    )
    answers = conn.request(ApiKey.DELETE_TOPICS, 6, request).responses
    assert [(a.error_code, a.error_message) for a in answers] == [
        (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition."),
        (ErrorCode.UNKNOWN_TOPIC_ID, "This server does not host this topic ID."),
        (ErrorCode.INVALID_REQUEST, "Neither topic name nor id were specified."),
    ]


def test_cluster_authorized_operations_leave_out_token_operations(conn: RawConnection) -> None:
    request = DescribeClusterRequest(include_cluster_authorized_operations=True)
    assert conn.request(ApiKey.DESCRIBE_CLUSTER, 1, request).cluster_authorized_operations == 8096


def test_metadata_by_id_ignores_names_and_unknown_names_carry_operations(conn: RawConnection) -> None:
    Wanted = MetadataRequest.MetadataRequestTopic
    mixed = MetadataRequest(topics=[Wanted(name="bad!"), Wanted(name=None, topic_id=b"\x07" * 16)])
    (only,) = conn.request(ApiKey.METADATA, 12, mixed).topics
    assert (only.error_code, only.name) == (ErrorCode.UNKNOWN_TOPIC_ID, None)
    unknown = MetadataRequest(
        topics=[Wanted(name="never-made")], allow_auto_topic_creation=False, include_topic_authorized_operations=True
    )
    (answer,) = conn.request(ApiKey.METADATA, 12, unknown).topics
    assert (answer.error_code, answer.topic_authorized_operations) == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 3576)


#: Topics in the order they are created, and what Kafka 4.4.0 answered to Metadata v12 of every
#: topic after the first twelve and after all thirty (raw requests to a fresh broker; the probe
#: sequence metadata.every_topic_order checks the same rule with other names).
_CREATED = [
    "orders", "payments", "clicks", "views", "users", "carts", "refunds", "sessions", "audit-log", "metrics",
    "alerts", "t-0", "t-1", "t-2", "t-3", "t-4", "t-5", "t-6", "t-7", "t-8", "t-9", "t-10", "t-11", "t-12",
    "t-13", "Aa", "BB", "AaAa", "BBBB", "alpha",
]  # fmt: skip
_KAFKA_EVERY_TOPIC_OF_TWELVE = [
    "sessions", "payments", "users", "refunds", "alerts", "carts", "t-0", "clicks", "orders", "metrics", "views",
    "audit-log",
]  # fmt: skip
_KAFKA_EVERY_TOPIC_OF_THIRTY = [
    "BB", "Aa", "payments", "refunds", "t-0", "alpha", "t-2", "t-1", "t-4", "t-3", "t-6", "t-5", "t-8", "views",
    "t-7", "BBBB", "AaAa", "t-9", "sessions", "t-11", "t-10", "t-13", "users", "t-12", "alerts", "carts", "clicks",
    "orders", "metrics", "audit-log",
]  # fmt: skip


def test_every_topic_is_listed_in_kafkas_hash_order_not_creation_order(tmp_path: Any) -> None:
    """Kafka gathers the names in a Scala mutable hash set (16 buckets up to eleven names, 32 from
    twelve); names of one hash ("Aa" and "BB", "AaAa" and "BBBB") come newest first."""
    every = MetadataRequest(topics=None, allow_auto_topic_creation=False)
    with raw_broker(tmp_path / "data") as (_, connection):
        for name in _CREATED[:12]:
            assert _create(connection, _topic(name)) == [(name, ErrorCode.NONE, None)]
        twelve = [topic.name for topic in connection.request(ApiKey.METADATA, 12, every).topics]
        for name in _CREATED[12:]:
            assert _create(connection, _topic(name)) == [(name, ErrorCode.NONE, None)]
        thirty = [topic.name for topic in connection.request(ApiKey.METADATA, 12, every).topics]
    assert twelve == _KAFKA_EVERY_TOPIC_OF_TWELVE
    assert thirty == _KAFKA_EVERY_TOPIC_OF_THIRTY


#: The secured probe's topics (compat-tests/probes/configs_and_order.py, secured.every_topic_order,
#: run with the fixed name "order"), in creation order: words of several lengths, so that the orders
#: of tables of 16, 32 and 64 buckets differ; "a-Aa" and "a-BB" share a String.hashCode.
_SECURED_CREATED = [
    "order-a-kiwi", "order-a-fig", "order-a-mango", "order-a-Aa", "order-a-BB",
    "order-b-oak", "order-b-elm", "order-b-birch", "order-b-cedar", "order-b-pine", "order-b-ash", "order-b-yew",
    "order-b-maple",
    "order-c-red", "order-c-blue", "order-c-green", "order-c-amber", "order-c-teal", "order-c-navy", "order-c-gold",
    "order-c-jade", "order-c-ruby", "order-c-onyx", "order-c-opal",
]  # fmt: skip
#: What Kafka 4.4.0 answered to Metadata v12, v1 and v0 of every topic (the same list in each) as
#: alice, who may describe "order-a-*" and then also "order-b-*", and as the super user.
_KAFKA_ALICE_DESCRIBES_5_OF_24 = ["order-a-BB", "order-a-Aa", "order-a-kiwi", "order-a-fig", "order-a-mango"]
_KAFKA_ALICE_DESCRIBES_13_OF_24 = [
    "order-a-BB", "order-a-Aa", "order-a-kiwi", "order-b-elm", "order-b-maple", "order-a-mango", "order-b-birch",
    "order-b-pine", "order-b-cedar", "order-a-fig", "order-b-oak", "order-b-ash", "order-b-yew",
]  # fmt: skip
_KAFKA_SUPER_USER_24 = [
    "order-a-BB", "order-a-Aa", "order-a-kiwi", "order-c-blue", "order-b-elm", "order-b-maple", "order-c-teal",
    "order-b-birch", "order-c-gold", "order-c-ruby", "order-b-cedar", "order-b-oak", "order-c-navy", "order-c-amber",
    "order-c-red", "order-c-green", "order-c-jade", "order-a-mango", "order-b-pine", "order-c-onyx", "order-a-fig",
    "order-b-ash", "order-b-yew", "order-c-opal",
]  # fmt: skip
_ALICE_JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";'


def _every_topic_names(connection: RawConnection) -> list[str]:
    """Metadata of every topic in v12 and v1 (``topics`` null) and v0 (an empty list): the names,
    which must be the same list in each version."""
    answers = [
        [topic.name for topic in connection.request(ApiKey.METADATA, version, request).topics]
        for version, request in (
            (12, MetadataRequest(topics=None, allow_auto_topic_creation=False)),
            (1, MetadataRequest(topics=None)),
            (0, MetadataRequest(topics=[])),
        )
    ]
    assert answers[1] == answers[0] and answers[2] == answers[0], answers
    return answers[0]


def _allow_describe(admin: RawConnection, prefix: str) -> None:
    creation = CreateAclsRequest.AclCreation(
        resource_type=ResourceType.TOPIC,
        resource_name=prefix,
        resource_pattern_type=PatternType.PREFIXED,
        principal="User:alice",
        host="*",
        operation=AclOperation.DESCRIBE,
        permission_type=Permission.ALLOW,
    )
    (result,) = admin.request(ApiKey.CREATE_ACLS, 3, CreateAclsRequest(creations=[creation])).results
    assert result.error_code == ErrorCode.NONE, result.error_message


def test_every_topic_answer_lists_only_described_topics_in_the_order_kafka_sizes_by_them(tmp_path: Any) -> None:
    """Kafka gathers the topics the principal may describe in a Scala mutable hash set sized from
    how many they are (16 buckets for 5, 32 for 13, 64 for all 24): the order is not the super
    user's order with the others left out, nor creation order."""
    overrides = [
        "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "sasl.enabled.mechanisms=PLAIN",
        f"listener.name.sasl_plaintext.plain.sasl.jaas.config={_ALICE_JAAS}",
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users=User:ANONYMOUS",
        "allow.everyone.if.no.acl.found=false",
    ]
    with raw_broker(tmp_path / "data", overrides) as (broker, _):
        ports = broker.broker.listener_ports
        admin = RawConnection(f"127.0.0.1:{ports['PLAINTEXT']}")
        alice = RawConnection(f"127.0.0.1:{ports['SASL_PLAINTEXT']}")
        try:
            for name in _SECURED_CREATED:
                admin.create_topic(name)
            assert alice.request(ApiKey.SASL_HANDSHAKE, 1, SaslHandshakeRequest(mechanism="PLAIN")).error_code == 0
            login = SaslAuthenticateRequest(auth_bytes=b"\0alice\0alice-secret")
            assert alice.request(ApiKey.SASL_AUTHENTICATE, 2, login).error_code == 0
            assert _every_topic_names(alice) == []
            _allow_describe(admin, "order-a-")
            assert _every_topic_names(alice) == _KAFKA_ALICE_DESCRIBES_5_OF_24
            assert _every_topic_names(admin) == _KAFKA_SUPER_USER_24
            _allow_describe(admin, "order-b-")
            assert _every_topic_names(alice) == _KAFKA_ALICE_DESCRIBES_13_OF_24
        finally:
            alice.close()
            admin.close()
