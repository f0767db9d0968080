"""One client connection: bytes in, frames to the dispatcher, responses out in request order.

Reads land directly in the frame decoder's buffers (asyncio.BufferedProtocol), so a large
request is received into its own bytearray without intermediate copies.

Kafka answers the requests of one connection strictly in the order they arrived; this
connection processes its frames one at a time from a queue, which gives that order and lets a
client pipeline requests.  Reading pauses (`odradek.server.backpressure`) while the queue is
long, while request memory is spent, and while the transport says its write buffer is full
(`pause_writing`): then the next request also waits, as Kafka mutes a connection until its
answer is sent, so a client that pipelines without reading holds at most one answer beyond the
transport's high-water mark and a bounded queue, and the rest stays in its own socket buffers.
Every frame's bytes are reserved in the listener's `RequestMemory` from its size prefix
(`odradek.wire.framing`) until its answer is built.

A frame the dispatcher refuses (ProtocolViolation) closes this connection only, with one log line.
Each frame received and each answered is noted in `odradek.fair_share`, so that a huge request
on another connection lets it go first.

A dispatcher that can answer some frames without waiting (`AnswersAtOnce`: a Produce of the fast
path's shape, a Fetch) answers them from the read callback itself while the connection is idle
(nothing queued or in hand, no mute, no gate, writable): in arrival order, for one `Turn` at most,
their answers sent together; the first frame it does not take and all after it go to the queue.
A frame it began but has to wait for (a long-poll fetch: a `LaterAnswer`) goes to the queue
first, and the worker awaits that answer in its turn instead of dispatching the frame again.  The
worker asks the dispatcher the same way before awaiting its coroutine, so a pipelined Produce of
that shape is answered without an await either.

Security sits in front of the dispatcher: the listener's ``prepare`` hook runs once the connection
is made (after the TLS handshake on a TLS listener) and sets the connection's `identity` and its
`gate`; every frame goes through the gate first, in order with the others.  The gate lets a frame
through to the dispatcher, answers it itself (the SASL exchange, which must happen before any
other request on a SASL listener) or refuses it (`ProtocolViolation`: the connection closes with one
log line).  `mute` holds the next request back for a while (a quota's throttle time, Kafka's muted
channel).

Responses go out through `odradek.server.zerocopy.write_parts`: record sets left in segment
files (fetch) are sent with sendfile.  A response with such file parts is written as soon as the
dispatcher returns it, before anything else is awaited or answered: nothing can close a segment file
in between.  What the socket does not take at once (a fetch answer larger than the socket's send
buffer, Kafka's ``socket.send.buffer.bytes``) a `Drain` sends as the socket drains, file parts
still with sendfile, holding duplicates of their descriptors, woken by the listener's
`WritableWatch` through the connection's one duplicate of its socket; meanwhile the next request
waits for its answer (Kafka's mute), reading goes on within the queue's limits (`Hold.QUEUE`), and
anything else the connection sends goes after the drain's parts.  Without a watch (a platform
without epoll) the transport takes what the socket does not.  A write that finds the peer gone
closes the connection with one log line.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, cast

from odradek.fair_share import fair_share
from odradek.security.principal import ClientIdentity
from odradek.server.backpressure import (
    MAX_QUEUED_BYTES,
    MAX_QUEUED_FRAMES,
    Hold,
    ReadHolds,
    RequestMemory,
    Turn,
)
from odradek.server.writable import WritableWatch
from odradek.server.zerocopy import (
    BUFFER_TYPES,
    Buffer,
    Drain,
    SocketLike,
    buffer_pieces,
    release_unsent,
    write_parts,
)
from odradek.wire.errors import ProtocolViolation
from odradek.wire.framing import FrameDecoder, FrameError
from odradek.wire.primitives import Part

if TYPE_CHECKING:
    from odradek.security.gate import GateAnswer

__all__ = ["AnswersAtOnce", "Connection", "Dispatch", "FrameGate", "Prepare"]

log = logging.getLogger("odradek.server")


Dispatch = Callable[[bytearray, "Connection"], Awaitable[list[Part] | None]]
"""Answers one request frame with the pieces of the response frame, or None (no response)."""

MayWait = Callable[[bytearray], bool]
"""Whether answering this request frame may wait a while (a long-poll fetch, a group join)."""

_COALESCE_BYTES = 1024 * 1024
_PIECE_BYTES = 256 * 1024


def _holds_file(parts: list[Part]) -> bool:
    """Whether an answer holds a file part (records left in a segment file)."""
    return any(not isinstance(part, BUFFER_TYPES) for part in parts)


class FrameGate(Protocol):
    """What a listener puts in front of the dispatcher (see the module docstring)."""

    def admit(self, body: bytearray) -> GateAnswer | None:
        """None: dispatch the frame; a `GateAnswer`: send it instead; `ProtocolViolation`: close."""
        ...


Prepare = Callable[["Connection"], None]
"""Called once the connection is made: sets `Connection.identity` and `Connection.gate`, or aborts."""


class LaterAnswer(Protocol):
    """A frame's answer begun at once that has to wait for something (a long-poll fetch)."""

    async def answer(self) -> list[Part] | None:
        """The answer's parts (None: none is due); awaited once."""
        ...


