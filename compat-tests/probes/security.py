"""Probe sequences for the security APIs a broker answers without any security configured: SCRAM
credentials (Describe/AlterUserScramCredentials), client quotas (Describe/AlterClientQuotas), the
ACL APIs without an authorizer, and SaslHandshake/SaslAuthenticate on a PLAINTEXT listener.

Every sequence removes what it created, so later sequences see a broker without users or quotas."""

from __future__ import annotations

from collections.abc import Callable

from odradek.wire.api import ApiKey
from probes.groups import until
from probes.session import Session

__all__ = ["SEQUENCES"]

SHA256, SHA512 = 1, 2
_SALT = bytes(range(16))
_SALTED = bytes(range(32))


def _scram_users_settle(s: Session, names: dict[str, str], expected: set[str]) -> None:
    """Kafka answers Describe from its metadata image, which follows an alter a moment later: wait
    (unrecorded) until this run's users are the expected ones."""

    def settled() -> bool:
        answer = s.call("describe everyone", ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, users=None)
        run = {r["user"] for r in answer["results"] if r["user"] in (names["group"], names["other"])}
        return run == expected

    until(s, settled, f"SCRAM users {sorted(expected)}")


def _quotas_settle(s: Session, count: int) -> None:
    """As `_scram_users_settle`, for the number of quota entities."""

    def settled() -> bool:
        answer = s.call("describe all", ApiKey.DESCRIBE_CLIENT_QUOTAS, 1, components=[], strict=False)
        return len(answer["entries"] or []) == count

    until(s, settled, f"{count} quota entities")


def _upsert(name: str, mechanism: int = SHA256, iterations: int = 4096, salted: bytes = _SALTED) -> dict[str, object]:
    return {"name": name, "mechanism": mechanism, "iterations": iterations, "salt": _SALT, "salted_password": salted}


def scram_credentials(s: Session, names: dict[str, str]) -> None:
    user, other = names["group"], names["other"]
    s.call("describe nothing stored, named", ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, users=[{"name": user}])
    s.call(
        "describe the same user twice",
        ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS,
        0,
        users=[{"name": user}, {"name": user}],
    )
    s.call(
        "alter: refusals",
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        0,
        deletions=[{"name": "", "mechanism": SHA256}, {"name": f"{other}-gone", "mechanism": SHA256}],
        upsertions=[
            _upsert(f"{other}-m0", mechanism=0),
            _upsert(f"{other}-m9", mechanism=9),
            _upsert(f"{other}-few", iterations=1),
            _upsert(f"{other}-many", iterations=20000),
            _upsert(f"{other}-empty", salted=b""),
        ],
    )
    s.call(
        "alter: the same user deleted and upserted",
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        0,
        deletions=[{"name": other, "mechanism": SHA256}],
        upsertions=[_upsert(other)],
    )
    s.call(
        "alter: two mechanisms of one user in one request",
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        0,
        deletions=[],
        upsertions=[_upsert(user), _upsert(user, SHA512, 8192)],
    )
    s.call("alter: upsert SHA-256", ApiKey.ALTER_USER_SCRAM_CREDENTIALS, 0, deletions=[], upsertions=[_upsert(user)])
    _scram_users_settle(s, names, {user})
    s.call(
        "alter: upsert SHA-512 and a second user",
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        0,
        deletions=[],
        upsertions=[_upsert(user, SHA512, 8192), _upsert(other, SHA512)],
    )
    _scram_users_settle(s, names, {user, other})
    s.call(
        "alter: the same user upserted and then deleted",
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        0,
        deletions=[{"name": other, "mechanism": SHA512}],
        upsertions=[_upsert(other)],
    )
    s.call("describe the user", ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, users=[{"name": user}])
    s.call(
        "describe a known and an unknown user",
        ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS,
        0,
        users=[{"name": user}, {"name": other}],
    )
    s.call("describe everyone (null)", ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, users=None)
    s.call("describe everyone (empty)", ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, users=[])
    s.call(
        "alter: delete one mechanism, and a mechanism the user lacks",
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        0,
        deletions=[{"name": user, "mechanism": SHA512}],
        upsertions=[],
    )
    until(
        s,
        lambda: (
            len(
                s.call("describe", ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, users=[{"name": user}])["results"][0][
                    "credential_infos"
                ]
            )
            == 1
        ),
        "one mechanism left",
    )
    s.call("describe after the deletion", ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, users=[{"name": user}])
    s.call(
        "alter: delete the last mechanism",
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        0,
        deletions=[{"name": user, "mechanism": SHA256}, {"name": user, "mechanism": SHA512}],
        upsertions=[],
    )
    s.call(
        "alter: delete the last mechanism, alone",
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        0,
        deletions=[{"name": user, "mechanism": SHA256}],
        upsertions=[],
    )
    _scram_users_settle(s, names, {other})
    s.call("describe the user gone", ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, users=[{"name": user}])
    s.call(
        "alter: delete the second user",
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        0,
        deletions=[{"name": other, "mechanism": SHA512}],
        upsertions=[],
    )
    s.call("alter nothing", ApiKey.ALTER_USER_SCRAM_CREDENTIALS, 0, deletions=[], upsertions=[])


