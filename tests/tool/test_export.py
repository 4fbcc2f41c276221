"""`export`: each provider's output checked against that provider's documented schema rules."""

from __future__ import annotations

from typing import Any, Literal

import jsonschema
import pytest
from pydantic import BaseModel, Field

from orkestrel.tool import ExportError, ToolDefinition, ToolManager, export, tool
from support.providers import ANTHROPIC, MCP, check_envelope, check_gemini, check_openai_strict


class Address(BaseModel):
    """A postal address."""

    street: str
    number: int = Field(gt=0)
    country: str = Field(default="NL", json_schema_extra={"format": "iso-3166"})


class Node(BaseModel):
    value: int
    children: list[Node] = []


@tool
def lookup(
    query: str,
    limit: int = Field(default=10, ge=1, le=100, description="Most results."),
    kind: Literal["a", "b"] = "a",
    where: Address | None = None,
    tree: Node | None = None,
    tags: dict[str, int] | None = None,
    code: int | str = 0,
) -> None:
    """Find records.

    Args:
        query: Text to find.
        where: Where to look.
    """


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def definitions() -> list[ToolDefinition]:
    tools = ToolManager()
    tools.add([lookup, ping])
    return tools.definitions()


def test_every_provider_follows_its_rules() -> None:
    defs = definitions()
    strict = export(defs, "openai", strict=True)
    for rendered in strict.tools:
        check_openai_strict(rendered)
    for rendered in export(defs, "gemini").tools:
        check_gemini(rendered)
    for rendered in export(defs, "anthropic").tools:
        check_envelope(rendered, ANTHROPIC, "input_schema")
    for rendered in export(defs, "mcp").tools:
        check_envelope(rendered, MCP, "inputSchema")


def test_plain_openai_keeps_the_schema_and_leaves_out_missing_parameters() -> None:
    defs = [{"name": "bare"}, {"name": "full", "description": "d", "parameters": lookup.parameters}]
    result = export(defs, "openai")  # type: ignore[arg-type]
    assert result.tools == [
        {"type": "function", "function": {"name": "bare"}},
        {
            "type": "function",
            "function": {"name": "full", "description": "d", "parameters": lookup.parameters},
        },
    ]
    assert result.tools[1]["function"]["parameters"] is not lookup.parameters
    assert result.changes == []


def test_anthropic_and_mcp_shapes() -> None:
    defs: list[ToolDefinition] = [{"name": "bare"}, {"name": "p", "parameters": {"properties": {}}}]
    anthropic = export(defs, "anthropic")
    assert anthropic.tools == [
        {"name": "bare", "input_schema": {"type": "object", "properties": {}}},
        {"name": "p", "input_schema": {"type": "object", "properties": {}}},
    ]
    assert [(c["tool"], c["keyword"], c["action"]) for c in anthropic.changes] == [
        ("bare", "input_schema", "added"),
        ("p", "type", "added"),
    ]
    mcp = export(defs, "mcp")
    assert mcp.tools[0] == {"name": "bare", "inputSchema": {"type": "object", "properties": {}}}


def test_strict_openai_requires_everything_and_makes_optional_nullable() -> None:
    result = export([{"name": "lookup", "parameters": lookup.parameters}], "openai", strict=True)  # type: ignore[list-item]
    schema = result.tools[0]["function"]["parameters"]
    properties = schema["properties"]
    assert schema["required"] == ["query", "limit", "kind", "where", "tree", "tags", "code"]
    assert properties["query"] == {"description": "Text to find.", "type": "string"}
    assert properties["limit"] == {
        "description": "Most results. (Default: 10.)",
        "maximum": 100,
        "minimum": 1,
        "type": ["integer", "null"],
    }
    assert properties["kind"] == {
        "anyOf": [{"enum": ["a", "b"], "type": "string"}, {"type": "null"}],
        "description": 'Default: "a".',
    }
    assert properties["tags"]["anyOf"] == [
        {
            "type": "string",
            "description": "Send JSON text: a string holding an object of this JSON Schema: "
            '{"additionalProperties":{"type":"integer"},"type":"object"}',
        },
        {"type": "null"},
    ]
    changes = {(c["path"], c["keyword"], c["action"]) for c in result.changes}
    assert ("/properties/limit", "default", "dropped") in changes
    assert ("/properties/limit", "required", "changed") in changes
    assert ("/properties/tags/anyOf/0", "type", "changed") in changes
    assert ("/$defs/Address/properties/country", "format", "dropped") in changes
    assert all(c["reason"] for c in result.changes)


