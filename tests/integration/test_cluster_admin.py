"""DescribeCluster and DescribeLogDirs as real admin clients see them."""

from __future__ import annotations

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.conftest import BrokerProcess


def test_describe_cluster_names_this_broker(broker: BrokerProcess) -> None:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    description = admin.describe_cluster(request_timeout=10).result()
    assert [(node.id, node.host, node.port) for node in description.nodes] == [(1, "127.0.0.1", broker.port)]
    assert description.controller.id == 1
    assert description.cluster_id


def test_describe_log_dirs_reports_partition_sizes(broker: BrokerProcess, topic_name: str) -> None:
    from kafka.admin import KafkaAdminClient

    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic_name, 2, 1)])[topic_name].result(10)
    producer = Producer({"bootstrap.servers": broker.bootstrap})
    for _ in range(100):
        producer.produce(topic_name, value=b"x" * 1000, partition=1)
    assert producer.flush(20) == 0
    client = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        response = client.describe_log_dirs()
    finally:
        client.close()
    (broker_entry,) = response
    (log_dir,) = broker_entry["log_dirs"]
    assert log_dir["error_code"] == 0 and log_dir["usable_bytes"] > 0
    sizes = {
        (topic["name"], partition["partition_index"]): partition["partition_size"]
        for topic in log_dir["topics"]
        if topic["name"] == topic_name
        for partition in topic["partitions"]
    }
    assert sizes[(topic_name, 0)] == 0
    assert 100_000 < sizes[(topic_name, 1)] < 120_000


def test_metadata_quorum_and_config_resources_through_kafka_python(broker: BrokerProcess, topic_name: str) -> None:
    from kafka.admin import KafkaAdminClient

    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic_name, 1, 1)])[topic_name].result(10)
    client = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        quorum = client.describe_metadata_quorum()
        resources = client.list_config_resources(["TOPIC", "BROKER"])
    finally:
        client.close()
    (topic,) = quorum["topics"]
    (partition,) = topic["partitions"]
    assert (topic["topic_name"], partition["leader_id"]) == ("__cluster_metadata", 1)
    assert partition["leader_epoch"] >= 1
    [(voter_id, voter_end)] = [(v["replica_id"], v["log_end_offset"]) for v in partition["current_voters"]]
    assert (voter_id, voter_end) == (1, partition["high_watermark"]) and partition["observers"] == []
    (node,) = quorum["nodes"]
    assert [(lst["name"], lst["port"]) for lst in node["listeners"]] == [("CONTROLLER", broker.port)]
    assert set(resources) == {"topic", "broker"} and resources["broker"] == ["1"]
    assert topic_name in resources["topic"]
