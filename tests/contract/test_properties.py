"""Laws of the contract, checked by hypothesis over generated shapes and values:

- `explain(v) == []` exactly when `parse(v)` succeeds;
- `parse` output passes `is_valid`, and parsing it again changes nothing;
- `is_valid(v)` implies `parse(v) == v`;
- a dict reads alike whatever its storage: its own table (read in place where the interpreter's
  layout is known), an instance's `__dict__` (`PyDict_Next`), a table with deleted entries;
- `schema_to_shape` never narrows: a value a reference JSON Schema validator accepts is
  accepted by the widened contract.
"""

from __future__ import annotations

import math
from typing import Any

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.contract import (
    ParseError,
    array_shape,
    boolean_shape,
    create_contract,
    integer_shape,
    json_shape,
    literal_shape,
    null_shape,
    nullable_shape,
    number_shape,
    object_shape,
    one_of_shape,
    optional_shape,
    raw_shape,
    schema_to_shape,
    string_shape,
    union_shape,
)

KEYS = st.sampled_from(["a", "b", "1", "c"])
FINITE = st.floats(allow_nan=False, allow_infinity=False)
SMALL = st.integers(-5, 5)
BOUND = st.none() | st.integers(0, 3)
LITERALS = st.lists(
    st.text(max_size=3) | st.integers(-3, 3) | st.booleans() | FINITE,
    min_size=1,
    max_size=4,
    unique_by=lambda v: (type(v) is bool, v),
)
PATTERNS = st.none() | st.sampled_from(["^[a-z]*$", r"\d", "^.{0,4}$", "^(a|b)+$", r"\s"])
NUMERIC_TEXT = st.sampled_from(["1", " 2 ", "true", "0", "0x1A", "", "1e3", "-0", "4.5", "a", " a"])

LEAF_SHAPES = st.one_of(
    st.builds(
        lambda lo, extra, pattern: string_shape(
            min=lo, max=None if extra is None else (lo or 0) + extra, pattern=pattern
        ),
        BOUND,
        BOUND,
        PATTERNS,
    ),
    st.builds(
        lambda lo, span: number_shape(min=lo, max=None if span is None else lo + span),
        SMALL,
        st.none() | st.floats(0, 10),
    ),
    st.builds(
        lambda lo, span: integer_shape(min=lo, max=None if span is None else lo + span),
        SMALL,
        st.none() | st.integers(0, 10),
    ),
    st.builds(lambda hi: integer_shape(max=hi), SMALL),
    st.just(boolean_shape()),
    st.just(null_shape()),
    st.just(json_shape()),
    st.builds(literal_shape, LITERALS),
    st.just(raw_shape({"type": "string"})),
)


def containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    properties = st.dictionaries(KEYS, children | children.map(optional_shape), max_size=3)
    return st.one_of(
        st.builds(
            lambda items, lo, extra: array_shape(
                items, min=lo, max=None if extra is None else (lo or 0) + extra
            ),
            children,
            BOUND,
            BOUND,
        ),
        st.builds(
            lambda props, extra: object_shape(props, additional_properties=extra),
            properties,
            st.none() | st.booleans() | children,
        ),
        st.lists(children, min_size=1, max_size=3).map(lambda v: union_shape(*v)),
        st.lists(children, min_size=1, max_size=3).map(lambda v: one_of_shape(*v)),
        children.map(nullable_shape),
    )


SHAPES = st.recursive(LEAF_SHAPES, containers, max_leaves=8)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    SMALL,
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    NUMERIC_TEXT,
)
VALUES = st.recursive(
    SCALARS,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(KEYS, c, max_size=4),
    max_leaves=10,
)
MISSING = object()


def parse(contract: Any, value: Any) -> Any:
    try:
        return contract.parse(value)
    except ParseError:
        return MISSING


@given(SHAPES, VALUES)
def test_explain_is_empty_exactly_when_parse_succeeds(shape: Any, value: Any) -> None:
    contract = create_contract(shape)
    assert (contract.explain(value) == []) == (parse(contract, value) is not MISSING)


