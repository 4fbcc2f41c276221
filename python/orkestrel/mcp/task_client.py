"""`TasksExtension`: the Tasks extension (SEP-2663) for the official MCP client (2.x line), so
that `Client(..., extensions=[TasksExtension()]).call_tool(...)` declares it, and a call a
server answers with a task is polled to its result behind the same `call_tool`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import anyio
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, ErrorData, InputRequest, Request, RequestParams, Result
from pydantic import TypeAdapter

from orkestrel.mcp.constants import TASK_POLL_INTERVAL_MS, TASKS_EXTENSION

_ANSWER: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])
_INPUT_REQUEST: TypeAdapter[InputRequest] = TypeAdapter(InputRequest)
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


class UpdateTaskParams(RequestParams):
    """Represents the params of `tasks/update`: the task's id and the answers to its input
    requests, by key."""

    task_id: str
    input_responses: dict[str, Any]


class UpdateTask(Request[UpdateTaskParams, Literal["tasks/update"]]):
    """Represents a `tasks/update` request."""

    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateTaskParams
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


async def update_task(session: Any, task_id: str, responses: dict[str, Any]) -> None:
    """Sends `tasks/update` for `task_id` with `responses` (wire answers by input request key)
    on an open `ClientSession`."""
    params = UpdateTaskParams(task_id=task_id, input_responses=responses)
    await session.send_request(UpdateTask(params=params), _ANSWER)


async def answer_inputs(session: Any, task_id: str, requests: dict[str, Any]) -> None:
    """Answers the input requests of an `input_required` task through the client's own
    callbacks (its elicitation callback for a form), as `tasks/update`. Raises `MCPError`
    when a callback declines (a client with no elicitation callback, say)."""
    responses: dict[str, Any] = {}
    for key, raw in requests.items():
        request = _INPUT_REQUEST.validate_python(raw)
        meta = request.params.meta if request.params is not None else None
        context = ClientRequestContext(session=session, request_id=key, meta=meta)
        response = await session.dispatch_input_request(context, request)
        if isinstance(response, ErrorData):
            raise MCPError.from_error_data(response)
        responses[key] = response.model_dump(by_alias=True, mode="json", exclude_none=True)
    await update_task(session, task_id, responses)


async def poll_task(session: Any, task_id: str, interval_ms: int | None = None) -> CallToolResult:
    """Polls task `task_id` until it ends; gives its result, or raises `MCPError` for a failed
    or cancelled task. An `input_required` task's requests are answered through the client's
    callbacks (each key once). Cancelling the poll, or a request the client cannot answer,
    cancels the task."""
    answered: set[str] = set()
    try:
        while True:
            answer = await get_task(session, task_id)
            status = answer.get("status")
            requests = answer.get("inputRequests") or {}
            fresh = {key: value for key, value in requests.items() if key not in answered}
            if status == "input_required" and fresh:
                try:
                    await answer_inputs(session, task_id, fresh)
                except MCPError:
                    await _cancel(session, task_id)
                    raise
                answered.update(fresh)
                continue
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
        await _cancel(session, task_id)
        raise


async def _cancel(session: Any, task_id: str) -> None:
    with anyio.CancelScope(shield=True), anyio.move_on_after(5):
        await cancel_task(session, task_id)


async def _resolve(created: CreatedTask, context: ClaimContext) -> CallToolResult:
    return await poll_task(context.session, created.task_id, created.poll_interval_ms)


class TasksExtension(ClientExtension):
    """Represents the Tasks extension on the client: declared on every request, and a task
    answer to `tools/call` is polled to its result."""

    identifier = TASKS_EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        """The `resultType: "task"` answer of `tools/call`, resolved by polling."""
        return (ResultClaim(result_type="task", model=CreatedTask, resolve=_resolve),)
