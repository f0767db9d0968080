"""The refusal Kafka's controller words for a request the broker forwarded to it.

A combined-mode Kafka node forwards the controller's APIs (ElectLeaders, the reassignment APIs,
UnregisterBroker, UnregisterController) to its controller inside an envelope; a principal without
the ACL gets CLUSTER_AUTHORIZATION_FAILED with a message that prints the forwarded request
("Request Request(...) needs ALTER permission.").  The request's printout is Kafka's internal
Java text (buffer positions included); odradek's names the listener, protocol and principal in
the same frame, and the operation exactly (compat-tests/probes compares the frame and the
operation, sequence secured.admin_refusals).
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext

__all__ = ["needs_permission"]


def needs_permission(ctx: RequestContext, operation: str) -> str:
    """``Request Request(...) needs <operation> permission.`` for this request."""
    identity = ctx.connection.identity
    return (
        f"Request Request(<connection>, listenerName=ListenerName({identity.listener}), "
        f"securityProtocol={identity.protocol}, principal={identity.principal}) needs {operation} permission."
    )
