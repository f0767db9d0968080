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

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness.net import HOST, free_port

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.integration.certs import Certificates, make_certificates  # noqa: E402

__all__ = ["PASSWORDS", "SCRAM_USERS", "SecuredProfile"]

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


def _plain_jaas() -> str:
    users = " ".join(f'user_{name}="{password}"' for name, password in PASSWORDS.items())
    return f'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" {users};'


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
