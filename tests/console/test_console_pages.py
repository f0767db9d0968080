"""The console's pages over HTTP against a real broker: what they show, and how bad input is answered."""

from __future__ import annotations

import html
import re
import time

import pytest

from tests.console.conftest import CONSUMED_PER_PARTITION, RECORDS_PER_PARTITION, ConsoleProcess, Scene


def _cells(page: str, table_id: str) -> list[list[str]]:
    """The text of each body row of the table with ``table_id``."""
    table = re.search(rf'<table id="{table_id}">.*?<tbody>(.*?)</tbody>', page, re.S)
    assert table is not None, f"no table {table_id}"
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table[1], re.S)
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in rows
    ]


def test_overview_names_the_broker_and_counts(console: ConsoleProcess, scene: Scene) -> None:
    page = console.get("/")
    assert page.status == 200
    [[node, host, port, role]] = _cells(page.text, "brokers")
    assert (host, port, role) == (*scene.bootstrap.rsplit(":", 1), "controller")
    assert int(node) >= 0


def test_topics_list_records_and_sizes(console: ConsoleProcess, scene: Scene) -> None:
    rows = {row[0]: row for row in _cells(console.get("/topics").text, "topics")}
    _name, partitions, records, size, _ = rows[scene.topic]
    assert (partitions, records) == ("2", str(2 * RECORDS_PER_PARTITION))
    assert size.endswith("B") and size != "0 B"
    assert rows[scene.idle_topic][1:4] == ["1", "0", "0 B"]


def test_topic_page_shows_partitions_offsets_and_configs(console: ConsoleProcess, scene: Scene) -> None:
    page = console.get(f"/topics/{scene.topic}")
    assert page.status == 200
    partitions = _cells(page.text, "partitions")
    assert [(p[0], p[4], p[5], p[6]) for p in partitions] == [
        (str(n), "0", str(RECORDS_PER_PARTITION), str(RECORDS_PER_PARTITION)) for n in (0, 1)
    ]
    every = _cells(console.get(f"/topics/{scene.topic}?configs=all").text, "configs")
    assert every[[c[0] for c in every].index("cleanup.policy")][:2] == ["cleanup.policy", "delete"]


def test_message_browser_by_offset_in_three_formats(console: ConsoleProcess, scene: Scene) -> None:
    base = f"/topics/{scene.topic}/messages?partition=1"
    rows = _cells(console.get(base + "&offset=0&limit=3").text, "messages")
    assert [r[0] for r in rows] == ["0", "1", "2"]
    assert (rows[0][2], rows[0][3], rows[0][4]) == ("key-1-0", "value 0 of partition 1", "source: tests")
    assert rows[2][2] == "null" and rows[2][3] == "\\x00\\x01\\x02\\xffbinary"

    as_json = _cells(console.get(base + "&offset=1&limit=1&format=json").text, "messages")
    assert as_json[0][3] == '{\n  "item": "tea",\n  "count": 1\n}'
    as_hex = _cells(console.get(base + "&offset=2&limit=1&format=hex").text, "messages")
    assert as_hex[0][3] == "00000000  00 01 02 ff 62 69 6e 61 72 79                    |....binary|"


def test_message_browser_defaults_to_the_newest_and_pages(console: ConsoleProcess, scene: Scene) -> None:
    page = console.get(f"/topics/{scene.topic}/messages?partition=0&limit=2").text
    assert [r[0] for r in _cells(page, "messages")] == [str(RECORDS_PER_PARTITION - 2), str(RECORDS_PER_PARTITION - 1)]
    assert 'rel="prev"' in page and 'rel="next"' not in page


def test_message_browser_by_timestamp(console: ConsoleProcess, scene: Scene) -> None:
    page = console.get(f"/topics/{scene.topic}/messages?partition=0&timestamp=0&limit=1")
    assert page.status == 200 and [r[0] for r in _cells(page.text, "messages")] == ["0"]
    future = console.get(f"/topics/{scene.topic}/messages?partition=0&timestamp=2999-01-01T00:00:00Z")
    assert future.status == 200 and "has a timestamp at or after 2999-01-01" in future.text


