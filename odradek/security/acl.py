"""Kafka's ACL model: resource patterns, access control entries, bindings and binding filters.

Codes are Kafka's (``ResourceType``, ``PatternType``, ``AclOperation``, ``AclPermissionType``).
Matching rules, as Kafka's ``ResourcePatternFilter``/``AccessControlEntryFilter``:

- a filter's ANY (type, operation, permission, pattern type) and null (name, principal, host) match
  everything; a pattern type MATCH matches what would apply to the named resource: a literal binding
  of that name, the literal wildcard ``*``, and every prefixed binding that is a prefix of the name;
- a binding's principal ``User:*`` and host ``*`` match any client; an ALLOW of READ, WRITE, DELETE or
  ALTER also allows DESCRIBE, an ALLOW of ALTER_CONFIGS also DESCRIBE_CONFIGS (implication never
  applies to DENY), and ALL covers every operation.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "CLUSTER_NAME",
    "WILDCARD",
    "AclBinding",
    "AclBindingFilter",
    "AclOperation",
    "PatternType",
    "Permission",
    "ResourceType",
]

WILDCARD = "*"
CLUSTER_NAME = "kafka-cluster"


class ResourceType(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class AclOperation(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14
    TWO_PHASE_COMMIT = 15


class Permission(enum.IntEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


#: Operations an ALLOW of the key also allows (Kafka's implied operations).
IMPLIED_BY: dict[AclOperation, frozenset[AclOperation]] = {
    AclOperation.DESCRIBE: frozenset({AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER}),
    AclOperation.DESCRIBE_CONFIGS: frozenset({AclOperation.ALTER_CONFIGS}),
}


def _code(enum_type: type[enum.IntEnum], value: int) -> int:
    try:
        return enum_type(value)
    except ValueError:
        return enum_type(0)


@dataclass(frozen=True, slots=True)
class AclBinding:
    resource_type: ResourceType
    name: str
    pattern_type: PatternType
    principal: str
    host: str
    operation: AclOperation
    permission: Permission

    @classmethod
    def of(
        cls,
        resource_type: int,
        name: str,
        pattern_type: int,
        principal: str,
        host: str,
        operation: int,
        permission: int,
    ) -> AclBinding:
        """From wire codes; an unknown code becomes UNKNOWN (which validation refuses)."""
        return cls(
            ResourceType(_code(ResourceType, resource_type)),
            name,
            PatternType(_code(PatternType, pattern_type)),
            principal,
            host,
            AclOperation(_code(AclOperation, operation)),
            Permission(_code(Permission, permission)),
        )

    def applies_to(self, resource_type: ResourceType, name: str) -> bool:
        """Whether this binding's pattern covers the resource ``(resource_type, name)``."""
        if self.resource_type is not resource_type:
            return False
        if self.pattern_type is PatternType.LITERAL:
            return self.name == name or self.name == WILDCARD
        return self.pattern_type is PatternType.PREFIXED and name.startswith(self.name)

    def allows_operation(self, operation: AclOperation) -> bool:
        if self.operation is AclOperation.ALL or self.operation is operation:
            return True
        return self.permission is Permission.ALLOW and self.operation in IMPLIED_BY.get(operation, ())


@dataclass(frozen=True, slots=True)
class AclBindingFilter:
    resource_type: ResourceType
    name: str | None
    pattern_type: PatternType
    principal: str | None
    host: str | None
    operation: AclOperation
    permission: Permission

    @classmethod
    def of(
        cls,
        resource_type: int,
        name: str | None,
        pattern_type: int,
        principal: str | None,
        host: str | None,
        operation: int,
        permission: int,
    ) -> AclBindingFilter:
        return cls(
            ResourceType(_code(ResourceType, resource_type)),
            name,
            PatternType(_code(PatternType, pattern_type)),
            principal,
            host,
            AclOperation(_code(AclOperation, operation)),
            Permission(_code(Permission, permission)),
        )

    def unknown_field(self) -> str | None:
        """The first field whose code is UNKNOWN (such a filter matches nothing and is refused)."""
        for label, value in (
            ("resourceType", self.resource_type),
            ("patternType", self.pattern_type),
            ("operation", self.operation),
            ("permissionType", self.permission),
        ):
            if value == 0:
                return label
        return None

    def matches(self, binding: AclBinding) -> bool:
        if self.resource_type is not ResourceType.ANY and self.resource_type is not binding.resource_type:
            return False
        if self.pattern_type is PatternType.MATCH:
            if self.name is not None:
                if binding.pattern_type is PatternType.LITERAL:
                    if binding.name not in (self.name, WILDCARD):
                        return False
                elif not (binding.pattern_type is PatternType.PREFIXED and self.name.startswith(binding.name)):
                    return False
        else:
            if self.pattern_type is not PatternType.ANY and self.pattern_type is not binding.pattern_type:
                return False
            if self.name is not None and self.name != binding.name:
                return False
        if self.principal is not None and self.principal != binding.principal:
            return False
        if self.host is not None and self.host != binding.host:
            return False
        if self.operation is not AclOperation.ANY and self.operation is not binding.operation:
            return False
        return self.permission is Permission.ANY or self.permission is binding.permission
