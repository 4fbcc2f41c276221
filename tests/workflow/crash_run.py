"""A three-phase run over a SQLite-backed store, run as its own process by `test_crash.py`.

    python crash_run.py DATABASE COUNTER MODE

MODE `crash` parks the task `hang` forever (after writing `COUNTER.parked`) so the test can
kill the process; `resume` continues the stored run; `plain` runs from the start. Every task
appends its id to COUNTER when it finishes; the result is printed as JSON on stdout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio

from orkestrel.database import create_sqlite_driver
from orkestrel.workflow import (
    TaskControllerInterface,
    WorkflowError,
    create_database_workflow_store,
    create_workflow_runner,
)

DEFINITION: dict[str, Any] = {
    "id": "crash",
    "name": "Crash",
    "phases": [
        {
            "id": "one",
            "name": "One",
            "tasks": [
                {"id": "a", "name": "A", "behavior": "work", "input": {"n": 1}},
                {"id": "b", "name": "B", "behavior": "work", "input": {"n": 2}},
            ],
        },
        {
            "id": "two",
            "name": "Two",
            "concurrency": 2,
            "tasks": [
                {"id": "c", "name": "C", "behavior": "work", "input": {"n": 3}},
                {"id": "hang", "name": "Hang", "behavior": "hang", "input": {"n": 4}},
            ],
        },
        {"id": "three", "name": "Three", "tasks": [{"id": "d", "name": "D", "behavior": "work"}]},
    ],
}


LEASE_TTL = 400


async def main(database: Path, counter: Path, mode: str) -> None:
    def finish(controller: TaskControllerInterface) -> dict[str, Any]:
        with counter.open("a") as sink:
            sink.write(controller.task.id + "\n")
        return {"task": controller.task.id, "input": controller.input}

    async def work(controller: TaskControllerInterface) -> dict[str, Any]:
        return finish(controller)

    async def hang(controller: TaskControllerInterface) -> dict[str, Any]:
        if mode == "crash":
            (counter.parent / (counter.name + ".parked")).write_text("parked")
            await anyio.sleep_forever()
        return finish(controller)

    store = create_database_workflow_store(create_sqlite_driver(database))
    # The killed run's lease outlives it by at most its time: the resume takes it over then.
    runner = create_workflow_runner(lease_ttl=LEASE_TTL)
    with anyio.fail_after(30):
        while True:
            try:
                result = await runner.execute(
                    DEFINITION,
                    functions={"work": work, "hang": hang},
                    store=store,
                    resume=mode == "resume",
                )
                break
            except WorkflowError as error:
                if error.code != "LEASE":
                    raise
                await anyio.sleep(LEASE_TTL / 4000)
    await store.close()
    answer = {
        "status": result.status,
        "durable": result.durable,
        "results": [[item.task.id, item.status, item.result] for item in result.results],
    }
    print(json.dumps(answer))


if __name__ == "__main__":
    anyio.run(main, Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
