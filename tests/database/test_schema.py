"""Declarations, opening, version stamps, drift, read-only engines and the lifecycle."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest

from orkestrel.database import Column, DatabaseError, create_database, create_postgres_driver

from .conftest import MakeDriver, drop_schema

pytestmark = pytest.mark.anyio

SHOP = {"products": {"id": "string", "name": "string", "price": Column("number", optional=True)}}


async def code_of(call: Any) -> str:
    with pytest.raises(DatabaseError) as caught:
        await call
    return caught.value.code


@pytest.mark.parametrize(
    ("tables", "extra"),
    [
        ({"t": {"a": "text"}}, {}),
        ({"t": {"a": Column("string"), "A": "string"}}, {}),
        ({"t": {}, "T": {}}, {}),
        ({"": {"a": "string"}}, {}),
        ({"t": {"": "string"}}, {}),
        ({"t": {"a\x00b": "string"}}, {}),
        ({"x" * 64: {"a": "string"}}, {}),
        ({"sqlite_master": {"a": "string"}}, {}),
        ({"pg_class": {"a": "string"}}, {}),
        ({"_orkestrel_metadata": {"a": "string"}}, {}),
        ({"t": {"a": "string"}}, {"primary": {"t": "b\x01"}}),
        ({"t": {"a": "boolean"}}, {"primary": {"t": "a"}}),
        ({"t": {"a": Column("string", optional=True)}}, {"primary": {"t": "a"}}),
        ({"t": {"a": "string"}}, {"indexes": {"t": [["nope"]]}}),
        ({"t": {"a": "string"}}, {"indexes": {"t": [[]]}}),
        ({"t": {"a": "string"}}, {"indexes": {"t": [["a", "a"]]}}),
        ({"t": {"a": "string"}}, {"indexes": {"u": [["a"]]}}),
        ({"t": {"a": "string"}}, {"primary": {"u": "a"}}),
        ({"t": {"a": "string"}}, {"version": float("nan")}),
        ({"t": "not columns"}, {}),
        ("not tables", {}),
    ],
)
def test_bad_declarations_are_refused(tables: Any, extra: dict[str, Any]) -> None:
    with pytest.raises(DatabaseError) as caught:
        create_database(tables=tables, **extra)
    assert caught.value.code == "VALIDATION"


def test_export_and_row_schema() -> None:
    database = create_database(
        tables={"people": {"name": "string", "age": Column("integer", optional=True)}},
        indexes={"people": [["name"], ["age", "name"], ["name"]]},
    )
    assert database.export() == {
        "people": {
            "primary": "id",
            "columns": {
                "id": {"type": "string", "optional": False},
                "name": {"type": "string", "optional": False},
                "age": {"type": "integer", "optional": True},
            },
            "indexes": [["name"], ["age", "name"]],
        }
    }
    assert database.table("people").schema == {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "name": {"type": "string"},
            "age": {"type": "integer"},
        },
        "required": ["id", "name"],
        "additionalProperties": False,
    }
    assert database.tables() == ["people"]
    assert database.status == "idle"


def test_an_undeclared_table_is_not_found() -> None:
    database = create_database(tables=SHOP)
    for name in ("nope", "Products", 5):
        with pytest.raises(DatabaseError) as caught:
            database.table(name)
        assert caught.value.code == "NOT_FOUND"


async def test_lifecycle(make_driver: MakeDriver) -> None:
    database = create_database(tables=SHOP, driver=make_driver())
    assert database.status == "idle"
    await database.table("products").count()
    assert database.status == "open"
    await database.close()
    await database.close()
    assert database.status == "closed"
    assert await code_of(database.table("products").count()) == "CLOSED"
    assert await code_of(database.open()) == "CLOSED"


async def test_a_driver_serves_one_database(make_driver: MakeDriver) -> None:
    driver = make_driver()
    first = create_database(tables=SHOP, driver=driver)
    second = create_database(tables={"other": {"x": "string"}}, driver=driver)
    await first.open()
    assert await code_of(second.open()) == "VALIDATION"
    await first.close()


async def test_rows_persist_in_durable_stores(make_durable: MakeDriver) -> None:
    make_driver = make_durable
    first = create_database(tables=SHOP, driver=make_driver(), indexes={"products": [["name"]]})
    await first.table("products").add({"id": "a", "name": "A"})
    await first.close()
    second = create_database(tables=SHOP, driver=make_driver(), indexes={"products": [["name"]]})
    assert await second.table("products").get("a") == {"id": "a", "name": "A"}
    await second.close()


async def test_stored_tables_that_differ_from_the_declaration_are_refused(
    make_durable: MakeDriver,
) -> None:
    make_driver = make_durable
    first = create_database(tables=SHOP, driver=make_driver())
    await first.open()
    await first.close()
    changed = {"products": {"id": "string", "name": "integer"}}
    second = create_database(tables=changed, driver=make_driver())
    assert await code_of(second.open()) == "MIGRATION"


async def test_version_stamps_and_upgrades(make_durable: MakeDriver) -> None:
    make_driver = make_durable
    first = create_database(tables=SHOP, driver=make_driver(), version=1)
    await first.table("products").add({"id": "a", "name": "A"})
    await first.close()

    same = create_database(tables=SHOP, driver=make_driver(), version=1)
    assert await same.table("products").count() == 1
    await same.close()

    drifted = {"products": {**SHOP["products"], "note": Column("string", optional=True)}}
    silent = create_database(tables=drifted, driver=make_driver(), version=1)
    assert await code_of(silent.open()) == "MIGRATION"

    older = create_database(tables=SHOP, driver=make_driver(), version=0.5)
    assert await code_of(older.open()) == "MIGRATION"

    required = {"products": {**SHOP["products"], "note": "string"}}
    refused = create_database(tables=required, driver=make_driver(), version=2)
    assert await code_of(refused.open()) == "MIGRATION"

    upgraded = create_database(
        tables={**drifted, "audit": {"what": "string"}},
        indexes={"products": [["note"]]},
        driver=make_driver(),
        version=2,
    )
    products = upgraded.table("products")
    assert await products.get("a") == {"id": "a", "name": "A"}
    await products.update("a", {"note": "kept"})
    await upgraded.table("audit").add({"what": "upgrade"})
    await upgraded.close()

    again = create_database(
        tables={**drifted, "audit": {"what": "string"}},
        indexes={"products": [["note"]]},
        driver=make_driver(),
        version=2,
    )
    assert await again.table("products").get("a") == {"id": "a", "name": "A", "note": "kept"}
    await again.close()


async def test_a_read_only_database_refuses_writes_at_the_engine(
    make_driver: MakeDriver, engine: str
) -> None:
    if engine != "memory":
        writer = create_database(tables=SHOP, driver=make_driver())
        await writer.table("products").add({"id": "a", "name": "A"})
        await writer.close()
    reader = create_database(tables=SHOP, driver=make_driver(), readonly=True)
    products = reader.table("products")
    expected = [] if engine == "memory" else ["a"]
    assert await products.keys() == expected
    for call in (
        products.add({"id": "b", "name": "B"}),
        products.set({"id": "a", "name": "changed"}),
        products.update("a", {"name": "changed"}),
        products.remove("a"),
        products.clear(),
    ):
        with pytest.raises(DatabaseError) as caught:
            await call
        assert caught.value.code == "DRIVER"
    assert await products.keys() == expected
    await reader.close()


async def test_a_read_only_open_of_missing_tables_is_refused(make_durable: MakeDriver) -> None:
    make_driver = make_durable
    writer = create_database(tables=SHOP, driver=make_driver())
    await writer.open()
    await writer.close()
    reader = create_database(
        tables={**SHOP, "missing": {"a": "string"}}, driver=make_driver(), readonly=True
    )
    assert await code_of(reader.open()) == "MIGRATION"


async def test_a_dropped_postgres_connection_is_replaced(postgres_dsn: str) -> None:
    schema = f"r_{uuid.uuid4().hex[:12]}"
    database = create_database(
        tables=SHOP, driver=create_postgres_driver(postgres_dsn, schema=schema)
    )
    products = database.table("products")
    await products.add({"id": "a", "name": "A"})
    pid = database.driver._connection.info.backend_pid
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pytest.raises(DatabaseError) as caught:
        await products.count()
    assert caught.value.code == "DRIVER"
    assert caught.value.context["retryable"] is True
    assert await products.keys() == ["a"]
    await database.close()
    drop_schema(postgres_dsn, schema)


def test_a_driver_that_does_not_conform_is_refused() -> None:
    class Fake:
        dialect = "sqlite"

        async def run(self) -> None: ...

    for driver in (Fake(), object(), "memory"):
        with pytest.raises(DatabaseError) as caught:
            create_database(tables=SHOP, driver=driver)  # type: ignore[arg-type]
        assert caught.value.code == "CONFORMANCE"


async def test_indexes_and_the_version_stamp_are_real(make_driver: MakeDriver, engine: str) -> None:
    database = create_database(
        tables=SHOP,
        driver=make_driver(),
        indexes={"products": [["name"], ["price", "name"]]},
        version=3,
        name="shop",
    )
    await database.open()
    dialect = database.driver.dialect
    if engine in ("postgres", "pooled"):
        listing = "SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND tablename = 'products'"
        params: list[Any] = [dialect.namespace]
    else:
        listing = "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'products'"
        params = []
    stamps = dialect.table("_orkestrel_metadata")
    meta = f'SELECT "version", "schema" FROM {stamps} WHERE "name" = {dialect.mark}'

    def inspect(session: Any) -> Any:
        return session.rows(listing, params), session.rows(meta, ["shop"])

    indexes, stamp = await database.driver.run(inspect, write=False)
    definitions = " ".join(str(row[0]) for row in indexes if row[0])
    assert '("name")' in definitions.replace("(name)", '("name")')
    assert "price" in definitions
    assert len([row for row in indexes if row[0] and "ork_" in row[0]]) == 2
    assert stamp[0][0] == 3
    assert '"products"' in stamp[0][1]
    await database.close()
