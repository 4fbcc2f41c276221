"""`PromptClient`: answers a terminal's forms over HTTP, through a local `TerminalInterface`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from orkestrel.form import FieldError, Form, FormError, FormSchema, create_form, parse_form
from orkestrel.form.validators import is_field_error
from orkestrel.terminal.constants import DEFAULT_RECONNECT_MS, HEADER_TOKEN
from orkestrel.terminal.emitter import Emitter
from orkestrel.terminal.types import PendingForm, TerminalInterface
from orkestrel.terminal.wire import SSEParser, json_text

if TYPE_CHECKING:
    import httpx


def _without_patterns(schema: FormSchema) -> FormSchema:
    fields = []
    for field in schema["fields"]:
        rule = {k: v for k, v in field.get("rule", {}).items() if k != "pattern"}
        copy: dict[str, Any] = {k: v for k, v in field.items() if k != "rule"}
        if rule:
            copy["rule"] = rule
        fields.append(copy)
    return cast(FormSchema, {**schema, "fields": fields})


class PromptClient:
    """Represents the answering side of a terminal over HTTP: it reads the terminal's event
    stream, puts each form before a local `TerminalInterface`, one at a time, and posts the
    answer back, re-asking with the failed fields marked when the answer is rejected.

    Every (re)connect replays the pending forms, so forms are deduplicated by SSE id. Its
    `emitter` announces `pending(record)`, `answer(id, values)`, `expire(id)`, `error(error)`
    and `shutdown()`.
    """

    def __init__(
        self,
        *,
        url: str,
        terminal: TerminalInterface,
        token: str | None = None,
        reconnect: bool = True,
        delay: int = DEFAULT_RECONNECT_MS,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self._url = url
        self._terminal = terminal
        self._headers = {} if token is None else {HEADER_TOKEN: token}
        self._reconnect = reconnect
        self._delay = delay
        self._client = client
        self._seen: set[str] = set()
        self._forms: dict[str, Form] = {}
        self._closed = False
        self._send: MemoryObjectSendStream[PendingForm] | None = None
        self._stopped: anyio.Event | None = None
        self._emitter = Emitter()

    @property
    def emitter(self) -> Emitter:
        """The hub the client announces its events on."""
        return self._emitter

    def close(self) -> None:
        """Stops the client: `run` returns, dropping its connection and any form in progress."""
        self._closed = True
        if self._stopped is not None:
            self._stopped.set()

    async def run(self) -> None:
        """Connects and answers forms until `close`, a `shutdown` event, or (without
        `reconnect`) the end of the stream."""
        # Deferred: httpx is an optional dependency (the `terminal` extra).
        import httpx

        if self._closed:
            return
        stopped = self._stopped = anyio.Event()
        send, queue = anyio.create_memory_object_stream[PendingForm](1024)
        self._send = send
        owned = self._client is None
        client = self._client or httpx.AsyncClient(timeout=httpx.Timeout(30, read=None))
        try:
            async with send, anyio.create_task_group() as group:
                group.start_soon(self._drive_all, client, queue)
                group.start_soon(self._watch, stopped, group)
                await self._listen(client, stopped)
                group.cancel_scope.cancel()
        finally:
            self._stopped = None
            if owned:
                await client.aclose()

    async def _watch(self, stopped: anyio.Event, group: TaskGroup) -> None:
        await stopped.wait()
        group.cancel_scope.cancel()

    async def _listen(self, client: httpx.AsyncClient, stopped: anyio.Event) -> None:
        # Deferred: httpx is an optional dependency (the `terminal` extra).
        import httpx

        while not stopped.is_set():
            try:
                if await self._stream(client, stopped):
                    return
            except (httpx.HTTPError, OSError) as error:
                self._emitter.emit("error", error)
            if not self._reconnect or stopped.is_set():
                return
            with anyio.move_on_after(self._delay / 1000):
                await stopped.wait()

    async def _stream(self, client: httpx.AsyncClient, stopped: anyio.Event) -> bool:
        headers = {"accept": "text/event-stream", **self._headers}
        async with client.stream("GET", self._url, headers=headers) as response:
            if response.status_code != 200:
                self._emitter.emit("error", RuntimeError(f"stream answered {response.status_code}"))
                return False
            parser = SSEParser()
            async for chunk in response.aiter_bytes():
                for event in parser.feed(chunk):
                    if event["event"] == "shutdown":
                        self._emitter.emit("shutdown")
                        stopped.set()
                        return True
                    await self._event(event["event"], event["data"])
        return False

    async def _event(self, name: str, data: str) -> None:
        try:
            payload = json.loads(data)
        except ValueError as error:
            self._emitter.emit("error", error)
            return
        if not isinstance(payload, dict) or not isinstance(payload.get("id"), str):
            return
        id = payload["id"]
        if name == "expire":
            self._seen.discard(id)
            form = self._forms.pop(id, None)
            if form is not None:
                form.destroy()
            self._emitter.emit("expire", id)
        elif name == "pending" and id not in self._seen:
            self._seen.add(id)
            self._emitter.emit("pending", payload)
            if self._send is not None:
                await self._send.send(cast(PendingForm, payload))

    async def _drive_all(
        self, client: httpx.AsyncClient, queue: MemoryObjectReceiveStream[PendingForm]
    ) -> None:
        async with queue:
            async for record in queue:
                if record["id"] in self._seen:
                    await self._drive(client, record)

    async def _drive(self, client: httpx.AsyncClient, record: PendingForm) -> None:
        id = record["id"]
        schema = parse_form(record["schema"])
        if schema is None:
            self._emitter.emit("error", ValueError(f"form {id!r} carries a schema that is not one"))
            return
        local = _without_patterns(schema)
        seed: dict[str, Any] | None = None
        errors: list[FieldError] = []
        while id in self._seen:
            form = create_form(local, values=seed)
            for fault in errors:
                if form.field(fault["field"]) is not None:
                    form.invalidate(fault["field"], fault["message"])
            self._forms[id] = form
            try:
                values = await self._ask(form)
            finally:
                self._forms.pop(id, None)
            if values is None:
                return
            status, body = await self._post(client, id, values)
            if status == 200:
                self._seen.discard(id)
                self._emitter.emit("answer", id, values)
                return
            failure: Any = body.get("error") if isinstance(body, dict) else None
            if (
                status != 422
                or not isinstance(failure, dict)
                or failure.get("reason") != "rejected"
            ):
                return
            seed = values
            listed: Any = failure.get("errors")
            errors = (
                [item for item in listed if is_field_error(item)]
                if isinstance(listed, list)
                else []
            )

    async def _ask(self, form: Form) -> dict[str, Any] | None:
        async def ask() -> None:
            try:
                await self._terminal.ask(form)
            except Exception as error:
                self._emitter.emit("error", error)
            finally:
                if form.status == "editing":
                    form.destroy()

        values: dict[str, Any] | None = None
        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            try:
                values = dict(await form.answer)
            except FormError:
                values = None
            finally:
                group.cancel_scope.cancel()
        return values

    async def _post(
        self, client: httpx.AsyncClient, id: str, values: Mapping[str, Any]
    ) -> tuple[int, Any]:
        body = json_text({"id": id, "values": dict(values)}).encode("utf-8")
        headers = {"content-type": "application/json", **self._headers}
        response = await client.post(self._url, content=body, headers=headers)
        try:
            return response.status_code, response.json()
        except ValueError:
            return response.status_code, None
