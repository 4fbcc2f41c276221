"""`TasksExtension`: the Tasks extension (SEP-2663) for the official MCP client (2.x line), so
that `Client(..., extensions=[TasksExtension()]).call_tool(...)` declares it, and a call a
server answers with a task is polled to its result behind the same `call_tool`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import anyio
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import TypeAdapter

from orkestrel.mcp.constants import TASK_POLL_INTERVAL_MS, TASKS_EXTENSION

_ANSWER: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])
INTERNAL_ERROR = -32603


class TaskIdParams(RequestParams):
    """Represents the params of `tasks/get` and `tasks/cancel`: the task's id."""

    task_id: str


class GetTask(Request[TaskIdParams, Literal["tasks/get"]]):
    """Represents a `tasks/get` request."""

    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams
    name_param = "taskId"


class CancelTask(Request[TaskIdParams, Literal["tasks/cancel"]]):
    """Represents a `tasks/cancel` request."""

    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams
    name_param = "taskId"


class CreatedTask(Result):
    """Represents a `CreateTaskResult`: the handle a server answers a call with."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


async def get_task(session: Any, task_id: str) -> dict[str, Any]:
    """Sends `tasks/get` for `task_id` on an open `ClientSession`; gives the wire answer."""
    answer: dict[str, Any] = await session.send_request(
        GetTask(params=TaskIdParams(task_id=task_id)), _ANSWER
    )
    return answer


async def cancel_task(session: Any, task_id: str) -> None:
    """Sends `tasks/cancel` for `task_id` on an open `ClientSession`."""
    await session.send_request(CancelTask(params=TaskIdParams(task_id=task_id)), _ANSWER)


async def poll_task(session: Any, task_id: str, interval_ms: int | None = None) -> CallToolResult:
    """Polls task `task_id` until it ends; gives its result, or raises `MCPError` for a failed
    or cancelled task. Cancelling the poll cancels the task."""
    try:
        while True:
            answer = await get_task(session, task_id)
            status = answer.get("status")
            if status == "completed":
                return CallToolResult.model_validate(answer.get("result") or {}, by_name=False)
            if status == "failed":
                error = answer.get("error") or {}
                raise MCPError(
                    int(error.get("code", INTERNAL_ERROR)), str(error.get("message", "failed"))
                )
            if status == "cancelled":
                raise MCPError(INTERNAL_ERROR, f"task {task_id} was cancelled")
            wait = answer.get("pollIntervalMs") or interval_ms or TASK_POLL_INTERVAL_MS
            await anyio.sleep(int(wait) / 1000)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            await cancel_task(session, task_id)
        raise


async def _resolve(created: CreatedTask, context: ClaimContext) -> CallToolResult:
    return await poll_task(context.session, created.task_id, created.poll_interval_ms)


class TasksExtension(ClientExtension):
    """Represents the Tasks extension on the client: declared on every request, and a task
    answer to `tools/call` is polled to its result."""

    identifier = TASKS_EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        """The `resultType: "task"` answer of `tools/call`, resolved by polling."""
        return (ResultClaim(result_type="task", model=CreatedTask, resolve=_resolve),)
