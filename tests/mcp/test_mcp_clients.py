"""`orkestrel serve` driven by the MCP clients users run it with: pydantic-ai's `MCPToolset`
under a scripted `FunctionModel`, the OpenAI Agents SDK's `MCPServerStdio` under a scripted
model, and langchain-mcp-adapters. Each is a real package; a client missing from the installed
SDK line's environment is skipped (pydantic-ai needs mcp 2.x, langchain-mcp-adapters 1.x).
What the model reads of each kind of answer, client by client, is test_mcp_model_reads.py."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from support.mcp_client import wire
from support.openai_agents import scripted_model

pytestmark = pytest.mark.anyio

ORKESTREL = [sys.executable, "-m", "orkestrel"]
SAMPLES = [{"id": 1, "tag": "a"}, {"id": 2}]
INFER = {"samples": SAMPLES, "format": None, "enum": None, "candidates": None}
"""An infer call as `orkestrel serve` lists it: strict form, every property present."""


def serve_args(tmp_path: Path) -> list[str]:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    return ["-m", "orkestrel", "serve", "--root", str(root), "--data", str(tmp_path / "data")]


async def test_pydantic_ai_agent_calls_the_served_tools(tmp_path: Path) -> None:
    pytest.importorskip("fastmcp", reason="pydantic-ai's MCP toolset needs the 2.x SDK line")
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset, StdioTransport
    from pydantic_ai.messages import (
        ModelMessage,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    offered: list[str] = []

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered[:] = [tool.name for tool in info.function_tools]
        returns = [
            part
            for message in messages
            for part in getattr(message, "parts", [])
            if isinstance(part, ToolReturnPart)
        ]
        if not returns:
            write = {"operation": "write", "path": "notes.md", "content": "# Notes\n"}
            return ModelResponse(
                parts=[
                    ToolCallPart("infer", {"samples": SAMPLES}, tool_call_id="c1"),
                    ToolCallPart("workspace", write, tool_call_id="c2"),
                ]
            )
        inferred = next(part for part in returns if part.tool_name == "infer")
        return ModelResponse(parts=[TextPart(json.dumps(inferred.model_response_object()))])

    transport = StdioTransport(sys.executable, serve_args(tmp_path), env=dict(os.environ))
    toolset = MCPToolset(transport, init_timeout=60, read_timeout=120)
    agent = Agent(FunctionModel(script), toolsets=[toolset])
    async with agent:
        result = await agent.run("Infer a schema and keep a note.")
    assert offered == ["infer", "describe", "database", "workspace"]
    schema = json.loads(result.output)
    assert schema["type"] == "object"
    assert set(schema["properties"]) == {"id", "tag"}
    assert (tmp_path / "root" / "notes.md").read_text() == "# Notes\n"


async def test_openai_agents_runs_the_served_tools(tmp_path: Path) -> None:
    agents = pytest.importorskip("agents")
    from agents.mcp import MCPServerStdio

    seen: dict[str, Any] = {}
    model = scripted_model(seen, lambda tools: ("infer", INFER))

    params = {"command": sys.executable, "args": serve_args(tmp_path), "env": dict(os.environ)}
    async with MCPServerStdio(params=params, client_session_timeout_seconds=60) as server:
        listed = [tool.name for tool in await server.list_tools()]
        # The listing is strict, so the SDK, which checks `required` itself, wants every key.
        direct = await server.call_tool("describe", {"name": "infer", "operation": None})
        agent = agents.Agent(name="schemas", model=model, mcp_servers=[server])
        offline = agents.RunConfig(tracing_disabled=True)
        result = await agents.Runner.run(agent, "Infer a schema.", run_config=offline)
    assert listed == ["infer", "describe", "database", "workspace"]
    assert wire(direct).get("isError", False) is False
    assert result.final_output == "done"
    assert set(seen["tools"]) == set(listed)
    output = seen["output"]
    if isinstance(output, str):
        output = json.loads(output)
    block = output[0] if isinstance(output, list) else output
    schema = json.loads(block["text"])
    assert set(schema["properties"]) == {"id", "tag"}


async def test_langchain_mcp_adapters_load_and_call_the_served_tools(tmp_path: Path) -> None:
    try:
        from langchain_mcp_adapters.client import MultiServerMCPClient
    except ImportError as error:
        pytest.skip(f"langchain-mcp-adapters does not import with this SDK line: {error}")
    client = MultiServerMCPClient(
        {
            "orkestrel": {
                "command": sys.executable,
                "args": serve_args(tmp_path),
                "env": dict(os.environ),
                "transport": "stdio",
            }
        }
    )
    tools = {tool.name: tool for tool in await client.get_tools()}
    answer = await tools["infer"].ainvoke(INFER)
    assert list(tools) == ["infer", "describe", "database", "workspace"]
    blocks = answer if isinstance(answer, list) else [answer]
    texts = [block["text"] if isinstance(block, dict) else str(block) for block in blocks]
    schema = json.loads(texts[0])
    assert set(schema["properties"]) == {"id", "tag"}


async def test_a_text_result_reaches_the_mcp_client_as_plain_text(tmp_path: Path) -> None:
    from support.mcp_client import connect, stdio, text

    args = serve_args(tmp_path)
    content = 'line "one"\nline two\n'
    (tmp_path / "root" / "notes.md").write_text(content)
    async with connect(stdio(sys.executable, args)) as session:
        read = await session.call_tool("workspace", {"operation": "read", "path": "notes.md"})
        written = await session.call_tool(
            "workspace", {"operation": "write", "path": "b.txt", "content": "b"}
        )
    assert read["isError"] is False
    assert text(read) == content
    assert "structuredContent" not in read
    assert json.loads(text(written)) == written["structuredContent"]
    assert written["structuredContent"] == {"path": "b.txt", "state": "created"}


async def test_a_4_mb_read_is_bounded_and_reading_on_with_the_offset_gets_the_rest(
    tmp_path: Path,
) -> None:
    from orkestrel.toolbox import WORKSPACE_READ_CHARS, WORKSPACE_READ_LINES
    from support.mcp_client import connect, stdio, text

    args = serve_args(tmp_path)
    content = "".join(f"{index:06d} {'x' * 92}\n" for index in range(40_000))
    (tmp_path / "root" / "big.txt").write_text(content)
    pieces: list[str] = []
    offset = 1
    async with connect(stdio(sys.executable, args)) as session:
        first = await session.call_tool("workspace", {"operation": "read", "path": "big.txt"})
        while True:
            answer = await session.call_tool(
                "workspace", {"operation": "read", "path": "big.txt", "offset": offset}
            )
            body, _, note = text(answer).rpartition("[truncated: ")
            if not note.endswith("]"):
                pieces.append(text(answer))
                break
            assert note.startswith(f"showed lines {offset}-")
            pieces.append(body)
            offset = int(note.removesuffix("]").rpartition("read on with offset ")[2])
    assert len(content) == 4_000_000
    assert len(text(first)) <= WORKSPACE_READ_CHARS + 100
    assert text(first).count("\n") == WORKSPACE_READ_LINES
    assert text(first).endswith(
        f"[truncated: showed lines 1-{WORKSPACE_READ_LINES} of 40000; "
        f"read on with offset {WORKSPACE_READ_LINES + 1}]"
    )
    assert "".join(pieces) == content


async def test_an_add_of_20000_rows_answers_the_count_and_a_bounded_list_of_keys(
    tmp_path: Path,
) -> None:
    from orkestrel.toolbox import DATABASE_TOOL_KEYS
    from support.mcp_client import connect, stdio, text

    tables = {"notes": {"columns": {"body": "string"}}}
    rows = [{"body": f"note {index}"} for index in range(20_000)]
    async with connect(stdio(sys.executable, serve_args(tmp_path))) as session:
        await session.call_tool("database", {"operation": "create", "id": "log", "tables": tables})
        add = {"operation": "add", "id": "log", "table": "notes", "row": rows}
        added = await session.call_tool("database", add)
        few = await session.call_tool("database", {**add, "row": rows[:2]})
        count = {"operation": "count", "id": "log", "table": "notes"}
        counted = await session.call_tool("database", count)
    answer = added["structuredContent"]
    assert len(text(added)) < 10_000
    assert (answer["count"], answer["truncated"]) == (20_000, True)
    assert len(answer["keys"]) == DATABASE_TOOL_KEYS == len(set(answer["keys"]))
    assert list(few["structuredContent"]) == ["keys"]
    assert len(few["structuredContent"]["keys"]) == 2
    assert json.loads(text(counted)) == {"count": 20_002}


async def test_a_search_with_many_hits_is_capped_and_says_so(tmp_path: Path) -> None:
    from orkestrel.toolbox import WORKSPACE_SEARCH_MATCHES
    from support.mcp_client import connect, stdio, text

    args = serve_args(tmp_path)
    (tmp_path / "root" / "hits.txt").write_text("".join(f"hit {index}\n" for index in range(5000)))
    (tmp_path / "root" / "few.txt").write_text("rare\nrare\n")
    search = {"operation": "search", "query": "hit"}
    async with connect(stdio(sys.executable, args)) as session:
        many = await session.call_tool("workspace", search)
        limited = await session.call_tool("workspace", {**search, "limit": 3})
        few = await session.call_tool("workspace", {**search, "query": "rare"})
    answer = json.loads(text(many))
    assert (answer["truncated"], len(answer["matches"])) == (True, WORKSPACE_SEARCH_MATCHES)
    assert answer["matches"][-1]["content"] == f"hit {WORKSPACE_SEARCH_MATCHES - 1}"
    assert "narrow the query" in answer["note"]
    assert [match["line"] for match in json.loads(text(limited))] == [1, 2, 3]
    assert [match["path"] for match in json.loads(text(few))] == ["few.txt", "few.txt"]
