"""What the model reads of `orkestrel serve`'s answers, through each client users run it with:
the official MCP SDK's client (both lines: the 1.x suite runs in its own venv), fastmcp's
`Client`, pydantic-ai, the OpenAI Agents SDK (with and without `use_structured_content`) and
langchain-mcp-adapters, each over stdio and over streamable HTTP. One served session per client
and transport makes six calls: an object result, a failed call (an unknown table, a write and a
read of a path outside the root), a misspelled argument and a multi-line text result
(`support/model_reads.py`).

A client runs on the SDK lines it installs on (pydantic-ai and fastmcp need 2.x,
langchain-mcp-adapters 1.x) and is skipped on the other; on its own line a missing package
skips, or fails under `ORKESTREL_REQUIRE_INSTALLED=1` (CI)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from support.checkers import provider_module
from support.mcp_client import MAJOR
from support.model_reads import (
    FAILED_LINE,
    NOTE,
    OBJECT,
    REFUSED_LINE,
    TRANSPORTS,
    TYPO_LINE,
    Reader,
    Reading,
    compact,
    read_fastmcp,
    read_langchain,
    read_mcp,
    read_openai_agents,
    read_pydantic_ai,
    serve_args,
    serving,
    strict,
)

# The Agents SDK opens streamable HTTP on the 1.x line through that line's deprecated
# `streamablehttp_client`: its warning, not the server's.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Use `streamable_http_client` instead:DeprecationWarning"
)


@dataclass(frozen=True)
class Client:
    """A client, where it installs, and how it shows an answer to the model."""

    read: Reader
    lines: frozenset[int]
    module: str
    object_text: Callable[[Any], str]
    error_text: Callable[[str], str]
    flags_errors: bool
    surfaces_structured: bool


def same(line: str) -> str:
    return line


def pydantic_error(line: str) -> str:
    """pydantic-ai hands a failed call's text to the model as a JSON object `{"error": line}`."""
    return compact({"error": line})


BOTH = frozenset({1, 2})
CLIENTS = {
    "mcp": Client(read_mcp, BOTH, "mcp", compact, same, True, True),
    "fastmcp": Client(read_fastmcp, frozenset({2}), "fastmcp", compact, same, True, True),
    # pydantic-ai makes an object of JSON text even without structuredContent: its row pins
    # what the model gets, not which part of the answer carried it.
    "pydantic-ai": Client(
        read_pydantic_ai, frozenset({2}), "pydantic_ai.mcp", compact, pydantic_error, True, True
    ),
    # The Agents SDK shows the model the content's text and never the error flag; with
    # `use_structured_content` an object result reads as `json.dumps(structuredContent)`.
    "openai-agents": Client(
        read_openai_agents(False), BOTH, "agents.mcp", compact, same, False, False
    ),
    "openai-agents-responses": Client(
        read_openai_agents(False, responses=True), BOTH, "agents.mcp", compact, same, False, False
    ),
    "openai-agents-structured": Client(
        read_openai_agents(True), BOTH, "agents.mcp", json.dumps, same, False, False
    ),
    "langchain-mcp-adapters": Client(
        read_langchain, frozenset({1}), "langchain_mcp_adapters.tools", compact, same, True, True
    ),
}


@pytest.fixture(
    scope="module",
    params=[(name, transport) for name in CLIENTS for transport in TRANSPORTS],
    ids="-".join,
)
def seen(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Client, dict[str, Reading]]:
    """One client's readings of the calls over one transport, made once per module over one
    served session."""
    name, transport = request.param
    client = CLIENTS[name]
    if MAJOR not in client.lines:
        line = " and ".join(f"{major}.x" for major in sorted(client.lines))
        pytest.skip(f"{name} installs with the MCP SDK's {line} line")
    provider_module(client.module)
    with serving(tmp_path_factory.mktemp(name), transport) as served:
        return client, anyio.run(client.read, served)


def flag(client: Client, error: bool) -> bool | None:
    return error if client.flags_errors else None


