"""The `@tool` decorator: a `Tool` built from a Python function's signature and docstring."""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any, Generic, ParamSpec, TypeVar, overload

from pydantic import BaseModel

from orkestrel.tool.base import Tool, _is_async
from orkestrel.tool.docstrings import parse_docstring
from orkestrel.tool.errors import DocstringWarning
from orkestrel.tool.signatures import _NO_CALLER, ParameterModel

P = ParamSpec("P")
R = TypeVar("R")


class FunctionTool(Tool, Generic[P, R]):
    """Represents a `Tool` built by `@tool` from a Python function, still callable as that function.

    `namespace` resolves string annotations that name local classes (`@tool` passes the scope
    it is used in). Calling it (`lookup("x")`) runs the function directly, untouched. `await
    tool.execute(args)` validates and coerces `args` against the signature first and raises
    `ArgumentsError` when they do not fit. Register it like any `Tool`: `manager.add(lookup)`.
    """

    function: Callable[P, R]
    """The decorated function, unchanged."""

    def __init__(
        self,
        function: Callable[P, R],
        *,
        name: str | None = None,
        summary: str | None = None,
        description: str | None = None,
        parameters: type[BaseModel] | None = None,
        annotations: dict[str, Any] | None = None,
        namespace: Mapping[str, Any] | None = None,
        task: bool = False,
    ) -> None:
        if isinstance(function, type):
            raise TypeError(f"@tool decorates a function, not the class {function.__name__}")
        if not callable(function):
            raise TypeError(f"@tool decorates a function, not {type(function).__name__}")
        if parameters is not None and not (
            isinstance(parameters, type) and issubclass(parameters, BaseModel)
        ):
            raise TypeError("@tool(parameters=...) takes a pydantic BaseModel subclass")
        label = _name(function, name)
        docstring = parse_docstring(inspect.getdoc(function))
        model = ParameterModel(function, label, docstring.arguments, parameters, namespace)
        _warn_unknown(label, docstring.arguments, model, parameters)
        full = description if description is not None else docstring.description
        super().__init__(
            name=label,
            execute=_handler(function, model),
            description=full,
            summary=summary if summary is not None else _lean(full),
            parameters=model.schema,
            annotations=annotations,
            task=task,
        )
        self.function = function
        functools.update_wrapper(self, function)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"FunctionTool(name={self.name!r})"


@overload
def tool(function: Callable[P, R], /) -> FunctionTool[P, R]: ...
@overload
def tool(
    *,
    name: str | None = None,
    summary: str | None = None,
    description: str | None = None,
    parameters: type[BaseModel] | None = None,
    annotations: dict[str, Any] | None = None,
    task: bool = False,
) -> Callable[[Callable[P, R]], FunctionTool[P, R]]: ...
def tool(
    function: Callable[P, R] | None = None,
    /,
    *,
    name: str | None = None,
    summary: str | None = None,
    description: str | None = None,
    parameters: type[BaseModel] | None = None,
    annotations: dict[str, Any] | None = None,
    task: bool = False,
) -> FunctionTool[P, R] | Callable[[Callable[P, R]], FunctionTool[P, R]]:
    """Turns a Python function into a `Tool` whose parameters come from its signature.

    Use it bare (`@tool`) or with options (`@tool(name=..., summary=...)`). The name defaults
    to the function's `__name__`; the description to its docstring without the argument
    sections; the summary to the docstring's first paragraph when the description has more
    than that. Argument descriptions come from Google, NumPy or Sphinx docstrings, and an
    `Annotated[..., Field(description=...)]` wins over them. `parameters=SomeModel` makes a
    pydantic model the whole parameter schema; the function then takes that model as its one
    argument. A parameter annotated `Caller[T]` receives the call's `caller` instead.
    `annotations` (MCP hints such as `{"readOnlyHint": True}`) are kept on the tool.
    `task=True` has `orkestrel serve` run its calls as MCP tasks (see `Tool`).

    Returns a `FunctionTool`: a `Tool` that is still callable as the original function.
    Raises `TypeError` at decoration time for `*args`, `**kwargs` or hints pydantic cannot use.
    """
    if function is not None and not callable(function):
        raise TypeError("@tool takes options by keyword only, e.g. @tool(name='lookup')")

    def decorate(target: Callable[P, R], depth: int = 1) -> FunctionTool[P, R]:
        scope = sys._getframe(depth).f_locals
        return FunctionTool(
            target,
            name=name,
            summary=summary,
            description=description,
            parameters=parameters,
            annotations=annotations,
            namespace=scope,
            task=task,
        )

    return decorate if function is None else decorate(function, 2)


def _name(function: Callable[..., Any], name: str | None) -> str:
    if name is not None:
        if not isinstance(name, str) or not name:
            raise TypeError("@tool(name=...) must be a non-empty string")
        return name
    found = getattr(function, "__name__", None)
    if not isinstance(found, str) or not found or found == "<lambda>":
        raise TypeError("this callable has no usable name; pass @tool(name=...)")
    return found


def _lean(description: str | None) -> str | None:
    if description is None:
        return None
    first = " ".join(description.split("\n\n", 1)[0].split())
    return first if first and first != " ".join(description.split()) else None


def _warn_unknown(
    tool: str,
    documented: Mapping[str, str],
    model: ParameterModel,
    whole: type[BaseModel] | None,
) -> None:
    if whole is not None:
        return
    unknown = [name for name in documented if name not in (*model.names, *model.callers)]
    if unknown:
        warnings.warn(
            f"tool {tool!r}: the docstring documents {', '.join(unknown)}, "
            "which the function does not take",
            DocstringWarning,
            stacklevel=4,
        )


def _handler(function: Callable[..., Any], model: ParameterModel) -> Callable[..., Any]:
    if _is_async(function):

        async def run_async(args: Any, caller: Any = _NO_CALLER) -> Any:
            positional, keyword = model.bind(args, caller)
            return await function(*positional, **keyword)

        return run_async

    def run(args: Any, caller: Any = _NO_CALLER) -> Any:
        positional, keyword = model.bind(args, caller)
        return function(*positional, **keyword)

    return run
