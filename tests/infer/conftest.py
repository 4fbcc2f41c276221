"""Shared helpers for the inference tests: the conformance cases and JSON comparison."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

CONFORMANCE = Path(__file__).resolve().parent.parent / "conformance" / "contract"


def same_json(left: Any, right: Any) -> bool:
    """Compares as the conformance rules say: dict order ignored, list order kept, numbers by
    value, and a bool never equal to a number."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_json(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_json, left, right))
    return type(left) is type(right) and left == right


def infer_cases() -> list[tuple[str, list[Any], dict[str, bool], Any]]:
    """Every `infer` case, and every `loop` case's `inferred` schema, with its expected result."""
    cases = (CONFORMANCE / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    answers = (CONFORMANCE / "expected.jsonl").read_text(encoding="utf-8").splitlines()
    out = []
    for case_line, answer_line in zip(cases, answers, strict=True):
        case, answer = json.loads(case_line), json.loads(answer_line)
        assert case["id"] == answer["id"]
        if case["op"] == "infer":
            expected = answer["result"]
        elif case["op"] == "loop":
            expected = answer["result"]["inferred"]
        else:
            continue
        out.append((case["id"], case["samples"], case.get("options") or {}, expected))
    return out


@pytest.fixture(scope="session")
def cases() -> list[tuple[str, list[Any], dict[str, bool], Any]]:
    """The inference conformance cases."""
    return infer_cases()
