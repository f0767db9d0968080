"""Kafka's StandardAuthorizer rules, one by one, on the in-memory filesystem (no broker)."""

from __future__ import annotations

import pytest

from odradek.security.acl import AclBinding, AclBindingFilter, AclOperation, PatternType, Permission, ResourceType
from odradek.security.authorizer import Authorizer
from odradek.security.principal import ClientIdentity, KafkaPrincipal
from odradek.storage.filesystem import MemoryFileSystem

TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP
LITERAL, PREFIXED = PatternType.LITERAL, PatternType.PREFIXED
ALLOW, DENY = Permission.ALLOW, Permission.DENY
Op = AclOperation


def _authorizer(**settings: str) -> Authorizer:
    base = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer"}
    return Authorizer(MemoryFileSystem(), "/acls.json", {**base, **settings})


def _alice(host: str = "10.0.0.1") -> ClientIdentity:
    return ClientIdentity(principal=KafkaPrincipal("User", "alice"), host=host)


def _acl(
    name: str, op: AclOperation, permission: Permission = ALLOW, pattern: PatternType = LITERAL, **kw: str
) -> AclBinding:
    return AclBinding(
        kw.get("kind", TOPIC),  # type: ignore[arg-type]
        name,
        pattern,
        kw.get("principal", "User:alice"),
        kw.get("host", "*"),
        op,
        permission,
    )


def test_without_acls_the_setting_decides() -> None:
    assert not _authorizer().authorize(_alice(), Op.READ, TOPIC, "t")
    assert _authorizer(**{"allow.everyone.if.no.acl.found": "true"}).authorize(_alice(), Op.READ, TOPIC, "t")


def test_an_acl_for_someone_else_still_counts_as_acls_found() -> None:
    authorizer = _authorizer(**{"allow.everyone.if.no.acl.found": "true"})
    authorizer.add([_acl("t", Op.READ, principal="User:bob")])
    assert not authorizer.authorize(_alice(), Op.READ, TOPIC, "t")
    assert authorizer.authorize(_alice(), Op.READ, TOPIC, "other")


@pytest.mark.parametrize(
    ("acls", "op", "name", "allowed"),
    [
        ([_acl("t", Op.READ)], Op.READ, "t", True),
        ([_acl("t", Op.READ)], Op.WRITE, "t", False),
        ([_acl("t", Op.WRITE)], Op.DESCRIBE, "t", True),
        ([_acl("t", Op.DELETE)], Op.DESCRIBE, "t", True),
        ([_acl("t", Op.ALTER_CONFIGS)], Op.DESCRIBE_CONFIGS, "t", True),
        ([_acl("t", Op.DESCRIBE)], Op.READ, "t", False),
        ([_acl("t", Op.ALL)], Op.ALTER, "t", True),
        ([_acl("*", Op.READ)], Op.READ, "anything", True),
        ([_acl("pre", Op.READ, pattern=PREFIXED)], Op.READ, "prefix", True),
        ([_acl("pre", Op.READ, pattern=PREFIXED)], Op.READ, "pr", False),
        ([_acl("t", Op.READ), _acl("t", Op.READ, DENY)], Op.READ, "t", False),
        ([_acl("pre", Op.READ, pattern=PREFIXED), _acl("prefix", Op.READ, DENY)], Op.READ, "prefix", False),
        ([_acl("t", Op.ALL), _acl("t", Op.WRITE, DENY)], Op.DESCRIBE, "t", True),
        ([_acl("t", Op.READ), _acl("t", Op.ALL, DENY)], Op.READ, "t", False),
        ([_acl("t", Op.READ, principal="User:*")], Op.READ, "t", True),
        ([_acl("t", Op.READ, host="10.0.0.2")], Op.READ, "t", False),
        ([_acl("t", Op.READ, host="10.0.0.1")], Op.READ, "t", True),
        ([_acl("t", Op.READ, kind=GROUP)], Op.READ, "t", False),  # type: ignore[arg-type]
    ],
)
def test_decisions(acls: list[AclBinding], op: AclOperation, name: str, allowed: bool) -> None:
    authorizer = _authorizer()
    authorizer.add(acls)
    assert authorizer.authorize(_alice(), op, TOPIC, name) is allowed


def test_super_users_are_always_allowed() -> None:
    authorizer = _authorizer(**{"super.users": "User:admin;User:alice"})
    authorizer.add([_acl("t", Op.ALL, DENY)])
    assert authorizer.authorize(_alice(), Op.READ, TOPIC, "t")


def test_acls_are_durable_and_removed_by_filter() -> None:
    fs = MemoryFileSystem()
    settings = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer"}
    first = Authorizer(fs, "/acls.json", settings)
    first.add([_acl("t", Op.READ), _acl("t", Op.READ), _acl("pre", Op.WRITE, pattern=PREFIXED)])
    assert len(first.acls) == 2  # the same binding twice is kept once
    second = Authorizer(fs, "/acls.json", settings)
    second.load()
    assert second.acls == first.acls
    match = AclBindingFilter(TOPIC, "prefix", PatternType.MATCH, None, None, Op.ANY, Permission.ANY)
    assert [a.name for a in second.remove([match])[0]] == ["pre"]
    assert [a.name for a in second.acls] == ["t"]


def test_idempotent_writers_need_write_on_some_topic() -> None:
    authorizer = _authorizer()
    assert not authorizer.authorize_any(_alice(), Op.WRITE, TOPIC)
    authorizer.add([_acl("t", Op.WRITE)])
    assert authorizer.authorize_any(_alice(), Op.WRITE, TOPIC)
    authorizer.add([_acl("*", Op.WRITE, DENY)])
    assert not authorizer.authorize_any(_alice(), Op.WRITE, TOPIC)
