"""ElectLeaders and the partition reassignment APIs through real admin clients: a single node
never needs an election and can only "move" a partition to itself, as on Apache Kafka."""

from __future__ import annotations

from confluent_kafka import ElectionType, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.admin import KafkaAdminClient
from kafka.errors import ElectionNotNeededError, InvalidReplicationAssignmentError
from kafka.structs import TopicPartition as KpTopicPartition

from tests.integration.conftest import BrokerProcess


def test_elections_are_never_needed(broker: BrokerProcess, topic_name: str) -> None:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic_name, 2, 1)])[topic_name].result(10)
    outcome = admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition(topic_name, 0)]).result(10)
    (error,) = outcome.values()
    assert error is not None and error.name() == "ELECTION_NOT_NEEDED"
    missing = TopicPartition(topic_name + "-missing", 0)
    (error,) = admin.elect_leaders(ElectionType.UNCLEAN, [missing]).result(10).values()
    assert error is not None and error.name() == "UNKNOWN_TOPIC_OR_PART"
    assert error.str() == f"No such topic as {missing.topic}"

    client = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        answer = client.elect_leaders(0, {topic_name: [1]})  # kafka-python ignores ELECTION_NOT_NEEDED
        [(topic, [(partition, code, message)])] = [
            (r.topic, [(p.partition_id, p.error_code, p.error_message) for p in r.partition_result])
            for r in answer.replica_election_results
        ]
        assert (topic, partition, code) == (topic_name, 1, ElectionNotNeededError.errno)
        assert message == "Leader election not needed for topic partition."
    finally:
        client.close()


def test_reassigning_a_partition_to_its_only_replica_changes_nothing(broker: BrokerProcess, topic_name: str) -> None:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic_name, 2, 1)])[topic_name].result(10)
    client = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        assert client.alter_partition_reassignments({KpTopicPartition(topic_name, 0): [1]}) == {
            KpTopicPartition(topic_name, 0): None
        }
        assert client.list_partition_reassignments() == {}
        assert client.alter_partition_reassignments({KpTopicPartition(topic_name, 1): [2]}) == {
            KpTopicPartition(topic_name, 1): InvalidReplicationAssignmentError
        }
    finally:
        client.close()
    described = admin.list_topics(topic_name, timeout=10).topics[topic_name]
    assert [(p.id, p.leader, p.replicas) for p in described.partitions.values()] == [(0, 1, [1]), (1, 1, [1])]
