"""`TaskBroker`: answers the `tools/call` of a long tool with an MCP task (the Tasks extension,
SEP-2663, on the 2026-07-28 protocol) and serves `tasks/get`, `tasks/update` and
`tasks/cancel` from the task rows every server on the same database shares."""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import anyio
from anyio.abc import TaskGroup

from orkestrel._errors import message_of, raise_alone
from orkestrel.mcp.constants import (
    DEFAULT_MAX_LIVE_TASKS,
    DEFAULT_TASK_TTL_MS,
    LIVE_TASK_STATUSES,
    MAX_INPUT_RESPONSE_BYTES,
    MAX_TASK_TTL_MS,
    RESUMABLE_TOOLS,
    TASK_ADOPT_MS,
    TASK_BEAT_SECONDS,
    TASK_POLL_INTERVAL_MS,
    TASKS_EXTENSION,
)
from orkestrel.mcp.elicitation import supports_elicitation
from orkestrel.mcp.principal import owner_digest, principal
from orkestrel.mcp.task_store import TaskStore
from orkestrel.tool import LogLevel, ToolContext

CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
MODERN_VERSIONS = ("2026-07-28",)
INTERNAL_ERROR = -32603
ELICIT = "elicitation/create"

UNKNOWN_TASK = "invalid params: taskId: no such task (unknown, expired, or not this client's)"
"""The one answer to a task id the caller has no task under, whatever the reason, so that
polling reveals nothing of other clients' tasks."""

TaskCall = Callable[[str, Any, ToolContext], Awaitable[dict[str, Any]]]
"""Runs a tool call (the tool's name, its arguments, the task's `ToolContext`) to its wire
result."""

OptedIn = Callable[[str], bool]
"""Whether the tool of that name opted in to running as a task (`create_tool(task=True)`)."""


class TaskLimitError(ValueError):
    """Represents a client that already has as many tasks working as it may."""


def now_ms() -> int:
    """The wall clock in milliseconds since the epoch (rows are compared across servers)."""
    return time.time_ns() // 1_000_000


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z")


def task_wire(row: Mapping[str, Any], *, detailed: bool) -> dict[str, Any]:
    """The `Task` a row stands for; `detailed` adds the result or error of a finished one
    (`tasks/get`), which a `CreateTaskResult` must not carry."""
    entry = row["entry"]
    wire: dict[str, Any] = {
        "taskId": row["id"],
        "status": row["status"],
        "createdAt": _iso(int(entry["created"])),
        "lastUpdatedAt": _iso(int(entry["updated"])),
        "ttlMs": int(entry["ttlMs"]),
        "pollIntervalMs": TASK_POLL_INTERVAL_MS,
    }
    if isinstance(entry.get("statusMessage"), str):
        wire["statusMessage"] = entry["statusMessage"]
    if detailed and row["status"] == "input_required" and entry.get("inputRequests"):
        wire["inputRequests"] = entry["inputRequests"]
    if detailed and isinstance(entry.get("progress"), dict):
        wire["_meta"] = {"orkestrel/progress": entry["progress"]}
    if detailed and row["status"] == "completed":
        wire["result"] = entry.get("result", {})
    if detailed and row["status"] == "failed":
        wire["error"] = entry.get("error", {"code": INTERNAL_ERROR, "message": "failed"})
    return wire


def declares_tasks(context: Any) -> bool:
    """Whether the request of `context` (the SDK's request context) is a 2026-era request whose
    per-request capabilities include the Tasks extension."""
    if getattr(context, "protocol_version", None) not in MODERN_VERSIONS:
        return False
    params = getattr(context, "params", None)
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    capabilities = meta.get(CLIENT_CAPABILITIES) if isinstance(meta, Mapping) else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, Mapping) else None
    return isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions


