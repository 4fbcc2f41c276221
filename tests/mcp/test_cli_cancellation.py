"""Cancelled calls over stdio: `orkestrel serve` as a real process, fed database calls that the
client cancels at random moments, keeps answering and lets go of every thread it took."""

from __future__ import annotations

import json
import queue
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

ORKESTREL = [sys.executable, "-m", "orkestrel"]
STORM = 1000
ANSWER_WITHIN = 60.0
SETTLE_WITHIN = 60.0
IDLE_EXPIRY = 10.5
WATCHDOG = 180.0


class Served:
    """A served toolbox spoken to in raw JSON-RPC lines, so the test controls every
    `notifications/cancelled` it sends and when."""

    def __init__(self, tmp_path: Path) -> None:
        command = [*ORKESTREL, "serve", "--root", str(tmp_path / "root")]
        command += ["--data", str(tmp_path / "data"), "--tools", "database,infer"]
        (tmp_path / "root").mkdir()
        self._log = open(tmp_path / "stderr.log", "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log
        )
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self._watchdog = threading.Timer(WATCHDOG, self.process.kill)
        self._watchdog.start()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put(json.loads(line))

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.process.stdin.flush()

    def call(self, id_: int, name: str, arguments: dict[str, Any]) -> None:
        self.send(
            {"id": id_, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        )

    def cancel(self, id_: int) -> None:
        self.send({"method": "notifications/cancelled", "params": {"requestId": id_}})

    def answer(self, id_: int) -> dict[str, Any]:
        deadline = time.monotonic() + ANSWER_WITHIN
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no answer to request {id_} within {ANSWER_WITHIN} s")
            try:
                message = self.answers.get(timeout=remaining)
            except queue.Empty:
                continue
            if message.get("id") == id_:
                return message

    def threads(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(line for line in status.splitlines() if line.startswith("Threads:"))
        return int(line.split()[1])

    def close(self) -> None:
        self._watchdog.cancel()
        self.process.kill()
        self.process.communicate(timeout=15)
        self._log.close()


def count(id_: int) -> tuple[int, str, dict[str, Any]]:
    return id_, "database", {"operation": "count", "id": "shop", "table": "items"}


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc for threads")
def test_a_thousand_random_cancellations_leave_the_server_answering_with_no_thread_behind(
    tmp_path: Path,
) -> None:
    served = Served(tmp_path)
    try:
        served.send(
            {
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "canceller", "version": "0"},
                },
            }
        )
        served.answer(0)
        served.send({"method": "notifications/initialized"})
        tables = {"items": {"columns": {"n": "integer"}}}
        served.call(1, "database", {"operation": "create", "id": "shop", "tables": tables})
        assert "error" not in served.answer(1)
        served.call(*count(2))
        assert served.answer(2)["result"]["structuredContent"] == {"count": 0}
        baseline = served.threads()

        chance = random.Random(12)
        for id_ in range(100, 100 + STORM):
            if id_ % 2:
                served.call(*count(id_))
            else:
                row = {"n": id_}
                served.call(
                    id_,
                    "database",
                    {"operation": "add", "id": "shop", "table": "items", "row": row},
                )
            pause = chance.choice((0.0, 0.0, 0.0001, 0.0005, 0.002))
            if pause:
                time.sleep(pause)
            served.cancel(id_)

        served.call(*count(5000))
        assert "count" in served.answer(5000)["result"]["structuredContent"]
        served.call(5001, "infer", {"samples": [{"a": 1}]})
        assert "error" not in served.answer(5001)

        # anyio retires a worker thread idle for 10 s when the next job arrives, so each round
        # waits past that and sends a call; a thread still held by a cancelled call never goes.
        deadline = time.monotonic() + SETTLE_WITHIN
        for id_ in range(6000, 7000):
            time.sleep(IDLE_EXPIRY)
            served.call(*count(id_))
            assert "count" in served.answer(id_)["result"]["structuredContent"]
            time.sleep(0.5)
            if served.threads() <= baseline or time.monotonic() > deadline:
                break
        assert served.threads() <= baseline
    finally:
        served.close()
