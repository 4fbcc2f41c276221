"""Resources, prompts and completions served beside the tools, each a view over a served tool:
a workspace file is read by the workspace tool's own `read` (its ignore rules, path refusals
and size caps), a database's tables by the database tool's `tables`. A tool that `--tools`
leaves out serves none of its resources, prompts or completions."""

from __future__ import annotations

import json
import mimetypes
import uuid
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, unquote

from orkestrel.mcp import sdk
from orkestrel.tool import ToolCall, ToolManagerInterface
from orkestrel.toolbox.database.ids_read import IdsRead
from orkestrel.toolbox.workspace.content_read import ContentRead

WORKSPACE_SCHEME = "workspace:///"
"""The prefix of a workspace file's URI; the rest is its percent-encoded path under the root."""

DATABASE_SCHEME = "database:///"
"""The prefix of a database's table definitions URI: `database:///{id}/tables`."""

RUNS_SCHEME = "workflow:///runs/"
"""The prefix of a kept workflow run's snapshot URI: `workflow:///runs/{id}`, with `?offset=N`
for the page of tasks from N."""

MAX_OFFSET = 10**9
"""The largest task offset a run snapshot URI may ask for."""

LIST_CHANGES = frozenset({"write", "move", "remove"})
"""The workspace tool's operations that can change the list of files, so of resources."""

FILE_CHANGES = frozenset({"write", "splice", "prepend", "append", "move", "remove"})
"""The workspace tool's operations that change the files their arguments name."""

PAGE_SIZE = 100
"""How many resources one `resources/list` page holds."""

MAX_COMPLETIONS = 100
"""The most values one completion answers by default, and at most (the protocol's own cap)."""

MAX_PREFIX = 1024
"""The longest argument value a completion accepts; a longer one is refused."""

MAX_ARGUMENT = 4096
"""The longest prompt argument `prompts/get` accepts; a longer one is refused."""

_TEMPLATES: dict[str, dict[str, Any]] = {
    "workspace": {
        "uriTemplate": WORKSPACE_SCHEME + "{path}",
        "name": "workspace-file",
        "title": "Workspace file",
        "description": "A file under the served root, read as the workspace tool reads it.",
    },
    "database": {
        "uriTemplate": DATABASE_SCHEME + "{id}/tables",
        "name": "database-tables",
        "title": "Database tables",
        "description": "The table definitions of one database, as the database tool lists them.",
        "mimeType": "application/json",
    },
    "workflow": {
        "uriTemplate": RUNS_SCHEME + "{id}",
        "name": "workflow-run",
        "title": "Workflow run",
        "description": (
            "A kept workflow run's snapshot, as the workflow tool reads it: its status and a "
            "page of at most 50 tasks with their outcomes; add ?offset=N for the tasks from N."
        ),
        "mimeType": "application/json",
    },
}

_PROMPTS: dict[str, dict[str, Any]] = {
    "explore_database": {
        "tool": "database",
        "title": "Explore a database",
        "description": "Read a database's tables, then sample and count rows before changing any.",
        "arguments": [
            {"name": "id", "description": "The database id.", "required": True},
            {"name": "table", "description": "A table to start with.", "required": False},
        ],
        "text": (
            "Explore the database {id} with the database tool: first call operation 'tables' "
            "with id '{id}', then read a few rows of each table with 'records' and count them "
            "with 'count'. Change nothing until you have described what you found."
        ),
        "optional": {"table": " Start with the table {table}."},
    },
    "edit_files": {
        "tool": "workspace",
        "title": "Edit files safely",
        "description": "Read a file before changing it, change only what is needed, read back.",
        "arguments": [{"name": "path", "description": "The file to edit.", "required": True}],
        "text": (
            "Edit {path} with the workspace tool: call operation 'read' on it first, make the "
            "smallest change with 'splice' or 'replace' rather than rewriting the file with "
            "'write', then 'read' it again to check the result."
        ),
    },
    "author_workflow": {
        "tool": "workflow",
        "title": "Author a workflow",
        "description": "Plan a workflow's steps, define it, run it and read its snapshot.",
        "arguments": [{"name": "goal", "description": "What it should do.", "required": True}],
        "text": (
            "Author a workflow with the workflow tool that does: {goal}. List its steps and "
            "their inputs first, define it, run it once, and read the run's snapshot to check "
            "each step's outcome."
        ),
    },
}