class AnswersAtOnce(Protocol):
    """A dispatcher that can answer some frames without waiting for anything (`Connection._enqueue`)."""

    def answer_now(self, body: bytearray, connection: Connection) -> list[Part] | LaterAnswer | None:
        """The frame's answer (empty: none is due), the `LaterAnswer` to await for it, or None:
        send it through the dispatch coroutine."""
        ...


class Connection(asyncio.BufferedProtocol):
    """asyncio protocol for one socket; see the module docstring for the ordering invariant."""

    def __init__(
        self,
        dispatch: Dispatch,
        may_wait: MayWait,
        max_frame_bytes: int,
        on_close: Callable[[Connection], None],
        prepare: Prepare | None = None,
        *,
        read_buffer: bytearray | None = None,
        memory: RequestMemory | None = None,
        watch: WritableWatch | None = None,
    ) -> None:
        self._dispatch = dispatch
        # An attribute look-up, not isinstance on a runtime-checkable protocol: this module may be
        # compiled with mypyc (tools/compile.py), which refuses runtime-checkable protocols.
        answer_now: Callable[[bytearray, Connection], list[Part] | LaterAnswer | None] | None = getattr(
            dispatch, "answer_now", None
        )
        self._answer_now = answer_now
        #: The frame `_answer_at_once` began and left waiting, with what to await for its answer.
        self._later: tuple[bytearray, LaterAnswer] | None = None
        self._prepare = prepare
        #: ``time.monotonic()`` of the last bytes in or out (``connections.max.idle.ms``).
        self.last_active = time.monotonic()
        #: Called once when the connection is gone (the limits give its slot back).
        self.close_callbacks: list[Callable[[], None]] = []
        self.identity = ClientIdentity()
        self.gate: FrameGate | None = None
        self._muted: asyncio.Future[None] | None = None
        self._may_wait = may_wait
        self._memory = RequestMemory(-1) if memory is None else memory
        self._decoder = FrameDecoder(max_frame_bytes, read_buffer, self._memory.try_reserve)
        self._holds = ReadHolds()
        self._on_close = on_close
        self._pending: deque[bytearray] = deque()
        self._pending_bytes = 0
        self._in_hand = 0  # bytes of the frame taken off the queue and not answered yet
        self._worker: asyncio.Task[None] | None = None
        self._writable = asyncio.Event()
        self._writable.set()
        self.transport: asyncio.Transport | None = None
        self._socket: SocketLike | None = None
        #: Tells drains when the socket has room (None: no drains, the transport takes the rest).
        self._watch = watch
        #: This connection's duplicate of its socket, watched by ``_watch``: made by the first
        #: drain, closed with the connection (-1: none yet).
        self._drain_fd = -1
        self._drain: Drain | None = None
        self._transport_paused = False
        self.peer = "?"
        self.closed = False

    def pause_writing(self) -> None:
        self._transport_paused = True
        self._writable.clear()
        self._holds.hold(Hold.ANSWERS)

    def resume_writing(self) -> None:
        self._transport_paused = False
        self._holds.release(Hold.ANSWERS)
        if self._drain is None:
            self._writable.set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports implement asyncio.Transport without subclassing it.
        self.transport = cast(asyncio.Transport, transport)
        self._holds.attach(self.transport)
        if transport.get_extra_info("sslcontext") is None:  # a TLS transport's socket is not ours to write
            self._socket = transport.get_extra_info("socket")
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        if isinstance(peer, tuple):
            self.identity.host = str(peer[0])
        if self._prepare is not None:
            self._prepare(self)

    def set_max_frame_bytes(self, limit: int) -> None:
        """The largest frame accepted from now on (a SASL listener's limit before authentication)."""
        self._decoder.max_frame_bytes = limit

    def mute(self, delay: Awaitable[None]) -> None:
        """Hold the next request back until ``delay`` completes (Kafka mutes a throttled channel)."""
        self._muted = asyncio.ensure_future(delay)

    def get_buffer(self, sizehint: int) -> memoryview:
        return self._decoder.get_buffer()

    def buffer_updated(self, nbytes: int) -> None:
        self.last_active = time.monotonic()
        try:
            frames = self._decoder.buffer_updated(nbytes)
        except FrameError as exc:
            self.abort(str(exc))
            return
        self._enqueue(frames)
        if self._decoder.blocked and not self._holds.holds(Hold.MEMORY):
            self._holds.hold(Hold.MEMORY)
            self._memory.wait(self._memory_available)

    def _enqueue(self, frames: list[bytearray]) -> None:
        if not frames or self.closed:
            return
        if self._answer_now is not None and self._idle():
            frames, answered_bytes = self._answer_at_once(frames)
            self._queue(frames)
            self._memory.release(answered_bytes)  # after the rest is queued: a release may enqueue more
            return
        self._queue(frames)

    def _idle(self) -> bool:
        """Nothing queued, in hand or held back: a frame may be answered at once, in order."""
        return (
            not self._pending
            and (self._worker is None or self._worker.done())
            and self._muted is None
            and self.gate is None
            and self._writable.is_set()
        )

    def _answer_at_once(self, frames: list[bytearray]) -> tuple[list[bytearray], int]:
        """Answer the leading frames the dispatcher answers without waiting (a Produce of the
        fast path's shape, a Fetch that finds its data), for one `Turn` at most, and send their
        answers together; a frame begun but left waiting is the first left.  Returns the
        frames left for the worker, in order, and the bytes of those answered (still reserved)."""
        assert self._answer_now is not None
        out: list[Part] = []
        answered_bytes = 0
        turn: Turn | None = None  # started by the first answer: a frame handed back costs nothing more
        rest: list[bytearray] = []
        for position, body in enumerate(frames):
            try:
                parts = self._answer_now(body, self)
            except Exception as exc:
                if out:  # the answers before the frame that closes the connection still go out
                    self._send(out)
                if isinstance(exc, ProtocolViolation):
                    self.abort(str(exc))
                else:
                    log.exception("closing connection from %s: internal error", self.peer)
                    self.close()
                return [], sum(len(frame) for frame in frames)
            if not isinstance(parts, list):
                if parts is not None:  # the worker awaits it, in order
                    self._later = (body, parts)
                rest = frames[position:] if position else frames
                break
            answered_bytes += len(body)
            out.extend(parts)
            if _holds_file(parts):  # sent before anything else is read or appended (module docstring)
                self._send(out)
                out = []
                if not self._writable.is_set():  # a drain has the socket: the rest waits in the queue
                    rest = frames[position + 1 :]
                    break
            if turn is None:
                turn = Turn()
            elif turn.over():
                rest = frames[position + 1 :]
                break
        if out:
            self._send(out)
        return rest, answered_bytes

    def _queue(self, frames: list[bytearray]) -> None:
        """Queue frames for the worker, which answers them in order."""
        if not frames:
            return
        for body in frames:
            self._pending.append(body)
            self._pending_bytes += len(body)
        fair_share.note(len(frames))  # a huge request lets these go first
        if len(self._pending) >= MAX_QUEUED_FRAMES or self._pending_bytes >= MAX_QUEUED_BYTES:
            self._holds.hold(Hold.QUEUE)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work())

    def _dequeued(self, body: bytearray) -> None:
        self._pending_bytes -= len(body)
        self._in_hand = len(body)
        if len(self._pending) <= MAX_QUEUED_FRAMES // 2 and self._pending_bytes <= MAX_QUEUED_BYTES // 2:
            self._holds.release(Hold.QUEUE)

    def _answered(self) -> None:
        """The frame in hand is answered (or dropped): its bytes go back to request memory."""
        self._memory.release(self._in_hand)
        self._in_hand = 0
        fair_share.note()

    def _memory_available(self) -> None:
        """Request memory was released: the frame held back may now be received."""
        if self.closed:
            return
        try:
            frames = self._decoder.resume()
        except FrameError as exc:
            self.abort(str(exc))
            return
        self._enqueue(frames)
        if self._decoder.blocked:
            self._memory.wait(self._memory_available)
        else:
            self._holds.release(Hold.MEMORY)

    async def _work(self) -> None:
        """Answer the queued requests in order.  Responses to pipelined requests are written
        together (one vectored send instead of one per response); before a request that may
        wait, everything answered so far goes out, so no answer is held back by a long poll.
        An answer with file parts goes out at once (see the module docstring).  After a `Turn`
        of answering, what is answered goes out and the other connections run first."""
        out: list[Part] = []
        out_bytes = 0
        turn = Turn()
        try:
            while self._pending and not self.closed:
                if turn.over():
                    if out:
                        self._send(out)
                        out, out_bytes = [], 0
                    await turn.give_way()
                    continue
                body = self._pending.popleft()
                self._dequeued(body)
                if out and (self._may_wait(body) or not self._writable.is_set()):
                    self._send(out)
                    out, out_bytes = [], 0
                if self._muted is not None:
                    if out:
                        self._send(out)
                        out, out_bytes = [], 0
                    muted, self._muted = self._muted, None
                    await muted
                    if self.closed:
                        return
                if not self._writable.is_set():
                    await self._writable.wait()
                    if self.closed:
                        return
                if self.gate is not None:
                    try:
                        answer = self.gate.admit(body)
                    except ProtocolViolation as exc:
                        if out:
                            self._send(out)
                            out, out_bytes = [], 0
                        self.abort(str(exc))
                        return
                    if answer is not None:
                        self._answered()
                        out.extend(answer.parts)
                        self._send(out)
                        out, out_bytes = [], 0
                        if answer.close_after:
                            self.abort(answer.reason)
                            return
                        continue
                try:
                    try:
                        # What the dispatcher answers without waiting skips the coroutine and its await.
                        later = self._later
                        if later is not None and later[0] is body:  # begun by the read callback
                            self._later = None
                            begun: list[Part] | LaterAnswer | None = later[1]
                        else:
                            begun = None if self._answer_now is None else self._answer_now(body, self)
                        if begun is None:
                            response = await self._dispatch(body, self)
                        elif isinstance(begun, list):
                            response = begun or None  # empty: answered, and no answer is due (acks=0)
                        else:
                            response = await begun.answer()
                    finally:
                        self._answered()
                except Exception as exc:
                    if out:  # the answers before the frame that closes the connection still go out
                        self._send(out)
                        out, out_bytes = [], 0
                    if isinstance(exc, ProtocolViolation):
                        self.abort(str(exc))
                    else:
                        log.exception("closing connection from %s: internal error", self.peer)
                        self.close()
                    return
                if response is not None:
                    out.extend(response)
                    files = False
                    for part in response:
                        if isinstance(part, BUFFER_TYPES):
                            out_bytes += len(part)
                        else:  # sent at once below, whatever its size
                            files = True
                    if files or out_bytes >= _COALESCE_BYTES:
                        if files:
                            self._send(out)
                        else:
                            await self._send_in_pieces(out)
                        out, out_bytes = [], 0
        finally:
            if out:
                self._send(out)

    async def _send_in_pieces(self, parts: list[Part]) -> None:
        """Send answers of bytes (a megabyte or more) a piece at a time, giving the loop back
        between pieces: one write of a multi-MB answer holds it for milliseconds.  This task
        writes nothing else meanwhile, so the answers stay in order."""
        for piece in buffer_pieces(cast(list[Buffer], parts), _PIECE_BYTES):
            if self.closed:
                return
            self._send(piece)
            await asyncio.sleep(0)

    def _send(self, parts: list[Part]) -> None:
        if self.transport is None or self.closed:
            return
        self.last_active = time.monotonic()
        try:
            if self._drain is not None:
                self._drain.add(parts)
                return
            watch = self._watch
            rest = write_parts(self.transport, self._socket, parts, drain=watch is not None)
            if rest:
                assert watch is not None and self._socket is not None
                try:
                    if self._drain_fd < 0:
                        self._drain_fd = watch.watch(self._socket.fileno())
                except OSError:
                    release_unsent(rest)
                    raise
                self._drain = Drain(watch, self._drain_fd, rest, self._drained)
                # The next answer waits for this one; reading goes on (the queue's limits still
                # hold it), as a drain begins and ends with no call to the transport.
                self._writable.clear()
        except (OSError, ValueError) as exc:
            self._write_failed(exc)

    def _drained(self, failure: Exception | None) -> None:
        """The drain ended: everything went out, or the peer is gone or a file is short."""
        self._drain = None
        if failure is not None:
            self._write_failed(failure)
            return
        self.last_active = time.monotonic()
        if not self._transport_paused:
            self._writable.set()

    def _write_failed(self, exc: Exception) -> None:
        if isinstance(exc, OSError):
            log.info("closing connection from %s: %s", self.peer, exc)
        else:
            log.error("closing connection from %s: a response's file part cannot be read", self.peer, exc_info=exc)
        self.close()

    def abort(self, reason: str) -> None:
        """Close this connection because of what the peer sent; one log line."""
        if self.closed:
            return
        log.warning("closing connection from %s: %s", self.peer, reason)
        self.close()

    def close(self, *, drop_unsent: bool = False) -> None:
        """Close the connection; its transport sends what it holds first unless ``drop_unsent``
        (the broker stopping: Kafka's selector closes its channels without flushing them)."""
        if self.closed:
            return
        self.closed = True
        self._stop_drain()
        if self.transport is not None:
            if drop_unsent:
                self.transport.abort()
            else:
                self.transport.close()

    def _stop_drain(self) -> None:
        """Drop what a drain still holds and close the socket's duplicate (either would keep the
        socket or a segment file open)."""
        if self._drain is not None:
            self._drain.cancel()
            self._drain = None
        if self._drain_fd >= 0:
            assert self._watch is not None
            self._watch.release(self._drain_fd)
            self._drain_fd = -1

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._later = None
        self._stop_drain()
        self._writable.set()
        self._return_request_memory()
        if self._muted is not None:
            self._muted.cancel()
        if self._worker is not None and not self._worker.done():
            self._worker.cancel()
        callbacks, self.close_callbacks = self.close_callbacks, []
        for callback in callbacks:
            callback()
        self._on_close(self)

    def _return_request_memory(self) -> None:
        """Release what the frames never dispatched, and the one being received, reserved."""
        self._memory.forget(self._memory_available)
        self._memory.release(self._pending_bytes + self._in_hand + self._decoder.reserved_in_progress())
        self._pending.clear()
        self._pending_bytes = self._in_hand = 0
