"""Issue 31's generation law, over the tools `orkestrel serve` builds with every flag and the
input schemas it lists for them (strict, lean):

- every call the handler accepts, in the form strict mode sends, validates against the listed
  schema (100%, a hypothesis law over calls generated from each operation's exact schema);
- values generated from a listed schema (hypothesis-jsonschema, and pydantic-ai's `TestModel`
  generator) are accepted by the handler in at least 95% of cases: measured and printed, and
  not reached by the flat listing, which cannot say which fields an operation requires.
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orkestrel.cli import build_parser
from orkestrel.cli.options import toolbox_of
from orkestrel.mcp.helpers import tool_wire
from orkestrel.tool import ToolManager
from support.generated_calls import from_listed_schema, refused, strict_value

pytestmark = pytest.mark.anyio

# The MCP 1.x suite's environment has no hypothesis-jsonschema; the main one has it.
pytest.importorskip("hypothesis_jsonschema")

RELATIONS = '[shop.accounts]\ncontacts = ["accountId"]\n'
EXAMPLES = 40
CALL_SECONDS = 2.0
GOAL = 0.95


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[ToolManager]:
    relations = tmp_path / "relations.toml"
    relations.write_text(RELATIONS)
    root = tmp_path / "root"
    root.mkdir()
    line = ["serve", "--root", str(root), "--data", str(tmp_path / "data"), "--workflow"]
    line += ["--ask", "--relations", str(relations), "--agent", "openai:m"]
    line += ["--base-url", "http://127.0.0.1:9/v1"]
    async with toolbox_of(build_parser().parse_args(line), io.StringIO()) as manager:
        yield manager


def draw(strategy: st.SearchStrategy[Any], count: int) -> list[Any]:
    """`count` values from `strategy`, the same ones on every run."""
    found: list[Any] = []

    @settings(
        max_examples=count,
        database=None,
        derandomize=True,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: Any) -> None:
        found.append(value)

    collect()
    return found


async def outcomes(manager: ToolManager, name: str, calls: list[Any]) -> list[dict[str, Any]]:
    results = []
    for index, arguments in enumerate(calls):
        call = {"id": f"{name}-{index}", "name": name, "arguments": arguments}
        results.append(await manager.execute(call, timeout=CALL_SECONDS))  # type: ignore[arg-type]
    return results


def exact_schemas(tool: Any) -> list[dict[str, Any]]:
    operations = getattr(tool, "operations", None)
    return list(operations.values()) if operations else [tool.parameters]


async def test_every_call_the_handler_accepts_validates_against_the_listed_schema(
    served: ToolManager,
) -> None:
    accepted = checked = 0
    for tool in served.tools():
        listed = tool_wire(tool, strict=True)["inputSchema"]
        for schema in exact_schemas(tool):
            calls = [strict_value(value, listed) for value in draw(from_listed_schema(schema), 8)]
            for call, result in zip(calls, await outcomes(served, tool.name, calls), strict=True):
                checked += 1
                if refused(result):
                    continue
                accepted += 1
                jsonschema.validate(call, listed)
    print(f"{accepted} of {checked} calls drawn from the exact schemas accepted; all validate")
    assert accepted > checked / 2


async def test_values_drawn_from_the_listed_schema_are_accepted(served: ToolManager) -> None:
    rates = {}
    for tool in served.tools():
        listed = tool_wire(tool, strict=True)["inputSchema"]
        calls = draw(from_listed_schema(listed), EXAMPLES)
        results = await outcomes(served, tool.name, calls)
        rates[tool.name] = sum(not refused(result) for result in results) / len(results)
    total = sum(rates.values()) / len(rates)
    for name, rate in rates.items():
        print(f"hypothesis-jsonschema: {name} {rate:.0%} accepted")
    print(f"hypothesis-jsonschema: {total:.1%} accepted over {len(rates)} tools")
    if total < GOAL:
        pytest.xfail(f"issue 31 goal 2 not reached: {total:.1%} accepted, goal {GOAL:.0%}")


async def test_pydantic_ai_test_model_calls_are_accepted(served: ToolManager) -> None:
    generator = pytest.importorskip("pydantic_ai.models.test")
    accepted = total = 0
    for tool in served.tools():
        listed = tool_wire(tool, strict=True)["inputSchema"]
        calls = [generator._JsonSchemaTestData(listed, seed).generate() for seed in range(3)]
        results = await outcomes(served, tool.name, calls)
        ok = sum(not refused(result) for result in results)
        print(f"TestModel: {tool.name} {ok} of {len(results)} accepted")
        accepted, total = accepted + ok, total + len(results)
    print(f"TestModel: {accepted} of {total} accepted")
    if accepted < GOAL * total:
        pytest.xfail(f"issue 31 goal 2 not reached: TestModel {accepted} of {total} accepted")
