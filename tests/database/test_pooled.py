"""The pooled PostgreSQL driver: units of work side by side on borrowed connections, and a
pool that has none free within its timeout failing as a retryable driver error."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from orkestrel.database import (
    DatabaseError,
    create_database,
    create_postgres_driver,
    create_postgres_pool,
)

from .conftest import drop_schema

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def pool(postgres_dsn: str) -> Iterator[Any]:
    made = create_postgres_pool(postgres_dsn, size=2, timeout=0.5, name="orkestrel-pooled-test")
    try:
        yield made
    finally:
        made.close()


def shop(pool: Any, schema: str) -> Any:
    return create_database(
        tables={"items": {"n": "integer"}},
        driver=create_postgres_driver(pool=pool, schema=schema),
    )


async def test_units_of_work_run_side_by_side_on_borrowed_connections(
    pool: Any, postgres_dsn: str
) -> None:
    database = shop(pool, "pooled_side")
    try:
        await database.table("items").add({"id": "a", "n": 1})
        pids: list[int] = []
        # Both units must be inside their transactions at once to pass the barrier: run one
        # after the other, the first would time out waiting for the second.
        together = threading.Barrier(2, timeout=30)

        def busy(session: Any) -> None:
            pids.append(int(session.rows("SELECT pg_backend_pid()")[0][0]))
            together.wait()

        async with anyio.create_task_group() as group:
            for _ in range(2):
                group.start_soon(lambda: database.driver.run(busy, write=False))
        assert len(set(pids)) == 2
    finally:
        await database.close()
        drop_schema(postgres_dsn, "pooled_side")


async def test_no_free_connection_within_the_timeout_is_a_retryable_driver_error(
    pool: Any, postgres_dsn: str
) -> None:
    database = shop(pool, "pooled_busy")
    try:
        await database.table("items").count()
        held = [pool.getconn(), pool.getconn()]
        try:
            with pytest.raises(DatabaseError) as caught:
                await database.table("items").count()
        finally:
            for connection in held:
                pool.putconn(connection)
        assert caught.value.code == "DRIVER"
        assert caught.value.context == {"engine": "postgres", "retryable": True}
        assert await database.table("items").count() == 0
    finally:
        await database.close()
        drop_schema(postgres_dsn, "pooled_busy")


def test_a_pool_needs_a_positive_size() -> None:
    with pytest.raises(DatabaseError) as caught:
        create_postgres_pool("postgresql://localhost/none", size=0)
    assert caught.value.code == "VALIDATION"
