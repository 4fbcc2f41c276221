"""`orkestrel tools list | describe NAME | call NAME --args JSON`: the toolbox at a terminal."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

import anyio
from pydantic_core import PydanticSerializationError, to_json, to_jsonable_python

from orkestrel.cli.constants import COMMANDS
from orkestrel.cli.options import add_toolbox_arguments, toolbox_of
from orkestrel.cli.toolbox import ToolboxSetupError
from orkestrel.tool import ToolCall, ToolInterface, ToolManager

USAGE = 2
FAILURE = 1


def register(commands: Any) -> argparse.ArgumentParser:
    """Adds the `tools` command and its `list`, `describe` and `call` subcommands to the
    `orkestrel` parser."""
    parser: argparse.ArgumentParser = commands.add_parser("tools", help=COMMANDS["tools"][1])
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="list the tools and what they do")
    describe = actions.add_parser("describe", help="show one tool in full")
    describe.add_argument("name", metavar="NAME")
    call = actions.add_parser("call", help="call one tool")
    call.add_argument("name", metavar="NAME")
    call.add_argument(
        "--args",
        default="{}",
        metavar="JSON",
        help="the arguments as a JSON object, or - to read them from stdin (default: {})",
    )
    for sub in (listing, describe, call):
        add_toolbox_arguments(sub)
    parser.set_defaults(run=run)
    return parser


def run(options: argparse.Namespace) -> int:
    """Runs a parsed `tools` command line and returns its exit status."""
    return anyio.run(run_tools, options)


async def run_tools(
    options: argparse.Namespace,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Runs `tools list`, `tools describe` or `tools call` and returns the exit status.

    Output is for people on a terminal and JSON otherwise (`call` then prints the whole result
    record). A failed call exits with 1 and its message on stderr; malformed `--args` or an
    unknown name in `--tools` exits with 2.
    """
    out, err = stdout or sys.stdout, stderr or sys.stderr
    arguments: dict[str, Any] = {}
    if options.action == "call":
        try:
            arguments = _arguments(options.args, stdin or sys.stdin)
        except ValueError as error:
            print(f"orkestrel tools call: {error}", file=err)
            return USAGE
    try:
        async with toolbox_of(options, err) as manager:
            return await _act(options, manager, arguments, out, err)
    except ToolboxSetupError as error:
        print(f"orkestrel tools: {error}", file=err)
        return USAGE if error.usage else FAILURE


async def _act(
    options: argparse.Namespace,
    manager: ToolManager,
    arguments: dict[str, Any],
    out: TextIO,
    err: TextIO,
) -> int:
    pretty = out.isatty()
    if options.action == "list":
        definitions = manager.definitions()
        if not pretty:
            _emit(definitions, out)
        else:
            width = max((len(item["name"]) for item in definitions), default=0)
            for item in definitions:
                print(f"{item['name']:<{width}}  {item.get('description', '')}".rstrip(), file=out)
        return 0
    tool = manager.tool(options.name)
    if tool is None:
        print(f"orkestrel tools: tool not found: {options.name}", file=err)
        return FAILURE
    if options.action == "describe":
        described = _described(tool)
        if not pretty:
            _emit(described, out)
        else:
            for key, value in described.items():
                text = value if isinstance(value, str) else json.dumps(value, indent=2)
                print(f"{key}:\n{_indent(text)}", file=out)
        return 0
    call: ToolCall = {"id": "cli", "name": tool.name, "arguments": arguments}
    result = await manager.execute(call)
    if result["success"] is False:
        print(result["error"], file=err)
        if not pretty:
            _emit(result, out)
        return FAILURE
    if pretty and isinstance(result["value"], str):
        print(result["value"], file=out)
        return 0
    if not _emit(result if not pretty else result["value"], out, indent=2 if pretty else None):
        print("orkestrel tools call: the tool's value is not JSON-encodable", file=err)
        return FAILURE
    return 0


def _arguments(text: str, stdin: TextIO) -> dict[str, Any]:
    source = stdin.read() if text == "-" else text
    try:
        value = json.loads(source)
    except (ValueError, RecursionError) as error:
        raise ValueError(f"--args is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise ValueError(f"--args must be a JSON object, got {type(value).__name__}")
    return value


def _described(tool: ToolInterface) -> dict[str, Any]:
    fields = {
        "name": tool.name,
        "summary": tool.summary,
        "description": tool.description,
        "parameters": tool.parameters,
        "annotations": getattr(tool, "annotations", None),
    }
    return {key: value for key, value in fields.items() if value is not None}


def _emit(value: Any, out: TextIO, indent: int | None = None) -> bool:
    try:
        text = to_json(to_jsonable_python(value, inf_nan_mode="null"), indent=indent).decode()
    except (PydanticSerializationError, ValueError, TypeError):
        return False
    print(text, file=out)
    return True


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())
