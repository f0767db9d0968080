"""Security: listeners and TLS, SASL authentication, principals, ACLs and the authorizer, client quotas
and connection limits, with Apache Kafka's settings and semantics.

The connection side (TLS handshakes, the SASL exchange before any other request, limits) runs in
`odradek.server` through the small gate protocols defined there; the logic lives here, sans-IO,
and handlers reach the authorizer and the stores through `odradek.handlers.context`.
"""
