"""The arguments and options of the agent tool."""

from collections.abc import Sequence
from typing import TYPE_CHECKING, NotRequired, TypedDict

if TYPE_CHECKING:
    from orkestrel.agent import AgentBudgetInterface, ConversationStoreInterface


class AgentToolArguments(TypedDict):
    """Represents the flat arguments `create_agent_tool` accepts: a delegated `task` plus the few
    `AgentJobInput` fields a caller may override per call."""

    task: str
    provider: NotRequired[str]
    tools: NotRequired[list[str]]
    system: NotRequired[str]


class AgentToolOptions(TypedDict, total=False):
    """Represents the keyword options of `create_agent_tool`: the advertised name and
    description, the delegation defaults, the depth and ancestry of the chain the tool sits in,
    a store that receives each delegation's conversation, and the budget (or the caps of a fresh
    one per call) that bounds the agents and model requests a call may spend."""

    name: str
    description: str
    provider: str
    tools: Sequence[str]
    system: str
    depth: int
    ancestry: Sequence[str]
    store: "ConversationStoreInterface"
    budget: "AgentBudgetInterface"
    max_agents: int
    max_requests: int