def _entity(*pairs: tuple[str, str | None]) -> list[dict[str, object]]:
    return [{"entity_type": kind, "entity_name": name} for kind, name in pairs]


def _op(key: str, value: float = 0.0, remove: bool = False) -> dict[str, object]:
    return {"key": key, "value": value, "remove": remove}


def client_quotas(s: Session, names: dict[str, str]) -> None:
    user, client = names["group"], names["other"]
    for version in (0, 1):
        s.call(
            f"describe all users, nothing set, v{version}",
            ApiKey.DESCRIBE_CLIENT_QUOTAS,
            version,
            components=[{"entity_type": "user", "match_type": 2, "match": None}],
            strict=False,
        )
    s.call(
        "alter: refusals",
        ApiKey.ALTER_CLIENT_QUOTAS,
        1,
        entries=[
            {"entity": _entity(("user", f"{user}-bad")), "ops": [_op("no.such.quota", 1.0)]},
            {"entity": _entity(("user", f"{user}-neg")), "ops": [_op("producer_byte_rate", -5.0)]},
            {"entity": _entity(("user", f"{user}-frac")), "ops": [_op("producer_byte_rate", 1.5)]},
            {"entity": _entity(("nobody", "x")), "ops": [_op("producer_byte_rate", 100.0)]},
            {"entity": _entity(("ip", "not-an-ip")), "ops": [_op("connection_creation_rate", 10.0)]},
            {"entity": _entity(("ip", "127.0.0.1")), "ops": [_op("producer_byte_rate", 10.0)]},
            {"entity": _entity(("ip", "localhost")), "ops": [_op("producer_byte_rate", 10.0)]},
            {"entity": _entity(("ip", "127.0.0.2")), "ops": [_op("connection_creation_rate", 3e9)]},
            {"entity": _entity(("user", f"{user}-ip"), ("ip", "127.0.0.1")), "ops": [_op("producer_byte_rate", 10.0)]},
            {"entity": _entity(("user", f"{user}-ip2"), ("ip", "not-an-ip")), "ops": [_op("producer_byte_rate", 10.0)]},
            {"entity": _entity(("user", "")), "ops": [_op("producer_byte_rate", 10.0)]},
            {"entity": _entity(("user", f"{user}-rm")), "ops": [_op("no.such.quota", remove=True)]},
            {
                "entity": _entity(("user", f"{user}-two")),
                "ops": [_op("producer_byte_rate", -5.0), _op("consumer_byte_rate", 1.5)],
            },
            {"entity": _entity(("user", f"{user}-big")), "ops": [_op("producer_byte_rate", 1e19)]},
            {"entity": _entity(("user", f"{user}-negfrac")), "ops": [_op("consumer_byte_rate", -1.5)]},
            {"entity": [], "ops": [_op("producer_byte_rate", 10.0)]},
            {
                "entity": _entity(("client-id", client)),
                "ops": [_op("consumer_byte_rate", 5.0), _op("consumer_byte_rate", 6.0)],
            },
        ],
        validate_only=False,
    )
    s.call(
        "alter: validate only",
        ApiKey.ALTER_CLIENT_QUOTAS,
        1,
        entries=[{"entity": _entity(("user", user)), "ops": [_op("producer_byte_rate", 1024.0)]}],
        validate_only=True,
    )
    s.call(
        "alter: set user, client, user+client and defaults",
        ApiKey.ALTER_CLIENT_QUOTAS,
        1,
        entries=[
            {
                "entity": _entity(("user", user)),
                "ops": [_op("producer_byte_rate", 1024.0), _op("request_percentage", 50.5)],
            },
            {"entity": _entity(("client-id", client)), "ops": [_op("consumer_byte_rate", 2048.0)]},
            {
                "entity": _entity(("user", user), ("client-id", client)),
                "ops": [_op("controller_mutation_rate", 3.0)],
            },
            {"entity": _entity(("user", None)), "ops": [_op("producer_byte_rate", 4096.0)]},
            {"entity": _entity(("client-id", None)), "ops": [_op("consumer_byte_rate", 8192.0)]},
            {"entity": _entity(("ip", "127.0.0.2")), "ops": [_op("connection_creation_rate", 7.0)]},
        ],
        validate_only=False,
    )
    _quotas_settle(s, 6)
    components = {
        "exact user": [{"entity_type": "user", "match_type": 0, "match": user}],
        "default user": [{"entity_type": "user", "match_type": 1, "match": None}],
        "any user": [{"entity_type": "user", "match_type": 2, "match": None}],
        "any client-id": [{"entity_type": "client-id", "match_type": 2, "match": None}],
        "exact user, any client-id": [
            {"entity_type": "user", "match_type": 0, "match": user},
            {"entity_type": "client-id", "match_type": 2, "match": None},
        ],
        "any ip": [{"entity_type": "ip", "match_type": 2, "match": None}],
        "unknown entity type": [{"entity_type": "group", "match_type": 2, "match": None}],
        "bad match type": [{"entity_type": "user", "match_type": 7, "match": None}],
        "exact with null match": [{"entity_type": "user", "match_type": 0, "match": None}],
        "default with a match": [{"entity_type": "user", "match_type": 1, "match": "x"}],
        "the same type twice": [
            {"entity_type": "user", "match_type": 2, "match": None},
            {"entity_type": "user", "match_type": 2, "match": None},
        ],
        "user and ip": [
            {"entity_type": "user", "match_type": 2, "match": None},
            {"entity_type": "ip", "match_type": 2, "match": None},
        ],
        "nothing": [],
    }
    for label, component in components.items():
        for strict in (False, True):
            answer = s.call(
                f"describe {label}{', strict' if strict else ''}",
                ApiKey.DESCRIBE_CLIENT_QUOTAS,
                1,
                components=component,
                strict=strict,
            )
            entries = answer.get("entries")
            if isinstance(entries, list):
                entries.sort(key=lambda e: str(e["entity"]))
                for entry in entries:
                    entry["values"].sort(key=lambda v: v["key"])
    s.call(
        "alter: remove everything set",
        ApiKey.ALTER_CLIENT_QUOTAS,
        1,
        entries=[
            {
                "entity": _entity(("user", user)),
                "ops": [_op("producer_byte_rate", remove=True), _op("request_percentage", remove=True)],
            },
            {"entity": _entity(("client-id", client)), "ops": [_op("consumer_byte_rate", remove=True)]},
            {
                "entity": _entity(("user", user), ("client-id", client)),
                "ops": [_op("controller_mutation_rate", remove=True)],
            },
            {"entity": _entity(("user", None)), "ops": [_op("producer_byte_rate", remove=True)]},
            {"entity": _entity(("client-id", None)), "ops": [_op("consumer_byte_rate", remove=True)]},
            {"entity": _entity(("ip", "127.0.0.2")), "ops": [_op("connection_creation_rate", remove=True)]},
            {"entity": _entity(("user", f"{user}-never")), "ops": [_op("producer_byte_rate", remove=True)]},
        ],
        validate_only=False,
    )
    _quotas_settle(s, 0)
    s.call(
        "describe any user after removal",
        ApiKey.DESCRIBE_CLIENT_QUOTAS,
        1,
        components=[{"entity_type": "user", "match_type": 2, "match": None}],
        strict=False,
    )


