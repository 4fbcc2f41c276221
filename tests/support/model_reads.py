"""What a model reads of `orkestrel serve`'s answers through each client users run it with.

Each reader speaks to one real `orkestrel serve` process, over stdio (the client starts it) or
streamable HTTP (`serving` starts it on a free loopback port), makes the calls in `CALLS` in
order, in the strict form a strict-mode model sends (every advertised property present, `null` where
unused), and gives back per scenario a `Reading`: the text the model reads, the error status
as the client shows it, and the structured content as the client surfaces it. Where the client
is an agent framework, the model is a loopback server speaking OpenAI's Chat Completions wire
format and the reading is taken from the request the framework sends it: the bytes a model
would read."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.servers import spawn_process

TABLES = {"notes": {"columns": {"body": "string"}}}
NOTE = 'line "one"\n\tline two\\n\nline three\n'
"""The workspace file the text scenario reads: quotes, a tab and a literal backslash-n."""

CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("object", "database", {"operation": "create", "id": "log", "tables": TABLES}),
    ("failed", "database", {"operation": "records", "id": "log", "table": "nope"}),
    (
        "typo",
        "database",
        {"operation": "records", "id": "log", "table": "notes", "query": {"limt": 1}},
    ),
    ("refused", "workspace", {"operation": "write", "path": "../notes.md", "content": "x"}),
    ("outside", "workspace", {"operation": "read", "path": "../notes.md"}),
    ("text", "workspace", {"operation": "read", "path": "notes.md"}),
]
"""(scenario, tool, arguments), made in this order in one session."""

OBJECT = {"id": "log", "tables": ["notes"]}
FAILED_LINE = "database 'log' has no table \"nope\""
REFUSED_LINE = "Path must be relative and normalized (no empty, '.' or '..' parts): '../notes.md'"
TYPO_LINE = (
    'malformed database call: records: unknown argument "limt" in query (did you mean limit?)'
)


@dataclass(frozen=True)
class Reading:
    """One call's answer as the model gets it: `text` it reads, `error` as the client flags it
    (None where the client shows no flag), `structured` content as the client surfaces it
    (None where it surfaces none)."""

    text: str
    error: bool | None
    structured: Any


@dataclass(frozen=True)
class Served:
    """`orkestrel serve` as a client reaches it: the `args` that start it over stdio (run by
    `sys.executable`), or, over streamable HTTP, the `url` of the process already listening."""

    args: list[str]
    url: str | None = None


Reader = Callable[[Served], Awaitable[dict[str, Reading]]]

TRANSPORTS = ["stdio", "http"]
"""The transports every reader speaks."""


def serve_args(folder: Path) -> list[str]:
    """`orkestrel serve` over `folder/root` (holding notes.md) and `folder/data`."""
    root = folder / "root"
    root.mkdir(parents=True, exist_ok=True)
    (root / "notes.md").write_text(NOTE)
    return ["-m", "orkestrel", "serve", "--root", str(root), "--data", str(folder / "data")]


@contextmanager
def serving(folder: Path, transport: str) -> Iterator[Served]:
    """`orkestrel serve` over `folder` for a client on `transport`: over HTTP a process on a
    free loopback port, stopped when the block ends."""
    args = serve_args(folder)
    if transport == "stdio":
        yield Served(args)
        return
    command = [sys.executable, *args, "--transport", "http", "--port", "0"]
    with spawn_process(command, folder / "serve.log") as url:
        yield Served(args, url)


def stdio_env() -> dict[str, str]:
    """This process's environment, for a client that starts the server (most clients' default
    keeps only a few variables, which would drop `PYTHONPATH`)."""
    return dict(os.environ)


def strict(parameters: Mapping[str, Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """`arguments` as a strict-mode model sends them: every advertised property, null if unused."""
    return {name: arguments.get(name) for name in parameters["properties"]}


def texts(blocks: Any) -> str:
    """The text of a content list that holds one text block (MCP wire dicts, SDK models, or
    OpenAI message parts), or the string itself; any other list fails the test."""
    if isinstance(blocks, str):
        return blocks
    assert len(blocks) == 1, f"expected one text block, got {blocks!r}"
    (block,) = blocks
    return block["text"] if isinstance(block, dict) else block.text


async def read_mcp(served: Served) -> dict[str, Reading]:
    """The official MCP SDK's client (whichever line is installed): the call result as is."""
    from support.mcp_client import connect, stdio

    readings: dict[str, Reading] = {}
    async with connect(served.url or stdio(sys.executable, served.args)) as session:
        schemas = {tool["name"]: tool["inputSchema"] for tool in await session.list_tools()}
        for scenario, tool, arguments in CALLS:
            answer = await session.call_tool(tool, strict(schemas[tool], arguments))
            readings[scenario] = Reading(
                texts(answer["content"]), answer["isError"], answer.get("structuredContent")
            )
    return readings