def create_features(
    manager: ToolManagerInterface,
    *,
    icons: Sequence[Mapping[str, Any]] = (),
    completion_values: int = MAX_COMPLETIONS,
) -> dict[str, sdk.Extra]:
    """Builds the handlers of `resources/*`, `prompts/*` and `completion/complete` over the
    tools `manager` serves, read afresh on every request. Each template and prompt lists
    `icons` (checked wire icons) when there are any; a completion answers at most
    `completion_values` values, with the true `total` and `hasMore`."""

    def iconed(entry: dict[str, Any]) -> dict[str, Any]:
        return {**entry, "icons": [dict(icon) for icon in icons]} if icons else entry

    def completion(values: list[str], total: int | None = None) -> dict[str, Any]:
        return _completion(values, completion_values, total)

    async def call(name: str, arguments: dict[str, Any], caller: Any = None) -> Any:
        tool_call: ToolCall = {"id": str(uuid.uuid4()), "name": name, "arguments": arguments}
        if caller is not None:
            tool_call["caller"] = caller
        result = await manager.execute(tool_call)
        if result["success"] is False:
            raise ValueError(result["error"])
        return result["value"]

    def served(name: str) -> bool:
        return manager.tool(name) is not None

    async def files() -> list[dict[str, Any]]:
        if not served("workspace"):
            return []
        listed: list[dict[str, Any]] = await call("workspace", {"operation": "list"}, ContentRead())
        return listed

    async def list_resources(_: sdk.Request, params: dict[str, Any]) -> dict[str, Any]:
        start = _offset(params.get("cursor"))
        entries = [_file_resource(entry) for entry in await files()]
        page = entries[start : start + PAGE_SIZE]
        answer: dict[str, Any] = {"resources": page}
        if start + PAGE_SIZE < len(entries):
            answer["nextCursor"] = str(start + PAGE_SIZE)
        return answer

    async def list_templates(_: sdk.Request, params: dict[str, Any]) -> dict[str, Any]:
        _offset(params.get("cursor"))
        return {"resourceTemplates": [iconed(t) for key, t in _TEMPLATES.items() if served(key)]}

    async def read(_: sdk.Request, params: dict[str, Any]) -> dict[str, Any]:
        uri = str(params.get("uri", ""))
        if uri.startswith(WORKSPACE_SCHEME) and served("workspace"):
            path = unquote(uri[len(WORKSPACE_SCHEME) :])
            read = {"operation": "read", "path": path}
            answer = await call("workspace", read, ContentRead())
            if answer is None:
                raise ValueError(f"resources/read: {uri} names no file under the root")
            if isinstance(answer, Mapping):
                blob = {"uri": uri, "mimeType": answer["mime"], "blob": answer["data"]}
                return {"contents": [blob]}
            return {"contents": [{"uri": uri, "mimeType": _mime(path), "text": answer}]}
        if uri.startswith(DATABASE_SCHEME) and uri.endswith("/tables") and served("database"):
            database = unquote(uri[len(DATABASE_SCHEME) : -len("/tables")])
            tables = await call("database", {"operation": "tables", "id": database})
            text = json.dumps(tables, ensure_ascii=False)
            return {"contents": [{"uri": uri, "mimeType": "application/json", "text": text}]}
        if uri.startswith(RUNS_SCHEME) and served("workflow"):
            page = await call("workflow", _run_page(uri))
            text = json.dumps(page, ensure_ascii=False)
            return {"contents": [{"uri": uri, "mimeType": "application/json", "text": text}]}
        raise ValueError(
            f"resources/read: {uri!r} is not a served resource; expected "
            f"{WORKSPACE_SCHEME}<path>, {DATABASE_SCHEME}<id>/tables or {RUNS_SCHEME}<id>"
        )

    async def list_prompts(_: sdk.Request, params: dict[str, Any]) -> dict[str, Any]:
        _offset(params.get("cursor"))
        listed = [_prompt(name, p) for name, p in _PROMPTS.items() if served(p["tool"])]
        return {"prompts": [iconed(prompt) for prompt in listed]}

    async def get_prompt(_: sdk.Request, params: dict[str, Any]) -> dict[str, Any]:
        name = str(params.get("name"))
        prompt = _PROMPTS.get(name)
        if prompt is None or not served(prompt["tool"]):
            raise ValueError(f"prompts/get: no prompt named {name!r}; expected one of prompts/list")
        given: Mapping[str, Any] = params.get("arguments") or {}
        values: dict[str, str] = {}
        text = prompt["text"]
        for argument in prompt["arguments"]:
            value = given.get(argument["name"])
            if value is None and not argument["required"]:
                continue
            if not isinstance(value, str) or not value:
                raise ValueError(f"prompts/get {name}: argument {argument['name']!r} is required")
            if len(value) > MAX_ARGUMENT:
                raise ValueError(
                    f"prompts/get {name}: argument {argument['name']!r} is {len(value)} "
                    f"characters; expected at most {MAX_ARGUMENT}"
                )
            values[argument["name"]] = value
            text += prompt.get("optional", {}).get(argument["name"], "")
        message = {"role": "user", "content": {"type": "text", "text": text.format(**values)}}
        return {"description": prompt["description"], "messages": [message]}

    async def complete(_: sdk.Request, params: dict[str, Any]) -> dict[str, Any]:
        ref: Mapping[str, Any] = params.get("ref") or {}
        argument: Mapping[str, Any] = params.get("argument") or {}
        value = str(argument.get("value", ""))
        if len(value) > MAX_PREFIX:
            raise ValueError(
                f"completion/complete: the value of {argument.get('name')!r} is {len(value)} "
                f"characters; expected at most {MAX_PREFIX}"
            )
        completes = _completes(ref, argument.get("name"))
        if completes == "path":
            return completion(
                [entry["path"] for entry in await files() if entry["path"].startswith(value)]
            )
        if not served("database") or not _storable(value):
            return completion([])
        if completes == "id":
            # Any valid arguments: this caller's call answers the ids, whatever they name.
            listing = {"operation": "tables", "id": "-"}
            found = await call("database", listing, IdsRead(value, completion_values))
            return completion(found["ids"], found["total"])
        context: Mapping[str, Any] = (params.get("context") or {}).get("arguments") or {}
        id = context.get("id")
        if completes != "table" or not isinstance(id, str) or not _storable(id):
            return completion([])
        try:
            tables = await call("database", {"operation": "tables", "id": id})
        except ValueError:  # no such database: nothing to complete
            return completion([])
        return completion(
            sorted(t["name"] for t in tables["tables"] if t["name"].startswith(value))
        )

    return {
        "resources/list": list_resources,
        "resources/templates/list": list_templates,
        "resources/read": read,
        "prompts/list": list_prompts,
        "prompts/get": get_prompt,
        "completion/complete": complete,
    }