_ACL_FILTER = {
    "resource_type_filter": 1,
    "resource_name_filter": None,
    "pattern_type_filter": 1,
    "principal_filter": None,
    "host_filter": None,
    "operation": 1,
    "permission_type": 1,
}


def acls_without_authorizer(s: Session, names: dict[str, str]) -> None:
    creation = {
        "resource_type": 2,
        "resource_name": names["topic"],
        "resource_pattern_type": 3,
        "principal": "User:alice",
        "host": "*",
        "operation": 3,
        "permission_type": 3,
    }
    for version in (1, 2, 3):
        s.call(f"describe acls v{version}", ApiKey.DESCRIBE_ACLS, version, **_ACL_FILTER)
        s.call(f"create acls v{version}", ApiKey.CREATE_ACLS, version, creations=[creation])
        s.call(f"delete acls v{version}", ApiKey.DELETE_ACLS, version, filters=[_ACL_FILTER])


def sasl_on_plaintext(s: Session, names: dict[str, str]) -> None:
    for version in (0, 1):
        s.call(f"sasl handshake v{version}", ApiKey.SASL_HANDSHAKE, version, mechanism="PLAIN")
    for version in (0, 1, 2):
        s.call(f"sasl authenticate v{version}", ApiKey.SASL_AUTHENTICATE, version, auth_bytes=b"\0alice\0secret")
    s.call("metadata still served", ApiKey.METADATA, 12, topics=[], allow_auto_topic_creation=False)


SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "security.scram_credentials": scram_credentials,
    "security.client_quotas": client_quotas,
    "security.acls_without_authorizer": acls_without_authorizer,
    "security.sasl_on_plaintext": sasl_on_plaintext,
}
