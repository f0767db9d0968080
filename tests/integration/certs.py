"""Certificates made per run with the ``cryptography`` library: a CA, a server certificate for
127.0.0.1/localhost and client certificates, written as PEM files (the server's key and chain in one
file, as ``ssl.keystore.location`` with ``ssl.keystore.type=PEM`` takes them)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from ipaddress import IPv4Address
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

__all__ = ["Certificates", "make_certificates"]


@dataclass(frozen=True)
class Certificates:
    ca: Path  # the CA certificate (PEM): the clients' and the broker's truststore
    server_keystore: Path  # the server's private key and certificate chain (PEM)
    server_cert: Path
    server_key: Path
    clients: dict[str, tuple[Path, Path]]  # client name -> (certificate, key)


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "odradek"),
            x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "test"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _issue(
    subject: str,
    issuer: x509.Name,
    issuer_key: ec.EllipticCurvePrivateKey,
    key: ec.EllipticCurvePrivateKey,
    *,
    ca: bool,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(IPv4Address("127.0.0.1"))]),
            critical=False,
        )
    return builder.sign(issuer_key, hashes.SHA256())


def make_certificates(directory: Path, clients: tuple[str, ...] = ("alice", "bob")) -> Certificates:
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = _issue("odradek-test-ca", _name("odradek-test-ca"), ca_key, ca_key, ca=True)
    ca_pem = ca_cert.public_bytes(serialization.Encoding.PEM)
    (directory / "ca.pem").write_bytes(ca_pem)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_cert = _issue("localhost", ca_cert.subject, ca_key, server_key, ca=False)
    server_pem = server_cert.public_bytes(serialization.Encoding.PEM)
    (directory / "server.pem").write_bytes(server_pem)
    (directory / "server.key").write_bytes(_pem_key(server_key))
    (directory / "server-keystore.pem").write_bytes(_pem_key(server_key) + server_pem + ca_pem)
    issued: dict[str, tuple[Path, Path]] = {}
    for client in clients:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _issue(client, ca_cert.subject, ca_key, key, ca=False)
        cert_path, key_path = directory / f"{client}.pem", directory / f"{client}.key"
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(_pem_key(key))
        issued[client] = (cert_path, key_path)
    return Certificates(
        directory / "ca.pem",
        directory / "server-keystore.pem",
        directory / "server.pem",
        directory / "server.key",
        issued,
    )
