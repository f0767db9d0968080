"""Declarative message schemas: one definition per Kafka message, covering all of its versions.

A definition is a tree of `Field`s.  Each field says in which versions it exists, in which it
may be null, whether it is a tagged field (and its tag), and its default.  The message compiler
(`odradek.wire.compiler`) compiles a definition once per version into encoder/decoder plans.

Decoded values are instances of classes generated here, one per `Struct`: slotted, built with
keyword arguments, every absent field set to its default.  Nested struct classes hang off
their parent class by struct name, so handlers write
``ProduceResponse.TopicProduceResponse(name=..., partition_responses=[...])``.

Invariants:
- field names are unique within a struct; tags are unique within a struct;
- a tagged field is only present in flexible versions;
- every instance carries ``unknown_tags`` (tag -> raw bytes) so unknown tagged fields survive
  a decode/encode round trip.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, cast

__all__ = [
    "BOOL",
    "BYTES",
    "FLOAT64",
    "INT8",
    "INT16",
    "INT32",
    "INT64",
    "RECORDS",
    "STRING",
    "UINT16",
    "UUID",
    "ArrayOf",
    "Field",
    "Kind",
    "Message",
    "Primitive",
    "Struct",
    "StructValue",
    "Versions",
]


class Primitive(Enum):
    """Scalar wire types; the value is Kafka's type name."""

    BOOL = "bool"
    INT8 = "int8"
    INT16 = "int16"
    UINT16 = "uint16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT64 = "float64"
    STRING = "string"
    BYTES = "bytes"
    UUID = "uuid"
    RECORDS = "records"


BOOL = Primitive.BOOL
INT8 = Primitive.INT8
INT16 = Primitive.INT16
UINT16 = Primitive.UINT16
INT32 = Primitive.INT32
INT64 = Primitive.INT64
FLOAT64 = Primitive.FLOAT64
STRING = Primitive.STRING
BYTES = Primitive.BYTES
UUID = Primitive.UUID
RECORDS = Primitive.RECORDS

ZERO_UUID = b"\x00" * 16

_PRIMITIVE_DEFAULTS: dict[Primitive, Any] = {
    BOOL: False,
    INT8: 0,
    INT16: 0,
    UINT16: 0,
    INT32: 0,
    INT64: 0,
    FLOAT64: 0.0,
    STRING: "",
    BYTES: b"",
    UUID: ZERO_UUID,
    RECORDS: None,
}


@dataclass(frozen=True, slots=True)
class Versions:
    """An inclusive version range; ``high`` None means open-ended; an empty range has low > high.

    Parsed from Kafka's notation: ``"3+"``, ``"0-12"``, ``"5"``, ``"none"``.  The message
    definitions parse the same few texts thousands of times at import, so each text is parsed once
    and its (immutable) range shared.
    """

    low: int
    high: int | None

    @classmethod
    @functools.cache
    def parse(cls, text: str) -> Versions:
        text = text.strip()
        if text == "none":
            return cls(1, 0)
        if text.endswith("+"):
            return cls(int(text[:-1]), None)
        if "-" in text:
            low, high = text.split("-")
            return cls(int(low), int(high))
        return cls(int(text), int(text))

    def __contains__(self, version: object) -> bool:
        if not isinstance(version, int):
            return False
        return self.low <= version and (self.high is None or version <= self.high)

    def is_empty(self) -> bool:
        return self.high is not None and self.low > self.high


@dataclass(frozen=True, slots=True)
class ArrayOf:
    """An array of a primitive or of a struct."""

    element: Primitive | Struct


FieldType = Primitive | ArrayOf


