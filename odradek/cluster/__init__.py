"""Cluster metadata: topics, partitions, their ids and configs (what KRaft holds in Kafka)."""
