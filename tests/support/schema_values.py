"""A hypothesis strategy for JSON values a schema accepts, over the keywords our tools emit.

hypothesis-jsonschema would do this, but its releases lag behind hypothesis and break on the
version the suite pins; the subset our contracts emit is small enough to generate directly.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

KEYWORDS = frozenset(
    {
        "type",
        "description",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "additionalProperties",
        "default",
        "title",
    }
)
"""The keywords `values` understands; `default` and `title` only annotate, so they are passed by."""

_LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))
_ANY = st.recursive(
    _LEAF,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


def values(schema: Any) -> st.SearchStrategy[Any]:
    """Values `schema` accepts; raises `ValueError` for a keyword outside `KEYWORDS`."""
    if schema is True or schema == {}:
        return _ANY
    unknown = set(schema) - KEYWORDS
    if unknown:
        raise ValueError(f"no generator for {sorted(unknown)}")
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    arms = schema.get("anyOf") or schema.get("oneOf")
    if arms:
        return st.one_of([values(arm) for arm in arms])
    kind = schema.get("type")
    if kind == "string":
        return st.text(min_size=schema.get("minLength", 0), max_size=schema.get("maxLength", 8))
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        low, high = schema.get("minimum"), schema.get("maximum")
        return st.floats(low, high, allow_nan=False, allow_infinity=False) | st.integers(
            None if low is None else int(low) + 1, None if high is None else int(high) - 1
        )
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        least = schema.get("minItems", 0)
        return st.lists(
            values(schema.get("items", {})),
            min_size=least,
            max_size=max(least, schema.get("maxItems", 3)),
        )
    if kind == "object":
        return _objects(schema)
    raise ValueError(f"no generator for type {kind!r}")


def _objects(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    extra = schema.get("additionalProperties", True)
    fixed = {name: values(sub) for name, sub in properties.items() if name in required}
    optional = {name: values(sub) for name, sub in properties.items() if name not in required}
    known = st.fixed_dictionaries(fixed, optional=optional)
    if extra is False:
        return known
    others = st.dictionaries(
        st.text(max_size=4).filter(lambda key: key not in properties),
        _ANY if extra is True else values(extra),
        max_size=2,
    )
    return st.tuples(known, others).map(lambda pair: {**pair[1], **pair[0]})
