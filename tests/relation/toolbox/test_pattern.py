"""The seed's relation-tool pattern, with its exact values, through a real `ToolManager` on
every engine, and the further outcomes the seed pins."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from orkestrel.database import create_database
from orkestrel.relation import belongs_to, create_relation_manager, has_many, has_through
from orkestrel.tool import ToolManager
from orkestrel.toolbox import ToolboxError, create_relation_tool

from ..conftest import MakeDriver

pytestmark = pytest.mark.anyio

ACME = {"id": "acc1", "name": "Acme"}
ADA = {"id": "c1", "name": "Ada", "accountId": "acc1"}


@pytest.fixture
async def seeded(make_driver: MakeDriver) -> AsyncIterator[tuple[Any, ToolManager]]:
    db = create_database(
        tables={
            "accounts": {"id": "string", "name": "string"},
            "contacts": {"id": "string", "name": "string", "accountId": "string"},
            "representatives": {"id": "string", "name": "string"},
            "accountReps": {"accountId": "string", "repId": "string"},
        },
        driver=make_driver(),
    )
    await db.table("accounts").add({"id": "acc1", "name": "Acme"})
    await db.table("contacts").add({"id": "c1", "name": "Ada", "accountId": "acc1"})
    await db.table("representatives").add({"id": "rep1", "name": "Rex"})
    manager = create_relation_manager(
        database=db,
        relations={
            "accounts": {
                "contacts": has_many("accountId"),
                "representatives": has_through(
                    "accountReps", "accountId", "repId", "representatives"
                ),
            },
            "contacts": {"account": belongs_to("accountId", "accounts")},
        },
    )
    tools = ToolManager()
    tool = create_relation_tool(managers={"shop": manager})
    tools.add(tool)
    yield tool, tools
    await db.close()


async def call(tools: ToolManager, **arguments: Any) -> Any:
    result = await tools.execute({"id": "c", "name": "relation", "arguments": arguments})
    assert result["success"], result
    return result["value"]


async def test_the_seed_pattern(seeded: tuple[Any, ToolManager]) -> None:
    _, tools = seeded
    loaded = await call(
        tools, operation="load", model="accounts", key="acc1", include=["contacts.account"]
    )
    assert loaded == {"row": {**ACME, "contacts": [{**ADA, "account": ACME}]}}
    linked = await call(
        tools,
        operation="link",
        model="accounts",
        key="acc1",
        relation="representatives",
        target="rep1",
    )
    assert linked == {"linked": True}
    keys = await call(
        tools, operation="links", model="accounts", key="acc1", relation="representatives"
    )
    assert keys == {"keys": ["rep1"], "count": 1, "truncated": False, "limit": 1000}


async def test_the_further_outcomes_the_seed_pins(seeded: tuple[Any, ToolManager]) -> None:
    tool, tools = seeded
    pair = {"model": "accounts", "key": "acc1", "relation": "representatives", "target": "rep1"}
    await call(tools, operation="link", **pair)
    assert await call(tools, operation="link", **pair) == {"linked": True}
    links = {
        "operation": "links",
        "model": "accounts",
        "key": "acc1",
        "relation": "representatives",
    }
    assert (await call(tools, **links))["keys"] == ["rep1"]
    assert await call(tools, operation="unlink", **pair) == {"unlinked": True}
    assert await call(tools, **links) == {"keys": [], "count": 0, "truncated": False, "limit": 1000}

    assert await call(tools, operation="load", model="accounts", key=["acc1", "ghost"]) == {
        "rows": [ACME, None]
    }
    assert await call(tools, operation="load", model="accounts", key="ghost") == {"row": None}

    with pytest.raises(ToolboxError) as caught:
        await tool.execute({"operation": "link", **{**pair, "relation": "contacts"}})
    assert caught.value.code == "RELATION"
    assert caught.value.context == {
        "code": "NOT_THROUGH",
        "operation": "link",
        "model": "accounts",
        "relation": "contacts",
    }
    with pytest.raises(ToolboxError) as caught:
        await tool.execute({"operation": "link", **{**pair, "relation": "nope"}})
    assert caught.value.context is not None
    assert caught.value.context["code"] == "UNKNOWN_RELATION"
    with pytest.raises(ToolboxError) as caught:
        await tool.execute(
            {"operation": "load", "model": "accounts", "key": "acc1", "include": ["a.b.c.d"]}
        )
    assert (caught.value.code, caught.value.message) == ("TOOL", "malformed include path 'a.b.c.d'")
    assert caught.value.context == {"path": "a.b.c.d", "depth": 3}


async def test_find_truncation_with_a_small_cap(make_driver: MakeDriver) -> None:
    db = create_database(
        tables={"accounts": {"id": "string", "name": "string"}}, driver=make_driver()
    )
    try:
        await db.table("accounts").add(
            [{"id": f"a{n}", "name": name} for n, name in enumerate("EDCBA")]
        )
        manager = create_relation_manager(database=db, relations={"accounts": {}})
        tools = ToolManager()
        tools.add(create_relation_tool(managers={"shop": manager}, limit=2))
        page = await call(tools, operation="find", model="accounts", sort="name")
        assert [row["name"] for row in page["rows"]] == ["A", "B"]
        assert (page["count"], page["truncated"], page["limit"]) == (2, True, 2)
        tail = await call(tools, operation="find", model="accounts", sort="name", offset=4)
        assert [row["name"] for row in tail["rows"]] == ["E"]
        assert (tail["count"], tail["truncated"], tail["limit"]) == (1, False, 2)
    finally:
        await db.close()
