"""Databases on one PostgreSQL under hostile use: definitions changed through another server,
storage changed behind the servers' backs, and one client flooding the database layer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from support.mcp_client import Session, text
from support.postgres import fresh_database

pytestmark = pytest.mark.anyio

ITEMS = {"items": {"columns": {"n": "integer"}}}
ORDERS = {"orders": {"columns": {"total": "number"}}}
RAW = ("SELECT", "INSERT", "LINE ", "FROM ", "postgres failed", "psycopg", "orkestrel_shop")


@pytest.fixture
def dsn() -> Iterator[str]:
    with fresh_database("hostile") as name:
        yield name


async def call(session: Session, **arguments: Any) -> Any:
    """A database call's value, or `("error", message)`."""
    result = await session.call_tool("database", arguments)
    if result.get("isError"):
        return ("error", text(result))
    return result.get("structuredContent", json.loads(text(result)))


def assert_typed_line(answer: Any, *words: str) -> str:
    """The answer is an error of one line that names `words` and holds no SQL or driver text."""
    assert isinstance(answer, tuple), answer
    message = str(answer[1])
    assert "\n" not in message.strip(), message
    for raw in RAW:
        assert raw not in message, message
    for word in words:
        assert word in message, message
    return message


async def test_a_database_recreated_through_one_server_is_current_on_the_other(
    serve: Any, dsn: str
) -> None:
    options = ("--database", dsn, "--pool-size", "4", "--tools", "database")
    async with serve(*options) as a, serve(*options) as b:
        assert await call(a, operation="create", id="shop", tables=ITEMS) == {
            "id": "shop",
            "tables": ["items"],
        }
        listed = await call(b, operation="tables", id="shop")
        assert [table["name"] for table in listed["tables"]] == ["items"]
        assert await call(b, operation="add", id="shop", table="items", row={"id": "i1", "n": 1})

        assert (await call(a, operation="destroy", id="shop"))["destroyed"] is True
        await call(a, operation="create", id="shop", tables=ORDERS)

        listed = await call(b, operation="tables", id="shop")
        assert [table["name"] for table in listed["tables"]] == ["orders"]
        row = {"id": "o1", "total": 2.5}
        assert await call(b, operation="add", id="shop", table="orders", row=row) == {"key": "o1"}
        read = await call(b, operation="records", id="shop", table="orders")
        assert read["rows"] == [row]
        gone = await call(b, operation="records", id="shop", table="items")
        assert_typed_line(gone, "items")

        # The same table name with other columns: the new columns are the ones in force.
        await call(a, operation="destroy", id="shop")
        await call(
            a, operation="create", id="shop", tables={"orders": {"columns": {"x": "string"}}}
        )
        added = await call(
            b, operation="add", id="shop", table="orders", row={"id": "o2", "x": "y"}
        )
        assert added == {"key": "o2"}

        await call(a, operation="destroy", id="shop")
        missing = await call(b, operation="count", id="shop", table="orders")
        assert_typed_line(missing, "unknown database 'shop'")


async def test_a_table_dropped_behind_the_server_answers_a_typed_line_not_sql(
    serve: Any, dsn: str
) -> None:
    import psycopg

    async with serve("--database", dsn, "--tools", "database") as a:
        await call(a, operation="create", id="shop", tables=ITEMS)
        assert await call(a, operation="count", id="shop", table="items") == {"count": 0}
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute('DROP TABLE "orkestrel_shop"."items"')
        for operation, extra in (
            ("count", {}),
            ("records", {}),
            ("add", {"row": {"id": "i1", "n": 1}}),
        ):
            answer = await call(a, operation=operation, id="shop", table="items", **extra)
            assert_typed_line(answer, "items")