class TaskContext(ToolContext):
    """Represents the `ToolContext` of a call run as a task: its progress and status messages
    go to the task row (what `tasks/get` answers), at the broker's next beat."""

    def __init__(
        self, broker: TaskBroker, id: str, *, resume: bool = False, elicits: bool = False
    ) -> None:
        self._broker = broker
        self.request_id = id
        self.endpoint: str | None = None
        self.resume = resume
        self.input = TaskInput(broker, id) if elicits else None
        """How an ask inside the task reaches its client, when the client declared that it
        answers form elicitations; `None` otherwise."""

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Records the task's progress, and `message` as its status message."""
        changes: dict[str, Any] = {"progress": {"progress": progress, "total": total}}
        if message:
            changes["statusMessage"] = message
        self._broker.note(self.request_id, changes)

    async def log(self, level: LogLevel, data: Any, *, logger: str | None = None) -> None:
        """Drops the entry: a task has no stream to send it on."""


@dataclass(frozen=True)
class Elicited:
    """Represents the client's answer to a form elicitation, as `tasks/update` carried it."""

    action: str
    content: dict[str, Any] | None = None


class TaskInput:
    """Represents the client of task `id` as an ask reaches it: a form elicitation becomes an
    entry of the task's `inputRequests` (the task reads `input_required` on `tasks/get`), and
    the answer the client sends with `tasks/update` comes back from `elicit_form`."""

    def __init__(self, broker: TaskBroker, id: str) -> None:
        self._broker = broker
        self._id = id

    async def elicit_form(
        self, message: str, requested_schema: dict[str, Any], related_request_id: Any = None
    ) -> Elicited:
        """Asks the task's client the form and waits for its answer."""
        params = {"mode": "form", "message": message, "requestedSchema": requested_schema}
        answer = await self._broker.input(self._id, {"method": ELICIT, "params": params})
        return Elicited(answer["action"], answer.get("content"))


