"""One object schema for a union of object schemas, the only root every provider accepts."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

_UNIONS = ("anyOf", "oneOf")


def flatten_parameters(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Flattens a root `anyOf` or `oneOf` of object schemas into one object schema.

    The result accepts every value some arm accepts. Its properties are the union of the arms'
    properties; a property whose schemas differ between arms (descriptions aside) gets a nested
    `anyOf` of them; only a property every arm requires stays required; extra keys are refused
    only when every arm refuses them. When one property, required by every arm, holds a single
    different constant in each (a discriminator such as `operation`), it becomes an `enum` of all
    of them, and its description names the fields each value requires beyond those every arm
    requires: `Needs: read(path) write(path,content)`. A schema that is not such a union
    comes back as an unchanged copy.
    """
    arms = _arms(schema)
    if arms is None:
        return copy.deepcopy(dict(schema))
    names = _property_names(arms)
    key = _discriminator(arms)
    values = [_constant(arm["properties"][key]) for arm in arms] if key is not None else []
    properties: dict[str, Any] = {}
    for name in names:
        users = [index for index, arm in enumerate(arms) if name in arm.get("properties", {})]
        if key is not None and name == key:
            properties[name] = _tag(arms, key, values)
        else:
            properties[name] = _merged(arms, name, users)
    required = [name for name in names if all(name in arm.get("required", ()) for arm in arms)]
    flat: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        flat["required"] = required
    if all(arm.get("additionalProperties") is False for arm in arms):
        flat["additionalProperties"] = False
    for keyword, value in schema.items():
        if keyword not in (*_UNIONS, "type"):
            flat[keyword] = copy.deepcopy(value)
    return flat


def _arms(schema: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    present = [keyword for keyword in _UNIONS if keyword in schema]
    if len(present) != 1 or schema.get("type", "object") != "object":
        return None
    if any(keyword in schema for keyword in ("properties", "allOf", "not", "$ref")):
        return None
    arms = schema[present[0]]
    if not isinstance(arms, Sequence) or isinstance(arms, str) or not arms:
        return None
    for arm in arms:
        if not isinstance(arm, Mapping) or arm.get("type") != "object":
            return None
        if any(keyword in arm for keyword in (*_UNIONS, "allOf", "not", "$ref")):
            return None
        if not isinstance(arm.get("properties", {}), Mapping):
            return None
    return list(arms)


def _property_names(arms: Sequence[Mapping[str, Any]]) -> list[str]:
    names: dict[str, None] = {}
    for arm in arms:
        names.update(dict.fromkeys(arm.get("properties", {})))
    return list(names)


def _constant(schema: Any) -> Any:
    if not isinstance(schema, Mapping):
        return None
    if "const" in schema:
        return schema["const"]
    values = schema.get("enum")
    if isinstance(values, list) and len(values) == 1:
        return values[0]
    return None


def _discriminator(arms: Sequence[Mapping[str, Any]]) -> str | None:
    for name in arms[0].get("properties", {}):
        values = []
        for arm in arms:
            if name not in arm.get("required", ()) or name not in arm.get("properties", {}):
                break
            value = _constant(arm["properties"][name])
            if not isinstance(value, str):
                break
            values.append(value)
        else:
            if len(set(values)) == len(values):
                return str(name)
    return None


def _tag(arms: Sequence[Mapping[str, Any]], key: str, values: list[str]) -> dict[str, Any]:
    everywhere = set.intersection(*(set(arm.get("required", ())) for arm in arms))
    names = [name for name in _property_names(arms) if name not in everywhere]
    signatures = []
    for value, arm in zip(values, arms, strict=True):
        needs = [name for name in names if name in arm.get("required", ())]
        if needs:
            signatures.append(f"{value}({','.join(needs)})")
    tag: dict[str, Any] = {"type": "string", "enum": list(values)}
    if signatures:
        tag["description"] = "Needs: " + " ".join(signatures)
    return tag


def _bare(schema: Any) -> Any:
    if isinstance(schema, Mapping):
        return {keyword: value for keyword, value in schema.items() if keyword != "description"}
    return schema


def _merged(arms: Sequence[Mapping[str, Any]], name: str, users: list[int]) -> dict[str, Any]:
    kinds: dict[str, Any] = {}
    descriptions: dict[str, int] = {}
    for index in users:
        field = arms[index]["properties"][name]
        kinds.setdefault(json.dumps(_bare(field), sort_keys=True), _bare(field))
        text = field.get("description") if isinstance(field, Mapping) else None
        text = text if isinstance(text, str) else ""
        descriptions[text] = descriptions.get(text, 0) + 1
    # An open arm that does not declare the property lets it hold what its extra keys may hold,
    # so the flat schema must accept that too, or it would refuse a value the arm accepts.
    for index, arm in enumerate(arms):
        if index in users:
            continue
        extra = arm.get("additionalProperties", True)
        if extra is True:
            kinds = {"{}": {}}
            break
        if isinstance(extra, Mapping):
            kinds.setdefault(json.dumps(_bare(extra), sort_keys=True), _bare(extra))
    merged: dict[str, Any]
    if "{}" in kinds:
        merged = {}
    elif len(kinds) == 1:
        merged = copy.deepcopy(next(iter(kinds.values())))
        if not isinstance(merged, dict):
            merged = {"anyOf": [merged]}
    else:
        merged = {"anyOf": copy.deepcopy(list(kinds.values()))}
    # The most common wording (none counts as one) speaks for the field; which operations
    # require it, the discriminator's description says once for all fields.
    text = max(descriptions, key=descriptions.__getitem__, default="")
    if text:
        merged["description"] = text
    return merged
