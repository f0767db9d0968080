"""Import rules of the layers, and no import cycle between odradek's modules.

Every ``import`` statement counts, also those under ``if TYPE_CHECKING:`` and inside functions:
a cycle that only the type checker follows still ties two layers together.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import odradek

ROOT = Path(odradek.__file__).parent
NETWORK = {"asyncio", "socket"}

# layer -> the odradek modules it may import (its own package always allowed)
ALLOWED: dict[str, tuple[str, ...]] = {
    "odradek.wire": (),
    # The console is a Kafka client: it reaches a cluster only through the command line's client.
    "odradek.console": ("odradek.cli.client", "odradek.cli.common", "odradek.cli.logdirs", "odradek.clock"),
    "odradek.storage": ("odradek.wire.records", "odradek.clock"),
    "odradek.txn": ("odradek.wire", "odradek.storage", "odradek.clock", "odradek.coordinator.placement"),
    "odradek.partition": (
        "odradek.storage",
        "odradek.txn",
        "odradek.wire",
        "odradek.clock",
        "odradek.scheduler",
        "odradek.config",
        "odradek.cluster.topics",
    ),
    "odradek.config": ("odradek.storage.log_config", "odradek.storage.filesystem", "odradek.java_hash"),
    "odradek.security": (
        "odradek.wire",
        "odradek.clock",
        "odradek.scheduler",
        "odradek.config",
        "odradek.storage.filesystem",
        "odradek.java_hash",
    ),
    "odradek.coordinator": (
        "odradek.wire",
        "odradek.clock",
        "odradek.scheduler",
        "odradek.java_hash",
        "odradek.config",
        "odradek.cluster.topics",
        "odradek.partition.service",
    ),
}
# layer -> odradek modules it must never import
# The test double (odradek.testing, odradek.embedded) sits above the broker: only the command
# line may reach it, and the broker, handlers and server never know it.
_DOUBLE = ("odradek.testing", "odradek.embedded")
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "odradek.handlers": ("odradek.broker", "odradek.server", "odradek.cli", *_DOUBLE),
    "odradek.partition": ("odradek.handlers", "odradek.broker", "odradek.server", "odradek.coordinator", *_DOUBLE),
    "odradek.broker": _DOUBLE,
    "odradek.server": _DOUBLE,
    "odradek.coordinator": _DOUBLE,
    "odradek.testing": ("odradek.cli",),
}
NO_NETWORK = (
    "odradek.wire",
    "odradek.storage",
    "odradek.txn",
    "odradek.config",
    "odradek.coordinator.coordinator",
    "odradek.security",
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Every module ``name`` imports (``from a import b`` counts as ``a.b`` when that is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES)
    return found


GRAPH = {name: {i for i in _imports(name, path) if i in MODULES and i != name} for name, path in MODULES.items()}
EXTERNAL = {name: {i.split(".")[0] for i in _imports(name, path)} for name, path in MODULES.items()}


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_what_it_may(layer: str) -> None:
    members = [name for name in GRAPH if _within(name, layer)]
    assert len(members) >= 3
    for name in members:
        for imported in GRAPH[name]:
            allowed = _within(imported, layer) or any(_within(imported, p) for p in ALLOWED[layer])
            assert allowed, f"{name} imports {imported}"


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_a_layer_never_imports_what_it_must_not(layer: str) -> None:
    for name in (n for n in GRAPH if _within(n, layer)):
        for imported in GRAPH[name]:
            assert not any(_within(imported, p) for p in FORBIDDEN[layer]), f"{name} imports {imported}"


@pytest.mark.parametrize("layer", NO_NETWORK)
def test_sans_io_layers_never_import_asyncio_or_socket(layer: str) -> None:
    for name in (n for n in EXTERNAL if _within(n, layer)):
        assert not EXTERNAL[name] & NETWORK, f"{name} imports {EXTERNAL[name] & NETWORK}"


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph``, as the modules along it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        stack.append(name)
        for imported in sorted(graph[name]):
            if state.get(imported) == 1:
                return [*stack[stack.index(imported) :], imported]
            if imported not in state:
                found = visit(imported)
                if found is not None:
                    return found
        stack.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state:
            found = visit(name)
            if found is not None:
                return found
    return None


def test_no_import_cycle_anywhere() -> None:
    assert len(GRAPH) > 100
    cycle = _cycle(GRAPH)
    assert cycle is None, " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert "odradek.wire.api" in GRAPH["odradek.broker"] or any(
        "odradek.wire.api" in GRAPH[i] for i in GRAPH["odradek.broker"]
    )
    graph = {name: set(imports) for name, imports in GRAPH.items()}
    graph["odradek.wire.errors"].add("odradek.broker")
    assert _cycle(graph) is not None
