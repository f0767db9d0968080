"""The control endpoint: the test double over HTTP and JSON, for tests in any language.

Off by default; ``odradek run --control-port N`` (0: a free port) or
``Broker(control_port=...)`` turns it on.  It listens on 127.0.0.1 only and runs on the
broker's event loop.  Bodies are JSON objects; a body that is not JSON, or a value that is not
allowed, is answered 400 with ``{"error": reason}`` and changes nothing.

====== ============================ ===============================================================
method path                         does
====== ============================ ===============================================================
GET    /                            ``{"bootstrap_servers", "clock": {...}, "faults": n, "journal": bool}``
POST   /reset                       remove every topic, group, transaction, fault, journal entry
GET    /topics                      ``{"topics": [names]}``
POST   /topics                      ``{"name", "partitions"?, "configs"?}``: create a topic
DELETE /topics/{name}               delete a topic
GET    /faults                      ``{"faults": [...]}`` with ``fired`` and ``remaining``
POST   /faults                      a fault (`odradek.testing.faults.Fault.from_json`); its ``id``
DELETE /faults                      clear every fault
DELETE /faults/{id}                 remove one fault
GET    /clock                       ``{"frozen", "time_ms"}``
POST   /clock/freeze                manual time from now on
POST   /clock/resume                system time again
POST   /clock/advance               ``{"seconds": s}`` or ``{"ms": n}``: fire what falls due
POST   /journal/start               ``{"capacity"?}``: record every request from now on
POST   /journal/stop                stop recording
DELETE /journal                     forget every entry
GET    /journal                     ``{"entries": [...]}``, filtered by the query's ``api``,
                                    ``version``, ``client_id``, ``topic``, ``partition``,
                                    ``group``, ``transactional_id``, ``error``
GET    /journal.jsonl               the same entries as JSON lines
POST   /snapshots                   take a snapshot of the whole state: ``{"id": n}``
POST   /snapshots/{id}/restore      go back to that snapshot
====== ============================ ===============================================================
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from odradek.testing.faults import Fault
from odradek.testing.journal import matches
from odradek.testing.runtime import Runtime, Snapshot

__all__ = ["ControlServer"]

LOOPBACK = "127.0.0.1"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class BadRequest(ValueError):
    """The request's body or a value in it is not allowed."""


def _json(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status)


async def _body(request: web.Request) -> dict[str, Any]:
    text = await request.text()
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"the body is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BadRequest("the body must be a JSON object")
    return data


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise BadRequest(f"{name} must be an integer, not {value!r}")
    try:
        return int(value)
    except ValueError:
        raise BadRequest(f"{name} must be an integer, not {value!r}") from None


