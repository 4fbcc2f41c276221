"""`describe(name, operation)` over `orkestrel serve`: the listing stays lean, and one call gives
the detail it left out, one operation's exact schema and an example call, which the tool takes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from support.generated_calls import strict_value
from support.mcp_client import connect, stdio, text

pytestmark = pytest.mark.anyio

RELATIONS = '[shop.accounts]\ncontacts = ["accountId"]\n'


def serve_args(tmp_path: Path) -> list[str]:
    relations = tmp_path / "relations.toml"
    relations.write_text(RELATIONS)
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    argv = ["-m", "orkestrel", "serve", "--root", str(root), "--data", str(tmp_path / "data")]
    return [*argv, "--relations", str(relations)]


def strict(listed: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """A call as strict mode sends it against the tool's listed schema."""
    call: dict[str, Any] = strict_value(given, listed["inputSchema"])
    return call


def parts(answer: str) -> tuple[dict[str, Any], dict[str, Any]]:
    lines = answer.splitlines()
    schema = next(line for line in lines if line.startswith("Exact schema"))
    example = next(line for line in lines if line.startswith("Example: "))
    return json.loads(schema.split(": ", 1)[1]), json.loads(example.removeprefix("Example: "))


async def test_describe_answers_one_operation_with_its_exact_schema_and_a_working_example(
    tmp_path: Path,
) -> None:
    async with connect(stdio(sys.executable, serve_args(tmp_path))) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        ask = listed["describe"]
        answer = await client.call_tool(
            "describe", strict(ask, {"name": "database", "operation": "create"})
        )
        assert answer.get("isError", False) is False
        head = text(answer).splitlines()[0]
        schema, example = parts(text(answer))
        created = await client.call_tool("database", strict(listed["database"], example))
        tables = await client.call_tool(
            "database", strict(listed["database"], {"operation": "tables", "id": example["id"]})
        )
        unknown = await client.call_tool(
            "describe", strict(ask, {"name": "database", "operation": "drop"})
        )
        flat = await client.call_tool("describe", strict(ask, {"name": "infer", "operation": "x"}))
    assert head == "database create: Create a database."
    assert schema["required"] == ["operation", "id", "tables"]
    assert schema["properties"]["tables"]["additionalProperties"]["required"] == ["columns"]
    jsonschema.validate(example, schema)
    assert example["operation"] == "create"
    assert created.get("isError", False) is False, text(created)
    assert tables.get("isError", False) is False, text(tables)
    listing = json.loads(text(tables))["tables"]
    assert [table["name"] for table in listing] == list(example["tables"])
    assert unknown["isError"] is True
    assert text(unknown) == (
        "tool 'database' has no operation 'drop'; it has create, tables, get, records, count, "
        "aggregate, add, set, update, remove, destroy"
    )
    assert flat["isError"] is True
    assert text(flat) == "tool 'infer' has no operations; call describe('infer')"


async def test_every_operation_example_fits_its_schema_and_the_listing_and_parses(
    tmp_path: Path,
) -> None:
    seen = 0
    refused: list[str] = []
    async with connect(stdio(sys.executable, serve_args(tmp_path))) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        for name in ("database", "workspace", "relation"):
            operations = listed[name]["inputSchema"]["properties"]["operation"]["enum"]
            for operation in operations:
                answer = await client.call_tool(
                    "describe",
                    strict(listed["describe"], {"name": name, "operation": operation}),
                )
                schema, example = parts(text(answer))
                jsonschema.validate(example, schema)
                sent = strict(listed[name], example)
                jsonschema.validate(sent, listed[name]["inputSchema"])
                result = await client.call_tool(name, sent)
                # The example may name nothing that exists (a file, a model), never a bad call.
                if result.get("isError", False):
                    refused.append(f"{name} {operation}: {text(result)}")
                seen += 1
    assert seen == 11 + 13 + 5
    assert [line for line in refused if "malformed" in line] == []
