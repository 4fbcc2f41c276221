"""A misspelled argument reaches the model as one line naming the key, where it sits and the
nearest known name, instead of being dropped while the call runs as if it were not there."""

from __future__ import annotations

from typing import Any

import pytest

from support.mcp_client import text

pytestmark = pytest.mark.anyio

SHOP = {"products": {"columns": {"name": "string"}}}


async def test_misspelled_records_limit_is_refused_naming_limit(serve: Any) -> None:
    async with serve() as client:
        await client.call_tool("database", {"operation": "create", "id": "shop", "tables": SHOP})
        rows = [{"id": str(n), "name": f"n{n}"} for n in range(3)]
        await client.call_tool(
            "database", {"operation": "add", "id": "shop", "table": "products", "row": rows}
        )
        typo = await client.call_tool(
            "database",
            {"operation": "records", "id": "shop", "table": "products", "query": {"limt": 1}},
        )
    assert typo.get("isError") is True
    assert text(typo) == (
        'malformed database call: records: unknown argument "limt" in query (did you mean limit?)'
    )


async def test_misspelled_key_deep_in_a_condition_names_its_path(serve: Any) -> None:
    condition = {"column": "name", "operator": "equals", "values": ["x"], "conector": "or"}
    async with serve() as client:
        await client.call_tool("database", {"operation": "create", "id": "shop", "tables": SHOP})
        typo = await client.call_tool(
            "database",
            {
                "operation": "records",
                "id": "shop",
                "table": "products",
                "query": {"conditions": [condition]},
            },
        )
    assert typo.get("isError") is True
    assert text(typo) == (
        'malformed database call: records: unknown argument "conector" in '
        "query.conditions[0] (did you mean connector?)"
    )


async def test_misspelled_workspace_regex_flag_is_refused(serve: Any) -> None:
    async with serve() as client:
        typo = await client.call_tool(
            "workspace", {"operation": "search", "query": "a.c", "regx": True}
        )
    assert typo.get("isError") is True
    assert text(typo) == (
        'malformed workspace call: search: unknown argument "regx" (did you mean regex?)'
    )


async def test_misspelled_infer_format_flag_is_refused(serve: Any) -> None:
    async with serve() as client:
        typo = await client.call_tool("infer", {"samples": [{"a": 1}], "formt": True})
    assert typo.get("isError") is True
    assert (
        text(typo) == 'malformed infer arguments: unknown argument "formt" (did you mean format?)'
    )
