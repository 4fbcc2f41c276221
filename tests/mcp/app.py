"""A small tool set served over MCP, for the bridge's tests: in process, or as a subprocess.

Run as `python tests/mcp/app.py [--transport stdio|http] [--port N]`. Over HTTP it prints
`listening on <url>` to stderr once it accepts connections.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from orkestrel.mcp import serve
from orkestrel.tool import ToolManager, create_tool

NUMBERS = {
    "type": "object",
    "properties": {"left": {"type": "number"}, "right": {"type": "number"}},
    "required": ["left", "right"],
}


async def poll(check: Callable[[], Awaitable[bool]]) -> None:
    """Waits until `check` answers true, for at most a minute."""
    with anyio.fail_after(60):
        while True:
            if await check():
                return
            await anyio.sleep(0.01)


async def running(path: Any) -> bool:
    """Whether the `watch` call writing to `path` is running: its marker reads `started`."""
    marker = anyio.Path(str(path))
    return await marker.exists() and await marker.read_text() == "started"


async def settled(path: Any) -> bool:
    """Whether the `watch` call writing to `path` has ended: cancelled or finished."""
    marker = anyio.Path(str(path))
    return await marker.exists() and await marker.read_text() in ("cancelled", "finished")


def build() -> ToolManager:
    """Builds the registry every bridge test serves."""

    async def add(args: dict[str, Any]) -> float:
        left, right = args.get("left"), args.get("right")
        if not isinstance(left, int | float) or not isinstance(right, int | float):
            raise ValueError("add: left and right must be numbers")
        return left + right

    def echo(args: dict[str, Any]) -> dict[str, Any]:
        return dict(args)

    async def slow(args: dict[str, Any]) -> str:
        await anyio.sleep(float(args.get("seconds", 30)))
        return "slow"

    async def watch(args: dict[str, Any]) -> str:
        marker = anyio.Path(str(args["marker"]))
        try:
            await marker.write_text("started")
            await anyio.sleep(60)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await marker.write_text("cancelled")
            raise
        await marker.write_text("finished")
        return "finished"

    async def gate(args: dict[str, Any]) -> str:
        await poll(anyio.Path(str(args["path"])).exists)
        return "opened"

    arrivals: dict[str, tuple[int, anyio.Event]] = {}

    async def meet(args: dict[str, Any]) -> int:
        group, size, index = str(args["group"]), int(args["size"]), int(args["index"])
        count, everyone = arrivals.get(group, (0, anyio.Event()))
        arrivals[group] = (count + 1, everyone)
        if count + 1 >= size:
            everyone.set()
        with anyio.fail_after(60):
            await everyone.wait()
        return index

    def shout(args: dict[str, Any]) -> str:
        return str(args["text"]).upper()

    def noisy(args: dict[str, Any]) -> str:
        print("stray output that must not reach the protocol stream")
        return "quiet"

    def multiline(args: dict[str, Any]) -> None:
        raise RuntimeError("first line\nsecond line")

    def loop(args: dict[str, Any]) -> list[Any]:
        cycle: list[Any] = []
        cycle.append(cycle)
        return cycle

    manager = ToolManager()
    manager.add(
        [
            create_tool(
                name="add",
                summary="Add two numbers.",
                description="Adds two numbers and answers their sum.",
                parameters=NUMBERS,
                annotations={"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
                execute=add,
            ),
            create_tool(name="echo", description="Answers its arguments.", execute=echo),
            create_tool(name="slow", description="Sleeps, then answers.", execute=slow),
            create_tool(name="watch", description="Records its own cancellation.", execute=watch),
            create_tool(name="gate", description="Waits until a file exists.", execute=gate),
            create_tool(
                name="meet", description="Answers once `size` calls are in flight.", execute=meet
            ),
            create_tool(
                name="shout",
                description="Upper-cases a text.",
                annotations={"destructiveHint": False, "title": "Shout"},
                execute=shout,
            ),
            create_tool(name="multiline", description="Fails on two lines.", execute=multiline),
            create_tool(name="loop", description="Answers a cyclic value.", execute=loop),
            create_tool(name="noisy", description="Prints to stdout.", execute=noisy),
        ]
    )
    return manager


async def main(argv: list[str]) -> None:
    """Serves `build()` on the transport the command line names."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args(argv)
    manager = build()
    async with anyio.create_task_group() as group:
        where = await group.start(
            lambda task_status: serve(
                manager, options.transport, port=options.port, task_status=task_status
            )
        )
        if options.transport == "http":
            print(f"listening on {where}", file=sys.stderr, flush=True)
        grow_on = os.environ.get("ORKESTREL_TEST_GROW_ON")
        if grow_on:
            # Adds a tool outside any call once the file exists, for the list-change tests.
            await poll(anyio.Path(grow_on).exists)
            manager.add(create_tool(name="grown", execute=lambda args: "grown"))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
