"""What `orkestrel serve` advertises is strict-ready: with every flag on, each listed
`inputSchema` passes the OpenAI Agents SDK's `ensure_strict_json_schema` and pydantic-ai's
OpenAI strict-compatibility check, and both clients, with strict mode on, call the tools in the
form strict mode makes a model send (every property present, `null` for absent, JSON text for
an object with free keys)."""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.conftest import backend, loopback
from agent.servers import Backend, json_reply, openai_call, openai_completion
from support.mcp_client import connect, stdio, wire
from support.openai_agents import scripted_model

pytestmark = pytest.mark.anyio

__all__ = ["backend", "loopback"]

RELATIONS = '[shop.accounts]\ncontacts = ["accountId"]\n'
TABLES = {"notes": {"columns": {"title": "string"}}}


def serve_args(tmp_path: Path, *flags: str) -> list[str]:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    argv = ["-m", "orkestrel", "serve", "--root", str(root), "--data", str(tmp_path / "data")]
    return [*argv, *flags]


def every_flag(tmp_path: Path) -> list[str]:
    relations = tmp_path / "relations.toml"
    relations.write_text(RELATIONS)
    agent = ["--agent", "openai:m", "--base-url", "http://127.0.0.1:9/v1"]
    return ["--workflow", "--ask", "--relations", str(relations), *agent]


