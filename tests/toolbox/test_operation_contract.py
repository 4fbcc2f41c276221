"""Tools with operations advertise one flat object and judge each call by its own operation."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.agent import create_agent_registry
from orkestrel.contract import (
    create_contract,
    literal_shape,
    object_shape,
    string_shape,
    union_shape,
)
from orkestrel.terminal import create_terminal_manager
from orkestrel.tool import ToolManager, export, flatten_parameters
from orkestrel.toolbox import (
    ToolboxError,
    answer_tool_shape,
    create_agent_tool,
    create_answer_tool,
    create_database_tool,
    create_describe_tool,
    create_endpoint_tool,
    create_infer_tool,
    create_prompt_tool,
    create_relation_tool,
    create_workflow_tool,
    create_workspace_tool,
    database_tool_shape,
    relation_tool_shape,
    workspace_tool_shape,
)
from orkestrel.toolbox.operation_contract import OperationContract
from orkestrel.toolbox.unknown_keys import key_check, unknown_key
from orkestrel.workflow import create_workflow_runner

pytestmark = pytest.mark.anyio

TOP_LEVEL_REFUSED = ("anyOf", "oneOf", "allOf", "enum", "not", "const", "$ref")


def shipped_tools() -> list[Any]:
    return [
        create_infer_tool(),
        create_describe_tool(ToolManager()),
        create_database_tool(),
        create_database_tool(readonly=True),
        create_workspace_tool(),
        create_relation_tool(managers={}),
        create_endpoint_tool(
            {"name": "lookup", "description": "Look up.", "samples": [{"id": "1"}], "execute": str}
        ),
        create_prompt_tool(manager=create_terminal_manager(), from_="agent"),
        create_answer_tool(manager=create_terminal_manager(), to="reviewer"),
        create_agent_tool(create_agent_registry(providers={})),
        create_workflow_tool({"id": "w", "name": "W", "phases": []}, create_workflow_runner()),
    ]


def test_every_shipped_tool_advertises_an_object_root_with_nothing_a_provider_refuses() -> None:
    for tool in shipped_tools():
        parameters = tool.parameters
        assert parameters["type"] == "object", tool.name
        assert not any(keyword in parameters for keyword in TOP_LEVEL_REFUSED), tool.name


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini", "mcp"])
def test_the_shipped_toolbox_exports_whole_for_every_provider(provider: str) -> None:
    tools = ToolManager()
    for tool in shipped_tools():
        if tool.name not in {entry["name"] for entry in tools.definitions()}:
            tools.add(tool)
    rendered = export(tools.definitions(), provider)  # type: ignore[arg-type]
    assert len(rendered.tools) == len(tools.definitions())


def test_the_advertised_schema_is_derived_from_the_enforced_union() -> None:
    for shape in (
        database_tool_shape,
        workspace_tool_shape,
        answer_tool_shape,
        relation_tool_shape,
    ):
        contract = OperationContract(shape, label="x")
        assert contract.parameters == flatten_parameters(create_contract(shape).schema)
        assert contract.parameters is not contract.parameters
        assert contract.operations == tuple(contract.parameters["properties"]["operation"]["enum"])


async def test_a_fault_names_what_the_calls_own_operation_is_missing() -> None:
    tool = create_workspace_tool()
    with pytest.raises(ToolboxError) as caught:
        await tool.execute({"operation": "move", "from": "a"})
    assert caught.value.code == "TOOL"
    assert str(caught.value) == "malformed workspace call: move: to: missing string"
    assert caught.value.context is not None
    assert caught.value.context["operation"] == "move"
    # a field another operation requires is no fault of this one
    with pytest.raises(ToolboxError) as caught:
        await create_database_tool().execute({"operation": "tables"})
    assert str(caught.value) == "malformed database call: tables: id: missing string"


async def test_a_renamed_tool_names_itself_in_its_faults() -> None:
    tool = create_database_tool(name="db")
    with pytest.raises(ToolboxError, match=r"^malformed db call: operation must be one of create"):
        await tool.execute({"operation": "explode"})


class Lying(dict):  # type: ignore[type-arg]
    def get(self, key: Any, default: Any = None) -> Any:
        raise RuntimeError("lying get")

    def __getitem__(self, key: Any) -> Any:
        raise RuntimeError("lying getitem")


async def test_a_lying_mapping_gets_a_typed_refusal_not_a_raw_error() -> None:
    tool = create_workspace_tool()
    with pytest.raises(ToolboxError) as caught:
        await tool.execute(Lying(operation="move", to=1))
    assert caught.value.code == "TOOL"


def test_an_arm_without_a_one_value_operation_literal_is_refused_when_built() -> None:
    bad = union_shape(
        object_shape({"operation": literal_shape(["a", "b"]), "x": string_shape()}),
        object_shape({"operation": literal_shape(["c"])}),
    )
    with pytest.raises(ToolboxError, match="one-value operation literal"):
        OperationContract(bad, label="x")
    twice = union_shape(
        object_shape({"operation": literal_shape(["a"])}),
        object_shape({"operation": literal_shape(["a"]), "x": string_shape()}),
    )
    with pytest.raises(ToolboxError, match="distinct operation names"):
        OperationContract(twice, label="x")


async def test_another_operations_argument_left_empty_is_no_argument() -> None:
    manager = ToolManager()
    manager.add(create_workspace_tool())
    written = {"operation": "write", "path": "a.txt", "content": "hi"}
    await manager.execute({"id": "0", "name": "workspace", "arguments": written})
    # What a strict-mode model fills the flat listing's unused fields with: nothing meant.
    unused = {"query": "", "replacement": "", "from": None, "to": "", "content": ""}
    call = {"operation": "read", "path": "a.txt", **unused}
    result = await manager.execute({"id": "1", "name": "workspace", "arguments": call})
    assert result["success"] is True, result
    assert "hi" in str(result.get("value"))


async def test_another_operations_argument_with_a_value_is_refused_naming_its_operations() -> None:
    manager = ToolManager()
    manager.add(create_database_tool())
    call = {"operation": "count", "id": "shop", "table": "users", "key": 7}
    result = await manager.execute({"id": "1", "name": "database", "arguments": call})
    assert result == {
        "id": "1",
        "name": "database",
        "success": False,
        "error": 'malformed database call: count: "key" is an argument of get, update, remove, '
        "not of count (count takes operation, id, table, query; send null for the others)",
    }


async def test_an_empty_value_the_listing_does_not_allow_is_still_refused() -> None:
    manager = ToolManager()
    manager.add(create_workspace_tool())
    # `fromLine` is listed as an integer or null: "" is no value a strict-mode model could send.
    call = {"operation": "read", "path": "a.txt", "fromLine": "", "query": []}
    result = await manager.execute({"id": "1", "name": "workspace", "arguments": call})
    assert result.get("error") == (
        'malformed workspace call: read: "fromLine" is an argument of splice, not of read '
        "(read takes operation, path, offset, limit; send null for the others)"
    )


CLOSED_SCHEMAS: list[Any] = [
    *(
        schema
        for shape in (database_tool_shape, workspace_tool_shape, answer_tool_shape)
        for schema in OperationContract(shape, label="x").schemas().values()
    ),
    {
        "anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {
                "type": "array",
                "items": {"properties": {"b": {}}, "additionalProperties": False},
            },
        ]
    },
    {"additionalProperties": {"properties": {"c": {}}, "additionalProperties": False}},
]
NAMES = ["id", "table", "query", "conditions", "column", "values", "limit", "a", "b", "c", "zz"]
LEAVES = st.none() | st.booleans() | st.integers() | st.text(max_size=2)


def guided(data: st.DataObject, schema: Any, depth: int = 0) -> Any:
    """A value that follows `schema` part of the way: declared keys, a stray key now and then,
    a variant, an item list, or a leaf where an object was expected."""
    if depth > 6 or not isinstance(schema, dict):
        return data.draw(LEAVES)
    options = ["leaf"]
    variants = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(variants, list) and variants:
        options.append("variant")
    if "properties" in schema or "additionalProperties" in schema:
        options += ["object", "object"]
    if isinstance(schema.get("items"), dict):
        options.append("items")
    option = data.draw(st.sampled_from(options))
    if option == "variant":
        return guided(data, data.draw(st.sampled_from(variants)), depth + 1)
    if option == "items":
        size = data.draw(st.integers(0, 3))
        return [guided(data, schema["items"], depth + 1) for _ in range(size)]
    if option == "leaf":
        return data.draw(LEAVES)
    value: dict[str, Any] = {}
    declared = schema.get("properties") or {}
    for key in (
        data.draw(st.lists(st.sampled_from(sorted(declared)), unique=True)) if declared else []
    ):
        value[key] = guided(data, declared[key], depth + 1)
    if data.draw(st.integers(0, 3)) == 0:
        extra = schema.get("additionalProperties")
        value[data.draw(st.sampled_from(NAMES))] = guided(data, extra, depth + 1)
    return value


@given(st.data())
def test_the_compiled_key_check_agrees_with_the_walk_that_names_the_key(
    data: st.DataObject,
) -> None:
    schema = data.draw(st.sampled_from(CLOSED_SCHEMAS))
    value = guided(data, schema)
    check = key_check(schema)
    assert (check is None or check(value)) == (unknown_key(schema, value) is None)
