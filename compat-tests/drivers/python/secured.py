"""The secured connection of a driver process, in each Python client's own settings.

The harness gives a secured scenario's driver ``COMPAT_SECURITY`` (PROTOCOL.md): the security protocol,
the SASL mechanism, the user and password (PLAIN, SCRAM), an unsecured JWS (OAUTHBEARER), the CA file
and, for a listener that requires client certificates, the client's certificate and key. Without it
every function here returns no settings, so the drivers connect in plaintext as before.
"""

from __future__ import annotations

import json
import os
import ssl
from typing import Any

from common import Json

_SETTINGS: Json | None = json.loads(os.environ["COMPAT_SECURITY"]) if os.environ.get("COMPAT_SECURITY") else None


def confluent() -> dict[str, str]:
    """librdkafka's settings (confluent-kafka); OAUTHBEARER uses librdkafka's own unsecured JWS."""
    if _SETTINGS is None:
        return {}
    config = {"security.protocol": _SETTINGS["protocol"]}
    if _SETTINGS["ca"]:
        config["ssl.ca.location"] = _SETTINGS["ca"]
    if _SETTINGS["cert"]:
        config["ssl.certificate.location"] = _SETTINGS["cert"]
        config["ssl.key.location"] = _SETTINGS["key"]
    mechanism = _SETTINGS["mechanism"]
    if mechanism == "OAUTHBEARER":
        config["sasl.mechanism"] = mechanism
        config["enable.sasl.oauthbearer.unsecure.jwt"] = "true"
        config["sasl.oauthbearer.config"] = f"principal={_SETTINGS['username']}"
    elif mechanism:
        config["sasl.mechanism"] = mechanism
        config["sasl.username"] = _SETTINGS["username"]
        config["sasl.password"] = _SETTINGS["password"]
    return config


def _ssl_context() -> ssl.SSLContext:
    assert _SETTINGS is not None
    context = ssl.create_default_context(cafile=_SETTINGS["ca"])
    if _SETTINGS["cert"]:
        context.load_cert_chain(_SETTINGS["cert"], _SETTINGS["key"])
    return context


def _python_settings(token_provider: Any) -> dict[str, Any]:
    """The keyword arguments kafka-python and aiokafka share (they spell them alike)."""
    if _SETTINGS is None:
        return {}
    config: dict[str, Any] = {"security_protocol": _SETTINGS["protocol"]}
    if _SETTINGS["ca"]:
        config["ssl_context"] = _ssl_context()
    mechanism = _SETTINGS["mechanism"]
    if mechanism == "OAUTHBEARER":
        config["sasl_mechanism"] = mechanism
        config["sasl_oauth_token_provider"] = token_provider
    elif mechanism:
        config["sasl_mechanism"] = mechanism
        config["sasl_plain_username"] = _SETTINGS["username"]
        config["sasl_plain_password"] = _SETTINGS["password"]
    return config


def kafka_python() -> dict[str, Any]:
    """kafka-python's keyword arguments."""
    from kafka.net.sasl.oauth import AbstractTokenProvider

    class Token(AbstractTokenProvider):  # type: ignore[misc]
        def token(self) -> str:
            assert _SETTINGS is not None
            return str(_SETTINGS["token"])

    return _python_settings(Token() if _SETTINGS and _SETTINGS["mechanism"] == "OAUTHBEARER" else None)


def aiokafka() -> dict[str, Any]:
    """aiokafka's keyword arguments (its token provider is a coroutine)."""
    from aiokafka.abc import AbstractTokenProvider

    class Token(AbstractTokenProvider):  # type: ignore[misc]
        async def token(self) -> str:
            assert _SETTINGS is not None
            return str(_SETTINGS["token"])

    return _python_settings(Token() if _SETTINGS and _SETTINGS["mechanism"] == "OAUTHBEARER" else None)
