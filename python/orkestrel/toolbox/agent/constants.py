"""The agent tool's name, depth bound and teaching texts."""

from __future__ import annotations

from typing import Final

AGENT_TOOL_NAME: Final = "agent"
"""Holds the name `create_agent_tool` advertises by default, `'agent'`: the key a model calls and
a `ToolManager` registers under."""

AGENT_TOOL_DEPTH: Final = 8
"""Holds the deepest a delegation chain (agent tool → sub-agent → agent tool → …) may nest, `8`:
the bound `create_agent_tool`'s depth guard enforces."""

AGENT_TOOL_SUMMARY: Final = "Hand a task to a sub-agent. See describe('agent')."
"""Holds the lean summary `create_agent_tool` advertises in place of `AGENT_TOOL_DESCRIPTION`: one
sentence offering delegation and pointing at `describe` for the optional overrides."""

AGENT_TOOL_DESCRIPTION: Final = """\
Delegate one task to a sub-agent: a fresh model conversation that works on it alone and answers
with its final reply.

Fields:
- task (required): the whole task in plain words. The sub-agent sees nothing of this
  conversation, so include every fact, file name and constraint it needs.
- provider (optional): which configured model runs the sub-agent; leave it out for the default.
- tools (optional): the names of the tools the sub-agent may call, replacing its default set;
  [] gives it none.
- system (optional): instructions for the sub-agent, replacing its default instructions.

Answer: the sub-agent's final reply as text. A sub-agent stopped early answers with what it had
written so far.

Example:
{"task": "Summarize these notes in three bullet points: the launch moved to May; QA needs two \
more testers; the budget is unchanged."}
"""
"""Holds the description `create_agent_tool` advertises: the required task, the optional
provider, tools and system overrides, one example, and what the answer is."""
