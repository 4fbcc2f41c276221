"""`orkestrel serve --relations FILE`: the relation tool over the databases the database tool
keeps in SQLite files, driven by the MCP SDK's own client against a real server process."""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from orkestrel.cli.builtins import builtin_factories
from orkestrel.cli.serve import register, run_serve
from orkestrel.cli.toolbox import open_toolbox
from orkestrel.tool import ToolManager
from support.mcp_client import Session, connect, stdio, text

pytestmark = pytest.mark.anyio

RELATIONS_TOML = """\
# relation maps of the database "shop", which the database tool manages
[shop.accounts]
contacts = ["accountId"]
representatives = { through = "accountReps", source = "accountId", target = "repId" }

[shop.contacts]
account = { column = "accountId", model = "accounts" }
"""
TABLES = {
    "accounts": {"columns": {"name": "string"}},
    "contacts": {"columns": {"name": "string", "accountId": "string"}},
    "representatives": {"columns": {"name": "string"}},
    "accountReps": {"columns": {"accountId": "string", "repId": "string"}},
}
ACME = {"id": "acc1", "name": "Acme"}
ADA = {"id": "c1", "name": "Ada", "accountId": "acc1"}


@asynccontextmanager
async def serving(tmp_path: Path, relations: Path, *extra: str) -> AsyncIterator[Session]:
    argv = ["serve", "--root", str(tmp_path), "--data", str(tmp_path / "data")]
    parameters = stdio(
        sys.executable, ["-m", "orkestrel", *argv, "--relations", str(relations), *extra]
    )
    async with connect(parameters) as client:
        yield client


async def fill(client: Session) -> None:
    created = await client.call_tool(
        "database", {"operation": "create", "id": "shop", "driver": "sqlite", "tables": TABLES}
    )
    assert created.get("isError", False) is False, text(created)
    for table, row in (
        ("accounts", ACME),
        ("contacts", ADA),
        ("representatives", {"id": "rep1", "name": "Rex"}),
    ):
        added = await client.call_tool(
            "database", {"operation": "add", "id": "shop", "table": table, "row": row}
        )
        assert added.get("isError", False) is False, text(added)


async def test_a_two_level_include_over_mcp_against_a_sqlite_file(tmp_path: Path) -> None:
    relations = tmp_path / "relations.toml"
    relations.write_text(RELATIONS_TOML)
    load = {
        "operation": "load",
        "model": "accounts",
        "key": "acc1",
        "include": ["contacts.account"],
    }
    async with serving(tmp_path, relations) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        before = await client.call_tool("relation", load)
        await fill(client)
        loaded = await client.call_tool("relation", load)
        linked = await client.call_tool(
            "relation",
            {
                "operation": "link",
                "model": "accounts",
                "key": "acc1",
                "relation": "representatives",
                "target": "rep1",
            },
        )
        typo = await client.call_tool("relation", {**load, "include": ["contacts.acount"]})
        described = await client.call_tool("describe", {"name": "relation"})
    assert list(listed) == ["infer", "describe", "database", "relation", "workspace"]
    tool = listed["relation"]
    assert tool["inputSchema"]["type"] == "object"
    assert "anyOf" not in tool["inputSchema"]
    hints = tool["annotations"]
    assert (hints["readOnlyHint"], hints["destructiveHint"]) == (False, True)
    assert (before.get("isError"), text(before)) == (True, "unknown database 'shop'")
    assert loaded.get("isError", False) is False
    assert loaded["structuredContent"] == {"row": {**ACME, "contacts": [{**ADA, "account": ACME}]}}
    assert linked["structuredContent"] == {"linked": True}
    assert (typo.get("isError"), text(typo)) == (
        True,
        "unknown relation 'acount' in include path 'contacts.acount'",
    )
    assert text(described).startswith("Read rows together with their related rows")
    assert (tmp_path / "data" / "databases" / "shop.sqlite3").is_file()

    async with serving(tmp_path, relations, "--readonly") as client:
        again = await client.call_tool("relation", load)
        keys = await client.call_tool(
            "relation",
            {
                "operation": "links",
                "model": "accounts",
                "key": "acc1",
                "relation": "representatives",
            },
        )
        refused = await client.call_tool(
            "relation",
            {
                "operation": "unlink",
                "model": "accounts",
                "key": "acc1",
                "relation": "representatives",
                "target": "rep1",
            },
        )
        annotated = {tool["name"]: tool.get("annotations") for tool in await client.list_tools()}
    assert again["structuredContent"] == loaded["structuredContent"]
    assert keys["structuredContent"] == {
        "keys": ["rep1"],
        "count": 1,
        "truncated": False,
        "limit": 1000,
    }
    assert (refused.get("isError"), text(refused)) == (
        True,
        "operation 'unlink' is disabled in readonly mode",
    )
    assert annotated["relation"] is not None
    assert annotated["relation"]["readOnlyHint"] is True


def toolbox(data: Path, relations: Path, readonly: bool = False) -> Any:
    return open_toolbox(
        root=data,
        data=data,
        readonly=readonly,
        builtins=builtin_factories(),
        select=["database"],
        relations=relations,
    )


