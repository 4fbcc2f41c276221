"""The `ToolManager` registry."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from inspect import CO_COROUTINE
from types import FunctionType
from typing import Any, cast, overload

import anyio

from orkestrel.tool.arguments import ArgumentsPlan, arguments_plan, read_arguments
from orkestrel.tool.base import _ABSENT, Tool
from orkestrel.tool.gather import gather
from orkestrel.tool.helpers import error_message, tool_to_definition
from orkestrel.tool.types import (
    ToolCall,
    ToolDefinition,
    ToolFailure,
    ToolInterface,
    ToolResult,
    ToolSuccess,
)


def _read(call: ToolCall, key: str, default: Any) -> Any:
    try:
        return call[key]  # type: ignore[literal-required]
    except KeyError:
        return default


def _milliseconds(seconds: float) -> str:
    ms = seconds * 1000
    return str(int(ms)) if float(ms).is_integer() else f"{ms:g}"


def _check_options(timeout: float | None, limit: int | None) -> None:
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"limit must be a positive integer, got {limit!r}")


_Entry = tuple[ToolInterface, Any, ArgumentsPlan | None, Any]
"""A registered tool's call plan (see `ToolManager._entry`)."""


class ToolManager:
    """Represents an insertion-ordered tool registry with per-call error isolation.

    A failing call becomes a failure result; only a call whose `id` or `name` cannot be read,
    or a `BaseException` such as cancellation, escapes `execute`. Arguments in the form a
    provider's strict mode sends them (`null` for an omitted optional property, JSON text for an
    object or array) are read back against the tool's own schema first
    (`orkestrel.tool.arguments`).
    """

    __slots__ = ("_plans", "_tools")

    def __init__(self) -> None:
        self._tools: dict[str, ToolInterface] = {}
        self._plans: dict[str, _Entry] = {}

    @property
    def count(self) -> int:
        """How many tools are registered."""
        return len(self._tools)

    def add(self, tool: ToolInterface | Sequence[ToolInterface]) -> None:
        """Registers one tool.

        A list registers each in order, later entries replacing earlier ones of the same name.
        Re-adding a registered name replaces the tool in place.
        """
        items = tool if isinstance(tool, list | tuple) else (cast(ToolInterface, tool),)
        for item in items:
            name = item.name
            self._tools[name] = item
            # `execute` trusts a cached plan to be the registered tool's: drop the old one.
            self._plans.pop(name, None)

    def tool(self, name: str) -> ToolInterface | None:
        """Finds one registered tool by name."""
        return self._tools.get(name)

    def tools(self) -> list[ToolInterface]:
        """Lists the registered tools in insertion order."""
        return list(self._tools.values())

    def definitions(self) -> list[ToolDefinition]:
        """Lists the definitions advertised to a caller."""
        return [tool_to_definition(tool) for tool in self._tools.values()]

    @overload
    async def execute(
        self, call: ToolCall, *, timeout: float | None = None, limit: int | None = None
    ) -> ToolResult: ...
    @overload
    async def execute(
        self, call: Sequence[ToolCall], *, timeout: float | None = None, limit: int | None = None
    ) -> list[ToolResult]: ...
    async def execute(
        self,
        call: ToolCall | Sequence[ToolCall],
        *,
        timeout: float | None = None,
        limit: int | None = None,
    ) -> ToolResult | list[ToolResult]:
        """Executes one call with error isolation.

        A list runs concurrently and answers in input order, one result per call. `timeout`
        (seconds) turns a slow call into a failure and cancels it; `limit` caps how many calls
        of a batch run at once.
        """
        if type(call) is dict and timeout is None and limit is None:
            # The common case, one plain call with no options, in as few steps as Python allows:
            # subscripts rather than `get` (an exact dict's `[]` has no `__missing__`), and a
            # cached plan per name. Anything unusual (a missing key, a name that is not a
            # registered str, a replaced schema, a handler `execute` cannot call directly)
            # takes `_plain`, which reads the call again the long way and answers as `_run` does.
            try:
                id_, name, raw = call["id"], call["name"], call["arguments"]
                tool, parameters, plan, direct = self._plans[name]
            except Exception:
                return await self._plain(call)
            if direct is None or tool.parameters is not parameters:
                return await self._plain(call)
            args: Any = None
            try:
                args = raw if plan is None else read_arguments(plan, raw)
                value = await direct(args)
            except Exception as exc:
                return _failure(id_, name, error_message(exc, args))
            return {"id": id_, "name": name, "success": True, "value": value}
        return await self._general(call, timeout, limit)

    async def _general(
        self, call: ToolCall | Sequence[ToolCall], timeout: float | None, limit: int | None
    ) -> ToolResult | list[ToolResult]:
        _check_options(timeout, limit)
        if not isinstance(call, list | tuple):
            single: ToolCall = call  # type: ignore[assignment]
            return await self._run(
                single, _read(single, "id", None), _read(single, "name", None), timeout
            )
        heads = [(item, _read(item, "id", None), _read(item, "name", None)) for item in call]
        return await gather([partial(self._run, *head, timeout) for head in heads], limit)

    async def _plain(self, call: ToolCall) -> ToolResult:
        """One dict call with no options: `_run`'s steps, with the call plan cached per name."""
        id_, name = call.get("id"), call.get("name")
        tool = self._tools.get(name) if type(name) is str else None
        if tool is None:
            return await self._run(call, id_, name, None)
        args: Any = None
        try:
            plan = self._entry(name, tool)[2]
            raw = call.get("arguments", {})
            args = raw if plan is None else read_arguments(plan, raw)
            value = await _invoke(tool, args, call.get("caller", _ABSENT))
        except Exception as exc:
            return _failure(id_, name, error_message(exc, args))
        return {"id": id_, "name": name, "success": True, "value": value}

    async def _run(self, call: ToolCall, id_: Any, name: Any, timeout: float | None) -> ToolResult:
        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            return _failure(id_, name, f"tool not found: {name}")
        args: Any = None
        value: Any = None
        try:
            args = read_arguments(self._plan(name, tool), _read(call, "arguments", {}))
            caller = _read(call, "caller", _ABSENT)
            if timeout is None:
                value = await _invoke(tool, args, caller)
            else:
                with anyio.move_on_after(timeout) as scope:
                    value = await _invoke(tool, args, caller)
                if scope.cancelled_caught:
                    return _failure(id_, name, f"tool timed out after {_milliseconds(timeout)} ms")
        except Exception as exc:
            return _failure(id_, name, error_message(exc, args))
        success: ToolSuccess = {"id": id_, "name": name, "success": True, "value": value}
        return success

    def _plan(self, name: str, tool: ToolInterface) -> ArgumentsPlan | None:
        return self._entry(name, tool)[2]

    def _entry(self, name: str, tool: ToolInterface) -> _Entry:
        """What a call of `tool` (registered as `name`) needs: the tool and its parameters the
        entry was made for, the arguments plan, and the handler when `execute` may call it
        directly (a plain `Tool` with an async handler of one parameter)."""
        parameters = tool.parameters
        known = self._plans.get(name)
        if known is not None and known[0] is tool and known[1] is parameters:
            return known
        if known is not None and known[1] is parameters:
            plan = known[2]
        else:
            plan = arguments_plan(parameters)
        direct = _direct_handler(tool)
        entry = (tool, parameters, plan, direct)
        if type(name) is str:
            # Only exact `str` keys, so a caller's `str` subclass is never kept as one.
            self._plans[name] = entry
        return entry

    def remove(self, name: str | Sequence[str]) -> bool:
        """Removes one registered tool.

        A list removes each name and reports `True` only when every name was registered.
        """
        if not isinstance(name, list | tuple):
            self._plans.pop(cast(str, name), None)
            return self._tools.pop(cast(str, name), _ABSENT) is not _ABSENT
        names = list(name)
        present = [item in self._tools for item in names]
        for item in names:
            self._tools.pop(item, None)
            self._plans.pop(item, None)
        return bool(present) and all(present)

    def clear(self) -> None:
        """Removes every registered tool."""
        self._tools.clear()
        self._plans.clear()

    def __repr__(self) -> str:
        return f"ToolManager({list(self._tools)!r})"


def _direct_handler(tool: ToolInterface) -> Any:
    """The handler `execute` may call and await itself: that of a plain `Tool` (this package's
    own class, whose handler and arity are fixed at construction, and whose `execute` calls an
    async one-parameter handler as `h(args)`) when it is an `async def` function, so that
    calling it always makes a coroutine."""
    if type(tool) is not Tool or tool._arity != 1:
        return None
    handler = tool._handler
    is_async = type(handler) is FunctionType and handler.__code__.co_flags & CO_COROUTINE
    return handler if is_async else None


async def _invoke(tool: ToolInterface, args: Any, caller: Any) -> Any:
    if caller is _ABSENT:
        return await tool.execute(args)
    return await tool.execute(args, caller)


def _failure(id_: Any, name: Any, error: str) -> ToolFailure:
    return {"id": id_, "name": name, "success": False, "error": error}