class ControlServer:
    """The endpoint of one `Runtime`, on the runtime's event loop."""

    def __init__(self, runtime: Runtime, host: str = LOOPBACK, port: int = 0) -> None:
        if host != LOOPBACK:
            raise ValueError(f"the control endpoint listens on {LOOPBACK} only, not {host!r}")
        self._runtime = runtime
        self._host = host
        self._port = port
        self._snapshots: dict[int, Snapshot] = {}
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://{self._host}:{self.port}"

    async def start(self) -> None:
        app = web.Application(middlewares=[_errors])
        routes = [
            web.get("/", self._status),
            web.post("/reset", self._reset),
            web.get("/topics", self._topics),
            web.post("/topics", self._create_topic),
            web.delete("/topics/{name}", self._delete_topic),
            web.get("/faults", self._faults),
            web.post("/faults", self._inject),
            web.delete("/faults", self._clear_faults),
            web.delete("/faults/{id}", self._remove_fault),
            web.get("/clock", self._clock),
            web.post("/clock/freeze", self._freeze),
            web.post("/clock/resume", self._resume),
            web.post("/clock/advance", self._advance),
            web.post("/journal/start", self._journal_start),
            web.post("/journal/stop", self._journal_stop),
            web.delete("/journal", self._journal_clear),
            web.get("/journal", self._journal),
            web.get("/journal.jsonl", self._journal_lines),
            web.post("/snapshots", self._snapshot),
            web.post("/snapshots/{id}/restore", self._restore),
        ]
        app.add_routes(routes)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port, reuse_address=True)
        await site.start()
        self.port = int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ---------------------------------------------------------------- routes

    def _clock_state(self) -> dict[str, Any]:
        clock = self._runtime.clock
        return {"frozen": clock.frozen, "time_ms": clock.time_ms()}

    async def _status(self, request: web.Request) -> web.Response:
        runtime = self._runtime
        return _json(
            {
                "bootstrap_servers": f"{runtime.host}:{runtime.port}",
                "clock": self._clock_state(),
                "faults": len(runtime.double.faults.listing()),
                "journal": runtime.double.journal.enabled,
            }
        )

    async def _reset(self, request: web.Request) -> web.Response:
        await _body(request)
        await self._runtime.reset()
        return _json({"reset": True})

    async def _topics(self, request: web.Request) -> web.Response:
        return _json({"topics": await self._runtime.topic_names()})

    async def _create_topic(self, request: web.Request) -> web.Response:
        body = await _body(request)
        name = body.get("name")
        if not isinstance(name, str):
            raise BadRequest("a topic needs a name (a string)")
        partitions = _int(body.get("partitions", 1), "partitions")
        configs = body.get("configs") or {}
        if not isinstance(configs, dict):
            raise BadRequest("configs must be an object of config names to values")
        await self._runtime.create_topic(name, partitions, {str(k): str(v) for k, v in configs.items()})
        return _json({"name": name, "partitions": partitions}, status=201)

    async def _delete_topic(self, request: web.Request) -> web.Response:
        await self._runtime.delete_topic(request.match_info["name"])
        return _json({"deleted": request.match_info["name"]})

    async def _faults(self, request: web.Request) -> web.Response:
        return _json({"faults": self._runtime.double.faults.listing()})

    async def _inject(self, request: web.Request) -> web.Response:
        fault = self._runtime.double.inject(Fault.from_json(await _body(request)))
        return _json(fault.to_json(), status=201)

    async def _clear_faults(self, request: web.Request) -> web.Response:
        self._runtime.double.clear_faults()
        return _json({"faults": []})

    async def _remove_fault(self, request: web.Request) -> web.Response:
        fault_id = _int(request.match_info["id"], "fault id")
        if not self._runtime.double.remove_fault(fault_id):
            return _json({"error": f"no fault {fault_id}"}, status=404)
        return _json({"removed": fault_id})

    async def _clock(self, request: web.Request) -> web.Response:
        return _json(self._clock_state())

    async def _freeze(self, request: web.Request) -> web.Response:
        self._runtime.clock.freeze()
        return _json(self._clock_state())

    async def _resume(self, request: web.Request) -> web.Response:
        self._runtime.clock.resume()
        return _json(self._clock_state())

    async def _advance(self, request: web.Request) -> web.Response:
        body = await _body(request)
        if "ms" in body:
            ms = _int(body["ms"], "ms")
        elif isinstance(body.get("seconds"), int | float) and not isinstance(body["seconds"], bool):
            ms = round(body["seconds"] * 1000)
        else:
            raise BadRequest("advance takes {'seconds': number} or {'ms': integer}")
        if ms < 0:
            raise BadRequest(f"the clock cannot go backwards ({ms} ms)")
        if not self._runtime.clock.frozen:
            raise BadRequest("the clock runs on system time: POST /clock/freeze first")
        self._runtime.clock.advance(ms)
        return _json(self._clock_state())

    async def _journal_start(self, request: web.Request) -> web.Response:
        body = await _body(request)
        capacity = _int(body["capacity"], "capacity") if "capacity" in body else None
        self._runtime.double.journal.start(capacity)
        self._runtime.double.refresh()
        return _json({"journal": True})

    async def _journal_stop(self, request: web.Request) -> web.Response:
        self._runtime.double.journal.stop()
        self._runtime.double.refresh()
        return _json({"journal": False})

    async def _journal_clear(self, request: web.Request) -> web.Response:
        self._runtime.double.journal.clear()
        return _json({"entries": []})

    def _entries(self, request: web.Request) -> list[dict[str, Any]]:
        query = request.query
        allowed = ("api", "version", "client_id", "topic", "partition", "group", "transactional_id", "error")
        unknown = set(query) - set(allowed)
        if unknown:
            raise BadRequest(f"unknown journal filter(s) {', '.join(sorted(unknown))}; allowed: {', '.join(allowed)}")
        filters: dict[str, Any] = {key: query[key] for key in allowed if key in query}
        for key in ("version", "partition"):
            if key in filters:
                filters[key] = _int(filters[key], key)
        entries = self._runtime.double.journal.entries()
        return [entry.to_json() for entry in entries if matches(entry, **filters)]

    async def _journal(self, request: web.Request) -> web.Response:
        return _json({"entries": self._entries(request)})

    async def _journal_lines(self, request: web.Request) -> web.Response:
        lines = "".join(json.dumps(entry, separators=(",", ":")) + "\n" for entry in self._entries(request))
        return web.Response(text=lines, content_type="application/x-ndjson")

    async def _snapshot(self, request: web.Request) -> web.Response:
        snapshot = await self._runtime.snapshot()
        snapshot_id = len(self._snapshots) + 1
        self._snapshots[snapshot_id] = snapshot
        return _json({"id": snapshot_id}, status=201)

    async def _restore(self, request: web.Request) -> web.Response:
        snapshot_id = _int(request.match_info["id"], "snapshot id")
        snapshot = self._snapshots.get(snapshot_id)
        if snapshot is None:
            return _json({"error": f"no snapshot {snapshot_id}"}, status=404)
        await self._runtime.restore(snapshot)
        return _json({"restored": snapshot_id})


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A bad body or value is a 400 with its reason (nothing was changed before the check)."""
    try:
        return await handler(request)
    except ValueError as exc:
        return _json({"error": str(exc)}, status=400)
