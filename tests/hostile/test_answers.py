"""Answers whose JSON would be far larger than the call that asks for them: one row named many
times by `get`, and relation includes that bring one account back under every contact. Each is
refused with one line naming the limit, and the server answers the next call."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from support.mcp_client import Session, text

Serve = Callable[..., AbstractAsyncContextManager[Session]]

pytestmark = pytest.mark.anyio

BIG = 3 << 20
"""The big row's text, in characters: 300 copies of it are 900 MiB of JSON, written twice."""

RELATIONS_TOML = """\
[shop.accounts]
contacts = ["accountId"]

[shop.contacts]
account = { column = "accountId", model = "accounts" }
"""
TABLES = {
    "notes": {"columns": {"text": "string"}},
    "accounts": {"columns": {"name": "string"}},
    "contacts": {"columns": {"name": "string", "accountId": "string"}},
}
CONTACTS = [{"id": f"c{n}", "name": f"C{n}", "accountId": "acc1"} for n in range(300)]


async def ok(client: Session, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = await client.call_tool(name, arguments)
    assert answer.get("isError", False) is False, text(answer)
    return answer


@asynccontextmanager
async def shop(
    serve: Serve, tmp_path: Path, rows: dict[str, Any], *argv: str
) -> AsyncIterator[Session]:
    """`orkestrel serve --relations` over a SQLite database `shop` holding `rows` by table."""
    relations = tmp_path / "relations.toml"
    relations.write_text(RELATIONS_TOML)
    async with serve("--relations", str(relations), *argv) as client:
        create = {"operation": "create", "id": "shop", "driver": "sqlite", "tables": TABLES}
        await ok(client, "database", create)
        for table, row in rows.items():
            add = {"operation": "add", "id": "shop", "table": table, "row": row}
            await ok(client, "database", add)
        yield client


def refusal(answer: dict[str, Any]) -> str:
    assert answer.get("isError") is True, str(answer)[:200]
    line = text(answer)
    assert "\n" not in line
    return line


async def test_a_get_of_one_big_row_named_300_times_is_refused_naming_the_size_cap(
    serve: Serve, tmp_path: Path
) -> None:
    row = {"id": "n1", "text": "x" * BIG}
    get = {"operation": "get", "id": "shop", "table": "notes", "key": ["n1"] * 300}
    async with shop(serve, tmp_path, {"notes": row}) as client:
        refused = await client.call_tool("database", get)
        one = await ok(client, "database", {**get, "key": "n1"})
        two = await client.call_tool("database", {**get, "key": ["n1", "n1"]})
    assert refusal(refused) == (
        "get answer is over the database tool's size cap of 262144 bytes of JSON (size); "
        "ask for fewer keys"
    )
    assert one["structuredContent"] == {"row": row}
    assert refusal(two) == refusal(refused)


async def test_a_load_of_300_contacts_including_account_contacts_account_is_refused(
    serve: Serve, tmp_path: Path
) -> None:
    account = {"id": "acc1", "name": "a" * 10_000}
    load = {
        "operation": "load",
        "model": "contacts",
        "key": [contact["id"] for contact in CONTACTS],
        "include": ["account.contacts.account"],
    }
    async with shop(serve, tmp_path, {"accounts": account, "contacts": CONTACTS}) as client:
        refused = await client.call_tool("relation", load)
        small = await ok(client, "relation", {**load, "key": ["c1", "c2"], "include": ["account"]})
    assert refusal(refused) == (
        "load answer is over the relation tool's size cap of 262144 bytes of JSON (size); "
        "ask for fewer keys or a shorter include"
    )
    assert small["structuredContent"] == {
        "rows": [{**CONTACTS[1], "account": account}, {**CONTACTS[2], "account": account}]
    }


async def test_a_one_row_answer_over_the_server_answer_cap_is_refused_naming_it(
    serve: Serve, tmp_path: Path
) -> None:
    rows = {
        "notes": {"id": "n1", "text": "x" * BIG},
        "accounts": {"id": "acc1", "name": "a" * 100_000},
        "contacts": CONTACTS,
    }
    note = {"operation": "get", "id": "shop", "table": "notes", "key": "n1"}
    # One contact, its account, and that account's 300 contacts, each with the account: one
    # row of 30 MB of JSON, which only the server's cap holds.
    wide = {
        "operation": "load",
        "model": "contacts",
        "key": "c1",
        "include": ["account.contacts.account"],
    }
    async with shop(serve, tmp_path, rows, "--max-answer-bytes", "1000000") as client:
        big = await client.call_tool("database", note)
        loaded = await client.call_tool("relation", wide)
        small = await ok(client, "database", {**note, "key": "missing"})
    line = (
        "the tool's answer is over the server's answer cap of 1000000 bytes of JSON "
        "(max_answer_bytes, serve --max-answer-bytes); ask for less"
    )
    assert refusal(big) == line
    assert refusal(loaded) == line
    assert small["structuredContent"] == {"row": None}
