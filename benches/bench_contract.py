"""Per-call cost of `Contract.is_valid` and `Contract.parse` against the validators users would
otherwise pick: jsonschema-rs, fastjsonschema, jsonschema (Draft 2020-12) on the schema the
contract emits, and a pydantic `TypeAdapter` over an equivalent TypedDict.

Run: `pytest benches/bench_contract.py` (from the repo root, with a release build installed).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Annotated, Any, Literal, NotRequired

import fastjsonschema
import jsonschema
import jsonschema_rs
import msgspec
import pytest
from pydantic import ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from orkestrel.contract import (
    ParseError,
    array_shape,
    boolean_shape,
    create_contract,
    integer_shape,
    json_shape,
    literal_shape,
    nullable_shape,
    number_shape,
    object_shape,
    optional_shape,
    record_shape,
    string_shape,
)

TOOL = create_contract(
    object_shape(
        {
            "query": string_shape(min=1, max=200),
            "limit": integer_shape(min=1, max=100),
            "offset": integer_shape(min=0),
            "mode": literal_shape(["fast", "exact", "fuzzy"]),
            "tags": array_shape(string_shape(), max=10),
            "include_archived": boolean_shape(),
            "filters": object_shape(
                {
                    "owner": string_shape(),
                    "created_after": string_shape(),
                    "min_score": number_shape(min=0, max=1),
                }
            ),
            "cursor": optional_shape(string_shape()),
        }
    )
)
TOOL_VALID = {
    "query": "release notes",
    "limit": 20,
    "offset": 0,
    "mode": "fast",
    "tags": ["docs", "api", "v2"],
    "include_archived": False,
    "filters": {"owner": "ada", "created_after": "2024-01-01", "min_score": 0.5},
    "cursor": "c-42",
}
TOOL_INVALID = {**TOOL_VALID, "limit": 500, "mode": "slow", "tags": ["docs", 7]}

EVENT = create_contract(
    object_shape(
        {
            "id": string_shape(pattern="^[0-9a-f-]{36}$"),
            "type": literal_shape(["created", "updated", "deleted"]),
            "timestamp": number_shape(min=0),
            "actor": object_shape(
                {
                    "id": integer_shape(),
                    "name": string_shape(),
                    "roles": array_shape(literal_shape(["admin", "user", "guest"])),
                }
            ),
            "payload": object_shape(
                {
                    "before": nullable_shape(record_shape(json_shape())),
                    "after": nullable_shape(record_shape(json_shape())),
                    "changes": array_shape(
                        object_shape(
                            {
                                "path": string_shape(),
                                "op": literal_shape(["add", "remove", "replace"]),
                                "value": optional_shape(json_shape()),
                            }
                        )
                    ),
                }
            ),
            "meta": optional_shape(record_shape(string_shape())),
        }
    )
)
EVENT_VALID = {
    "id": "9b2e8f14-3c7a-4d21-9f6e-2a1b8c4d5e6f",
    "type": "updated",
    "timestamp": 1718000000.25,
    "actor": {"id": 7, "name": "Ada", "roles": ["admin", "user"]},
    "payload": {
        "before": {"title": "Draft", "tags": ["a"], "size": 3},
        "after": {"title": "Final", "tags": ["a", "b"], "size": 4},
        "changes": [
            {"path": "/title", "op": "replace", "value": "Final"},
            {"path": "/tags/1", "op": "add", "value": "b"},
            {"path": "/size", "op": "replace", "value": 4},
        ],
    },
    "meta": {"source": "api", "trace": "t-1"},
}
EVENT_INVALID = copy.deepcopy(EVENT_VALID)
EVENT_INVALID["actor"]["roles"] = ["root"]
EVENT_INVALID["payload"]["changes"][1]["op"] = "move"


class Filters(TypedDict):
    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    owner: str
    created_after: str
    min_score: Annotated[float, Field(ge=0, le=1)]


class ToolArgs(TypedDict):
    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    query: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    limit: Annotated[int, Field(ge=1, le=100)]
    offset: Annotated[int, Field(ge=0)]
    mode: Literal["fast", "exact", "fuzzy"]
    tags: Annotated[list[str], Field(max_length=10)]
    include_archived: bool
    filters: Filters
    cursor: NotRequired[str]


class Actor(TypedDict):
    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    id: int
    name: str
    roles: list[Literal["admin", "user", "guest"]]


class Change(TypedDict):
    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    path: str
    op: Literal["add", "remove", "replace"]
    value: NotRequired[Any]


class Payload(TypedDict):
    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    changes: list[Change]


class Event(TypedDict):
    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    id: Annotated[str, StringConstraints(pattern="^[0-9a-f-]{36}$")]
    type: Literal["created", "updated", "deleted"]
    timestamp: Annotated[float, Field(ge=0)]
    actor: Actor
    payload: Payload
    meta: NotRequired[dict[str, str]]


# msgspec's fastest door: `msgspec.convert(value, Struct, strict=False)` (lax: numeric and
# boolean strings coerce, unknown keys are dropped, as `parse` does).
_M = msgspec.Meta


class MFilters(msgspec.Struct):
    owner: str
    created_after: str
    min_score: Annotated[float, _M(ge=0, le=1)]


class MToolArgs(msgspec.Struct):
    query: Annotated[str, _M(min_length=1, max_length=200)]
    limit: Annotated[int, _M(ge=1, le=100)]
    offset: Annotated[int, _M(ge=0)]
    mode: Literal["fast", "exact", "fuzzy"]
    tags: Annotated[list[str], _M(max_length=10)]
    include_archived: bool
    filters: MFilters
    cursor: str | msgspec.UnsetType = msgspec.UNSET


class MActor(msgspec.Struct):
    id: int
    name: str
    roles: list[Literal["admin", "user", "guest"]]


class MChange(msgspec.Struct):
    path: str
    op: Literal["add", "remove", "replace"]
    value: Any = msgspec.UNSET


class MPayload(msgspec.Struct):
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    changes: list[MChange]


class MEvent(msgspec.Struct):
    id: Annotated[str, _M(pattern="^[0-9a-f-]{36}$")]
    type: Literal["created", "updated", "deleted"]
    timestamp: Annotated[float, _M(ge=0)]
    actor: MActor
    payload: MPayload
    meta: dict[str, str] | msgspec.UnsetType = msgspec.UNSET


MSGSPEC: dict[str, type[msgspec.Struct]] = {"tool": MToolArgs, "event": MEvent}
"""The msgspec Struct of each input, for `msgspec.convert`."""

# Valid only after coercion: numbers and booleans sent as strings, as models often send them.
COERCIBLE: dict[str, Any] = {
    "tool": {
        **TOOL_VALID,
        "limit": "20",
        "offset": "0",
        "include_archived": "false",
        "filters": {**TOOL_VALID["filters"], "min_score": "0.5"},  # type: ignore[dict-item]
    },
    "event": {
        **EVENT_VALID,
        "timestamp": "1718000000.25",
        "actor": {**EVENT_VALID["actor"], "id": "7"},  # type: ignore[dict-item]
    },
}

INPUTS = {
    "tool": (TOOL, ToolArgs, TOOL_VALID, TOOL_INVALID),
    "event": (EVENT, Event, EVENT_VALID, EVENT_INVALID),
}


def _raises(
    call: Callable[[Any], Any], errors: type[BaseException] | tuple[type[BaseException], ...]
) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        try:
            call(value)
        except errors:
            return False
        return True

    return check


def guards(name: str) -> dict[str, Callable[[Any], bool]]:
    """`value -> bool` for every implementation, on the same declaration."""
    contract, typed, _, _ = INPUTS[name]
    schema = contract.schema
    adapter = TypeAdapter(typed)
    return {
        "orkestrel": contract.is_valid,
        "jsonschema_rs": jsonschema_rs.validator_for(schema).is_valid,
        "fastjsonschema": _raises(
            fastjsonschema.compile(schema), fastjsonschema.JsonSchemaException
        ),
        "jsonschema": jsonschema.Draft202012Validator(schema).is_valid,
        "pydantic_strict": _raises(
            lambda v: adapter.validate_python(v, strict=True), ValidationError
        ),
    }


def parsers(name: str) -> dict[str, Callable[[Any], Any]]:
    """Validate-or-raise doors: the coercing parsers, and each JSON Schema library's own
    raising `validate` (which builds its error report) on the same schema."""
    contract, typed, _, _ = INPUTS[name]
    schema = contract.schema
    return {
        "orkestrel": contract.parse,
        "pydantic": TypeAdapter(typed).validate_python,
        "jsonschema_rs": jsonschema_rs.validator_for(schema).validate,
        "fastjsonschema": fastjsonschema.compile(schema),
        "jsonschema": jsonschema.Draft202012Validator(schema).validate,
    }


FAILURES = (
    ParseError,
    ValidationError,
    jsonschema.ValidationError,
    jsonschema_rs.ValidationError,
    fastjsonschema.JsonSchemaException,
)


GUARD_CASES = [
    (name, validity, impl)
    for name in INPUTS
    for validity in ("valid", "invalid")
    for impl in ("orkestrel", "jsonschema_rs", "fastjsonschema", "jsonschema", "pydantic_strict")
]
PARSE_CASES = [
    (name, validity, impl)
    for name in INPUTS
    for validity in ("valid", "invalid")
    for impl in ("orkestrel", "pydantic", "jsonschema_rs", "fastjsonschema", "jsonschema")
]


@pytest.mark.parametrize(("name", "validity", "impl"), GUARD_CASES)
def bench_is_valid(benchmark: Any, name: str, validity: str, impl: str) -> None:
    benchmark.group = f"is_valid {name} {validity}"
    _, _, good, bad = INPUTS[name]
    value = good if validity == "valid" else bad
    guard = guards(name)[impl]
    assert guard(value) is (validity == "valid")
    assert benchmark(guard, value) is (validity == "valid")


@pytest.mark.parametrize(("name", "validity", "impl"), PARSE_CASES)
def bench_parse(benchmark: Any, name: str, validity: str, impl: str) -> None:
    benchmark.group = f"parse {name} {validity}"
    _, _, good, bad = INPUTS[name]
    value = good if validity == "valid" else bad
    parse = parsers(name)[impl]
    if impl in ("orkestrel", "pydantic") and validity == "valid":
        assert parse(value) == value
    check = _raises(parse, FAILURES)
    assert check(value) is (validity == "valid")
    assert benchmark(check, value) is (validity == "valid")