@pytest.mark.anyio
async def test_a_strict_call_with_nulls_for_omitted_arguments_uses_the_defaults() -> None:
    schema = export(definitions(), "openai", strict=True).tools[0]["function"]["parameters"]
    sent = {key: None for key in schema["properties"]} | {"query": "x"}
    jsonschema.validate(sent, schema)
    seen: list[dict[str, Any]] = []

    @tool
    def probe(query: str, limit: int = 10, kind: Literal["a", "b"] = "a") -> None:
        """Probe."""
        seen.append({"query": query, "limit": limit, "kind": kind})

    await probe.execute({"query": "x", "limit": None, "kind": None})
    assert seen == [{"query": "x", "limit": 10, "kind": "a"}]


def test_strict_inlines_a_reference_that_has_siblings() -> None:
    parameters = {
        "type": "object",
        "properties": {"where": {"$ref": "#/$defs/A", "description": "Where."}},
        "required": ["where"],
        "$defs": {"A": {"type": "object", "properties": {"x": {"type": "integer"}}}},
    }
    result = export([{"name": "t", "parameters": parameters}], "openai", strict=True)
    where = result.tools[0]["function"]["parameters"]["properties"]["where"]
    assert where == {
        "type": "object",
        "properties": {"x": {"type": ["integer", "null"]}},
        "additionalProperties": False,
        "required": ["x"],
        "description": "Where.",
    }
    check_openai_strict(result.tools[0])


def test_strict_rewrites_composition_and_drops_the_rest() -> None:
    parameters = {
        "type": "object",
        "properties": {
            "a": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "b": {"allOf": [{"type": "string", "minLength": 2}]},
            "c": {"type": "string", "format": "uri", "not": {"const": "x"}},
            "d": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
        },
        "required": ["a", "b", "c", "d"],
    }
    result = export([{"name": "t", "parameters": parameters}], "openai", strict=True)
    properties = result.tools[0]["function"]["parameters"]["properties"]
    assert properties == {
        "a": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "b": {"type": "string"},
        "c": {"type": "string"},
        "d": {"type": "array", "items": {"type": "integer"}},
    }
    assert {(c["path"], c["keyword"], c["action"]) for c in result.changes} == {
        ("", "additionalProperties", "added"),
        ("/properties/a", "oneOf", "changed"),
        ("/properties/b", "allOf", "changed"),
        ("/properties/b", "minLength", "dropped"),
        ("/properties/c", "format", "dropped"),
        ("/properties/c", "not", "dropped"),
        ("/properties/d", "uniqueItems", "dropped"),
    }


def test_gemini_inlines_references_and_rewrites_keywords() -> None:
    result = export([{"name": "lookup", "parameters": lookup.parameters}], "gemini")  # type: ignore[list-item]
    properties = result.tools[0]["parameters"]["properties"]
    assert properties["where"] == {
        "description": "Where to look.",
        "properties": {
            "street": {"type": "string"},
            "number": {"minimum": 1, "type": "integer"},
            "country": {"default": "NL", "description": "format: iso-3166", "type": "string"},
        },
        "required": ["street", "number"],
        "title": "Address",
        "type": "object",
        "default": None,
        "nullable": True,
    }
    assert properties["code"] == {"anyOf": [{"type": "integer"}, {"type": "string"}], "default": 0}
    changes = {(c["path"], c["keyword"], c["action"]) for c in result.changes}
    assert ("/properties/where/properties/number", "exclusiveMinimum", "changed") in changes
    assert ("/properties/where/properties/country", "format", "dropped") in changes
    assert ("/properties/where", "anyOf", "changed") in changes
    assert ("", "$defs", "changed") in changes
    assert ("", "additionalProperties", "dropped") in changes
    assert ("/properties/tags", "properties", "flagged") in changes
    check_gemini(result.tools[0])


def test_gemini_enums_consts_and_type_lists() -> None:
    parameters = {
        "type": "object",
        "properties": {
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "mode": {"const": "fast"},
            "note": {"type": ["string", "null"]},
            "pick": {"enum": ["x", None]},
            "when": {"type": "string", "format": "date-time", "examples": ["2024-01-01T00:00:00Z"]},
            "user-id": {"type": "string"},
        },
    }
    result = export([{"name": "t", "parameters": parameters}], "gemini")
    properties = result.tools[0]["parameters"]["properties"]
    assert properties["level"] == {"type": "integer", "description": "one of: 1, 2, 3"}
    assert properties["mode"] == {"enum": ["fast"]}
    assert properties["note"] == {"type": "string", "nullable": True}
    assert properties["pick"] == {"enum": ["x"], "nullable": True}
    assert properties["when"] == {
        "type": "string",
        "format": "date-time",
        "example": "2024-01-01T00:00:00Z",
    }
    changes = {(c["path"], c["keyword"], c["action"]) for c in result.changes}
    assert ("/properties/user-id", "properties", "flagged") in changes


