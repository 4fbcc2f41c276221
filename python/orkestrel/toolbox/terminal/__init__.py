"""The prompt and answer tools: a model asks a person a whole form, or answers forms itself."""

from orkestrel.toolbox.terminal.constants import (
    ANSWER_TOOL_DESCRIPTION,
    ANSWER_TOOL_NAME,
    ANSWER_TOOL_SUMMARY,
    PROMPT_TOOL_DESCRIPTION,
    PROMPT_TOOL_NAME,
    PROMPT_TOOL_SUMMARY,
)
from orkestrel.toolbox.terminal.factories import create_answer_tool, create_prompt_tool
from orkestrel.toolbox.terminal.helpers import infer_terminal_code
from orkestrel.toolbox.terminal.shapes import answer_tool_shape, prompt_tool_shape
from orkestrel.toolbox.terminal.types import AnswerToolOptions, PromptToolOptions

__all__ = [
    "ANSWER_TOOL_DESCRIPTION",
    "ANSWER_TOOL_NAME",
    "ANSWER_TOOL_SUMMARY",
    "PROMPT_TOOL_DESCRIPTION",
    "PROMPT_TOOL_NAME",
    "PROMPT_TOOL_SUMMARY",
    "AnswerToolOptions",
    "PromptToolOptions",
    "answer_tool_shape",
    "create_answer_tool",
    "create_prompt_tool",
    "infer_terminal_code",
    "prompt_tool_shape",
]
