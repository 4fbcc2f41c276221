"""Junction rows: `link` and `unlink` each one transaction, `links` in junction order, and the
typed refusals of relations that are not `through`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import anyio
import pytest

from orkestrel.database import Column, DatabaseError, SessionInterface, create_database
from orkestrel.relation import RelationError, create_relation_manager, has_through

from .conftest import CountingDriver, CountingSession
from .shop import RELATIONS, TABLES, fill

pytestmark = pytest.mark.anyio


async def opened(driver: Any) -> Any:
    database = create_database(tables=TABLES, driver=driver)
    await fill(database)
    return database, create_relation_manager(database=database, relations=RELATIONS)


async def test_link_is_idempotent_and_unlink_removes_the_pair(make_driver: Any) -> None:
    database, manager = await opened(make_driver())
    bolt = manager.model("accounts")
    try:
        assert await bolt.links("acc2", "representatives") == ["rep1"]
        assert await bolt.link("acc2", "representatives", "rep2") is True
        assert await bolt.link("acc2", "representatives", "rep2") is False
        assert sorted(await bolt.links("acc2", "representatives")) == ["rep1", "rep2"]
        assert await database.table("accountReps").count() == 4
        assert await bolt.unlink("acc2", "representatives", "rep1") == 1
        assert await bolt.unlink("acc2", "representatives", "rep1") == 0
        assert await bolt.links("acc2", "representatives") == ["rep2"]
        back = manager.model("representatives")
        assert sorted(await back.links("rep2", "accounts")) == ["acc1", "acc2"]
        loaded = await bolt.load("acc2", {"representatives": True})
        assert loaded["representatives"] == [{"id": "rep2", "name": "Ray"}]
    finally:
        await database.close()


async def test_links_keeps_junction_order_and_takes_a_limit(make_driver: Any) -> None:
    database, manager = await opened(make_driver())
    acme = manager.model("accounts")
    try:
        assert await acme.links("acc1", "representatives") == ["rep2", "rep1"]
        assert await acme.links("acc1", "representatives", limit=1) == ["rep2"]
        assert await acme.links("acc1", "representatives", limit=0) == []
        assert await acme.links("ghost", "representatives") == []
    finally:
        await database.close()


async def test_unlink_removes_every_duplicate_pair(make_driver: Any) -> None:
    database, manager = await opened(make_driver())
    try:
        await database.table("accountReps").add({"id": "j0", "accountId": "acc2", "repId": "rep1"})
        loaded = await manager.model("accounts").load("acc2", {"representatives": True})
        assert [rep["id"] for rep in loaded["representatives"]] == ["rep1", "rep1"]
        assert await manager.model("accounts").unlink("acc2", "representatives", "rep1") == 2
        assert await manager.model("accounts").links("acc2", "representatives") == []
    finally:
        await database.close()


async def test_concurrent_links_of_one_pair_write_one_row(make_driver: Any) -> None:
    database, manager = await opened(make_driver())
    written: list[bool] = []

    async def link() -> None:
        written.append(await manager.model("accounts").link("acc2", "representatives", "rep2"))

    try:
        async with anyio.create_task_group() as group:
            for _ in range(20):
                group.start_soon(link)
        assert sorted(written) == [False] * 19 + [True]
        linked = await manager.model("accounts").links("acc2", "representatives")
        assert sorted(linked) == ["rep1", "rep2"]
    finally:
        await database.close()


class FailingSession(CountingSession):
    """Fails the `nth` write statement of the unit of work."""

    def __init__(self, session: SessionInterface, log: list[str], nth: int) -> None:
        super().__init__(session, log)
        self._left = nth

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        self._left -= 1
        if self._left == 0:
            raise RuntimeError("disk on fire")
        return super().run(sql, params)


class FailingDriver(CountingDriver):
    nth = 0

    async def run(self, work: Callable[[SessionInterface], Any], **options: Any) -> Any:
        if not self.nth:
            return await super().run(work, **options)
        nth = self.nth
        return await self._driver.run(
            lambda session: work(FailingSession(session, self.statements, nth)), **options
        )


async def test_a_failing_unlink_removes_nothing(make_driver: Any) -> None:
    driver = FailingDriver(make_driver())
    database, manager = await opened(driver)
    try:
        await database.table("accountReps").add({"id": "j0", "accountId": "acc2", "repId": "rep1"})
        driver.nth = 2  # the second DELETE of the two duplicate pairs fails
        with pytest.raises(DatabaseError) as caught:
            await manager.model("accounts").unlink("acc2", "representatives", "rep1")
        assert caught.value.code == "DRIVER"
        driver.nth = 0
        assert await manager.model("accounts").links("acc2", "representatives") == [
            "rep1",
            "rep1",
        ]
    finally:
        await database.close()


async def test_a_failing_link_writes_nothing(make_driver: Any) -> None:
    driver = FailingDriver(make_driver())
    database, manager = await opened(driver)
    try:
        driver.nth = 1
        with pytest.raises(DatabaseError):
            await manager.model("accounts").link("acc2", "representatives", "rep2")
        driver.nth = 0
        assert await manager.model("accounts").links("acc2", "representatives") == ["rep1"]
    finally:
        await database.close()


@pytest.mark.parametrize("call", ["link", "unlink", "links"])
async def test_junction_calls_need_a_through_relation(
    counting: Callable[[], CountingDriver], call: str
) -> None:
    driver = counting()
    database, manager = await opened(driver)
    accounts = manager.model("accounts")
    extra = () if call == "links" else ("rep1",)
    try:
        driver.reset()
        for relation, code in (("contacts", "NOT_THROUGH"), ("nope", "UNKNOWN_RELATION")):
            with pytest.raises(RelationError) as caught:
                await getattr(accounts, call)("acc1", relation, *extra)
            assert caught.value.code == code
            assert caught.value.context == {"model": "accounts", "relation": relation}
        assert driver.statements == []
    finally:
        await database.close()


async def test_links_skips_junction_rows_without_a_target(make_driver: Any) -> None:
    tables = {
        "people": {"id": "string"},
        "groups": {"id": "string"},
        "members": {"person": "string", "group": Column("string", optional=True)},
    }
    database = create_database(tables=tables, driver=make_driver())
    manager = create_relation_manager(
        database=database,
        relations={"people": {"groups": has_through("members", "person", "group", "groups")}},
    )
    try:
        await database.table("members").add(
            [
                {"id": "1", "person": "p"},
                {"id": "2", "person": "p", "group": "g"},
            ]
        )
        assert await manager.model("people").links("p", "groups", limit=1) == ["g"]
    finally:
        await database.close()


async def test_integer_keys_link_through_their_own_type(make_driver: Any) -> None:
    tables = {
        "users": {"id": "integer"},
        "roles": {"id": "integer", "name": "string"},
        "grants": {"user": "integer", "role": "integer"},
    }
    database = create_database(tables=tables, driver=make_driver())
    manager = create_relation_manager(
        database=database,
        relations={"users": {"roles": has_through("grants", "user", "role", "roles")}},
    )
    try:
        await database.table("users").add({"id": 1})
        await database.table("roles").add({"id": 7, "name": "admin"})
        users = manager.model("users")
        assert await users.link(1, "roles", 7) is True
        assert await users.link("1", "roles", "7") is False  # coerced to the columns' type
        assert await users.links(1, "roles") == [7]
        loaded = await users.load(1, {"roles": True})
        assert loaded == {"id": 1, "roles": [{"id": 7, "name": "admin"}]}
        with pytest.raises(DatabaseError) as caught:
            await users.link("one", "roles", 7)
        assert caught.value.code == "VALIDATION"
        assert await database.table("grants").count() == 1
    finally:
        await database.close()


async def test_links_and_load_come_back_in_link_order_so_a_limit_cuts_the_tail(
    make_driver: Any,
) -> None:
    tables = {
        "people": {"id": "string"},
        "groups": {"id": "string"},
        "members": {"person": "string", "group": "string"},
    }
    database = create_database(tables=tables, driver=make_driver())
    manager = create_relation_manager(
        database=database,
        relations={"people": {"groups": has_through("members", "person", "group", "groups")}},
    )
    order = [f"g{n}" for n in (7, 2, 9, 0, 5, 3, 8, 1, 6, 4, 11, 10)]
    try:
        await database.table("people").add({"id": "p"})
        await database.table("groups").add([{"id": group} for group in order])
        people = manager.model("people")
        for group in order:
            assert await people.link("p", "groups", group) is True
        assert await people.links("p", "groups") == order
        assert await people.links("p", "groups", limit=4) == order[:4]
        loaded = await people.load("p", {"groups": True})
        assert [group["id"] for group in loaded["groups"]] == order
    finally:
        await database.close()