def test_an_object_result_reaches_the_model_as_json_text_and_structured_content(
    seen: tuple[Client, dict[str, Reading]],
) -> None:
    client, readings = seen
    reading = readings["object"]
    assert reading.text == client.object_text(OBJECT)
    assert json.loads(reading.text) == OBJECT
    assert reading.error is flag(client, False)
    assert reading.structured == (OBJECT if client.surfaces_structured else None)


@pytest.mark.parametrize(
    ("scenario", "line"),
    [
        ("failed", FAILED_LINE),
        ("refused", REFUSED_LINE),
        ("outside", REFUSED_LINE),
        ("typo", TYPO_LINE),
    ],
    ids=[
        "unknown-table",
        "write-outside-the-root",
        "read-outside-the-root",
        "misspelled-argument-did-you-mean",
    ],
)
def test_a_refused_call_reaches_the_model_as_its_one_line_error(
    seen: tuple[Client, dict[str, Reading]], scenario: str, line: str
) -> None:
    client, readings = seen
    reading = readings[scenario]
    assert reading.text == client.error_text(line)
    assert "\n" not in reading.text
    assert reading.error is flag(client, True)
    assert reading.structured is None


def test_a_text_result_reaches_the_model_as_plain_text_with_real_newlines(
    seen: tuple[Client, dict[str, Reading]],
) -> None:
    client, readings = seen
    reading = readings["text"]
    assert reading.text == NOTE
    assert reading.text.splitlines() == ['line "one"', "\tline two\\n", "line three"]
    assert reading.error is flag(client, False)
    assert reading.structured is None


@pytest.mark.anyio
async def test_pydantic_ai_ends_the_run_on_the_second_failed_call_to_a_tool_unless_told_failed(
    tmp_path: Path,
) -> None:
    """pydantic-ai takes a failed call as a retry of that tool: with its default `max_retries`
    of 1, a second failed call to the same tool ends the run. `tool_error_behavior="failed"`
    shows the model each error and lets the run go on (docs/guides/serve.md)."""
    if MAJOR < 2:
        pytest.skip("pydantic-ai's MCP toolset installs with the MCP SDK's 2.x line")
    provider_module("pydantic_ai.mcp")
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import UnexpectedModelBehavior
    from pydantic_ai.mcp import MCPToolset, StdioTransport
    from pydantic_ai.messages import (
        ModelMessage,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    calls: list[str] = []
    read: list[tuple[str, Any]] = []

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        read.extend(
            (part.outcome, part.content)
            for part in messages[-1].parts
            if isinstance(part, ToolReturnPart)
        )
        if len(calls) == 3:
            return ModelResponse(parts=[TextPart("gave up")])
        offered = {tool.name: tool.parameters_json_schema for tool in info.function_tools}
        missing = {"operation": "records", "id": "ghost", "table": "notes"}
        calls.append(f"c{len(calls)}")
        arguments = strict(offered["database"], missing)
        return ModelResponse(parts=[ToolCallPart("database", arguments, tool_call_id=calls[-1])])

    def served(folder: str, **options: Any) -> Agent[None, str]:
        args = serve_args(tmp_path / folder)
        transport = StdioTransport(sys.executable, args, env=dict(os.environ))
        toolset = MCPToolset(transport, init_timeout=60, **options)
        return Agent(FunctionModel(script), toolsets=[toolset])

    async with served("retry") as agent:
        with pytest.raises(UnexpectedModelBehavior, match="'database' exceeded max retries"):
            await agent.run("Read the notes.")
    retried = (list(calls), list(read))
    calls.clear()
    read.clear()
    async with served("failed", tool_error_behavior="failed") as agent:
        result = await agent.run("Read the notes.")
    line = "unknown database 'ghost'"
    assert retried == (["c0", "c1"], [("retried", line)])
    assert (calls, result.output) == (["c0", "c1", "c2"], "gave up")
    assert read == [("failed", line)] * 3
