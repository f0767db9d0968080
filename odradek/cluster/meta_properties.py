"""Kafka's ``meta.properties``: the identity of a data directory (cluster id, node id, its own
directory id); every data directory of a broker has one, with the same cluster and node ids.

Format (Java properties, version 1): ``version``, ``cluster.id``, ``node.id`` and
``directory.id``, the ids being 16 random bytes in URL-safe base64 without padding.  The file
is written once, on the first start, through the FileSystem seam's `write_file_atomic`, so a
crash leaves no file (the next start creates one) or the whole file, never part of one.
"""

from __future__ import annotations

import base64
import posixpath
import uuid

from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = ["META_PROPERTIES", "read_or_create_meta"]

META_PROPERTIES = "meta.properties"


def _random_id() -> str:
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")


def read_or_create_meta(fs: FileSystem, data_dir: str, node_id: int, cluster_id: str | None = None) -> str:
    """The cluster id of ``data_dir``, creating ``meta.properties`` on first start: with
    ``cluster_id`` (the other data directories of the broker share the first one's) or a new id.
    Raises `ValueError` when the directory belongs to another cluster than ``cluster_id``."""
    path = posixpath.join(data_dir, META_PROPERTIES)
    if fs.exists(path):
        lines = read_file(fs, path).decode().splitlines()
        props = dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))
        found = props["cluster.id"].strip()
        if cluster_id is not None and found != cluster_id:
            raise ValueError(f"{data_dir} belongs to cluster {found}, not {cluster_id}")
        return found
    cluster_id = cluster_id or _random_id()
    fs.makedirs(data_dir)
    text = f"version=1\ncluster.id={cluster_id}\nnode.id={node_id}\ndirectory.id={_random_id()}\n"
    write_file_atomic(fs, path, text.encode())
    return cluster_id
