"""`export`: each provider's output checked against that provider's documented schema rules."""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Literal

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from orkestrel.tool import (
    PROVIDERS,
    ExportError,
    ToolDefinition,
    ToolManager,
    export,
    tool,
)

# The providers' documented rules, written down as data.
#
# OpenAI: Structured Outputs guide, "Supported schemas" (developers.openai.com/api/docs/guides/
# structured-outputs): supported types and per-type properties, "all fields must be required",
# "additionalProperties: false must always be set in objects", composition keywords refused,
# nesting/size limits; function names from the Chat Completions API reference
# (`^[a-zA-Z0-9_-]{1,64}$`). `$ref` beside other keywords is refused (pydantic/pydantic-ai#1488).
OPENAI_STRICT = {
    "keywords": {
        "type",
        "description",
        "title",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "enum",
        "const",
        "$ref",
        "$defs",
        "definitions",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    },
    "formats": {
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    },
    "types": {"string", "number", "boolean", "integer", "object", "array", "null"},
    "name": r"^[a-zA-Z0-9_-]{1,64}$",
}
# Gemini: API reference, `Schema` ("a select subset of an OpenAPI 3.0 schema object") and
# `FunctionDeclaration` (name: a letter or underscore first, then a-z, A-Z, 0-9, _, . or -, at
# most 64; parameter names: a letter or underscore first, then a-z, A-Z, 0-9 or _, at most 64).
# Formats: NUMBER float/double, INTEGER int32/int64, STRING enum/date-time. `enum` is string[].
GEMINI = {
    "keywords": {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    },
    "types": {"string", "number", "integer", "boolean", "array", "object", "null"},
    "formats": {
        "string": {"enum", "date-time"},
        "number": {"float", "double"},
        "integer": {"int32", "int64"},
    },
    "name": r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$",
    "property": r"^[A-Za-z_][A-Za-z0-9_]{0,63}$",
}
# Anthropic: Messages API reference, `tools[]`: `name` matches `^[a-zA-Z0-9_-]{1,64}$`,
# `input_schema` is a JSON Schema whose `type` is "object".
ANTHROPIC = {"keys": {"name", "description", "input_schema"}, "name": r"^[a-zA-Z0-9_-]{1,64}$"}
# MCP: specification 2025-11-25, server/tools: `Tool` has `name`, `description`, `inputSchema`
# (a JSON Schema object, `type: "object"`); tool names SHOULD be 1-128 of A-Z a-z 0-9 _ - .
MCP = {"keys": {"name", "description", "inputSchema"}, "name": r"^[A-Za-z0-9_.-]{1,128}$"}


