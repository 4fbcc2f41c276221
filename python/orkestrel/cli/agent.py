"""The served agent tool: `orkestrel serve --agent openai:MODEL | anthropic:MODEL` hands tasks to
a sub-agent that runs on that model with the other served tools."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from orkestrel.cli.arguments import positive_int
from orkestrel.cli.ask import asking
from orkestrel.cli.hints import annotate
from orkestrel.cli.lineage import CallTree, depth_of, lineage_of, tree_of, under
from orkestrel.cli.toolbox import ToolboxContext, ToolboxSetupError, ToolFactory
from orkestrel.tool import ToolInterface, ToolManagerInterface
from orkestrel.toolbox import (
    AGENT_TOOL_NAME,
    PROMPT_TOOL_NAME,
    WORKFLOW_TOOL_NAME,
    WorkflowLineage,
    create_agent_tool,
    extend_lineage,
    tag_agent,
)

if TYPE_CHECKING:
    from orkestrel.abort import AbortSignal
    from orkestrel.agent import (
        AgentBudgetInterface,
        AgentInterface,
        AgentJobInput,
        ProviderInterface,
    )

AGENT_MAX_AGENTS = 64
"""The default of `--agent-max-agents`; mirrors `orkestrel.agent.AGENT_MAX_AGENTS`, which the
parser does not load the agent layer to read."""

AGENT_MAX_REQUESTS = 256
"""The default of `--agent-max-requests`; mirrors `orkestrel.agent.AGENT_MAX_REQUESTS`."""

PROVIDER_KEYS: Mapping[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
"""The environment variable each provider's API key is read from; keys are never taken from the
command line."""


def agent_spec(text: str) -> tuple[str, str]:
    """Parses `PROVIDER:MODEL`, the value of `--agent`."""
    kind, _, model = text.partition(":")
    if kind not in PROVIDER_KEYS or not model:
        raise argparse.ArgumentTypeError(f"expected openai:MODEL or anthropic:MODEL, got {text!r}")
    return kind, model


def add_agent_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds `--agent`, `--base-url` and the delegation caps to a command's parser."""
    parser.add_argument(
        "--agent",
        type=agent_spec,
        default=None,
        metavar="PROVIDER:MODEL",
        help="also serve the agent tool, delegating to this model (openai:MODEL or "
        "anthropic:MODEL) with the other served tools; the key comes from OPENAI_API_KEY or "
        "ANTHROPIC_API_KEY",
    )
    parser.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="the model API's base URL, for an OpenAI-compatible server such as vLLM, "
        "llama.cpp, Ollama or LM Studio (default: the provider's own)",
    )
    parser.add_argument(
        "--agent-max-agents",
        type=positive_int,
        default=AGENT_MAX_AGENTS,
        metavar="N",
        help="the most sub-agents one top-level call may start, across every workflow and "
        f"agent nested in it (default: {AGENT_MAX_AGENTS})",
    )
    parser.add_argument(
        "--agent-max-requests",
        type=positive_int,
        default=AGENT_MAX_REQUESTS,
        metavar="N",
        help="the most model requests one top-level call may make, across every workflow and "
        f"agent nested in it (default: {AGENT_MAX_REQUESTS})",
    )


