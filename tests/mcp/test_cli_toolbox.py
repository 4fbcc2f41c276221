"""Assembling the toolbox: built-in factories, plugins from the `orkestrel.tools` entry-point
group, selection, failures and cleanup."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from orkestrel.cli.toolbox import ToolboxContext, ToolboxSetupError, open_toolbox, plugin_entries
from orkestrel.tool import create_tool

pytestmark = pytest.mark.anyio


def builtin(context: ToolboxContext) -> Any:
    return create_tool(name="base", execute=lambda args: "base")


async def test_plugins_are_listed_by_name_without_loading(plugin: Any) -> None:
    entries = plugin_entries()
    assert {"greet", "later", "broken", "odd", "clash", "missing"} <= set(entries)
    assert entries["greet"].value == f"{plugin.module}:greet"
    assert plugin.module not in sys.modules


async def test_everything_loads_and_broken_plugins_are_skipped_with_a_warning(
    plugin: Any, tmp_path: Path
) -> None:
    warnings: list[str] = []
    async with open_toolbox(
        root=tmp_path / "root",
        data=tmp_path / "data",
        readonly=True,
        builtins={"base": builtin},
        warn=warnings.append,
    ) as manager:
        names = [tool.name for tool in manager.tools()]
        hello = await manager.execute({"id": "1", "name": "hello", "arguments": {"who": "ada"}})
        where = await manager.execute({"id": "2", "name": "where", "arguments": {}})
    assert names == ["base", "hello", "where", "refuse", "later"]
    assert hello["value"] == "hello ada"  # type: ignore[typeddict-item]
    assert where["value"] == {"root": str(tmp_path / "root")}  # type: ignore[typeddict-item]
    seen = sys.modules[plugin.module].SEEN[-1]
    assert (seen.root, seen.data, seen.readonly) == (tmp_path / "root", tmp_path / "data", True)
    assert sorted(message.split("'")[1] for message in warnings) == [
        "broken",
        "clash",
        "missing",
        "odd",
    ]
    assert any("the plugin broke" in message for message in warnings)
    assert any("returned int, not a tool" in message for message in warnings)
    assert any("reuses taken names: hello" in message for message in warnings)


async def test_cleanup_registered_by_a_factory_runs_at_exit(plugin: Any, tmp_path: Path) -> None:
    async with open_toolbox(root=tmp_path, data=tmp_path, select=["later"]) as manager:
        tool = manager.tool("later")
        assert tool is not None
        during = await tool.execute({})
        assert during == {"closed": []}
    assert await tool.execute({}) == {"closed": ["closed"]}


async def test_a_selection_keeps_only_the_named_factories(plugin: Any, tmp_path: Path) -> None:
    async with open_toolbox(
        root=tmp_path, data=tmp_path, select=["greet", "greet"], builtins={"base": builtin}
    ) as manager:
        assert [tool.name for tool in manager.tools()] == ["hello", "where", "refuse"]


@pytest.mark.parametrize(
    ("select", "message", "usage"),
    [
        (["nothing", "greet", "else"], "unknown tool: nothing, else (available: base, ", True),
        (["broken"], "tool factory 'broken' failed: the plugin broke", False),
        (["missing"], "tool factory 'missing' failed: No module named", False),
        (["odd"], "tool factory 'odd' returned int, not a tool", False),
        (["base", "greet", "clash"], "tool factory 'clash' reuses taken names: hello", False),
    ],
)
async def test_a_selected_factory_that_fails_is_an_error(
    plugin: Any, tmp_path: Path, select: list[str], message: str, usage: bool
) -> None:
    with pytest.raises(ToolboxSetupError) as caught:
        async with open_toolbox(
            root=tmp_path, data=tmp_path, select=select, builtins={"base": builtin}
        ):
            pass
    assert str(caught.value).startswith(message)
    assert caught.value.usage is usage


async def test_a_failing_builtin_is_always_an_error(tmp_path: Path) -> None:
    def broken(context: ToolboxContext) -> Any:
        raise OSError("disk gone")

    with pytest.raises(ToolboxSetupError, match="tool factory 'base' failed: disk gone"):
        async with open_toolbox(root=tmp_path, data=tmp_path, builtins={"base": broken}):
            pass


async def test_builtins_win_a_name_over_plugins(plugin: Any, tmp_path: Path) -> None:
    async with open_toolbox(
        root=tmp_path, data=tmp_path, select=["greet"], builtins={"greet": builtin}
    ) as manager:
        assert [tool.name for tool in manager.tools()] == ["base"]
