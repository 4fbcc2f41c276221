"""The typed failures of the MCP bridge."""

from __future__ import annotations

from collections.abc import Sequence


class RemoteToolError(Exception):
    """Represents a remote MCP tool's `isError` answer, raised by a tool `from_mcp` wrapped.

    `str()` is the remote text alone, so a `ToolManager` flattens it to exactly that message.
    """

    tool: str

    def __init__(self, tool: str, message: str) -> None:
        super().__init__(message)
        self.tool = tool

    def __str__(self) -> str:
        return str(self.args[0])


class ToolNameCollisionError(ValueError):
    """Represents remote tools whose names are already taken in the target registry, or
    repeated in one listing; nothing was registered.
    """

    names: tuple[str, ...]

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        listed = ", ".join(repr(name) for name in self.names)
        super().__init__(f"tool name collision: {listed}; pass prefix= to keep both")


class IconError(ValueError):
    """Represents an icon the server was given that it will not announce: `option` names
    where it came from (`--icon`, or `icons[1].src` on the Python factories), and the message
    says what was expected, on one line."""

    option: str

    def __init__(self, option: str, message: str) -> None:
        self.option = option
        super().__init__(f"{option}: {message}")
