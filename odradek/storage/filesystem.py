"""The storage filesystem seam: every file the storage layer touches goes through a `FileSystem`.

Two implementations pass the same conformance suite:

- `OsFileSystem`: the real thing; handles are raw file descriptors (``os.open``/``os.pread``,
  unbuffered, opened with ``O_APPEND``), so `FileHandle.fileno` can feed ``os.sendfile``;
- `MemoryFileSystem`: files in memory, for tests and in-process brokers.  It remembers how much
  of each file was fsynced; `MemoryFileSystem.crash` truncates every file to that durable
  length and closes every open handle, which is what a power cut does to un-fsynced data.

Paths are plain strings.  Directory entries are made durable with `FileSystem.fsync_dir`;
the memory implementation keeps directory changes across a crash (a deliberate
simplification: only file contents are volatile).

Invariants:
- `FileHandle.write` appends the whole buffer at the end of the file and returns the position
  it was written at;
- `FileHandle.pread` returns fewer bytes than asked only at the end of the file;
- every operation on a closed handle raises `ValueError`, like Python's own files.
"""

from __future__ import annotations

import errno
import os
import posixpath
from typing import Protocol

__all__ = [
    "Buffer",
    "FileHandle",
    "FileSystem",
    "MemoryFileSystem",
    "OsFileSystem",
    "read_file",
    "write_file_atomic",
]

Buffer = bytes | bytearray | memoryview


