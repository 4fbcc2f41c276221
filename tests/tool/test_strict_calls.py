"""Calls a model makes under `export(..., strict=True)` schemas, read back by `ToolManager`.

A strict-mode model sends every property (`null` for the ones it leaves out) and JSON text where
the schema has a place strict mode cannot describe. `strict_form` below plays that model: it
rewrites a natural call into that form, and every such call is first checked against the
exported schema with `jsonschema`, so the tests only send what a strict model could send.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orkestrel.tool import ExportError, Tool, ToolInterface, ToolManager, export, tool
from orkestrel.tool.arguments import arguments_plan, read_arguments
from orkestrel.toolbox import (
    create_database_tool,
    create_describe_tool,
    create_infer_tool,
    create_workspace_tool,
)
from support.schema_values import values
from support.toolbox import factory_tools

pytestmark = pytest.mark.anyio

TEXT = "Send JSON text"


@tool
def free_form(
    data: dict,  # type: ignore[type-arg]
    items: list,  # type: ignore[type-arg]
    records: list[dict],  # type: ignore[type-arg]
    counts: dict[str, int] | None = None,
    label: str = "none",
) -> dict[str, Any]:
    """Echo free-form values back."""
    return {"data": data, "items": items, "records": records, "counts": counts, "label": label}


def strict_parameters(target: Any) -> dict[str, Any]:
    definition = {"name": target.name, "parameters": target.parameters}
    schema: dict[str, Any] = export([definition], "openai", strict=True).tools[0]["function"][
        "parameters"
    ]
    return schema


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        steps = schema["$ref"].split("/")[1:]
        node: Any = root
        for step in steps:
            node = node[step]
        schema = node
    return schema


def _fits(schema: dict[str, Any], value: Any, root: dict[str, Any]) -> bool:
    probe = {**root, **schema} if "$defs" in root else schema
    return jsonschema.Draft202012Validator(probe).is_valid(value)


def strict_form(schema: dict[str, Any], value: Any, root: dict[str, Any] | None = None) -> Any:
    """Rewrites a natural value into what a strict-mode model sends for `schema`."""
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if str(schema.get("description", "")).find(TEXT) >= 0 and not isinstance(value, str):
        return value if value is None else json.dumps(value)
    if "anyOf" in schema:
        for arm in schema["anyOf"]:
            encoded = strict_form(arm, value, root)
            if _fits(arm, encoded, root):
                return encoded
        return value
    if isinstance(value, dict) and "properties" in schema:
        return {
            name: strict_form(child, value.get(name), root) if name in value else None
            for name, child in schema["properties"].items()
        }
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [strict_form(schema["items"], item, root) for item in value]
    return value


async def run(manager: ToolManager, name: str, natural: dict[str, Any]) -> Any:
    target = manager.tool(name)
    assert target is not None
    schema = strict_parameters(target)
    arguments = strict_form(schema, natural)
    jsonschema.Draft202012Validator(schema).validate(arguments)
    result = await manager.execute({"id": "1", "name": name, "arguments": arguments})
    assert result["success"] is True, result
    return result["value"]


async def test_dict_list_and_list_of_dict_parameters_work_in_strict_mode() -> None:
    manager = ToolManager()
    manager.add(free_form)
    schema = strict_parameters(free_form)
    assert schema["properties"]["data"]["type"] == "string"
    assert schema["properties"]["records"]["items"]["type"] == "string"
    natural = {
        "data": {"a": [1, {"b": None}]},
        "items": [1, "x", {"k": 2}],
        "records": [{}, {"z": 1}],
    }
    value = await run(manager, "free_form", natural)
    assert value == {**natural, "counts": None, "label": "none"}
    typed = await run(manager, "free_form", {**natural, "counts": {"n": 3}, "label": "set"})
    assert (typed["counts"], typed["label"]) == ({"n": 3}, "set")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(
    data=st.dictionaries(st.text(max_size=5), JSON, max_size=4),
    items=st.lists(JSON, max_size=4),
    records=st.lists(st.dictionaries(st.text(max_size=5), JSON, max_size=3), max_size=3),
)
def test_every_value_round_trips_through_the_strict_form(
    data: dict[str, Any], items: list[Any], records: list[dict[str, Any]]
) -> None:
    import anyio

    manager = ToolManager()
    manager.add(free_form)
    natural = {"data": data, "items": items, "records": records}
    value = anyio.run(run, manager, "free_form", natural)
    assert (value["data"], value["items"], value["records"]) == (data, items, records)


async def test_a_call_that_already_fits_is_passed_on_untouched() -> None:
    seen: list[Any] = []
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "object"},
            "n": {"type": "integer"},
            "either": {"anyOf": [{"type": "string"}, {"type": "object"}]},
            "maybe": {"type": ["integer", "null"]},
        },
    }
    manager = ToolManager()
    manager.add(Tool(name="spy", parameters=schema, execute=seen.append))
    arguments = {"tags": {"a": 1}, "n": 2}
    await manager.execute({"id": "1", "name": "spy", "arguments": arguments})
    assert seen[0] is arguments
    text = {"tags": "not json", "n": None, "other": "{}", "either": "{}", "maybe": None}
    await manager.execute({"id": "2", "name": "spy", "arguments": text})
    assert seen[1] == {"tags": "not json", "other": "{}", "either": "{}", "maybe": None}


@pytest.mark.parametrize(
    "sent",
    ["[" * 100_000, "5", '"quoted"', "NaN", "[1, NaN]", "{'single': 1}", "\udcff"],
)
async def test_text_that_is_no_json_container_reaches_the_tool_as_it_came(sent: str) -> None:
    manager = ToolManager()
    manager.add(free_form)
    result = await manager.execute(
        {"id": "1", "name": "free_form", "arguments": {"data": sent, "items": [], "records": []}}
    )
    assert result["success"] is False
    assert "data: expected an object" in result["error"]  # type: ignore[typeddict-item]


async def test_a_lying_dict_subclass_is_never_read_by_the_decoder() -> None:
    class Lying(dict[str, Any]):
        def items(self) -> Any:
            raise RuntimeError("read me not")

    seen: list[Any] = []
    schema = {"type": "object", "properties": {"tags": {"type": "object"}}}
    manager = ToolManager()
    manager.add(Tool(name="spy", parameters=schema, execute=seen.append))
    arguments = Lying(tags="{}")
    result = await manager.execute({"id": "1", "name": "spy", "arguments": arguments})
    assert result["success"] is True
    assert seen[0] is arguments


def test_a_property_of_any_type_is_refused_in_strict_mode_with_a_clear_error() -> None:
    @tool
    def anything(value: Any, note: str | dict = "") -> None:  # type: ignore[type-arg]
        """Take anything."""

    with pytest.raises(ExportError, match="strict mode cannot describe /properties/value"):
        export([{"name": "anything", "parameters": anything.parameters}], "openai", strict=True)


async def test_the_database_tool_works_through_its_strict_schema() -> None:
    manager = ToolManager()
    async with create_database_tool() as database:
        manager.add(database)
        await strict_database_calls(manager)


async def strict_database_calls(manager: ToolManager) -> None:
    tables = {"products": {"columns": {"name": "string", "price": "number"}}}
    assert (await run(manager, "database", {"operation": "create", "id": "s", "tables": tables}))[
        "id"
    ] == "s"
    rows = [{"name": "Widget", "price": 20}, {"name": "Gadget", "price": 80}]
    await run(
        manager, "database", {"operation": "add", "id": "s", "table": "products", "row": rows}
    )
    query = {"conditions": [{"column": "price", "operator": "below", "values": [50]}]}
    found = await run(
        manager,
        "database",
        {"operation": "records", "id": "s", "table": "products", "query": query},
    )
    assert [row["name"] for row in found["rows"]] == ["Widget"]
    key = found["rows"][0]["id"]
    changed = {"operation": "update", "id": "s", "table": "products", "key": key}
    await run(manager, "database", {**changed, "changes": {"price": 10}})
    got = await run(
        manager, "database", {"operation": "get", "id": "s", "table": "products", "key": key}
    )
    assert got["row"]["price"] == 10
    counted = await run(manager, "database", {"operation": "count", "id": "s", "table": "products"})
    assert counted == {"count": 2}


async def test_the_infer_and_workspace_tools_work_through_their_strict_schemas() -> None:
    manager = ToolManager()
    manager.add([create_infer_tool(), create_workspace_tool()])
    schema = await run(manager, "infer", {"samples": [{"id": 1, "tags": ["a"]}]})
    assert schema["required"] == ["id", "tags"]
    checked = await run(manager, "infer", {"samples": [{"id": 1}], "candidates": [{"id": "x"}]})
    assert checked["checks"][0]["valid"] is False
    await run(manager, "workspace", {"operation": "write", "path": "a.txt", "content": "hi"})
    assert await run(manager, "workspace", {"operation": "read", "path": "a.txt"}) == "hi"
    hits = await run(manager, "workspace", {"operation": "search", "query": "h"})
    assert [hit["path"] for hit in hits] == ["a.txt"]


SHIPPED: list[ToolInterface] = [item for item in factory_tools() if item.parameters]
SHIPPED.append(free_form)


@pytest.mark.parametrize("target", SHIPPED, ids=[item.name for item in SHIPPED])
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_every_call_a_tool_accepts_survives_its_strict_form(
    target: ToolInterface, data: st.DataObject
) -> None:
    """Law: any arguments a shipped tool's own schema accepts, written the way a strict-mode
    model must write them, fit the exported strict schema and read back to themselves."""
    assert target.parameters is not None
    schema = strict_parameters(target)
    value = data.draw(values(target.parameters))
    encoded = strict_form(schema, value)
    jsonschema.Draft202012Validator(schema).validate(encoded)
    read = read_arguments(arguments_plan(target.parameters), encoded)
    # Strict mode cannot tell an absent property that accepts null from a null one (`counts`
    # here): both arrive as null, and null is what the handler gets.
    assert {key: item for key, item in read.items() if item is not None or key in value} == value


async def test_an_empty_string_for_an_optional_property_that_needs_text_means_absent() -> None:
    seen: list[Any] = []
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "scope": {"type": "string", "minLength": 1},
            "note": {"type": "string"},
            "either": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]},
        },
        "required": ["name"],
    }
    manager = ToolManager()
    manager.add(Tool(name="spy", parameters=schema, execute=seen.append))
    sent = {"name": "", "scope": "", "note": "", "either": ""}
    await manager.execute({"id": "1", "name": "spy", "arguments": sent})
    assert seen[0] == {"name": "", "note": "", "either": ""}


async def test_the_describe_tool_reads_an_empty_operation_as_none() -> None:
    manager = ToolManager()
    manager.add([create_describe_tool(manager), create_workspace_tool()])
    plain = await manager.execute(
        {"id": "1", "name": "describe", "arguments": {"name": "workspace"}}
    )
    blank = await manager.execute(
        {"id": "2", "name": "describe", "arguments": {"name": "workspace", "operation": ""}}
    )
    assert blank["success"] is True, blank
    assert blank["value"] == plain["value"]  # type: ignore[typeddict-item]
    # A name stays required: "" names no tool, and the call is refused for its shape.
    refused = await manager.execute(
        {"id": "3", "name": "describe", "arguments": {"name": "", "operation": ""}}
    )
    assert (refused["success"], refused.get("error")) == (
        False,
        'malformed describe call: name: min 1 failed for ""',
    )


async def test_an_empty_text_for_an_optional_object_or_array_means_absent() -> None:
    manager = ToolManager()
    manager.add(free_form)
    sent = {"data": {}, "items": [], "records": [], "counts": "", "label": ""}
    result = await manager.execute({"id": "1", "name": "free_form", "arguments": sent})
    assert result.get("value") == {
        "data": {},
        "items": [],
        "records": [],
        "counts": None,
        "label": "",
    }
    required = await manager.execute(
        {"id": "2", "name": "free_form", "arguments": {**sent, "data": ""}}
    )
    assert "data: expected an object" in str(required.get("error"))