def test_group_page_shows_lag_per_partition_and_a_chart(console: ConsoleProcess, scene: Scene) -> None:
    lag = RECORDS_PER_PARTITION - CONSUMED_PER_PARTITION
    page = console.get(f"/groups/{scene.group}")
    assert page.status == 200
    rows = _cells(page.text, "lag")
    assert [(r[0], r[1], r[2], r[3], r[4]) for r in rows] == [
        (scene.topic, str(p), str(CONSUMED_PER_PARTITION), str(RECORDS_PER_PARTITION), str(lag)) for p in (0, 1)
    ]
    assert re.search(r'<dd id="total-lag">(\d+)</dd>', page.text)[1] == str(2 * lag)  # type: ignore[index]
    assert _cells(page.text, "members") == [["No members: nobody is consuming with this group right now."]]
    deadline = time.monotonic() + 30
    while "<polyline" not in (chart := console.get(f"/groups/{scene.group}/lag.svg").text):
        assert time.monotonic() < deadline, "the sampler never took two samples"
        time.sleep(0.2)
    totals = re.findall(r'data-series="total".*?points="([^"]+)"', chart)
    assert totals and f">total: {2 * lag}<title>total</title></text>" in chart
    assert f'data-series="{scene.topic}-0"' in chart


def test_produce_a_test_message(console: ConsoleProcess, scene: Scene) -> None:
    form = {"topic": scene.idle_topic, "partition": "0", "key": "k", "value": "hello", "headers": "a=1\nb=2"}
    page = console.post("/produce", form)
    assert page.status == 200 and "partition 0 at offset 0" in page.text
    rows = _cells(console.get(f"/topics/{scene.idle_topic}/messages?offset=0").text, "messages")
    assert [(r[0], r[2], r[3]) for r in rows] == [("0", "k", "hello")]
    assert "a: 1" in rows[0][4] and "b: 2" in rows[0][4]

    foreign = console.post("/produce", form, headers={"Origin": "http://elsewhere.example"})
    assert foreign.status == 403
    bad_header = console.post("/produce", {**form, "headers": "no equals sign"})
    assert bad_header.status == 400 and "NAME=VALUE" in bad_header.text
    no_partition = console.post("/produce", {**form, "partition": "9"})
    assert no_partition.status == 400 and "has no partition 9 (it has 1 partitions)" in no_partition.text
    no_topic = console.post("/produce", {**form, "topic": "no-such-topic"})
    assert no_topic.status == 404 and "There is no topic named" in no_topic.text


@pytest.mark.parametrize(
    ("path", "status", "reason"),
    [
        ("/topics/no-such-topic", 404, "There is no topic named &#39;no-such-topic&#39;"),
        ("/topics/no-such-topic/messages", 404, "There is no topic named"),
        ("/topics/{topic}/messages?partition=9", 404, "has no partition 9 (it has 2 partitions)"),
        ("/topics/{topic}/messages?offset=99", 400, "Offset 99 is out of range: partition 0 of"),
        ("/topics/{topic}/messages?offset=-1", 400, "offset must be at least 0"),
        ("/topics/{topic}/messages?offset=abc", 400, "offset must be a whole number"),
        ("/topics/{topic}/messages?offset=1&timestamp=1", 400, "not both"),
        ("/topics/{topic}/messages?timestamp=yesterday", 400, "timestamp must be epoch milliseconds"),
        ("/topics/{topic}/messages?format=xml", 400, "format must be one of text, json, hex"),
        ("/topics/{topic}/messages?limit=100000", 400, "limit must be at most 500"),
        ("/groups/no-such-group", 404, "There is no consumer group named"),
        ("/no/such/page", 404, "There is no such page."),
    ],
)
def test_bad_input_is_a_readable_page(
    console: ConsoleProcess, scene: Scene, path: str, status: int, reason: str
) -> None:
    page = console.get(path.format(topic=scene.topic))
    assert page.status == status
    assert reason in page.text
    assert "Traceback" not in page.text and "<!doctype html>" in page.text
