"""A large topic's leaderships as one object (`Partitions.topic_leadership`): the Metadata handler
keeps the partitions it answered beside that object, so it must be the same object exactly while no
partition's leader, epoch or replicas can have changed, and a new one as soon as one can; a small
topic's is never kept."""

from __future__ import annotations

import uuid

from odradek.clock import ManualClock
from odradek.cluster.topics import TopicCatalog
from odradek.config import load_config, log_config_for
from odradek.partition.results import SHARED_LEADERSHIP_PARTITIONS
from odradek.partition.service import Partitions
from odradek.scheduler import Scheduler
from odradek.storage.filesystem import MemoryFileSystem
from odradek.storage.log_manager import LogManager


class Node:
    def __init__(self) -> None:
        self.fs = MemoryFileSystem()
        clock = ManualClock(1_700_000_000_000)
        self.config = load_config(None, ["log.dirs=/data"])
        self.catalog = TopicCatalog(self.fs, "/meta/topics.json")
        self.partitions = Partitions(
            self.fs, LogManager.open(self.fs, "/data", clock), self.catalog, self.config.node_id, Scheduler(clock)
        )

    def create(self, name: str, count: int) -> None:
        info = self.catalog.create(name, count)
        for index in range(count):
            self.partitions.create(name, index, uuid.UUID(bytes=info.topic_id), log_config_for(self.config, {}))


LARGE = SHARED_LEADERSHIP_PARTITIONS


def test_the_same_object_while_nothing_changed_and_what_leadership_says() -> None:
    node = Node()
    node.create("a", LARGE)
    first = node.partitions.topic_leadership("a", LARGE)
    assert node.partitions.topic_leadership("a", LARGE) is first
    assert first.partitions == tuple(node.partitions.leadership("a", index) for index in range(LARGE))


def test_a_small_topics_leadership_is_not_kept() -> None:
    node = Node()
    node.create("a", LARGE - 1)
    first = node.partitions.topic_leadership("a", LARGE - 1)
    again = node.partitions.topic_leadership("a", LARGE - 1)
    assert again is not first
    assert again.partitions == first.partitions


def test_a_catalog_change_gives_a_new_object() -> None:
    node = Node()
    node.create("a", LARGE)
    before = node.partitions.topic_leadership("a", LARGE)
    node.catalog.start_leading()  # every leader epoch goes up by 2 in the catalog alone
    node.create("b", 1)  # the partitions opened before keep their epoch; any catalog change counts
    after = node.partitions.topic_leadership("a", LARGE)
    assert after is not before
    assert after.partitions == tuple(node.partitions.leadership("a", index) for index in range(LARGE))


def test_more_partitions_asked_for_give_them() -> None:
    node = Node()
    node.create("a", LARGE)
    node.partitions.topic_leadership("a", LARGE)
    node.catalog.set_partition_count("a", LARGE + 2)
    grown = node.partitions.topic_leadership("a", LARGE + 2)
    assert [leader.leader_id for leader in grown.partitions] == [node.config.node_id] * (LARGE + 2)


def test_a_fenced_node_answers_with_no_leader_at_once() -> None:
    node = Node()
    node.create("a", LARGE)
    led = node.partitions.topic_leadership("a", LARGE)
    node.partitions.fence()
    fenced = node.partitions.topic_leadership("a", LARGE)
    assert fenced is not led
    assert fenced.partitions[0].leader_id == -1
    assert fenced.partitions[0].leader_epoch == led.partitions[0].leader_epoch + 1


def test_a_deleted_and_recreated_topic_is_not_answered_from_before() -> None:
    node = Node()
    node.create("a", LARGE)
    before = node.partitions.topic_leadership("a", LARGE)
    node.partitions.delete_topic("a")
    assert node.partitions.topic_leadership("a", LARGE) is not before