def walk(schema: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every schema node with its JSON Pointer, following properties, items, anyOf and $defs."""
    found: list[tuple[str, dict[str, Any]]] = []
    stack = [(path, schema)]
    while stack:
        here, node = stack.pop()
        if not isinstance(node, dict):
            continue
        found.append((here, node))
        for key in ("properties", "$defs", "definitions"):
            for name, child in (node.get(key) or {}).items():
                stack.append((f"{here}/{key}/{name}", child))
        if isinstance(node.get("items"), dict):
            stack.append((f"{here}/items", node["items"]))
        for index, arm in enumerate(node.get("anyOf") or []):
            stack.append((f"{here}/anyOf/{index}", arm))
    return found


def check_openai_strict(rendered: dict[str, Any]) -> None:
    assert rendered["type"] == "function"
    function = rendered["function"]
    assert re.match(OPENAI_STRICT["name"], function["name"])
    assert function["strict"] is True
    schema = function["parameters"]
    assert schema["type"] == "object"
    for path, node in walk(schema):
        assert set(node) <= OPENAI_STRICT["keywords"], (path, set(node))
        if "$ref" in node:
            assert set(node) == {"$ref"}, path
        if "format" in node:
            assert node["format"] in OPENAI_STRICT["formats"], path
        kinds = node.get("type")
        for kind in kinds if isinstance(kinds, list) else [kinds] if kinds else []:
            assert kind in OPENAI_STRICT["types"], path
        if kinds == "object" or (isinstance(kinds, list) and "object" in kinds):
            assert node["additionalProperties"] is False, path
            assert node["required"] == list(node["properties"]), path


def check_gemini(rendered: dict[str, Any]) -> None:
    assert set(rendered) <= {"name", "description", "parameters"}
    assert re.match(GEMINI["name"], rendered["name"])
    if "parameters" not in rendered:
        return
    assert all("$ref" not in node for _, node in walk(rendered["parameters"]))
    for path, node in walk(rendered["parameters"]):
        assert set(node) <= GEMINI["keywords"], (path, set(node))
        kind = node.get("type")
        assert kind is None or kind in GEMINI["types"], path
        if "enum" in node:
            assert all(isinstance(item, str) for item in node["enum"]), path
        if "format" in node:
            assert node["format"] in GEMINI["formats"][kind], path


def check_envelope(rendered: dict[str, Any], rules: dict[str, Any], key: str) -> None:
    assert set(rendered) <= rules["keys"]
    assert re.match(rules["name"], rendered["name"])
    assert rendered[key]["type"] == "object"


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
    assert properties["tags"]["anyOf"][0] == {
        "additionalProperties": False,
        "properties": {},
        "required": [],
        "type": "object",
    }
    changes = {(c["path"], c["keyword"], c["action"]) for c in result.changes}
    assert ("/properties/limit", "default", "dropped") in changes
    assert ("/properties/limit", "required", "changed") in changes
    assert ("/properties/tags/anyOf/0", "additionalProperties", "changed") in changes
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


def test_gemini_cuts_recursion_and_bounds_growth() -> None:
    result = export(
        [
            {
                "name": "tree",
                "parameters": {
                    "properties": {"root": {"$ref": "#/$defs/N"}},
                    "$defs": {
                        "N": {
                            "type": "object",
                            "properties": {
                                "kids": {"type": "array", "items": {"$ref": "#/$defs/N"}}
                            },
                        }
                    },
                },
            }
        ],
        "gemini",
    )
    text = json.dumps(result.tools)
    assert text.count('"kids"') == 2
    assert any(c["keyword"] == "$ref" and "cut after 2" in c["reason"] for c in result.changes)

    loop = {"properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"$ref": "#/$defs/A"}}}
    export([{"name": "loop", "parameters": loop}], "gemini")

    defs = {
        f"D{i}": {
            "type": "object",
            "properties": {"l": {"$ref": f"#/$defs/D{i + 1}"}, "r": {"$ref": f"#/$defs/D{i + 1}"}},
        }
        for i in range(40)
    }
    defs["D40"] = {"type": "string"}
    bomb = {"properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs}
    with pytest.raises(ExportError, match="past"):
        export([{"name": "bomb", "parameters": bomb}], "gemini")


def test_gemini_leaves_out_parameters_of_a_tool_without_arguments() -> None:
    result = export([{"name": "ping", "parameters": ping.parameters}], "gemini")  # type: ignore[list-item]
    assert result.tools == [{"name": "ping"}]


def test_bad_input_raises_export_error() -> None:
    with pytest.raises(ValueError, match="openai, anthropic, gemini, mcp"):
        export([], "cohere")  # type: ignore[arg-type]
    with pytest.raises(ExportError, match="openai"):
        export([], "gemini", strict=True)
    with pytest.raises(ExportError, match="list"):
        export({"name": "x"}, "mcp")  # type: ignore[arg-type]
    with pytest.raises(ExportError, match="twice"):
        export([{"name": "x"}, {"name": "x"}], "mcp")
    with pytest.raises(ExportError, match="refused by openai"):
        export([{"name": "has space"}], "openai")
    with pytest.raises(ExportError, match="refused by gemini"):
        export([{"name": "9lives"}], "gemini")
    with pytest.raises(ExportError, match="object"):
        export([{"name": "x", "parameters": {"type": "string"}}], "anthropic")
    with pytest.raises(ExportError, match="not JSON data"):
        export([{"name": "x", "parameters": {"properties": {"a": {1, 2}}}}], "mcp")
    with pytest.raises(ExportError, match="not a string"):
        export([{"name": "x", "parameters": {1: {}}}], "mcp")
    with pytest.raises(ExportError, match="points at nothing"):
        export(
            [{"name": "x", "parameters": {"properties": {"a": {"$ref": "#/$defs/no"}}}}], "gemini"
        )
    flagged = export([{"name": "has space"}], "mcp").changes
    assert [(c["keyword"], c["action"]) for c in flagged] == [
        ("name", "flagged"),
        ("inputSchema", "added"),
    ]


def test_hostile_depth_and_self_reference_are_refused_without_recursion_errors() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(100_000):
        deep = {"type": "array", "items": deep}
    parameters = {"type": "object", "properties": {"x": deep}}
    for provider in PROVIDERS:
        with pytest.raises(ExportError, match="deeper"):
            export([{"name": "deep", "parameters": parameters}], provider)
    cyclic: dict[str, Any] = {"type": "object", "properties": {}}
    cyclic["properties"]["self"] = cyclic
    with pytest.raises(ExportError, match="contain themselves"):
        export([{"name": "cyclic", "parameters": cyclic}], "openai", strict=True)


def test_a_huge_flat_schema_is_rendered() -> None:
    parameters = {
        "type": "object",
        "properties": {f"p{i}": {"type": "integer"} for i in range(6000)},
    }
    result = export([{"name": "wide", "parameters": parameters}], "openai", strict=True)
    assert len(result.tools[0]["function"]["parameters"]["required"]) == 6000
    assert ("", "properties", "flagged") in {
        (c["path"], c["keyword"], c["action"]) for c in result.changes
    }


SCHEMA_KEYWORDS = st.sampled_from(
    [
        "minLength",
        "maxItems",
        "pattern",
        "format",
        "default",
        "title",
        "examples",
        "const",
        "uniqueItems",
        "exclusiveMinimum",
        "not",
        "$comment",
        "deprecated",
    ]
)
LEAF = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "number", "boolean", "null"])},
    optional={"description": st.text(max_size=10)},
).flatmap(
    lambda base: st.dictionaries(
        SCHEMA_KEYWORDS, st.integers(0, 5) | st.text(max_size=5), max_size=3
    ).map(lambda extra: {**base, **extra})
)
SCHEMAS = st.recursive(
    LEAF,
    lambda inner: st.one_of(
        st.builds(lambda items: {"type": "array", "items": items}, inner),
        st.builds(
            lambda props, req: {
                "type": "object",
                "properties": props,
                "required": [k for k in props if req],
            },
            st.dictionaries(st.from_regex(r"[a-z_]{1,6}", fullmatch=True), inner, max_size=4),
            st.booleans(),
        ),
        st.builds(lambda arms: {"anyOf": arms}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda arms: {"oneOf": arms}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(
            lambda kinds: {"type": kinds},
            st.lists(
                st.sampled_from(["string", "integer", "null"]), min_size=1, max_size=3, unique=True
            ),
        ),
    ),
    max_leaves=12,
)


@settings(max_examples=150)
@given(st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), SCHEMAS, max_size=4))
def test_any_schema_renders_within_the_rules_and_the_input_is_untouched(
    properties: dict[str, Any],
) -> None:
    parameters = {"type": "object", "properties": properties, "$defs": {"R": {"type": "string"}}}
    original = copy.deepcopy(parameters)
    definitions: list[ToolDefinition] = [{"name": "gen", "parameters": parameters}]
    check_openai_strict(export(definitions, "openai", strict=True).tools[0])
    check_gemini(export(definitions, "gemini").tools[0])
    check_envelope(export(definitions, "anthropic").tools[0], ANTHROPIC, "input_schema")
    check_envelope(export(definitions, "mcp").tools[0], MCP, "inputSchema")
    assert parameters == original


@settings(max_examples=60)
@given(st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), SCHEMAS, max_size=4))
def test_strict_rendering_is_idempotent(properties: dict[str, Any]) -> None:
    definitions: list[ToolDefinition] = [
        {"name": "gen", "parameters": {"type": "object", "properties": properties}}
    ]
    once = export(definitions, "openai", strict=True).tools[0]["function"]["parameters"]
    again = export([{"name": "gen", "parameters": once}], "openai", strict=True)
    assert again.tools[0]["function"]["parameters"] == once
    assert [c for c in again.changes if c["action"] != "flagged"] == []
