"""Reading a loader output directory the way a reader must: only files named by committed manifests,
with pyarrow (independently of Spark)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.dataset as ds

from odradek.pipeline.manifest import OutputDirectory

Row = tuple[str, int, int, bytes | None, bytes | None]


def committed_rows(output: Path) -> list[Row]:
    """(topic, partition, offset, key, value) of every committed row, sorted, duplicates kept."""
    files = OutputDirectory(output).committed_files()
    if not files:
        return []
    table = ds.dataset([str(f) for f in files], format="parquet", partitioning="hive", partition_base_dir=str(output))
    columns = table.to_table(columns=["topic", "partition", "offset", "key", "value"]).to_pydict()
    rows = zip(columns["topic"], columns["partition"], columns["offset"], columns["key"], columns["value"], strict=True)
    return sorted(rows, key=lambda r: (r[0], r[1], r[2]))
