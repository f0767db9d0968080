"""`Dispatcher.may_wait`: which frames may hold their answer back, read from the API key's two
bytes as a signed big-endian short (a frame too short to hold one counts as one that may wait)."""

from __future__ import annotations

import struct

import pytest

from odradek.handlers.dispatch import Dispatcher
from odradek.wire.api import ApiKey

_KEY = struct.Struct(">h")


@pytest.mark.parametrize("key", [ApiKey.FETCH, ApiKey.JOIN_GROUP, ApiKey.SYNC_GROUP])
def test_a_long_poll_or_a_rebalance_barrier_may_wait(key: int) -> None:
    assert Dispatcher.may_wait(bytearray(_KEY.pack(key) + b"\x00\x0c"))


@pytest.mark.parametrize("key", [ApiKey.PRODUCE, ApiKey.METADATA, ApiKey.HEARTBEAT, ApiKey.API_VERSIONS])
def test_other_requests_do_not(key: int) -> None:
    assert not Dispatcher.may_wait(bytearray(_KEY.pack(key) + b"\x00\x0c"))


@pytest.mark.parametrize("key", [0x0100 | ApiKey.FETCH, 0x0E00 | ApiKey.SYNC_GROUP, -256 + ApiKey.JOIN_GROUP, -1])
def test_keys_whose_low_byte_names_a_waiting_api_do_not(key: int) -> None:
    assert not Dispatcher.may_wait(bytearray(_KEY.pack(key)))


@pytest.mark.parametrize("frame", [b"", b"\x00"])
def test_a_frame_too_short_for_a_key_counts_as_one_that_may_wait(frame: bytes) -> None:
    assert Dispatcher.may_wait(bytearray(frame))
