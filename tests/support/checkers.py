"""Each provider's own checker, from the provider's own package, applied to an `export` result.

The packages are the optional `providers` test extra. Without them the tests that use this
module skip, except under `ORKESTREL_REQUIRE_INSTALLED=1` (CI), where a missing one fails.
"""

from __future__ import annotations

import copy
import importlib
import os
from types import ModuleType
from typing import Any

import pytest
from pydantic import TypeAdapter

REQUIRED = os.environ.get("ORKESTREL_REQUIRE_INSTALLED") == "1"

ROOT_REFUSED = ("anyOf", "oneOf", "allOf", "not", "enum")
"""What Anthropic (the compositions) and OpenAI (a root union, even outside strict mode) refuse
at the top of a tool's parameters; no checker below looks there, so it is checked here."""


def provider_module(name: str) -> ModuleType:
    """Imports one provider package's module, skipping (or failing under CI) without it."""
    if REQUIRED:
        return importlib.import_module(name)
    return pytest.importorskip(name)


def check_root(schema: dict[str, Any]) -> None:
    assert schema["type"] == "object"
    assert not [key for key in ROOT_REFUSED if key in schema], sorted(schema)


def check_strict_schema(schema: dict[str, Any]) -> None:
    """OpenAI strict mode, as the Agents SDK and pydantic-ai judge it: each leaves the schema as
    it is (so it already is strict: an open object would come back closed, an untyped array
    refused), and neither finds anything to refuse or to fall back on."""
    strict = provider_module("agents.strict_schema")
    assert strict.ensure_strict_json_schema(copy.deepcopy(schema)) == schema
    profiles = provider_module("pydantic_ai.profiles.openai")
    # pydantic-ai also drops every `title`, which strict mode allows: compare without them.
    untitled = _without_titles(schema)
    walker = profiles.OpenAIJsonSchemaTransformer(copy.deepcopy(schema), strict=None)
    assert walker.walk() == untitled
    assert walker.is_strict_compatible is True
    forced = profiles.OpenAIJsonSchemaTransformer(copy.deepcopy(schema), strict=True)
    assert forced.walk() == untitled
    utils = provider_module("pydantic_ai._utils")
    utils.check_object_json_schema(copy.deepcopy(schema))


def _without_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: value if key in ("properties", "$defs") else _without_titles(value)
            for key, value in node.items()
            if key != "title"
        } | {
            key: {name: _without_titles(item) for name, item in node[key].items()}
            for key in ("properties", "$defs")
            if isinstance(node.get(key), dict)
        }
    if isinstance(node, list):
        return [_without_titles(item) for item in node]
    return node


def check_openai(rendered: dict[str, Any], strict: bool) -> None:
    """A Chat Completions function tool, checked against `openai`'s own parameter type."""
    chat = provider_module("openai.types.chat")
    TypeAdapter(chat.ChatCompletionFunctionToolParam).validate_python(rendered)
    function = rendered["function"]
    if "parameters" in function:
        check_root(function["parameters"])
    if strict:
        assert function["strict"] is True
        check_strict_schema(function["parameters"])


def check_openai_responses(rendered: dict[str, Any], strict: bool) -> None:
    """A Responses API function tool, checked against `openai`'s own parameter type."""
    responses = provider_module("openai.types.responses")
    TypeAdapter(responses.FunctionToolParam).validate_python(rendered)
    assert rendered["strict"] is strict
    check_root(rendered["parameters"])
    if strict:
        check_strict_schema(rendered["parameters"])


def check_anthropic(rendered: dict[str, Any]) -> None:
    """A Messages API tool, checked against `anthropic`'s own `ToolParam`."""
    types = provider_module("anthropic.types")
    TypeAdapter(types.ToolParam).validate_python(rendered)
    check_root(rendered["input_schema"])


def check_gemini(rendered: dict[str, Any]) -> None:
    """A function declaration, built by `google-genai`'s own `FunctionDeclaration` (which
    forbids unknown fields at every level of its `Schema`)."""
    genai = provider_module("google.genai.types")
    declaration = genai.FunctionDeclaration.model_validate(rendered)
    assert declaration.name == rendered["name"]
    if "parameters" in rendered:
        assert declaration.parameters is not None
        genai.Tool(function_declarations=[declaration])


def check_mcp(rendered: dict[str, Any]) -> None:
    """An MCP tool listing entry, checked by the MCP SDK's own `Tool` model."""
    types = provider_module("mcp_types")
    types.Tool.model_validate(rendered)
    check_root(rendered["inputSchema"])
