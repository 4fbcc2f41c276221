"""The Rust query helpers: limit clamping, connector normalisation, like and glob."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel._core import clamp_query, glob_match, like_match, normalize_query, resolve_limit

from .reference import wildcard


@pytest.mark.parametrize(
    ("query", "cap", "limit", "probe"),
    [
        (None, 100, 100, 101),
        ({"limit": 10}, 100, 10, 11),
        ({"limit": 500}, 100, 100, 101),
        ({"limit": 0}, 100, 0, 1),
    ],
)
def test_clamp_query_probes_one_row_past_the_limit(
    query: Any, cap: int, limit: int, probe: int
) -> None:
    clamped = clamp_query(query, cap)
    assert clamped == {"query": {**(query or {}), "limit": probe}, "limit": limit}


def test_clamp_query_keeps_the_rest_of_the_query_and_copies_it() -> None:
    query = {
        "conditions": [{"column": "a", "operator": "absent", "values": []}],
        "offset": 4,
        "order": [],
    }
    clamped = clamp_query(query, 5)
    assert clamped["query"] == {**query, "limit": 6}
    assert "limit" not in query
    assert clamped["query"] is not query


@given(st.one_of(st.none(), st.integers()), st.integers())
def test_resolve_limit_only_lowers_the_cap_and_floors_at_zero(
    requested: int | None, cap: int
) -> None:
    expected = max(0, min(cap if requested is None else requested, cap))
    expected = min(expected, 2**63 - 1)
    assert resolve_limit(requested, cap) == expected
    assert (
        clamp_query(None if requested is None else {"limit": requested}, cap)["limit"] == expected
    )


@pytest.mark.parametrize(
    ("requested", "error"),
    [
        (2.5, ValueError),
        (float("nan"), ValueError),
        (True, TypeError),
        ("3", TypeError),
        ([1], TypeError),
    ],
)
def test_resolve_limit_refuses_what_is_not_a_whole_number(
    requested: Any, error: type[Exception]
) -> None:
    with pytest.raises(error):
        resolve_limit(requested, 10)
    assert resolve_limit(7.0, 10) == 7
    assert resolve_limit(-(2**80), 10) == 0


def test_normalize_query_defaults_the_connector() -> None:
    query = {"conditions": [{"column": "age", "operator": "from", "values": [18]}]}
    assert normalize_query(query) == {
        "conditions": [{"column": "age", "operator": "from", "values": [18], "connector": "and"}]
    }
    assert normalize_query(None) is None
    assert normalize_query({}) == {}
    kept = {
        "conditions": [{"column": "a", "operator": "equals", "values": [1], "connector": "or"}],
        "limit": 3,
        "offset": 1,
        "order": [{"column": "a", "direction": "descending"}],
    }
    assert normalize_query(kept) == kept


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ({"conditions": [{"column": "a", "operator": "matches", "values": []}]}, ValueError),
        (
            {
                "conditions": [
                    {"column": "a", "operator": "equals", "values": [], "connector": "xor"}
                ]
            },
            ValueError,
        ),
        ({"conditions": [{"column": "a", "operator": "equals", "values": "x"}]}, TypeError),
        ({"conditions": [{"operator": "equals", "values": []}]}, TypeError),
        ({"conditions": "a = 1"}, TypeError),
        ({"conditions": [5]}, TypeError),
        ("query", TypeError),
    ],
)
def test_normalize_query_refuses_malformed_queries(query: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        normalize_query(query)


PATTERN = st.text(alphabet="ab%_*?É", max_size=8)
VALUE = st.text(alphabet="abéÉ%_*?", max_size=8)


@given(PATTERN, VALUE)
def test_like_agrees_with_a_regular_expression(pattern: str, value: str) -> None:
    expected = wildcard(pattern, "%", "_", fold=True).fullmatch(value.lower()) is not None
    assert like_match(pattern, value) is expected


@given(PATTERN, VALUE)
def test_glob_agrees_with_a_regular_expression(pattern: str, value: str) -> None:
    expected = wildcard(pattern, "*", "?", fold=False).fullmatch(value) is not None
    assert glob_match(pattern, value) is expected


def test_matchers_are_total() -> None:
    for pattern, value in ((None, "a"), ("a", None), (1, "1"), ("a", b"a")):
        assert like_match(pattern, value) is False
        assert glob_match(pattern, value) is False
    big = "a" * 1_000_000
    assert like_match("%" * 10_000, big) is True
    assert like_match("%a%a%a%b", big) is False
    assert glob_match("*" + "?" * 1000 + "b*", "a" * 20_000) is False
