"""The relation tool end to end on every engine: options, caps and truncation, the byte cap,
include checks, error mapping, annotations and texts, and pressure."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from orkestrel.database import create_database
from orkestrel.relation import create_relation_manager
from orkestrel.tool import ToolManager
from orkestrel.toolbox import (
    DATABASE_TOOL_SIZE,
    RELATION_TOOL_DEPTH,
    RELATION_TOOL_DESCRIPTION,
    RELATION_TOOL_LIMIT,
    RELATION_TOOL_MUTATIONS,
    RELATION_TOOL_NAME,
    RELATION_TOOL_SUMMARY,
    ToolboxError,
    create_describe_tool,
    create_relation_tool,
)

from ..conftest import CountingDriver, MakeDriver
from ..shop import RELATIONS, TABLES, fill

pytestmark = pytest.mark.anyio


@pytest.fixture
async def shop(make_driver: MakeDriver) -> AsyncIterator[Any]:
    database = create_database(tables=TABLES, driver=make_driver())
    await fill(database)
    yield database, create_relation_manager(database=database, relations=RELATIONS)
    await database.close()


async def refused(tool: Any, **arguments: Any) -> ToolboxError:
    with pytest.raises(ToolboxError) as caught:
        await tool.execute(arguments)
    return caught.value


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("limit", -1),
        ("limit", True),
        ("limit", 1.5),
        ("limit", 2**53),
        ("depth", -1),
        ("depth", "3"),
        ("size", 255),
        ("size", 1024.0),
    ],
)
def test_options_are_checked_when_the_tool_is_built(option: str, value: Any) -> None:
    with pytest.raises(ToolboxError) as caught:
        create_relation_tool(managers={}, **{option: value})
    assert caught.value.code == "TOOL"
    assert caught.value.message.startswith(f"relation {option} must be ")
    assert caught.value.context == {option: value}


@pytest.mark.parametrize("managers", [None, [], {"x": object()}, {7: None}])
def test_managers_must_be_relation_managers(managers: Any) -> None:
    with pytest.raises(ToolboxError) as caught:
        create_relation_tool(managers=managers)
    assert caught.value.code == "TOOL"


async def test_the_registry_is_copied_and_chosen_by_name(shop: Any) -> None:
    database, manager = shop
    other = create_relation_manager(database=database, relations={"profiles": {}})
    registry = {"shop": manager}
    tool = create_relation_tool(managers=registry)
    registry["other"] = other
    assert (await tool.execute({"operation": "find", "model": "accounts", "limit": 1}))[
        "count"
    ] == 1
    both = create_relation_tool(managers={"shop": manager, "other": other})
    error = await refused(both, operation="find", model="accounts")
    assert error.message == "no relation manager resolved for the call"
    answer = await both.execute({"operation": "find", "manager": "other", "model": "profiles"})
    assert answer["count"] == 1
    error = await refused(both, operation="find", manager="other", model="accounts")
    assert (error.message, error.context) == (
        "unknown model 'accounts'",
        {"model": "accounts", "models": ["profiles"]},
    )
    error = await refused(both, operation="find", manager="ghost", model="accounts")
    assert error.context == {"manager": "ghost", "managers": ["shop", "other"]}


async def test_defaults_texts_and_annotations(shop: Any) -> None:
    _, manager = shop
    tool = create_relation_tool(managers={"shop": manager})
    assert tool.name == RELATION_TOOL_NAME == "relation"
    assert tool.summary == RELATION_TOOL_SUMMARY
    assert "describe('relation')" in RELATION_TOOL_SUMMARY
    assert tool.description == RELATION_TOOL_DESCRIPTION
    assert (RELATION_TOOL_LIMIT, RELATION_TOOL_DEPTH) == (1000, 3)
    assert tool.annotations == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
        "title": "Relations",
    }
    assert RELATION_TOOL_MUTATIONS == ("link", "unlink")
    assert tool.parameters is not None
    renamed = create_relation_tool(managers={"shop": manager}, name="links", depth=5)
    assert renamed.name == "links"
    assert renamed.summary is not None
    assert "describe('links')" in renamed.summary
    assert "describe('relation')" not in renamed.summary
    assert renamed.description is not None
    assert "at most 5 segments" in renamed.description
    custom = create_relation_tool(managers={"shop": manager}, description="Mine.")
    assert custom.description == "Mine."
    assert tool.annotations is not renamed.annotations


async def test_describe_expands_the_renamed_tool(shop: Any) -> None:
    _, manager = shop
    tools = ToolManager()
    tools.add(create_relation_tool(managers={"shop": manager}, name="graph"))
    tools.add(create_describe_tool(tools))
    advertised = {item["name"]: item["description"] for item in tools.definitions()}
    assert "describe('graph')" in advertised["graph"]
    full = await tools.execute({"id": "d", "name": "describe", "arguments": {"name": "graph"}})
    assert full["value"] == RELATION_TOOL_DESCRIPTION


async def test_a_malformed_call_names_its_fault(shop: Any) -> None:
    _, manager = shop
    tool = create_relation_tool(managers={"shop": manager})
    error = await refused(tool, operation="link", model="accounts", key="acc1", relation="r")
    assert error.code == "TOOL"
    assert error.message.startswith("malformed relation call: ")
    assert "target" in error.message
    assert error.context is not None
    assert error.context["operation"] == "link"
    error = await refused(tool, operation="drop", model="accounts")
    assert error.message == (
        "malformed relation call: operation must be one of load, find, link, unlink, links"
    )
    tools = ToolManager()
    tools.add(tool)
    flat = await tools.execute({"id": "1", "name": "relation", "arguments": {"operation": 7}})
    assert flat["success"] is False
    assert flat["error"].startswith("malformed relation call")


async def test_unknown_include_segments_are_refused_before_any_query(
    counting: Callable[[], CountingDriver],
) -> None:
    driver = counting()
    database = create_database(tables=TABLES, driver=driver)
    await fill(database)
    manager = create_relation_manager(database=database, relations=RELATIONS)
    tool = create_relation_tool(managers={"shop": manager})
    driver.reset()
    try:
        error = await refused(
            tool, operation="load", model="accounts", key="acc1", include=["contacts.acount"]
        )
        assert error.message == "unknown relation 'acount' in include path 'contacts.acount'"
        assert error.context == {
            "path": "contacts.acount",
            "model": "contacts",
            "relation": "acount",
            "relations": ["account", "notes"],
        }
        error = await refused(tool, operation="find", model="accounts", include=["profile.x"])
        assert error.context is not None
        assert (error.context["model"], error.context["relations"]) == ("profiles", [])
        error = await refused(tool, operation="find", model="accounts", include=["a.b.c.d"])
        assert error.message == "malformed include path 'a.b.c.d'"
        assert driver.statements == []
    finally:
        await database.close()


async def test_database_failures_come_back_typed(shop: Any) -> None:
    _, manager = shop
    tool = create_relation_tool(managers={"shop": manager})
    error = await refused(tool, operation="find", model="accounts", sort="ghost")
    assert error.code == "DATABASE"
    assert error.context == {"code": "VALIDATION", "operation": "find", "model": "accounts"}
    error = await refused(
        tool, operation="link", model="accounts", key="acc1", relation="notes", target="n1"
    )
    assert error.code == "RELATION"
    assert error.context is not None
    assert error.context["code"] == "NOT_THROUGH"


async def test_links_are_capped_and_flag_truncation(shop: Any) -> None:
    _, manager = shop
    tool = create_relation_tool(managers={"shop": manager}, limit=1)
    links = {"operation": "links", "model": "accounts", "relation": "representatives"}
    assert await tool.execute({**links, "key": "acc1"}) == {
        "keys": ["rep2"],
        "count": 1,
        "truncated": True,
        "limit": 1,
    }
    assert await tool.execute({**links, "key": "acc2"}) == {
        "keys": ["rep1"],
        "count": 1,
        "truncated": False,
        "limit": 1,
    }


async def test_a_callers_limit_only_lowers_the_cap(shop: Any) -> None:
    _, manager = shop
    tool = create_relation_tool(managers={"shop": manager}, limit=2)
    big = await tool.execute({"operation": "find", "model": "contacts", "limit": 50})
    assert (big["count"], big["truncated"], big["limit"]) == (2, True, 2)
    small = await tool.execute({"operation": "find", "model": "contacts", "limit": 1})
    assert (small["count"], small["truncated"], small["limit"]) == (1, True, 1)
    zero = await tool.execute({"operation": "find", "model": "contacts", "limit": 0})
    assert (zero["rows"], zero["truncated"], zero["limit"]) == ([], True, 0)


async def test_paging_by_truncated_walks_every_row_once(make_driver: MakeDriver) -> None:
    database = create_database(tables=TABLES, driver=make_driver())
    try:
        await database.table("accounts").add(
            [{"id": f"a{n:02}", "name": f"N{n % 7}"} for n in range(23)]
        )
        manager = create_relation_manager(database=database, relations=RELATIONS)
        tool = create_relation_tool(managers={"shop": manager}, limit=5)
        seen: list[str] = []
        offset = 0
        while True:
            page = await tool.execute(
                {
                    "operation": "find",
                    "model": "accounts",
                    "sort": "name",
                    "direction": "descending",
                    "offset": offset,
                    "include": ["contacts"],
                }
            )
            seen += [row["id"] for row in page["rows"]]
            offset += page["count"]
            if not page["truncated"]:
                break
        assert sorted(seen) == [f"a{n:02}" for n in range(23)]
        assert len(seen) == 23
    finally:
        await database.close()


async def test_the_byte_cap_trims_find_answers(make_driver: MakeDriver) -> None:
    database = create_database(tables=TABLES, driver=make_driver())
    try:
        await database.table("accounts").add({"id": "big", "name": "B"})
        await database.table("contacts").add(
            [{"id": f"c{n:03}", "name": "x" * 200, "accountId": "big"} for n in range(40)]
        )
        await database.table("accounts").add([{"id": f"s{n}", "name": "S"} for n in range(3)])
        manager = create_relation_manager(database=database, relations=RELATIONS)
        tool = create_relation_tool(managers={"shop": manager}, size=1024)
        plain = await tool.execute({"operation": "find", "model": "accounts"})
        assert (plain["count"], plain["truncated"]) == (4, False)
        heavy = await tool.execute(
            {"operation": "find", "model": "accounts", "include": ["contacts"]}
        )
        assert heavy["truncated"] is True
        assert heavy["count"] == len(heavy["rows"]) == 0  # `big` sorts first and cannot fit
        assert len(json.dumps(heavy)) <= 1024
        after = await tool.execute(
            {"operation": "find", "model": "accounts", "include": ["contacts"], "offset": 1}
        )
        assert (after["count"], after["truncated"]) == (3, False)
        default = create_relation_tool(managers={"shop": manager})
        whole = await default.execute(
            {"operation": "find", "model": "accounts", "include": ["contacts"]}
        )
        assert whole["count"] == 4
        assert len(json.dumps(whole)) <= DATABASE_TOOL_SIZE
    finally:
        await database.close()


async def seeded(driver: Any, owners: int) -> Any:
    database = create_database(tables=TABLES, driver=driver)
    await database.table("accounts").add([{"id": f"a{n:05}", "name": "A"} for n in range(owners)])
    await database.table("contacts").add(
        [{"id": f"c{n:05}", "name": "C", "accountId": f"a{n:05}"} for n in range(owners)]
    )
    await database.table("representatives").add({"id": "r", "name": "R"})
    await database.table("accountReps").add(
        [{"accountId": f"a{n:05}", "repId": "r"} for n in range(owners)]
    )
    return database, create_relation_manager(database=database, relations=RELATIONS)


@pytest.mark.parametrize(("owners", "truncated"), [(1000, False), (1001, True)])
async def test_find_at_the_cap_and_one_past_it(
    counting: Callable[[], CountingDriver], owners: int, truncated: bool
) -> None:
    driver = counting()
    database, manager = await seeded(driver, owners)
    tool = create_relation_tool(managers={"shop": manager}, size=2**30)
    driver.reset()
    try:
        answer = await tool.execute(
            {
                "operation": "find",
                "model": "accounts",
                "include": ["contacts.account.representatives"],
            }
        )
        assert (answer["count"], answer["truncated"], answer["limit"]) == (1000, truncated, 1000)
        assert answer["rows"][-1]["contacts"][0]["account"]["representatives"] == [
            {"id": "r", "name": "R"}
        ]
        chunks = 1 if owners == 1000 else 2
        assert driver.units == 1
        assert driver.selects("contacts") == chunks
        assert driver.selects("accounts") == 1 + chunks
        assert driver.selects("accountReps") == chunks
        assert driver.selects("representatives") == 1
    finally:
        await database.close()


async def test_load_refuses_more_keys_than_the_cap_before_any_query(
    counting: Callable[[], CountingDriver],
) -> None:
    driver = counting()
    database, manager = await seeded(driver, 3)
    tool = create_relation_tool(managers={"shop": manager}, limit=10)
    driver.reset()
    try:
        error = await refused(
            tool, operation="load", model="accounts", key=[f"k{n}" for n in range(11)]
        )
        assert (error.code, error.message) == ("TOOL", "load takes at most 10 keys, not 11")
        assert driver.statements == []
        ten = await tool.execute({"operation": "load", "model": "accounts", "key": ["a00000"] * 10})
        assert len(ten["rows"]) == 10
    finally:
        await database.close()


async def test_pressure_two_hundred_parents_and_a_link_cycle(make_driver: MakeDriver) -> None:
    database = create_database(tables=TABLES, driver=make_driver())
    try:
        await database.table("accounts").add([{"id": f"a{n:03}", "name": "A"} for n in range(200)])
        await database.table("contacts").add(
            [
                {"id": f"c{n:03}-{k}", "name": "C", "accountId": f"a{n:03}"}
                for n in range(200)
                for k in range(3)
            ]
        )
        await database.table("representatives").add(
            [{"id": f"r{n:02}", "name": "R"} for n in range(50)]
        )
        manager = create_relation_manager(database=database, relations=RELATIONS)
        tool = create_relation_tool(managers={"shop": manager})
        keys = [f"a{n:03}" for n in range(200)]
        loaded = await tool.execute(
            {"operation": "load", "model": "accounts", "key": keys, "include": ["contacts.account"]}
        )
        assert all(len(row["contacts"]) == 3 for row in loaded["rows"])
        assert all(
            c["account"]["id"] == row["id"] for row in loaded["rows"] for c in row["contacts"]
        )
        pair = {"model": "accounts", "key": "a000", "relation": "representatives"}
        links = {"operation": "links", **pair}
        for n in range(50):
            assert await tool.execute({"operation": "link", **pair, "target": f"r{n:02}"}) == {
                "linked": True
            }
            assert (await tool.execute(links))["count"] == n + 1
        for n in range(50):
            await tool.execute({"operation": "unlink", **pair, "target": f"r{n:02}"})
            answer = await tool.execute(links)
            assert answer["count"] == 49 - n
            assert f"r{n:02}" not in answer["keys"]
        assert await database.table("accountReps").count() == 0
    finally:
        await database.close()


async def test_the_byte_cap_refuses_a_load_whose_rows_share_their_related_rows(
    make_driver: MakeDriver,
) -> None:
    database = create_database(tables=TABLES, driver=make_driver())
    try:
        account = {"id": "acc", "name": "a" * 1000}
        contacts = [{"id": f"c{n:02}", "name": "C", "accountId": "acc"} for n in range(30)]
        await database.table("accounts").add(account)
        await database.table("contacts").add(contacts)
        manager = create_relation_manager(database=database, relations=RELATIONS)
        tool = create_relation_tool(managers={"shop": manager}, size=4096)
        load = {"operation": "load", "model": "contacts", "include": ["account"]}
        three = await tool.execute({**load, "key": ["c00", "c01", "c02"]})
        with pytest.raises(ToolboxError) as refused:
            await tool.execute({**load, "key": [contact["id"] for contact in contacts]})
        one = await tool.execute({**load, "key": ["c00"], "include": ["account.contacts.account"]})
    finally:
        await database.close()
    assert three == {"rows": [{**contact, "account": account} for contact in contacts[:3]]}
    assert str(refused.value) == (
        "load answer is over the relation tool's size cap of 4096 bytes of JSON (size); "
        "ask for fewer keys or a shorter include"
    )
    assert (refused.value.code, refused.value.context) == (
        "TOOL",
        {"operation": "load", "limit": 4096, "option": "size"},
    )
    # One row answers whatever its size, as `get` does; the server's answer cap still holds.
    assert len(json.dumps(one)) > 30 * 1000


async def test_a_find_whose_rows_share_an_account_is_trimmed_without_walking_every_copy(
    make_driver: MakeDriver,
) -> None:
    database = create_database(tables=TABLES, driver=make_driver())
    try:
        await database.table("accounts").add({"id": "acc", "name": "a" * 10_000})
        await database.table("contacts").add(
            [{"id": f"c{n:04}", "name": "C", "accountId": "acc"} for n in range(2000)]
        )
        manager = create_relation_manager(database=database, relations=RELATIONS)
        tool = create_relation_tool(managers={"shop": manager})
        find = {"operation": "find", "model": "contacts", "include": ["account.contacts.account"]}
        started = time.perf_counter()
        # 1,000 contacts, each with the account and its 2,000 contacts, each with the account
        # again: 20 GB of JSON, which the plain measure walked copy by copy for seconds.
        heavy = await tool.execute(find)
        elapsed = time.perf_counter() - started
        light = await tool.execute({**find, "include": ["account"], "limit": 3})
    finally:
        await database.close()
    assert heavy == {"rows": [], "count": 0, "truncated": True, "limit": 1000}
    assert elapsed < 2
    assert [row["account"]["id"] for row in light["rows"]] == ["acc"] * 3
