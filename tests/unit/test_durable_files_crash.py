"""A crash at every step of writing the broker's small durable files.

The topic catalog, the dynamic broker configs and ``meta.properties`` are each one small file
replaced through the FileSystem seam's atomic write.  The crashing in-memory filesystem lets the
first N changing operations happen, then fails every later one and loses what was not fsynced
(a power cut); N takes every value from 0 to the number of operations the change needs.  After
each crash the file holds the old state or the new one, whole, and the next change succeeds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from odradek.cluster.meta_properties import META_PROPERTIES, read_or_create_meta
from odradek.cluster.topics import TopicCatalog
from odradek.config.dynamic_store import DynamicConfigStore
from odradek.storage.filesystem import read_file
from tests.unit.storage.test_crash_steps import Crash, CrashingFileSystem

DATA = "/data"
CATALOG = f"{DATA}/__odradek_topics.json"
STORE = f"{DATA}/__odradek_dynamic_configs.json"


def _every_crash(
    prepare: Callable[[CrashingFileSystem], None], change: Callable[[CrashingFileSystem], None]
) -> Iterator[CrashingFileSystem]:
    """Yield, for every step of ``change``, a filesystem crashed at that step (the last one
    not crashed at all), after the power cut."""
    probe = CrashingFileSystem()
    prepare(probe)
    before = probe.steps
    change(probe)
    total = probe.steps - before
    assert total >= 5, "open the temporary file, write, fsync, rename, fsync the directory"
    for crash_at in range(total + 1):
        fs = CrashingFileSystem()
        prepare(fs)
        fs.crash_at = fs.steps + crash_at
        with contextlib.suppress(Crash):
            change(fs)
        fs.power_cut()
        yield fs


def _catalog_with_one_topic(fs: CrashingFileSystem) -> None:
    fs.makedirs(DATA)
    TopicCatalog(fs, CATALOG).create("old", 1, {"retention.ms": "5"})


def _create_topic(fs: CrashingFileSystem) -> None:
    TopicCatalog(fs, CATALOG).create("new", 3, {"cleanup.policy": "compact"})


def test_a_crash_at_every_step_of_topic_creation_keeps_the_old_or_the_new_catalog() -> None:
    outcomes = set()
    for fs in _every_crash(_catalog_with_one_topic, _create_topic):
        catalog = TopicCatalog(fs, CATALOG)
        topics = {(t.name, t.partitions, tuple(t.configs.items())) for t in catalog}
        assert topics in (
            {("old", 1, (("retention.ms", "5"),))},
            {("old", 1, (("retention.ms", "5"),)), ("new", 3, (("cleanup.policy", "compact"),))},
        )
        outcomes.add(len(topics))
        if len(topics) == 1:
            catalog.create("new", 3)
            assert {t.name for t in TopicCatalog(fs, CATALOG)} == {"old", "new"}
    assert outcomes == {1, 2}


def test_a_crash_at_every_step_of_the_first_topic_creation_leaves_no_catalog_or_a_whole_one() -> None:
    outcomes = set()
    for fs in _every_crash(lambda fs: fs.makedirs(DATA), _create_topic):
        names = [t.name for t in TopicCatalog(fs, CATALOG)]
        assert names in ([], ["new"])
        outcomes.add(len(names))
    assert outcomes == {0, 1}


def _store_with_old_layers(fs: CrashingFileSystem) -> None:
    fs.makedirs(DATA)
    DynamicConfigStore(fs, STORE).save({"min.insync.replicas": "1"}, {"log.retention.ms": "1000"})


def _change_dynamic_config(fs: CrashingFileSystem) -> None:
    DynamicConfigStore(fs, STORE).save({"min.insync.replicas": "1", "log.segment.bytes": "2097152"}, {})


def test_a_crash_at_every_step_of_a_dynamic_config_change_keeps_the_old_or_the_new_layers() -> None:
    old = ({"min.insync.replicas": "1"}, {"log.retention.ms": "1000"})
    new = ({"min.insync.replicas": "1", "log.segment.bytes": "2097152"}, {})
    outcomes = []
    for fs in _every_crash(_store_with_old_layers, _change_dynamic_config):
        store = DynamicConfigStore(fs, STORE)
        loaded = store.load()
        assert loaded in (old, new)
        outcomes.append(loaded == new)
        store.save(*new)
        assert store.load() == new
    assert outcomes[0] is False and outcomes[-1] is True


def _create_meta(fs: CrashingFileSystem) -> None:
    read_or_create_meta(fs, DATA, 7)


def test_a_crash_at_every_step_of_meta_properties_creation_leaves_no_file_or_a_whole_one() -> None:
    path = f"{DATA}/{META_PROPERTIES}"
    outcomes = set()
    for fs in _every_crash(lambda fs: None, _create_meta):
        existed = fs.exists(path)
        outcomes.add(existed)
        text = read_file(fs, path).decode() if existed else None
        cluster_id = read_or_create_meta(fs, DATA, 7)
        lines = read_file(fs, path).decode().splitlines()
        assert [line.split("=")[0] for line in lines] == ["version", "cluster.id", "node.id", "directory.id"]
        assert f"cluster.id={cluster_id}" in lines and "node.id=7" in lines
        if text is not None:
            assert read_file(fs, path).decode() == text, "an existing file is kept as it is"
    assert outcomes == {False, True}