def test_gemini_leaves_out_parameters_of_a_tool_without_arguments() -> None:
    result = export([{"name": "ping", "parameters": ping.parameters}], "gemini")  # type: ignore[list-item]
    assert result.tools == [{"name": "ping"}]


def test_openai_responses_is_flat_and_always_says_strict() -> None:
    defs = [{"name": "bare"}, {"name": "full", "description": "d", "parameters": lookup.parameters}]
    plain = export(defs, "openai-responses")  # type: ignore[arg-type]
    assert plain.tools[0] == {
        "type": "function",
        "name": "bare",
        "parameters": {"type": "object", "properties": {}},
        "strict": False,
    }
    assert plain.tools[1] == {
        "type": "function",
        "name": "full",
        "description": "d",
        "parameters": lookup.parameters,
        "strict": False,
    }
    strict = export(defs, "openai-responses", strict=True)  # type: ignore[arg-type]
    chat = export(defs, "openai", strict=True)  # type: ignore[arg-type]
    assert strict.tools[1]["strict"] is True
    assert strict.tools[1]["parameters"] == chat.tools[1]["function"]["parameters"]
    with pytest.raises(ExportError, match="'openai' and 'openai-responses' only"):
        export(defs, "anthropic", strict=True)  # type: ignore[arg-type]


UNION = {
    "anyOf": [
        {
            "type": "object",
            "properties": {"operation": {"const": "read"}, "path": {"type": "string"}},
            "required": ["operation", "path"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"operation": {"const": "list"}},
            "required": ["operation"],
            "additionalProperties": False,
        },
    ]
}


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "gemini", "mcp"])
def test_a_root_union_of_objects_is_exported_as_one_object(provider: Any) -> None:
    result = export([{"name": "files", "parameters": UNION}], provider)
    text = str(result.tools[0])
    assert "'anyOf'" not in text
    assert "'enum': ['read', 'list']" in text
    assert any(c["path"] == "" and c["keyword"] == "anyOf" for c in result.changes)


@pytest.mark.parametrize(
    "root",
    [
        {"type": "object", "allOf": [{"type": "object"}, {"required": ["a"]}]},
        {"type": "object", "not": {"required": ["a"]}},
        {"anyOf": [{"type": "object"}, {"type": "string"}]},
    ],
)
def test_a_root_providers_refuse_raises(root: dict[str, Any]) -> None:
    with pytest.raises(ExportError, match=r"root|an object"):
        export([{"name": "odd", "parameters": root}], "mcp")


class Bag(BaseModel):
    """A model holding a free-form map."""

    name: str
    extra: dict[str, Any] = {}


class Empty(BaseModel):
    """A model with no field."""


@tool
def keeps(bag: Bag, empty: Empty, labels: dict[str, str]) -> None:
    """Keep a bag."""


def test_strict_encodes_free_maps_inside_definitions_and_keeps_models_closed() -> None:
    result = export([{"name": "keeps", "parameters": keeps.parameters}], "openai", strict=True)
    schema = result.tools[0]["function"]["parameters"]
    bag = schema["$defs"]["Bag"]
    assert bag["properties"]["name"] == {"type": "string"}
    assert bag["properties"]["extra"]["type"] == ["string", "null"]
    assert "Send JSON text" in bag["properties"]["extra"]["description"]
    assert schema["$defs"]["Empty"]["properties"] == {}
    assert schema["$defs"]["Empty"]["additionalProperties"] is False
    assert schema["properties"]["labels"]["type"] == "string"
    assert (
        '"additionalProperties":{"type":"string"}' in schema["properties"]["labels"]["description"]
    )


def test_a_free_definition_is_sent_as_text_at_its_uses_and_then_dropped() -> None:
    parameters = {
        "type": "object",
        "properties": {
            "meta": {"$ref": "#/$defs/Meta"},
            "many": {"type": "array", "items": {"$ref": "#/$defs/Meta"}},
        },
        "required": ["meta"],
        "$defs": {"Meta": {"type": "object", "additionalProperties": True}},
    }
    result = export([{"name": "meta", "parameters": parameters}], "openai", strict=True)
    schema = result.tools[0]["function"]["parameters"]
    assert "$defs" not in schema
    assert schema["properties"]["meta"]["type"] == "string"
    assert schema["properties"]["many"]["items"]["type"] == "string"
    assert ("/$defs/Meta", "$defs", "dropped") in {
        (c["path"], c["keyword"], c["action"]) for c in result.changes
    }
