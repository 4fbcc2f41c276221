"""Errors of the tool decorator and of provider export."""

from __future__ import annotations

from typing import TypedDict


class ArgumentFault(TypedDict):
    """Describes one thing wrong with a tool call's arguments."""

    path: str
    """Where the fault is, as `limit`, `address.street` or `items[2]`; `arguments` is the root."""
    expected: str
    """What the tool accepts there, in a few words (`an integer`, `one of 'a' or 'b'`)."""
    received: str
    """A short preview of what was sent (`"ten"`, `null`, `object`), or `nothing`."""


class ArgumentsError(ValueError):
    """Reports arguments that do not fit a decorated tool's parameters, one line per fault.

    `str()` is exactly the fault lines, `<path>: expected <what>, received <preview>`, so a
    `ToolManager` hands the model a short, specific message it can act on. `faults` holds the
    same facts as data and `tool` names the tool.
    """

    tool: str
    faults: list[ArgumentFault]

    def __init__(self, tool: str, faults: list[ArgumentFault], lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.tool = tool
        self.faults = faults

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self.tool, self.faults, str(self)))


def _rebuild(tool: str, faults: list[ArgumentFault], text: str) -> ArgumentsError:
    return ArgumentsError(tool, faults, text.split("\n") if text else [])


class ExportError(ValueError):
    """Reports definitions that cannot be rendered for a provider: a bad provider name, a tool
    name the provider refuses, a malformed or oversized schema.
    """


class DocstringWarning(UserWarning):
    """Warns that a docstring documents an argument the function does not take."""
