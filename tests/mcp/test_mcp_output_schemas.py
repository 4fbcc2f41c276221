"""The `outputSchema` `orkestrel serve` lists: every built-in tool whose answer has one shape
advertises it (derived from the type its handler returns), and what the MCP client reads from
each call's `structuredContent` validates against it; the tools whose answers are plain text or
change with the operation advertise none."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from support.mcp_client import MODES, connect, stdio, text

pytestmark = pytest.mark.anyio

SCHEMAS = {"infer", "workflow", "ask"}
"""The served tools whose every answer is an object of one described shape."""

FORM: Any = {
    "label": "Deploy",
    "fields": [
        {"control": "text", "name": "owner", "rule": {"required": True}},
        {"control": "number", "name": "replicas"},
        {"control": "confirm", "name": "now"},
        {"control": "select", "name": "region", "choices": [{"value": "eu", "label": "EU"}]},
    ],
}
ANSWER = {"owner": "ada", "replicas": 3, "now": True, "region": "eu"}

INFER_CALLS: list[dict[str, Any]] = [
    {"samples": [{"id": 1, "tag": "a"}, {"id": 2}]},
    {"samples": [{"day": "2025-01-31", "kind": "a"}, {"day": "2025-02-01"}], "format": True},
    {"samples": [{"kind": "a"}, {"kind": "b"}], "enum": True},
    {"samples": [1, 2.5]},
    {"samples": [{"x": 1}], "candidates": [{"x": 2}, {"x": "a"}, 3]},
]
STEP_OK = {"name": "describe", "input": {"name": "infer"}}
STEP_FAILS = {"name": "database", "input": {"operation": "tables", "id": "missing"}}
WORKFLOW_CALLS: list[dict[str, Any]] = [
    {"name": "fine", "steps": [STEP_OK, {"name": "infer", "input": INFER_CALLS[0]}]},
    {"name": "broken", "steps": [STEP_FAILS, STEP_OK]},
    {"name": "bailed", "bail": True, "steps": [STEP_FAILS, STEP_OK]},
    {"run": "fine"},
    {"run": "fine", "offset": 1, "limit": 1},
    {"run": "fine", "limit": 1},
    {"run": "broken"},
]


def every_flag(tmp_path: Path) -> list[str]:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    relations = tmp_path / "relations.toml"
    relations.write_text('[shop.accounts]\ncontacts = ["accountId"]\n')
    return [
        "-m",
        "orkestrel",
        "serve",
        "--root",
        str(root),
        "--data",
        str(tmp_path / "data"),
        "--workflow",
        "--ask",
        "--relations",
        str(relations),
        "--agent",
        "openai:m",
        "--base-url",
        "http://127.0.0.1:9/v1",
    ]


async def answer_form(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": ANSWER}


@pytest.mark.parametrize("mode", MODES)
async def test_each_structured_answer_validates_against_the_advertised_output_schema(
    tmp_path: Path, mode: str
) -> None:
    calls = [
        *(("infer", call) for call in INFER_CALLS),
        *(("workflow", call) for call in WORKFLOW_CALLS),
        ("ask", {"to": "user", "schema": FORM}),
    ]
    parameters = stdio(sys.executable, every_flag(tmp_path))
    async with connect(parameters, mode=mode, elicitation=answer_form) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        answers = [(name, call, await client.call_tool(name, call)) for name, call in calls]
    advertised = {name for name, tool in listed.items() if "outputSchema" in tool}
    assert advertised == SCHEMAS
    validators = {}
    for name in SCHEMAS:
        schema = listed[name]["outputSchema"]
        assert schema["type"] == "object"
        Draft202012Validator.check_schema(schema)
        validators[name] = Draft202012Validator(schema)
    statuses = []
    for name, call, answer in answers:
        assert answer.get("isError", False) is False, (name, call, text(answer))
        structured = answer["structuredContent"]
        assert json.loads(text(answer)) == structured
        errors = [error.message for error in validators[name].iter_errors(structured)]
        assert errors == [], (name, call)
        statuses.append(structured.get("status"))
    assert statuses[len(INFER_CALLS) : len(INFER_CALLS) + 3] == ["completed", "completed", "failed"]
    assert answers[-1][2]["structuredContent"] == ANSWER
    page = answers[len(INFER_CALLS) + 4][2]["structuredContent"]
    assert (page["offset"], len(page["tasks"]), page["total"]) == (1, 1, 2)
    broken = answers[len(INFER_CALLS) + 1][2]["structuredContent"]
    assert broken["failed"] == 1
    assert "unknown database 'missing'" in broken["failures"][0]["message"]


async def test_the_tools_without_an_output_schema_answer_text_or_shapes_that_vary(
    tmp_path: Path,
) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "notes.md").write_text("# Notes\n")
    parameters = stdio(sys.executable, every_flag(tmp_path))
    async with connect(parameters) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        described = await client.call_tool("describe", {"name": "infer"})
        read = await client.call_tool("workspace", {"operation": "read", "path": "notes.md"})
        files = await client.call_tool("workspace", {"operation": "list"})
        has = await client.call_tool("workspace", {"operation": "has", "path": "notes.md"})
        databases = await client.call_tool("database", {"operation": "databases"})
        write = {"operation": "write", "path": "new.md", "content": "x"}
        written = await client.call_tool("workspace", write)
        failed = await client.call_tool("infer", {"samples": "not a list"})
    assert set(listed) - SCHEMAS == {"describe", "database", "workspace", "relation", "agent"}
    assert all("outputSchema" not in listed[name] for name in set(listed) - SCHEMAS)
    assert "structuredContent" not in described
    assert text(read) == "# Notes\n"
    assert "structuredContent" not in read
    assert [entry["path"] for entry in json.loads(text(files))] == ["notes.md"]
    assert "structuredContent" not in files
    assert (text(has), "structuredContent" in has) == ("true", False)
    assert "structuredContent" not in databases
    assert written["structuredContent"] == {"path": "new.md", "state": "created"}
    assert (failed["isError"], "structuredContent" in failed) == (True, False)


async def test_the_fastmcp_client_reads_the_structured_answers_as_data(tmp_path: Path) -> None:
    fastmcp = pytest.importorskip("fastmcp", reason="fastmcp's client needs the 2.x SDK line")
    from fastmcp.client.transports import StdioTransport

    calls = [
        ("infer", INFER_CALLS[0]),
        ("infer", INFER_CALLS[-1]),
        *[("workflow", call) for call in WORKFLOW_CALLS[:2] + WORKFLOW_CALLS[3:4]],
    ]
    argv = every_flag(tmp_path)
    async with fastmcp.Client(StdioTransport(sys.executable, argv, env=dict(os.environ))) as client:
        answers = [await client.call_tool(name, call) for name, call in calls]
    assert [answer.is_error for answer in answers] == [False] * len(calls)
    assert [answer.data for answer in answers] == [answer.structured_content for answer in answers]
    assert answers[2].data["status"] == "completed"
    assert answers[-1].data["run"] == "fine"
