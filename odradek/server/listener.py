"""A listener: accepts connections (over TLS when given a context) and hands each one a `Connection`.

``prepare`` (the broker's security setup for this listener) runs on each connection once it is made,
after the TLS handshake; a handshake that does not finish within ``handshake_timeout_s`` closes the
connection, so a client that stalls it holds nothing.

Its connections share one read buffer (`odradek.wire.framing`: the loop runs one read at a time)
and the broker's `RequestMemory`; their socket buffer sizes are the listener's (``socket_buffers``:
send, receive; -1 leaves the OS's).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time

from odradek.server.backpressure import RequestMemory, set_socket_buffers
from odradek.server.connection import Connection, Dispatch, MayWait, Prepare
from odradek.wire.framing import DEFAULT_READ_BYTES

__all__ = ["Listener"]

log = logging.getLogger("odradek.server")


class Listener:
    def __init__(
        self,
        dispatch: Dispatch,
        may_wait: MayWait,
        host: str,
        port: int,
        max_frame_bytes: int,
        *,
        name: str = "PLAINTEXT",
        ssl_context: ssl.SSLContext | None = None,
        prepare: Prepare | None = None,
        handshake_timeout_s: float = 60.0,
        idle_ms: int = 0,
        memory: RequestMemory | None = None,
        socket_buffers: tuple[int, int] = (-1, -1),
    ) -> None:
        self._socket_buffers = socket_buffers
        self.memory = RequestMemory(-1) if memory is None else memory
        self._read_buffer = bytearray(DEFAULT_READ_BYTES)
        self._idle_ms = idle_ms
        self._sweeper: asyncio.TimerHandle | None = None
        self.name = name
        self._ssl = ssl_context
        self._prepare = prepare
        self._handshake_timeout_s = handshake_timeout_s
        self._dispatch = dispatch
        self._may_wait = may_wait
        self._host = host
        self._port = port
        self._max_frame_bytes = max_frame_bytes
        self._server: asyncio.Server | None = None
        self.connections: set[Connection] = set()

    @property
    def port(self) -> int:
        """The bound port (useful when asked for port 0)."""
        if self._server is None:
            return self._port
        return int(self._server.sockets[0].getsockname()[1])

    def _new_connection(self) -> Connection:
        conn = Connection(
            self._dispatch,
            self._may_wait,
            self._max_frame_bytes,
            self.connections.discard,
            self._prepare,
            read_buffer=self._read_buffer,
            memory=self.memory,
        )
        self.connections.add(conn)
        return conn

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        if self._ssl is None:
            self._server = await loop.create_server(self._new_connection, self._host, self._port, reuse_address=True)
        else:
            self._server = await loop.create_server(
                self._new_connection,
                self._host,
                self._port,
                reuse_address=True,
                ssl=self._ssl,
                ssl_handshake_timeout=self._handshake_timeout_s,
            )
        set_socket_buffers(self._server.sockets, *self._socket_buffers)
        log.info("listening on %s:%d (%s)", self._host, self.port, self.name)
        if self._idle_ms > 0:
            self._sweeper = loop.call_later(min(self._idle_ms / 1000, 1.0), self._close_idle)

    def _close_idle(self) -> None:
        """Close every connection with no bytes in or out for ``connections.max.idle.ms`` (real time,
        as Kafka's selector measures it: a test's manual clock does not idle connections out), then
        look again a period later."""
        now = time.monotonic()
        limit = self._idle_ms / 1000
        for conn in list(self.connections):
            if now - conn.last_active >= limit:
                conn.abort(f"idle for {int((now - conn.last_active) * 1000)} ms (connections.max.idle.ms)")
        self._sweeper = asyncio.get_running_loop().call_later(min(limit, 1.0), self._close_idle)

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if self._server is None:
            return
        self._server.close()
        for conn in list(self.connections):
            conn.close()
        await self._server.wait_closed()
        self._server = None
