"""`AgentBudget`: the agents and model requests one top-level call may spend, shared by every
agent of its delegation tree."""

from __future__ import annotations

from typing import Any

from orkestrel.agent.constants import AGENT_MAX_AGENTS, AGENT_MAX_REQUESTS
from orkestrel.agent.errors import AgentError


def _check_cap(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


class AgentBudget:
    """Counts the sub-agents started and the model requests made under one top-level call.

    One budget is shared by reference by every agent and agent tool of a delegation tree, so the
    caps bound the tree as a whole, however wide or deep it grows. Past a cap, `admit_agent` and
    `admit_request` raise `AgentError` (`LIMIT`) with a one-line message naming the cap; nothing
    is counted for a refused admission.
    """

    __slots__ = ("_agents", "_requests", "max_agents", "max_requests")

    def __init__(
        self, *, max_agents: int = AGENT_MAX_AGENTS, max_requests: int = AGENT_MAX_REQUESTS
    ) -> None:
        self.max_agents = _check_cap("max_agents", max_agents)
        self.max_requests = _check_cap("max_requests", max_requests)
        self._agents = 0
        self._requests = 0

    @property
    def agents(self) -> int:
        """How many sub-agents were admitted so far."""
        return self._agents

    @property
    def requests(self) -> int:
        """How many model requests were admitted so far."""
        return self._requests

    def admit_agent(self) -> None:
        """Counts one more sub-agent, or raises `AgentError` (`LIMIT`) past `max_agents`."""
        if self._agents >= self.max_agents:
            raise AgentError(
                "LIMIT",
                f"delegation refused: this call already started {self.max_agents} agents, "
                f"its max_agents limit (orkestrel serve --agent-max-agents)",
                {"limit": "max_agents", "max": self.max_agents},
            )
        self._agents += 1

    def admit_request(self) -> None:
        """Counts one more model request, or raises `AgentError` (`LIMIT`) past
        `max_requests`."""
        if self._requests >= self.max_requests:
            raise AgentError(
                "LIMIT",
                f"model request refused: this call already made {self.max_requests} model "
                f"requests, its max_requests limit (orkestrel serve --agent-max-requests)",
                {"limit": "max_requests", "max": self.max_requests},
            )
        self._requests += 1

    def __repr__(self) -> str:
        return (
            f"AgentBudget(agents={self._agents}/{self.max_agents}, "
            f"requests={self._requests}/{self.max_requests})"
        )
