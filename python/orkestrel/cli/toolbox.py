"""The toolbox `orkestrel serve` and `orkestrel tools` work on: the built-in tools and the tools
that installed packages contribute under the `orkestrel.tools` entry-point group."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from orkestrel.tool import ToolInterface, ToolManager, ToolManagerInterface

if TYPE_CHECKING:
    from orkestrel.cli.shared import SharedState

__all__ = [
    "PLUGIN_GROUP",
    "ToolFactory",
    "ToolboxContext",
    "ToolboxSetupError",
    "open_toolbox",
    "plugin_entries",
]

PLUGIN_GROUP = "orkestrel.tools"
"""The entry-point group an installed package lists its tool factories under."""


@dataclass(frozen=True)
class ToolboxContext:
    """Represents what a tool factory is given: the workspace root, the data directory, the
    read-only flag, the registry being assembled, an exit stack for cleanup at shutdown, the
    relations file, if any, and the PostgreSQL state every server shares (`--database`), if
    any, which then holds what `data` would."""

    root: Path
    data: Path
    readonly: bool
    manager: ToolManagerInterface
    stack: AsyncExitStack
    relations: Path | None = None
    shared: SharedState | None = None


ToolFactory = Callable[[ToolboxContext], Any]
"""A callable that builds tools from a `ToolboxContext`: it returns one tool or an iterable of
tools, or an awaitable of either."""


class ToolboxSetupError(Exception):
    """Represents a toolbox that cannot be assembled as asked: an unknown name in the selection
    (`usage` is then true), or a selected factory that fails to load or build."""

    usage: bool

    def __init__(self, message: str, *, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage


def plugin_entries(group: str = PLUGIN_GROUP) -> dict[str, EntryPoint]:
    """Lists the installed tool factories of an entry-point group by name, without loading them.

    When two distributions use one name, the first found is kept.
    """
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=group):
        found.setdefault(entry.name, entry)
    return found


@asynccontextmanager
async def open_toolbox(
    *,
    root: Path,
    data: Path,
    readonly: bool = False,
    select: Sequence[str] | None = None,
    builtins: Mapping[str, ToolFactory] | None = None,
    group: str = PLUGIN_GROUP,
    warn: Callable[[str], None] = lambda message: None,
    relations: Path | None = None,
    shared: SharedState | None = None,
) -> AsyncIterator[ToolManager]:
    """Builds the toolbox, built-in factories first and plugins after, and closes what the
    factories opened when the context ends.

    `select` keeps only the named factories; an unknown name raises `ToolboxSetupError`. A
    selected factory that fails to load, fails to build, or brings a name already taken raises
    `ToolboxSetupError`; without a selection, a failing plugin is reported through `warn` and
    skipped so one broken package cannot take the built-in tools down with it. `relations`
    reaches the factories as `ToolboxContext.relations`, and `shared` as
    `ToolboxContext.shared`.
    """
    known: dict[str, ToolFactory | EntryPoint] = dict(builtins or {})
    for name, entry in plugin_entries(group).items():
        known.setdefault(name, entry)
    if select is not None:
        unknown = [name for name in select if name not in known]
        if unknown:
            available = ", ".join(known) or "none"
            raise ToolboxSetupError(
                f"unknown tool: {', '.join(unknown)} (available: {available})", usage=True
            )
    chosen = list(known) if select is None else list(dict.fromkeys(select))
    manager = ToolManager()
    async with AsyncExitStack() as stack:
        context = ToolboxContext(root, data, readonly, manager, stack, relations, shared)
        for name in chosen:
            strict = select is not None or not _is_entry(known[name])
            try:
                tools = await _build(name, known[name], context)
                _register(manager, name, tools)
            except ToolboxSetupError as error:
                if strict:
                    raise
                warn(f"skipping plugin {name!r}: {error}")
        yield manager


async def _build(
    name: str, source: ToolFactory | EntryPoint, context: ToolboxContext
) -> list[ToolInterface]:
    try:
        factory: Any = source.load() if _is_entry(source) else source
        made = factory(context)
        if inspect.isawaitable(made):
            made = await made
    except ToolboxSetupError:
        raise
    except Exception as error:
        raise ToolboxSetupError(f"tool factory {name!r} failed: {error}") from error
    tools = [made] if _is_tool(made) else list(made) if isinstance(made, Iterable) else [made]
    strays = [tool for tool in tools if not _is_tool(tool)]
    if strays:
        raise ToolboxSetupError(
            f"tool factory {name!r} returned {type(strays[0]).__name__}, not a tool"
        )
    return tools


def _register(manager: ToolManagerInterface, name: str, tools: list[ToolInterface]) -> None:
    names = [tool.name for tool in tools]
    taken = sorted({n for n in names if names.count(n) > 1 or manager.tool(n) is not None})
    if taken:
        raise ToolboxSetupError(f"tool factory {name!r} reuses taken names: {', '.join(taken)}")
    manager.add(tools)


def _is_entry(source: object) -> TypeGuard[EntryPoint]:
    # Not `isinstance(source, EntryPoint)`: once the importlib_metadata backport is imported
    # (Dask does), the standard `entry_points()` yields the backport's own EntryPoint class.
    return not callable(source) and callable(getattr(source, "load", None))


def _is_tool(value: object) -> bool:
    return isinstance(getattr(value, "name", None), str) and callable(
        getattr(value, "execute", None)
    )
