"""Both definition stores keep the same get / set / delete contract."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from orkestrel.database import create_sqlite_driver
from orkestrel.toolbox.database.factories import (
    create_database_definition_store,
    create_memory_definition_store,
)

pytestmark = pytest.mark.anyio

SHOP: Any = {
    "id": "shop",
    "driver": "memory",
    "tables": {
        "products": {
            "columns": {"name": "string", "tags": {"primitive": "string", "optional": True}}
        }
    },
    "primary": {"products": "name"},
    "indexes": {"products": [["tags"]]},
    "version": 1,
}


@pytest.fixture(params=["memory", "database", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    if request.param == "memory":
        yield create_memory_definition_store()
        return
    driver = create_sqlite_driver(tmp_path / "defs.sqlite3") if request.param == "sqlite" else None
    durable = create_database_definition_store(driver)
    yield durable
    await durable.close()


async def test_round_trip_replace_and_delete(store: Any) -> None:
    assert await store.get("shop") is None
    await store.set(SHOP)
    assert await store.get("shop") == SHOP
    await store.set({**SHOP, "driver": "sqlite"})
    assert (await store.get("shop"))["driver"] == "sqlite"
    await store.delete("shop")
    assert await store.get("shop") is None
    await store.delete("shop")
    await store.delete("never stored")


async def test_optional_metadata_is_kept_only_when_given(store: Any) -> None:
    minimal = {"id": "audit", "driver": "memory", "tables": {}}
    await store.set(minimal)
    assert await store.get("audit") == minimal


async def test_stored_state_never_aliases_the_caller(store: Any) -> None:
    definition = {**SHOP, "tables": {"t": {"columns": {"a": "string"}}}}
    await store.set(definition)
    definition["tables"]["t"]["columns"]["a"] = "number"
    read = await store.get("shop")
    assert read["tables"]["t"]["columns"]["a"] == "string"
    read["tables"]["t"]["columns"]["b"] = "boolean"
    assert "b" not in (await store.get("shop"))["tables"]["t"]["columns"]


async def test_the_database_store_reports_malformed_blobs_as_absent() -> None:
    store = create_database_definition_store()
    table: Any = store._table
    for blob in (
        {"id": "x"},
        "just text",
        [1, 2],
        {"id": "x", "driver": "m", "tables": {}, "keys": {}},
    ):
        await table.set({"id": "x", "definition": blob})
        assert await store.get("x") is None
    await store.close()


async def test_the_database_store_needs_an_id() -> None:
    store = create_database_definition_store()
    for bad in ({"driver": "memory", "tables": {}}, {"id": "", "driver": "m", "tables": {}}):
        with pytest.raises(ValueError, match="id"):
            await store.set(bad)
    await store.close()


async def test_a_sqlite_store_keeps_definitions_across_instances(tmp_path: Path) -> None:
    def make() -> Any:
        return create_database_definition_store(create_sqlite_driver(tmp_path / "defs.sqlite3"))

    first = make()
    await first.set(SHOP)
    await first.close()
    second = make()
    assert await second.get("shop") == SHOP
    await second.close()
