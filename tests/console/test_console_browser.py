"""The console in a real browser: Debian's headless Chromium driven by Playwright.

Playwright's own browser builds are never downloaded: the tests use ``/usr/bin/chromium`` (``make
test`` installs it with apt where it is missing) and skip, naming the reason, when it is absent.
With ``ODRADEK_CONSOLE_SCREENSHOTS=DIR`` the main pages are also saved there as PNG (the README's
pictures come from ``ODRADEK_CONSOLE_SCREENSHOTS=docs/console``).
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer

from tests.console.conftest import (
    CONSUMED_PER_PARTITION,
    RECORDS_PER_PARTITION,
    ConsoleProcess,
    Scene,
    create_topic,
    lagging_group,
)

CHROMIUM = Path("/usr/bin/chromium")
MORE = 5
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not CHROMIUM.exists():
    pytest.skip(f"BROWSER TESTS SKIPPED: {CHROMIUM} is missing (apt-get install -y chromium)", allow_module_level=True)

from playwright.sync_api import BrowserContext, Page, expect, sync_playwright  # noqa: E402


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(CHROMIUM),
            headless=True,
            args=FLAGS,
            viewport={"width": 1180, "height": 760},
        )
        context.set_default_timeout(30_000)
        yield context
        context.close()


@pytest.fixture
def page(browser: BrowserContext) -> Iterator[Page]:
    page = browser.new_page()
    yield page
    page.close()


def _screenshot(page: Page, name: str) -> None:
    directory = os.environ.get("ODRADEK_CONSOLE_SCREENSHOTS")
    if directory:
        Path(directory).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(directory) / f"{name}.png"), full_page=True)


def test_from_the_overview_to_a_message_as_json(page: Page, console: ConsoleProcess, scene: Scene) -> None:
    page.goto(console.url + "/")
    expect(page.locator("#brokers tbody tr")).to_have_count(1)
    expect(page.locator("#brokers")).to_contain_text(scene.bootstrap.rsplit(":", 1)[1])
    _screenshot(page, "overview")

    page.get_by_role("navigation").get_by_role("link", name="Topics").click()
    page.get_by_role("link", name=scene.topic, exact=True).click()
    expect(page.locator("#partitions tbody tr")).to_have_count(2)
    expect(page.locator("#partitions tbody tr").nth(1)).to_contain_text(str(RECORDS_PER_PARTITION))
    _screenshot(page, "topic")

    page.get_by_role("link", name="Browse messages").click()
    page.select_option("select[name=partition]", "1")
    page.fill("input[name=offset]", "1")
    page.fill("input[name=limit]", "2")
    page.select_option("select[name=format]", "json")
    page.get_by_role("button", name="Show").click()
    rows = page.locator("#messages tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first.locator("pre.data").nth(1)).to_have_text('{\n  "item": "tea",\n  "count": 1\n}')
    expect(rows.nth(1).locator("pre.data").first).to_have_text("null")
    expect(rows.first).to_contain_text("source")
    _screenshot(page, "messages")


def test_a_group_shows_its_lag_and_the_chart_follows_it(page: Page, console: ConsoleProcess, scene: Scene) -> None:
    lag = RECORDS_PER_PARTITION - CONSUMED_PER_PARTITION
    topic, group = f"payments-{uuid.uuid4().hex[:8]}", f"ledger-{uuid.uuid4().hex[:8]}"
    lagging_group(scene.bootstrap, topic, group)
    page.goto(console.url + "/groups")
    page.get_by_role("link", name=group).click()
    expect(page.locator("#total-lag")).to_have_text(str(2 * lag))
    expect(page.locator("#lag tbody tr td.lag")).to_have_text([str(lag), str(lag)])
    deadline = time.monotonic() + 30
    while page.locator("svg.lag-chart polyline").count() == 0:
        assert time.monotonic() < deadline, "no lag chart after 30 s of sampling"
        page.wait_for_timeout(300)
        page.reload()
    chart = page.locator("svg.lag-chart")
    expect(chart).to_be_visible()
    expect(chart.locator("polyline[data-series=total]")).to_have_count(1)

    producer = Producer({"bootstrap.servers": scene.bootstrap})
    for n in range(MORE):
        producer.produce(topic, b"more %d" % n, partition=0)
    assert producer.flush(30) == 0
    grown = f"total: {2 * lag + MORE}"
    while grown not in chart.text_content():  # type: ignore[operator]
        assert time.monotonic() < deadline + 30, f"the chart never showed {grown!r}"
        page.wait_for_timeout(300)
        page.reload()
    expect(page.locator("#total-lag")).to_have_text(str(2 * lag + MORE))

    member = Consumer(
        {
            "bootstrap.servers": scene.bootstrap,
            "group.id": group,
            "client.id": "billing-service",
            "enable.auto.commit": False,
        }
    )
    member.subscribe([topic])
    try:
        while not member.assignment():
            assert time.monotonic() < deadline + 60, "the member was never assigned partitions"
            member.poll(0.2)
        page.reload()
        expect(page.locator("#members tbody tr")).to_have_count(1)
        expect(page.locator("#members")).to_contain_text("billing-service")
        expect(page.locator("#members")).to_contain_text(f"{topic}-0, {topic}-1")
        expect(page.locator("#state")).to_have_text("Stable")
        _screenshot(page, "group")
    finally:
        member.close()


def test_produce_a_test_message_and_see_it(page: Page, console: ConsoleProcess, scene: Scene) -> None:
    topic = f"scratch-{uuid.uuid4().hex[:8]}"
    create_topic(scene.bootstrap, topic, 1)
    page.goto(console.url + "/produce")
    page.select_option("select[name=topic]", topic)
    page.fill("input[name=key]", "from-the-browser")
    page.fill("textarea[name=value]", '{"hello": "console"}')
    page.fill("textarea[name=headers]", "trace=abc")
    page.get_by_role("button", name="Produce").click()
    expect(page.locator("#produced")).to_contain_text(f"Written to {topic} partition 0 at offset 0")
    _screenshot(page, "produce")
    page.get_by_role("link", name="see it").click()
    row = page.locator("#messages tbody tr").first
    expect(row).to_contain_text("from-the-browser")
    expect(row).to_contain_text('{"hello": "console"}')
    expect(row).to_contain_text("trace")


def test_an_offset_out_of_range_is_a_readable_400(page: Page, console: ConsoleProcess, scene: Scene) -> None:
    page.goto(f"{console.url}/topics/{scene.topic}/messages?partition=0")
    page.fill("input[name=offset]", "999")
    with page.expect_response(re.compile(r"/messages\?")) as answer:
        page.get_by_role("button", name="Show").click()
    assert answer.value.status == 400
    expect(page.locator("h1")).to_contain_text("Bad request")
    expect(page.locator(".reason")).to_have_text(
        f"Offset 999 is out of range: partition 0 of '{scene.topic}' holds offsets 0 to {RECORDS_PER_PARTITION - 1}."
    )
    _screenshot(page, "error")


def test_an_unknown_topic_is_a_readable_404(page: Page, console: ConsoleProcess) -> None:
    answer = page.goto(console.url + "/topics/does-not-exist")
    assert answer is not None and answer.status == 404
    expect(page.locator(".reason")).to_have_text("There is no topic named 'does-not-exist' in this cluster.")
