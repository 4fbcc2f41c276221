"""Total guards for values that reach the agent layer from outside: snapshots and results."""

from __future__ import annotations

from typing import Any, TypeGuard

from orkestrel.agent.messages import copy_message
from orkestrel.agent.types import ConversationSnapshot

_SNAPSHOT_KEYS = frozenset({"id", "sections", "messages"})


def _is_section(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == {"id", "summary"}
        and isinstance(value["id"], str)
        and isinstance(value["summary"], str)
    )


def is_conversation_snapshot(value: object) -> TypeGuard[ConversationSnapshot]:
    """Determines whether a value is a well-formed conversation snapshot: a dict holding a string
    `id`, a list of `sections`, and a list of well-formed messages with unique ids.

    Never raises.
    """
    try:
        if not isinstance(value, dict) or set(value) != _SNAPSHOT_KEYS:
            return False
        if not isinstance(value["id"], str) or not isinstance(value["sections"], list):
            return False
        if not all(_is_section(section) for section in value["sections"]):
            return False
        messages = value["messages"]
        if not isinstance(messages, list):
            return False
        ids = [copy_message(message)["id"] for message in messages]
        return len(ids) == len(set(ids))
    except Exception:
        return False


def parse_conversation_snapshot(value: object) -> ConversationSnapshot | None:
    """Reads a snapshot from untrusted data as a fresh copy, or `None` when it is not a
    well-formed snapshot.
    """
    if not is_conversation_snapshot(value):
        return None
    return {
        "id": value["id"],
        "sections": [
            {"id": section["id"], "summary": section["summary"]} for section in value["sections"]
        ],
        "messages": [copy_message(message) for message in value["messages"]],
    }