async def read_fastmcp(served: Served) -> dict[str, Reading]:
    """fastmcp's `Client`: `call_tool(raise_on_error=False)`'s result."""
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport, StreamableHttpTransport

    transport = (
        StreamableHttpTransport(served.url)
        if served.url
        else StdioTransport(sys.executable, served.args, env=stdio_env())
    )
    readings: dict[str, Reading] = {}
    async with Client(transport) as client:
        schemas = {tool.name: tool.input_schema for tool in await client.list_tools()}
        for scenario, tool, arguments in CALLS:
            answer = await client.call_tool(
                tool, strict(schemas[tool], arguments), raise_on_error=False
            )
            readings[scenario] = Reading(
                texts(answer.content), answer.is_error, answer.structured_content
            )
    return readings


async def read_langchain(served: Served) -> dict[str, Reading]:
    """langchain-mcp-adapters: the `ToolMessage` each tool gives for a model's tool call, which
    is what goes into the model's messages (`status`, and the structured content as its
    `artifact`)."""
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langchain_mcp_adapters.tools import load_mcp_tools

    command = {"command": sys.executable, "args": served.args, "env": stdio_env()}
    server: dict[str, Any] = (
        {"transport": "streamable_http", "url": served.url}
        if served.url
        else {"transport": "stdio", **command}
    )
    client = MultiServerMCPClient({"orkestrel": server})
    readings: dict[str, Reading] = {}
    async with client.session("orkestrel") as session:
        tools = {tool.name: tool for tool in await load_mcp_tools(session)}
        for index, (scenario, name, arguments) in enumerate(CALLS):
            tool = tools[name]
            call = {
                "type": "tool_call",
                "id": f"call-{index}",
                "name": name,
                "args": strict(tool.args_schema, arguments),  # type: ignore[arg-type]
            }
            message = await tool.ainvoke(call)
            artifact = message.artifact or {}
            readings[scenario] = Reading(
                texts(message.content),
                message.status == "error",
                artifact.get("structured_content"),
            )
    return readings


def scripted(backend: Any) -> None:
    """Makes the loopback model call `CALLS` one a turn, each in the strict form of the tool it
    is offered, then answer "done"."""
    from agent.servers import json_reply, openai_call, openai_completion

    def respond(body: Any) -> Any:
        answered = [message for message in body["messages"] if message["role"] == "tool"]
        if len(answered) == len(CALLS):
            return json_reply(openai_completion("done"))
        _, name, arguments = CALLS[len(answered)]
        offered = {tool["function"]["name"]: tool["function"] for tool in body["tools"]}
        call = openai_call(
            f"call-{len(answered)}", name, strict(offered[name]["parameters"], arguments)
        )
        return json_reply(openai_completion(None, [call]))

    backend.respond = respond


def tool_messages(backend: Any) -> list[Any]:
    """The content of each tool message of the model's last request, in call order."""
    last = backend.requests[-1].body["messages"]
    return [message["content"] for message in last if message["role"] == "tool"]


