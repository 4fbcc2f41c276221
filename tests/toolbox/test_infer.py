"""The infer tool: schemas from example values, and strict versus coercible candidate checks."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.tool import ToolContext, ToolManager
from orkestrel.toolbox import (
    INFER_TOOL_NAME,
    INFER_TOOL_PROGRESS_SAMPLES,
    ToolboxError,
    create_infer_tool,
)
from support.progress import Listener

pytestmark = pytest.mark.anyio

ID_NAME = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
    "required": ["id", "name"],
    "additionalProperties": False,
}


async def run(arguments: Any) -> Any:
    tools = ToolManager()
    tools.add(create_infer_tool())
    result = await tools.execute({"id": "call", "name": INFER_TOOL_NAME, "arguments": arguments})
    assert result["success"], result
    return result["value"]  # type: ignore[typeddict-item]


async def test_infers_the_seed_example() -> None:
    assert await run({"samples": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}]}) == ID_NAME


async def test_checks_candidates_strictly_and_after_coercion() -> None:
    value = await run(
        {
            "samples": [{"id": 1, "name": "Ada"}],
            "candidates": [
                {"id": 2, "name": "Bob"},
                {"id": "x", "name": "Cy"},
                {"id": 1, "name": 7},
            ],
        }
    )
    assert value == {
        "parameters": ID_NAME,
        "checks": [
            {"index": 0, "valid": True, "coercible": True},
            {
                "index": 1,
                "valid": False,
                "coercible": False,
                "faults": [
                    {"reason": "type", "path": ["id"], "expected": "integer", "received": '"x"'}
                ],
            },
            {"index": 2, "valid": False, "coercible": True, "faults": []},
        ],
    }


async def test_missing_keys_and_extra_keys() -> None:
    value = await run(
        {
            "samples": [{"id": 1, "name": "Ada"}],
            "candidates": [{"id": 1}, {"id": 1, "name": "A", "extra": True}],
        }
    )
    assert value["checks"] == [
        {
            "index": 0,
            "valid": False,
            "coercible": False,
            "faults": [{"reason": "missing", "path": ["name"], "expected": "string"}],
        },
        {"index": 1, "valid": False, "coercible": True, "faults": []},
    ]


async def test_scalars_are_wrapped_and_options_apply() -> None:
    assert await run({"samples": [1, 2, 3]}) == {
        "type": "object",
        "properties": {"value": {"type": "integer"}},
        "required": ["value"],
        "additionalProperties": False,
    }
    formatted = await run(
        {"samples": [{"mail": "ada@example.com", "at": "2024-01-01T00:00:00Z"}], "format": True}
    )
    assert formatted["properties"] == {
        "at": {"type": "string", "format": "date-time"},
        "mail": {"type": "string", "format": "email"},
    }
    colours = await run({"samples": ["red", "red", "blue"], "enum": True})
    assert colours["properties"]["value"] == {"enum": ["blue", "red"]}
    rows = await run({"samples": [{"a": 1}, {"a": 1.5, "b": None}]})
    assert rows["properties"] == {"a": {"type": "number"}, "b": {"type": "null"}}
    assert rows["required"] == ["a"]


async def test_an_unknown_argument_is_refused_with_the_nearest_name() -> None:
    with pytest.raises(ToolboxError) as caught:
        await create_infer_tool().execute({"samples": [{"id": 1, "name": "Ada"}], "formt": True})
    assert (caught.value.code, str(caught.value)) == (
        "TOOL",
        'malformed infer arguments: unknown argument "formt" (did you mean format?)',
    )


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"samples": []},
        {"samples": "x"},
        {"samples": [1], "candidates": 5},
        {"samples": [float("nan")]},
        {"samples": [{1, 2}]},
        {"samples": [1], "format": "yes"},
        None,
    ],
)
async def test_malformed_arguments_are_typed_errors(arguments: Any) -> None:
    tool = create_infer_tool()
    with pytest.raises(ToolboxError, match="malformed infer arguments") as caught:
        await tool.execute(arguments)
    assert caught.value.code == "TOOL"


async def test_hostile_candidates_get_bounded_verdicts() -> None:
    deep: Any = 0
    for _ in range(10_000):
        deep = [deep]
    proto = {"__proto__": {"polluted": True}, "id": 1, "name": "x"}
    huge = list(range(100_000))
    value = await run({"samples": [{"id": 1, "name": "Ada"}], "candidates": [deep, proto, huge]})
    deep_check, proto_check, huge_check = value["checks"]
    assert deep_check["valid"] is False
    assert deep_check["coercible"] is False
    assert 0 < len(deep_check["faults"]) <= 64
    assert proto_check == {"index": 1, "valid": False, "coercible": True, "faults": []}
    assert huge_check["faults"] == [
        {"reason": "type", "path": [], "expected": "object", "received": "array"}
    ]


async def test_name_and_description_can_be_overridden() -> None:
    tool = create_infer_tool(name="schema", description="Custom text.")
    assert (tool.name, tool.description) == ("schema", "Custom text.")
    assert tool.summary is not None


def varied(count: int) -> list[Any]:
    """Samples of mixed kinds and optional keys, so a step-by-step inference has to merge."""
    kinds: list[Any] = [
        {"id": 1, "email": "a@b.co", "tags": ["x"]},
        {"id": 2.5, "when": "2024-02-29", "tags": []},
        {"id": "3", "nested": {"deep": [1, None]}},
        "plain",
        None,
    ]
    return [kinds[index % len(kinds)] for index in range(count)]


async def test_a_large_inference_reports_its_steps_and_answers_as_one_call_would() -> None:
    samples = varied(INFER_TOOL_PROGRESS_SAMPLES * 2 + 3)
    candidates = varied(INFER_TOOL_PROGRESS_SAMPLES + 1)
    arguments = {"samples": samples, "candidates": candidates, "format": True, "enum": True}
    listener = Listener()
    tool = create_infer_tool()
    heard = await tool.execute(arguments, listener)
    alone = await tool.execute(arguments)
    assert heard == alone
    total = len(samples) + len(candidates)
    done = [report[0] for report in listener.reports]
    assert done == sorted(set(done))
    assert done[-1] == total
    assert {report[1] for report in listener.reports} == {total}
    last = listener.reports[-1][2]
    assert last == (
        f"infer: {len(samples)} of {len(samples)} samples read, "
        f"{len(candidates)} of {len(candidates)} candidates checked"
    )


async def test_a_small_inference_or_one_nobody_listens_to_is_not_counted() -> None:
    listener = Listener()
    tool = create_infer_tool()
    await tool.execute({"samples": varied(INFER_TOOL_PROGRESS_SAMPLES)}, listener)
    await tool.execute({"samples": varied(INFER_TOOL_PROGRESS_SAMPLES + 1)}, ToolContext())
    assert listener.reports == []
