"""What the agent-adapter tests share: a runner that records what it ran and what its functions
raised, scripted turns that call the workflow tool, and a task controller to call a function
with directly."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio

from orkestrel.abort import AbortSignal
from orkestrel.agent import Agent, AgentInterface, ProviderResult, ScriptedProvider
from orkestrel.workflow import (
    PhaseContext,
    TaskContext,
    TaskController,
    TaskControllerInterface,
    WorkflowContext,
    WorkflowResult,
    create_workflow_runner,
)

SHIP: dict[str, Any] = {
    "id": "ship",
    "name": "Ship",
    "phases": [
        {
            "id": "review",
            "name": "Review",
            "tasks": [{"id": "r", "name": "Review", "behavior": "review"}],
        },
        {
            "id": "publish",
            "name": "Publish",
            "tasks": [{"id": "p", "name": "Publish", "behavior": "publish"}],
        },
    ],
}
"""The seed's two-phase workflow: an agent reviews, a tool publishes."""


def root(behavior: str, id: str = "w0") -> dict[str, Any]:
    """A one-task workflow whose task runs `behavior`."""
    task = {"id": "t", "name": "T", "behavior": behavior}
    return {"id": id, "name": id, "phases": [{"id": "p", "name": "P", "tasks": [task]}]}


class SpyRunner:
    """A real runner that records the id of every workflow it runs and every exception its
    functions raise (so a test can read the code of a refusal the runner turned into a failed
    task), and sets `refused` on the first one."""

    def __init__(self) -> None:
        self.runner = create_workflow_runner()
        self.ran: list[str] = []
        self.raised: list[BaseException] = []
        self.refused = anyio.Event()

    async def execute(self, definition: Mapping[str, Any], **options: Any) -> WorkflowResult:
        self.ran.append(definition["id"])
        functions = options.get("functions")
        if functions is not None:
            options["functions"] = {name: self._watch(f) for name, f in functions.items()}
        return await self.runner.execute(definition, **options)

    def _watch(self, function: Any) -> Any:
        async def watched(controller: TaskControllerInterface) -> Any:
            try:
                return await function(controller)
            except Exception as error:
                self.raised.append(error)
                self.refused.set()
                raise

        return watched


def call_workflow(arguments: Mapping[str, Any], id: str = "call-1") -> ProviderResult:
    """A scripted model turn that calls the `workflow` tool once with `arguments`."""
    return {"content": "", "tools": [{"id": id, "name": "workflow", "arguments": dict(arguments)}]}


def scripted_agent(id: str, *turns: Any, task: str = "Do your part.") -> Agent:
    """A live agent over a scripted provider, its conversation seeded with one user message."""
    agent = Agent(ScriptedProvider(turns), id=id)
    agent.context.messages.add({"role": "user", "content": task})
    return agent


def provider_of(agent: Agent) -> ScriptedProvider:
    """The scripted provider an agent built by `scripted_agent` runs on."""
    provider = agent.provider
    assert isinstance(provider, ScriptedProvider)
    return provider


def controller(
    workflow: str, signal: AbortSignal, input: dict[str, Any] | None = None
) -> TaskController:
    """A real task controller for one attempt of task `t` in phase `p` of `workflow`."""
    context = WorkflowContext(workflow, workflow, None)
    task = TaskContext("t", "T", None, PhaseContext("p", "P", None, context))
    return TaskController(signal, 1, task, input or {}, lambda: ())


def tool_answers(agent: AgentInterface) -> list[str]:
    """The contents of the tool messages in the agent's active conversation, in order."""
    return [m["content"] for m in agent.context.messages.messages() if m["role"] == "tool"]
