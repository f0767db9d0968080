"""The names in a data directory (one of ``log.dirs``), as Kafka lays it out::

    <data dir>/<topic>-<partition>/                 one `PartitionLog` each, in one data directory
    <data dir>/<topic>-<partition>.<hex id>-delete/  a log being deleted (removed at start-up)
    <data dir>/<topic>-<partition>.<hex id>-future/  a log being moved here (a move a restart interrupted
                                                     is dropped at start-up)
    <data dir>/.odradek_cleanshutdown               present only between a clean close and the next open
    <data dir>/log-start-offset-checkpoint           Kafka's; logs whose start is past their first segment
    <data dir>/recovery-point-offset-checkpoint      Kafka's; offset below which each log was flushed
    <data dir>/cleaner-offset-checkpoint             Kafka's; first dirty offset of each compacted log

Directory names are parsed as Kafka does: the partition is the integer after the LAST ``-``,
so topic names may hold dots and dashes.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence

__all__ = [
    "CLEAN_SHUTDOWN_FILE",
    "DELETE_SUFFIX",
    "FUTURE_SUFFIX",
    "IGNORED_SUFFIXES",
    "DataDirs",
    "data_dir_list",
    "delete_dir_name",
    "parse_partition_dir_name",
    "partition_dir_name",
]

CLEAN_SHUTDOWN_FILE = ".odradek_cleanshutdown"
DELETE_SUFFIX = "-delete"
FUTURE_SUFFIX = "-future"
IGNORED_SUFFIXES = ("-stray",)
"""Directories loading skips (Kafka's stray logs)."""
_MAX_NAME = 255


def partition_dir_name(topic: str, partition: int) -> str:
    return f"{topic}-{partition}"


def parse_partition_dir_name(name: str) -> tuple[str, int] | None:
    """``(topic, partition)`` of a ``<topic>-<partition>`` name, or None."""
    topic, dash, partition = name.rpartition("-")
    if not dash or not topic or not partition.isdigit():
        return None
    return topic, int(partition)


def delete_dir_name(topic: str, partition: int, kind: str = DELETE_SUFFIX) -> str:
    """Kafka's ``<topic>-<partition>.<uuid hex>-delete`` (or ``-future``), the topic cut to keep
    255 characters."""
    suffix = f"-{partition}.{uuid.uuid4().hex}{kind}"
    return topic[: _MAX_NAME - len(suffix)] + suffix


DataDirs = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
"""One data directory, or several in ``log.dirs`` order."""


def data_dir_list(data_dirs: DataDirs) -> list[str]:
    """``data_dirs`` as a list of paths."""
    if isinstance(data_dirs, str | os.PathLike):
        return [os.fspath(data_dirs)]
    return [os.fspath(d) for d in data_dirs]
