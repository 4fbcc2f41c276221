"""The providers' documented tool-schema rules, written down as data, and checkers for them."""

from __future__ import annotations

import re
from typing import Any

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
