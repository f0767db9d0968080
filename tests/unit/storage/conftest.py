"""Fixtures for the storage suite: every backend-dependent test runs on disk and in memory."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from odradek.storage.filesystem import FileSystem, MemoryFileSystem, OsFileSystem
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record


@dataclass
class Backend:
    """A filesystem and a fresh directory on it."""

    name: str
    fs: FileSystem
    root: str


@pytest.fixture(params=["os", "memory"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "os":
        return Backend("os", OsFileSystem(), str(tmp_path))
    fs = MemoryFileSystem()
    fs.makedirs("/data")
    return Backend("memory", fs, "/data")


MakeBatch = Callable[..., bytearray]


def _make_batch(
    count: int = 1,
    *,
    value_size: int = 10,
    base_timestamp: int = 1_000,
    timestamp_deltas: Sequence[int] | None = None,
    compression: int = 0,
) -> bytearray:
    """A valid v2 batch of ``count`` records, as a producer sends it (base offset 0)."""
    deltas = list(timestamp_deltas) if timestamp_deltas is not None else list(range(count))
    records = [
        Record(offset_delta=i, timestamp_delta=deltas[i], key=None, value=bytes([i % 256]) * value_size)
        for i in range(count)
    ]
    return bytearray(build_batch(records, base_timestamp=base_timestamp, compression=compression))


@pytest.fixture
def make_batch() -> MakeBatch:
    return _make_batch
