"""Every toolbox tool that has a summary points at describe for its full instructions, under
the name the tool is actually registered as."""

from __future__ import annotations

import inspect
import re

import pytest

from orkestrel.tool import ToolManager
from orkestrel.toolbox.helpers import named_text
from support.toolbox import build, factory_tools, tool_factories

RENAMED = "renamed_tool"

RENAMEABLE = [
    name
    for name, factory in tool_factories().items()
    if "name" in inspect.signature(factory).parameters
]


def test_summaries_point_at_describe() -> None:
    for tool in factory_tools():
        if tool.summary is None:
            continue
        assert "describe('" in tool.summary, tool.name
        if tool.name != "describe":
            assert f"describe('{tool.name}')" in tool.summary, tool.name
        assert tool.description is not None
        assert len(tool.summary) < len(tool.description)


def test_there_are_renameable_tools() -> None:
    assert {"create_database_tool", "create_infer_tool", "create_workspace_tool"} <= set(RENAMEABLE)


@pytest.mark.parametrize("factory", RENAMEABLE)
def test_a_renamed_tool_names_its_actual_name(factory: str) -> None:
    plain = build(factory)
    renamed = build(factory, name=RENAMED)
    assert renamed.name == RENAMED
    references = [rf"describe\(['\"]{re.escape(plain.name)}['\"]\)"]
    operations = (plain.parameters or {}).get("properties", {}).get("operation", {}).get("enum", [])
    # A tool that has an operation of its own name (the answer tool's 'answer') quotes that
    # operation, not itself; only its describe() pointer can be checked.
    if plain.name not in operations:
        references.append(rf"['\"`]{re.escape(plain.name)}['\"`]")
    self_references = re.compile("|".join(references))
    for kind in ("summary", "description"):
        before = getattr(plain, kind) or ""
        after = getattr(renamed, kind) or ""
        assert not self_references.search(after), (factory, kind, after)
        if f"describe('{plain.name}')" in before:
            assert f"describe('{RENAMED}')" in after, (factory, kind)


def test_a_caller_description_is_kept_as_written() -> None:
    text = "Use describe('database') for help."
    tool = build("create_database_tool", name="db", description=text)
    assert tool.description == text
    assert tool.summary is not None
    assert "describe('db')" in tool.summary


def test_describe_reads_the_renamed_tool() -> None:
    tools = ToolManager()
    tools.add(
        [build("create_database_tool", name="db"), build("create_describe_tool", tools=tools)]
    )
    definitions = {d["name"]: d for d in tools.definitions()}
    assert "describe('db')" in definitions["db"].get("description", "")


def test_named_text_rewrites_only_self_references() -> None:
    text = """Call describe('infer') or describe("infer"); describe('other') stays."""
    assert named_text(text, "infer", "guess") == (
        """Call describe('guess') or describe("guess"); describe('other') stays."""
    )
    assert named_text(text, "infer", "infer") is text
