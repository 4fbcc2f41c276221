"""Shape builders: plain-data declarations checked by the Rust declaration gate.

Every builder drops options left as `None`, checks its arguments in the reference order and
raises `ContractError` with the reference `code` and `context` on the first failure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

from orkestrel._core import check_shape
from orkestrel._core import schema_to_shape as _schema_to_shape
from orkestrel._core import validate_shape as _validate_shape
from orkestrel.contract.errors import ContractError
from orkestrel.contract.types import (
    ArrayShape,
    BooleanShape,
    ContractShape,
    JSONSchema,
    JsonShape,
    LiteralShape,
    LiteralValue,
    NullableShape,
    NullShape,
    NumberShape,
    ObjectShape,
    OptionalShape,
    RawShape,
    StringShape,
    UnionShape,
)

_FLAG_LETTERS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.VERBOSE, "x"))


def _build(builder: str, **fields: Any) -> Any:
    return check_shape(builder, {key: value for key, value in fields.items() if value is not None})


def _source(pattern: str | re.Pattern[str] | None) -> Any:
    if not isinstance(pattern, re.Pattern):
        return pattern
    extra = pattern.flags & ~re.UNICODE
    if extra:
        letters = "".join(letter for flag, letter in _FLAG_LETTERS if extra & flag) or "a"
        raise ContractError(
            "string_shape: pattern must not use flags; use inline pattern constructs instead",
            code="pattern",
            context={"shape": "string", "received": f"/{pattern.pattern}/{letters}"},
        )
    return pattern.pattern


def string_shape(
    *,
    min: int | None = None,
    max: int | None = None,
    pattern: str | re.Pattern[str] | None = None,
    description: str | None = None,
) -> StringShape:
    """Declares a string, with code-point length bounds and an ECMAScript pattern (searched)."""
    shape = _build(
        "string_shape",
        type="string",
        min=min,
        max=max,
        pattern=_source(pattern),
        description=description,
    )
    return cast(StringShape, shape)


def number_shape(
    *,
    min: float | None = None,
    max: float | None = None,
    integer: bool | None = None,
    description: str | None = None,
) -> NumberShape:
    """Declares a finite number (never a `bool`), with inclusive bounds."""
    shape = _build(
        "number_shape", type="number", min=min, max=max, integer=integer, description=description
    )
    return cast(NumberShape, shape)


def integer_shape(
    *, min: float | None = None, max: float | None = None, description: str | None = None
) -> NumberShape:
    """Declares a whole number (an `int`, or a finite `float` such as `2.0`), with bounds."""
    shape = _build(
        "integer_shape", type="number", min=min, max=max, integer=True, description=description
    )
    return cast(NumberShape, shape)


def boolean_shape(*, description: str | None = None) -> BooleanShape:
    """Declares a boolean."""
    return cast(BooleanShape, _build("boolean_shape", type="boolean", description=description))


def null_shape(*, description: str | None = None) -> NullShape:
    """Declares `None`."""
    return cast(NullShape, _build("null_shape", type="null", description=description))


def json_shape(*, description: str | None = None) -> JsonShape:
    """Declares any JSON value."""
    return cast(JsonShape, _build("json_shape", type="json", description=description))


def literal_shape(
    values: Sequence[LiteralValue], *, description: str | None = None
) -> LiteralShape:
    """Declares one of a fixed, non-empty list of unique strings, numbers or booleans."""
    members = list(values) if isinstance(values, tuple) else values
    shape = _build("literal_shape", type="literal", values=members, description=description)
    return cast(LiteralShape, shape)


def array_shape(
    items: ContractShape,
    *,
    min: int | None = None,
    max: int | None = None,
    description: str | None = None,
) -> ArrayShape:
    """Declares a list whose items all satisfy `items`, with length bounds."""
    shape = _build(
        "array_shape", type="array", items=items, min=min, max=max, description=description
    )
    return cast(ArrayShape, shape)


def object_shape(
    properties: Mapping[str, ContractShape],
    *,
    additional_properties: bool | ContractShape | None = None,
    description: str | None = None,
) -> ObjectShape:
    """Declares a record; wrap a property in `optional_shape` to let it be missing.

    Undeclared keys are refused (and dropped by `parse`) unless `additional_properties` is
    `True` or a shape that every extra value must satisfy.
    """
    shape = _build(
        "object_shape",
        type="object",
        properties=properties,
        additionalProperties=additional_properties,
        description=description,
    )
    return cast(ObjectShape, shape)


def record_shape(values: ContractShape, *, description: str | None = None) -> ObjectShape:
    """Declares a record of any keys whose values all satisfy `values`."""
    fields = {"type": "object", "properties": {}, "additionalProperties": values}
    if description is not None:
        fields["description"] = description
    return cast(ObjectShape, check_shape("record_shape", fields))


def union_shape(*variants: ContractShape) -> UnionShape:
    """Declares a value that satisfies at least one of the variants (JSON Schema `anyOf`)."""
    return cast(UnionShape, check_shape("union_shape", {"type": "union", "variants": [*variants]}))


def one_of_shape(*variants: ContractShape) -> UnionShape:
    """Declares a value that satisfies exactly one of the variants (JSON Schema `oneOf`)."""
    shape = {"type": "union", "variants": [*variants], "mode": "oneOf"}
    return cast(UnionShape, check_shape("one_of_shape", shape))


def optional_shape(inner: ContractShape) -> OptionalShape:
    """Marks an object property as optional; legal only as a direct property value."""
    return cast(OptionalShape, check_shape("optional_shape", {"type": "optional", "inner": inner}))


def nullable_shape(inner: ContractShape) -> NullableShape:
    """Declares `None` or a value of the inner shape."""
    return cast(NullableShape, check_shape("nullable_shape", {"type": "nullable", "inner": inner}))


def raw_shape(schema: JSONSchema) -> RawShape:
    """Embeds a JSON Schema verbatim (deep-copied); it is emitted as is and accepts anything."""
    return cast(RawShape, check_shape("raw_shape", {"type": "raw", "schema": schema}))


def validate_shape(shape: Any) -> ContractShape:
    """Checks a hand-assembled shape graph through the declaration gate; returns a fresh copy."""
    return cast(ContractShape, _validate_shape(shape))


def schema_to_shape(schema: Any) -> ContractShape:
    """Widens a JSON Schema into a shape that accepts at least what the schema accepts.

    Keywords a shape cannot assert (`format`, `pattern`, `$ref`, `const`, type arrays, …) are
    ignored; unknown nodes become raw shapes. A `oneOf` stays exclusive only when its converted
    variants cannot overlap, else it becomes `anyOf`. Depth is limited to 32 and breadth to 256.
    """
    return cast(ContractShape, _schema_to_shape(schema))
