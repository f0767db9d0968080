"""Kafka's StandardAuthorizer: ACLs kept durably and applied live, decisions with Kafka's rules.

Switched on by ``authorizer.class.name`` naming Kafka's StandardAuthorizer (or its ZooKeeper-era
AclAuthorizer); without it every request is authorized and the ACL APIs answer SECURITY_DISABLED.
A decision for principal P from host H doing operation O on resource R:

1. P in ``super.users`` (``User:a;User:b``): allowed;
2. the ACLs whose pattern covers R (literal name, literal ``*``, prefixes of R's name); none at all:
   ``allow.everyone.if.no.acl.found`` decides;
3. among those, an ACL for P (or ``User:*``) and H (or ``*``) denying O or ALL: denied;
4. else one allowing O (or ALL, or an operation implying O): allowed; else denied.

The ACLs live in one JSON document replaced atomically through the FileSystem seam
(``{"version": 1, "acls": [[type, name, pattern, principal, host, operation, permission], ...]}``); a
change is durable before it applies.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from odradek.config.broker import ConfigError
from odradek.security.acl import AclBinding, AclBindingFilter, AclOperation, Permission, ResourceType
from odradek.security.principal import ClientIdentity, KafkaPrincipal, parse_principal
from odradek.storage.filesystem import FileSystem, read_file, write_file_atomic

__all__ = ["ACLS_FILE", "STANDARD_AUTHORIZERS", "Authorizer"]

ACLS_FILE = "__odradek_acls.json"
STANDARD_AUTHORIZERS = frozenset(
    {"org.apache.kafka.metadata.authorizer.StandardAuthorizer", "kafka.security.authorizer.AclAuthorizer"}
)
_VERSION = 1
_WILDCARD_PRINCIPAL = "User:*"


def _super_users(text: str) -> frozenset[KafkaPrincipal]:
    users: set[KafkaPrincipal] = set()
    for item in (part.strip() for part in text.split(";")):
        if item:
            try:
                users.add(parse_principal(item))
            except ValueError as exc:
                raise ConfigError(f"super.users: {exc}") from None
    return frozenset(users)


class Authorizer:
    """ACL decisions and the ACLs themselves (see the module docstring)."""

    def __init__(self, fs: FileSystem, path: str, settings: Mapping[str, str]) -> None:
        self._fs = fs
        self._path = path
        name = settings.get("authorizer.class.name", "").strip()
        if name and name not in STANDARD_AUTHORIZERS:
            raise ConfigError(f"authorizer.class.name: {name} is not supported (use StandardAuthorizer)")
        self.enabled = bool(name)
        self._super = _super_users(settings.get("super.users", ""))
        self._allow_if_none = settings.get("allow.everyone.if.no.acl.found", "false").strip().lower() == "true"
        self._acls: list[AclBinding] = []

    def load(self) -> None:
        if not self._fs.exists(self._path):
            return
        try:
            document = json.loads(read_file(self._fs, self._path))
            if document.get("version") != _VERSION:
                raise ValueError(f"unknown version {document.get('version')!r}")
            self._acls = [AclBinding.of(*row) for row in document["acls"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{self._path}: not an ACL document ({exc})") from None

    def _save(self, acls: list[AclBinding]) -> None:
        rows = [[a.resource_type, a.name, a.pattern_type, a.principal, a.host, a.operation, a.permission] for a in acls]
        write_file_atomic(self._fs, self._path, json.dumps({"version": _VERSION, "acls": rows}, indent=1).encode())
        self._acls = acls

    @property
    def acls(self) -> list[AclBinding]:
        return list(self._acls)

    def add(self, bindings: Iterable[AclBinding]) -> None:
        """Add bindings (one already present is not added twice), durably, then live."""
        acls = list(self._acls)
        present = set(acls)
        for binding in bindings:
            if binding not in present:
                acls.append(binding)
                present.add(binding)
        self._save(acls)

    def remove(self, filters: list[AclBindingFilter]) -> list[list[AclBinding]]:
        """Remove every binding a filter matches; per filter, the bindings it matched."""
        matched = [[acl for acl in self._acls if f.matches(acl)] for f in filters]
        gone = {acl for group in matched for acl in group}
        if gone:
            self._save([acl for acl in self._acls if acl not in gone])
        return matched

    def is_super(self, principal: KafkaPrincipal) -> bool:
        return principal in self._super

    def authorize(self, identity: ClientIdentity, operation: AclOperation, kind: ResourceType, name: str) -> bool:
        if not self.enabled or identity.principal in self._super:
            return True
        principal = str(identity.principal)
        covering = [acl for acl in self._acls if acl.applies_to(kind, name)]
        if not covering:
            return self._allow_if_none
        allowed = False
        for acl in covering:
            if acl.principal not in (principal, _WILDCARD_PRINCIPAL) or acl.host not in (identity.host, "*"):
                continue
            if not acl.allows_operation(operation):
                continue
            if acl.permission is Permission.DENY:
                return False
            allowed = True
        return allowed

    def authorize_any(self, identity: ClientIdentity, operation: AclOperation, kind: ResourceType) -> bool:
        """Whether some resource of ``kind`` allows ``operation`` (Kafka's ``authorizeByResourceType``,
        used for idempotent producers: WRITE on any topic).  A DENY on the literal wildcard, or on a
        prefix that covers every allowed name, wins."""
        if not self.enabled or identity.principal in self._super:
            return True
        principal = str(identity.principal)
        relevant = [
            acl
            for acl in self._acls
            if acl.resource_type is kind
            and acl.principal in (principal, _WILDCARD_PRINCIPAL)
            and acl.host in (identity.host, "*")
            and acl.allows_operation(operation)
        ]
        denies = [a for a in relevant if a.permission is Permission.DENY]
        if any(a.name == "*" and a.pattern_type.name == "LITERAL" for a in denies):
            return False
        for allow in (a for a in relevant if a.permission is Permission.ALLOW):
            if not any(
                (d.pattern_type.name == "LITERAL" and d.name == allow.name and allow.pattern_type.name == "LITERAL")
                or (d.pattern_type.name == "PREFIXED" and allow.name.startswith(d.name))
                for d in denies
            ):
                return True
        return self._allow_if_none and not any(acl.resource_type is kind for acl in self._acls)
