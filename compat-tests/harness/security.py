"""A secured broker configuration run identically on Apache Kafka and odradek.

`SecuredProfile(directory)` makes the run's certificates (``cryptography``: a CA, the broker's
certificate for 127.0.0.1, client certificates for alice and bob) and gives both launchers the same
settings, Kafka's names throughout:

- listeners ``PLAINTEXT`` (the harness's own readiness checks and the admin path: its principal,
  ``User:ANONYMOUS``, is a super user, as KRaft needs for its inter-broker listener), ``SASL_PLAINTEXT``,
  ``SSL`` (no client certificate), ``MTLS`` (SSL with ``ssl.client.auth=required``) and ``SASL_SSL``;
- SASL mechanisms PLAIN (users admin, alice, bob in the listeners' JAAS configs), SCRAM-SHA-256/512
  (users created after start-up with AlterUserScramCredentials, `create_scram_users`) and OAUTHBEARER
  (Kafka's unsecured JWS validation, the broker default);
- ``authorizer.class.name`` = Kafka's StandardAuthorizer, ``super.users=User:admin;User:ANONYMOUS``,
  ``allow.everyone.if.no.acl.found=false``.

Ports are picked here, so both brokers listen where the profile says; `listener_addresses` names them.
"""

from __future__ import annotations

import base64
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.net import HOST, free_port

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.integration.certs import Certificates, make_certificates

__all__ = [
    "MODES",
    "PASSWORDS",
    "SCRAM_USERS",
    "SecuredProfile",
    "create_scram_users",
    "grant_client_acls",
    "super_user_step",
]

PASSWORDS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret"}
#: SCRAM users, created in both brokers after start-up (same names, different passwords from PLAIN's).
SCRAM_USERS = {"carol": "carol-secret", "dave": "dave-secret"}
LISTENERS = ("PLAINTEXT", "SASL_PLAINTEXT", "SSL", "MTLS", "SASL_SSL")
_PROTOCOLS = {
    "PLAINTEXT": "PLAINTEXT",
    "SASL_PLAINTEXT": "SASL_PLAINTEXT",
    "SSL": "SSL",
    "MTLS": "SSL",
    "SASL_SSL": "SASL_SSL",
}

#: The connection modes a secured scenario names (harness/scenarios.py ``security``): listener, SASL
#: mechanism, user. SSL without a client certificate is User:ANONYMOUS, a super user of the profile;
#: bob has no ACL but those his scenario (acl_matrix) makes, admin is a super user.
MODES: dict[str, tuple[str, str | None, str | None]] = {
    "ssl": ("SSL", None, None),
    "mtls": ("MTLS", None, "alice"),
    "sasl_ssl-plain-bob": ("SASL_SSL", "PLAIN", "bob"),
    "sasl_ssl-plain-admin": ("SASL_SSL", "PLAIN", "admin"),
    **{
        f"{listener.lower()}-{mechanism.lower()}": (listener, mechanism, user)
        for listener in ("SASL_PLAINTEXT", "SASL_SSL")
        for mechanism, user in (
            ("PLAIN", "alice"),
            ("SCRAM-SHA-256", "carol"),
            ("SCRAM-SHA-512", "dave"),
            ("OAUTHBEARER", "alice"),
        )
    },
}
#: What the client principals of `MODES` may do (`grant_client_acls`): everything on the run's
#: topics, groups and transactional ids, which all start with this prefix.
CLIENT_PREFIX = "compat-"
#: The principal Kafka's default principal builder gives a client certificate (RFC 2253 form).
MTLS_PRINCIPAL = "User:CN=alice,OU=test,O=odradek,C=US"
#: The principals `grant_client_acls` lets do anything under `CLIENT_PREFIX`.
GRANTED = frozenset({"User:alice", "User:carol", "User:dave", MTLS_PRINCIPAL})


