"""The output schema a built-in tool advertises is the shape its handler really answers: each
answer, straight from the handler and before any projection, validates against
`output_schema(tool)`, whose objects are closed, so a handler that adds, drops or retypes a key
without its declared type fails here."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from orkestrel.mcp.helpers import output_schema
from orkestrel.tool import ToolInterface
from orkestrel.toolbox import create_infer_tool, create_workflow_tool
from orkestrel.workflow import MemoryWorkflowStore, WorkflowSnapshot, create_workflow_runner

pytestmark = pytest.mark.anyio

RELEASE = {"id": "release", "name": "Release", "phases": []}
SAMPLES: list[list[Any]] = [
    [{"id": 1, "tag": "a"}, {"id": 2}],
    [{"a": {"b": [1, 2], "c": None}}, {"a": {"b": []}}],
    [{}],
    [1, "two", 3.5],
    [[1, 2], [3]],
    [None],
    [{"when": "2025-01-31", "at": "10:00:00", "mail": "ada@example.com"}],
]


def validator(tool: ToolInterface) -> Draft202012Validator:
    schema = output_schema(tool)
    assert schema is not None
    assert schema["type"] == "object"
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def faults(check: Draft202012Validator, value: Any) -> list[str]:
    return [error.message for error in check.iter_errors(value)]


async def test_every_infer_answer_is_its_advertised_shape() -> None:
    tool = create_infer_tool()
    check = validator(tool)
    answers = []
    for samples in SAMPLES:
        for options in ({}, {"format": True, "enum": True}, {"candidates": [*samples, {"x": 1}]}):
            answers.append(await tool.execute({"samples": samples, **options}))
    assert [faults(check, answer) for answer in answers] == [[]] * len(answers)


async def test_every_workflow_answer_is_its_advertised_shape() -> None:
    def fails(args: Any) -> Any:
        raise ValueError("no " * 400)

    store = MemoryWorkflowStore()
    functions = {"ok": lambda args: {"done": True}, "fails": fails, "big": lambda args: "x" * 64}
    tool = create_workflow_tool(
        RELEASE, create_workflow_runner(max_answer_bytes=100), functions=functions, store=store
    )
    ok, bad, big = {"name": "ok"}, {"name": "fails"}, {"name": "big"}

    class Broken(MemoryWorkflowStore):
        async def set(self, snapshot: WorkflowSnapshot) -> None:
            raise OSError("read-only file system")

    unkept = create_workflow_tool(
        RELEASE, create_workflow_runner(), functions=functions, store=Broken()
    )
    answers = [
        await tool.execute({}),
        await tool.execute({"name": "fine", "steps": [ok, ok]}),
        await tool.execute({"name": "broken", "steps": [bad, *[ok] * 3, *[bad] * 30]}),
        await tool.execute({"name": "bailed", "bail": True, "steps": [bad, ok]}),
        await tool.execute({"name": "over", "steps": [big, big, ok]}),
        await tool.execute({"run": "fine"}),
        await tool.execute({"run": "broken", "offset": 2, "limit": 5}),
        await tool.execute({"run": "bailed"}),
        await tool.execute({"run": "over"}),
        await unkept.execute({"steps": [ok]}),
    ]
    check = validator(tool)
    assert [faults(check, answer) for answer in answers] == [[]] * len(answers)
    assert {"failures", "more"} <= set(answers[2])
    assert "fault" in answers[4]
    assert "fault" in answers[-1]
    assert "error" in answers[6]["tasks"][-1]


async def test_an_answer_that_leaves_its_declared_type_fails_the_check() -> None:
    check = validator(create_workflow_tool(RELEASE, create_workflow_runner()))
    summary = {"status": "completed", "count": 1}
    assert faults(check, summary) == []
    assert faults(check, {**summary, "extra": 1}) != []
    assert faults(check, {"status": "completed"}) != []
    assert faults(check, {**summary, "count": "1"}) != []
    page = {"run": "r", "status": "failed", "total": 1, "offset": 0, "tasks": []}
    assert faults(check, page) == []
    assert faults(check, {**page, "tasks": [{"task": "t", "phase": "p", "status": "?"}]}) != []
