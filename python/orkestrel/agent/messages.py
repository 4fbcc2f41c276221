"""Checking and copying messages, so a stored message is JSON data no caller can change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

from orkestrel.agent.errors import AgentError
from orkestrel.agent.types import Message, MessageRole
from orkestrel.contract import ContractError, clone_json_record, preview
from orkestrel.tool import ToolCall

ROLES: frozenset[str] = frozenset(get_args(MessageRole))
_KEYS = frozenset({"id", "role", "content", "calls", "call", "error", "images"})
_ONLY = {"calls": "assistant", "call": "tool", "error": "tool", "images": "user"}


def _refuse(message: str, **context: Any) -> AgentError:
    return AgentError("MESSAGE", message, context or None)


def copy_call(call: Any) -> ToolCall:
    """Copies one tool call as `{id, name, arguments}`, or raises `AgentError` (`MESSAGE`)."""
    if not isinstance(call, Mapping):
        raise _refuse(f"a tool call must be a mapping, not {type(call).__name__}")
    id_, name, arguments = call.get("id"), call.get("name"), call.get("arguments", {})
    if not isinstance(id_, str) or not id_:
        raise _refuse("a tool call needs a non-empty string id", id=preview(id_))
    if not isinstance(name, str) or not name:
        raise _refuse("a tool call needs a non-empty string name", id=id_)
    try:
        owned = clone_json_record(arguments)
    except ContractError:
        raise _refuse(
            f"tool call '{id_}' has arguments that are not a JSON object", id=id_
        ) from None
    return {"id": id_, "name": name, "arguments": owned}


def copy_message(value: Any, id: str | None = None) -> Message:
    """Checks a message (input or stored) and copies it; `id` replaces or supplies its id.

    Raises `AgentError` (`MESSAGE`) for an unknown role, non-string content, a field the role
    does not carry, or a field of the wrong type.
    """
    if not isinstance(value, Mapping):
        raise _refuse(f"a message must be a mapping, not {type(value).__name__}")
    role = value.get("role")
    if not isinstance(role, str) or role not in ROLES:
        raise _refuse(f"unknown message role {preview(role)}", role=preview(role))
    content = value.get("content")
    if not isinstance(content, str):
        raise _refuse(f"a {role} message needs string content", role=role)
    stray = [key for key in value if key not in _KEYS]
    if stray:
        raise _refuse(f"a message has no field {preview(stray[0])}", role=role)
    ident = id if id is not None else value.get("id")
    if not isinstance(ident, str) or not ident:
        raise _refuse("a message needs a non-empty string id", role=role)
    message: Message = {"id": ident, "role": role, "content": content}  # type: ignore[typeddict-item]
    for key, owner in _ONLY.items():
        if key in value and role != owner:
            raise _refuse(f"only {owner} messages carry {key!r}", role=role)
    if "calls" in value:
        calls = value["calls"]
        if not isinstance(calls, list | tuple):
            raise _refuse("'calls' must be a list of tool calls", role=role)
        message["calls"] = [copy_call(call) for call in calls]
    if "call" in value:
        if not isinstance(value["call"], str) or not value["call"]:
            raise _refuse("'call' must be the non-empty id of a tool call", role=role)
        message["call"] = value["call"]
    if "error" in value:
        if not isinstance(value["error"], bool):
            raise _refuse("'error' must be a boolean", role=role)
        message["error"] = value["error"]
    if "images" in value:
        images = value["images"]
        if not isinstance(images, list | tuple) or not all(isinstance(i, str) for i in images):
            raise _refuse("'images' must be a list of URL strings", role=role)
        message["images"] = list(images)
    return message
