"""The `Tool` class: an advertised definition bound to its handler."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from typing import Any

from orkestrel.tool.threads import run_in_thread
from orkestrel.tool.types import ToolHandler

_ABSENT: Any = object()


def _arity(handler: ToolHandler) -> int:
    """How many positional arguments the handler takes, 0, 1 or 2 (the arguments record, then
    the caller); 2 when its signature cannot be read or takes `*args`."""
    try:
        signature = inspect.signature(handler)
    except (TypeError, ValueError):
        return 2
    positional = 0
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            return 2
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            positional += 1
    return min(positional, 2)


def _requires_caller(handler: ToolHandler) -> bool:
    """Whether the handler declares a second positional parameter without a default, which a
    call without a caller must still fill (with `None`, the seed's `undefined`)."""
    try:
        parameters = list(inspect.signature(handler).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [
        parameter
        for parameter in parameters
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
    ]
    return len(positional) >= 2 and positional[1].default is inspect.Parameter.empty


def _is_async(handler: ToolHandler) -> bool:
    if inspect.iscoroutinefunction(handler):
        return True
    call = getattr(handler, "__call__", None)  # noqa: B004
    return call is not None and inspect.iscoroutinefunction(call)


class Tool:
    """Binds an executable tool definition to a handler.

    `description`, `summary`, `parameters`, `annotations`, `returns` and `operations` are
    `None` when not supplied. `operations` maps each operation of an `operation`-keyed tool to
    the exact JSON Schema of its call, which `describe(name, operation)` answers with. The
    parameter schema, the annotations, the arguments and the caller context are passed by
    reference, never copied. `annotations` holds behaviour hints for an MCP listing
    (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, `title`) and is never
    part of the advertised definition. `returns` is the type of every value the handler returns
    (a `TypedDict`, a union of them, a pydantic model or a dataclass) when it has one shape: an
    MCP listing advertises its JSON Schema as the tool's `outputSchema`. A `Tool` never catches:
    a handler that raises makes `execute` raise. `name` is the tool's identity, the key a
    registry files it under, so it cannot be changed after construction. `task` opts the tool's
    calls in to running as MCP tasks: `orkestrel serve` answers a call of it from a client that
    declared the Tasks extension with a task handle at once and runs it on in the background.
    """

    __slots__ = (
        "_arity",
        "_async",
        "_handler",
        "_name",
        "_requires",
        "annotations",
        "description",
        "operations",
        "parameters",
        "returns",
        "summary",
        "task",
    )

    description: str | None
    summary: str | None
    parameters: dict[str, Any] | None
    annotations: dict[str, Any] | None
    returns: Any
    operations: dict[str, dict[str, Any]] | None
    task: bool

    def __init__(
        self,
        *,
        name: str,
        execute: ToolHandler,
        description: str | None = None,
        summary: str | None = None,
        parameters: dict[str, Any] | None = None,
        annotations: dict[str, Any] | None = None,
        returns: Any = None,
        operations: dict[str, dict[str, Any]] | None = None,
        task: bool = False,
    ) -> None:
        if not callable(execute):
            raise TypeError(f"Tool {name!r}: execute must be callable")
        if not isinstance(task, bool):
            raise TypeError(f"Tool {name!r}: task must be True or False, got {task!r}")
        if annotations is not None and not isinstance(annotations, dict):
            raise TypeError(f"Tool {name!r}: annotations must be a dict or None")
        self._name = name
        self.description = description
        self.summary = summary
        self.parameters = parameters
        self.annotations = annotations
        self.returns = returns
        self.operations = operations
        self.task = task
        self._handler = execute
        self._async = _is_async(execute)
        self._arity = _arity(execute)
        self._requires = _requires_caller(execute)

    @property
    def name(self) -> str:
        """The tool's name: what a model calls and what a registry files it under."""
        return self._name

    async def execute(self, args: Mapping[str, Any], caller: Any = _ABSENT) -> Any:
        """Runs the tool's handler with the caller-supplied arguments and any consumer-asserted
        caller context.

        `caller` reaches the handler only when given and when the handler takes a second
        positional parameter; a handler that requires one gets `None` when no caller is given,
        and a handler that takes no parameter is called with none. A sync
        handler runs in a worker thread so it cannot stall the event loop; when the call is
        cancelled (a timeout included) the thread is abandoned and its late result dropped. An
        awaitable it returns is awaited.
        """
        handler, arity = self._handler, self._arity
        if caller is _ABSENT and self._requires:
            caller = None
        if self._async:
            if arity == 0:
                result = handler()
            elif caller is not _ABSENT and arity == 2:
                result = handler(args, caller)
            else:
                result = handler(args)
        elif arity == 0:
            result = await run_in_thread(handler)
        elif caller is not _ABSENT and arity == 2:
            result = await run_in_thread(functools.partial(handler, args, caller))
        else:
            result = await run_in_thread(functools.partial(handler, args))
        if inspect.isawaitable(result):
            result = await result
        return result

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r})"