def strict_call(schema: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The arguments a model in strict mode sends: every property, `null` where not given."""
    return {name: given.get(name) for name in schema["properties"]}


def create_call(schema: dict[str, Any]) -> dict[str, Any]:
    given = {"operation": "create", "id": "shop", "driver": "sqlite"}
    return strict_call(schema, {**given, "tables": json.dumps(TABLES)})


async def test_every_served_input_schema_passes_both_strict_checks(tmp_path: Path) -> None:
    strict = pytest.importorskip("agents.strict_schema")
    profile = pytest.importorskip("pydantic_ai.profiles.openai")
    async with connect(stdio(sys.executable, serve_args(tmp_path, *every_flag(tmp_path)))) as c:
        listed = await c.list_tools()
    names = [tool["name"] for tool in listed]
    assert names == [
        "infer",
        "describe",
        "database",
        "relation",
        "workspace",
        "workflow",
        "agent",
        "ask",
    ]
    refused: dict[str, str] = {}
    for tool in listed:
        schema = tool["inputSchema"]
        try:
            strict.ensure_strict_json_schema(copy.deepcopy(schema), _reject_open_objects=True)
        except Exception as error:
            refused[tool["name"]] = f"agents: {error}"
        checker = profile.OpenAIJsonSchemaTransformer(copy.deepcopy(schema), strict=None)
        checker.walk()
        if not checker.is_strict_compatible:
            refused.setdefault(tool["name"], "pydantic-ai: not strict-compatible")
    assert refused == {}


async def test_what_a_strict_model_fills_unused_fields_with_is_read_as_absent(
    tmp_path: Path,
) -> None:
    async with connect(stdio(sys.executable, serve_args(tmp_path))) as client:
        listed = {tool["name"]: tool["inputSchema"] for tool in await client.list_tools()}
        database, workspace = listed["database"], listed["workspace"]
        await client.call_tool("database", create_call(database))
        # Another operation's fields as empty as the listing lets them be, and the count's
        # own unused `query` (JSON text) as "".
        filler = {"query": "", "key": [], "row": [], "column": "", "changes": None}
        counted = await client.call_tool(
            "database",
            strict_call(database, {**filler, "operation": "count", "id": "shop", "table": "notes"}),
        )
        written = {"operation": "write", "path": "a.txt", "content": "hi"}
        await client.call_tool("workspace", strict_call(workspace, written))
        filler = {"query": "", "replacement": "", "content": "", "from": "", "to": ""}
        read = await client.call_tool(
            "workspace", strict_call(workspace, {**filler, "operation": "read", "path": "a.txt"})
        )
        keyed = {"operation": "count", "id": "shop", "table": "notes", "key": 7}
        refused = await client.call_tool("database", strict_call(database, keyed))
    assert counted.get("isError", False) is False, counted
    assert counted["content"][0]["text"] == '{"count":0}'
    assert read.get("isError", False) is False, read
    assert "hi" in read["content"][0]["text"]
    assert refused["isError"] is True
    assert refused["content"][0]["text"] == (
        'malformed database call: count: "key" is an argument of get, update, remove, not of '
        "count (count takes operation, id, table, query; send null for the others)"
    )


async def test_the_agents_sdk_keeps_strict_mode_and_calls_a_dict_argument_as_json_text(
    tmp_path: Path,
) -> None:
    agents = pytest.importorskip("agents")
    from agents.mcp import MCPServerStdio

    seen: dict[str, Any] = {}
    model = scripted_model(
        seen, lambda tools: ("database", create_call(tools["database"].params_json_schema))
    )

    params = {
        "command": sys.executable,
        "args": serve_args(tmp_path, *every_flag(tmp_path)),
        "env": dict(os.environ),
    }
    async with MCPServerStdio(params=params, client_session_timeout_seconds=60) as server:
        agent = agents.Agent(
            name="strict",
            model=model,
            mcp_servers=[server],
            mcp_config={"convert_schemas_to_strict": True},
        )
        offline = agents.RunConfig(tracing_disabled=True)
        result = await agents.Runner.run(agent, "Create a database.", run_config=offline)
        tables = await server.call_tool(
            "database",
            strict_call(seen["tools"]["database"].params_json_schema, {})
            | {"operation": "tables", "id": "shop"},
        )
    assert result.final_output == "done"
    assert {name for name, tool in seen["tools"].items() if not tool.strict_json_schema} == set()
    assert "error" not in str(seen["output"]).lower()
    listing = wire(tables)
    assert listing.get("isError", False) is False
    assert "notes" in listing["content"][0]["text"]


async def test_pydantic_ai_sends_strict_tools_to_openai_and_runs_the_strict_call(
    backend: Backend, tmp_path: Path
) -> None:
    pytest.importorskip("fastmcp", reason="pydantic-ai's MCP toolset needs the 2.x SDK line")
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset, StdioTransport
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    args = serve_args(tmp_path, *every_flag(tmp_path))
    async with connect(stdio(sys.executable, args)) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
    call = create_call(listed["database"]["inputSchema"])
    backend.push(
        json_reply(openai_completion(None, [openai_call("call_1", "database", call)])),
        json_reply(openai_completion("created")),
    )
    model = OpenAIChatModel(
        "gpt-test", provider=OpenAIProvider(base_url=f"{backend.url}/v1", api_key="sk-test")
    )
    toolset = MCPToolset(
        StdioTransport(sys.executable, args, env=dict(os.environ)),
        init_timeout=60,
        read_timeout=120,
    )
    async with Agent(model, toolsets=[toolset]) as agent:
        result = await agent.run("Create a database.")
    first, second = backend.requests
    sent = {tool["function"]["name"]: tool["function"] for tool in first.body["tools"]}
    assert set(sent) == set(listed)
    assert {name for name, tool in sent.items() if tool.get("strict") is not True} == set()
    answered = [m for m in second.body["messages"] if m["role"] == "tool"]
    assert len(answered) == 1
    assert json.loads(answered[0]["content"])["id"] == "shop"
    assert result.output == "created"


async def test_what_serve_lists_passes_each_provider_checker_as_a_strict_tool(
    tmp_path: Path,
) -> None:
    # The MCP 1.x suite's environment has no provider packages; the main one has them all.
    pytest.importorskip("anthropic")
    pytest.importorskip("pydantic_ai")
    from support.checkers import (
        check_anthropic,
        check_mcp,
        check_openai,
        check_openai_responses,
        check_strict_schema,
    )

    async with connect(stdio(sys.executable, serve_args(tmp_path, *every_flag(tmp_path)))) as c:
        listed = await c.list_tools()
    assert len(listed) == 8
    for tool in listed:
        schema = tool["inputSchema"]
        check_mcp(tool)
        check_strict_schema(copy.deepcopy(schema))
        function = {"name": tool["name"], "description": tool["description"]}
        check_openai(
            {"type": "function", "function": {**function, "parameters": schema, "strict": True}},
            strict=True,
        )
        check_openai_responses(
            {"type": "function", **function, "parameters": schema, "strict": True}, strict=True
        )
        check_anthropic({**function, "input_schema": schema})