class TaskBroker:
    """Represents the tasks of one server: `tools` are the tool names whose calls become tasks
    for a client that declared the extension (with every tool that opted in, see `attach`),
    kept `ttl_ms` milliseconds from creation, at most `max_live` working at once per client.
    Runs live in the broker's task group (`running()`), each beating its row every
    `TASK_BEAT_SECONDS`; a row cancelled on any server stops its run at the next beat."""

    def __init__(
        self,
        store: TaskStore,
        *,
        tools: Collection[str],
        ttl_ms: int = DEFAULT_TASK_TTL_MS,
        max_live: int = DEFAULT_MAX_LIVE_TASKS,
    ) -> None:
        if (
            isinstance(ttl_ms, bool)
            or not isinstance(ttl_ms, int)
            or not 1 <= ttl_ms <= MAX_TASK_TTL_MS
        ):
            raise ValueError(
                f"ttl_ms must be a whole number from 1 to {MAX_TASK_TTL_MS}, got {ttl_ms!r}"
            )
        if isinstance(max_live, bool) or not isinstance(max_live, int) or max_live < 1:
            raise ValueError(f"max_live must be a positive integer, got {max_live!r}")
        self._store = store
        self._tools = frozenset(tools)
        self._ttl_ms = ttl_ms
        self._max_live = max_live
        self._group: TaskGroup | None = None
        self._call: TaskCall | None = None
        self._opted: OptedIn = lambda name: False
        self._runs: dict[str, anyio.CancelScope] = {}
        self._notes: dict[str, dict[str, Any]] = {}
        self._asks: dict[str, dict[str, _Ask]] = {}

    @property
    def store(self) -> TaskStore:
        """The store the task rows are kept in."""
        return self._store

    @asynccontextmanager
    async def running(self) -> AsyncIterator[TaskBroker]:
        """Runs the broker's task group (the runs and their beat) for as long as the context
        lasts; the runs still going when it ends read as failed."""
        try:
            async with anyio.create_task_group() as group:
                self._group = group
                group.start_soon(self._beat)
                try:
                    yield self
                finally:
                    self._group = None
                    group.cancel_scope.cancel()
        except BaseExceptionGroup as failure:
            raise_alone(failure)

    def attach(self, call: TaskCall, opted: OptedIn | None = None) -> None:
        """Sets how the broker runs a tool call, and which other tools opted in to tasks (the
        server it serves for does this)."""
        self._call = call
        if opted is not None:
            self._opted = opted

    def wants(self, context: Any, name: str) -> bool:
        """Whether a call of tool `name` on this request is to be answered with a task."""
        ready = self._group is not None and self._call is not None
        chosen = name in self._tools or self._opted(name)
        return ready and chosen and declares_tasks(context)

    def note(self, id: str, changes: dict[str, Any]) -> None:
        """Keeps `changes` to task `id`'s row for its next beat."""
        if id in self._runs:
            self._notes.setdefault(id, {}).update(changes)

    async def start(self, context: Any, name: str, arguments: Any) -> dict[str, Any]:
        """Stores a working task for the call and runs it in the background; gives the
        `CreateTaskResult`. Raises `TaskLimitError` when the caller has too many working."""
        owner = owner_digest(principal(context))
        session = getattr(context, "session", None)
        call = {
            "name": name,
            "arguments": {} if arguments is None else arguments,
            "elicits": session is not None and supports_elicitation(session),
        }
        resumable = name in RESUMABLE_TOOLS
        row = await self._store.create(
            owner, call, self._ttl_ms, self._max_live, now_ms(), resumable=resumable
        )
        if row is None:
            raise TaskLimitError(
                f"too many tasks: this client already has {self._max_live} working; wait for "
                "one to finish or cancel one with tasks/cancel"
            )
        self._launch(row, resume=False)
        return {"resultType": "task", **task_wire(row, detailed=False)}

    def _launch(self, row: Mapping[str, Any], *, resume: bool) -> None:
        scope = anyio.CancelScope()
        self._runs[row["id"]] = scope
        assert self._group is not None
        self._group.start_soon(self._run, row, scope, resume)

    async def _run(self, row: Mapping[str, Any], scope: anyio.CancelScope, resume: bool) -> None:
        id, call = row["id"], row["entry"]["call"]
        outcome: tuple[str, dict[str, Any]] | None = None
        try:
            with scope:
                assert self._call is not None
                elicits = call.get("elicits") is True
                context = TaskContext(self, id, resume=resume, elicits=elicits)
                answer = await self._call(call["name"], call["arguments"], context)
                outcome = ("completed", {"result": answer})
        except Exception as error:
            failure = {"code": INTERNAL_ERROR, "message": message_of(error)}
            outcome = ("failed", {"error": failure, "statusMessage": message_of(error)})
        finally:
            self._runs.pop(id, None)
            self._asks.pop(id, None)
            notes = self._notes.pop(id, {})
            if outcome is None and not row["entry"].get("resumable"):
                stopped = "the server stopped before the task finished"
                outcome = ("failed", {"error": {"code": INTERNAL_ERROR, "message": stopped}})
            # A resumable task stopped with its server stays working, for another to adopt;
            # a cancelled row stays cancelled (`finish` settles live rows only).
            if outcome is not None:
                status, changes = outcome
                with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                    await self._store.finish(id, status, {**notes, **changes}, now_ms())

    async def _beat(self) -> None:
        while True:
            await anyio.sleep(TASK_BEAT_SECONDS)
            with contextlib.suppress(Exception):
                adopted = await self._store.adopt(now_ms(), TASK_ADOPT_MS)
                if adopted is not None and self._call is not None:
                    self._launch(adopted, resume=True)
            for id, scope in list(self._runs.items()):
                try:
                    status, answers = await self._store.beat(
                        id, now_ms(), self._notes.pop(id, None)
                    )
                except Exception:
                    continue
                waiting = self._asks.get(id, {})
                for key, answer in answers.items():
                    if key in waiting:
                        waiting.pop(key).settle(answer)
                if status not in LIVE_TASK_STATUSES:
                    scope.cancel()

    async def input(self, id: str, request: dict[str, Any]) -> dict[str, Any]:
        """Publishes `request` as an input request of running task `id` and waits for the
        client's answer (delivered at a beat after its `tasks/update`)."""
        key = f"form-{secrets.token_hex(4)}"
        ask = _Ask()
        self._asks.setdefault(id, {})[key] = ask
        try:
            if not await self._store.require(id, key, request, now_ms()):
                raise RuntimeError(f"task {id} ended before its input could be asked")
            await ask.ready.wait()
        finally:
            self._asks.get(id, {}).pop(key, None)
        assert ask.answer is not None
        return ask.answer

    async def get(self, context: Any, params: Mapping[str, Any]) -> dict[str, Any]:
        """Answers `tasks/get`: the caller's task as it stands, with its result or error once
        finished. Raises `ValueError` for an id the caller has no task under."""
        row = await self._store.get(_task_id(params), owner_digest(principal(context)), now_ms())
        if row is None:
            raise ValueError(UNKNOWN_TASK)
        return {"resultType": "complete", **task_wire(row, detailed=True)}

    async def cancel(self, context: Any, params: Mapping[str, Any]) -> dict[str, Any]:
        """Answers `tasks/cancel`: marks the caller's working task cancelled (the server
        running it stops it at its next beat, at once when that is this server) and
        acknowledges, whatever the id, as the extension says."""
        id = _task_id(params)
        await self._store.cancel(id, owner_digest(principal(context)), now_ms())
        scope = self._runs.get(id)
        if scope is not None:
            row = await self._store.get(id, owner_digest(principal(context)), now_ms())
            if row is not None and row["status"] == "cancelled":
                scope.cancel()
        return {"resultType": "complete"}

    async def update(self, context: Any, params: Mapping[str, Any]) -> dict[str, Any]:
        """Answers `tasks/update`: keeps the client's answers to the caller's task's
        outstanding input requests (the run that waits on them gets them at its next beat) and
        acknowledges. An answer to a key the task has not outstanding is ignored, as the
        extension says. Raises `ValueError` for malformed answers, and for an id the caller
        has no task under (the same line as `tasks/get`)."""
        id = _task_id(params)
        answers = _answers(params.get("inputResponses"))
        owner = owner_digest(principal(context))
        if not await self._store.respond(id, owner, answers, now_ms()):
            raise ValueError(UNKNOWN_TASK)
        return {"resultType": "complete"}


