"""Plain-data types of the contract surface: shapes, faults, JSON values and results."""

from __future__ import annotations

from typing import Any, Generic, Literal, NotRequired, TypeAlias, TypedDict, TypeVar

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
"""JSON data: `None`, booleans, finite numbers, strings, lists and `str`-keyed dicts."""

JSONSchema: TypeAlias = dict[str, Any]
"""A JSON Schema document."""

LiteralValue: TypeAlias = str | int | float | bool
"""A member of a literal shape: a string, a number or a boolean."""

FaultKind = Literal[
    "string", "number", "integer", "boolean", "null", "literal", "array", "object", "union", "json"
]
"""The kind a fault expected."""


class StringShape(TypedDict):
    """A string with optional UTF-16 length bounds and an ECMAScript pattern."""

    type: Literal["string"]
    min: NotRequired[int]
    max: NotRequired[int]
    pattern: NotRequired[str]
    description: NotRequired[str]


class NumberShape(TypedDict):
    """A finite number with optional bounds; `integer` demands a whole number."""

    type: Literal["number"]
    min: NotRequired[int | float]
    max: NotRequired[int | float]
    integer: NotRequired[bool]
    description: NotRequired[str]


class BooleanShape(TypedDict):
    """`True` or `False`."""

    type: Literal["boolean"]
    description: NotRequired[str]


class NullShape(TypedDict):
    """`None` only."""

    type: Literal["null"]
    description: NotRequired[str]


class JsonShape(TypedDict):
    """Any JSON value."""

    type: Literal["json"]
    description: NotRequired[str]


class LiteralShape(TypedDict):
    """One of a fixed list of strings, numbers or booleans."""

    type: Literal["literal"]
    values: list[LiteralValue]
    description: NotRequired[str]


class ArrayShape(TypedDict):
    """A list whose items all satisfy one shape, with optional length bounds."""

    type: Literal["array"]
    items: ContractShape
    min: NotRequired[int]
    max: NotRequired[int]
    description: NotRequired[str]


class ObjectShape(TypedDict):
    """A record with declared properties; extra keys are refused unless opened."""

    type: Literal["object"]
    properties: dict[str, ContractShape]
    additionalProperties: NotRequired[bool | ContractShape]
    description: NotRequired[str]


class UnionShape(TypedDict):
    """Any of several shapes (`anyOf`), or exactly one of them (`mode: "oneOf"`)."""

    type: Literal["union"]
    variants: list[ContractShape]
    mode: NotRequired[Literal["anyOf", "oneOf"]]
    description: NotRequired[str]


class OptionalShape(TypedDict):
    """An object property that may be missing."""

    type: Literal["optional"]
    inner: ContractShape


class NullableShape(TypedDict):
    """`None` or the inner shape."""

    type: Literal["nullable"]
    inner: ContractShape


class RawShape(TypedDict):
    """A JSON Schema embedded verbatim; it accepts any value."""

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
"""Any shape declaration."""


class TypeFault(TypedDict):
    """A value of the wrong type."""

    reason: Literal["type"]
    path: list[str]
    expected: FaultKind
    received: str


class MissingFault(TypedDict):
    """A required property that is absent."""

    reason: Literal["missing"]
    path: list[str]
    expected: FaultKind


class ConstraintFault(TypedDict):
    """A value of the right type that breaks a bound, pattern or integer rule."""

    reason: Literal["constraint"]
    path: list[str]
    expected: FaultKind
    constraint: Literal["min", "max", "pattern", "integer"]
    limit: NotRequired[int | float | str]
    received: str


class VariantFault(TypedDict):
    """No union variant accepted the value; the closest variant's faults follow."""

    reason: Literal["variant"]
    path: list[str]
    variants: int


class OneOfFault(TypedDict):
    """A `oneOf` union matched zero variants (closest faults follow) or several."""

    reason: Literal["oneOf"]
    path: list[str]
    matched: int


Fault: TypeAlias = TypeFault | MissingFault | ConstraintFault | VariantFault | OneOfFault
"""One entry of an `explain` report."""

T = TypeVar("T")


class Success(TypedDict, Generic[T]):
    """The outcome of a callback that returned."""

    success: Literal[True]
    value: T


class Failure(TypedDict):
    """The outcome of a callback that raised."""

    success: Literal[False]
    error: Exception


Result: TypeAlias = Success[T] | Failure
"""The outcome of `attempt`: the callback's value or the exception it raised."""
