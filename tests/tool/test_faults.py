"""`@tool` argument faults: one short line per fault, no pydantic internals, hostile input."""

from __future__ import annotations

import warnings
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from orkestrel.tool import (
    ArgumentsError,
    ToolManager,
    tool,
)
from support.arguments import LINE, Address, Node, fault, lookup, run

pytestmark = pytest.mark.anyio


async def test_faults_reach_the_model_as_one_short_line_each() -> None:
    tools = ToolManager()
    tools.add(lookup)
    result = await tools.execute(
        {"id": "1", "name": "lookup", "arguments": {"query": 3, "limit": "ten", "kind": "c"}}
    )
    assert result == {
        "id": "1",
        "name": "lookup",
        "success": False,
        "error": "query: expected a string, received 3\n"
        'limit: expected an integer, received "ten"\n'
        "kind: expected one of 'a' or 'b', received \"c\"",
    }


async def test_the_typed_error_carries_the_faults_as_data() -> None:
    with pytest.raises(ArgumentsError) as caught:
        await lookup.execute({"limit": -1.5})
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.tool == "lookup"
    assert error.faults == [
        {"path": "query", "expected": "a value (required)", "received": "nothing"},
        {"path": "limit", "expected": "an integer", "received": "-1.5"},
    ]
    assert str(error) == (
        "query: expected a value (required), received nothing\n"
        "limit: expected an integer, received -1.5"
    )


async def test_an_unknown_key_is_refused_with_a_suggestion() -> None:
    text = await fault(lookup, {"query": "x", "limt": 3})
    assert text == (
        "limt: expected one of the parameters query, limit, kind (did you mean limit?), received 3"
    )


async def test_no_pydantic_internals_reach_the_model() -> None:
    @tool
    def place(
        where: Address, tags: list[int], when: Annotated[str, Field(pattern=r"^\d+$")]
    ) -> None:
        """Place something."""

    text = await fault(place, {"where": {"number": 0}, "tags": [1, "x"], "when": "soon"})
    assert text == (
        "where.street: expected a value (required), received nothing\n"
        "where.number: expected a number greater than 0, received 0\n"
        'tags[1]: expected an integer, received "x"\n'
        'when: expected a string matching ^\\d+$, received "soon"'
    )
    for banned in ("http", "pydantic", "input_value", "input_type", "For further"):
        assert banned not in text


async def test_union_arms_merge_into_one_line() -> None:
    @tool
    def pick(value: int | list[int]) -> Any:
        """Pick."""
        return value

    assert await fault(pick, {"value": "x"}) == (
        'value: expected an integer or an array, received "x"'
    )


async def test_arguments_that_are_not_an_object() -> None:
    assert await fault(lookup, ["query"]) == "arguments: expected an object, received array"


async def test_many_faults_are_capped() -> None:
    @tool
    def total(values: list[int]) -> int:
        """Sum."""
        return sum(values)

    lines = (await fault(total, {"values": ["x"] * 100})).split("\n")
    assert len(lines) == 21
    assert lines[0] == 'values[0]: expected an integer, received "x"'
    assert lines[-1] == "… and 80 more faults"


async def test_recursive_models_and_hostile_nesting() -> None:
    @tool
    def count(root: Node) -> int:
        """Count nodes."""
        return 1 + sum(count(child) for child in root.children)

    assert count.parameters is not None
    assert count.parameters["$defs"]["Node"]["properties"]["children"]["items"] == {
        "$ref": "#/$defs/Node"
    }
    assert await run(count, {"root": {"value": 1, "children": [{"value": 2}]}}) == 2

    deep: dict[str, Any] = {"value": 1}
    for _ in range(100_000):
        deep = {"value": 1, "children": [deep]}
    text = await fault(count, {"root": deep})
    assert text.endswith("expected data nested less deeply, without cycles, received object")
    assert len(text) < 200

    cyclic: dict[str, Any] = {"value": 1, "children": []}
    cyclic["children"].append(cyclic)
    assert "without cycles" in await fault(count, {"root": cyclic})


async def test_hostile_keys_and_values_are_faults_not_crashes() -> None:
    text = await fault(
        lookup, {"query": "x" * 1_000_000, "__proto__": 1, "a b/c": 2, "limit": 10**400}
    )
    assert all(LINE.match(line) for line in text.split("\n")), text
    assert len(text) < 1000
    assert '["a b/c"]: expected one of the parameters' in text
    newline = await fault(lookup, {"query": "x", "a\nb": 1})
    assert newline.startswith('["a\\nb"]: expected one of the parameters')


@settings(max_examples=60)
@given(
    st.dictionaries(
        st.text(max_size=8),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
            max_leaves=10,
        ),
        max_size=5,
    )
)
def test_any_json_arguments_either_run_or_fail_with_clean_lines(args: dict[str, Any]) -> None:
    import anyio

    async def attempt() -> None:
        try:
            value = await lookup.execute(args)
        except ArgumentsError as error:
            for line in str(error).split("\n"):
                assert LINE.match(line), line
                assert "http" not in line
                assert "input_value" not in line
        else:
            assert value["query"] == args["query"]

    with warnings.catch_warnings():
        anyio.run(attempt)


@tool
async def located(where: dict[str, int]) -> int:
    """Counts the places."""
    return len(where)


async def test_a_value_that_is_not_json_is_named_by_its_python_type_as_in_a_contract() -> None:
    with pytest.raises(ArgumentsError) as caught:
        await located.execute({"where": (1, 2)})
    assert str(caught.value).endswith("where: expected an object, received tuple")
