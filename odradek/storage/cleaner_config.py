"""The log cleaner's broker-wide settings.

They live apart from `odradek.storage.cleaner` so that the broker and the log manager can hold
them without importing the cleaner: a broker imports the cleaner at its first compaction pass,
that is only once a compacted log exists.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BYTES_PER_ENTRY", "CleanerConfig"]

BYTES_PER_ENTRY = 24
"""What one offset map entry costs in Kafka's accounting (a 16-byte MD5 of the key and an
8-byte offset).  The map here holds the keys themselves, so its real memory use differs."""


@dataclass(frozen=True, slots=True)
class CleanerConfig:
    """The broker's cleaner settings (Kafka's names and defaults, one cleaner thread)."""

    dedupe_buffer_size: int = 128 * 1024 * 1024
    """``log.cleaner.dedupe.buffer.size``."""
    load_factor: float = 0.9
    """``log.cleaner.io.buffer.load.factor``: how full the offset map may get."""

    @property
    def max_keys(self) -> int:
        """Distinct keys one pass may map (at least one, so every pass progresses)."""
        return max(1, int(self.dedupe_buffer_size // BYTES_PER_ENTRY * self.load_factor))
