"""The controller mutation quota (``controller_mutation_rate``) of the requests that create, grow or
delete topics, as Kafka applies it (`odradek.security.quotas.MutationQuota`; checked with
compat-tests/probes/quota_enforcement.py): the versions since ``strict_since`` refuse a topic met with
an exhausted quota (THROTTLING_QUOTA_EXCEEDED), older ones are only throttled; a throttled answer
carries the throttle time and its connection takes no further request for that long."""

from __future__ import annotations

from typing import TypeVar

from odradek.handlers.context import RequestContext
from odradek.security.quotas import MutationQuota
from odradek.wire.schema import StructValue

__all__ = ["mutation_quota", "throttled"]

Answer = TypeVar("Answer", bound=StructValue)


def mutation_quota(ctx: RequestContext, strict_since: int) -> MutationQuota | None:
    """This request's quota, None when no quota applies to its user and client id."""
    if not ctx.security.quotas:
        return None
    user, client_id = ctx.identity.principal.name, ctx.header.client_id or ""
    return ctx.security.throttle.mutation_quota(user, client_id, strict=ctx.version >= strict_since)


def throttled(ctx: RequestContext, quota: MutationQuota | None, answer: Answer) -> Answer:
    """``answer`` with the quota's throttle time, the connection muted for as long."""
    if quota is not None and quota.throttle_ms > 0:
        answer.throttle_time_ms = quota.throttle_ms  # type: ignore[attr-defined]
        ctx.connection.mute(ctx.security.throttle.delay(quota.throttle_ms))
    return answer
