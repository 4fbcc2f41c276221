"""`create_agent_tool`: one LLM-callable tool that delegates a task to a fresh sub-agent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from orkestrel.contract import Contract, ParseError, create_contract, preview
from orkestrel.tool import ProgressPacer, Tool, ToolContext
from orkestrel.toolbox.agent.constants import (
    AGENT_TOOL_DEPTH,
    AGENT_TOOL_DESCRIPTION,
    AGENT_TOOL_NAME,
    AGENT_TOOL_SUMMARY,
)
from orkestrel.toolbox.agent.shapes import agent_tool_shape
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.helpers import contract_parameters, named_text, parse_arguments
from orkestrel.toolbox.hints import DELEGATES
from orkestrel.toolbox.workflow.lineage import tag_agent

if TYPE_CHECKING:
    # Only types: the toolbox does not load the agent layer until an agent tool is built.
    from orkestrel.agent import (
        AgentBudgetInterface,
        AgentJobInput,
        AgentRegistryInterface,
        ConversationStoreInterface,
    )

_MALFORMED = "malformed agent-delegation call"
_PARSE_PREFIX = "parse: the value does not satisfy the contract: "


def _parse(contract: Contract, args: Any) -> dict[str, Any]:
    """Parses a call, naming what is wrong with it after the pinned message."""
    try:
        return parse_arguments(contract, args, _MALFORMED)
    except ToolboxError as error:
        faults = (error.context or {}).get("faults")
        if not faults:
            raise
        detail = str(ParseError(faults)).removeprefix(_PARSE_PREFIX)
        raise ToolboxError("TOOL", f"{_MALFORMED}: {detail}", error.context) from None


def _refuse(option: str, value: Any, rule: str) -> ToolboxError:
    return ToolboxError("TOOL", f"agent tool {option} must be {rule}", {option: preview(value)})


def _names(option: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise _refuse(option, value, "a list of strings")
    names = tuple(value)
    if not all(isinstance(name, str) for name in names):
        raise _refuse(option, value, "a list of strings")
    return names


def _text(option: str, value: Any, *, empty: bool) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or (not empty and not value):
        raise _refuse(option, value, "a string" if empty else "a non-empty string")
    return value


def create_agent_tool(
    registry: AgentRegistryInterface,
    *,
    name: str | None = None,
    description: str | None = None,
    provider: str | None = None,
    tools: Sequence[str] | None = None,
    system: str | None = None,
    depth: int = 0,
    ancestry: Sequence[str] = (),
    store: ConversationStoreInterface | None = None,
    budget: AgentBudgetInterface | None = None,
    max_agents: int | None = None,
    max_requests: int | None = None,
) -> Tool:
    """Builds an LLM-callable sub-agent delegation tool: each call builds a fresh, seeded agent
    from `registry` and runs it to completion for one delegated `task`.

    `provider`, `tools` and `system` are the defaults a call may override (a call's `tools` and
    `system` replace them). `depth` (how deep this tool already sits in a delegation chain) and
    `ancestry` (the `agent:<provider>` tags above it) guard against runaway and cyclic
    delegation. With `store`, each delegation's conversation snapshot is written there before the
    call answers. A malformed call or a missing provider raises `ToolboxError` (`TOOL`), a
    refused depth or cycle `DEPTH`; the registry's and the provider's own errors pass through.

    Every delegation is admitted by a budget, which also admits each model request of the
    sub-agent: `budget` when given (share one among every agent tool of a delegation tree to
    bound the tree as a whole), else a fresh `AgentBudget(max_agents, max_requests)` per call
    (defaults `AGENT_MAX_AGENTS`, 64, and `AGENT_MAX_REQUESTS`, 256). A spent budget raises
    `AgentError` (`LIMIT`) naming its cap.
    """
    # Deferred for start-up time: the agent layer loads when an agent tool is built.
    from orkestrel.agent import AgentBudget

    if not callable(getattr(registry, "build", None)):
        raise ToolboxError("TOOL", "agent tool registry must have a build method")
    title = _text("name", name, empty=False) or AGENT_TOOL_NAME
    default = _text("provider", provider, empty=False)
    instructions = _text("system", system, empty=True)
    names = None if tools is None else _names("tools", tools)
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise _refuse("depth", depth, "a non-negative integer")
    chain = _names("ancestry", ancestry)
    if store is not None and not callable(getattr(store, "set", None)):
        raise _refuse("store", store, "a conversation store")
    if budget is not None and not callable(getattr(budget, "admit_agent", None)):
        raise _refuse("budget", budget, "an agent budget")
    caps: dict[str, int] = {}
    if max_agents is not None:
        caps["max_agents"] = max_agents
    if max_requests is not None:
        caps["max_requests"] = max_requests
    try:
        AgentBudget(**caps)
    except ValueError as error:
        raise ToolboxError("TOOL", f"agent tool {error}") from None
    contract = create_contract(agent_tool_shape)

    async def delegate(args: Any, caller: Any = None) -> str:
        call = _parse(contract, args)
        chosen = call.get("provider") or default
        if chosen is None:
            raise ToolboxError(
                "TOOL", "no provider resolved for the delegated agent", {"task": call["task"]}
            )
        if depth + 1 > AGENT_TOOL_DEPTH:
            raise ToolboxError(
                "DEPTH",
                f"delegation exceeds max agent depth {AGENT_TOOL_DEPTH}",
                {"provider": chosen, "depth": depth, "max": AGENT_TOOL_DEPTH},
            )
        if tag_agent(chosen) in chain:
            raise ToolboxError(
                "DEPTH",
                f"agent '{chosen}' is already an ancestor (cycle)",
                {"provider": chosen, "ancestry": list(chain)},
            )
        job: AgentJobInput = {
            "provider": chosen,
            "messages": [{"role": "user", "content": call["task"]}],
        }
        chosen_system = call.get("system", instructions)
        if chosen_system is not None:
            job["system"] = chosen_system
        chosen_tools = call.get("tools", names)
        if chosen_tools is not None:
            job["tools"] = list(chosen_tools)
        spend = budget if budget is not None else AgentBudget(**caps)
        spend.admit_agent()
        agent = registry.build(job, budget=spend)
        paced = ProgressPacer(caller).report if isinstance(caller, ToolContext) else None
        result = await agent.generate(progress=paced)
        if store is not None:
            active = agent.context.conversations.active
            if active is not None:
                await store.set(active.snapshot())
        return result.content

    return Tool(
        name=title,
        description=description
        if description is not None
        else named_text(AGENT_TOOL_DESCRIPTION, AGENT_TOOL_NAME, title),
        summary=named_text(AGENT_TOOL_SUMMARY, AGENT_TOOL_NAME, title),
        parameters=contract_parameters(contract),
        annotations={**DELEGATES, "title": "Delegate to a sub-agent"},
        execute=delegate,
    )
