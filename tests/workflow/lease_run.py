"""One runner process of the lease test: waits until its rival is ready too, then resumes the
shared run and prints its answer (or the `LEASE` refusal) as one JSON line.

    python lease_run.py STORE COUNTER NAME RIVAL

STORE is a SQLite path or a `postgresql://...#schema` DSN; each task appends its id to COUNTER.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio

from orkestrel.database import DriverInterface, create_postgres_driver, create_sqlite_driver
from orkestrel.workflow import (
    TaskControllerInterface,
    WorkflowError,
    create_database_workflow_store,
    create_workflow_runner,
)

TASKS = 7


def definition() -> dict[str, Any]:
    """A gate that fails while the service is down and bails the run, then `TASKS` tasks one
    after another."""
    first = {"id": "gate", "name": "Gate", "behavior": "gate"}
    rest = [{"id": f"t{i}", "name": f"T{i}", "behavior": "step"} for i in range(TASKS)]
    return {
        "id": "shared",
        "name": "Shared",
        "bail": True,
        "phases": [
            {"id": "one", "name": "One", "tasks": [first]},
            {"id": "two", "name": "Two", "concurrency": 1, "tasks": rest},
        ],
    }


def driver_of(store: str) -> DriverInterface:
    if store.startswith("postgresql://"):
        dsn, schema = store.rsplit("#", 1)
        return create_postgres_driver(dsn, schema=schema)
    return create_sqlite_driver(store)


async def main(store: str, counter: Path, name: str, rival: str) -> None:
    async def step(controller: TaskControllerInterface) -> str:
        with counter.open("a") as sink:
            sink.write(f"{controller.task.id} {name}\n")
        await anyio.sleep(0.05)
        return controller.task.id

    async def gate(controller: TaskControllerInterface) -> str:
        if name == "setup":
            raise RuntimeError("the service is down")
        return await step(controller)

    keep = create_database_workflow_store(driver_of(store))
    functions = {"step": step, "gate": gate}
    if name == "setup":
        result = await create_workflow_runner().execute(
            definition(), functions=functions, store=keep
        )
        await keep.close()
        print(json.dumps({"status": result.status}))
        return
    (counter.parent / f"{name}.ready").write_text("ready")
    with anyio.fail_after(30):
        # The rival is another process: a file is all the two share.
        while not (counter.parent / f"{rival}.ready").exists():  # noqa: ASYNC110
            await anyio.sleep(0.01)
    try:
        result = await create_workflow_runner().execute(
            definition(), functions=functions, store=keep, resume=True
        )
        answer: dict[str, Any] = {"status": result.status, "count": len(result.results)}
    except WorkflowError as error:
        answer = {"code": error.code, "message": str(error)}
    await keep.close()
    print(json.dumps(answer))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4])
