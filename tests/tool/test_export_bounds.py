"""`export` under pressure: bad input, hostile depth, recursion and size bounds, and
hypothesis over generated schemas checked against every provider's documented rules."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orkestrel.tool import PROVIDERS, ExportError, ToolDefinition, export
from support.providers import ANTHROPIC, MCP, check_envelope, check_gemini, check_openai_strict


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
