"""genson's own tests (vendored in tests/genson_suite) run against the merging mode: every
sample validates and every value genson's schema accepts is accepted. Also the same law over
generated samples against the installed genson, and genson's command-line tests ported to
`orkestrel infer --merge`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from genson import SchemaBuilder as GensonBuilder
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from support.genson_suite import UPSTREAM, merged, subsumes, upstream_cases

FIXTURES = UPSTREAM / "fixtures"

# pytest runs these unittest classes: genson's test methods with its `base` replaced.
globals().update(upstream_cases())


def test_every_schema_test_module_is_loaded() -> None:
    names = upstream_cases()
    assert len(names) == 16
    methods = sum(1 for cls in names.values() for attr in vars(cls) if attr.startswith("test_"))
    assert methods == 61


@pytest.mark.parametrize(
    ("ours", "theirs", "holds"),
    [
        ({}, {"type": "string"}, True),
        ({"type": "number"}, {"type": "integer"}, True),
        ({"type": "integer"}, {"type": "number"}, False),
        (
            {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            {"type": ["integer", "string"]},
            True,
        ),
        ({"type": "string"}, {"type": ["integer", "string"]}, False),
        ({"type": "string"}, {}, False),
        ({"type": "array"}, {"type": "array", "items": {"type": "null"}}, True),
        ({"type": "array", "items": {"type": "null"}}, {"type": "array"}, False),
        (
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            True,
        ),
        (
            {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            False,
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "integer"}},
                "additionalProperties": False,
            },
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            False,
        ),
        (
            {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "null"}}},
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            False,
        ),
        ({"type": "string", "format": "uuid"}, {"type": "string"}, False),
    ],
)
def test_the_inclusion_check_proves_only_what_holds(ours: Any, theirs: Any, holds: bool) -> None:
    assert subsumes(ours, theirs) is holds


_KEYS = st.sampled_from(["a", "b", "c", "id", "tags"])
# Whole floats (2.0) are left out: they infer `integer` here and `number` in genson, a documented
# difference (the contract guide's "Infer as genson does").
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(-2, 2).filter(lambda x: x != int(x))
    | st.sampled_from(["x", "y"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


@given(st.lists(_JSON, min_size=1, max_size=6))
def test_generated_samples_give_a_schema_accepting_all_genson_accepts(samples: list[Any]) -> None:
    genson = GensonBuilder(schema_uri=None)
    for sample in samples:
        genson.add_object(sample)
    theirs = genson.to_schema()
    ours = merged(samples, closed=False)
    assert subsumes(ours, theirs), f"ours {ours}\ngenson {theirs}"
    closed = merged(samples, closed=True)
    for sample in samples:
        Draft202012Validator(closed).validate(sample)


def orkestrel(*args: str | Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "orkestrel", "infer", "--merge", *map(str, args)],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )


def schema_of(done: subprocess.CompletedProcess[bytes]) -> Any:
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    return json.loads(done.stdout)


HI = {"type": ["integer", "string"]}
"""genson's schema of `hi` in its delimiter tests."""


# genson's test_bin.TestDelimiter: -d newline and -d '' (whitespace or nothing between values).
@pytest.mark.parametrize(
    "text",
    [b'{"hi":"there"}\n{"hi":5}', b'{"hi":"there"}{"hi":5}', b'{"hi":"there"} \n\t{"hi":5}'],
)
def test_values_one_after_another_are_samples(text: bytes) -> None:
    got = schema_of(orkestrel("-", stdin=text))
    assert got == {
        "type": "object",
        "properties": {"hi": {"anyOf": [{"type": "integer"}, {"type": "string"}]}},
        "required": ["hi"],
        "additionalProperties": False,
    }
    assert subsumes(got["properties"]["hi"], HI)


def test_pretty_printed_values_one_after_another_are_samples(tmp_path: Path) -> None:
    path = tmp_path / "values.json"
    path.write_text('{\n  "a": 1\n}\n{\n  "a": 2,\n  "b": [{"x": 1}, {"y": "s"}]\n}[1]\n')
    got = schema_of(orkestrel(path))
    items = {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "y": {"type": "string"}},
        "additionalProperties": False,
    }
    assert got == {
        "anyOf": [
            {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "array", "items": items}},
                "required": ["a"],
                "additionalProperties": False,
            },
            {"type": "array", "items": {"type": "integer"}},
        ]
    }


def test_a_json_lines_file_with_two_values_on_a_line_reads_as_values(tmp_path: Path) -> None:
    path = tmp_path / "lines.jsonl"
    path.write_text('{"a": 1}\n{"a": 2}{"a": "s", "b": null}\n{"a": 3}\n')
    got = schema_of(orkestrel(path))
    assert got["properties"] == {
        "a": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "b": {"type": "null"},
    }
    assert got["required"] == ["a"]


def test_a_bad_value_after_good_ones_is_placed_in_the_whole_input() -> None:
    done = orkestrel("-", stdin=b'{"a": 1}{"a": 2}\n  {"a": tru}')
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode() == "orkestrel infer: -: line 2 column 9: unexpected character\n"


# genson's test_bin.TestEncoding.
@pytest.mark.parametrize(("name", "encoding"), [("utf-8.json", "utf-8"), ("cp1252.json", "cp1252")])
def test_the_encoding_option_reads_genson_fixtures(name: str, encoding: str) -> None:
    assert schema_of(orkestrel("--encoding", encoding, FIXTURES / name)) == {"type": "string"}


def test_cp1252_text_read_as_utf8_is_refused_with_the_file_named() -> None:
    done = orkestrel(FIXTURES / "cp1252.json")
    assert done.returncode == 1
    assert done.stderr.decode().startswith(f"orkestrel infer: {FIXTURES / 'cp1252.json'}: ")


def test_an_encoding_applies_to_json_lines_from_stdin() -> None:
    text = '{"name": "Zoë"}\n{"name": "Øyvind", "age": 30}\n'.encode("utf-16")
    got = schema_of(orkestrel("--encoding", "utf-16", "-", stdin=text))
    assert got["properties"] == {"age": {"type": "integer"}, "name": {"type": "string"}}
    assert got["required"] == ["name"]


def test_text_not_in_the_encoding_is_a_one_line_error() -> None:
    done = orkestrel("--encoding", "ascii", "-", stdin='{"a": "é"}'.encode())
    assert done.returncode == 1
    assert done.stderr.decode() == "orkestrel infer: -: not ascii text: ordinal not in range(128)\n"


def test_an_unknown_encoding_is_a_usage_error() -> None:
    done = orkestrel("--encoding", "klingon", FIXTURES / "utf-8.json")
    assert done.returncode == 2
    assert "unknown encoding: klingon" in done.stderr.decode()


# genson's test_bin.TestBasic and TestError: where orkestrel differs (see the contract guide).
def test_an_empty_object_gives_genson_s_schema_but_open_or_closed() -> None:
    assert schema_of(orkestrel("-", stdin=b"{}")) == {
        "type": "object",
        "additionalProperties": False,
    }


def test_empty_input_is_refused_where_genson_gives_an_empty_schema() -> None:
    done = orkestrel(FIXTURES / "empty.json")
    assert done.returncode == 1
    assert b"no samples to infer a schema from" in done.stderr


def test_input_that_is_not_json_is_refused_with_its_place() -> None:
    done = orkestrel(FIXTURES / "not_json.txt")
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode().startswith(f"orkestrel infer: {FIXTURES / 'not_json.txt'}")
    assert "line 1 column 1" in done.stderr.decode()
