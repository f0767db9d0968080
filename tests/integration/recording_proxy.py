"""A TCP proxy that records the frames real clients and a broker exchange.

Each accepted connection is forwarded one-to-one to ``upstream_port``.  Every request frame a
client sends is kept in ``frames``; with ``keep_responses`` every response frame is kept too,
beside the API key and version of the request it answers (a response does not name its API: the
proxy finds it by correlation id).  Point a broker's ``advertised.listeners`` at ``port`` so
that every connection of the client goes through the proxy.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from dataclasses import dataclass, field

from odradek.wire.framing import FrameDecoder

__all__ = ["RecordedResponse", "RecordingProxy"]

_HEADER = struct.Struct(">hhi")
_CORRELATION = struct.Struct(">i")


@dataclass(frozen=True, slots=True)
class RecordedResponse:
    api_key: int
    api_version: int
    frame: bytes


@dataclass
class _Pending:
    """Requests of one connection still waiting for their answer, by correlation id."""

    by_correlation: dict[int, tuple[int, int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class RecordingProxy:
    """Forwards connections to ``upstream_port`` and records what passes (module docstring)."""

    def __init__(self, keep_responses: bool = False) -> None:
        self.upstream_port = 0
        self.keep_responses = keep_responses
        self.frames: list[bytes] = []
        self.responses: list[RecordedResponse] = []
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._closing = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()
                continue
            pending = _Pending()
            threading.Thread(target=self._pump, args=(client, upstream, True, pending), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False, pending), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, requests: bool, pending: _Pending) -> None:
        decoder = FrameDecoder(200 * 1024 * 1024)
        try:
            while data := source.recv(65536):
                frames = [bytes(f) for f in decoder.feed(data)]
                if requests:
                    self._requests(frames, pending)
                elif self.keep_responses:
                    self._responses(frames, pending)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def _requests(self, frames: list[bytes], pending: _Pending) -> None:
        with self._lock:
            self.frames.extend(frames)
        with pending.lock:
            for frame in frames:
                if len(frame) >= _HEADER.size:
                    api_key, version, correlation = _HEADER.unpack_from(frame)
                    pending.by_correlation[correlation] = (api_key, version)

    def _responses(self, frames: list[bytes], pending: _Pending) -> None:
        for frame in frames:
            if len(frame) < _CORRELATION.size:
                continue
            (correlation,) = _CORRELATION.unpack_from(frame)
            with pending.lock:
                request = pending.by_correlation.pop(correlation, None)
            if request is not None:
                with self._lock:
                    self.responses.append(RecordedResponse(request[0], request[1], frame))

    def close(self) -> None:
        self._closing = True
        self._server.close()