def unsecured_jwt(subject: str, lifetime_s: int = 3600) -> str:
    """An unsecured JWS (alg "none") naming ``subject``, as Kafka's default OAUTHBEARER validator accepts."""

    def part(value: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode("ascii").rstrip("=")

    now = int(time.time())
    return f"{part({'alg': 'none'})}.{part({'sub': subject, 'iat': now, 'exp': now + lifetime_s})}."


def _plain_jaas() -> str:
    users = " ".join(f'user_{name}="{password}"' for name, password in PASSWORDS.items())
    module = "org.apache.kafka.common.security.plain.PlainLoginModule"
    return f'{module} required username="admin" password="admin-secret" {users};'


@dataclass
class SecuredProfile:
    directory: Path
    ports: dict[str, int] = field(default_factory=dict)
    certs: Certificates = field(init=False)

    def __post_init__(self) -> None:
        self.certs = make_certificates(self.directory / "certs")
        if not self.ports:
            self.ports = {name: free_port() for name in LISTENERS}

    def listener_addresses(self) -> dict[str, str]:
        return {name: f"{HOST}:{port}" for name, port in self.ports.items()}

    def properties(self) -> dict[str, str]:
        """The settings both brokers get (Kafka adds its controller listener to two of them)."""
        props = {
            "listeners": ",".join(f"{name}://{HOST}:{port}" for name, port in self.ports.items()),
            "advertised.listeners": ",".join(f"{name}://{HOST}:{port}" for name, port in self.ports.items()),
            "listener.security.protocol.map": ",".join(f"{n}:{p}" for n, p in _PROTOCOLS.items()),
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(self.certs.server_keystore),
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(self.certs.ca),
            "listener.name.mtls.ssl.client.auth": "required",
            "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER",
            "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "super.users": "User:admin;User:ANONYMOUS",
            "allow.everyone.if.no.acl.found": "false",
        }
        for listener in ("sasl_plaintext", "sasl_ssl"):
            props[f"listener.name.{listener}.plain.sasl.jaas.config"] = _plain_jaas()
            for mechanism in ("scram-sha-256", "scram-sha-512"):
                props[f"listener.name.{listener}.{mechanism}.sasl.jaas.config"] = (
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;"
                )
            props[f"listener.name.{listener}.oauthbearer.sasl.jaas.config"] = (
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"
            )
        return props

    def client_config(self, listener: str, user: str | None = None, mechanism: str = "PLAIN") -> dict[str, str]:
        """confluent-kafka settings for a client of ``listener`` (as ``user``, with ``mechanism``)."""
        config = {"bootstrap.servers": self.listener_addresses()[listener]}
        protocol = _PROTOCOLS[listener]
        config["security.protocol"] = protocol
        if protocol in ("SSL", "SASL_SSL"):
            config["ssl.ca.location"] = str(self.certs.ca)
        if listener == "MTLS" and user is not None:
            cert, key = self.certs.clients[user]
            config["ssl.certificate.location"], config["ssl.key.location"] = str(cert), str(key)
        if protocol.startswith("SASL") and user is not None:
            config["sasl.mechanism"] = mechanism
            if mechanism == "OAUTHBEARER":
                config["enable.sasl.oauthbearer.unsecure.jwt"] = "true"
                config["sasl.oauthbearer.config"] = f"principal={user}"
            else:
                config["sasl.username"] = user
                config["sasl.password"] = {**PASSWORDS, **SCRAM_USERS}[user]
        return config

    @staticmethod
    def principal(mode: str) -> str:
        """The principal both brokers give a client connecting in ``mode``."""
        listener, _, user = MODES[mode]
        if listener == "MTLS":
            return MTLS_PRINCIPAL
        return f"User:{user}" if user else "User:ANONYMOUS"

    def driver_connection(self, mode: str) -> tuple[str, dict[str, str | None]]:
        """The bootstrap address and the client-neutral settings (the drivers' ``COMPAT_SECURITY``,
        PROTOCOL.md) of a driver connecting in ``mode``."""
        listener, mechanism, user = MODES[mode]
        protocol = _PROTOCOLS[listener]
        settings: dict[str, str | None] = {"protocol": protocol, "mechanism": mechanism, "username": user}
        settings["ca"] = str(self.certs.ca) if protocol in ("SSL", "SASL_SSL") else None
        cert, key = self.certs.clients[user] if listener == "MTLS" and user else (None, None)
        settings["cert"], settings["key"] = (str(cert), str(key)) if cert and key else (None, None)
        settings["password"] = {**PASSWORDS, **SCRAM_USERS}.get(user or "") if mechanism != "OAUTHBEARER" else None
        settings["token"] = unsecured_jwt(user) if mechanism == "OAUTHBEARER" and user else None
        return self.listener_addresses()[listener], settings


def grant_client_acls(bootstrap: str) -> None:
    """Every principal of `MODES` may do anything on resources named with `CLIENT_PREFIX` (prefixed
    ACLs on topics, groups, transactional ids), through the super user's PLAINTEXT listener."""
    from confluent_kafka.admin import (
        AclBinding,
        AclOperation,
        AclPermissionType,
        AdminClient,
        ResourcePatternType,
        ResourceType,
    )

    principals = sorted(GRANTED)
    bindings = [
        AclBinding(kind, CLIENT_PREFIX, ResourcePatternType.PREFIXED, principal, "*", AclOperation.ALL,
                   AclPermissionType.ALLOW)
        for kind in (ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID)
        for principal in principals
    ]  # fmt: skip
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_acls(bindings).values():
        future.result(30)


def create_scram_users(bootstrap: str) -> None:
    """SCRAM-SHA-256 and -512 credentials for `SCRAM_USERS`, through the super user's PLAINTEXT listener."""
    from confluent_kafka.admin import AdminClient, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion

    admin = AdminClient({"bootstrap.servers": bootstrap})
    # One mechanism of a user per request: Kafka refuses a user named twice in one request.
    for mechanism in (ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512):
        upsertions = [
            UserScramCredentialUpsertion(user, ScramCredentialInfo(mechanism, 4096), password.encode())
            for user, password in SCRAM_USERS.items()
        ]
        for future in admin.alter_user_scram_credentials(upsertions).values():
            future.result(30)
    # Kafka serves SCRAM logins from its metadata image, which follows the change a moment later.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        described = admin.describe_user_scram_credentials(list(SCRAM_USERS))
        try:
            if all(len(f.result(10).scram_credential_infos) == 2 for f in described.values()):
                return
        except Exception:
            pass
        time.sleep(0.2)
    raise RuntimeError("the SCRAM users did not appear")


#: The ``super_user`` step's ACL fields named by confluent-kafka's enums (any case).
_ACL_ENUM_FIELDS = ("resource", "pattern", "operation", "permission")


def super_user_step(bootstrap: str, step: dict[str, Any], principal: str) -> dict[str, Any]:
    """The harness's ``super_user`` step (PROTOCOL.md): topics and ACLs made through the super user's
    PLAINTEXT listener, ``{client}`` in an ACL's principal being the scenario's own; returns once
    DescribeAcls shows every new ACL (both brokers apply ACLs from their metadata a moment later)."""
    from confluent_kafka.admin import (
        AclBinding,
        AclBindingFilter,
        AclOperation,
        AclPermissionType,
        AdminClient,
        NewTopic,
        ResourcePatternType,
        ResourceType,
    )

    admin = AdminClient({"bootstrap.servers": bootstrap})
    topics = [NewTopic(t["topic"], int(t.get("partitions", 1)), 1) for t in step.get("create_topics", [])]
    if topics:
        for future in admin.create_topics(topics).values():
            future.result(30)
    bindings = []
    for acl in step.get("acls", []):
        resource, pattern, operation, permission = (str(acl[f]).upper() for f in _ACL_ENUM_FIELDS)
        who = str(acl.get("principal", "{client}")).replace("{client}", principal)
        bindings.append(
            AclBinding(ResourceType[resource], acl["name"], ResourcePatternType[pattern], who, "*",
                       AclOperation[operation], AclPermissionType[permission])
        )  # fmt: skip
    if bindings:
        for future in admin.create_acls(bindings).values():
            future.result(30)
        wanted = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None,
                                  AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
        deadline = time.monotonic() + 30
        while set(bindings) - set(admin.describe_acls(wanted).result(30)):
            if time.monotonic() > deadline:
                return {"ok": False, "error": "HARNESS:the ACLs did not appear"}
            time.sleep(0.2)
    return {"ok": True}
