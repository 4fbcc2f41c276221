"""The checks the workflow family's composition shares: registry snapshots and what makes a
value a live agent."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import anyio

from orkestrel._errors import raise_alone
from orkestrel.abort import AbortController, AbortSignal
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.workflow.constants import MAX_FAILURE_MESSAGE
from orkestrel.workflow import WorkflowError

_AGENT_MEMBERS = ("id", "status", "context", "generate")

CANCELLED = "the call was cancelled"
"""The reason a run is stopped with when the call that started it is cancelled."""

LEASE_POLL_SECONDS = 1.0
"""How long a resumed call waits before it asks again for a lease whose holder's refusal did
not say when the lease runs out."""

T = TypeVar("T")


def snapshot_registry(option: str, value: Mapping[str, Any] | None) -> dict[str, Any]:
    """A shallow copy of a registry option, or `TOOL` when it is not a readable mapping with
    string keys."""
    if value is None:
        return {}
    try:
        copied = dict(value.items()) if isinstance(value, Mapping) else None
    except Exception:
        copied = None
    if copied is None:
        raise ToolboxError("TOOL", f"workflow {option} must be a mapping of name to value")
    for key in copied:
        if type(key) is not str or not key:
            raise ToolboxError(
                "TOOL", f"workflow {option} names must be non-empty strings", {"name": repr(key)}
            )
    return copied


def is_live_agent(value: object) -> bool:
    """Whether `value` offers what a workflow runs an agent through: an `id`, a `status`, a
    `context` and a callable `generate`; total on any input."""
    try:
        return all(hasattr(value, name) for name in _AGENT_MEMBERS) and callable(
            getattr(value, "generate", None)
        )
    except Exception:
        return False


def cut_message(message: str) -> str:
    """`message`, cut to `MAX_FAILURE_MESSAGE` characters ending with `…` when longer."""
    if len(message) > MAX_FAILURE_MESSAGE:
        return f"{message[: MAX_FAILURE_MESSAGE - 1]}…"
    return message


async def run_to_end(start: Callable[[AbortSignal], Awaitable[T]]) -> T:
    """Awaits `start(signal)` shielded from the caller's cancellation: when the caller is
    cancelled, `signal` aborts with `CANCELLED` and the run is awaited to its own end (so it
    stops and checkpoints as `stopped`, never left `running`) before the cancellation goes on."""
    abort = AbortController()
    done = anyio.Event()
    box: list[T] = []

    async def body() -> None:
        try:
            with anyio.CancelScope(shield=True):
                box.append(await start(abort.signal))
        finally:
            done.set()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(body)
            try:
                await done.wait()
            except anyio.get_cancelled_exc_class():
                abort.abort(CANCELLED)
                raise
    except BaseExceptionGroup as group:
        raise_alone(group)
    return box[0]


async def run_after_lease(start: Callable[[AbortSignal], Awaitable[T]], resume: bool) -> T:
    """`run_to_end(start)`; when the call `resume`s an interrupted run and another runner still
    holds the run's lease (`LEASE`), waits until that lease runs out and starts again, as long
    as it takes.

    The interrupted runner's lease outlives it by up to the lease's time, and the server that
    took its task over may get there first (the dead server's last beat can be older than its
    last lease write when its loop ran late); refusing then would settle a task that only had
    to wait. A runner that is still alive keeps its lease renewed, so the call waits on while
    that run goes on, and the wait is cancelled with the call."""
    while True:
        try:
            return await run_to_end(start)
        except WorkflowError as error:
            if not resume or error.code != "LEASE":
                raise
            left = (error.context or {}).get("expires_in")
            await anyio.sleep(left / 1000 if type(left) is int and left > 0 else LEASE_POLL_SECONDS)
