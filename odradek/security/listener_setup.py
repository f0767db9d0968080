"""Per listener: the TLS context and what each new connection gets (identity, SASL gate).

Built once per listener at start-up from the broker's settings; a setting that cannot work is a
`ConfigError` then, never at a client's first connection.  Each connection made on the listener
is given (`prepare`): its `ClientIdentity` (listener, protocol, advertised endpoint, and on a TLS
listener with ``ssl.client.auth`` requested/required the certificate subject mapped by
``ssl.principal.mapping.rules``) and, on a SASL listener, a `SaslGate`.

The SASL machinery and the certificate principal mapping are imported by the listeners that use
them, so a broker with plain listeners only never loads them.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from odradek.clock import Clock
from odradek.config.broker import ConfigError
from odradek.java_order import java_hash_order, string_hash
from odradek.security.listeners import ListenerSpec, listener_setting
from odradek.security.principal import ClientIdentity, KafkaPrincipal
from odradek.wire.errors import ErrorCode
from odradek.wire.primitives import Part

if TYPE_CHECKING:
    from odradek.security.sasl.authenticator import SaslSettings
    from odradek.security.sasl.mechanism import SaslServer
    from odradek.security.sasl.scram import ScramCredential
    from odradek.security.ssl_principal import MappingRules

__all__ = ["SUPPORTED_MECHANISMS", "ListenerSecurity", "PreparedConnection"]

log = logging.getLogger("odradek.security")

SUPPORTED_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")
SASL_SERVER_MAX_RECEIVE_SIZE = 524288


class PreparedConnection(Protocol):
    identity: ClientIdentity
    gate: Any
    peer: str

    close_callbacks: list[Callable[[], None]]

    @property
    def transport(self) -> Any: ...

    def set_max_frame_bytes(self, limit: int) -> None: ...

    def abort(self, reason: str) -> None: ...


ScramLookup = Callable[[str, str], "ScramCredential | None"]
ErrorAnswer = Callable[[bytearray, ErrorCode], list[Part] | None]


def _jaas_options(security: Mapping[str, str], listener: str, mechanism: str) -> dict[str, str]:
    """Options of the JAAS config for ``mechanism`` on ``listener`` (Kafka's
    ``listener.name.<l>.<mechanism>.sasl.jaas.config``, then the unprefixed forms)."""
    from odradek.security.sasl.jaas import parse_jaas

    key = f"{mechanism.lower()}.sasl.jaas.config"
    text = listener_setting(security, listener, key) or listener_setting(security, listener, "sasl.jaas.config")
    if text is None:
        return {}
    options: dict[str, str] = {}
    for entry in parse_jaas(text, key):
        options.update(entry.options)
    return options


class ListenerSecurity:
    """One listener's TLS context and connection set-up (see the module docstring)."""

    def __init__(
        self,
        spec: ListenerSpec,
        security: Mapping[str, str],
        clock: Clock,
        max_request_bytes: int,
        scram: ScramLookup,
        error_answer: ErrorAnswer,
    ) -> None:
        self.spec = spec
        self._error_answer = error_answer
        self.advertised: tuple[str, int] = (spec.advertised_host or spec.host, spec.advertised_port or spec.port)
        self._clock = clock
        self.ssl_context: ssl.SSLContext | None = None
        self._rules: MappingRules | None = None
        name = spec.name
        if spec.protocol.tls:
            from odradek.security.ssl_principal import MappingRules
            from odradek.security.tls import client_auth, server_context

            self.ssl_context = server_context(security, name)
            if client_auth(security, name) != "none":
                self._rules = MappingRules(listener_setting(security, name, "ssl.principal.mapping.rules") or "DEFAULT")
        self._sasl: SaslSettings | None = None
        if spec.protocol.sasl:
            self._sasl = self._sasl_settings(security, max_request_bytes, scram)

    def _sasl_settings(
        self,
        security: Mapping[str, str],
        max_request_bytes: int,
        scram: ScramLookup,
    ) -> SaslSettings:
        from odradek.security.sasl.authenticator import SaslSettings
        from odradek.security.sasl.oauthbearer import OAuthBearerServer
        from odradek.security.sasl.plain import PlainServer
        from odradek.security.sasl.scram import ScramServer

        name = self.spec.name
        text = listener_setting(security, name, "sasl.enabled.mechanisms", "GSSAPI") or ""
        wanted = [m.strip().upper() for m in text.split(",") if m.strip()]
        # Kafka offers them in the order of its map of mechanisms.
        mechanisms = tuple(java_hash_order(dict.fromkeys(m for m in wanted if m in SUPPORTED_MECHANISMS), string_hash))
        for dropped in (m for m in wanted if m not in SUPPORTED_MECHANISMS):
            log.warning("listener %s: SASL mechanism %s is not supported and is not offered", name, dropped)
        if not mechanisms:
            raise ConfigError(f"listener {name}: sasl.enabled.mechanisms names no supported mechanism ({text})")
        plain_users = {
            user[len("user_") :]: password
            for user, password in _jaas_options(security, name, "PLAIN").items()
            if user.startswith("user_")
        }
        oauth_options = _jaas_options(security, name, "OAUTHBEARER")
        prefix = f"listener.name.{name.lower()}."
        oauth_settings = {
            **{k: v for k, v in security.items() if k.startswith("sasl.oauthbearer.")},
            **{k[len(prefix) :]: v for k, v in security.items() if k.startswith(prefix + "sasl.oauthbearer.")},
            **{
                k[len(prefix + "oauthbearer.") :]: v
                for k, v in security.items()
                if k.startswith(prefix + "oauthbearer.sasl.oauthbearer.")
            },
            **{f"jaas.{k}": v for k, v in oauth_options.items()},
        }
        clock = self._clock

        def new_server(mechanism: str) -> SaslServer:
            if mechanism == "PLAIN":
                return PlainServer(plain_users)
            if mechanism.startswith("SCRAM-"):
                return ScramServer(mechanism, scram)
            return OAuthBearerServer(oauth_settings, clock)

        reauth = int(listener_setting(security, name, "connections.max.reauth.ms", "0") or "0")
        receive = int(
            listener_setting(security, name, "sasl.server.max.receive.size", str(SASL_SERVER_MAX_RECEIVE_SIZE)) or "0"
        )
        return SaslSettings(mechanisms, new_server, reauth, receive, max_request_bytes, self._error_answer)

    def prepare(self, connection: PreparedConnection) -> None:
        identity = connection.identity
        identity.listener = self.spec.name
        identity.protocol = self.spec.protocol.value
        identity.advertised = self.advertised
        if self._rules is not None:
            ssl_object = connection.transport.get_extra_info("ssl_object") if connection.transport else None
            der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
            if der:
                from odradek.security.ssl_principal import subject_name

                try:
                    identity.principal = KafkaPrincipal("User", self._rules.map(subject_name(der)))
                except ValueError as exc:
                    connection.abort(f"no principal for the client certificate: {exc}")
                    return
        if self._sasl is not None:
            from odradek.security.sasl.authenticator import SaslGate

            connection.gate = SaslGate(connection, self._sasl, self._clock)
