"""`DatabaseTool`: the database tool, a `Tool` that closes the databases it opened."""

from __future__ import annotations

from typing import Any

from orkestrel.tool import Tool, ToolHandler
from orkestrel.toolbox.database.resolver import DatabaseResolver


class DatabaseTool(Tool):
    """Represents the tool `create_database_tool` builds: a `Tool` that also owns the live
    databases its calls opened, and closes them with `close` or at the end of `async with`.

    Each database holds an engine connection until it is closed; a tool dropped unclosed
    leaves its connections to the garbage collector (a `ResourceWarning` from Python 3.13).
    """

    __slots__ = ("_resolver",)

    def __init__(
        self, *, resolver: DatabaseResolver, name: str, execute: ToolHandler, **fields: Any
    ) -> None:
        super().__init__(name=name, execute=execute, **fields)
        self._resolver = resolver

    @property
    def resolver(self) -> DatabaseResolver:
        """The resolver that holds the tool's live databases."""
        return self._resolver

    async def close(self) -> None:
        """Closes every live database the tool holds, those given as `databases` included;
        stored definitions stay, so a later call opens a database again from its definition.
        """
        await self._resolver.close()

    async def __aenter__(self) -> DatabaseTool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"DatabaseTool(name={self.name!r})"
