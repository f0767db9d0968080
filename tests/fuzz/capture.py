"""Capture the fuzz seed corpus from real clients: ``python -m tests.fuzz.capture``.

Every client driver of the compatibility matrix (compat-tests/drivers: librdkafka through
confluent-kafka and kcat, kafka-python, aiokafka, the Java kafka-clients, franz-go, kafkajs) runs
the same short session against odradek through a recording proxy: topics, produce in every codec
(idempotent and not), fetch, offsets, a consumer group with commits, configs, record deletion.
What passes is split into the fuzz families and written under ``tests/fuzz/corpus/``:

- ``request``: request frames (header and body), at most `PER_SCHEMA` per API and version;
- ``response``: the broker's answers, prefixed with their API key and version (`targets.fuzz_response`);
- ``batch``: the record batches of Produce requests; ``compression``: their compressed sections
  behind a codec byte; ``records``: their records, uncompressed.

Inputs over `MAX_BYTES` are left out (the fuzzer mutates small inputs best).  A driver whose
toolchain is missing or whose build fails is skipped with one line; rerunning replaces the corpus.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import struct
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from odradek.wire.messages import ALL_MESSAGES
from odradek.wire.records.batch import BATCH_OVERHEAD, iter_batches
from odradek.wire.records.compression import decompress
from tests.fuzz.seeds import CORPUS_DIR
from tests.fuzz.targets import decode_request, decoded_schema
from tests.integration.conftest import BrokerProcess
from tests.integration.recording_proxy import RecordedResponse, RecordingProxy

COMPAT = Path(__file__).resolve().parents[2] / "compat-tests"
sys.path.insert(0, str(COMPAT))

from harness.drivers import DriverDied, DriverSession, StepTimeout, build, discover  # noqa: E402

PER_SCHEMA = 3
MAX_BYTES = 4096
_SCHEMA_PREFIX = struct.Struct(">hh")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _session_steps(name: str) -> list[dict[str, Any]]:
    """One short session touching every API a client library commonly sends."""
    topic, group = f"fuzz-{name}", f"fuzz-group-{name}"
    records = [
        {"key": _b64(b"key-%d" % i), "value": _b64(b"value %d " % i * 8), "headers": [["h", _b64(b"x")]]}
        for i in range(4)
    ]
    records.append({"key": None, "value": _b64(b"no key"), "headers": []})
    steps: list[dict[str, Any]] = [
        {"op": "create_topic", "topic": topic, "partitions": 2, "configs": {"retention.ms": "86400000"}},
        {"op": "list_topics"},
    ]
    for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
        for idempotent, acks in ((False, "1"), (True, "all")):
            steps.append(
                {
                    "op": "produce",
                    "topic": topic,
                    "records": [{**r, "partition": 0, "timestamp": None} for r in records],
                    "acks": acks,
                    "compression": codec,
                    "idempotent": idempotent,
                    "linger_ms": 5,
                }
            )
    steps += [
        {"op": "consume", "topic": topic, "partition": 0, "offset": "earliest", "max_records": 10, "timeout_ms": 5000},
        {"op": "list_offsets", "topic": topic, "partition": 0, "spec": "earliest"},
        {"op": "list_offsets", "topic": topic, "partition": 0, "spec": "latest"},
        {"op": "list_offsets", "topic": topic, "partition": 0, "spec": "max_timestamp"},
        {"op": "list_offsets", "topic": topic, "partition": 0, "spec": {"timestamp": 0}},
        {
            "op": "group_consume",
            "topic": topic,
            "group": group,
            "max_records": 10,
            "timeout_ms": 10000,
            "auto_offset_reset": "earliest",
            "commit": True,
        },
        {"op": "committed", "group": group, "topic": topic, "partitions": [0, 1]},
        {"op": "describe_group", "group": group},
        {"op": "list_groups"},
        {"op": "describe_configs", "topic": topic, "names": ["retention.ms", "cleanup.policy"], "synonyms": True},
        {"op": "alter_configs", "topic": topic, "set": {"retention.ms": "3600000"}, "delete": []},
        {"op": "delete_records", "topic": topic, "partition": 0, "before_offset": 2},
        {"op": "delete_topic", "topic": topic},
    ]
    return [{"id": f"s{i}", **step} for i, step in enumerate(steps)]


def _run_driver(spec: Any, bootstrap: str, logs: Path) -> str:
    reason = build(spec, logs / f"{spec.name}-build.log")
    if reason is not None:
        return f"skipped: {reason}"
    session = DriverSession(spec, bootstrap, logs / f"{spec.name}.log")
    failed = 0
    try:
        for step in _session_steps(spec.name.replace("_", "-")):
            reply = session.request(step, 60.0)
            failed += not reply.get("ok") and not reply.get("unsupported")
    except (StepTimeout, DriverDied) as exc:
        return f"stopped: {exc}"
    finally:
        session.close()
    return f"{session.client}: {failed} step(s) failed"


def _write(family: str, name: str, data: bytes, written: set[str]) -> None:
    digest = hashlib.sha1(data).hexdigest()[:12]
    if digest in written or len(data) > MAX_BYTES:
        return
    written.add(digest)
    (CORPUS_DIR / family / f"{name}-{digest}").write_bytes(data)


def _batches(frame: bytes) -> list[bytes]:
    """The record sets of a Produce request frame."""
    decoded = decode_request(frame)
    if decoded is None or decoded[0].api_key != 0:
        return []
    body = decoded[2]
    return [bytes(p.records) for t in body.topic_data for p in t.partition_data if p.records is not None]


Recorded = tuple[list[bytes], list[RecordedResponse]]


def _store(per_client: dict[str, Recorded]) -> dict[str, int]:
    for family in ("request", "response", "batch", "compression", "records"):
        shutil.rmtree(CORPUS_DIR / family, ignore_errors=True)
        (CORPUS_DIR / family).mkdir(parents=True)
    written: set[str] = set()
    kept: dict[tuple[str, int, int], int] = defaultdict(int)
    for client, (frames, responses) in per_client.items():
        for frame in sorted(frames, key=len):
            schema = decoded_schema("request", frame)
            if schema is None or kept["request", *schema] >= PER_SCHEMA:
                continue
            kept["request", *schema] += 1
            _write("request", f"{client}-{ALL_MESSAGES[schema[0]][0].name}-v{schema[1]}", frame, written)
        for response in sorted(responses, key=lambda r: len(r.frame)):
            data = _SCHEMA_PREFIX.pack(response.api_key, response.api_version) + response.frame
            schema = decoded_schema("response", data)
            if schema is None or kept["response", *schema] >= PER_SCHEMA:
                continue
            kept["response", *schema] += 1
            _write("response", f"{client}-{ALL_MESSAGES[schema[0]][1].name}-v{schema[1]}", data, written)
        for frame in frames:
            for record_set in _batches(frame):
                for position, header in iter_batches(record_set):
                    batch = record_set[position : position + header.total_size]
                    _write("batch", f"{client}-codec{header.compression}", batch, written)
                    section = batch[BATCH_OVERHEAD:]
                    if header.compression:
                        _write(
                            "compression",
                            f"{client}-codec{header.compression}",
                            bytes([header.compression]) + section,
                            written,
                        )
                    _write("records", f"{client}", decompress(header.compression, section), written)
    return {
        family: len(list((CORPUS_DIR / family).iterdir()))
        for family in ("request", "response", "batch", "compression", "records")
    }


def main() -> int:
    proxy = RecordingProxy(keep_responses=True)
    with tempfile.TemporaryDirectory(prefix="fuzz-capture-") as tmp:
        broker = BrokerProcess(
            Path(tmp) / "data",
            overrides=[
                f"advertised.listeners=PLAINTEXT://127.0.0.1:{proxy.port}",
                "group.initial.rebalance.delay.ms=0",
            ],
        )
        broker.start()
        proxy.upstream_port = broker.port
        per_client: dict[str, Recorded] = {}
        try:
            for spec in discover():
                missing = spec.missing_tools()
                if missing:
                    print(f"{spec.name}: skipped, missing {', '.join(missing)}")
                    continue
                frames_before, responses_before = len(proxy.frames), len(proxy.responses)
                outcome = _run_driver(spec, f"127.0.0.1:{proxy.port}", Path(tmp))
                per_client[spec.name] = (proxy.frames[frames_before:], proxy.responses[responses_before:])
                print(f"{spec.name}: {outcome}; {len(proxy.frames) - frames_before} requests recorded", flush=True)
        finally:
            broker.stop()
            proxy.close()
    counts = _store(per_client)
    print("corpus written:", ", ".join(f"{family} {count}" for family, count in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
