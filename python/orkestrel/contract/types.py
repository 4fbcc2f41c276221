"""Plain-data types of the contract surface: shapes, faults, JSON values and results."""

from __future__ import annotations

from typing import Any, Generic, Literal, NotRequired, TypeAlias, TypedDict, TypeVar

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
"""JSON data: `None`, booleans, finite numbers, strings, lists and `str`-keyed dicts."""

JSONSchema: TypeAlias = dict[str, Any]
"""A JSON Schema document, as a `dict`."""

LiteralValue: TypeAlias = str | int | float | bool
"""A member of a literal shape: a string, a number or a boolean."""

FaultKind = Literal[
    "string", "number", "integer", "boolean", "null", "literal", "array", "object", "union", "json"
]
"""The kind of value a fault expected: a shape's type, or `integer` for a whole-number shape."""


class StringShape(TypedDict):
    """Shape data declaring a string, with optional code-point length bounds and an ECMAScript
    pattern.
    """

    type: Literal["string"]
    min: NotRequired[int]
    max: NotRequired[int]
    pattern: NotRequired[str]
    description: NotRequired[str]


class NumberShape(TypedDict):
    """Shape data declaring a finite number, with optional inclusive bounds; `integer` demands a
    whole number.
    """

    type: Literal["number"]
    min: NotRequired[int | float]
    max: NotRequired[int | float]
    integer: NotRequired[bool]
    description: NotRequired[str]


class BooleanShape(TypedDict):
    """Shape data declaring a boolean: `True` or `False`."""

    type: Literal["boolean"]
    description: NotRequired[str]


class NullShape(TypedDict):
    """Shape data declaring `None`."""

    type: Literal["null"]
    description: NotRequired[str]


class JsonShape(TypedDict):
    """Shape data declaring any JSON value."""

    type: Literal["json"]
    description: NotRequired[str]


class LiteralShape(TypedDict):
    """Shape data declaring one of a fixed list of strings, numbers or booleans."""

    type: Literal["literal"]
    values: list[LiteralValue]
    description: NotRequired[str]


class ArrayShape(TypedDict):
    """Shape data declaring a list whose items all satisfy one shape, with optional length
    bounds.
    """

    type: Literal["array"]
    items: ContractShape
    min: NotRequired[int]
    max: NotRequired[int]
    description: NotRequired[str]


class ObjectShape(TypedDict):
    """Shape data declaring a record of named properties; undeclared keys are refused unless
    `additionalProperties` opens it.
    """

    type: Literal["object"]
    properties: dict[str, ContractShape]
    additionalProperties: NotRequired[bool | ContractShape]
    description: NotRequired[str]


class UnionShape(TypedDict):
    """Shape data declaring a value that satisfies any of several shapes (`anyOf`), or exactly one
    of them (`mode: "oneOf"`).
    """

    type: Literal["union"]
    variants: list[ContractShape]
    mode: NotRequired[Literal["anyOf", "oneOf"]]
    description: NotRequired[str]


class OptionalShape(TypedDict):
    """Shape data marking an object property that may be missing."""

    type: Literal["optional"]
    inner: ContractShape


class NullableShape(TypedDict):
    """Shape data declaring `None` or a value of the inner shape."""

    type: Literal["nullable"]
    inner: ContractShape


class RawShape(TypedDict):
    """Shape data embedding a JSON Schema verbatim; it accepts any value."""

    type: Literal["raw"]
    schema: JSONSchema


ContractShape: TypeAlias = (
    StringShape
    | NumberShape
    | BooleanShape
    | NullShape
    | JsonShape
    | LiteralShape
    | ArrayShape
    | ObjectShape
    | UnionShape
    | OptionalShape
    | NullableShape
    | RawShape
)
"""Any shape declaration: one of the twelve shape data types."""


class TypeFault(TypedDict):
    """Reports a value of the wrong type, one that no coercion turns into the expected kind."""

    reason: Literal["type"]
    path: list[str]
    expected: FaultKind
    received: str


class MissingFault(TypedDict):
    """Reports a required object property that is absent."""

    reason: Literal["missing"]
    path: list[str]
    expected: FaultKind


class ConstraintFault(TypedDict):
    """Reports a value of the right type that breaks a bound, the pattern or the integer rule."""

    reason: Literal["constraint"]
    path: list[str]
    expected: FaultKind
    constraint: Literal["min", "max", "pattern", "integer"]
    limit: NotRequired[int | float | str]
    received: str


class VariantFault(TypedDict):
    """Reports that no variant of an `anyOf` union accepted the value; the closest variant's faults
    follow it.
    """

    reason: Literal["variant"]
    path: list[str]
    variants: int


class OneOfFault(TypedDict):
    """Reports that a `oneOf` union matched zero variants (the closest variant's faults follow) or
    several.
    """

    reason: Literal["oneOf"]
    path: list[str]
    matched: int


Fault: TypeAlias = TypeFault | MissingFault | ConstraintFault | VariantFault | OneOfFault
"""One entry of an `explain` report: a type, missing, constraint, variant or oneOf fault."""

T = TypeVar("T")


class Success(TypedDict, Generic[T]):
    """The outcome `attempt` gives for a callback that returned: `success` is `True`, `value` its
    value.
    """

    success: Literal[True]
    value: T


class Failure(TypedDict):
    """The outcome `attempt` gives for a callback that raised: `success` is `False`, `error` the
    exception.
    """

    success: Literal[False]
    error: Exception


Result: TypeAlias = Success[T] | Failure
"""The outcome of `attempt`: the callback's value or the exception it raised."""