class _Missing:
    """Marker for 'no explicit default': the type's natural default applies."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a struct.

    ``type`` is a primitive, an ``ArrayOf``, or a ``Struct`` (a single nested struct).
    ``versions`` is where the field exists; ``nullable`` where it may be null;
    ``tag``/``tagged`` make it a tagged field in those versions; ``ignorable`` lets a non-default
    value be silently dropped when encoding a version that lacks the field.
    """

    name: str
    type: Primitive | ArrayOf | Struct
    versions: Versions
    nullable: Versions
    tag: int | None
    tagged: Versions
    default: Any
    ignorable: bool

    def __init__(
        self,
        name: str,
        type: Primitive | ArrayOf | Struct,
        versions: str = "0+",
        *,
        nullable: str = "none",
        tag: int | None = None,
        tagged: str | None = None,
        default: Any = MISSING,
        ignorable: bool = False,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "versions", Versions.parse(versions))
        object.__setattr__(self, "nullable", Versions.parse(nullable))
        object.__setattr__(self, "tag", tag)
        tagged_versions = Versions.parse(tagged if tagged is not None else ("none" if tag is None else versions))
        object.__setattr__(self, "tagged", tagged_versions)
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "ignorable", ignorable)

    def default_value(self) -> Any:
        """A fresh default value (lists and structs are new objects every call)."""
        if self.default is not MISSING:
            return list(self.default) if isinstance(self.default, list) else self.default
        if isinstance(self.type, ArrayOf):
            return []
        if isinstance(self.type, Struct):
            return self.type.cls()
        return _PRIMITIVE_DEFAULTS[self.type]

    def is_default(self, value: Any) -> bool:
        if self.default is not MISSING:
            return bool(value == self.default)
        if isinstance(self.type, ArrayOf):
            return value is None or len(value) == 0
        if isinstance(self.type, Struct):
            return value is None or value == self.type.default_instance()
        return bool(value == _PRIMITIVE_DEFAULTS[self.type])

    def default_factory(self) -> Callable[[], Any]:
        """A zero-argument callable that builds a fresh default (cheapest form for hot paths)."""
        if self.default is MISSING and isinstance(self.type, Struct):
            return self.type.cls
        if self.default is MISSING and isinstance(self.type, ArrayOf):
            return list
        return self.default_value

    def needs_fresh_default(self) -> bool:
        """Whether the default is a mutable object (list or struct) each instance must own."""
        if self.default is not MISSING:
            return isinstance(self.default, list)
        return isinstance(self.type, ArrayOf | Struct)


class StructValue:
    """Base of every generated struct class.

    Each class built by `Struct` gets its own keyword-only ``__init__`` (absent fields take
    their defaults; unknown keywords raise TypeError) and a field-by-field ``__eq__``, both
    generated by `_generated_methods`; this base adds repr and refuses hashing.
    """

    __slots__ = ("unknown_tags",)
    _schema: ClassVar[Struct]
    unknown_tags: dict[int, bytes]

    if TYPE_CHECKING:
        # The generated stubs (`odradek.wire.stubgen`) give each value class its own fields and
        # keyword-only constructor; this one is all a class without a stub offers.
        def __init__(self, **values: Any) -> None: ...

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in self._schema.fields)
        return f"{type(self).__name__}({inner})"


if TYPE_CHECKING:
    from typing_extensions import TypeVar

    V = TypeVar("V", bound=StructValue, default=Any)
else:
    from typing import TypeVar

    V = TypeVar("V", bound=StructValue)
"""The value class of a `Message`.  A message without a generated stub is ``Message[Any]``
(the default is for type checkers only: Python 3.11's TypeVar takes none)."""


@dataclass(eq=False)
class Struct:
    """A named group of fields; its generated value class is ``cls``."""

    name: str
    fields: tuple[Field, ...]
    cls: type[StructValue] = field(init=False, repr=False)

    def __init__(self, name: str, fields: Sequence[Field]) -> None:
        self.name = name
        self.fields = tuple(fields)
        _check_unique(name, self.fields)
        self._default_instance: StructValue | None = None
        namespace: dict[str, Any] = {"__slots__": tuple(f.name for f in self.fields), "_schema": self}
        namespace.update(_LAZY_METHODS)
        for nested in _nested_structs(self.fields):
            namespace[nested.name] = nested.cls
        self.cls = type(name, (StructValue,), namespace)

    def default_instance(self) -> StructValue:
        """One shared all-defaults value, for comparisons only (never hand it out to mutate)."""
        if self._default_instance is None:
            self._default_instance = self.cls()
        return self._default_instance


_FRESH = object()


def _install_generated_methods(cls: type[StructValue]) -> None:
    """Give ``cls`` its straight-line ``__init__`` and ``__eq__`` (`_generated_methods`)."""
    for name, method in _generated_methods(cls._schema.fields).items():
        setattr(cls, name, method)


def _first_init(self: StructValue, **values: Any) -> None:
    """A struct class's ``__init__`` until its first instance: it generates the real one.

    Generating both methods for every struct at import would cost each process the compile of
    about 170 structs; most of them are never built, so each class compiles its own on first use."""
    cls = type(self)
    _install_generated_methods(cls)
    cls.__init__(self, **values)


def _first_eq(self: StructValue, other: object) -> bool:
    cls = type(self)
    _install_generated_methods(cls)
    return bool(cls.__eq__(self, other))