class ServedAgents:
    """Builds each delegated agent over the served model, with the tools served next to the
    agent tool (read when the call comes, so plugins loaded later count) as its default tools.

    Under a workflow `lineage` (a delegation made by a served workflow's step), the agent's
    `workflow` tool runs its workflows under that lineage extended by the agent's own tag, so
    nested runs stay one chain that refuses cycles and depth past `MAX_WORKFLOW_CHAIN`. The
    agent's `workflow` tool also runs in the `tree` of the top-level call, so the delegations
    its workflows make spend the same budget. `depth` counts the sub-agents above the ones
    built; a built agent's `ask` tool asks as `agent <id> at depth <depth + 1>`, which the
    person answering sees as the form's sender.
    """

    __slots__ = ("_depth", "_key", "_lineage", "_manager", "_own", "_provider", "_tree")

    def __init__(
        self,
        manager: ToolManagerInterface,
        key: str,
        provider: ProviderInterface,
        own: str,
        lineage: WorkflowLineage = (),
        tree: CallTree | None = None,
        depth: int = 0,
    ) -> None:
        self._manager = manager
        self._key = key
        self._provider = provider
        self._own = own
        self._lineage = lineage
        self._tree = CallTree() if tree is None else tree
        self._depth = depth

    def under(self, lineage: WorkflowLineage, tree: CallTree, depth: int) -> ServedAgents:
        """The same agents, built for delegations made under a workflow `lineage`, in `tree`,
        below `depth` sub-agents."""
        return ServedAgents(
            self._manager, self._key, self._provider, self._own, lineage, tree, depth
        )

    def build(
        self,
        job: AgentJobInput,
        *,
        signal: AbortSignal | None = None,
        budget: AgentBudgetInterface | None = None,
    ) -> AgentInterface:
        """Builds one agent for a job; a job without `tools` gets every other served tool."""
        # Deferred for start-up time: the agent layer loads only for `--agent`.
        from orkestrel.agent import AgentRegistry

        tools = {tool.name: tool for tool in self._manager.tools() if tool.name != self._own}
        registry = AgentRegistry(providers={self._key: self._provider}, tools=tools)
        if "tools" not in job:
            job = {**job, "tools": list(tools)}
        agent = registry.build(job, signal=signal, budget=budget)
        workflow = agent.context.tools.tool(WORKFLOW_TOOL_NAME)
        if workflow is not None:
            nested = extend_lineage(self._lineage, tag_agent(agent.id)) if self._lineage else ()
            agent.context.tools.add(under(workflow, nested, self._tree, self._depth + 1))
        ask = agent.context.tools.tool(PROMPT_TOOL_NAME)
        if ask is not None:
            name = f"agent {agent.id} at depth {self._depth + 1}"
            agent.context.tools.add(asking(ask, name))
        return agent


def open_provider(kind: str, model: str, base_url: str | None, env: Mapping[str, str]) -> Any:
    """Builds the served provider, its key read from the environment only."""
    variable = PROVIDER_KEYS[kind]
    key = env.get(variable) or None
    options: dict[str, Any] = {"model": model, "api_key": key}
    if base_url is not None:
        options["base_url"] = base_url
    if kind == "anthropic":
        # Deferred for start-up time: the agent layer loads only for `--agent`.
        from orkestrel.agent import create_anthropic_provider

        if key is None and base_url is None:
            raise ToolboxSetupError(f"--agent anthropic:{model} needs {variable} to be set")
        return create_anthropic_provider(**options)
    # Deferred for start-up time: the agent layer loads only for `--agent`.
    from orkestrel.agent import create_openai_provider

    if key is None and base_url is None:
        raise ToolboxSetupError(
            f"--agent openai:{model} needs {variable} to be set, or --base-url for a server "
            "that takes no key"
        )
    return create_openai_provider(**options)


def agent_factory(
    spec: tuple[str, str],
    base_url: str | None,
    env: Mapping[str, str] | None = None,
    *,
    max_agents: int = AGENT_MAX_AGENTS,
    max_requests: int = AGENT_MAX_REQUESTS,
) -> ToolFactory:
    """Makes the tool factory of the served agent tool: each top-level call (one from the
    client, not from a served workflow or sub-agent) gets one budget of `max_agents` sub-agents
    and `max_requests` model requests, shared by every delegation nested in it."""
    kind, model = spec
    environment = os.environ if env is None else env

    def build(context: ToolboxContext) -> ToolInterface:
        try:
            provider = open_provider(kind, model, base_url, environment)
        except ImportError as error:
            raise ToolboxSetupError(
                f"--agent needs httpx (pip install 'orkestrel[{kind}]'): {error}"
            ) from None
        except ValueError as error:
            raise ToolboxSetupError(f"--agent: {error}") from None
        # Deferred for start-up time: the agent layer loads only for `--agent`.
        from orkestrel.agent import AgentBudget

        context.stack.push_async_callback(provider.aclose)
        agents = ServedAgents(context.manager, kind, provider, AGENT_TOOL_NAME)
        tool = create_agent_tool(agents, provider=kind)

        async def execute(args: Any, caller: Any = None) -> Any:
            tree = tree_of(caller)
            if tree.budget is None:
                tree.budget = AgentBudget(max_agents=max_agents, max_requests=max_requests)
            served = agents.under(lineage_of(caller), tree, depth_of(caller))
            delegated = create_agent_tool(served, provider=kind, budget=tree.budget)
            return await delegated.execute(args, caller)

        return annotate(tool, execute=execute)

    return build
