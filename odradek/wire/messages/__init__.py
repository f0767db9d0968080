"""Every message definition, indexed by API key.

``ALL_MESSAGES`` maps an API key to its ``(request, response)`` pair, built at import from the
family modules.  Invariants, checked at import (a violation raises ``ValueError``):
- each API key has exactly one request and one response definition;
- a request and its response share the API key, the valid versions and the flexible versions
  (Kafka bumps both together).
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType

from odradek.wire.messages import (
    acls,
    api_versions,
    cluster,
    configs,
    coordinator,
    fetch,
    groups,
    list_offsets,
    metadata,
    offsets,
    produce,
    quotas,
    security,
    topics,
    txn,
)
from odradek.wire.schema import Kind, Message

__all__ = ["ALL_MESSAGES", "FAMILIES", "index_messages"]

FAMILIES: tuple[ModuleType, ...] = (
    api_versions,
    metadata,
    topics,
    produce,
    fetch,
    list_offsets,
    coordinator,
    groups,
    offsets,
    txn,
    configs,
    cluster,
    security,
    acls,
    quotas,
)


def index_messages(modules: Iterable[ModuleType]) -> dict[int, tuple[Message, Message]]:
    """Pair the `Message` objects named in each module's ``__all__`` by API key, ascending.

    Raises ``ValueError`` on an exported name that is not a `Message`, on a duplicate request or
    response for one key, on a key with only one half, and on a pair whose version ranges disagree.
    """
    found: dict[Kind, dict[int, Message]] = {Kind.REQUEST: {}, Kind.RESPONSE: {}}
    for module in modules:
        for name in module.__all__:
            message = getattr(module, name)
            if not isinstance(message, Message):
                raise ValueError(f"{module.__name__}.{name} is exported but is not a Message")
            table = found[message.kind]
            previous = table.get(message.api_key)
            if previous is not None:
                raise ValueError(
                    f"api key {message.api_key} has two {message.kind.value}s: "
                    f"{previous.name} and {message.name} ({module.__name__})"
                )
            table[message.api_key] = message
    requests, responses = found[Kind.REQUEST], found[Kind.RESPONSE]
    unpaired = requests.keys() ^ responses.keys()
    if unpaired:
        raise ValueError(f"api keys without both a request and a response: {sorted(unpaired)}")
    pairs: dict[int, tuple[Message, Message]] = {}
    for key in sorted(requests):
        request, response = requests[key], responses[key]
        if request.valid != response.valid or request.flexible != response.flexible:
            raise ValueError(f"{request.name} and {response.name} disagree on their version ranges")
        pairs[key] = (request, response)
    return pairs


ALL_MESSAGES: dict[int, tuple[Message, Message]] = index_messages(FAMILIES)
