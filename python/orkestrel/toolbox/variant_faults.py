"""Naming the forms a value may take where a union refused it, so a refusal says what was
expected (`key: expected array, string or number, received object`) rather than how many
variants there were (`key: no variant of 3 matched`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def name_variants(schema: Mapping[str, Any], faults: Sequence[Any]) -> list[Any]:
    """`faults` (an `explain` report against `schema`) with each variant fault whose union's
    variants are all plain JSON types, and whose closest variant refused the value's type,
    merged with that type fault into one: the union's types expected, the value received.

    A value whose type one of the variants has (a list against a union that takes a list) is
    left as reported: the closest variant's deeper faults say what is wrong inside it."""
    named: list[Any] = []
    index = 0
    while index < len(faults):
        fault = faults[index]
        after = faults[index + 1] if index + 1 < len(faults) else None
        kinds = _kinds(schema, fault)
        if (
            kinds is not None
            and isinstance(after, Mapping)
            and after.get("reason") == "type"
            and after.get("path") == fault.get("path")
            and after.get("received") not in kinds
        ):
            expected = ", ".join(kinds[:-1]) + " or " + kinds[-1]
            named.append({**after, "expected": expected})
            index += 2
            continue
        named.append(fault)
        index += 1
    return named


def _kinds(schema: Mapping[str, Any], fault: Any) -> list[str] | None:
    if not isinstance(fault, Mapping) or fault.get("reason") != "variant":
        return None
    node = _at(schema, fault.get("path") or [])
    variants = None if node is None else node.get("anyOf")
    if not isinstance(variants, list) or len(variants) < 2:
        return None
    kinds = [variant.get("type") if isinstance(variant, Mapping) else None for variant in variants]
    if not all(isinstance(kind, str) for kind in kinds):
        return None
    return [str(kind) for kind in kinds]


def _at(schema: Mapping[str, Any], path: Sequence[Any]) -> Mapping[str, Any] | None:
    """The schema of the value at `path`, through properties and items; at a union, the first
    variant that can hold the next step."""
    node: Any = schema
    for segment in path:
        if not isinstance(node, Mapping):
            return None
        union = node.get("anyOf")
        choices: list[Any] = union if isinstance(union, list) else [node]
        node = next(
            (found for choice in choices if (found := _step(choice, segment)) is not None), None
        )
    return node if isinstance(node, Mapping) else None


def _step(node: Any, segment: Any) -> Any:
    if not isinstance(node, Mapping):
        return None
    if isinstance(segment, int):
        return node.get("items")
    properties = node.get("properties")
    return properties.get(segment) if isinstance(properties, Mapping) else None
