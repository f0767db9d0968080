"""The TCP listener: accepts connections and hands each one a `Connection`.

Its connections share one read buffer (`odradek.wire.framing`: the loop runs one read at a time)
and the broker's `RequestMemory`; their socket buffer sizes are the listener's (``socket_buffers``:
send, receive; -1 leaves the OS's)."""

from __future__ import annotations

import asyncio
import logging

from odradek.server.backpressure import RequestMemory, set_socket_buffers
from odradek.server.connection import Connection, Dispatch, MayWait
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
        memory: RequestMemory | None = None,
        socket_buffers: tuple[int, int] = (-1, -1),
    ) -> None:
        self._socket_buffers = socket_buffers
        self.memory = RequestMemory(-1) if memory is None else memory
        self._read_buffer = bytearray(DEFAULT_READ_BYTES)
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
            read_buffer=self._read_buffer,
            memory=self.memory,
        )
        self.connections.add(conn)
        return conn

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._new_connection, self._host, self._port, reuse_address=True)
        set_socket_buffers(self._server.sockets, *self._socket_buffers)
        log.info("listening on %s:%d", self._host, self.port)

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for conn in list(self.connections):
            conn.close()
        await self._server.wait_closed()
        self._server = None
