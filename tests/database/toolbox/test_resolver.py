"""The resolver: a copied handle cache, and databases rebuilt from stored definitions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.database import create_database, create_memory_driver, create_sqlite_factory
from orkestrel.toolbox import ToolboxError, create_database_tool
from orkestrel.toolbox.database.factories import create_memory_definition_store
from orkestrel.toolbox.database.resolver import DatabaseResolver

pytestmark = pytest.mark.anyio

TABLES = {"products": {"name": "string"}}


async def test_the_cache_is_a_copy_of_the_callers_map() -> None:
    database = create_database(tables=TABLES)
    handles: dict[str, Any] = {"shop": database}
    resolver = DatabaseResolver(handles, {"memory": create_memory_driver})
    handles["other"] = database
    assert resolver.has("shop")
    assert not resolver.has("other")
    assert resolver.get("shop") is database
    resolver.delete("shop")
    assert resolver.get("shop") is None
    resolver.set("shop", database)
    assert await resolver.resolve("shop") is database


async def test_unknown_ids_and_drivers_are_tool_errors() -> None:
    store = create_memory_definition_store()
    resolver = DatabaseResolver(None, {"memory": create_memory_driver}, None, store)
    with pytest.raises(ToolboxError) as caught:
        await resolver.resolve("nope")
    assert (caught.value.code, caught.value.context) == ("TOOL", {"id": "nope"})
    await store.set({"id": "odd", "driver": "cloud", "tables": {}})
    with pytest.raises(ToolboxError) as caught:
        await resolver.resolve("odd")
    assert caught.value.context == {"id": "odd", "driver": "cloud"}


async def test_stored_definitions_build_and_reuse_a_live_database(tmp_path: Path) -> None:
    store = create_memory_definition_store()
    await store.set(
        {
            "id": "shop",
            "driver": "sqlite",
            "tables": {"products": {"columns": {"sku": "integer", "name": "string"}}},
            "primary": {"products": "sku"},
            "indexes": {"products": [["name"]]},
            "version": 4,
        }
    )
    drivers = {"sqlite": create_sqlite_factory(tmp_path)}
    resolver = DatabaseResolver(None, drivers, None, store)
    database = await resolver.resolve("shop")
    assert await resolver.resolve("shop") is database
    assert database.export()["products"]["primary"] == "sku"
    assert database.export()["products"]["indexes"] == [["name"]]
    await database.table("products").add({"sku": 1, "name": "Widget"})
    await database.close()

    again = await DatabaseResolver(None, drivers, None, store).resolve("shop")
    assert await again.table("products").get(1) == {"sku": 1, "name": "Widget"}
    await again.close()
    files = [path.name async for path in anyio.Path(tmp_path).glob("*.sqlite3")]
    assert files == ["shop.sqlite3"]


async def test_a_readonly_resolver_opens_databases_read_only(tmp_path: Path) -> None:
    store = create_memory_definition_store()
    await store.set(
        {"id": "shop", "driver": "sqlite", "tables": {"products": {"columns": {"name": "string"}}}}
    )
    drivers = {"sqlite": create_sqlite_factory(tmp_path)}
    writer = await DatabaseResolver(None, drivers, None, store).resolve("shop")
    await writer.table("products").add({"id": "a", "name": "A"})
    await writer.close()
    reader = await DatabaseResolver(None, drivers, None, store, readonly=True).resolve("shop")
    assert reader.readonly
    assert await reader.table("products").keys() == ["a"]
    await reader.close()


async def test_close_closes_every_cached_database_and_keeps_definitions() -> None:
    store = create_memory_definition_store()
    await store.set({"id": "shop", "driver": "memory", "tables": {}})
    resolver = DatabaseResolver(None, {"memory": create_memory_driver}, None, store)
    first = await resolver.resolve("shop")
    await first.open()
    await resolver.close()
    assert first.status == "closed"
    assert not resolver.has("shop")
    assert await store.get("shop") is not None
    assert (await resolver.resolve("shop")) is not first


def test_a_tool_takes_a_resolver_or_the_parts_of_one_not_both() -> None:
    resolver = DatabaseResolver(None, {"memory": create_memory_driver})
    assert create_database_tool(resolver=resolver).name == "database"
    with pytest.raises(ToolboxError) as caught:
        create_database_tool(resolver=resolver, drivers={})
    assert caught.value.code == "TOOL"


class SlowStore:
    """A memory definition store whose reads take a while and are counted."""

    def __init__(self) -> None:
        self.inner = create_memory_definition_store()
        self.reads = 0

    async def get(self, id: str) -> Any:
        self.reads += 1
        await anyio.sleep(0.05)
        return await self.inner.get(id)

    async def set(self, definition: Any) -> None:
        await self.inner.set(definition)

    async def delete(self, id: str) -> None:
        await self.inner.delete(id)


async def test_concurrent_resolves_share_reads_and_see_what_was_stored_before_them() -> None:
    store = SlowStore()
    await store.set({"id": "shop", "driver": "memory", "tables": {"a": {"columns": {}}}})
    resolver = DatabaseResolver(None, {"memory": create_memory_driver}, None, store)
    seen: list[list[str]] = []

    async def resolve() -> None:
        seen.append((await resolver.resolve("shop")).tables())

    async with anyio.create_task_group() as group:
        for _ in range(100):
            group.start_soon(resolve)
        await anyio.sleep(0.01)
        # Stored while the first read runs: every resolve asked after this sees it.
        await store.set({"id": "shop", "driver": "memory", "tables": {"b": {"columns": {}}}})
        late: list[list[str]] = []

        async def resolve_late() -> None:
            late.append((await resolver.resolve("shop")).tables())

        group.start_soon(resolve_late)
    assert len(seen) == 100
    assert late == [["b"]]
    assert store.reads <= 3
    await resolver.close()


class LateReadStore:
    """A memory definition store whose second read takes its answer, then returns it only
    after a definition was stored: a read that ran before a concurrent create stored its
    definition and finished after the create had set its handle."""

    def __init__(self) -> None:
        self.inner = create_memory_definition_store()
        self.reads = 0
        self.first = anyio.Event()
        self.reading = anyio.Event()
        self.stored = anyio.Event()

    async def get(self, id: str) -> Any:
        self.reads += 1
        answer = await self.inner.get(id)
        if self.reads == 1:
            self.first.set()
        if self.reads == 2:
            self.reading.set()
            await self.stored.wait()
        return answer

    async def set(self, definition: Any) -> None:
        await self.reading.wait()
        await self.inner.set(definition)
        self.stored.set()

    async def delete(self, id: str) -> None:
        await self.inner.delete(id)


async def test_a_read_that_asked_before_a_concurrent_create_finished_keeps_the_new_database() -> (
    None
):
    """Found by pydantic-ai, which runs a turn's tool calls at once: a `records` on an id being
    created read "none stored" before the create stored its definition, found the create's
    handle when that read came back, and closed it as stale: the create failed with "the
    database is closed" and was taken back out, or, when it had already answered, its live
    database was dropped."""
    store = LateReadStore()
    tool = create_database_tool(store=store)
    create = {
        "operation": "create",
        "id": "log",
        "tables": {"notes": {"columns": {"body": "string"}}},
    }
    records = {"operation": "records", "id": "log", "table": "notes"}
    answers: dict[str, Any] = {}

    async def run(key: str, args: dict[str, Any]) -> None:
        try:
            answers[key] = await tool.execute(args)
        except ToolboxError as error:
            answers[key] = str(error)

    async with anyio.create_task_group() as group:
        group.start_soon(run, "create", create)
        await store.first.wait()  # the create's own read, before it stores the definition
        group.start_soon(run, "records", records)
    assert store.reads == 2
    assert answers["create"] == {"id": "log", "tables": ["notes"]}, answers
    database = tool.resolver.get("log")
    assert database is not None
    assert database.status == "open"
    await tool.execute({"operation": "add", "id": "log", "table": "notes", "row": {"body": "a"}})
    assert (await tool.execute(records))["count"] == 1
    assert await store.inner.get("log") is not None
    await tool.resolver.close()


async def test_ids_list_given_handles_and_stored_definitions_by_prefix_within_a_limit() -> None:
    given = create_database(tables=TABLES)
    store = create_memory_definition_store()
    for id in ("shop", "shipping", "stock", "sh%"):
        await store.set({"id": id, "driver": "memory", "tables": {}})
    resolver = DatabaseResolver({"shelf": given}, {"memory": create_memory_driver}, None, store)
    assert await resolver.ids("sh", 10) == (["sh%", "shelf", "shipping", "shop"], 4)
    assert await resolver.ids("sh", 2) == (["sh%", "shelf"], 4)
    assert await resolver.ids("%", 10) == ([], 0)
    bare = DatabaseResolver({"shelf": given, "other": given}, {"memory": create_memory_driver})
    assert await bare.ids("", 10) == (["other", "shelf"], 2)

    class Unlisted:
        async def get(self, id: str) -> Any:
            return None

        async def set(self, definition: Any) -> None:
            return None

        async def delete(self, id: str) -> None:
            return None

    # A store that cannot list its ids adds none: only the given handle is known.
    opaque = DatabaseResolver({"shelf": given}, {"memory": create_memory_driver}, None, Unlisted())
    assert await opaque.ids("s", 10) == (["shelf"], 1)
