"""Hostile calls to the relation tool: keys of the wrong type, huge key lists, SQL
metacharacters in every name, and include paths of 10,000 segments. Each is a typed error,
and none runs a query it should not."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from orkestrel.database import create_database
from orkestrel.relation import create_relation_manager
from orkestrel.toolbox import ToolboxError, create_relation_tool

from ..conftest import CountingDriver
from ..shop import RELATIONS, TABLES, fill

pytestmark = pytest.mark.anyio

NASTY = "x'); DROP TABLE accounts; --"


@pytest.fixture
async def counted(counting: Callable[[], CountingDriver]) -> AsyncIterator[Any]:
    driver = counting()
    database = create_database(tables=TABLES, driver=driver)
    await fill(database)
    manager = create_relation_manager(database=database, relations=RELATIONS)
    driver.reset()
    yield driver, create_relation_tool(managers={"shop": manager})
    assert await database.table("accounts").count() == 2
    await database.close()


async def code_of(tool: Any, arguments: dict[str, Any]) -> tuple[str, Any]:
    with pytest.raises(ToolboxError) as caught:
        await tool.execute(arguments)
    return caught.value.code, caught.value.context


PAIR = {"model": "accounts", "key": "acc1", "relation": "representatives", "target": "rep1"}


@pytest.mark.parametrize(
    "arguments",
    [
        {"operation": "load", "model": "accounts", "key": True},
        {"operation": "load", "model": "accounts", "key": None},
        {"operation": "load", "model": "accounts", "key": {"id": "acc1"}},
        {"operation": "load", "model": "accounts", "key": [["acc1"]]},
        {"operation": "load", "model": "accounts", "key": [True]},
        {"operation": "link", **PAIR, "key": ["acc1"]},
        {"operation": "link", **PAIR, "target": {"id": "rep1"}},
        {"operation": "unlink", **PAIR, "target": None},
        {"operation": "links", **PAIR, "key": False},
        {"operation": "find", "model": "accounts", "limit": "all"},
        {"operation": "find", "model": "accounts", "offset": -5},
        {"operation": "load", "model": ["accounts"], "key": "acc1"},
    ],
)
async def test_values_of_the_wrong_type_never_reach_the_database(
    counted: Any, arguments: dict[str, Any]
) -> None:
    driver, tool = counted
    code, _ = await code_of(tool, arguments)
    assert code == "TOOL"
    assert driver.statements == []


async def test_a_key_of_the_wrong_kind_reads_nothing(counted: Any) -> None:
    _, tool = counted
    assert await tool.execute({"operation": "load", "model": "accounts", "key": 1}) == {"row": None}


async def test_a_huge_key_list_is_refused_before_any_query(counted: Any) -> None:
    driver, tool = counted
    code, context = await code_of(
        tool, {"operation": "load", "model": "accounts", "key": list(range(100_000))}
    )
    assert (code, context) == ("TOOL", {"operation": "load", "limit": 1000})
    assert driver.statements == []


@pytest.mark.parametrize(
    "arguments",
    [
        {"operation": "load", "model": "accounts", "key": "acc1", "include": [NASTY]},
        {"operation": "find", "model": "accounts", "include": [f"contacts.{NASTY}"]},
        {"operation": "find", "model": NASTY},
        {"operation": "find", "model": "accounts", "manager": NASTY},
        {"operation": "links", "model": "accounts", "key": "acc1", "relation": NASTY},
        {"operation": "link", **PAIR, "relation": NASTY},
    ],
)
async def test_sql_metacharacters_in_names_are_unknown_names(
    counted: Any, arguments: dict[str, Any]
) -> None:
    driver, tool = counted
    code, context = await code_of(tool, arguments)
    assert code in ("TOOL", "RELATION")
    if code == "RELATION":
        assert context["code"] == "UNKNOWN_RELATION"
    assert driver.statements == []


async def test_sql_metacharacters_in_values_are_only_values(counted: Any) -> None:
    _, tool = counted
    assert await tool.execute({"operation": "load", "model": "accounts", "key": NASTY}) == {
        "row": None
    }
    answer = await tool.execute({"operation": "find", "model": "accounts", "sort": "name"})
    assert answer["count"] == 2
    assert await tool.execute({"operation": "link", **PAIR, "target": NASTY}) == {"linked": True}
    links = {
        "operation": "links",
        "model": "accounts",
        "key": "acc1",
        "relation": "representatives",
    }
    assert NASTY in (await tool.execute(links))["keys"]
    assert await tool.execute({"operation": "unlink", **PAIR, "target": NASTY}) == {
        "unlinked": True
    }
    code, context = await code_of(tool, {"operation": "find", "model": "accounts", "sort": NASTY})
    assert (code, context["code"]) == ("DATABASE", "VALIDATION")


@pytest.mark.parametrize(
    "include",
    [
        [".".join(["contacts"] * 10_000)],
        [".".join(["contacts", "account"] * 5_000)],
        ["contacts"] * 9_999 + ["a" * 1_000_000],
        ["contacts." * 10_000],
        [""],
    ],
    ids=["10k-segments", "10k-valid-names", "10k-paths-one-huge", "10k-dots", "empty"],
)
async def test_include_paths_past_the_depth_are_refused_before_any_query(
    counted: Any, include: list[str]
) -> None:
    driver, tool = counted
    code, context = await code_of(
        tool, {"operation": "load", "model": "accounts", "key": "acc1", "include": include}
    )
    assert code == "TOOL"
    assert len(str(context)) < 1000
    assert driver.statements == []


async def test_ten_thousand_repeated_paths_expand_to_one(counted: Any) -> None:
    driver, tool = counted
    include = ["contacts.account"] * 10_000
    answer = await tool.execute(
        {"operation": "load", "model": "accounts", "key": "acc1", "include": include}
    )
    assert [c["account"]["id"] for c in answer["row"]["contacts"]] == ["acc1", "acc1"]
    assert driver.units == 1
