"""The web console: server-rendered pages (aiohttp + jinja2) over a `ClusterView`.

Pages: ``/`` the cluster, ``/topics`` and ``/topics/{topic}`` (partitions, offsets, sizes,
configs), ``/topics/{topic}/messages`` (the message browser), ``/groups`` and
``/groups/{group}`` (members, assignments, lag per partition and its chart), ``/produce`` (a
form that writes one test record).  No page needs JavaScript.

Invariants:
- the event loop never waits on the cluster: every `ClusterView` call runs on one of the console's
  own worker threads;
- a bad request is a readable page with its HTTP status (404 unknown topic, partition, group or
  page; 400 a malformed parameter or an offset outside the log; 502 the cluster failed), and an
  unexpected exception is a 500 page with no traceback (the traceback goes to the log);
- a POST whose ``Origin`` names another site is refused (403), so another web page cannot make a
  browser write records through a console listening on loopback.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode, urlsplit

import jinja2
from aiohttp import web

from odradek.clock import Clock
from odradek.console.cluster import MAX_BROWSE, BrowsedRecord, ClusterView, ConsoleError
from odradek.console.formats import FORMATS, show
from odradek.console.lag import LagHistory, lag_chart

__all__ = ["create_app"]

log = logging.getLogger("odradek.console")

T = TypeVar("T")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

VIEW: web.AppKey[ClusterView] = web.AppKey("view", ClusterView)
HISTORY: web.AppKey[LagHistory] = web.AppKey("history", LagHistory)
TEMPLATES: web.AppKey[jinja2.Environment] = web.AppKey("templates", jinja2.Environment)
SAMPLER: web.AppKey[asyncio.Task[None]] = web.AppKey("sampler", asyncio.Task)
WORKERS: web.AppKey[ThreadPoolExecutor] = web.AppKey("workers", ThreadPoolExecutor)
WORKER_THREADS = 4

DEFAULT_LIMIT = 20
STATIC = Path(__file__).with_name("static")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("odradek.console", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["size"] = _size
    env.filters["when"] = _when
    env.globals["query"] = lambda **params: urlencode({k: v for k, v in params.items() if v is not None})
    return env


def _size(value: int | None) -> str:
    if value is None:
        return "-"
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{value} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(value)


def _when(time_ms: int) -> str:
    if time_ms < 0:
        return "-"
    return datetime.fromtimestamp(time_ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _render(request: web.Request, template: str, **context: Any) -> web.Response:
    env = request.app[TEMPLATES]
    view = request.app[VIEW]
    body = env.get_template(template).render(bootstrap=view.bootstrap, path=request.path, **context)
    return web.Response(text=body, content_type="text/html")


def _error(request: web.Request, status: int, reason: str) -> web.Response:
    response = _render(request, "error.html", status=status, reason=reason)
    response.set_status(status)
    return response


async def _off_loop(app: web.Application, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on one of the console's own worker threads (never the loop's default executor,
    which a broker beside the console uses for its compaction jobs and fsyncs)."""
    return await asyncio.get_running_loop().run_in_executor(app[WORKERS], functools.partial(fn, *args))


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except ConsoleError as exc:
        return _error(request, exc.status, exc.reason)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        reason = "There is no such page." if exc.status == 404 else exc.reason
        return _error(request, exc.status, reason)
    except Exception:
        log.exception("console page %s failed", request.path)
        reason = "The console hit an unexpected error; its log has the details."
        return _error(request, 500, reason)


