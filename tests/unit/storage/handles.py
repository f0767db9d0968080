"""A `FileHandle` that delegates every call to another one, for test filesystems that inject
faults, crashes or waits: a subclass overrides only the calls it intercepts."""

from __future__ import annotations

from odradek.storage.filesystem import Buffer, FileHandle


class DelegatingHandle:
    """Passes every `FileHandle` call to ``inner``."""

    def __init__(self, inner: FileHandle) -> None:
        self._inner = inner

    @property
    def path(self) -> str:
        return self._inner.path

    @property
    def closed(self) -> bool:
        return self._inner.closed

    def write(self, data: Buffer) -> int:
        return self._inner.write(data)

    def pread(self, size: int, position: int) -> bytes:
        return self._inner.pread(size, position)

    def size(self) -> int:
        return self._inner.size()

    def truncate(self, size: int) -> None:
        self._inner.truncate(size)

    def flush(self) -> None:
        self._inner.flush()

    def fsync(self) -> None:
        self._inner.fsync()

    def close(self) -> None:
        self._inner.close()

    def fileno(self) -> int | None:
        return self._inner.fileno()