async def ask(manager: ToolManager, name: str, **arguments: Any) -> Any:
    result = await manager.execute({"id": "c", "name": name, "arguments": arguments})
    return result["value"] if result["success"] else ("error", result["error"])


async def test_a_key_of_no_accepted_form_is_refused_naming_the_forms_it_takes(
    tmp_path: Path,
) -> None:
    relations = tmp_path / "relations.toml"
    relations.write_text(RELATIONS_TOML)
    wrong = {"id": "acc1"}
    load = {"operation": "load", "manager": "shop", "model": "accounts", "key": wrong}
    links = {**load, "operation": "links", "relation": "contacts"}
    get = {"operation": "get", "id": "shop", "table": "accounts", "key": wrong}
    async with serving(tmp_path, relations) as client:
        await fill(client)
        answers = [
            await client.call_tool(tool, arguments)
            for tool, arguments in (("relation", load), ("relation", links), ("database", get))
        ]
    assert [(answer.get("isError"), text(answer)) for answer in answers] == [
        (
            True,
            "malformed relation call: load: key: expected array, string or number, received object",
        ),
        (
            True,
            "malformed relation call: links: key: expected string or number, received object",
        ),
        (
            True,
            "malformed database call: get: key: expected array, string or number, received object",
        ),
    ]


async def test_a_json_file_and_a_database_recreated_under_the_tool(tmp_path: Path) -> None:
    relations = tmp_path / "relations.json"
    relations.write_text(
        json.dumps({"shop": {"accounts": {"contacts": ["accountId"]}, "contacts": {}}})
    )
    load = {"model": "accounts", "key": "acc1", "include": ["contacts"]}
    async with toolbox(tmp_path, relations) as manager:
        await ask(manager, "database", operation="create", id="shop", tables=TABLES)
        await ask(manager, "database", operation="add", id="shop", table="accounts", row=ACME)
        await ask(manager, "database", operation="add", id="shop", table="contacts", row=ADA)
        first = await ask(manager, "relation", operation="load", **load)
        await ask(manager, "database", operation="destroy", id="shop")
        gone = await ask(manager, "relation", operation="load", **load)
        await ask(manager, "database", operation="create", id="shop", tables=TABLES)
        empty = await ask(manager, "relation", operation="load", **load)
        await ask(manager, "database", operation="add", id="shop", table="accounts", row=ACME)
        await ask(manager, "database", operation="add", id="shop", table="contacts", row=ADA)
        fresh = await ask(manager, "relation", operation="load", **load)
    assert first == {"row": {**ACME, "contacts": [ADA]}}
    assert gone == ("error", "unknown database 'shop'")
    # `destroy` dropped the rows with the database, so the recreated id starts empty; the
    # answers come from a manager rebuilt over the new handle.
    assert empty == {"row": None}
    assert fresh == first


async def test_a_map_the_database_cannot_serve_fails_its_calls_typed(tmp_path: Path) -> None:
    relations = tmp_path / "relations.json"
    relations.write_text(json.dumps({"shop": {"accounts": {"contacts": ["ownerId"]}}}))
    async with toolbox(tmp_path, relations) as manager:
        await ask(manager, "database", operation="create", id="shop", tables=TABLES)
        tool = manager.tool("relation")
        assert tool is not None
        from orkestrel.toolbox import ToolboxError

        with pytest.raises(ToolboxError) as caught:
            await tool.execute({"operation": "find", "model": "accounts"})
    assert caught.value.code == "RELATION"
    assert caught.value.context is not None
    assert caught.value.context["code"] == "INVALID"
    assert "ownerId" in caught.value.message


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="orkestrel")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


@pytest.mark.parametrize(
    ("name", "content", "extra", "status", "message"),
    [
        ("missing.toml", None, [], 1, "cannot read relations file"),
        ("bad.toml", "[shop\n", [], 1, "is not valid"),
        ("bad.json", "{", [], 1, "is not valid"),
        ("list.json", "[]", [], 1, "must map database ids"),
        ("flat.json", '{"shop": 1}', [], 1, "must map tables to relation maps"),
        (
            "kind.json",
            '{"shop": {"a": {"r": {"colour": "red"}}}}',
            [],
            1,
            'shop.a: relation "r": unknown field "colour"',
        ),
        ("ok.json", '{"shop": {}}', ["--tools", "infer"], 2, "--relations needs the database"),
    ],
)
async def test_a_bad_relations_file_stops_serve_before_it_starts(
    tmp_path: Path,
    name: str,
    content: str | None,
    extra: list[str],
    status: int,
    message: str,
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    err = io.StringIO()
    options = parse(
        "--transport",
        "http",
        "--port",
        "0",
        "--root",
        str(tmp_path),
        "--relations",
        str(path),
        *extra,
    )
    assert await run_serve(options, stderr=err) == status
    assert err.getvalue().startswith("orkestrel serve: ")
    assert message in err.getvalue()
    assert "listening on" not in err.getvalue()