@given(SHAPES, VALUES)
def test_parse_output_is_valid_and_a_fixed_point(shape: Any, value: Any) -> None:
    contract = create_contract(shape)
    out = parse(contract, value)
    if out is not MISSING:
        assert contract.is_valid(out)
        assert contract.parse(out) == out


@given(SHAPES, VALUES)
def test_valid_values_parse_to_themselves(shape: Any, value: Any) -> None:
    contract = create_contract(shape)
    if contract.is_valid(value):
        assert contract.parse(value) == value
        assert contract.explain(value) == []


def _containers(value: Any) -> set[int]:
    found: set[int] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.add(id(node))
            stack.extend(node.values())
        elif isinstance(node, list):
            found.add(id(node))
            stack.extend(node)
    return found


def _is_json(value: Any) -> bool:
    if isinstance(value, dict):
        return all(type(k) is str and _is_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_is_json(item) for item in value)
    return not isinstance(value, float) or math.isfinite(value)


@given(SHAPES, VALUES)
def test_parse_output_shares_no_json_container_with_its_input(shape: Any, value: Any) -> None:
    """Every container `parse` returns is new, but for one that is not JSON data (here a list or
    dict holding an infinite float) kept as given where nothing checks it: under a raw shape."""
    contract = create_contract(shape)
    out = parse(contract, value)
    if out is MISSING:
        return
    given_containers = _containers(value)
    stack = [out]
    while stack:
        node = stack.pop()
        if id(node) in given_containers:
            # Kept as given, with whatever it holds: so it must be the not-JSON case.
            assert not _is_json(node), node
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


class _Record:
    """An instance whose `__dict__` is a split table (3.11, 3.12) or its inline values (3.13 on)."""


def _stored(value: Any, how: str, instances: list[_Record]) -> Any:
    """`value` with every dict in it rebuilt as `how` says: "instance" (an instance's `__dict__`,
    the instance kept in `instances`) or "holes" (a general-kind table with deleted entries)."""
    if isinstance(value, list):
        return [_stored(item, how, instances) for item in value]
    if not isinstance(value, dict):
        return value
    entries = [(key, _stored(item, how, instances)) for key, item in value.items()]
    if how == "instance":
        instance = _Record()
        instances.append(instance)
        for key, item in entries:
            setattr(instance, key, item)
        return vars(instance)
    holed: dict[Any, Any] = {}
    for n, (key, item) in enumerate(entries):
        holed[("gone", n)] = None
        holed[key] = item
    for n in range(len(entries)):
        del holed[("gone", n)]
    return holed


@given(SHAPES, VALUES)
def test_dicts_are_read_alike_whatever_their_storage(shape: Any, value: Any) -> None:
    # `is_valid` and a parsed record's copy read a plain dict from its table where the layout is
    # known (CPython 3.11 to 3.15 with a GIL); an instance's `__dict__` goes through
    # `PyDict_Next`, and a dict that once held non-str keys is a general-kind table with holes.
    contract = create_contract(shape)
    expected = (contract.is_valid(value), parse(contract, value), contract.explain(value))
    instances: list[_Record] = []
    for how in ("instance", "holes"):
        stored = _stored(value, how, instances)
        assert contract.is_valid(stored) == expected[0]
        assert parse(contract, stored) == expected[1]
        assert contract.explain(stored) == expected[2]


BMP_TEXT = st.text(st.characters(max_codepoint=0xFFFF, exclude_categories=["Cs"]), max_size=5)
LENGTH = st.none() | st.integers(0, 4)


