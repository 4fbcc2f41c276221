"""Every `infer` conformance case (and the inferred half of every `loop` case), through each
entry point: `samples_to_schema`, `SchemaBuilder` (split and merged), JSON Lines and JSON text."""

from __future__ import annotations

import json
import pickle
import random
from typing import Any

import pytest

from orkestrel.contract import SchemaBuilder, infer_json, infer_json_lines, samples_to_schema

from .conftest import infer_cases, same_json

CASES = infer_cases()
IDS = [case[0] for case in CASES]


def test_the_case_file_holds_every_infer_and_loop_case() -> None:
    assert len(CASES) == 405


@pytest.mark.parametrize(("case_id", "samples", "options", "expected"), CASES, ids=IDS)
def test_samples_to_schema(
    case_id: str, samples: list[Any], options: dict[str, bool], expected: Any
) -> None:
    assert same_json(samples_to_schema(samples, **options), expected), case_id


@pytest.mark.parametrize(("case_id", "samples", "options", "expected"), CASES, ids=IDS)
def test_split_builders_merge_to_the_same_schema(
    case_id: str, samples: list[Any], options: dict[str, bool], expected: Any
) -> None:
    rng = random.Random(case_id)
    parts = [SchemaBuilder(**options) for _ in range(rng.randint(1, 4))]
    for sample in samples:
        rng.choice(parts).add(sample)
    parts = [pickle.loads(pickle.dumps(part)) for part in parts]
    rng.shuffle(parts)
    total = parts[0]
    for part in parts[1:]:
        total.merge(part)
    assert total.samples == len(samples)
    assert same_json(total.to_schema(), expected), case_id


@pytest.mark.parametrize(("case_id", "samples", "options", "expected"), CASES, ids=IDS)
def test_json_lines_and_json_text(
    case_id: str, samples: list[Any], options: dict[str, bool], expected: Any
) -> None:
    text = "".join(json.dumps(sample) + "\n" for sample in samples).encode()
    assert same_json(infer_json_lines(text, **options), expected), case_id
    if len(samples) == 1:
        assert same_json(infer_json(json.dumps(samples[0], indent=2), **options), expected)
