"""Instructions of `ToolManager.execute` over a bare await of its async handler, counted by
callgrind: the same call as `ratios.py tool`, one phase per dump.

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.tool \\
        python benches/count_tool.py 20000
    for f in /tmp/cg.tool.*; do grep -m1 '^desc: Trigger' $f; grep -m1 '^summary:' $f; done

Divide each summary by the count given (20000); execute's overhead is the difference of the
two. A fixed hash seed keeps dict layouts, and so the counts, the same from run to run.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from count_database import dump
from orkestrel.tool import Tool, ToolManager


async def add(args: dict[str, Any]) -> float:
    return float(args["left"]) + float(args["right"])


async def count(calls: int) -> None:
    tools = ToolManager()
    tools.add(Tool(name="add", execute=add))
    arguments = {"left": 2, "right": 3}
    call: Any = {"id": "1", "name": "add", "arguments": arguments}
    execute = tools.execute
    for _ in range(100):
        await execute(call)
        await add(arguments)
    dump("setup")
    for _ in range(calls):
        await add(arguments)
    dump("bare await")
    for _ in range(calls):
        await execute(call)
    dump("ToolManager.execute")


if __name__ == "__main__":
    asyncio.run(count(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000))