def updated_files(tool_name: str, arguments: Any) -> list[str] | None:
    """The workspace files a successful call of `tool_name` with `arguments` changed: `[]`
    for a call that changes none, `None` for one that may change any (`replace`)."""
    if tool_name != "workspace" or not isinstance(arguments, Mapping):
        return []
    operation = arguments.get("operation")
    if operation == "replace":
        return None
    keys = {"move": ("from", "to")}.get(str(operation), ("path",))
    if operation not in FILE_CHANGES:
        return []
    return [value for key in keys if isinstance(value := arguments.get(key), str)]


def changes_resources(tool_name: str, arguments: Any) -> bool:
    """Whether a successful call of `tool_name` with `arguments` may change `resources/list`."""
    return (
        tool_name == "workspace"
        and isinstance(arguments, Mapping)
        and arguments.get("operation") in LIST_CHANGES
    )


def _run_page(uri: str) -> dict[str, Any]:
    """The workflow tool's read of the run `uri` names, from its `?offset=N` when given."""
    run, _, query = uri[len(RUNS_SCHEME) :].partition("?")
    page: dict[str, Any] = {"run": unquote(run)}
    if not query:
        return page
    name, _, value = query.partition("=")
    if name != "offset" or not value.isdecimal() or not value.isascii() or len(value) > 9:
        raise ValueError(
            f"resources/read: {uri[:200]!r} asks for {query[:100]!r}; expected ?offset=N, "
            f"N a whole number below {MAX_OFFSET}"
        )
    page["offset"] = int(value)
    return page


def _offset(cursor: Any) -> int:
    if cursor is None:
        return 0
    if isinstance(cursor, str) and cursor.isdecimal() and len(cursor) < 10:
        return int(cursor)
    raise ValueError(f"invalid params: this server never issued the cursor {cursor!r}")


def _mime(path: str) -> str:
    return mimetypes.guess_type(path)[0] or "text/plain"


def _file_resource(entry: Mapping[str, Any]) -> dict[str, Any]:
    path: str = entry["path"]
    return {
        "uri": WORKSPACE_SCHEME + quote(path),
        "name": path,
        "title": path,
        "mimeType": entry.get("mime") or _mime(path),
        "size": entry["size"],
    }


def _prompt(name: str, prompt: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "title": prompt["title"],
        "description": prompt["description"],
        "arguments": prompt["arguments"],
    }


def _completes(ref: Mapping[str, Any], name: Any) -> str | None:
    """Which values the argument `name` of `ref` takes: `path`, `id` (a database's) or
    `table` (one of the database the context's `id` names), or `None` for none known."""
    if ref.get("type") == "ref/resource":
        template = {_TEMPLATES["workspace"]["uriTemplate"]: "path"}
        template[_TEMPLATES["database"]["uriTemplate"]] = "id"
        wanted = template.get(str(ref.get("uri")))
        return wanted if wanted == name else None
    prompt = _PROMPTS.get(str(ref.get("name"))) if ref.get("type") == "ref/prompt" else None
    names = [argument["name"] for argument in (prompt or {}).get("arguments", [])]
    return name if name in names and name in ("path", "id", "table") else None


def _storable(text: str) -> bool:
    """Whether `text` could be part of a stored name: no NUL and no lone surrogate, which no
    database keeps (so a prefix holding one starts no id)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


def _completion(values: list[str], cap: int, total: int | None = None) -> dict[str, Any]:
    counted = len(values) if total is None else total
    return {"completion": {"values": values[:cap], "total": counted, "hasMore": counted > cap}}
