"""The options of the prompt and answer tools."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from orkestrel.terminal import TerminalManagerInterface


class PromptToolOptions(TypedDict):
    """Represents the options for `create_prompt_tool`: the live terminal manager to ask through,
    the asking terminal `from_` (fixed, so a call cannot spoof it), and the advertised name and
    description overrides."""

    manager: TerminalManagerInterface
    from_: str
    name: NotRequired[str]
    description: NotRequired[str]


class AnswerToolOptions(TypedDict):
    """Represents the options for `create_answer_tool`: the live terminal manager to list and
    answer through, the answering terminal `to`, and the advertised name and description
    overrides."""

    manager: TerminalManagerInterface
    to: str
    name: NotRequired[str]
    description: NotRequired[str]
