"""Fixtures for the relation suite: the database suite's engines (memory, a SQLite file and
PostgreSQL), and a driver that counts the statements each unit of work runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import pytest

from database.conftest import (  # noqa: F401  (fixtures shared with the database suite)
    MakeDriver,
    engine,
    make_driver,
    postgres_dsn,
    postgres_pool,
)
from orkestrel.abort import AbortSignal
from orkestrel.database import DriverInterface, SessionInterface

T = TypeVar("T")


class CountingSession:
    """Passes statements to a real session and records each one."""

    def __init__(self, session: SessionInterface, log: list[str]) -> None:
        self._session = session
        self._log = log

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self._log.append(sql)
        return self._session.rows(sql, params)

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        self._log.append(sql)
        return self._session.run(sql, params)

    def many(self, sql: str, params: Sequence[Sequence[Any]]) -> None:
        self._log.append(sql)
        self._session.many(sql, params)


class CountingDriver:
    """Wraps a real driver; `statements` lists the SQL of every statement run since `reset`,
    and `units` counts the units of work (transactions)."""

    def __init__(self, driver: DriverInterface) -> None:
        self._driver = driver
        self.statements: list[str] = []
        self.units = 0

    @property
    def dialect(self) -> Any:
        return self._driver.dialect

    @property
    def closed(self) -> bool:
        return self._driver.closed

    @property
    def durable(self) -> bool:
        return self._driver.durable

    async def open(self, schemas: Mapping[str, Any], **options: Any) -> None:
        await self._driver.open(schemas, **options)

    async def run(
        self,
        work: Callable[[SessionInterface], T],
        *,
        write: bool,
        signal: AbortSignal | None = None,
    ) -> T:
        self.units += 1
        return await self._driver.run(
            lambda session: work(CountingSession(session, self.statements)),
            write=write,
            signal=signal,
        )

    async def destroy(self, schemas: Mapping[str, Any], *, name: str) -> None:
        await self._driver.destroy(schemas, name=name)

    async def close(self) -> None:
        await self._driver.close()

    def reset(self) -> None:
        self.statements.clear()
        self.units = 0

    def selects(self, table: str) -> int:
        """How many statements since `reset` read from `table`."""
        quoted = f'"{table}"'
        return sum(1 for sql in self.statements if sql.startswith("SELECT") and quoted in sql)


@pytest.fixture
def counting(make_driver: MakeDriver) -> Callable[[], CountingDriver]:  # noqa: F811
    """Builds counting drivers over the test's engine."""
    return lambda: CountingDriver(make_driver())