def _task_id(params: Mapping[str, Any]) -> str:
    id = params.get("taskId")
    if not isinstance(id, str):
        raise ValueError("invalid params: taskId: expected the string id of a task")
    return id


class _Ask:
    """One input request a run waits on: settled once with the client's answer."""

    def __init__(self) -> None:
        self.ready = anyio.Event()
        self.answer: dict[str, Any] | None = None

    def settle(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.ready.set()


def _answers(value: Any) -> dict[str, Any]:
    """Checks the `inputResponses` of a `tasks/update`: at most `MAX_INPUT_RESPONSE_BYTES` of
    JSON, an object whose every value is a form elicitation's answer."""
    if not isinstance(value, Mapping):
        raise ValueError(
            "invalid params: inputResponses: expected an object of answers keyed by the "
            "task's inputRequests keys"
        )
    size = len(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    if size > MAX_INPUT_RESPONSE_BYTES:
        raise ValueError(
            f"invalid params: inputResponses: {size} bytes of JSON, over the "
            f"{MAX_INPUT_RESPONSE_BYTES} a task's answers may hold"
        )
    for key, answer in value.items():
        action = answer.get("action") if isinstance(answer, Mapping) else None
        content = answer.get("content") if isinstance(answer, Mapping) else None
        if action not in ("accept", "decline", "cancel") or not (
            content is None or isinstance(content, Mapping)
        ):
            raise ValueError(
                f"invalid params: inputResponses.{key}: expected a form elicitation's answer "
                '{"action": "accept" | "decline" | "cancel", "content"?: object}'
            )
    return dict(value)