async def read_pydantic_ai(served: Served) -> dict[str, Reading]:
    """pydantic-ai's `MCPToolset` under an `OpenAIChatModel`: what it sends the model, and each
    `ToolReturnPart` (its `outcome` is the error flag; `content` the structured content when
    it is an object). `max_retries` lets the two failed calls in a row keep the run going."""
    from openai import AsyncOpenAI
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset, StdioTransport, StreamableHttpTransport
    from pydantic_ai.messages import ToolReturnPart
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from agent.servers import Backend

    backend = Backend()
    try:
        scripted(backend)
        transport = (
            StreamableHttpTransport(served.url)
            if served.url
            else StdioTransport(sys.executable, served.args, env=stdio_env())
        )
        toolset = MCPToolset(transport, init_timeout=60, read_timeout=120, max_retries=len(CALLS))
        async with AsyncOpenAI(base_url=f"{backend.url}/v1", api_key="test") as openai:
            provider = OpenAIProvider(openai_client=openai)
            agent = Agent(OpenAIChatModel("gpt-test", provider=provider), toolsets=[toolset])
            async with agent:
                result = await agent.run("Make the calls.")
    finally:
        backend.stop()
    returns = [
        part
        for message in result.all_messages()
        for part in getattr(message, "parts", [])
        if isinstance(part, ToolReturnPart)
    ]
    return {
        scenario: Reading(
            texts(content),
            part.outcome != "success",
            part.content if isinstance(part.content, dict) else None,
        )
        for (scenario, _, _), content, part in zip(
            CALLS, tool_messages(backend), returns, strict=True
        )
    }


def next_call(tools: dict[str, Any], outputs: list[Any]) -> tuple[str, dict[str, Any]] | None:
    """For a scripted Agents SDK model: the next of `CALLS` in the strict form of the tool it is
    offered, or None once each is answered."""
    if len(outputs) == len(CALLS):
        return None
    _, name, arguments = CALLS[len(outputs)]
    return name, strict(tools[name].params_json_schema, arguments)


def read_openai_agents(structured: bool, responses: bool = False) -> Reader:
    """The OpenAI Agents SDK's `MCPServerStdio` or `MCPServerStreamableHttp` with
    `use_structured_content` as given: what its Runner sends the model, over the Chat
    Completions wire to the loopback model, or (with `responses`) as the Responses API input
    items its default model would send."""

    async def read(served: Served) -> dict[str, Reading]:
        import agents
        from agents.mcp import MCPServerStdio, MCPServerStreamableHttp
        from openai import AsyncOpenAI

        from agent.servers import Backend
        from support.openai_agents import scripted_calls

        backend = Backend()
        seen: dict[str, Any] = {}
        try:
            scripted(backend)
            options: dict[str, Any] = {
                "client_session_timeout_seconds": 60,
                "use_structured_content": structured,
            }
            server = (
                MCPServerStreamableHttp(params={"url": served.url}, **options)
                if served.url
                else MCPServerStdio(
                    params={"command": sys.executable, "args": served.args, "env": stdio_env()},
                    **options,
                )
            )
            async with (
                AsyncOpenAI(base_url=f"{backend.url}/v1", api_key="test") as client,
                server,
            ):
                model = (
                    scripted_calls(seen, next_call)
                    if responses
                    else agents.OpenAIChatCompletionsModel("gpt-test", client)
                )
                agent = agents.Agent(name="caller", model=model, mcp_servers=[server])
                offline = agents.RunConfig(tracing_disabled=True)
                result = await agents.Runner.run(agent, "Make the calls.", run_config=offline)
        finally:
            backend.stop()
        assert result.final_output == "done"
        read = seen["outputs"] if responses else tool_messages(backend)
        return {
            scenario: Reading(texts(content), None, None)
            for (scenario, _, _), content in zip(CALLS, read, strict=True)
        }

    return read


def compact(value: Any) -> str:
    """JSON as the server writes an object result's text."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
