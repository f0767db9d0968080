"""Security cases side by side with Apache Kafka, on the secured configuration of
compat-tests/harness/security.py (same certificates, users and authorizer for both brokers):

    W1-sasl-ssl   librdkafka produces 1 KiB records over SASL_SSL (PLAIN) as fast as it can
    W4-sasl-ssl   librdkafka consumes them back over SASL_SSL

Quotas are checked by compat-tests/quotas/run.py (the rate a throttled producer is held to,
measured over whole throttling cycles on both brokers), not here.

    .venv/bin/python benchmarks/security_cases.py [--pairs 3] [--records 200000]

Brokers alternate (Kafka, then odradek) pair after pair; medians and odradek/Kafka ratios are
printed and written to benchmarks/results/security-<date>.json, whose newest file the summary writer
(`bench.report`) renders as summary.md's security section.  The machine is shared: the ratios of one
run are indicative.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "compat-tests"), str(HERE.parent)]

from confluent_kafka import Consumer, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from harness.broker import launchers  # noqa: E402
from harness.security import SecuredProfile  # noqa: E402

RESULTS = HERE / "results"


def _sasl_ssl(profile: SecuredProfile) -> dict[str, Any]:
    return profile.client_config("SASL_SSL", "alice")


def _create(profile: SecuredProfile, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": profile.listener_addresses()["PLAINTEXT"]})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    time.sleep(1)


def _allow_alice(profile: SecuredProfile, topic: str, group: str) -> None:
    from confluent_kafka.admin import AclBinding, AclOperation, AclPermissionType, ResourcePatternType, ResourceType

    admin = AdminClient({"bootstrap.servers": profile.listener_addresses()["PLAINTEXT"]})
    bindings = [
        AclBinding(
            kind, name, ResourcePatternType.LITERAL, "User:alice", "*", AclOperation.ALL, AclPermissionType.ALLOW
        )
        for kind, name in ((ResourceType.TOPIC, topic), (ResourceType.GROUP, group))
    ]
    for future in admin.create_acls(bindings).values():
        future.result(30)
    time.sleep(1)


def w1(profile: SecuredProfile, topic: str, records: int) -> float:
    producer = Producer({**_sasl_ssl(profile), "linger.ms": 5, "batch.size": 1_000_000, "acks": 1})
    value = b"x" * 1024
    failed: list[object] = []

    def delivered(err: object, _msg: Any) -> None:
        if err is not None:
            failed.append(err)

    started = time.monotonic()
    for _ in range(records):
        while True:
            try:
                producer.produce(topic, value, on_delivery=delivered)
                break
            except BufferError:
                producer.poll(0.01)
    assert producer.flush(120) == 0
    elapsed = time.monotonic() - started
    assert not failed, f"{len(failed)} records not delivered: {failed[0]}"
    return records * 1024 / elapsed / 1e6


def w4(profile: SecuredProfile, topic: str, group: str, records: int) -> float:
    consumer = Consumer({**_sasl_ssl(profile), "group.id": group, "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    count, started = 0, None
    deadline = time.monotonic() + 180
    while count < records and time.monotonic() < deadline:
        message = consumer.poll(1.0)
        if message is None or message.error() is not None:
            continue
        started = started or time.monotonic()
        count += 1
    elapsed = time.monotonic() - (started or time.monotonic())
    consumer.close()
    assert count == records, f"consumed {count} of {records}"
    return count * 1024 / max(elapsed, 1e-6) / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--records", type=int, default=200_000)
    args = parser.parse_args(argv)
    results: dict[str, dict[str, list[float]]] = {"kafka": {}, "odradek": {}}
    with tempfile.TemporaryDirectory(prefix="security-bench-") as tmp:
        profile = SecuredProfile(Path(tmp))
        for pair in range(args.pairs):
            for broker in ("kafka", "odradek"):
                launch: Any = launchers()[broker]
                with launch(Path(tmp), Path(tmp) / f"{broker}-{pair}.log", profile=profile):
                    topic, group = f"bench-{uuid.uuid4().hex[:8]}", f"g-{uuid.uuid4().hex[:8]}"
                    _create(profile, topic)
                    _allow_alice(profile, topic, group)
                    row = results[broker]
                    row.setdefault("W1-sasl-ssl MB/s", []).append(w1(profile, topic, args.records))
                    row.setdefault("W4-sasl-ssl MB/s", []).append(w4(profile, topic, group, args.records))
                print(broker, pair, {k: round(v[-1], 2) for k, v in results[broker].items()}, flush=True)
    summary = {
        key: {
            "kafka": statistics.median(results["kafka"][key]),
            "odradek": statistics.median(results["odradek"][key]),
            "ratio": statistics.median(results["odradek"][key]) / statistics.median(results["kafka"][key]),
        }
        for key in results["kafka"]
    }
    for key, figure in summary.items():
        print(f"{key}: kafka {figure['kafka']:.2f}, odradek {figure['odradek']:.2f}, ratio {figure['ratio']:.2f}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"security-{time.strftime('%Y-%m-%d')}.json"
    document = {"date": time.strftime("%Y-%m-%d"), "pairs": args.pairs, "records": args.records}
    out.write_text(json.dumps({**document, "runs": results, "summary": summary}, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
