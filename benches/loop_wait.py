"""What waiting for a PostgreSQL answer costs, per statement, in CPU time: a sync psycopg
connection against the same statement driven on the event loop (`execute_on_loop`), with the
loop's wait (`inline=0`) and with the inline wait of a quick server (`POSTGRES_INLINE_WAIT`).

    eval "$(.ci/postgres start)"
    nice -n -15 python benches/loop_wait.py 5000 6

One `SELECT %s::int` per call on connections opened once in autocommit mode, the contenders
rotated within each round; it prints each one's median CPU and wall time per statement.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable

import psycopg

from orkestrel.database import POSTGRES_INLINE_WAIT
from orkestrel.database.drivers.postgres_loop import execute_on_loop

SQL = "SELECT %s::int"


async def timed(calls: int, rounds: int) -> dict[str, tuple[list[float], list[float]]]:
    dsn = os.environ["ORKESTREL_POSTGRES_DSN"]
    sync = psycopg.connect(dsn, autocommit=True)
    looped = psycopg.connect(dsn, autocommit=True)

    async def raw() -> None:
        for _ in range(calls):
            sync.execute(SQL, (1,)).fetchall()

    def on_loop(inline: float) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            for _ in range(calls):
                cursor = looped.cursor()
                await execute_on_loop(cursor, SQL, (1,), lambda: None, inline)
                cursor.fetchall()

        return run

    works = [
        ("sync psycopg", raw),
        ("on the loop, the loop waits", on_loop(0.0)),
        ("on the loop, inline wait", on_loop(POSTGRES_INLINE_WAIT)),
    ]
    found: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name, _ in works}
    try:
        for r in range(rounds):
            turn = r % len(works)
            for name, work in works[turn:] + works[:turn]:
                start, used = time.perf_counter(), time.process_time()
                await work()
                found[name][0].append((time.process_time() - used) / calls)
                found[name][1].append((time.perf_counter() - start) / calls)
    finally:
        sync.close()
        looped.close()
    return found


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    found = asyncio.run(timed(calls, rounds))
    print("| contender | CPU per statement | wall per statement |")
    print("| --- | --- | --- |")
    for name, (cpu, wall) in found.items():
        print(
            f"| {name} | {statistics.median(cpu) * 1e6:.1f} µs "
            f"| {statistics.median(wall) * 1e6:.1f} µs |"
        )


if __name__ == "__main__":
    main()