def _int_param(request: web.Request, name: str, minimum: int = 0) -> int | None:
    text = request.query.get(name, "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        raise ConsoleError(400, f"{name} must be a whole number, not {text!r}.") from None
    if value < minimum:
        raise ConsoleError(400, f"{name} must be at least {minimum}, not {value}.")
    return value


def _timestamp_param(request: web.Request) -> int | None:
    text = request.query.get("timestamp", "").strip()
    if not text:
        return None
    if text.isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ConsoleError(
            400, f"timestamp must be epoch milliseconds or an ISO 8601 time such as 2026-11-25T06:00:00Z, not {text!r}."
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


async def overview(request: web.Request) -> web.Response:
    info = await _off_loop(request.app, request.app[VIEW].overview)
    return _render(request, "overview.html", overview=info)


async def topics(request: web.Request) -> web.Response:
    summaries = await _off_loop(request.app, request.app[VIEW].topics)
    return _render(request, "topics.html", topics=summaries)


async def topic(request: web.Request) -> web.Response:
    detail = await _off_loop(request.app, request.app[VIEW].topic, request.match_info["topic"])
    show_all = request.query.get("configs") == "all"
    configs = [c for c in detail.configs if show_all or not c.is_default]
    return _render(request, "topic.html", topic=detail, configs=configs, all_configs=show_all)


async def messages(request: web.Request) -> web.Response:
    view = request.app[VIEW]
    name = request.match_info["topic"]
    partition = _int_param(request, "partition") or 0
    offset = _int_param(request, "offset")
    timestamp = _timestamp_param(request)
    limit = _int_param(request, "limit", minimum=1) or DEFAULT_LIMIT
    if limit > MAX_BROWSE:
        raise ConsoleError(400, f"limit must be at most {MAX_BROWSE}, not {limit}.")
    fmt = request.query.get("format", "text")
    if fmt not in FORMATS:
        raise ConsoleError(400, f"format must be one of {', '.join(FORMATS)}, not {fmt!r}.")
    if offset is not None and timestamp is not None:
        raise ConsoleError(400, "Give an offset or a timestamp, not both.")
    start, end = await _off_loop(request.app, view.partition_range, name, partition)
    note = None
    if timestamp is not None:
        offset = await _off_loop(request.app, view.offset_for_time, name, partition, timestamp)
        if offset < 0:
            offset = end
            note = f"No record of partition {partition} has a timestamp at or after {_when(timestamp)}."
    elif offset is None:
        offset = max(start, end - limit)
    elif not start <= offset <= end:
        raise ConsoleError(
            400,
            f"Offset {offset} is out of range: partition {partition} of {name!r} holds offsets "
            f"{start} to {end - 1}" + (" (it is empty)." if start == end else "."),
        )
    records = await _off_loop(request.app, view.browse, name, partition, offset, end, limit)
    if not records and note is None:
        note = f"No records at or after offset {offset} yet (the log ends at {end})."
    partitions = await _off_loop(request.app, view.partition_ids, name)
    return _render(
        request,
        "messages.html",
        topic=name,
        partitions=partitions,
        partition=partition,
        start=start,
        end=end,
        offset=offset,
        limit=limit,
        fmt=fmt,
        formats=FORMATS,
        timestamp=request.query.get("timestamp", ""),
        rows=[_shown(r, fmt) for r in records],
        note=note,
        previous=max(start, offset - limit) if offset > start else None,
        next=records[-1].offset + 1 if records and records[-1].offset + 1 < end else None,
    )


def _shown(record: BrowsedRecord, fmt: str) -> dict[str, Any]:
    return {
        "offset": record.offset,
        "timestamp": _when(record.timestamp),
        "timestamp_type": record.timestamp_type,
        "key": show(record.key, fmt),
        "value": show(record.value, fmt),
        "headers": [(k, show(v, fmt)) for k, v in record.headers],
    }


async def groups(request: web.Request) -> web.Response:
    listings = await _off_loop(request.app, request.app[VIEW].groups)
    history = request.app[HISTORY]
    latest = {g.group: samples[-1].total for g in listings if (samples := history.samples(g.group))}
    return _render(request, "groups.html", groups=listings, latest=latest)


async def group(request: web.Request) -> web.Response:
    name = request.match_info["group"]
    detail = await _off_loop(request.app, request.app[VIEW].group, name)
    chart = lag_chart(request.app[HISTORY].samples(name), f"lag of group {name} over time")
    return _render(request, "group.html", group=detail, chart=chart)


async def group_chart(request: web.Request) -> web.Response:
    name = request.match_info["group"]
    chart = lag_chart(request.app[HISTORY].samples(name), f"lag of group {name} over time")
    return web.Response(text=str(chart), content_type="image/svg+xml")


async def produce_form(request: web.Request) -> web.Response:
    names = await _off_loop(request.app, request.app[VIEW].topic_names)
    return _render(request, "produce.html", topics=names, chosen=request.query.get("topic", ""), produced=None)


def _same_origin(request: web.Request) -> bool:
    origin = request.headers.get("Origin")
    if origin is None or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == request.host


async def produce(request: web.Request) -> web.Response:
    if not _same_origin(request):
        raise ConsoleError(403, "A record can only be produced from the console's own pages.")
    form = await request.post()
    topic_name = str(form.get("topic", "")).strip()
    if not topic_name:
        raise ConsoleError(400, "Choose a topic to produce to.")
    partition_text = str(form.get("partition", "")).strip()
    try:
        partition = int(partition_text) if partition_text else None
    except ValueError:
        raise ConsoleError(400, f"partition must be a whole number, not {partition_text!r}.") from None
    key_text = str(form.get("key", ""))
    headers: list[tuple[str, bytes]] = []
    for line in str(form.get("headers", "")).splitlines():
        if not line.strip():
            continue
        header, eq, value = line.partition("=")
        if not eq or not header.strip():
            raise ConsoleError(400, f"A header line must be NAME=VALUE, not {line!r}.")
        headers.append((header.strip(), value.encode()))
    key = key_text.encode() if key_text else None
    produced = await _off_loop(
        request.app, request.app[VIEW].produce, topic_name, partition, key, str(form.get("value", "")).encode(), headers
    )
    names = await _off_loop(request.app, request.app[VIEW].topic_names)
    return _render(request, "produce.html", topics=names, chosen=topic_name, produced=produced)


async def _sample(app: web.Application, interval_s: float, clock: Clock) -> None:
    """Every ``interval_s``, every group's lag per partition into the history; a failed sample is
    logged once until sampling works again."""
    failing = False
    while True:
        try:
            lag = await _off_loop(app, app[VIEW].all_lag)
        except ConsoleError as exc:
            if not failing:
                log.warning("lag sample failed: %s", exc.reason)
            failing = True
        else:
            app[HISTORY].record(clock.time_ms(), lag)
            failing = False
        await asyncio.sleep(interval_s)


def create_app(view: ClusterView, history: LagHistory, sample_interval_s: float, clock: Clock) -> web.Application:
    """The console's application; the lag sampler runs from start-up to clean-up."""
    app = web.Application(middlewares=[_errors])
    app[VIEW] = view
    app[HISTORY] = history
    app[TEMPLATES] = _environment()
    app[WORKERS] = ThreadPoolExecutor(WORKER_THREADS, thread_name_prefix="odradek-console")
    app.add_routes(
        [
            web.get("/", overview),
            web.get("/topics", topics),
            web.get("/topics/{topic}", topic),
            web.get("/topics/{topic}/messages", messages),
            web.get("/groups", groups),
            web.get("/groups/{group}", group),
            web.get("/groups/{group}/lag.svg", group_chart),
            web.get("/produce", produce_form),
            web.post("/produce", produce),
        ]
    )
    app.router.add_static("/static", STATIC)

    async def start_sampler(app: web.Application) -> None:
        app[SAMPLER] = asyncio.create_task(_sample(app, sample_interval_s, clock))

    async def stop(app: web.Application) -> None:
        app[SAMPLER].cancel()
        await asyncio.gather(app[SAMPLER], return_exceptions=True)
        await _off_loop(app, view.close)
        app[WORKERS].shutdown(wait=False, cancel_futures=True)

    app.on_startup.append(start_sampler)
    app.on_cleanup.append(stop)
    return app
