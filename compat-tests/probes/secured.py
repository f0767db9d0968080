"""Probe sequences that need the secured broker of harness/security.py (both brokers get the same
listeners, users, certificates and StandardAuthorizer): the SASL exchange and what each broker does
with a client that breaks it, and the ACL APIs with their refusals and filters.

A secured sequence gets a session on the PLAINTEXT listener (the super user) and, in ``names``,
``addr:<LISTENER>`` for each listener; it opens more sessions that record into the same list."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from typing import Any

from harness.security import unsecured_jwt
from scramp import ScramClient

from odradek.wire.api import ApiKey
from probes.groups import topic_with, until
from probes.session import Session

__all__ = ["SECURED_SEQUENCES"]

TOPIC, GROUP, CLUSTER = 2, 3, 4
ANY, MATCH, LITERAL, PREFIXED = 1, 2, 3, 4
ALL, READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE = 2, 3, 4, 5, 6, 7, 8
DENY, ALLOW = 2, 3


def _sasl_session(s: Session, names: dict[str, str]) -> Session:
    return Session(names["addr:SASL_PLAINTEXT"], observations=s.observations)


def _plain(user: str, password: str) -> bytes:
    return f"\0{user}\0{password}".encode()


def _masked(s: Session) -> None:
    """SCRAM answers carry random nonces and signatures: keep only that there were bytes."""
    observation = s.observations[-1]
    if isinstance(observation.response, dict) and observation.response.get("auth_bytes"):
        observation.response = {**observation.response, "auth_bytes": "<scram>"}


def _versions_answered(s: Session) -> None:
    """Keep of an ApiVersions answer only that it came and what it says of SASL: its whole content
    (features, every API's range) is the version probes' subject, not this one's."""
    observation = s.observations[-1]
    response = observation.response
    if isinstance(response, dict) and "api_keys" in response:
        sasl = [k for k in response["api_keys"] if k["api_key"] in (ApiKey.SASL_HANDSHAKE, ApiKey.SASL_AUTHENTICATE)]
        observation.response = {"error_code": response["error_code"], "sasl_api_keys": sasl}


def sasl_refusals(s: Session, names: dict[str, str]) -> None:
    sessions: list[Session] = []

    def fresh() -> Session:
        session = _sasl_session(s, names)
        sessions.append(session)
        return session

    try:
        fresh().call_or_closed("metadata before authentication", ApiKey.METADATA, 12, topics=None)
        fresh().call_or_closed("sasl authenticate before the handshake", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=b"x")
        one = fresh()
        one.call_or_closed(
            "api versions", ApiKey.API_VERSIONS, 3, client_software_name="probe", client_software_version="1"
        )
        _versions_answered(one)
        one.call_or_closed(
            "api versions again", ApiKey.API_VERSIONS, 3, client_software_name="probe", client_software_version="1"
        )
        two = fresh()
        two.call_or_closed("handshake, unknown mechanism", ApiKey.SASL_HANDSHAKE, 1, mechanism="NOPE")
        two.call_or_closed("metadata after the refused handshake", ApiKey.METADATA, 12, topics=None)
        three = fresh()
        three.call_or_closed("handshake PLAIN", ApiKey.SASL_HANDSHAKE, 1, mechanism="PLAIN")
        three.call_or_closed("metadata during authentication", ApiKey.METADATA, 12, topics=None)
        four = fresh()
        four.call_or_closed("handshake PLAIN", ApiKey.SASL_HANDSHAKE, 1, mechanism="PLAIN")
        four.call_or_closed(
            "api versions during authentication",
            ApiKey.API_VERSIONS,
            3,
            client_software_name="p",
            client_software_version="1",
        )
        for label, token in (
            ("wrong password", _plain("alice", "nope")),
            ("unknown user", _plain("mallory", "x")),
            ("two tokens", b"alice\0alice-secret"),
            ("empty user", _plain("", "x")),
            ("empty password", _plain("alice", "")),
            ("another authorization id", b"bob\0alice\0alice-secret"),
        ):
            session = fresh()
            session.call_or_closed("handshake PLAIN", ApiKey.SASL_HANDSHAKE, 1, mechanism="PLAIN")
            session.call_or_closed(f"authenticate: {label}", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=token)
            session.call_or_closed(f"metadata after {label}", ApiKey.METADATA, 12, topics=[])
    finally:
        for session in sessions:
            session.close()


def sasl_plain_flows(s: Session, names: dict[str, str]) -> None:
    for version in (0, 1, 2):
        session = _sasl_session(s, names)
        try:
            session.call_or_closed(
                f"handshake v1 (authenticate v{version})", ApiKey.SASL_HANDSHAKE, 1, mechanism="PLAIN"
            )
            session.call_or_closed(
                f"authenticate v{version}",
                ApiKey.SASL_AUTHENTICATE,
                version,
                auth_bytes=_plain("alice", "alice-secret"),
            )
            session.call_or_closed("metadata once authenticated", ApiKey.METADATA, 12, topics=[])
            session.call_or_closed("authenticate again", ApiKey.SASL_AUTHENTICATE, version, auth_bytes=b"x")
            session.call_or_closed("re-authentication handshake", ApiKey.SASL_HANDSHAKE, 1, mechanism="PLAIN")
            session.call_or_closed(
                "re-authenticate", ApiKey.SASL_AUTHENTICATE, version, auth_bytes=_plain("alice", "alice-secret")
            )
            session.call_or_closed("metadata after re-authentication", ApiKey.METADATA, 12, topics=[])
        finally:
            session.close()
    legacy = _sasl_session(s, names)
    try:
        legacy.call_or_closed("handshake v0", ApiKey.SASL_HANDSHAKE, 0, mechanism="PLAIN")
        legacy.raw("raw PLAIN token", _plain("alice", "alice-secret"))
        legacy.call_or_closed("metadata after the raw token", ApiKey.METADATA, 12, topics=[])
    finally:
        legacy.close()
    bad = _sasl_session(s, names)
    try:
        bad.call_or_closed("handshake v0", ApiKey.SASL_HANDSHAKE, 0, mechanism="PLAIN")
        bad.raw("raw PLAIN token, wrong password", _plain("alice", "wrong"))
    finally:
        bad.close()
    switch = _sasl_session(s, names)
    try:
        switch.call_or_closed("handshake", ApiKey.SASL_HANDSHAKE, 1, mechanism="PLAIN")
        switch.call_or_closed(
            "authenticate alice", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=_plain("alice", "alice-secret")
        )
        switch.call_or_closed("re-authentication handshake", ApiKey.SASL_HANDSHAKE, 1, mechanism="PLAIN")
        switch.call_or_closed(
            "re-authenticate as bob", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=_plain("bob", "bob-secret")
        )
        switch.call_or_closed("metadata after the refused switch", ApiKey.METADATA, 12, topics=[])
    finally:
        switch.close()


def sasl_scram_flows(s: Session, names: dict[str, str]) -> None:
    for mechanism, user, password in (
        ("SCRAM-SHA-256", "carol", "carol-secret"),
        ("SCRAM-SHA-512", "carol", "wrong"),
        ("SCRAM-SHA-256", "nobody", "x"),
    ):
        session = _sasl_session(s, names)
        try:
            session.call_or_closed(f"handshake {mechanism}", ApiKey.SASL_HANDSHAKE, 1, mechanism=mechanism)
            client = ScramClient([mechanism], user, password)
            first = session.call_or_closed(
                f"client-first {user}", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=client.get_client_first().encode()
            )
            _masked(session)
            if first.get("error_code") != 0:
                session.call_or_closed("metadata after the refused client-first", ApiKey.METADATA, 12, topics=[])
                continue
            client.set_server_first(bytes.fromhex(first["auth_bytes"]).decode())
            final = client.get_client_final()
            session.call_or_closed(f"client-final {user}", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=final.encode())
            _masked(session)
            session.call_or_closed("metadata after client-final", ApiKey.METADATA, 12, topics=[])
        finally:
            session.close()
    replay = _sasl_session(s, names)
    try:
        replay.call_or_closed("handshake", ApiKey.SASL_HANDSHAKE, 1, mechanism="SCRAM-SHA-256")
        replay.call_or_closed(
            "client-final without a client-first", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=b"c=biws,r=abc,p=AAAA"
        )
    finally:
        replay.close()


def _acl(
    kind: int, name: str, pattern: int, principal: str, operation: int, permission: int, host: str = "*"
) -> dict[str, Any]:
    return {
        "resource_type": kind,
        "resource_name": name,
        "resource_pattern_type": pattern,
        "principal": principal,
        "host": host,
        "operation": operation,
        "permission_type": permission,
    }


def _filter(
    kind: int = ANY,
    name: str | None = None,
    pattern: int = ANY,
    principal: str | None = None,
    operation: int = ANY,
    permission: int = ANY,
) -> dict[str, Any]:
    return {
        "resource_type_filter": kind,
        "resource_name_filter": name,
        "pattern_type_filter": pattern,
        "principal_filter": principal,
        "host_filter": None,
        "operation": operation,
        "permission_type": permission,
    }


def _until_acls(s: Session, principal: str, count: int) -> None:
    """Wait until ``principal`` holds ``count`` ACLs (a readiness request, not recorded: Kafka applies
    CreateAcls through its metadata log, a moment after answering)."""

    def applied() -> bool:
        found = s.call("describe", ApiKey.DESCRIBE_ACLS, 3, **_filter(ANY, None, ANY, principal))
        return sum(len(r["acls"]) for r in found["resources"]) == count

    until(s, applied, "the ACLs to apply")


def acl_apis(s: Session, names: dict[str, str]) -> None:
    topic, group = names["topic"], names["group"]
    s.call(
        "create acls: refusals",
        ApiKey.CREATE_ACLS,
        3,
        creations=[
            _acl(CLUSTER, "other-cluster", LITERAL, "User:alice", ALTER, ALLOW),
            _acl(TOPIC, "", LITERAL, "User:alice", READ, ALLOW),
            _acl(TOPIC, topic, LITERAL, "alice", READ, ALLOW),
        ],
    )
    for label, creation in (
        ("pattern ANY", _acl(TOPIC, topic, ANY, "User:alice", READ, ALLOW)),
        ("pattern MATCH", _acl(TOPIC, topic, MATCH, "User:alice", READ, ALLOW)),
        ("operation ANY", _acl(TOPIC, topic, LITERAL, "User:alice", ANY, ALLOW)),
        ("permission ANY", _acl(TOPIC, topic, LITERAL, "User:alice", READ, ANY)),
        ("resource type ANY", _acl(ANY, topic, LITERAL, "User:alice", READ, ALLOW)),
        ("resource type UNKNOWN", _acl(0, topic, LITERAL, "User:alice", READ, ALLOW)),
        ("operation 99", _acl(TOPIC, topic, LITERAL, "User:alice", 99, ALLOW)),
        ("pattern UNKNOWN", _acl(TOPIC, topic, 0, "User:alice", READ, ALLOW)),
        ("permission UNKNOWN", _acl(TOPIC, topic, LITERAL, "User:alice", READ, 0)),
    ):
        alone = Session(s.bootstrap, observations=s.observations)
        try:
            alone.call_or_closed(f"create acls: {label}", ApiKey.CREATE_ACLS, 3, creations=[creation])
        finally:
            alone.close()
    s.call(
        "create acls",
        ApiKey.CREATE_ACLS,
        3,
        creations=[
            _acl(TOPIC, topic, LITERAL, "User:alice", READ, ALLOW),
            _acl(TOPIC, topic, LITERAL, "User:alice", READ, ALLOW),
            _acl(TOPIC, f"{topic}-", PREFIXED, "User:bob", WRITE, ALLOW),
            _acl(TOPIC, topic, LITERAL, "User:bob", WRITE, DENY, host="127.0.0.1"),
            _acl(GROUP, group, LITERAL, "User:alice", READ, ALLOW),
            _acl(CLUSTER, "kafka-cluster", LITERAL, "User:bob", DESCRIBE, ALLOW),
        ],
    )
    for label, query in (
        ("everything of this run's topic", _filter(TOPIC, topic, ANY)),
        ("literal only", _filter(TOPIC, topic, LITERAL)),
        ("match", _filter(TOPIC, f"{topic}-x", MATCH)),
        ("prefixed", _filter(TOPIC, None, PREFIXED, "User:bob")),
        ("bob", _filter(ANY, None, ANY, "User:bob")),
        ("deny only", _filter(TOPIC, topic, ANY, None, ANY, DENY)),
        ("group", _filter(GROUP, group, LITERAL)),
        ("cluster", _filter(CLUSTER, None, ANY, "User:bob")),
    ):
        s.call(f"describe acls: {label}", ApiKey.DESCRIBE_ACLS, 3, **query)
    for label, query in (
        ("unknown resource type", _filter(0)),
        ("unknown pattern type", _filter(TOPIC, topic, 0)),
        ("unknown operation", _filter(TOPIC, topic, ANY, None, 0)),
        ("unknown permission", _filter(TOPIC, topic, ANY, None, ANY, 0)),
    ):
        alone = Session(s.bootstrap, observations=s.observations)
        try:
            alone.call_or_closed(f"describe acls: {label}", ApiKey.DESCRIBE_ACLS, 3, **query)
        finally:
            alone.close()
    for version in (1, 2):
        s.call(f"describe acls v{version}", ApiKey.DESCRIBE_ACLS, version, **_filter(TOPIC, topic, LITERAL))
    s.call(
        "delete acls",
        ApiKey.DELETE_ACLS,
        3,
        filters=[
            _filter(TOPIC, topic, LITERAL, "User:alice", READ, ALLOW),
            _filter(TOPIC, None, PREFIXED, "User:bob"),
            _filter(TOPIC, "nothing-here", LITERAL),
        ],
    )
    s.call(
        "delete the rest",
        ApiKey.DELETE_ACLS,
        3,
        filters=[_filter(TOPIC, topic, ANY), _filter(GROUP, group, ANY), _filter(CLUSTER, None, ANY, "User:bob")],
    )
    s.call("describe acls: nothing left", ApiKey.DESCRIBE_ACLS, 3, **_filter(TOPIC, topic, ANY))


def _lifetime_bounded(s: Session, lifetime_ms: int) -> None:
    """A session lifetime counts down from the token's expiry while the probe runs: keep whether it
    lies within the last minute before that expiry (0 stays 0)."""
    observation = s.observations[-1]
    response = observation.response
    if isinstance(response, dict) and response.get("session_lifetime_ms"):
        within = lifetime_ms - 60_000 < response["session_lifetime_ms"] <= lifetime_ms
        observation.response = {**response, "session_lifetime_ms": "<token expiry>" if within else "<other>"}


def sasl_oauth_flows(s: Session, names: dict[str, str]) -> None:
    """OAUTHBEARER with Kafka's unsecured tokens: the token's expiry is the session's lifetime (no
    connections.max.reauth.ms on this listener), an expired token is refused with a challenge, and
    a request after a short token expired closes the connection."""
    for version, lifetime_s in ((2, 3600), (1, 3600), (0, 3600)):
        session = _sasl_session(s, names)
        try:
            session.call_or_closed(
                f"handshake (authenticate v{version})", ApiKey.SASL_HANDSHAKE, 1, mechanism="OAUTHBEARER"
            )
            token = unsecured_jwt("alice", lifetime_s)
            session.call_or_closed(
                f"authenticate v{version}",
                ApiKey.SASL_AUTHENTICATE,
                version,
                auth_bytes=f"n,,\x01auth=Bearer {token}\x01\x01".encode(),
            )
            _lifetime_bounded(session, lifetime_s * 1000)
            session.call_or_closed("metadata once authenticated", ApiKey.METADATA, 12, topics=[])
        finally:
            session.close()
    expired = _sasl_session(s, names)
    try:
        expired.call_or_closed("handshake", ApiKey.SASL_HANDSHAKE, 1, mechanism="OAUTHBEARER")
        token = unsecured_jwt("alice", -60)
        expired.call_or_closed(
            "expired token", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=f"n,,\x01auth=Bearer {token}\x01\x01".encode()
        )
        expired.call_or_closed("acknowledge the error challenge", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=b"\x01")
    finally:
        expired.close()
    short = _sasl_session(s, names)
    try:
        short.call_or_closed("handshake", ApiKey.SASL_HANDSHAKE, 1, mechanism="OAUTHBEARER")
        token = unsecured_jwt("alice", 3)
        short.call_or_closed(
            "token of 3 s", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=f"n,,\x01auth=Bearer {token}\x01\x01".encode()
        )
        _lifetime_bounded(short, 3000)
        time.sleep(4.5)
        short.call_or_closed("metadata after the token expired", ApiKey.METADATA, 12, topics=[])
    finally:
        short.close()


def _raw_unsecured_jwt(claims: str) -> str:
    """An unsecured JWS whose claims are ``claims`` as written (JSON that a strict parser may refuse)."""

    def part(text: str) -> str:
        return base64.urlsafe_b64encode(text.encode()).decode("ascii").rstrip("=")

    return f"{part(json.dumps({'alg': 'none'}))}.{part(claims)}."


def sasl_oauth_literals(s: Session, names: dict[str, str]) -> None:
    """OAUTHBEARER tokens whose claims hold JSON's non-standard literals (Infinity, -Infinity, NaN) or
    a number no double holds: what the broker's JSON parser makes of them."""
    now = int(time.time())
    for label, claims in (
        ("exp Infinity", f'{{"sub": "alice", "iat": {now}, "exp": Infinity}}'),
        ("exp -Infinity", f'{{"sub": "alice", "iat": {now}, "exp": -Infinity}}'),
        ("exp NaN", f'{{"sub": "alice", "iat": {now}, "exp": NaN}}'),
        ("iat Infinity", f'{{"sub": "alice", "iat": Infinity, "exp": {now + 3600}}}'),
        ("exp 1e400", f'{{"sub": "alice", "iat": {now}, "exp": 1e400}}'),
    ):
        session = _sasl_session(s, names)
        try:
            session.call_or_closed(f"handshake ({label})", ApiKey.SASL_HANDSHAKE, 1, mechanism="OAUTHBEARER")
            token = _raw_unsecured_jwt(claims)
            auth = f"n,,\x01auth=Bearer {token}\x01\x01".encode()
            session.call_or_closed(f"authenticate ({label})", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=auth)
            session.call_or_closed(f"acknowledge ({label})", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=b"\x01")
        finally:
            session.close()


def _authenticated(s: Session, names: dict[str, str], user: str) -> Session:
    session = _sasl_session(s, names)
    session.call("handshake", ApiKey.SASL_HANDSHAKE, 1, mechanism="PLAIN")
    session.call("authenticate", ApiKey.SASL_AUTHENTICATE, 2, auth_bytes=_plain(user, f"{user}-secret"))
    del session.observations[-2:]
    return session


def acl_matrix(s: Session, names: dict[str, str]) -> None:
    """What alice may do under a few ACLs, asked with raw requests: allowed, denied, prefixed,
    deny over allow, describe implied, and the authorized-operations bitfields."""
    run = names["topic"]
    allowed, denied, prefixed, blocked = f"{run}-allowed", f"{run}-denied", f"{run}-p-one", f"{run}-p-blocked"
    group, other_group = names["group"], names["other"]
    for topic in (allowed, denied, prefixed, blocked):
        topic_with(s, topic, 1)
    acls = [
        _acl(TOPIC, allowed, LITERAL, "User:alice", READ, ALLOW),
        _acl(TOPIC, allowed, LITERAL, "User:alice", WRITE, ALLOW),
        _acl(TOPIC, f"{run}-p-", PREFIXED, "User:alice", WRITE, ALLOW),
        _acl(TOPIC, blocked, LITERAL, "User:alice", WRITE, DENY),
        _acl(TOPIC, denied, LITERAL, "User:bob", ALL, ALLOW),
        _acl(GROUP, group, LITERAL, "User:alice", READ, ALLOW),
    ]
    s.call("create acls", ApiKey.CREATE_ACLS, 3, creations=acls)
    _until_acls(s, "User:alice", 5)
    alice = _authenticated(s, names, "alice")
    try:
        every = alice.call(
            "metadata: every topic",
            ApiKey.METADATA,
            12,
            topics=None,
            include_topic_authorized_operations=True,
        )
        every["topics"] = sorted((t for t in every["topics"] if t["name"].startswith(run)), key=lambda t: t["name"])
        alice.call(
            "metadata: named",
            ApiKey.METADATA,
            12,
            topics=[{"name": t} for t in (denied, prefixed, f"{run}-missing", allowed)],
            allow_auto_topic_creation=True,
            include_topic_authorized_operations=True,
        )
        record = _records()
        for topic in (allowed, denied, prefixed, blocked):
            alice.call(
                f"produce to {topic[len(run) :]}",
                ApiKey.PRODUCE,
                9,
                acks=1,
                timeout_ms=5000,
                topic_data=[{"name": topic, "partition_data": [{"index": 0, "records": record}]}],
            )
            alice.call(
                f"list offsets of {topic[len(run) :]}",
                ApiKey.LIST_OFFSETS,
                7,
                replica_id=-1,
                isolation_level=0,
                topics=[{"name": topic, "partitions": [{"partition_index": 0, "timestamp": -1}]}],
            )
        for key in (group, other_group):
            alice.call(f"find coordinator {key == group}", ApiKey.FIND_COORDINATOR, 3, key=key, key_type=0)
        until(
            alice,
            lambda: (
                alice.call("describe", ApiKey.DESCRIBE_GROUPS, 5, groups=[group])["groups"][0]["error_code"]
                not in (14, 15, 16)
            ),
            "the group coordinator",
        )
        alice.call(
            "describe groups",
            ApiKey.DESCRIBE_GROUPS,
            5,
            groups=[group, other_group],
            include_authorized_operations=True,
        )
        alice.call("list groups", ApiKey.LIST_GROUPS, 4, states_filter=[])
        alice.call(
            "create topics",
            ApiKey.CREATE_TOPICS,
            7,
            topics=[
                {"name": f"{run}-new", "num_partitions": 1, "replication_factor": 1, "assignments": [], "configs": []}
            ],
            timeout_ms=5000,
        )
        alice.call(
            "delete topics", ApiKey.DELETE_TOPICS, 6, topics=[{"name": allowed}, {"name": denied}], timeout_ms=5000
        )
        alice.call(
            "describe configs",
            ApiKey.DESCRIBE_CONFIGS,
            4,
            resources=[
                {"resource_type": 2, "resource_name": allowed, "configuration_keys": ["retention.ms"]},
                {"resource_type": 4, "resource_name": "1", "configuration_keys": ["log.retention.ms"]},
            ],
            include_synonyms=False,
            include_documentation=False,
        )
        alice.call("describe cluster", ApiKey.DESCRIBE_CLUSTER, 1, include_cluster_authorized_operations=True)
        alice.call("describe acls", ApiKey.DESCRIBE_ACLS, 3, **_filter())
    finally:
        alice.close()
    s.call(
        "delete the ACLs",
        ApiKey.DELETE_ACLS,
        3,
        filters=[_filter(ANY, None, ANY, "User:alice"), _filter(ANY, None, ANY, "User:bob")],
    )


def _records() -> bytes:
    from odradek.wire.records.builder import build_batch
    from odradek.wire.records.record import Record

    return build_batch([Record(offset_delta=0, timestamp_delta=0, key=None, value=b"v")], base_timestamp=1)


SECURED_SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "secured.sasl_refusals": sasl_refusals,
    "secured.sasl_plain_flows": sasl_plain_flows,
    "secured.sasl_scram_flows": sasl_scram_flows,
    "secured.sasl_oauth_flows": sasl_oauth_flows,
    "secured.sasl_oauth_literals": sasl_oauth_literals,
    "secured.acl_apis": acl_apis,
    "secured.acl_matrix": acl_matrix,
}
