"""DescribeCluster and DescribeLogDirs as real admin clients see them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
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


def test_two_log_dirs_place_describe_and_move_partitions(
    tmp_path_factory: pytest.TempPathFactory, topic_name: str
) -> None:
    from kafka.admin import KafkaAdminClient
    from kafka.structs import TopicPartitionReplica

    root = tmp_path_factory.mktemp("two-dirs")
    dirs = [str(root / "a"), str(root / "b")]
    broker = BrokerProcess(root / "meta", overrides=[f"log.dirs={','.join(dirs)}"])
    broker.start()
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin.create_topics([NewTopic(topic_name, 4, 1)])[topic_name].result(10)
        client = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        try:
            placed = _placement(client.describe_log_dirs(), topic_name)
            assert sorted(len(parts) for parts in placed.values()) == [2, 2]
            source = next(d for d, parts in placed.items() if 0 in parts)
            target = next(d for d in dirs if d != source)
            producer = Producer({"bootstrap.servers": broker.bootstrap})
            for i in range(50):
                producer.produce(topic_name, value=b"%d" % i, partition=0)
            assert producer.flush(20) == 0
            client.alter_replica_log_dirs({TopicPartitionReplica(topic_name, 0, 1): target})
            for _ in range(100):
                placed = _placement(client.describe_log_dirs(), topic_name)
                if 0 in placed.get(target, []):
                    break
                time.sleep(0.1)
            assert 0 in placed[target] and 0 not in placed[source]
        finally:
            client.close()
        for i in range(50, 60):
            producer.produce(topic_name, value=b"%d" % i, partition=0)
        assert producer.flush(20) == 0
        del producer
        broker.restart()
        consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": topic_name})
        consumer.assign([TopicPartition(topic_name, 0, 0)])
        values = []
        while len(values) < 60:
            message = consumer.poll(10)
            assert message is not None and message.error() is None
            values.append(int(message.value()))
        consumer.close()
        assert values == list(range(60))
        assert (root / "b" / f"{topic_name}-0").exists() == (target == dirs[1])
        assert all((Path(d) / "meta.properties").exists() for d in dirs)
    finally:
        broker.stop()


def _placement(answer: object, topic: str) -> dict[str, list[int]]:
    (broker_entry,) = answer  # type: ignore[misc]
    return {
        d["log_dir"]: sorted(p["partition_index"] for t in d["topics"] if t["name"] == topic for p in t["partitions"])
        for d in broker_entry["log_dirs"]
    }
