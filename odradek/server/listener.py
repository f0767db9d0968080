"""A listener: accepts connections (over TLS when given a context) and hands each one a `Connection`.

``prepare`` (the broker's security setup for this listener) runs on each connection once it is made,
after the TLS handshake; a handshake that does not finish within ``handshake_timeout_s`` closes the
connection, so a client that stalls it holds nothing.

The listener runs its own accept loop over its listening sockets, so that ``admission`` (the
broker's connection limits, `odradek.security.limits`) decides, as Kafka's acceptor does, before a
connection is served: with no slot on this listener it holds the connection just accepted, unread,
and accepts no other (they wait in the listening socket's backlog) until a connection closes; a
connection from an address at its per-ip limit is closed at once.  Each second it also closes its
least recently active connection while the broker's total is over its limit because of a
protected listener.

Its connections share one read buffer (`odradek.wire.framing`: the loop runs one read at a time)
and the broker's `RequestMemory`; their socket buffer sizes are the listener's (``socket_buffers``:
send, receive; -1 leaves the OS's).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
import time
from collections.abc import Callable
from typing import Any, Protocol

from odradek.server.backpressure import RequestMemory, set_socket_buffers
from odradek.server.connection import Connection, Dispatch, MayWait, Prepare
from odradek.server.writable import WritableWatch
from odradek.server.writable import available as writable_available
from odradek.wire.framing import DEFAULT_READ_BYTES

__all__ = ["Admission", "Listener"]

log = logging.getLogger("odradek.server")

#: Connections the kernel keeps waiting to be accepted (Kafka's ``socket.listen.backlog.size``).
LISTEN_BACKLOG = 50


class Admission(Protocol):
    """The connection limits a listener asks before serving a connection (`odradek.security.limits`)."""

    def slot_available(self, listener: str) -> bool: ...

    def wait_for_slot(self, listener: str, wake: Callable[[], None]) -> None: ...

    def admit(self, host: str, listener: str) -> str | None: ...

    def release(self, host: str, listener: str) -> None: ...

    def over_total(self, listener: str) -> bool: ...


async def _accept(listening: socket.socket) -> tuple[socket.socket, Any]:
    """The next connection on the non-blocking ``listening`` socket. Unlike ``loop.sock_accept``, a
    cancellation that arrives after the kernel handed a connection over (the listener stopping at that
    moment) closes that connection's socket instead of dropping it, unclosed, with the cancelled await.
    Like ``sock_accept`` it takes a connection already waiting at once, without yielding to the loop:
    one listener accepts what its backlog holds before another listener's acceptor runs."""
    with contextlib.suppress(BlockingIOError, InterruptedError):
        return listening.accept()
    loop = asyncio.get_running_loop()
    accepted: asyncio.Future[tuple[socket.socket, Any]] = loop.create_future()
    fd = listening.fileno()

    def readable() -> None:
        if accepted.done():
            return
        try:
            accepted.set_result(listening.accept())
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            accepted.set_exception(exc)

    loop.add_reader(fd, readable)
    try:
        return await accepted
    except asyncio.CancelledError:
        if accepted.done() and not accepted.cancelled() and accepted.exception() is None:
            accepted.result()[0].close()
        raise
    finally:
        loop.remove_reader(fd)


def _waker(slot: asyncio.Future[None]) -> Callable[[], None]:
    def wake() -> None:
        if not slot.done():
            slot.set_result(None)

    return wake


