"""Helpers of the contract surface: previews, number text, JSON data and `attempt`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from orkestrel._core import (
    PREVIEW_LIMIT,
    clone_json_record,
    clone_json_value,
    is_json_value,
    number_to_string,
    preview,
)
from orkestrel.contract.errors import ContractError, ParseError
from orkestrel.contract.types import Failure, JSONSchema, Result, Success, TypeFault

T = TypeVar("T")

__all__ = [
    "PREVIEW_LIMIT",
    "attempt",
    "clone_json_record",
    "clone_json_value",
    "is_json_value",
    "number_to_string",
    "parse_json_value",
    "preview",
    "schema_to_object",
    "schema_to_parameters",
]


def attempt(callback: Callable[[], T]) -> Result[T]:
    """Calls `callback` once and returns its value or the exception it raised, untouched."""
    try:
        value = callback()
    except Exception as error:
        return Failure(success=False, error=error)
    return Success(success=True, value=value)


def parse_json_value(value: Any) -> Any:
    """Returns `value` itself when it is JSON data, else raises `ParseError`.

    JSON data is `None`, `bool`, `str`, finite `int`/`float`, lists of JSON data and dicts
    with `str` keys holding JSON data, with no cycles.
    """
    if is_json_value(value):
        return value
    fault = TypeFault(reason="type", path=[], expected="json", received=preview(value))
    raise ParseError([fault])


def schema_to_object(schema: Any) -> JSONSchema:
    """Wraps a schema as an object schema with one required `value` property.

    An object schema (`type` is `"object"`) is returned unchanged.
    """
    if schema is None:
        raise ContractError(
            "schema_to_object: schema could not be read", code="structure", context={}
        )
    if isinstance(schema, dict) and _is_text(dict.get(schema, "type"), "object"):
        return schema
    return {
        "type": "object",
        "properties": {"value": schema},
        "required": ["value"],
        "additionalProperties": False,
    }


def schema_to_parameters(schema: Any) -> JSONSchema | None:
    """Returns `schema` when it is a record (a dict with `str` keys), else `None`."""
    if schema is None:
        raise ContractError(
            "schema_to_parameters: value could not be read", code="structure", context={}
        )
    if isinstance(schema, dict) and all(type(key) is str for key in dict.keys(schema)):
        return schema
    return None


def _is_text(value: object, expected: str) -> bool:
    return isinstance(value, str) and str.__eq__(value, expected) is True
