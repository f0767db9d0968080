"""The principal of a TLS client: its certificate's subject, through ``ssl.principal.mapping.rules``.

Kafka's default principal builder names a TLS client ``User:<subject DN>`` (RFC 2253 form, last RDN
first: ``CN=alice,OU=eng,O=example,C=US``), then rewrites it with the mapping rules: a list of
``RULE:pattern/replacement/[LU]`` tried in order, the first whose pattern matches the whole DN wins
(``L``/``U`` lower- or upper-case the result); ``DEFAULT`` keeps the DN.  A client without a
certificate is ``User:ANONYMOUS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cryptography import x509

from odradek.config.broker import ConfigError

__all__ = ["MappingRules", "subject_name"]


def subject_name(der: bytes) -> str:
    """The certificate's subject in RFC 2253/4514 form."""
    return x509.load_der_x509_certificate(der).subject.rfc4514_string()


@dataclass(frozen=True, slots=True)
class _Rule:
    pattern: re.Pattern[str] | None  # None: DEFAULT
    replacement: str = ""
    case: str = ""

    def apply(self, name: str) -> str | None:
        if self.pattern is None:
            return name
        if self.pattern.fullmatch(name) is None:
            return None
        result = self.pattern.sub(self.replacement, name, count=1)
        return result.lower() if self.case == "L" else result.upper() if self.case == "U" else result


_RULE = re.compile(r"\s*(?:(DEFAULT)|RULE:((?:\\/|[^/])*)/((?:\\/|[^/])*)/([LU]?))\s*(?:,|$)")


def _java_replacement(text: str) -> str:
    """``$1`` group references (Java) as Python's ``\\g<1>``; ``\\/`` is a slash."""
    text = text.replace("\\/", "/")
    return re.sub(r"\$(\d+)", r"\\g<\1>", text.replace("\\", "\\\\").replace("\\\\g<", "\\g<"))


class MappingRules:
    """Parsed ``ssl.principal.mapping.rules``; `ConfigError` on text that is not a rule list."""

    def __init__(self, text: str = "DEFAULT") -> None:
        rules: list[_Rule] = []
        position, text = 0, text.strip()
        while position < len(text):
            match = _RULE.match(text, position)
            if match is None or match.end() == position:
                raise ConfigError(f"ssl.principal.mapping.rules: invalid rule at {text[position:]!r}")
            if match.group(1):
                rules.append(_Rule(None))
            else:
                pattern = match.group(2).replace("\\/", "/")
                try:
                    rules.append(_Rule(re.compile(pattern), _java_replacement(match.group(3)), match.group(4)))
                except re.error as exc:
                    raise ConfigError(f"ssl.principal.mapping.rules: {exc}") from None
            position = match.end()
        self._rules = rules or [_Rule(None)]

    def map(self, distinguished_name: str) -> str:
        for rule in self._rules:
            result = rule.apply(distinguished_name)
            if result is not None:
                return result
        raise ValueError(f"no rule applies to the principal name: {distinguished_name}")
