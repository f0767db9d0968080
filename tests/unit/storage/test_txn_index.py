"""The transaction index (.txnindex): Kafka's 34-byte entries, searches, truncation, reloads."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from odradek.storage.filesystem import read_file
from odradek.storage.txn_index import AbortedTxn, CorruptTxnIndexError, TransactionIndex, TxnIndexSearch


def _index(backend: Any, start: int = 0) -> TransactionIndex:
    return TransactionIndex(backend.fs, f"{backend.root}/00000000000000000000.txnindex", start)


A = AbortedTxn(producer_id=1, first_offset=0, last_offset=10, last_stable_offset=11)
B = AbortedTxn(producer_id=2, first_offset=5, last_offset=20, last_stable_offset=11)
C = AbortedTxn(producer_id=3, first_offset=21, last_offset=30, last_stable_offset=31)


def test_file_holds_kafkas_entries(backend: Any) -> None:
    index = _index(backend)
    assert not backend.fs.exists(index.path)
    index.append(A)
    index.append(B)
    index.flush()
    assert read_file(backend.fs, index.path) == struct.pack(">hqqqq", 0, 1, 0, 10, 11) + struct.pack(
        ">hqqqq", 0, 2, 5, 20, 11
    )
    assert len(index) == 2 and list(index) == [A, B]


def test_reload_reads_the_entries_and_drops_a_torn_tail(backend: Any) -> None:
    index = _index(backend)
    for txn in (A, B):
        index.append(txn)
    handle = backend.fs.open_append(index.path)
    handle.write(b"\x00\x00\x00\x00\x00")
    handle.close()
    reloaded = _index(backend)
    assert list(reloaded) == [A, B]
    reloaded.append(C)
    assert read_file(backend.fs, index.path) == A.to_bytes() + B.to_bytes() + C.to_bytes()


def test_last_offsets_must_increase(backend: Any) -> None:
    index = _index(backend)
    index.append(B)
    with pytest.raises(ValueError):
        index.append(A)
    with pytest.raises(ValueError):
        index.append(AbortedTxn(9, 0, 20, 0))
    assert list(index) == [B]


def test_collect_overlapping_aborts(backend: Any) -> None:
    index = _index(backend)
    for txn in (A, B, C):
        index.append(txn)
    # A's and B's LSO (11) do not reach the upper bound 12: C is looked at, and its LSO ends the search.
    assert index.collect(0, 12) == TxnIndexSearch((A, B), True)
    # No LSO reaches 32: the caller must search the next segments too.
    assert index.collect(0, 32) == TxnIndexSearch((A, B, C), False)
    # A's LSO reaches the upper bound 11: the search stops there.
    assert index.collect(0, 11) == TxnIndexSearch((A,), True)
    assert index.collect(11, 25) == TxnIndexSearch((B, C), True)
    assert index.collect(31, 40) == TxnIndexSearch((), False)
    assert index.collect(21, 21) == TxnIndexSearch((), True)


def test_truncate_drops_transactions_ending_at_or_after_the_offset(backend: Any) -> None:
    index = _index(backend)
    for txn in (A, B, C):
        index.append(txn)
    index.truncate_to(21)
    assert list(index) == [A, B]
    index.truncate_to(20)
    assert list(index) == [A]
    assert list(_index(backend)) == [A]
    index.append(C)
    assert list(_index(backend)) == [A, C]
    index.truncate_to(100)
    assert list(index) == [A, C]
    index.reset()
    assert list(index) == [] and read_file(backend.fs, index.path) == b""


def test_sanity_check(backend: Any) -> None:
    index = _index(backend, start=10)
    index.append(A)
    index.sanity_check()
    index.truncate_to(0)
    index.append(AbortedTxn(1, 0, 9, 9))
    with pytest.raises(CorruptTxnIndexError):
        index.sanity_check()


def test_unknown_entry_version_is_refused(backend: Any) -> None:
    index = _index(backend)
    index.append(A)
    handle = backend.fs.open_append(index.path)
    handle.write(struct.pack(">hqqqq", 1, 2, 20, 30, 31))
    handle.close()
    with pytest.raises(CorruptTxnIndexError):
        _index(backend)


def test_delete(backend: Any) -> None:
    index = _index(backend)
    index.append(A)
    index.delete()
    assert not backend.fs.exists(index.path) and len(index) == 0
    index.flush()
    assert not backend.fs.exists(index.path)
