"""`agent_result_to_json`: the exact, never-raising projection of a settled agent result."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pytest

from orkestrel.agent import AgentResult, agent_result_to_json
from orkestrel.contract import parse_json_value


def test_an_agent_result_projects_exactly() -> None:
    assert agent_result_to_json(AgentResult("Looks good.")) == {
        "content": "Looks good.",
        "partial": False,
    }
    full = AgentResult("x", True, "why", {"prompt": 1, "completion": 2.5, "total": -3})
    projected = agent_result_to_json(full)
    assert projected == {
        "content": "x",
        "thinking": "why",
        "usage": {"prompt": 1, "completion": 2.5, "total": -3},
        "partial": True,
    }
    assert parse_json_value(projected) is projected


def test_mappings_and_look_alikes_project_and_extra_fields_are_dropped() -> None:
    @dataclass
    class Alike:
        content: str
        partial: bool
        secret: str = "dropped"

    assert agent_result_to_json(Alike("a", False)) == {"content": "a", "partial": False}
    mapping = {"content": "b", "partial": True, "thinking": None, "usage": None, "extra": 1}
    assert agent_result_to_json(mapping) == {"content": "b", "partial": True}


def test_every_field_is_read_once() -> None:
    reads: list[str] = []

    class Counting:
        def __getattr__(self, name: str) -> Any:
            reads.append(name)
            return {"content": "c", "partial": False}.get(name)

    assert agent_result_to_json(Counting()) == {"content": "c", "partial": False}
    assert sorted(reads) == ["content", "partial", "thinking", "usage"]


class Raising:
    @property
    def content(self) -> str:
        raise RuntimeError("no")


@pytest.mark.parametrize(
    "value",
    [
        None,
        42,
        "text",
        Raising(),
        {"content": 1, "partial": False},
        {"content": "x", "partial": 0},
        {"content": "x", "partial": "false"},
        {"content": "x", "partial": False, "thinking": 3},
        {"content": "x", "partial": False, "usage": {"prompt": True, "completion": 1, "total": 1}},
        {
            "content": "x",
            "partial": False,
            "usage": {"prompt": math.nan, "completion": 1, "total": 1},
        },
        {"content": "x", "partial": False, "usage": {"prompt": 1, "completion": 1}},
        {"content": "x", "partial": False, "usage": [1, 2, 3]},
    ],
)
def test_anything_else_is_none(value: Any) -> None:
    assert agent_result_to_json(value) is None


def test_subclassed_text_is_refused_and_counts_are_made_plain() -> None:
    class Text(str):
        pass

    assert agent_result_to_json({"content": Text("x"), "partial": False}) is None

    class Count(int):
        pass

    projected = agent_result_to_json(
        {
            "content": "x",
            "partial": False,
            "usage": {"prompt": Count(1), "completion": 2, "total": 3},
        }
    )
    assert projected is not None
    assert type(projected["usage"]["prompt"]) is int
