"""Signals: an aborted signal does no work, and one that fires during a load or a junction write
stops it and rolls it back, under asyncio and trio."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from orkestrel.abort import AbortController
from orkestrel.database import DatabaseError, SessionInterface

from .conftest import CountingDriver, CountingSession
from .shop import fill, shop

pytestmark = pytest.mark.anyio


class AbortingSession(CountingSession):
    """Fires a controller when the unit of work reaches a statement on `table`."""

    def __init__(
        self, session: SessionInterface, log: list[str], table: str, controller: AbortController
    ) -> None:
        super().__init__(session, log)
        self._table = f'"{table}"'
        self._controller = controller

    def _check(self, sql: str) -> None:
        if self._table in sql:
            self._controller.abort("stop")

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self._check(sql)
        return super().rows(sql, params)

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        self._check(sql)
        return super().run(sql, params)


class AbortingDriver(CountingDriver):
    table = ""
    controller: AbortController | None = None

    async def run(self, work: Callable[[SessionInterface], Any], **options: Any) -> Any:
        controller = self.controller
        if controller is None:
            return await super().run(work, **options)
        table = self.table
        return await self._driver.run(
            lambda s: work(AbortingSession(s, self.statements, table, controller)), **options
        )


async def test_an_aborted_signal_runs_no_statement(make_driver: Any) -> None:
    driver = CountingDriver(make_driver())
    database, manager = shop(driver)
    await fill(database)
    stopped = AbortController()
    stopped.abort()
    accounts = manager.model("accounts")
    driver.reset()
    try:
        calls = [
            accounts.load("acc1", {"contacts": True}, signal=stopped.signal),
            accounts.find({"contacts": True}, signal=stopped.signal),
            accounts.link("acc2", "representatives", "rep2", signal=stopped.signal),
            accounts.unlink("acc1", "representatives", "rep1", signal=stopped.signal),
            accounts.links("acc1", "representatives", signal=stopped.signal),
        ]
        for call in calls:
            with pytest.raises(DatabaseError) as caught:
                await call
            assert caught.value.code == "ABORTED"
        assert driver.statements == []
    finally:
        await database.close()


async def test_a_signal_during_a_load_stops_it(make_driver: Any) -> None:
    driver = AbortingDriver(make_driver())
    database, manager = shop(driver)
    await fill(database)
    controller = AbortController()
    driver.table, driver.controller = "representatives", controller
    driver.reset()
    include = {"contacts": True, "representatives": True, "notes": True}
    try:
        with pytest.raises(DatabaseError) as caught:
            await manager.model("accounts").load("acc1", include, signal=controller.signal)
        assert caught.value.code == "ABORTED"
        assert any('"contacts"' in sql for sql in driver.statements)
        assert not any('"notes"' in sql for sql in driver.statements)
    finally:
        await database.close()


async def test_a_signal_during_an_unlink_rolls_it_back(make_driver: Any) -> None:
    driver = AbortingDriver(make_driver())
    database, manager = shop(driver)
    await fill(database)
    await database.table("accountReps").add({"id": "j0", "accountId": "acc1", "repId": "rep1"})
    controller = AbortController()
    try:
        driver.table, driver.controller = "accountReps", controller
        with pytest.raises(DatabaseError) as caught:
            await manager.model("accounts").unlink(
                "acc1", "representatives", "rep1", signal=controller.signal
            )
        assert caught.value.code == "ABORTED"
        driver.controller = None
        assert sorted(await manager.model("accounts").links("acc1", "representatives")) == [
            "rep1",
            "rep1",
            "rep2",
        ]
    finally:
        await database.close()
