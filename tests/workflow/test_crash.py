"""Durability for real: kill -9 a process in the middle of a three-phase run over a SQLite
store, resume in a new process, and compare with a run that was never interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.database import create_sqlite_driver
from orkestrel.workflow import create_database_workflow_store, create_restored_workflow
from workflow.samples import statuses

SCRIPT = Path(__file__).with_name("crash_run.py")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def finish(database: Path, counter: Path, mode: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(database), str(counter), mode],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


async def stored(database: Path) -> Any:
    store = create_database_workflow_store(create_sqlite_driver(database))
    try:
        return await store.get("crash")
    except Exception:
        return None
    finally:
        await store.close()


@pytest.mark.anyio
async def test_a_killed_run_resumes_without_rerunning_completed_tasks(tmp_path: Path) -> None:
    database, counter = tmp_path / "runs.sqlite3", tmp_path / "counter.txt"
    process = subprocess.Popen(  # noqa: ASYNC220 (the process runs beside the loop on purpose)
        [sys.executable, str(SCRIPT), str(database), str(counter), "crash"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            snapshot = await stored(database) if database.exists() else None
            if (
                snapshot is not None
                and (tmp_path / "counter.txt.parked").exists()
                and statuses(snapshot)
                == {
                    "a": "completed",
                    "b": "completed",
                    "c": "completed",
                    "hang": "running",
                    "d": "pending",
                }
            ):
                break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the run never reached the crash point"
            await anyio.sleep(0.05)
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(30) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
        if process.stderr is not None:
            process.stderr.close()
    assert sorted(counter.read_text().split()) == ["a", "b", "c"]
    interrupted = await stored(database)
    assert create_restored_workflow(interrupted).status == "running"

    resumed = finish(database, counter, "resume")
    assert sorted(counter.read_text().split()) == ["a", "b", "c", "d", "hang"]

    plain = finish(tmp_path / "plain.sqlite3", tmp_path / "plain.txt", "plain")
    assert resumed == plain
    assert resumed["status"] == "completed"
    assert resumed["durable"] is True
    final = await stored(database)
    assert final["phases"][1]["tasks"][1]["attempts"] == 2