def _schema_leaves() -> st.SearchStrategy[dict[str, Any]]:
    def drop(schema: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in schema.items() if value is not None}

    return st.one_of(
        st.builds(
            lambda lo, hi, fmt: drop(
                {"type": "string", "minLength": lo, "maxLength": hi, "format": fmt}
            ),
            LENGTH,
            LENGTH,
            st.none() | st.just("email"),
        ),
        st.builds(
            lambda kind, lo, hi: drop({"type": kind, "minimum": lo, "maximum": hi}),
            st.sampled_from(["number", "integer"]),
            st.none() | FINITE,
            st.none() | FINITE,
        ),
        st.sampled_from([{"type": "boolean"}, {"type": "null"}, {}, {"pattern": "^a"}]),
        st.lists(
            BMP_TEXT | SMALL | st.booleans() | st.none(),
            min_size=1,
            max_size=3,
            unique_by=lambda v: (type(v) is bool, v),
        ).map(lambda values: {"enum": values}),
        st.sampled_from([{"enum": [[], {"a": 1}, 1]}, {"const": 1}, {"const": "a"}]),
        st.lists(KEYS, min_size=1, max_size=2, unique=True).map(lambda r: {"required": r}),
    )


def _schema_containers(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(
            lambda items, lo, hi: {
                key: value
                for key, value in {
                    "type": "array",
                    "items": items,
                    "minItems": lo,
                    "maxItems": hi,
                }.items()
                if value is not None
            },
            children,
            LENGTH,
            LENGTH,
        ),
        st.builds(
            lambda props, required, extra: {
                "type": "object",
                "properties": props,
                "required": sorted(set(required)),
                **({} if extra is None else {"additionalProperties": extra}),
            },
            st.dictionaries(KEYS, children, max_size=3),
            st.lists(KEYS, max_size=3),
            st.none() | st.booleans() | children,
        ),
        st.lists(children, min_size=1, max_size=3).map(lambda v: {"anyOf": v}),
        st.lists(children, min_size=1, max_size=3).map(lambda v: {"oneOf": v}),
        st.builds(
            lambda kind, variants: {"type": kind, "oneOf": variants},
            st.sampled_from(["object", "integer", "string"]),
            st.lists(children, min_size=1, max_size=3),
        ),
        st.builds(lambda props: {"properties": props}, st.dictionaries(KEYS, children, max_size=2)),
        st.builds(
            lambda pattern, extra: {
                "type": "object",
                "patternProperties": {"^a": pattern},
                "additionalProperties": extra,
            },
            children,
            st.booleans() | children,
        ),
        st.builds(
            lambda prefix, items: {"type": "array", "prefixItems": prefix, "items": items},
            st.lists(children, min_size=1, max_size=2),
            children,
        ),
    )


SCHEMAS = st.recursive(_schema_leaves(), _schema_containers, max_leaves=8)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | SMALL | FINITE | BMP_TEXT | NUMERIC_TEXT,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(KEYS, c, max_size=4),
    max_leaves=10,
)


@given(SCHEMAS, st.lists(JSON_VALUES, min_size=1, max_size=5))
def test_schema_to_shape_never_narrows(schema: dict[str, Any], values: list[Any]) -> None:
    reference = jsonschema.Draft202012Validator(schema)
    contract = create_contract(schema_to_shape(schema))
    for value in values:
        if reference.is_valid(value):
            assert contract.is_valid(value), value
            contract.parse(value)


class _Text(str):
    pass


class _Record(dict):  # type: ignore[type-arg]
    pass


# Values past plain JSON data too: subclasses, tuples, objects, keys that are not strings.
ODD_VALUES = st.recursive(
    SCALARS | st.builds(object) | st.text(max_size=3).map(_Text),
    lambda c: st.one_of(
        st.lists(c, max_size=4),
        st.dictionaries(KEYS, c, max_size=4),
        st.dictionaries(KEYS, c, max_size=3).map(_Record),
        st.lists(c, max_size=3).map(tuple),
        st.dictionaries(st.integers(0, 2) | KEYS, c, max_size=3),
    ),
    max_leaves=10,
)


@given(SHAPES, ODD_VALUES)
def test_parse_error_reports_what_explain_does(shape: Any, value: Any) -> None:
    """`parse` builds its report through borrowed pointers, `explain` through held references:
    the same faults, in the same order, for any value."""
    contract = create_contract(shape)
    reported: list[Any] = []
    try:
        contract.parse(value)
    except ParseError as error:
        reported = error.faults
    assert reported == contract.explain(value)
