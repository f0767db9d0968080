"""Helpers the test-double tests share with real clients."""

from __future__ import annotations

import confluent_kafka


def consume(consumer: confluent_kafka.Consumer, count: int, timeout_s: float = 30.0) -> list[bytes]:
    """``count`` record values, polling at most ``timeout_s`` (a bound, not a timed assertion)."""
    values: list[bytes] = []
    for _ in range(int(timeout_s / 0.2)):
        message = consumer.poll(0.2)
        if message is None or message.error() is not None:
            continue
        values.append(message.value())
        if len(values) == count:
            break
    return values
