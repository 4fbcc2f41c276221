"""The plain data a tool runtime exchanges, and the interfaces of its two classes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, NotRequired, Protocol, TypedDict, overload

ToolHandler = Callable[..., Any]
"""A sync or async callable taking the arguments record and, optionally, the caller context;
a handler that declares the caller parameter without a default gets `None` from a call that
carries none (the seed's `undefined`)."""


class ToolDefinition(TypedDict):
    """Describes a tool as advertised to a caller."""

    name: str
    description: NotRequired[str]
    parameters: NotRequired[dict[str, Any]]


class ToolCall(TypedDict):
    """Describes one request to run a named tool."""

    id: str
    name: str
    arguments: dict[str, Any]
    caller: NotRequired[Any]


class ToolSuccess(TypedDict):
    """Reports the successful outcome of executing a `ToolCall`."""

    id: str
    name: str
    success: Literal[True]
    value: Any


class ToolFailure(TypedDict):
    """Reports the failed outcome of executing a `ToolCall`."""

    id: str
    name: str
    success: Literal[False]
    error: str


ToolResult = ToolSuccess | ToolFailure
"""Represents the outcome of executing a `ToolCall`."""


class ToolOptions(TypedDict):
    """Configures an executable tool.

    It is what `create_tool` takes, with `Tool`'s defaults.
    """

    name: str
    description: NotRequired[str | None]
    summary: NotRequired[str | None]
    parameters: NotRequired[dict[str, Any] | None]
    annotations: NotRequired[dict[str, Any] | None]
    returns: NotRequired[Any]
    operations: NotRequired[dict[str, dict[str, Any]] | None]
    task: NotRequired[bool]
    execute: ToolHandler


class ToolInterface(Protocol):
    """Represents an executable tool: its advertised definition plus its local handler."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str | None: ...
    @property
    def summary(self) -> str | None: ...
    @property
    def parameters(self) -> dict[str, Any] | None: ...
    @property
    def annotations(self) -> dict[str, Any] | None: ...
    def execute(self, args: Mapping[str, Any], caller: Any = ...) -> Awaitable[Any]: ...


class ToolManagerInterface(Protocol):
    """Represents a registry of executable tools with per-call error isolation."""

    @property
    def count(self) -> int: ...
    def add(self, tool: ToolInterface | Sequence[ToolInterface]) -> None: ...
    def tool(self, name: str) -> ToolInterface | None: ...
    def tools(self) -> list[ToolInterface]: ...
    def definitions(self) -> list[ToolDefinition]: ...
    @overload
    async def execute(
        self, call: ToolCall, *, timeout: float | None = None, limit: int | None = None
    ) -> ToolResult: ...
    @overload
    async def execute(
        self, call: Sequence[ToolCall], *, timeout: float | None = None, limit: int | None = None
    ) -> list[ToolResult]: ...
    def remove(self, name: str | Sequence[str]) -> bool: ...
    def clear(self) -> None: ...
