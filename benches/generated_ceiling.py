"""What the flat listing could reach, and what an exact one would cost (issue 31 goal 2).

    PYTHONPATH=python:tests:tests/mcp python benches/generated_ceiling.py [EXAMPLES]

Over the tools `serve` builds with every flag (as `tests/mcp/test_mcp_generation.py` does),
prints, per tool, the share of EXAMPLES (default 40) hypothesis-jsonschema values drawn (as the
test draws them) from the listed schema
that the handler does not refuse for their shape, sent as drawn and with every argument the
call's operation does not take set to `null` (the flat listing's ceiling: what no handler may
do silently), the same for pydantic-ai's `TestModel` (3 seeds), and the inputSchema's
characters (tokens) listed flat against a union of the operations' lean strict arms under
one property, as written out and with every property schema two arms repeat moved to `$defs`.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

from pydantic_ai.models.test import _JsonSchemaTestData
from test_mcp_generation import draw

from orkestrel.cli import build_parser
from orkestrel.cli.options import toolbox_of
from orkestrel.mcp.helpers import tool_wire
from orkestrel.tool import ToolInterface, ToolManager
from orkestrel.tool.strict import strict_parameters
from support.generated_calls import from_listed_schema, refused

RELATIONS = '[shop.accounts]\ncontacts = ["accountId"]\n'


def ceiling(tool: ToolInterface, value: Any) -> Any:
    """`value` with every argument its operation does not take set to `null`."""
    arm = (tool.operations or {}).get(value.get("operation")) if isinstance(value, dict) else None
    if arm is None:
        return value
    own = arm.get("properties", {})
    return {key: item if key in own else None for key, item in value.items()}


async def accepted(manager: ToolManager, tool: ToolInterface, calls: list[Any]) -> int:
    ok = 0
    for index, arguments in enumerate(calls):
        call: Any = {"id": str(index), "name": tool.name, "arguments": arguments}
        ok += not refused(dict(await manager.execute(call, timeout=2.0)))
    return ok


def shared(union: dict[str, Any]) -> dict[str, Any]:
    """`union` with each property schema that two or more arms repeat listed once in `$defs`."""
    arms = union["properties"]["call"]["anyOf"]
    texts = [
        json.dumps(item, sort_keys=True) for arm in arms for item in arm["properties"].values()
    ]
    names: dict[str, str] = {}
    for text in texts:
        if texts.count(text) > 1 and len(text) > len('{"$ref":"#/$defs/d0"}'):
            names.setdefault(text, f"d{len(names)}")
    refer = {
        "anyOf": [
            {
                **arm,
                "properties": {
                    key: {"$ref": f"#/$defs/{names[t]}"}
                    if (t := json.dumps(item, sort_keys=True)) in names
                    else item
                    for key, item in arm["properties"].items()
                },
            }
            for arm in arms
        ]
    }
    defs = {name: json.loads(text) for text, name in names.items()}
    return {**union, "properties": {"call": refer}, "$defs": defs}


def size(schema: Any) -> str:
    characters = len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False))
    return f"{characters:,} ({math.ceil(characters / 4)})"


async def main(examples: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        (tmp / "relations.toml").write_text(RELATIONS)
        (tmp / "root").mkdir()
        line = ["serve", "--root", str(tmp / "root"), "--data", str(tmp / "data"), "--workflow"]
        line += ["--ask", "--relations", str(tmp / "relations.toml"), "--agent", "openai:m"]
        line += ["--base-url", "http://127.0.0.1:9/v1"]
        async with toolbox_of(build_parser().parse_args(line), io.StringIO()) as manager:
            print(
                "| tool | as drawn | ceiling | TestModel as drawn / ceiling | flat | union "
                "| union, shared |"
            )
            print("| --- | --- | --- | --- | --- | --- | --- |")
            for tool in manager.tools():
                listed = tool_wire(tool, strict=True)["inputSchema"]
                values = draw(from_listed_schema(listed), examples)
                made = [_JsonSchemaTestData(listed, seed).generate() for seed in range(3)]
                drawn = await accepted(manager, tool, values)
                best = await accepted(manager, tool, [ceiling(tool, v) for v in values])
                made_ok = await accepted(manager, tool, made)
                made_best = await accepted(manager, tool, [ceiling(tool, v) for v in made])
                union = compact = "-"
                if tool.operations:
                    arms = [
                        strict_parameters(arm, tool.name, lean=True)
                        for arm in tool.operations.values()
                    ]
                    whole = {
                        "type": "object",
                        "properties": {"call": {"anyOf": arms}},
                        "required": ["call"],
                        "additionalProperties": False,
                    }
                    union, compact = size(whole), size(shared(whole))
                print(
                    f"| {tool.name} | {drawn / len(values):.0%} | {best / len(values):.0%} "
                    f"| {made_ok} / {made_best} of 3 | {size(listed)} | {union} | {compact} |"
                )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 40))
