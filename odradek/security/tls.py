"""TLS for SSL and SASL_SSL listeners with Python's ssl module, configured with Kafka's ``ssl.*`` keys.

Read per listener (``listener.name.<listener>.ssl.*`` first, see `listener_setting`):

- the server certificate and key in PEM: ``ssl.keystore.location`` (one file holding the private key
  and the certificate chain) or ``ssl.keystore.certificate.chain`` + ``ssl.keystore.key`` (the PEM
  text itself, Kafka 2.7+), with ``ssl.key.password`` for an encrypted key; ``ssl.keystore.type``
  must be PEM;
- trusted CAs for client certificates: ``ssl.truststore.location`` (a PEM file) or
  ``ssl.truststore.certificates`` (PEM text), ``ssl.truststore.type`` PEM;
- ``ssl.client.auth``: none, requested or required;
- ``ssl.enabled.protocols`` (TLSv1.2, TLSv1.3; default both) and ``ssl.cipher.suites`` (IANA names
  as Java takes them, or OpenSSL names; they restrict TLS 1.2 only: OpenSSL chooses TLS 1.3's).

Inline PEM text goes to a private temporary file for the one ``load_cert_chain`` call that needs a
path and is removed at once.  A setting that cannot work is a `ConfigError` at start-up.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from collections.abc import Mapping

from odradek.config.broker import ConfigError
from odradek.security.listeners import listener_setting

__all__ = ["client_auth", "openssl_cipher_name", "server_context"]

_PROTOCOLS = {"TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3}
_CLIENT_AUTH = {"none": ssl.CERT_NONE, "requested": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}


def client_auth(security: Mapping[str, str], listener: str) -> str:
    value = (listener_setting(security, listener, "ssl.client.auth", "none") or "none").strip().lower()
    if value not in _CLIENT_AUTH:
        raise ConfigError(f"ssl.client.auth: {value!r} is not one of none, requested, required")
    return value


def openssl_cipher_name(name: str) -> str:
    """A Java/IANA suite name as OpenSSL spells it (``TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`` ->
    ``ECDHE-RSA-AES128-GCM-SHA256``); OpenSSL names and TLS 1.3 names pass unchanged."""
    if not name.startswith("TLS_") or "_WITH_" not in name:
        return name
    exchange, _, cipher = name[4:].partition("_WITH_")
    parts = cipher.split("_")
    if len(parts) >= 3 and parts[0] in ("AES", "CAMELLIA", "ARIA") and parts[1].isdigit():
        parts = [parts[0] + parts[1], *parts[2:]]
    if parts[:2] == ["CHACHA20", "POLY1305"]:
        parts = ["CHACHA20-POLY1305", *parts[3:]] if parts[2:3] == ["SHA256"] else ["CHACHA20-POLY1305", *parts[2:]]
    prefix = exchange.replace("_", "-")
    if prefix == "RSA":
        return "-".join(parts)
    return f"{prefix}-{'-'.join(parts)}"


def _load_key_and_chain(context: ssl.SSLContext, security: Mapping[str, str], listener: str) -> None:
    def get(key: str) -> str | None:
        return listener_setting(security, listener, key)

    kind = (get("ssl.keystore.type") or "JKS").upper()
    location, chain, key = get("ssl.keystore.location"), get("ssl.keystore.certificate.chain"), get("ssl.keystore.key")
    if location is None and chain is None:
        raise ConfigError(f"listener {listener}: ssl.keystore.location or ssl.keystore.certificate.chain is needed")
    if kind != "PEM":
        raise ConfigError(f"listener {listener}: ssl.keystore.type {kind} is not supported (use PEM)")
    password = get("ssl.key.password")
    try:
        if location is not None:
            context.load_cert_chain(location, password=password)
            return
        if key is None:
            raise ConfigError(f"listener {listener}: ssl.keystore.key is needed with ssl.keystore.certificate.chain")
        fd, path = tempfile.mkstemp(prefix="odradek-key-", suffix=".pem")
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(key.replace("\\n", "\n") + "\n" + (chain or "").replace("\\n", "\n") + "\n")
            context.load_cert_chain(path, password=password)
        finally:
            os.unlink(path)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"listener {listener}: cannot load the keystore: {exc}") from None


def _load_truststore(context: ssl.SSLContext, security: Mapping[str, str], listener: str) -> bool:
    location = listener_setting(security, listener, "ssl.truststore.location")
    certificates = listener_setting(security, listener, "ssl.truststore.certificates")
    kind = (listener_setting(security, listener, "ssl.truststore.type") or "JKS").upper()
    if location is None and certificates is None:
        return False
    if kind != "PEM":
        raise ConfigError(f"listener {listener}: ssl.truststore.type {kind} is not supported (use PEM)")
    try:
        if location is not None:
            context.load_verify_locations(cafile=location)
        else:
            context.load_verify_locations(cadata=(certificates or "").replace("\\n", "\n"))
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"listener {listener}: cannot load the truststore: {exc}") from None
    return True


def server_context(security: Mapping[str, str], listener: str) -> ssl.SSLContext:
    """The server-side TLS context of ``listener``; `ConfigError` when a setting cannot work."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    enabled_text = listener_setting(security, listener, "ssl.enabled.protocols", "TLSv1.2,TLSv1.3") or ""
    enabled = [p.strip() for p in enabled_text.split(",") if p.strip()]
    unknown = [p for p in enabled if p not in _PROTOCOLS]
    if unknown or not enabled:
        raise ConfigError(f"listener {listener}: ssl.enabled.protocols {enabled_text!r}: only TLSv1.2 and TLSv1.3")
    versions = sorted(_PROTOCOLS[p] for p in enabled)
    context.minimum_version, context.maximum_version = versions[0], versions[-1]
    suites = listener_setting(security, listener, "ssl.cipher.suites")
    if suites:
        names = [openssl_cipher_name(s.strip()) for s in suites.split(",") if s.strip()]
        tls12 = [n for n in names if not n.startswith("TLS_")]
        if tls12:
            try:
                context.set_ciphers(":".join(tls12))
            except ssl.SSLError:
                raise ConfigError(f"listener {listener}: ssl.cipher.suites {suites!r}: no usable suite") from None
    _load_key_and_chain(context, security, listener)
    trusted = _load_truststore(context, security, listener)
    auth = client_auth(security, listener)
    if auth != "none" and not trusted:
        context.load_default_certs(ssl.Purpose.CLIENT_AUTH)
    context.verify_mode = _CLIENT_AUTH[auth]
    return context
