"""The broker keeps ``meta.properties``, the topic catalog and the dynamic configs on the
FileSystem it is given, so an in-memory broker leaves nothing on the disk and its crash
simulation covers those files too."""

from __future__ import annotations

import json
from pathlib import Path

from inprocess import raw_broker

from odradek.config.dynamic_store import DYNAMIC_CONFIGS_FILE
from odradek.storage.filesystem import MemoryFileSystem, read_file
from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.configs import IncrementalAlterConfigsRequest

_Resource = IncrementalAlterConfigsRequest.AlterConfigsResource


def test_small_durable_files_live_on_the_brokers_filesystem(tmp_path: Path) -> None:
    fs = MemoryFileSystem()
    data = tmp_path / "data"
    with raw_broker(data, fs=fs) as (_, connection):
        connection.create_topic("t", partitions=2, configs={"retention.ms": "5000"})
        request = IncrementalAlterConfigsRequest(
            resources=[
                _Resource(
                    resource_type=4,
                    resource_name="",
                    configs=[_Resource.AlterableConfig(name="log.retention.bytes", config_operation=0, value="7")],
                )
            ],
            validate_only=False,
        )
        (answer,) = connection.request(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, request).responses
        assert answer.error_code == ErrorCode.NONE
    assert not data.exists() or not any(data.iterdir())
    meta = read_file(fs, f"{data}/meta.properties").decode()
    assert "cluster.id=" in meta
    catalog = json.loads(read_file(fs, f"{data}/__odradek_topics.json"))
    assert [(t["name"], t["partitions"], t["configs"]) for t in catalog["topics"]] == [
        ("t", 2, {"retention.ms": "5000"})
    ]
    layers = json.loads(read_file(fs, f"{data}/{DYNAMIC_CONFIGS_FILE}"))
    assert layers["cluster"]["log.retention.bytes"] == "7"
