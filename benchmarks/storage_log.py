"""The partition log alone: append and sequential read through the storage API, no network.

Appends ``--mib`` MiB as 1 MiB batches of 1 KiB records (one batch template, re-sent each time
as a fresh bytearray, as a produce request would bring it), then reads the log from offset 0
to the end in 1 MiB fetches, touching every byte once.  Reports MB/s and the process's CPU
seconds for each phase, as JSON on stdout.  The data directory is a temporary directory on the
same filesystem as the repository unless ``--dir`` says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
import uuid

from odradek.clock import SystemClock
from odradek.storage.filesystem import OsFileSystem
from odradek.storage.log_config import LogConfig
from odradek.storage.partition_log import PartitionLog
from odradek.wire.records.builder import build_batch
from odradek.wire.records.record import Record

MIB = 1024 * 1024


def _template_batch() -> bytes:
    value = os.urandom(1024)
    records = [Record(offset_delta=i, timestamp_delta=0, key=None, value=value) for i in range(1000)]
    return build_batch(records, base_timestamp=int(time.time() * 1000))


def run(total_mib: int, directory: str) -> dict[str, float]:
    template = _template_batch()
    fs = OsFileSystem()
    log = PartitionLog.create(fs, f"{directory}/bench-0", "bench", 0, uuid.uuid4(), LogConfig(), SystemClock())
    batches = max(1, total_mib * MIB // len(template))
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(batches):
        log.append(bytearray(template), leader_epoch=0, now_ms=0)
    cpu1, wall1 = time.process_time(), time.perf_counter()
    offset, read_bytes = 0, 0
    while offset < log.log_end_offset:
        region = log.read(offset, MIB)
        assert region is not None
        data = region.read()
        read_bytes += len(data)
        offset += len(data) // len(template) * 1000  # every batch is the template: 1000 records
    cpu2, wall2 = time.process_time(), time.perf_counter()
    log.close()
    written = batches * len(template)
    return {
        "bytes": written,
        "append_mb_per_s": written / 1e6 / (wall1 - wall0),
        "append_cpu_s": cpu1 - cpu0,
        "read_mb_per_s": read_bytes / 1e6 / (wall2 - wall1),
        "read_cpu_s": cpu2 - cpu1,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mib", type=int, default=1024, help="how much to append (default 1 GiB)")
    parser.add_argument("--dir", default=None, help="where the log goes (default: a temporary directory)")
    args = parser.parse_args()
    directory = args.dir or tempfile.mkdtemp(prefix="odradek-storage-bench-", dir=os.getcwd())
    try:
        print(json.dumps(run(args.mib, directory), indent=1))
    finally:
        if args.dir is None:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
