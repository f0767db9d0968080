"""The loader's output directory and its commit protocol: a run counts only once its manifest exists.

Layout of an output directory::

    _manifests/<sequence:08d>.json      committed manifests, one per completed run
    _manifests/<sequence:08d>.json.tmp  a manifest being written (never trusted)
    _manifests/.lock                    held (flock) by the one run in progress
    run=<run id>/topic=<t>/date=<d>/*.parquet   the data files of one run

A manifest (JSON) holds ``sequence``, ``run`` (its directory name), ``ranges`` (a list of
``{"topic", "partition", "from", "to"}``: offsets ``from`` <= o < ``to`` of that partition were loaded)
and ``files`` (paths relative to the output directory).

Invariants:

* A manifest is written to ``.tmp``, flushed to disk, then renamed into place (atomic on a POSIX
  filesystem), and only after every file it lists is complete. So a committed manifest never names a
  missing or partial file, and a run killed at any point leaves either its whole manifest or none.
* The ranges of a partition chain across sequences: a run starts each partition where the last
  committed range ended. Reading only the files of committed manifests therefore sees every loaded
  offset exactly once.
* Anything under the output directory that no committed manifest names (a killed run's directory, a
  ``.tmp`` manifest) is debris: :meth:`OutputDirectory.sweep` removes it under the lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["LoadedRange", "Manifest", "OutputDirectory"]

MANIFESTS = "_manifests"
RUN_PREFIX = "run="


@dataclass(frozen=True, slots=True)
class LoadedRange:
    """Offsets ``start`` <= o < ``end`` of one partition."""

    topic: str
    partition: int
    start: int
    end: int

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "partition": self.partition, "from": self.start, "to": self.end}

    @staticmethod
    def from_json(data: dict[str, Any]) -> LoadedRange:
        return LoadedRange(str(data["topic"]), int(data["partition"]), int(data["from"]), int(data["to"]))


@dataclass(frozen=True, slots=True)
class Manifest:
    sequence: int
    run: str
    ranges: tuple[LoadedRange, ...]
    files: tuple[str, ...]

    def to_json(self) -> str:
        body = {
            "sequence": self.sequence,
            "run": self.run,
            "ranges": [r.to_json() for r in self.ranges],
            "files": list(self.files),
        }
        return json.dumps(body, indent=1, sort_keys=True) + "\n"

    @staticmethod
    def from_json(text: str) -> Manifest:
        data = json.loads(text)
        ranges = tuple(LoadedRange.from_json(item) for item in data["ranges"])
        return Manifest(int(data["sequence"]), str(data["run"]), ranges, tuple(str(f) for f in data["files"]))


class OutputDirectory:
    """One loader output directory (see the module docstring); reading it never writes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.manifests_dir = root / MANIFESTS

    def manifests(self) -> list[Manifest]:
        """The committed manifests, oldest first."""
        if not self.manifests_dir.is_dir():
            return []
        paths = sorted(self.manifests_dir.glob("[0-9]*.json"))
        return [Manifest.from_json(path.read_text()) for path in paths]

    def committed_files(self) -> list[Path]:
        """Every data file a committed manifest names: the only files a reader may trust."""
        return [self.root / name for manifest in self.manifests() for name in manifest.files]

    def next_offsets(self) -> dict[tuple[str, int], int]:
        """Per partition, the offset after the last committed range (where the next run starts)."""
        ends: dict[tuple[str, int], int] = {}
        for manifest in self.manifests():
            for loaded in manifest.ranges:
                ends[loaded.topic, loaded.partition] = max(loaded.end, ends.get((loaded.topic, loaded.partition), 0))
        return ends

    def next_sequence(self) -> int:
        manifests = self.manifests()
        return manifests[-1].sequence + 1 if manifests else 1

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the directory's lock: one run at a time writes into it."""
        self.manifests_dir.mkdir(parents=True, exist_ok=True)
        with open(self.manifests_dir / ".lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                raise RuntimeError(f"another loader is writing into {self.root}") from exc
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def sweep(self) -> list[Path]:
        """Remove run directories and ``.tmp`` manifests no committed manifest names (call under the lock)."""
        kept = {manifest.run for manifest in self.manifests()}
        removed: list[Path] = []
        for path in sorted(self.root.glob(f"{RUN_PREFIX}*")):
            if path.name not in kept:
                shutil.rmtree(path)
                removed.append(path)
        for path in sorted(self.manifests_dir.glob("*.tmp")):
            path.unlink()
            removed.append(path)
        return removed

    def run_files(self, run: str) -> list[str]:
        """The Parquet files under a run directory, relative to the output directory, sorted."""
        run_dir = self.root / run
        return sorted(str(path.relative_to(self.root)) for path in run_dir.rglob("*.parquet"))

    def stage(self, manifest: Manifest) -> Path:
        """Flush the manifest's data files, then write it as ``.tmp`` and flush that; :meth:`commit`
        makes it count. Spark's writer does not fsync, so a power cut could otherwise lose a file a
        committed manifest names."""
        for name in manifest.files:
            with open(self.root / name, "rb") as data:
                os.fsync(data.fileno())
        staged = self.manifests_dir / f"{manifest.sequence:08d}.json.tmp"
        with open(staged, "w") as out:
            out.write(manifest.to_json())
            out.flush()
            os.fsync(out.fileno())
        return staged

    def commit(self, staged: Path) -> Path:
        """Rename a staged manifest into place and flush the directory entry."""
        final = staged.with_name(staged.name.removesuffix(".tmp"))
        os.rename(staged, final)
        directory = os.open(self.manifests_dir, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        return final
