"""Every tool the toolbox ships, found by enumeration so that tools added later are covered.

Two sources: every `create_*_tool` factory `orkestrel.toolbox` exports (built with its defaults,
or with the arguments listed in `REQUIRED` when it needs some), and every tool `orkestrel serve`
offers, with each of its options on and off. A new factory that needs arguments fails loudly
until it is listed in `REQUIRED`.
"""

from __future__ import annotations

import inspect
import io
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orkestrel.toolbox
from orkestrel.agent import create_agent_registry
from orkestrel.cli import build_parser
from orkestrel.cli.options import toolbox_of
from orkestrel.terminal import create_terminal_manager
from orkestrel.tool import ToolInterface, ToolManager
from orkestrel.workflow import create_workflow_runner

ENDPOINT = {
    "name": "lookup",
    "description": "Look a customer up.",
    "samples": [{"id": 1, "email": "ada@example.com", "tags": ["a"], "address": {"city": "Delft"}}],
    "execute": lambda args: args,
}
"""An endpoint definition with nested objects and arrays, for `create_endpoint_tool`."""

REQUIRED: dict[str, Callable[[], dict[str, Any]]] = {
    "create_describe_tool": lambda: {"tools": ToolManager()},
    "create_endpoint_tool": lambda: {"definition": dict(ENDPOINT)},
    "create_agent_tool": lambda: {"registry": create_agent_registry(providers={})},
    "create_relation_tool": lambda: {"managers": {}},
    "create_prompt_tool": lambda: {"manager": create_terminal_manager(), "from_": "agent"},
    "create_answer_tool": lambda: {"manager": create_terminal_manager(), "to": "reviewer"},
    "create_workflow_tool": lambda: {
        "definition": {"id": "w", "name": "W", "phases": []},
        "runner": create_workflow_runner(),
        "functions": {"f": print},
    },
}
"""The arguments a factory without defaults is built with, by factory name."""


def tool_factories() -> dict[str, Callable[..., Any]]:
    """Every `create_*_tool` factory `orkestrel.toolbox` exports, by name."""
    return {
        name: getattr(orkestrel.toolbox, name)
        for name in orkestrel.toolbox.__all__
        if name.startswith("create_") and name.endswith("_tool")
    }


def build(factory_name: str, /, **options: Any) -> ToolInterface:
    """Builds one toolbox tool by factory name, with its required arguments and `options`."""
    factory = tool_factories()[factory_name]
    arguments = {**REQUIRED.get(factory_name, dict)(), **options}
    missing = [
        parameter.name
        for parameter in inspect.signature(factory).parameters.values()
        if parameter.default is parameter.empty
        and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        and parameter.name not in arguments
    ]
    assert not missing, (
        f"{factory_name} needs {missing}: list them in tests/support/toolbox.py REQUIRED"
    )
    tool: ToolInterface = factory(**arguments)
    return tool


def factory_tools() -> list[ToolInterface]:
    """One tool from every toolbox factory, built with its defaults."""
    return [build(name) for name in tool_factories()]


SERVE_VALUES: dict[str, str] = {
    "--relations": str(Path(__file__).with_name("relations.toml")),
    "--agent": "openai:test-model",
    "--base-url": "http://127.0.0.1:9/v1",
}
"""Values for the `orkestrel serve` options that take one and change the toolbox; every flag
(`--readonly`, `--workflow`, ...) is switched on and off without being listed."""

_NOT_TOOLBOX = {"--transport", "--host", "--port", "--root", "--data", "--tools", "--help"}


def serve_command_lines(place: Path) -> list[list[str]]:
    """`orkestrel serve` command lines with every toolbox option off, then every one on."""
    parser = build_parser()
    serve = parser._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    flags, valued = [], []
    for action in serve._actions:
        option = next((name for name in action.option_strings if name.startswith("--")), None)
        if option is None or option in _NOT_TOOLBOX:
            continue
        if action.nargs == 0:
            flags.append(option)
        elif option in SERVE_VALUES:
            valued += [option, SERVE_VALUES[option]]
    base = ["serve", "--root", str(place), "--data", str(place / ".orkestrel")]
    return [base, [*base, *flags, *valued]]


@asynccontextmanager
async def served_tools(place: Path) -> AsyncIterator[list[ToolInterface]]:
    """Every tool `orkestrel serve` offers over `place`, with its options off and on."""
    found: list[ToolInterface] = []
    for line in serve_command_lines(place):
        options = build_parser().parse_args(line)
        async with toolbox_of(options, io.StringIO()) as manager:
            found.extend(manager.tools())
    yield found
