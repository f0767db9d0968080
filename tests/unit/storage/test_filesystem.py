"""Conformance of every FileSystem backend, plus the memory backend's crash simulation."""

from __future__ import annotations

from typing import Any

import pytest

from odradek.storage.filesystem import MemoryFileSystem, read_file, write_file_atomic


def test_write_appends_and_returns_position(backend: Any) -> None:
    fs, root = backend.fs, backend.root
    handle = fs.open_append(f"{root}/f")
    assert handle.write(b"hello") == 0
    assert handle.write(bytearray(b" world")) == 5
    assert handle.write(memoryview(b"!!")[:1]) == 11
    assert handle.size() == 12
    assert handle.pread(5, 6) == b"world"
    assert handle.pread(100, 10) == b"d!"
    assert handle.pread(10, 50) == b""
    handle.close()
    assert fs.size(f"{root}/f") == 12


def test_reopen_appends_at_end(backend: Any) -> None:
    fs, root = backend.fs, backend.root
    first = fs.open_append(f"{root}/f")
    first.write(b"abc")
    first.close()
    second = fs.open_append(f"{root}/f")
    assert second.size() == 3
    assert second.write(b"def") == 3
    assert second.pread(6, 0) == b"abcdef"
    second.close()


def test_truncate_then_append_goes_to_new_end(backend: Any) -> None:
    fs, root = backend.fs, backend.root
    handle = fs.open_append(f"{root}/f")
    handle.write(b"0123456789")
    handle.truncate(4)
    assert handle.size() == 4
    assert handle.write(b"xy") == 4
    assert handle.pread(10, 0) == b"0123xy"
    handle.close()


def test_read_only_handle_rejects_writes(backend: Any) -> None:
    fs, root = backend.fs, backend.root
    writer = fs.open_append(f"{root}/f")
    writer.write(b"data")
    writer.close()
    reader = fs.open_read(f"{root}/f")
    assert reader.pread(4, 0) == b"data"
    with pytest.raises(OSError):
        reader.write(b"more")
    reader.close()
    with pytest.raises(FileNotFoundError):
        fs.open_read(f"{root}/missing")


def test_closed_handle_raises_value_error(backend: Any) -> None:
    handle = backend.fs.open_append(f"{backend.root}/f")
    handle.close()
    handle.close()
    assert handle.closed
    with pytest.raises(ValueError):
        handle.pread(1, 0)
    with pytest.raises(ValueError):
        handle.write(b"x")
    with pytest.raises(ValueError):
        handle.fileno()


def test_fileno_is_an_os_descriptor_only_on_disk(backend: Any) -> None:
    handle = backend.fs.open_append(f"{backend.root}/f")
    if backend.name == "os":
        assert isinstance(handle.fileno(), int)
    else:
        assert handle.fileno() is None
    handle.fsync()
    handle.flush()
    handle.close()


def test_directories(backend: Any) -> None:
    fs, root = backend.fs, backend.root
    fs.makedirs(f"{root}/a/b")
    fs.makedirs(f"{root}/a/b")
    assert fs.is_dir(f"{root}/a") and fs.is_dir(f"{root}/a/b")
    fs.open_append(f"{root}/a/z").close()
    fs.open_append(f"{root}/a/b/y").close()
    assert fs.listdir(f"{root}/a") == ["b", "z"]
    assert not fs.is_dir(f"{root}/a/z")
    assert fs.exists(f"{root}/a/z")
    fs.remove(f"{root}/a/z")
    assert not fs.exists(f"{root}/a/z")
    fs.fsync_dir(f"{root}/a")
    fs.rmtree(f"{root}/a")
    assert not fs.exists(f"{root}/a") and not fs.exists(f"{root}/a/b/y")
    with pytest.raises(FileNotFoundError):
        fs.listdir(f"{root}/a")


def test_rename_file_replaces_target(backend: Any) -> None:
    fs, root = backend.fs, backend.root
    write_file_atomic(fs, f"{root}/old", b"old")
    write_file_atomic(fs, f"{root}/new", b"new")
    fs.rename(f"{root}/new", f"{root}/old")
    assert read_file(fs, f"{root}/old") == b"new"
    assert not fs.exists(f"{root}/new")


def test_rename_directory_moves_its_content(backend: Any) -> None:
    fs, root = backend.fs, backend.root
    fs.makedirs(f"{root}/t-0/sub")
    write_file_atomic(fs, f"{root}/t-0/sub/f", b"x")
    fs.rename(f"{root}/t-0", f"{root}/t-0.abc-delete")
    assert not fs.exists(f"{root}/t-0")
    assert read_file(fs, f"{root}/t-0.abc-delete/sub/f") == b"x"
    assert fs.listdir(root) == ["t-0.abc-delete"]


def test_open_handle_survives_rename(backend: Any) -> None:
    fs, root = backend.fs, backend.root
    handle = fs.open_append(f"{root}/f")
    handle.write(b"abc")
    fs.rename(f"{root}/f", f"{root}/g")
    assert handle.pread(3, 0) == b"abc"
    handle.close()


def test_write_file_atomic_overwrites(backend: Any) -> None:
    fs, root = backend.fs, backend.root
    write_file_atomic(fs, f"{root}/m", b"one")
    write_file_atomic(fs, f"{root}/m", b"two!")
    assert read_file(fs, f"{root}/m") == b"two!"
    assert fs.listdir(root) == ["m"]


def test_memory_crash_drops_unsynced_bytes_and_closes_handles() -> None:
    fs = MemoryFileSystem()
    durable = fs.open_append("/durable")
    durable.write(b"safe")
    durable.fsync()
    durable.write(b"lost")
    never = fs.open_append("/never")
    never.write(b"gone")
    fs.crash()
    assert durable.closed and never.closed
    assert read_file(fs, "/durable") == b"safe"
    assert read_file(fs, "/never") == b""


def test_memory_truncate_lowers_durable_length() -> None:
    fs = MemoryFileSystem()
    handle = fs.open_append("/f")
    handle.write(b"0123456789")
    handle.fsync()
    handle.truncate(3)
    handle.write(b"abc")
    fs.crash()
    assert read_file(fs, "/f") == b"012"


def test_memory_requires_parent_directory() -> None:
    fs = MemoryFileSystem()
    with pytest.raises(FileNotFoundError):
        fs.open_append("/no/such/file")
    fs.makedirs("/no/such")
    fs.open_append("no/such/file").close()
    assert fs.exists("/no/such/file")
