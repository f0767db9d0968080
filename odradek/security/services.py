"""What handlers reach of security: the authorizer with its ACLs, the SCRAM credentials, the client
quotas and their throttling.  The broker builds one `SecurityServices` at start-up; without security
settings it is permissive (no authorizer) with empty stores."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from odradek.clock import Clock, SystemClock
from odradek.security.authorizer import ACLS_FILE, Authorizer
from odradek.security.quota_store import QUOTAS_FILE, QuotaStore
from odradek.security.quotas import QuotaManager
from odradek.security.scram_store import SCRAM_FILE, ScramStore
from odradek.storage.filesystem import FileSystem, MemoryFileSystem

__all__ = ["SecurityServices"]


@dataclass(frozen=True, slots=True)
class SecurityServices:
    authorizer: Authorizer
    scram: ScramStore
    quotas: QuotaStore
    throttle: QuotaManager = field(repr=False)

    @classmethod
    def open(cls, fs: FileSystem, data_dir: str, settings: Mapping[str, str], clock: Clock) -> SecurityServices:
        """The stores of the data directory ``data_dir``, loaded."""
        authorizer = Authorizer(fs, f"{data_dir}/{ACLS_FILE}", settings)
        scram = ScramStore(fs, f"{data_dir}/{SCRAM_FILE}")
        quotas = QuotaStore(fs, f"{data_dir}/{QUOTAS_FILE}")
        for store in (authorizer, scram, quotas):
            store.load()
        return cls(authorizer, scram, quotas, QuotaManager(quotas, clock, settings))

    @classmethod
    def permissive(cls) -> SecurityServices:
        """No authorizer, empty in-memory stores (handler tests that configure no security)."""
        return cls.open(MemoryFileSystem(), "/security", {}, SystemClock())