class FileHandle(Protocol):
    """An open file: appends at the end, positional reads anywhere."""

    @property
    def path(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    def write(self, data: Buffer) -> int:
        """Append ``data`` at the end of the file; return the position it starts at."""
        ...

    def pread(self, size: int, position: int) -> bytes:
        """Read up to ``size`` bytes at ``position`` (short only at the end of the file)."""
        ...

    def size(self) -> int: ...

    def truncate(self, size: int) -> None: ...

    def flush(self) -> None:
        """Hand buffered writes to the operating system (handles here are unbuffered)."""
        ...

    def fsync(self) -> None:
        """Make everything written so far durable."""
        ...

    def close(self) -> None: ...

    def fileno(self) -> int | None:
        """The OS file descriptor, or None when the file does not live in the OS."""
        ...


class FileSystem(Protocol):
    """Directory and file operations the storage layer needs, nothing more."""

    def open_append(self, path: str) -> FileHandle:
        """Open for reading and appending, creating an empty file if there is none."""
        ...

    def open_read(self, path: str) -> FileHandle:
        """Open an existing file read-only."""
        ...

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

    def size(self, path: str) -> int: ...

    def listdir(self, path: str) -> list[str]:
        """Names (not paths) of the entries of a directory, sorted."""
        ...

    def makedirs(self, path: str) -> None:
        """Create a directory and its missing parents; an existing directory is fine."""
        ...

    def remove(self, path: str) -> None: ...

    def rmtree(self, path: str) -> None: ...

    def rename(self, src: str, dst: str) -> None:
        """Atomically rename a file or directory, replacing a file at ``dst``."""
        ...

    def fsync_dir(self, path: str) -> None:
        """Make the entries of a directory (creations, renames, removals) durable."""
        ...


def write_file_atomic(fs: FileSystem, path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves either the old or the new content."""
    tmp = path + ".tmp"
    if fs.exists(tmp):
        fs.remove(tmp)
    handle = fs.open_append(tmp)
    try:
        handle.write(data)
        handle.fsync()
    finally:
        handle.close()
    fs.rename(tmp, path)
    fs.fsync_dir(posixpath.dirname(path) or ".")


def read_file(fs: FileSystem, path: str) -> bytes:
    """The whole content of a file."""
    handle = fs.open_read(path)
    try:
        return handle.pread(handle.size(), 0)
    finally:
        handle.close()


def _closed_error() -> ValueError:
    return ValueError("I/O operation on closed file")


class _OsFile:
    """A raw, unbuffered file descriptor; the size is tracked to spare an fstat per call."""

    __slots__ = ("_durable", "_fd", "_path", "_size")

    def __init__(self, path: str, fd: int, durable: bool = True) -> None:
        self._path = path
        self._fd = fd
        self._size = os.fstat(fd).st_size
        self._durable = durable

    @property
    def path(self) -> str:
        return self._path

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def _check(self) -> int:
        if self._fd < 0:
            raise _closed_error()
        return self._fd

    def write(self, data: Buffer) -> int:
        fd = self._check()
        start = self._size
        try:
            written = os.write(fd, data)
            if written < len(data):
                view = memoryview(data)
                while written < len(view):
                    written += os.write(fd, view[written:])
        except OSError:
            self._size = os.fstat(fd).st_size
            raise
        self._size = start + written
        return start

    def pread(self, size: int, position: int) -> bytes:
        fd = self._check()
        data = os.pread(fd, size, position)
        if len(data) == size or not data:
            return data
        parts = [data]
        got = len(data)
        while got < size:
            more = os.pread(fd, size - got, position + got)
            if not more:
                break
            parts.append(more)
            got += len(more)
        return b"".join(parts)

    def size(self) -> int:
        self._check()
        return self._size

    def truncate(self, size: int) -> None:
        os.ftruncate(self._check(), size)
        self._size = size

    def flush(self) -> None:
        self._check()

    def fsync(self) -> None:
        fd = self._check()
        if self._durable:
            os.fsync(fd)

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)

    def fileno(self) -> int | None:
        fd = self._fd  # `_check` inlined: asked for before every sendfile
        if fd < 0:
            raise _closed_error()
        return fd


class OsFileSystem:
    """The operating system's filesystem.  With ``durable=False`` every fsync is skipped: for a
    test broker whose data directory is thrown away, where durability only costs time."""

    def __init__(self, *, durable: bool = True) -> None:
        self._durable = durable

    def open_append(self, path: str) -> FileHandle:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
        return _OsFile(path, fd, self._durable)

    def open_read(self, path: str) -> FileHandle:
        return _OsFile(path, os.open(path, os.O_RDONLY | os.O_CLOEXEC), self._durable)

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def size(self, path: str) -> int:
        return os.stat(path).st_size

    def listdir(self, path: str) -> list[str]:
        return sorted(os.listdir(path))

    def makedirs(self, path: str) -> None:
        os.makedirs(path, exist_ok=True)

    def remove(self, path: str) -> None:
        os.remove(path)

    def rmtree(self, path: str) -> None:
        import shutil  # with its archive codecs, only when a directory tree goes (not at start-up)

        shutil.rmtree(path)

    def rename(self, src: str, dst: str) -> None:
        os.replace(src, dst)

    def fsync_dir(self, path: str) -> None:
        if not self._durable:
            return
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class _MemData:
    """The content of one in-memory file and how much of it is durable."""

    __slots__ = ("data", "durable")

    def __init__(self) -> None:
        self.data = bytearray()
        self.durable = 0


class _MemFile:
    __slots__ = ("_file", "_fs", "_path", "_writable")

    def __init__(self, fs: MemoryFileSystem, path: str, file: _MemData | None, writable: bool) -> None:
        self._fs = fs
        self._path = path
        self._file = file
        self._writable = writable

    @property
    def path(self) -> str:
        return self._path

    @property
    def closed(self) -> bool:
        return self._file is None

    def _check(self) -> _MemData:
        if self._file is None:
            raise _closed_error()
        return self._file

    def _check_writable(self) -> _MemData:
        file = self._check()
        if not self._writable:
            raise OSError(errno.EBADF, "file not open for writing", self._path)
        return file

    def write(self, data: Buffer) -> int:
        buf = self._check_writable().data
        start = len(buf)
        buf += data
        return start

    def pread(self, size: int, position: int) -> bytes:
        return bytes(self._check().data[position : position + size])

    def size(self) -> int:
        return len(self._check().data)

    def truncate(self, size: int) -> None:
        file = self._check_writable()
        if size < len(file.data):
            del file.data[size:]
        else:
            file.data.extend(bytes(size - len(file.data)))
        file.durable = min(file.durable, size)

    def flush(self) -> None:
        self._check()

    def fsync(self) -> None:
        file = self._check()
        file.durable = len(file.data)

    def close(self) -> None:
        if self._file is not None:
            self._file = None
            self._fs._forget(self)

    def fileno(self) -> int | None:
        self._check()
        return None


def _norm(path: str) -> str:
    return posixpath.normpath(posixpath.join("/", path))


def _not_found(path: str) -> FileNotFoundError:
    return FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)


class MemoryFileSystem:
    """An in-memory filesystem with POSIX-like semantics and crash simulation.

    Relative paths are taken from ``/``.  A removed or renamed file stays readable through
    handles opened before, as on POSIX.  Every directory maps to the names it holds, so
    listing a directory costs its own size only.
    """

    def __init__(self) -> None:
        self._files: dict[str, _MemData] = {}
        self._dirs: dict[str, set[str]] = {"/": set()}
        self._open: set[_MemFile] = set()

    def _forget(self, handle: _MemFile) -> None:
        self._open.discard(handle)

    def _parent(self, path: str) -> set[str]:
        """The entries of ``path``'s parent directory, which must exist."""
        parent = posixpath.dirname(path)
        entries = self._dirs.get(parent)
        if entries is None:
            raise _not_found(parent)
        return entries

    def open_append(self, path: str) -> FileHandle:
        key = _norm(path)
        if key in self._dirs:
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        file = self._files.get(key)
        if file is None:
            self._parent(key).add(posixpath.basename(key))
            file = self._files[key] = _MemData()
        handle = _MemFile(self, path, file, writable=True)
        self._open.add(handle)
        return handle

    def open_read(self, path: str) -> FileHandle:
        file = self._files.get(_norm(path))
        if file is None:
            raise _not_found(path)
        handle = _MemFile(self, path, file, writable=False)
        self._open.add(handle)
        return handle

    def exists(self, path: str) -> bool:
        key = _norm(path)
        return key in self._files or key in self._dirs

    def is_dir(self, path: str) -> bool:
        return _norm(path) in self._dirs

    def size(self, path: str) -> int:
        file = self._files.get(_norm(path))
        if file is None:
            raise _not_found(path)
        return len(file.data)

    def listdir(self, path: str) -> list[str]:
        entries = self._dirs.get(_norm(path))
        if entries is None:
            raise _not_found(path)
        return sorted(entries)

    def makedirs(self, path: str) -> None:
        key = _norm(path)
        if key in self._files:
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)
        missing = []
        while key not in self._dirs:
            missing.append(key)
            key = posixpath.dirname(key)
        for directory in reversed(missing):
            self._parent(directory).add(posixpath.basename(directory))
            self._dirs[directory] = set()

    def remove(self, path: str) -> None:
        key = _norm(path)
        if self._files.pop(key, None) is None:
            raise _not_found(path)
        self._parent(key).discard(posixpath.basename(key))

    def _descendants(self, key: str) -> tuple[list[str], list[str]]:
        """Files and directories below directory ``key`` (itself included among directories)."""
        files: list[str] = []
        dirs = [key]
        pending = [key]
        while pending:
            current = pending.pop()
            for name in self._dirs[current]:
                child = posixpath.join(current, name)
                if child in self._dirs:
                    dirs.append(child)
                    pending.append(child)
                else:
                    files.append(child)
        return files, dirs

    def rmtree(self, path: str) -> None:
        key = _norm(path)
        if key not in self._dirs or key == "/":
            raise _not_found(path)
        files, dirs = self._descendants(key)
        for file in files:
            del self._files[file]
        for directory in dirs:
            del self._dirs[directory]
        self._parent(key).discard(posixpath.basename(key))

    def rename(self, src: str, dst: str) -> None:
        src_key, dst_key = _norm(src), _norm(dst)
        if src_key == dst_key:
            return
        dst_parent = self._parent(dst_key)
        if src_key in self._files:
            if dst_key in self._dirs:
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), dst)
            self._files[dst_key] = self._files.pop(src_key)
        elif src_key in self._dirs:
            if dst_key in self._files or self._dirs.get(dst_key):
                raise OSError(errno.ENOTEMPTY, os.strerror(errno.ENOTEMPTY), dst)
            if dst_key.startswith(src_key + "/"):
                raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), dst)
            files, dirs = self._descendants(src_key)
            for file in files:
                self._files[dst_key + file[len(src_key) :]] = self._files.pop(file)
            for directory in dirs:
                self._dirs[dst_key + directory[len(src_key) :]] = self._dirs.pop(directory)
        else:
            raise _not_found(src)
        self._parent(src_key).discard(posixpath.basename(src_key))
        dst_parent.add(posixpath.basename(dst_key))

    def fsync_dir(self, path: str) -> None:
        if _norm(path) not in self._dirs:
            raise _not_found(path)

    def crash(self) -> None:
        """Lose every byte written since the last fsync of its file and close every handle."""
        for file in self._files.values():
            del file.data[file.durable :]
        for handle in list(self._open):
            handle.close()
