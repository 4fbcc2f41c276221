"""`Database.transaction`: several table calls as one transaction, on every engine."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from orkestrel.abort import AbortController
from orkestrel.database import DatabaseError, Transaction, create_database

from .conftest import MakeDriver

pytestmark = pytest.mark.anyio

TABLES = {"accounts": {"name": "string"}, "moves": {"account": "string", "amount": "integer"}}


@pytest.fixture
async def database(make_driver: MakeDriver) -> Any:
    database = create_database(tables=TABLES, driver=make_driver())
    await database.table("accounts").add([{"id": "a", "name": "A"}, {"id": "b", "name": "B"}])
    yield database
    await database.close()


async def code_of(call: Any) -> str:
    with pytest.raises(DatabaseError) as caught:
        await call
    return caught.value.code


async def test_every_call_of_the_work_commits_together(database: Any) -> None:
    def work(tx: Transaction) -> Any:
        moves = tx.table("moves")
        added = moves.add([{"id": "m1", "account": "a", "amount": 5}])
        moves.set({"id": "m2", "account": "b", "amount": 7})
        tx.table("accounts").update("a", {"name": "Ann"})
        seen = moves.records({"order": [{"column": "amount", "direction": "descending"}]})
        return added, [row["id"] for row in seen], moves.count(), moves.aggregate("sum", "amount")

    assert await database.transaction(work) == (["m1"], ["m2", "m1"], 2, 12)
    assert await database.table("moves").keys() == ["m1", "m2"]
    assert (await database.table("accounts").get("a"))["name"] == "Ann"


async def test_a_raising_work_rolls_every_call_back(database: Any) -> None:
    def work(tx: Transaction) -> None:
        tx.table("moves").add({"id": "m1", "account": "a", "amount": 5})
        tx.table("accounts").remove("b")
        tx.table("accounts").add({"id": "a", "name": "again"})  # CONFLICT

    assert await code_of(database.transaction(work)) == "CONFLICT"
    assert await database.table("moves").count() == 0
    assert await database.table("accounts").keys() == ["a", "b"]

    def fails(tx: Transaction) -> None:
        tx.table("moves").add({"id": "m1", "account": "a", "amount": 5})
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await database.transaction(fails)
    assert await database.table("moves").count() == 0


async def test_reads_see_the_transactions_own_writes(database: Any) -> None:
    def work(tx: Transaction) -> Any:
        accounts = tx.table("accounts")
        accounts.remove("a")
        accounts.add({"id": "c", "name": "C"})
        return accounts.keys(), accounts.has(["a", "c"]), accounts.get("c"), accounts.clear()

    keys, has, row, cleared = await database.transaction(work)
    assert (keys, has, row, cleared) == (["b", "c"], [False, True], {"id": "c", "name": "C"}, 2)
    assert await database.table("accounts").count() == 0


async def test_a_read_only_transaction_refuses_writes(database: Any) -> None:
    def work(tx: Transaction) -> Any:
        assert tx.write is False
        names = [row["name"] for row in tx.table("accounts").records()]
        tx.table("accounts").remove("a")
        return names

    assert await code_of(database.transaction(work, write=False)) == "VALIDATION"
    assert await database.table("accounts").keys() == ["a", "b"]
    read = await database.transaction(lambda tx: tx.table("accounts").get(["b", "z"]), write=False)
    assert read == [{"id": "b", "name": "B"}, None]


async def test_async_work_and_stray_calls_are_refused(database: Any) -> None:
    async def coroutine(tx: Transaction) -> None:
        tx.table("accounts").clear()

    assert await code_of(database.transaction(coroutine)) == "VALIDATION"
    assert await code_of(database.transaction(lambda tx: coroutine(tx))) == "VALIDATION"
    assert await database.table("accounts").count() == 2

    kept: list[Transaction] = []
    await database.transaction(kept.append)
    assert kept[0].active is False
    with pytest.raises(DatabaseError) as caught:
        kept[0].table("accounts").count()
    assert caught.value.code == "CLOSED"
    assert await code_of(database.transaction(lambda tx: tx.table("ghost"))) == "NOT_FOUND"


async def test_an_aborted_transaction_does_nothing(database: Any) -> None:
    stopped = AbortController()
    stopped.abort()

    def work(tx: Transaction) -> None:
        tx.table("accounts").clear()

    assert await code_of(database.transaction(work, signal=stopped.signal)) == "ABORTED"
    assert await database.table("accounts").count() == 2


async def test_a_signal_during_the_work_rolls_it_back(database: Any) -> None:
    controller = AbortController()
    started = anyio.Event()
    token = anyio.lowlevel.current_token()

    def work(tx: Transaction) -> None:
        tx.table("accounts").clear()
        anyio.from_thread.run_sync(started.set, token=token)
        anyio.from_thread.run_sync(controller.abort, token=token)
        tx.table("accounts").count()

    assert await code_of(database.transaction(work, signal=controller.signal)) == "ABORTED"
    assert started.is_set()
    assert await database.table("accounts").count() == 2


async def test_a_closed_database_refuses_transactions(database: Any) -> None:
    await database.close()
    assert await code_of(database.transaction(lambda tx: None)) == "CLOSED"


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_transactions_run_under_trio(make_driver: MakeDriver) -> None:
    database = create_database(tables=TABLES, driver=make_driver())
    try:
        key = await database.transaction(lambda tx: tx.table("accounts").add({"name": "T"}))
        assert await database.table("accounts").keys() == [key]
    finally:
        await database.close()


async def test_a_swallowed_failure_still_rolls_back(database: Any) -> None:
    def work(tx: Transaction) -> str:
        accounts = tx.table("accounts")
        accounts.remove("a")
        with pytest.raises(DatabaseError) as caught:
            accounts.add({"id": "b", "name": "again"})
        assert caught.value.code == "CONFLICT"
        accounts.count()
        return "unreachable"

    assert await code_of(database.transaction(work)) == "VALIDATION"
    assert await database.table("accounts").keys() == ["a", "b"]
