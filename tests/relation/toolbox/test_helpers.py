"""The relation tool's pure helpers: include expansion, manager and model resolution, and the
error classifier."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.database import DatabaseError, create_database
from orkestrel.relation import RelationError, create_relation_manager, has_many
from orkestrel.toolbox import (
    ToolboxError,
    expand_include,
    infer_relation_code,
    resolve_relation_manager,
    resolve_relation_model,
)


def test_expand_include_builds_the_tree() -> None:
    assert expand_include(["contacts"], 3) == {"contacts": True}
    assert expand_include(["contacts.account"], 3) == {"contacts": {"account": True}}
    assert expand_include(["contacts", "contacts.account"], 3) == {"contacts": {"account": True}}
    assert expand_include(["contacts.account", "contacts"], 3) == {"contacts": {"account": True}}
    assert expand_include(["a.b", "a.c"], 3) == {"a": {"b": True, "c": True}}
    assert expand_include(["a.b.c", "a", "a.b", "d"], 3) == {"a": {"b": {"c": True}}, "d": True}
    assert expand_include(["b", "a"], 1) == {"b": True, "a": True}
    assert expand_include(None, 3) == expand_include([], 3) == {}
    assert expand_include([], 0) == {}


@pytest.mark.parametrize(
    ("path", "depth"),
    [
        ("a.b.c.d", 3),
        ("a", 0),
        ("", 3),
        (".a", 3),
        ("a.", 3),
        ("a..b", 3),
        (".", 3),
    ],
)
def test_expand_include_refuses_malformed_paths(path: str, depth: int) -> None:
    with pytest.raises(ToolboxError) as caught:
        expand_include(["ok", path] if depth else [path], depth)
    assert caught.value.code == "TOOL"
    assert caught.value.message == f"malformed include path '{path}'"
    assert caught.value.context == {"path": path, "depth": depth}


def test_a_huge_path_is_refused_with_a_short_message() -> None:
    path = ".".join(["contacts"] * 10_000)
    with pytest.raises(ToolboxError) as caught:
        expand_include([path], 3)
    assert len(caught.value.message) < 300
    assert caught.value.context is not None
    assert len(caught.value.context["path"]) < 300


def test_infer_relation_code() -> None:
    assert infer_relation_code(RelationError("UNKNOWN_RELATION", "unknown relation")) == (
        "UNKNOWN_RELATION"
    )
    assert infer_relation_code(ValueError("other")) is None
    assert infer_relation_code(DatabaseError("NOT_FOUND", "x")) is None
    assert infer_relation_code(RelationError("MADE_UP", "x")) is None  # type: ignore[arg-type]


def managers() -> tuple[Any, Any]:
    db = create_database(tables={"accounts": {"name": "string"}, "contacts": {"a": "string"}})
    relations: Any = {"accounts": {"contacts": has_many("a")}, "contacts": {}}
    first = create_relation_manager(database=db, relations=relations)
    second = create_relation_manager(database=db, relations={"accounts": {}})
    return first, second


def test_resolve_relation_manager() -> None:
    shop, other = managers()
    assert resolve_relation_manager({"shop": shop}, None) is shop
    assert resolve_relation_manager({"a": shop, "b": other}, "b") is other
    with pytest.raises(ToolboxError) as caught:
        resolve_relation_manager({"a": shop, "b": other}, None)
    assert (caught.value.code, caught.value.message) == (
        "TOOL",
        "no relation manager resolved for the call",
    )
    assert caught.value.context == {"managers": ["a", "b"]}
    with pytest.raises(ToolboxError) as caught:
        resolve_relation_manager({"shop": shop}, "other")
    assert caught.value.message == "unknown relation manager 'other'"
    assert caught.value.context == {"manager": "other", "managers": ["shop"]}
    with pytest.raises(ToolboxError):
        resolve_relation_manager({}, None)


def test_resolve_relation_model() -> None:
    shop, _ = managers()
    assert resolve_relation_model(shop, "accounts").name == "accounts"
    with pytest.raises(ToolboxError) as caught:
        resolve_relation_model(shop, "ghost")
    assert caught.value.message == "unknown model 'ghost'"
    assert caught.value.context == {"model": "ghost", "models": ["accounts", "contacts"]}
