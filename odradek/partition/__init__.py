"""The partition layer: one `Partition` per partition, and the services handlers use.

- `partition.Partition`: owns one partition's log, producer state (checked and recorded inside
  append, snapshotted to Kafka's ``.snapshot`` files), offsets, leader epoch and fetch waiters;
- `service.Partitions`: every partition of this node and the data operations on them (append,
  read, list offsets, delete records, wait for data, leadership);
- `topics.Topics`: the topic catalog kept in step with the partitions;
- `produce_checks`: Kafka's checks of a client's batch before the append;
- `producer_snapshot`: the snapshot file format;
- `results`: the typed answers (Kafka error codes as values).

This package imports storage, txn, wire, clock and the config modules; never handlers, the
broker, the server or the coordinator (`tests/unit/test_import_rules.py`).
"""
