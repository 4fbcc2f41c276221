"""Issue 31's generation law, over the tools `orkestrel serve` builds with every flag and the
input schemas it lists for them (strict, lean):

- every call the handler accepts, in the form strict mode sends, validates against the listed
  schema (100%, a hypothesis law over calls generated from each operation's exact schema);
- values generated from a listed schema (hypothesis-jsonschema, and pydantic-ai's `TestModel`
  generator) are accepted by the handler in at least 95% of cases: measured and printed with
  the causes of every refusal, and not reached by the flat listing (xfail, strict);
- every refusal of a generated value is one of the flat listing's known limits, so a cause the
  listing could state cheaply (a bound, an enum) fails the test instead of hiding in the rate.

"Accepted" means not refused for its shape: the handler's argument-contract refusal (the
`malformed ...` line) counts against it; a success, or a failure about the world the values
name (a tool, table, run or provider that does not exist, a provider that cannot be reached),
counts for it, since generated names cannot exist.
"""

from __future__ import annotations

import io
import re
from collections import Counter
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
FILLERS: tuple[Any, ...] = ("", [], None)
MEASURED = "22.5% (hypothesis-jsonschema), 8 of 21 (TestModel)"

# The flat listing's known limits: what a refusal of a generated value may be about. The flat
# form cannot say which operation takes or needs which field, strict mode has no `minLength`,
# and a JSON text argument takes any string.
FLAT_LIMITS = {
    "another operation's argument": re.compile(r'^"\w+" is an argument of [\w, ]+, not of \w+'),
    "a field its operation needs, sent null": re.compile(r"^[\w/]+: missing "),
    "one key where the listing allows many": re.compile(
        r"^key: (no variant of .* matched|expected string, received array)$"
    ),
    '"" for a name (no minLength in strict mode)': re.compile(
        r'^[\w/]+: min 1 failed for ""( \(\+\d+ more\))?$'
    ),
    "JSON text that is not JSON": re.compile(r'^\w+: expected (array|object), received "'),
    "workflow: one mode's argument in the other": re.compile(r'^unknown argument "\w+" \(known:'),
}


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


def filled(call: Any, exact: dict[str, Any], index: int) -> Any:
    """`call` with each listed field its schema does not take filled with an empty value
    (`""`, `[]` or `null`, in turn), as a strict-mode model may fill the ones it does not use,
    whether the listing allows that value there or not."""
    if not isinstance(call, dict):
        return call
    own = exact.get("properties", {})
    return {
        key: FILLERS[(index + place) % len(FILLERS)] if key not in own and value is None else value
        for place, (key, value) in enumerate(call.items())
    }


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
            calls += [filled(call, schema, index) for index, call in enumerate(calls)]
            for call, result in zip(calls, await outcomes(served, tool.name, calls), strict=True):
                checked += 1
                if refused(result):
                    continue
                accepted += 1
                jsonschema.validate(call, listed)
    print(f"{accepted} of {checked} calls drawn from the exact schemas accepted; all validate")
    assert accepted > checked / 2


def causes(error: str) -> list[str]:
    """The faults of one refusal line, without its `malformed <tool> ...: <operation>:` lead."""
    body = re.sub(r"^malformed [\w-]+ [\w-]+: (?:\w+: (?=[\w/]+: |\"))?", "", error)
    return [fault for fault in re.split(r"; (?=[\w/]+: |\")", body) if fault]


def limit_of(fault: str) -> str | None:
    return next((name for name, shape in FLAT_LIMITS.items() if shape.match(fault)), None)


async def generated_outcomes(
    served: ToolManager,
) -> dict[str, tuple[list[Any], list[dict[str, Any]]]]:
    """Per tool, the hypothesis-jsonschema values and the `TestModel` calls drawn from its
    listed schema, each with its result."""
    generator = pytest.importorskip("pydantic_ai.models.test")
    drawn: dict[str, tuple[list[Any], list[dict[str, Any]]]] = {}
    for tool in served.tools():
        listed = tool_wire(tool, strict=True)["inputSchema"]
        values = draw(from_listed_schema(listed), EXAMPLES)
        made = [generator._JsonSchemaTestData(listed, seed).generate() for seed in range(3)]
        drawn[tool.name] = (values, await outcomes(served, tool.name, values))
        drawn[f"{tool.name} (TestModel)"] = (made, await outcomes(served, tool.name, made))
    return drawn


def report(drawn: dict[str, tuple[list[Any], list[dict[str, Any]]]]) -> tuple[float, int, int]:
    """Prints each tool's acceptance and its refusals' causes; answers hypothesis-jsonschema's
    mean rate over the tools, and `TestModel`'s accepted and total calls."""
    rates: list[float] = []
    made = made_ok = 0
    for name, (_, results) in drawn.items():
        ok = sum(not refused(result) for result in results)
        kinds = Counter(
            limit_of(fault) or fault for r in results if refused(r) for fault in causes(r["error"])
        )
        print(f"{name}: {ok} of {len(results)} accepted; refused for {dict(kinds.most_common())}")
        if name.endswith("(TestModel)"):
            made, made_ok = made + len(results), made_ok + ok
        else:
            rates.append(ok / len(results))
    total = sum(rates) / len(rates)
    print(f"hypothesis-jsonschema: {total:.1%} accepted over {len(rates)} tools")
    print(f"TestModel: {made_ok} of {made} accepted")
    return total, made_ok, made


@pytest.mark.xfail(strict=True, reason=f"issue 31 goal 2 not reached: measured {MEASURED}")
async def test_values_drawn_from_the_listed_schema_are_accepted(served: ToolManager) -> None:
    total, made_ok, made = report(await generated_outcomes(served))
    assert total >= GOAL
    assert made_ok >= GOAL * made


async def test_every_refusal_of_a_generated_value_is_a_known_limit_of_the_flat_listing(
    served: ToolManager,
) -> None:
    unexplained = [
        (name, fault)
        for name, (_, results) in (await generated_outcomes(served)).items()
        for result in results
        if refused(result)
        for fault in causes(result["error"])
        if limit_of(fault) is None
    ]
    assert unexplained == []
