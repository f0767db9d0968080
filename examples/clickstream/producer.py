"""Page-view events for the click-stream example, and a producer that writes them to a topic.

An event is one JSON object per record, keyed by user::

    {"user": "u17", "page": "/pricing", "ts": 1795600000123}

``ts`` is the event time in milliseconds since the epoch; the record's own timestamp is set to it
too. :func:`page_views` makes a reproducible stream (a seed decides it), so the counts a job must
find are known in advance (:func:`views_per_minute`).

    python -m examples.clickstream.producer --bootstrap-server 127.0.0.1:9092 --topic clicks --minutes 5
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from confluent_kafka import Producer

PAGES = ("/", "/pricing", "/docs", "/blog", "/signup")
MINUTE_MS = 60_000

log = logging.getLogger("clickstream.producer")


@dataclass(frozen=True, slots=True)
class PageView:
    user: str
    page: str
    ts: int

    def to_json(self) -> bytes:
        return json.dumps({"user": self.user, "page": self.page, "ts": self.ts}, separators=(",", ":")).encode()


def page_views(start_ms: int, minutes: int, per_minute: int, seed: int = 7) -> list[PageView]:
    """``per_minute`` views in each of ``minutes`` minutes from ``start_ms`` (a minute boundary), in
    event-time order, users and pages drawn from ``seed``."""
    rng = random.Random(seed)
    views = []
    for minute in range(minutes):
        base = start_ms + minute * MINUTE_MS
        offsets = sorted(rng.randrange(MINUTE_MS) for _ in range(per_minute))
        views += [PageView(f"u{rng.randrange(50)}", rng.choice(PAGES), base + offset) for offset in offsets]
    return views


def views_per_minute(views: Iterable[PageView]) -> Counter[tuple[int, str]]:
    """(minute start in ms, page) -> number of views: what the job must report."""
    return Counter((view.ts - view.ts % MINUTE_MS, view.page) for view in views)


def produce(bootstrap: str, topic: str, views: Iterable[PageView]) -> int:
    """Write the views in order (idempotent producer, acks=all); the number written."""
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5}, logger=log)
    count = 0
    for view in views:
        producer.produce(topic, key=view.user.encode(), value=view.to_json(), timestamp=view.ts)
        producer.poll(0)
        count += 1
    if producer.flush(30) != 0:
        raise RuntimeError(f"not every page view reached {topic} at {bootstrap} within 30 s")
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description="write page-view events to a Kafka topic")
    parser.add_argument("--bootstrap-server", default="127.0.0.1:9092")
    parser.add_argument("--topic", default="clicks")
    parser.add_argument("--minutes", type=int, default=5, help="minutes of events, ending now")
    parser.add_argument("--per-minute", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    now = int(time.time() * 1000)
    start = now - now % MINUTE_MS - (args.minutes - 1) * MINUTE_MS
    views = page_views(start, args.minutes, args.per_minute, args.seed)
    print(f"wrote {produce(args.bootstrap_server, args.topic, views)} page views to {args.topic}")


if __name__ == "__main__":
    main()
