"""Rendering tool definitions in the shape each LLM provider's API takes, with a change report."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple, get_args

from orkestrel.tool.errors import ExportError
from orkestrel.tool.gemini import gemini_schema
from orkestrel.tool.schemas import ExportChange, Report, copy_schema, object_root
from orkestrel.tool.strict import strict_schema
from orkestrel.tool.types import ToolDefinition

Provider = Literal["openai", "anthropic", "gemini", "mcp", "openai-responses"]
"""Names a provider that `export` renders for."""

PROVIDERS: tuple[str, ...] = get_args(Provider)
"""Lists the provider names `export` accepts, in the order its errors give them."""

_NAMES: dict[str, tuple[re.Pattern[str], str]] = {
    "openai": (re.compile(r"^[A-Za-z0-9_-]{1,64}$"), "1-64 letters, digits, _ or -"),
    "anthropic": (re.compile(r"^[A-Za-z0-9_-]{1,64}$"), "1-64 letters, digits, _ or -"),
    "gemini": (
        re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$"),
        "a letter or _ first, then letters, digits, _, . or -, 64 at most",
    ),
    "mcp": (re.compile(r"^[A-Za-z0-9_.-]{1,128}$"), "1-128 letters, digits, _, - or ."),
}
_NAMES["openai-responses"] = _NAMES["openai"]

_STRICT = ("openai", "openai-responses")

PORTABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
"""The tool names every provider `export` renders for accepts: a letter or `_`, then up to 63
letters, digits, `_` or `-` (the rules of OpenAI, Anthropic, Gemini and MCP at once)."""

_UNPORTABLE = re.compile(r"[^A-Za-z0-9_-]")


def portable_name(name: str) -> str:
    """Turns a tool name into one every provider accepts (`PORTABLE_NAME`), unchanged when it
    already is: each other character becomes `_`, a leading digit or `-` gets a `_` in front,
    and a name past 64 characters keeps its first 55 and a hash of the whole, so that two long
    names stay apart. `weather.lookup` becomes `weather_lookup`.
    """
    if PORTABLE_NAME.match(name):
        return name
    text = _UNPORTABLE.sub("_", name)
    if not text or not (text[0].isascii() and (text[0].isalpha() or text[0] == "_")):
        text = "_" + text
    if len(text) > 64:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        text = f"{text[:55]}_{digest}"
    return text


"""Each provider's documented tool-name rule; MCP's is a SHOULD, so it is flagged, not raised."""

_EMPTY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


class ExportResult(NamedTuple):
    """Holds what `export` returns: the rendered tools and every change made to get there."""

    tools: list[dict[str, Any]]
    """One provider-shaped tool per definition, in input order."""
    changes: list[ExportChange]
    """What was dropped, changed, added or flagged, per tool, path and keyword."""


def export(
    definitions: Sequence[ToolDefinition], provider: Provider, *, strict: bool = False
) -> ExportResult:
    """Renders tool definitions for one provider's API and reports every change it made.

    - `"openai"`: Chat Completions function tools, `{"type": "function", "function": {...}}`.
      With `strict=True` each function carries `"strict": true` and its schema is rewritten to
      the strict subset: every property required (optional ones made nullable, where `null`
      means absent), `additionalProperties: false` on every object, unsupported keywords
      dropped, and a place the subset cannot describe (an object with free keys, a value of any
      type) sent as JSON text; `ToolManager.execute` reads both forms back.
    - `"openai-responses"`: Responses API function tools, flat
      `{"type": "function", "name", "description", "parameters", "strict"}`, with `strict`
      always written (that API assumes `true` when it is left out) and rendered as for
      `"openai"`.
    - `"anthropic"`: `{"name", "description", "input_schema"}`.
    - `"gemini"`: function declarations `{"name", "description", "parameters"}` with every
      `$ref` inlined and the schema cut down to Gemini's OpenAPI subset.
    - `"mcp"`: `{"name", "description", "inputSchema"}`.

    Every root is one object: a root union of object schemas is flattened into one object
    (`flatten_parameters`), since providers refuse a union there. The input is never modified:
    every schema is copied. Raises `ExportError` for an unknown provider, `strict` outside the
    two OpenAI shapes, a duplicate or refused tool name, a parameter schema that is not one
    object, not JSON data, too deep or too large, or (in strict mode) a property that takes any
    value.
    """
    if not isinstance(provider, str) or provider not in PROVIDERS:
        raise ExportError(f"unknown provider {provider!r}: expected one of {', '.join(PROVIDERS)}")
    if strict and provider not in _STRICT:
        raise ExportError(
            f"strict=True applies to providers 'openai' and 'openai-responses' only, "
            f"not {provider!r}"
        )
    if isinstance(definitions, str | bytes | Mapping) or not isinstance(definitions, Sequence):
        raise ExportError("definitions must be a list of tool definitions")
    tools: list[dict[str, Any]] = []
    changes: list[ExportChange] = []
    seen: set[str] = set()
    for index, definition in enumerate(definitions):
        name, description, parameters = _read(definition, index)
        if name in seen:
            raise ExportError(f"tool name {name!r} appears twice")
        seen.add(name)
        report = Report(name, changes)
        _check_name(name, provider, report)
        schema = None
        if parameters is not None:
            schema = object_root(copy_schema(parameters, name), report)
        tools.append(_render(provider, strict, name, description, schema, report))
    return ExportResult(tools, changes)


def _read(definition: Any, index: int) -> tuple[str, str | None, Any]:
    if not isinstance(definition, Mapping):
        raise ExportError(f"definition {index} is not a mapping")
    name = definition.get("name")
    if not isinstance(name, str) or not name:
        raise ExportError(f"definition {index} has no string name")
    description = definition.get("description")
    if description is not None and not isinstance(description, str):
        raise ExportError(f"tool {name!r}: description must be a string")
    return name, description, definition.get("parameters")


def _check_name(name: str, provider: str, report: Report) -> None:
    pattern, rule = _NAMES[provider]
    if pattern.match(name):
        return
    if provider == "mcp":
        report.add("", "name", "flagged", f"MCP asks for tool names of {rule}")
        return
    raise ExportError(f"tool name {name!r} is refused by {provider}: it takes {rule}")


def _render(
    provider: str,
    strict: bool,
    name: str,
    description: str | None,
    schema: dict[str, Any] | None,
    report: Report,
) -> dict[str, Any]:
    head: dict[str, Any] = {"name": name}
    if description is not None:
        head["description"] = description
    if provider == "gemini":
        declared = gemini_schema(schema, report) if schema is not None else None
        return {**head, "parameters": declared} if declared is not None else head
    if provider in _STRICT:
        if strict:
            schema = strict_schema(schema if schema is not None else _empty(report, ""), report)
        if provider == "openai-responses":
            parameters = schema if schema is not None else _empty(report, "")
            return {"type": "function", **head, "parameters": parameters, "strict": strict}
        function = head if schema is None else {**head, "parameters": schema}
        if strict:
            function["strict"] = True
        return {"type": "function", "function": function}
    key = "input_schema" if provider == "anthropic" else "inputSchema"
    return {**head, key: schema if schema is not None else _empty(report, key)}


def _empty(report: Report, key: str) -> dict[str, Any]:
    report.add("", key or "parameters", "added", "the provider wants an object schema")
    return {**_EMPTY_OBJECT, "properties": {}}