def _listening_sockets(host: str, port: int) -> list[socket.socket]:
    """Bound, listening, non-blocking sockets for every address of ``host`` (as asyncio's
    ``create_server`` binds them)."""
    found: list[socket.socket] = []
    # An ASCII host (an address or a plain name) is passed as bytes: a str is first encoded with the
    # IDNA codec, whose import (unicodedata, stringprep) would cost every start about a millisecond.
    name = host.encode("ascii") if host.isascii() else host
    infos = socket.getaddrinfo(name or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            found.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(LISTEN_BACKLOG)
            sock.setblocking(False)
    except OSError:
        for sock in found:
            sock.close()
        raise
    return found


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
        admission: Admission | None = None,
    ) -> None:
        self._socket_buffers = socket_buffers
        self._admission = admission
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
        self._sockets: list[socket.socket] = []
        self._acceptors: list[asyncio.Task[None]] = []
        self._handshakes: set[asyncio.Task[None]] = set()
        self.connections: set[Connection] = set()
        self._watch: WritableWatch | None = None

    @property
    def port(self) -> int:
        """The bound port (useful when asked for port 0)."""
        if not self._sockets:
            return self._port
        return int(self._sockets[0].getsockname()[1])

    def _new_connection(self, release: Callable[[], None] | None) -> Connection:
        conn = Connection(
            self._dispatch,
            self._may_wait,
            self._max_frame_bytes,
            self.connections.discard,
            self._prepare,
            read_buffer=self._read_buffer,
            memory=self.memory,
            watch=self._watch,
        )
        if release is not None:
            conn.close_callbacks.append(release)
        self.connections.add(conn)
        return conn

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._sockets = _listening_sockets(self._host, self._port)
        set_socket_buffers(self._sockets, *self._socket_buffers)
        if writable_available and self._ssl is None:  # a TLS socket is written by its transport only
            self._watch = WritableWatch(loop)
        self._acceptors = [loop.create_task(self._accept_loop(sock)) for sock in self._sockets]
        log.info("listening on %s:%d (%s)", self._host, self.port, self.name)
        period = self._sweep_period()
        if period is not None:
            self._sweeper = loop.call_later(period, self._sweep)

    def _sweep_period(self) -> float | None:
        if self._idle_ms > 0:
            return min(self._idle_ms / 1000, 1.0)
        return 1.0 if self._admission is not None else None

    async def _slot(self) -> None:
        """Until this listener may serve one more connection."""
        admission = self._admission
        while admission is not None and not admission.slot_available(self.name):
            slot: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            admission.wait_for_slot(self.name, _waker(slot))
            await slot

    async def _accept_loop(self, listening: socket.socket) -> None:
        """Accept, wait for a slot (Kafka's acceptor blocks there), count, serve; one connection at a time."""
        loop = asyncio.get_running_loop()
        while True:
            try:
                sock, address = await _accept(listening)
            except OSError as exc:  # out of file descriptors, a connection reset before it was accepted
                log.warning("listener %s: accept failed: %s", self.name, exc)
                await asyncio.sleep(0.1)
                continue
            try:
                await self._slot()
            except asyncio.CancelledError:
                sock.close()
                raise
            host = str(address[0]) if isinstance(address, tuple) else str(address)
            release: Callable[[], None] | None = None
            if self._admission is not None:
                refusal = self._admission.admit(host, self.name)
                if refusal is not None:
                    log.warning("closing connection from %s:%s: %s", host, address[1], refusal)
                    sock.close()
                    continue
                release = self._release_once(host)
            task = loop.create_task(self._serve(sock, release))
            self._handshakes.add(task)
            task.add_done_callback(self._handshakes.discard)

    def _release_once(self, host: str) -> Callable[[], None]:
        admission, name, released = self._admission, self.name, [False]

        def release() -> None:
            if admission is not None and not released[0]:
                released[0] = True
                admission.release(host, name)

        return release

    async def _serve(self, sock: socket.socket, release: Callable[[], None] | None) -> None:
        """Hand an accepted socket to its `Connection` (after the TLS handshake on a TLS listener)."""
        made: list[Connection] = []

        def new_connection() -> Connection:
            made.append(self._new_connection(release))
            return made[-1]

        try:
            sock.setblocking(False)
            if self._ssl is None:
                await asyncio.get_running_loop().connect_accepted_socket(new_connection, sock)
            else:
                await asyncio.get_running_loop().connect_accepted_socket(
                    new_connection, sock, ssl=self._ssl, ssl_handshake_timeout=self._handshake_timeout_s
                )
        except (OSError, ssl.SSLError, TimeoutError, ConnectionError) as exc:
            log.info("listener %s: connection closed before it was made: %s", self.name, exc)
            self._drop_hand_over(sock, made, release)
        except asyncio.CancelledError:  # `stop` while the hand-over was under way: the socket is ours to close
            self._drop_hand_over(sock, made, release)
            raise

    def _drop_hand_over(self, sock: socket.socket, made: list[Connection], release: Callable[[], None] | None) -> None:
        """Forget the connections a failed hand-over made and close its socket now (a transport's own
        close would wait for a loop turn that a stopping broker may never give it)."""
        for conn in made:
            self.connections.discard(conn)
        sock.close()
        if release is not None:
            release()

    def _sweep(self) -> None:
        """Close every connection with no bytes in or out for ``connections.max.idle.ms`` (real time,
        as Kafka's selector measures it: a test's manual clock does not idle connections out), and the
        least recently active one while the broker's total is over its limit; look again a period later."""
        now = time.monotonic()
        if self._idle_ms > 0:
            limit = self._idle_ms / 1000
            for conn in list(self.connections):
                if now - conn.last_active >= limit:
                    conn.abort(f"idle for {int((now - conn.last_active) * 1000)} ms (connections.max.idle.ms)")
        if self._admission is not None and self._admission.over_total(self.name):
            open_ones = [conn for conn in self.connections if not conn.closed]
            if open_ones:
                min(open_ones, key=lambda conn: conn.last_active).abort("max.connections reached by another listener")
        period = self._sweep_period()
        if period is not None:
            self._sweeper = asyncio.get_running_loop().call_later(period, self._sweep)

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if not self._sockets:
            return
        for task in self._acceptors:
            task.cancel()
        for task in list(self._handshakes):
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._acceptors, *self._handshakes, return_exceptions=True)
        for sock in self._sockets:
            sock.close()
        for conn in list(self.connections):
            conn.close(drop_unsent=True)  # a close that sends first would leave the socket open meanwhile
        if self._watch is not None:  # after the connections: each gave its socket's duplicate back
            self._watch.close()
            self._watch = None
        self._acceptors, self._sockets = [], []
        # A transport closes its socket in a callback of the next loop turn; an embedding may close
        # the loop right after this returns, leaving the sockets to the garbage collector.
        await asyncio.sleep(0)
