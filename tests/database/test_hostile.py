"""Hostile input gives a typed error or a correct answer, and leaves the data intact."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.database import Column, DatabaseError, create_database

from .conftest import MakeDriver

pytestmark = pytest.mark.anyio

EVIL = '"; DROP TABLE x; --'
NAMES = [EVIL, "a%b", "%s", "?", "it's", "back\\slash", "sp ace", "ünï😀", "$1", "x)"]
SENTINEL = [{"id": "keep", "v": "safe"}]


def evil_tables() -> dict[str, Any]:
    columns: dict[str, Any] = {"id": "string"}
    columns.update({name: Column("string", optional=True) for name in NAMES})
    return {"x": {"id": "string", "v": "string"}, EVIL: columns}


async def check_intact(database: Any) -> None:
    assert await database.table("x").records() == SENTINEL


@pytest.fixture
async def evil(make_driver: MakeDriver) -> Any:
    database = create_database(
        tables=evil_tables(), driver=make_driver(), indexes={EVIL: [[EVIL, "a%b"]]}, version=1
    )
    await database.table("x").add(SENTINEL)
    yield database
    await database.close()


async def test_metacharacters_in_table_and_column_names_are_quoted(evil: Any) -> None:
    table = evil.table(EVIL)
    row = {"id": "r1", **{name: f"value of {name}" for name in NAMES}}
    await table.add(row)
    assert await table.get("r1") == row
    for name in NAMES:
        query = {
            "conditions": [{"column": name, "operator": "equals", "values": [f"value of {name}"]}],
            "order": [{"column": name, "direction": "descending"}],
        }
        assert await table.records(query) == [row]
        assert await table.aggregate("count", name, query) == 1
        assert await table.update("r1", {name: EVIL}) is True
        row[name] = EVIL
        assert await table.get("r1") == row
    await check_intact(evil)


@pytest.mark.parametrize(
    "value", [EVIL, "'; DELETE FROM x; --", "%", "_", "*", "?", "\\", "%s", "$1", "'"]
)
async def test_metacharacters_in_values_are_only_ever_values(evil: Any, value: str) -> None:
    table = evil.table(EVIL)
    await table.add([{"id": value, EVIL: value}, {"id": "plain", EVIL: "plain"}])
    for operator in ("equals", "starts", "ends"):
        query = {"conditions": [{"column": EVIL, "operator": operator, "values": [value]}]}
        assert [r["id"] for r in await table.records(query)] == [value]
    assert (await table.get(value))[EVIL] == value
    assert await table.remove(value) is True
    await check_intact(evil)


async def test_ten_thousand_percent_signs_are_refused(evil: Any) -> None:
    table = evil.table(EVIL)
    await table.add({"id": "a", EVIL: "x"})
    for operator in ("like", "glob"):
        query = {"conditions": [{"column": EVIL, "operator": operator, "values": ["%" * 10_000]}]}
        with pytest.raises(DatabaseError) as caught:
            await table.records(query)
        assert caught.value.code == "VALIDATION"
    just_fits = {"conditions": [{"column": EVIL, "operator": "like", "values": ["%" * 1024]}]}
    assert len(await table.records(just_fits)) == 1
    await check_intact(evil)


async def test_megabyte_strings_round_trip_and_match(evil: Any) -> None:
    table = evil.table(EVIL)
    big = "é" * 1_000_000
    column = "sp ace"
    await table.add({"id": "big", column: big, "a%b": big[:10]})
    assert (await table.get("big"))[column] == big
    equals = {"conditions": [{"column": column, "operator": "equals", "values": [big]}]}
    assert [r["id"] for r in await table.records(equals)] == ["big"]
    starts = {"conditions": [{"column": column, "operator": "starts", "values": [big[:500_000]]}]}
    assert await table.count(starts) == 1
    pattern = {"conditions": [{"column": column, "operator": "like", "values": ["%É%é"]}]}
    assert await table.count(pattern) == 1
    await check_intact(evil)


@pytest.mark.parametrize(
    "query",
    [
        {"conditions": [{"column": "id", "operator": "matches", "values": ["a"]}]},
        {"conditions": [{"column": "id", "operator": "EQUALS", "values": ["a"]}]},
        {"conditions": [{"column": "nope", "operator": "equals", "values": ["a"]}]},
        {"conditions": [{"column": "x", "operator": "equals", "values": ["a"]}]},
        {"conditions": [{"column": ["id"], "operator": "equals", "values": ["a"]}]},
        {"conditions": [{"column": "id", "operator": "equals", "values": "a"}]},
        {"conditions": [{"column": "id", "operator": "equals", "values": ["a", "b"]}]},
        {"conditions": [{"column": "id", "operator": "between", "values": ["a"]}]},
        {"conditions": [{"column": "id", "operator": "absent", "values": [None]}]},
        {"conditions": [{"column": "id", "operator": "above", "values": [None]}]},
        {"conditions": [{"column": "id", "operator": "equals", "values": [{"a": 1}]}]},
        {
            "conditions": [
                {"column": "id", "operator": "equals", "values": ["a"], "connector": "xor"}
            ]
        },
        {"conditions": [{"column": "id", "operator": "equals", "values": ["a"], "extra": 1}]},
        {"conditions": [{"column": "id", "operator": "any", "values": ["a"] * 1001}]},
        {"conditions": [{"column": "id", "operator": "equals", "values": ["a"]}] * 101},
        {"conditions": [{"column": "id", "operator": "equals", "values": ["\x00"]}]},
        {"conditions": "id = 'a'"},
        {"conditions": [["id", "equals", "a"]]},
        {"order": [{"column": "nope", "direction": "ascending"}]},
        {"order": [{"column": "id", "direction": "sideways"}]},
        {"order": {"column": "id"}},
        {"column": "id", "from": 1},
        {"limit": -1},
        {"limit": 0.5},
        {"offset": -(2**70)},
        "SELECT * FROM x",
        [1, 2, 3],
    ],
)
async def test_malformed_queries_raise_validation(evil: Any, query: Any) -> None:
    with pytest.raises(DatabaseError) as caught:
        await evil.table(EVIL).records(query)
    assert caught.value.code == "VALIDATION"
    await check_intact(evil)


async def test_huge_offsets_and_limits_answer_empty_or_everything(evil: Any) -> None:
    table = evil.table(EVIL)
    await table.add([{"id": str(i)} for i in range(3)])
    assert await table.records({"offset": 2**200}) == []
    assert len(await table.records({"limit": 2**200})) == 3
    assert len(await table.records({"limit": 1e300})) == 3


async def test_deep_cyclic_and_non_json_cells_are_refused(make_driver: MakeDriver) -> None:
    database = create_database(
        tables={"docs": {"id": "string", "body": Column("json", optional=True)}},
        driver=make_driver(),
    )
    docs = database.table("docs")
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    for body in (deep, cyclic, {1, 2}, float("nan"), {"k": "nul\x00"}, object()):
        with pytest.raises(DatabaseError) as caught:
            await docs.add({"id": "d", "body": body})
        assert caught.value.code == "VALIDATION"
        query = {"conditions": [{"column": "body", "operator": "equals", "values": [body]}]}
        with pytest.raises(DatabaseError) as caught:
            await docs.records(query)
        assert caught.value.code == "VALIDATION"
    assert await docs.count() == 0
    await docs.add({"id": "ok", "body": {"text": "\\u0000 is six characters here"}})
    assert await docs.count() == 1
    await database.close()


@pytest.mark.parametrize("text", ["lone \ud800 surrogate", "nul \x00 byte"])
async def test_text_no_engine_can_store_is_refused(evil: Any, text: str) -> None:
    table = evil.table(EVIL)
    for call in (
        table.add({"id": "t", EVIL: text}),
        table.add({"id": text}),
        table.records({"conditions": [{"column": EVIL, "operator": "like", "values": [text]}]}),
    ):
        with pytest.raises(DatabaseError) as caught:
            await call
        assert caught.value.code == "VALIDATION"
    assert await table.get(text) is None
    assert await table.remove([text, "t"]) == [False, False]
    assert await table.count() == 0
    await check_intact(evil)
