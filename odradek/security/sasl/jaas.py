"""Kafka's ``sasl.jaas.config`` text: ``<LoginModule class> <flag> key="value" ... ;``.

Only the options matter to the broker: PLAIN's users (``user_<name>="<password>"``) and
OAUTHBEARER's ``unsecuredLoginStringClaim_*`` and similar.  Values are double-quoted (``\\"`` and
``\\\\`` escaped) or bare words.  A text that does not parse is a `ConfigError` at start-up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from odradek.config.broker import ConfigError

__all__ = ["JaasEntry", "parse_jaas"]

_HEAD = re.compile(r"\s*([\w.$]+)\s+(required|requisite|sufficient|optional)\b", re.IGNORECASE)
_OPTION = re.compile(r'\s*([\w.\-$]+)\s*=\s*(?:"((?:\\.|[^"\\])*)"|([^\s;"]+))')
_END = re.compile(r"\s*;\s*")


@dataclass(frozen=True, slots=True)
class JaasEntry:
    login_module: str
    options: dict[str, str]


def parse_jaas(text: str, setting: str = "sasl.jaas.config") -> list[JaasEntry]:
    entries: list[JaasEntry] = []
    position = 0
    while position < len(text) and text[position:].strip():
        head = _HEAD.match(text, position)
        if head is None:
            raise ConfigError(f"{setting}: expected '<LoginModule> required ...' at {text[position:][:40]!r}")
        position = head.end()
        options: dict[str, str] = {}
        while True:
            end = _END.match(text, position)
            if end is not None:
                position = end.end()
                break
            option = _OPTION.match(text, position)
            if option is None:
                raise ConfigError(f"{setting}: expected key=value or ';' at {text[position:][:40]!r}")
            quoted, bare = option.group(2), option.group(3)
            value = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else bare
            options[option.group(1)] = value
            position = option.end()
        entries.append(JaasEntry(head.group(1), options))
    if not entries:
        raise ConfigError(f"{setting}: no login module")
    return entries
