"""A misspelled argument reaches the model as one line naming the key, where it sits and the
nearest known name, instead of being dropped while the call runs as if it were not there."""

from __future__ import annotations

from pathlib import Path
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


RELATIONS = '[shop.accounts]\ncontacts = ["accountId"]\n'
"""A relation map over a database `shop`, enough to serve the relation tool."""

TYPOS = [
    (
        "relation",
        {"operation": "load", "manager": "shop", "model": "accounts", "key": "a", "includ": []},
        'malformed relation call: load: unknown argument "includ" (did you mean include?)',
    ),
    (
        "agent",
        {"task": "count the rows", "tols": ["infer"]},
        'malformed agent-delegation call: unknown argument "tols" (did you mean tools?)',
    ),
    (
        "ask",
        {"to": "user", "schema": {"fields": []}, "timout": 3},
        'malformed ask call: unknown argument "timout" (known: to, schema)',
    ),
    (
        "describe",
        {"name": "database", "operaton": "add"},
        'malformed describe call: unknown argument "operaton" (did you mean operation?)',
    ),
    (
        "workflow",
        {"steps": [{"name": "infer", "inpt": {"samples": [{"a": 1}]}}]},
        'malformed workflow definition: unknown argument "inpt" in steps[0] (did you mean input?)',
    ),
]
"""(tool, arguments with one misspelled key, the line the model reads) for the toolbox tools
the cases above leave out; the agent's refusal comes before any model is asked."""


async def test_every_other_toolbox_tool_refuses_a_misspelled_key_naming_it(
    serve: Any, tmp_path: Path
) -> None:
    relations = tmp_path / "relations.toml"
    relations.write_text(RELATIONS)
    flags = ["--relations", str(relations), "--workflow", "--ask"]
    flags += ["--agent", "openai:gpt-test", "--base-url", "http://127.0.0.1:9/v1"]
    async with serve(*flags, env={"OPENAI_API_KEY": "unused"}) as client:
        answers = [await client.call_tool(tool, arguments) for tool, arguments, _ in TYPOS]
    assert [(answer.get("isError"), text(answer)) for answer in answers] == [
        (True, line) for _, _, line in TYPOS
    ]
