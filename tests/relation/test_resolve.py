"""Define-time resolution: builders, shorthands, inferred kinds, and every map that cannot work
refused with `INVALID` when the manager is built."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from orkestrel.database import Column, DatabaseError, create_database
from orkestrel.relation import (
    RELATION_ERROR_CODES,
    RELATIONSHIPS,
    RelationError,
    ResolvedRelation,
    belongs_to,
    create_relation_manager,
    has_many,
    has_morph,
    has_one,
    has_through,
    is_relation_descriptor,
    is_relation_error,
    resolve_relation,
    resolve_relation_map,
)

from .shop import RELATIONS, TABLES


def test_builders_spell_out_each_kind() -> None:
    assert belongs_to("accountId") == {"relationship": "belongs", "column": "accountId"}
    assert belongs_to("accountId", "accounts")["model"] == "accounts"
    assert has_many("accountId", "contacts") == {
        "relationship": "many",
        "key": "accountId",
        "model": "contacts",
    }
    assert has_one("accountId")["relationship"] == "one"
    assert has_through("j", "s", "t") == {
        "relationship": "through",
        "through": "j",
        "source": "s",
        "target": "t",
    }
    assert has_morph("k", "tag", "post", "notes") == {
        "relationship": "morph",
        "key": "k",
        "tag": "tag",
        "label": "post",
        "model": "notes",
    }
    assert RELATIONSHIPS == ("belongs", "many", "one", "through", "morph")


def test_shorthands_and_inferred_kinds() -> None:
    assert resolve_relation("accounts", "accountId") == ResolvedRelation(
        "belongs", "accounts", "accounts", column="accountId"
    )
    assert resolve_relation("contacts", ["accountId"]) == ResolvedRelation(
        "many", "contacts", "contacts", key="accountId"
    )
    assert resolve_relation("profile", {"key": "accountId", "model": "profiles"}).relationship == (
        "one"
    )
    assert resolve_relation("a", {"column": "x"}).relationship == "belongs"
    assert resolve_relation("n", {"key": "k", "tag": "t", "label": 3}).relationship == "morph"
    assert resolve_relation("r", {"through": "j", "source": "s", "target": "t"}).relationship == (
        "through"
    )
    assert resolve_relation("m", {"relationship": "many", "key": "k"}).relationship == "many"
    resolved = resolve_relation_map({"b": "x", "a": ["y"]})
    assert list(resolved) == ["b", "a"]
    assert is_relation_descriptor({}) is True
    assert is_relation_descriptor("x") is False


@pytest.mark.parametrize(
    "value",
    [
        {},
        {"relationship": "sideways", "key": "k"},
        {"relationship": "through", "through": "j", "source": "s"},
        {"relationship": "morph", "key": "k", "tag": "t"},
        {"key": ""},
        {"key": 7},
        {"key": "k", "model": ""},
        {"key": "k", "colour": "red"},
        {"key": "k", "tag": "t", "label": True},
        ["a", "b"],
        [],
        [7],
        "",
        7,
        None,
    ],
)
def test_a_relation_that_describes_nothing_is_invalid(value: Any) -> None:
    with pytest.raises(RelationError) as caught:
        resolve_relation("rel", value)
    assert caught.value.code == "INVALID"
    assert caught.value.context == {"relation": "rel"}


def test_relation_maps_and_names_must_be_well_formed() -> None:
    for bad in ([], "x", None):
        with pytest.raises(RelationError):
            resolve_relation_map(bad)
    with pytest.raises(RelationError):
        resolve_relation("", "x")
    with pytest.raises(RelationError):
        resolve_relation_map({7: "x"})


def database() -> Any:
    return create_database(tables=TABLES)


@pytest.mark.parametrize(
    ("relations", "context"),
    [
        ({"ghosts": {}}, {"model": "ghosts", "table": "ghosts"}),
        ({"accounts": {"x": has_many("accountId", "ghosts")}}, {"table": "ghosts"}),
        (
            {"accounts": {"x": has_through("ghostReps", "accountId", "repId", "representatives")}},
            {"table": "ghostReps"},
        ),
        ({"contacts": {"account": belongs_to("accountRef", "accounts")}}, {"column": "accountRef"}),
        ({"accounts": {"contacts": has_many("ownerId")}}, {"column": "ownerId"}),
        ({"accounts": {"profile": has_one("owner", "profiles")}}, {"column": "owner"}),
        (
            {
                "accounts": {
                    "reps": has_through("accountReps", "accountId", "rep", "representatives")
                }
            },
            {"column": "rep"},
        ),
        (
            {"accounts": {"reps": has_through("accountReps", "owner", "repId", "representatives")}},
            {"column": "owner"},
        ),
        (
            {"accounts": {"n": has_morph("subjectId", "kind", "account", "notes")}},
            {"column": "kind"},
        ),
        (
            {"accounts": {"r": has_through("accountReps", "repId", "repId", "representatives")}},
            {"table": "accountReps"},
        ),
        ({"accounts": {"x": {"colour": "red"}}}, {"relation": "x"}),
        ({"accounts": "contacts"}, {"model": "accounts"}),
    ],
)
def test_a_map_that_cannot_work_is_refused_when_the_manager_is_built(
    relations: Any, context: dict[str, Any]
) -> None:
    with pytest.raises(RelationError) as caught:
        create_relation_manager(database=database(), relations=relations)
    assert caught.value.code == "INVALID"
    assert caught.value.context is not None
    assert context.items() <= caught.value.context.items()


def test_key_columns_must_hold_keys_and_labels_must_fit() -> None:
    tables = {
        "posts": {"id": "integer", "flag": "boolean", "meta": Column("json", optional=True)},
        "tags": {"id": "string", "postId": "integer", "kind": "integer"},
    }
    db = create_database(tables=tables)
    for relations in (
        {"tags": {"post": belongs_to("kind", "flagged")}},
        {"posts": {"by": belongs_to("flag", "tags")}},
        {"posts": {"by": belongs_to("meta", "tags")}},
        {"posts": {"tags": has_morph("postId", "kind", "post", "tags")}},
    ):
        with pytest.raises(RelationError) as caught:
            create_relation_manager(database=db, relations=relations)
        assert caught.value.code == "INVALID"
    ok = create_relation_manager(
        database=db, relations={"posts": {"tags": has_morph("postId", "kind", 2, "tags")}}
    )
    assert ok.models() == ["posts"]


@pytest.mark.parametrize(
    ("relations", "message", "context"),
    [
        (
            {"tags": {"post": belongs_to("kind", "flagged")}},
            "relation 'post' of 'tags' names undeclared table 'flagged'",
            {"model": "tags", "relation": "post", "table": "flagged"},
        ),
        (
            {"posts": {"by": belongs_to("nope", "tags")}},
            "relation 'by' of 'posts': table 'posts' has no column \"nope\"",
            {"model": "posts", "relation": "by", "table": "posts", "column": "nope"},
        ),
        (
            {"posts": {"by": belongs_to("flag", "tags")}},
            "relation 'by' of 'posts': column 'flag' of 'posts' is boolean, and a key column "
            "must be a string, integer or number",
            {"model": "posts", "relation": "by", "table": "posts", "column": "flag"},
        ),
        (
            {"posts": {"tags": has_morph("postId", "kind", "post", "tags")}},
            "relation 'tags' of 'posts': label \"post\" does not fit integer column 'kind'",
            {"model": "posts", "relation": "tags", "column": "kind"},
        ),
        (
            {"posts": {"tags": has_through("links", "a", "a", "tags")}},
            "relation 'tags' of 'posts': source and target must be different columns",
            {"model": "posts", "relation": "tags", "table": "links"},
        ),
    ],
)
def test_a_refused_relation_is_named_with_its_owner_in_the_message_and_context(
    relations: Any, message: str, context: dict[str, Any]
) -> None:
    tables = {
        "posts": {"id": "integer", "flag": "boolean"},
        "tags": {"id": "string", "postId": "integer", "kind": "integer"},
        "links": {"id": "integer", "a": "integer", "b": "integer"},
    }
    with pytest.raises(RelationError) as caught:
        create_relation_manager(database=create_database(tables=tables), relations=relations)
    assert str(caught.value) == message
    assert caught.value.context == context


def test_the_manager_lists_mapped_tables_and_serves_every_table() -> None:
    db = database()
    manager = create_relation_manager(database=db, relations={**RELATIONS, "notes": {}})
    assert manager.models() == ["accounts", "contacts", "representatives", "notes"]
    assert manager.count == 4
    assert manager.has("notes") is True
    assert manager.has("profiles") is False
    assert manager.has(7) is False  # type: ignore[arg-type]
    assert manager.database is db
    assert manager.model("accounts") is manager.model("accounts")
    assert list(manager.model("accounts").relations) == [
        "contacts",
        "profile",
        "representatives",
        "notes",
    ]
    assert dict(manager.model("profiles").relations) == {}
    assert manager.model("contacts").table is db.table("contacts")
    with pytest.raises(DatabaseError) as caught:
        manager.model("ghosts")
    assert caught.value.code == "NOT_FOUND"
    with pytest.raises(TypeError):
        manager.model("accounts").relations["x"] = None  # type: ignore[index]
    assert create_relation_manager(database=db).models() == []


def test_relation_errors_are_typed_and_pickle() -> None:
    error = RelationError("NOT_THROUGH", "nope", {"relation": "contacts"})
    assert is_relation_error(error) is True
    assert is_relation_error(ValueError("x")) is False
    assert {"INVALID", "UNKNOWN_RELATION", "NOT_THROUGH"} == RELATION_ERROR_CODES
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.code, copy.message, copy.context) == (
        "NOT_THROUGH",
        "nope",
        {"relation": "contacts"},
    )
    assert str(copy) == "nope"