_LAZY_METHODS = {"__init__": _first_init, "__eq__": _first_eq}


def _generated_methods(fields: tuple[Field, ...]) -> dict[str, Any]:
    """``__init__`` and ``__eq__`` written out for one struct's fields.

    The generic versions in `StructValue` walk the fields with getattr/setattr; responses
    with thousands of partitions build and compare thousands of values, so each struct
    class gets straight-line methods with the same behaviour: keyword-only arguments,
    immutable defaults shared, lists and structs built anew, unknown keywords refused.
    """
    scope: dict[str, Any] = {"_FRESH": _FRESH}
    params, body = [], []
    for i, f in enumerate(fields):
        if f.needs_fresh_default():
            scope[f"_new{i}"] = f.default_factory()
            params.append(f"{f.name}=_FRESH")
            body.append(f"    self.{f.name} = _new{i}() if {f.name} is _FRESH else {f.name}")
        else:
            scope[f"_default{i}"] = f.default_value()
            params.append(f"{f.name}=_default{i}")
            body.append(f"    self.{f.name} = {f.name}")
    params.append("unknown_tags=None")
    body.append("    self.unknown_tags = {} if unknown_tags is None else unknown_tags")
    compared = [f"self.{f.name} == other.{f.name}" for f in fields] + ["self.unknown_tags == other.unknown_tags"]
    source = "\n".join(
        [
            f"def __init__(self, *, {', '.join(params)}):",
            *body,
            "def __eq__(self, other):",
            "    if type(other) is not type(self):",
            "        return NotImplemented",
            f"    return {' and '.join(compared)}",
        ]
    )
    exec(compile(source, "<odradek.wire.schema generated>", "exec"), scope)
    return {"__init__": scope["__init__"], "__eq__": scope["__eq__"]}


def _check_unique(owner: str, fields: Iterable[Field]) -> None:
    names: set[str] = set()
    tags: set[int] = set()
    for f in fields:
        if f.name in names:
            raise ValueError(f"{owner}: duplicate field {f.name}")
        names.add(f.name)
        if f.tag is not None:
            if f.tag in tags:
                raise ValueError(f"{owner}: duplicate tag {f.tag}")
            tags.add(f.tag)


def _nested_structs(fields: Iterable[Field]) -> list[Struct]:
    nested: list[Struct] = []
    for f in fields:
        if isinstance(f.type, Struct):
            nested.append(f.type)
        elif isinstance(f.type, ArrayOf) and isinstance(f.type.element, Struct):
            nested.append(f.type.element)
    return nested


class Kind(Enum):
    REQUEST = "request"
    RESPONSE = "response"


@dataclass(eq=False)
class Message(Generic[V]):
    """A top-level request or response: a struct plus its API key and version ranges.

    ``V`` is its value class; the generated stubs declare each message as a subclass of
    ``Message[<name>Value]`` with a typed ``__call__`` and its nested classes as attributes.
    """

    name: str
    api_key: int
    kind: Kind
    valid: Versions
    flexible: Versions
    struct: Struct

    def __init__(
        self,
        name: str,
        *,
        api_key: int,
        kind: Kind,
        valid: str,
        flexible: str,
        fields: Sequence[Field],
    ) -> None:
        self.name = name
        self.api_key = api_key
        self.kind = kind
        self.valid = Versions.parse(valid)
        self.flexible = Versions.parse(flexible)
        self.struct = Struct(name, fields)
        self._cls = cast("type[V]", self.struct.cls)

    @property
    def cls(self) -> type[V]:
        return self._cls

    def __call__(self, *args: Any, **values: Any) -> V:
        """Build a value of this message: ``MetadataResponse(topics=[...])``.

        Value classes take keywords only, so any ``args`` raise TypeError; the gradual
        signature is what lets each generated stub narrow it to the message's own keywords.
        """
        return self._cls(*args, **values)

    if not TYPE_CHECKING:
        # Hidden from type checkers: the stubs declare every nested class, so a misspelt one is
        # a type error rather than Any.
        def __getattr__(self, name: str) -> Any:
            """Nested struct classes by name: ``ProduceResponse.TopicProduceResponse``."""
            struct = self.__dict__.get("struct")
            if struct is not None and hasattr(struct.cls, name) and name[:1].isupper():
                return getattr(struct.cls, name)
            raise AttributeError(name)

    def is_flexible(self, version: int) -> bool:
        return version in self.flexible
