"""`orkestrel tools list | describe | call` in process: JSON for programs, text for people."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

import pytest

from orkestrel.cli.tools import register, run_tools

pytestmark = pytest.mark.anyio


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="orkestrel")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["tools", *argv])


async def run(*argv: str, tty: bool = False, stdin: str = "") -> tuple[int, str, str]:
    out = Terminal() if tty else io.StringIO()
    err = io.StringIO()
    status = await run_tools(parse(*argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def select(plugin: Any, tmp_path: Path) -> list[str]:
    return ["--tools", "greet", "--root", str(tmp_path), "--data", str(tmp_path / "data")]


async def test_list_is_json_for_programs(select: list[str]) -> None:
    status, out, err = await run("list", *select)
    assert (status, err) == (0, "")
    assert json.loads(out) == [
        {
            "name": "hello",
            "description": "Greets someone.",
            "parameters": {"type": "object", "properties": {"who": {"type": "string"}}},
        },
        {"name": "where"},
        {"name": "refuse"},
    ]


async def test_list_is_a_table_for_people(select: list[str]) -> None:
    status, out, _ = await run("list", *select, tty=True)
    assert status == 0
    assert out.splitlines() == ["hello   Greets someone.", "where", "refuse"]


async def test_describe_shows_everything_the_tool_declares(select: list[str]) -> None:
    status, out, _ = await run("describe", "hello", *select)
    assert status == 0
    assert json.loads(out) == {
        "name": "hello",
        "summary": "Greets someone.",
        "description": "Greets someone by name, from the plugin.",
        "parameters": {"type": "object", "properties": {"who": {"type": "string"}}},
        "annotations": {"readOnlyHint": True},
    }
    status, text, _ = await run("describe", "hello", *select, tty=True)
    assert status == 0
    assert "description:\n  Greets someone by name, from the plugin." in text
    assert '  "readOnlyHint": true' in text


async def test_call_prints_the_result_record_for_programs(select: list[str]) -> None:
    status, out, err = await run("call", "hello", "--args", '{"who": "ada"}', *select)
    assert (status, err) == (0, "")
    assert json.loads(out) == {"id": "cli", "name": "hello", "success": True, "value": "hello ada"}


async def test_call_prints_the_value_for_people(select: list[str], tmp_path: Path) -> None:
    assert (await run("call", "hello", *select, tty=True))[:2] == (0, "hello world\n")
    status, out, _ = await run("call", "where", *select, tty=True)
    assert (status, json.loads(out)) == (0, {"root": str(tmp_path)})
    assert out.startswith("{\n  ")


async def test_call_reads_arguments_from_stdin(select: list[str]) -> None:
    status, out, _ = await run("call", "hello", "--args", "-", *select, stdin='{"who": "bo"}')
    assert (status, json.loads(out)["value"]) == (0, "hello bo")


async def test_a_failed_call_exits_1_with_the_message(select: list[str]) -> None:
    status, out, err = await run("call", "refuse", "--args", '{"why": "no"}', *select)
    assert (status, err) == (1, "refused: no\n")
    assert json.loads(out) == {
        "id": "cli",
        "name": "refuse",
        "success": False,
        "error": "refused: no",
    }
    assert await run("call", "refuse", *select, tty=True) == (1, "", "refused: no reason\n")
    status, out, err = await run("call", "ghost", *select)
    assert (status, out, err) == (1, "", "orkestrel tools: tool not found: ghost\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("{", "--args is not valid JSON"),
        ("[1]", "--args must be a JSON object, got list"),
        ("null", "--args must be a JSON object, got NoneType"),
        ("[" * 100_000, "--args is not valid JSON"),
    ],
)
async def test_malformed_arguments_exit_2(select: list[str], args: str, message: str) -> None:
    status, out, err = await run("call", "hello", "--args", args, *select)
    assert (status, out) == (2, "")
    assert err.startswith(f"orkestrel tools call: {message}")
    assert err.count("\n") == 1


async def test_an_unknown_selection_exits_2(plugin: Any, tmp_path: Path) -> None:
    status, out, err = await run("list", "--tools", "greet,nope", "--root", str(tmp_path))
    assert (status, out) == (2, "")
    assert err.startswith("orkestrel tools: unknown tool: nope (available: ")


async def test_a_broken_selected_plugin_exits_1(plugin: Any, tmp_path: Path) -> None:
    status, _, err = await run("list", "--tools", "broken", "--root", str(tmp_path))
    assert status == 1
    assert err == "orkestrel tools: tool factory 'broken' failed: the plugin broke\n"


def test_an_empty_selection_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        parse("list", "--tools", " , ")
    assert caught.value.code == 2
    assert "expected one or more comma-separated names" in capsys.readouterr().err


async def test_workflow_is_served_whatever_tools_selects(tmp_path: Path) -> None:
    where = ["--root", str(tmp_path), "--data", str(tmp_path / "data")]
    status, out, err = await run("list", "--tools", "infer", "--workflow", *where)
    assert (status, err) == (0, "")
    assert [tool["name"] for tool in json.loads(out)] == ["infer", "workflow"]
    status, out, _ = await run("list", "--tools", "infer", *where)
    assert [tool["name"] for tool in json.loads(out)] == ["infer"]
