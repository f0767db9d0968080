"""What the peer brokers (Tansu, kfake) share: they are reported beside odradek but never gate a run.

A peer's launcher raises ``PeerUnavailable`` when the peer cannot be had on this machine (no Go
toolchain, the package cannot be downloaded, the binary does not run). The reason is printed loudly
and the peer's column is skipped; a missing or failing peer never makes the matrix fail.
"""

from __future__ import annotations


class PeerUnavailable(RuntimeError):
    """The peer broker cannot be obtained or started on this machine; the message says why."""
