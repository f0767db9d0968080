"""Every registered handler is typed with its message's value classes, never ``Any``.

`Registry.api` is generic, so mypy checks a handler against its schemas, but only when the
handler says what it takes: a request annotated ``Any`` silently turns that check (and every
field access in the handler) off.  This reads each module under ``odradek/handlers`` with
``ast`` and requires, for every function decorated with ``registry.api(Request, Response, ...,
error_fn)``: ``request`` annotated ``<Request>Value``, the return annotated ``<Response>Value``
(or ``<Response>Value | None``, or ``<Response>Value | PreparedAnswer[<Response>Value]``),
and ``error_fn``, a function of the same module, taking ``<Request>Value`` first.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import odradek.handlers
from odradek.handlers import load_handlers

HANDLERS = Path(odradek.handlers.__file__).parent


def _registration(decorator: ast.expr) -> ast.Call | None:
    """The ``registry.api(...)`` call of a decorator, if it is one."""
    if (
        isinstance(decorator, ast.Call)
        and isinstance(decorator.func, ast.Attribute)
        and decorator.func.attr == "api"
        and isinstance(decorator.func.value, ast.Name)
        and decorator.func.value.id == "registry"
    ):
        return decorator
    return None


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else ast.unparse(node)


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    return fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs


def _annotation(arg: ast.arg | None) -> str | None:
    """A parameter's annotation as source text (None: no such parameter, or not annotated)."""
    return ast.unparse(arg.annotation) if arg is not None and arg.annotation is not None else None


def typing_problems(source: str, where: str) -> tuple[int, list[str]]:
    """(handlers found, problems) of one handler module's source."""
    tree = ast.parse(source)
    functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found, problems = 0, []
    for fn in functions.values():
        for call in filter(None, map(_registration, fn.decorator_list)):
            found += 1
            label = f"{where}:{fn.lineno} {fn.name}"
            if len(call.args) != 4:
                problems.append(f"{label}: registry.api takes (request, response, versions, error_fn)")
                continue
            request, response = _name(call.args[0]), _name(call.args[1])
            wanted = f"{request}Value"
            got = _annotation(next((a for a in _params(fn) if a.arg == "request"), None))
            if got != wanted:
                problems.append(f"{label}: request is annotated {got!r}, not {wanted!r}")
            returned = ast.unparse(fn.returns) if fn.returns is not None else None
            value = f"{response}Value"
            if returned not in (value, f"{value} | None", f"{value} | PreparedAnswer[{value}]"):
                problems.append(f"{label}: returns {returned!r}, not {value} (or | None)")
            responder = functions.get(_name(call.args[3]))
            if responder is None:
                problems.append(f"{label}: error responder {_name(call.args[3])!r} is not a function of the module")
            elif (got := _annotation(next(iter(_params(responder)), None))) != wanted:
                problems.append(f"{label}: error responder {responder.name} takes {got!r}, not {wanted!r}")
    return found, problems


def _modules() -> list[Path]:
    return sorted(HANDLERS.glob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.name)
def test_handlers_are_typed_with_their_message_values(path: Path) -> None:
    _, problems = typing_problems(path.read_text(encoding="utf-8"), path.name)
    assert problems == []


def test_every_registered_api_is_checked() -> None:
    """The AST walk sees exactly the handlers the registry serves, so none escapes the check."""
    found = sum(typing_problems(path.read_text(encoding="utf-8"), path.name)[0] for path in _modules())
    assert found == len(load_handlers().supported())


_UNTYPED = """
from typing import Any

def _error(request: Any, code: ErrorCode) -> Any:
    return ProduceResponse()

@registry.api(ProduceRequest, ProduceResponse, "0-13", _error)
async def produce(ctx: RequestContext, request: Any) -> Any:
    return None
"""

_TYPED = """
def _error(request: ProduceRequestValue, code: ErrorCode) -> ProduceResponseValue:
    return ProduceResponse()

@registry.api(ProduceRequest, ProduceResponse, "0-13", _error)
async def produce(ctx: RequestContext, request: ProduceRequestValue) -> ProduceResponseValue | None:
    return None
"""


def test_an_any_request_is_reported() -> None:
    found, problems = typing_problems(_UNTYPED, "untyped.py")
    assert found == 1
    assert problems == [
        "untyped.py:8 produce: request is annotated 'Any', not 'ProduceRequestValue'",
        "untyped.py:8 produce: returns 'Any', not ProduceResponseValue (or | None)",
        "untyped.py:8 produce: error responder _error takes 'Any', not 'ProduceRequestValue'",
    ]


def test_a_typed_handler_passes() -> None:
    assert typing_problems(_TYPED, "typed.py") == (1, [])
