"""The `Tool` class: an advertised definition bound to its handler."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from typing import Any

import anyio.to_thread

from orkestrel.tool.types import ToolHandler

_ABSENT: Any = object()


def _accepts_caller(handler: ToolHandler) -> bool:
    try:
        signature = inspect.signature(handler)
    except (TypeError, ValueError):
        return True
    positional = 0
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            return True
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            positional += 1
    return positional >= 2


def _is_async(handler: ToolHandler) -> bool:
    if inspect.iscoroutinefunction(handler):
        return True
    call = getattr(handler, "__call__", None)  # noqa: B004
    return call is not None and inspect.iscoroutinefunction(call)


class Tool:
    """Binds an executable tool definition to a handler.

    `description`, `summary`, `parameters` and `annotations` are `None` when not supplied. The
    parameter schema, the annotations, the arguments and the caller context are passed by
    reference, never copied. `annotations` holds behaviour hints for an MCP listing
    (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, `title`) and is never
    part of the advertised definition. A `Tool` never catches: a handler that raises makes
    `execute` raise.
    """

    __slots__ = (
        "_async",
        "_caller",
        "_handler",
        "annotations",
        "description",
        "name",
        "parameters",
        "summary",
    )

    name: str
    description: str | None
    summary: str | None
    parameters: dict[str, Any] | None
    annotations: dict[str, Any] | None

    def __init__(
        self,
        *,
        name: str,
        execute: ToolHandler,
        description: str | None = None,
        summary: str | None = None,
        parameters: dict[str, Any] | None = None,
        annotations: dict[str, Any] | None = None,
    ) -> None:
        if not callable(execute):
            raise TypeError(f"Tool {name!r}: execute must be callable")
        if annotations is not None and not isinstance(annotations, dict):
            raise TypeError(f"Tool {name!r}: annotations must be a dict or None")
        self.name = name
        self.description = description
        self.summary = summary
        self.parameters = parameters
        self.annotations = annotations
        self._handler = execute
        self._async = _is_async(execute)
        self._caller = _accepts_caller(execute)

    async def execute(self, args: Mapping[str, Any], caller: Any = _ABSENT) -> Any:
        """Runs the tool's handler with the caller-supplied arguments and any consumer-asserted
        caller context.

        `caller` reaches the handler only when given and when the handler takes a second
        positional parameter. A sync handler runs in a worker thread so it cannot stall the
        event loop; an awaitable it returns is awaited.
        """
        call = (
            functools.partial(self._handler, args, caller)
            if caller is not _ABSENT and self._caller
            else functools.partial(self._handler, args)
        )
        if self._async:
            result = call()
        else:
            # Boxed so that a sync handler may return an awaitable: trio refuses to hand a
            # coroutine back from a worker thread.
            (result,) = await anyio.to_thread.run_sync(lambda: (call(),))
        if inspect.isawaitable(result):
            result = await result
        return result

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r})"
