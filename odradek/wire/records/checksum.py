"""CRC-32C (Castagnoli), the checksum of record batches and producer-state snapshots.

It comes from the ``crc32c`` package, imported on the first checksum: importing that package
reads its own version through ``importlib.metadata`` (about 15 ms, most of an embedded
broker's start-up budget), which a broker that has not seen a batch yet need not pay.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["crc32c"]

Buffer = bytes | bytearray | memoryview

_native: Callable[[Buffer], int] | None = None


def crc32c(data: Buffer) -> int:
    """The CRC-32C of ``data``."""
    global _native
    if _native is None:
        from crc32c import crc32c as loaded

        _native = loaded
    return _native(data)
