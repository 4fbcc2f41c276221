"""Pure pieces of the agent loop: result checks, usage sums, tool-answer encoding and the
result projection."""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeGuard

import anyio
from pydantic_core import to_json, to_jsonable_python

from orkestrel.abort import AbortSignal
from orkestrel.abort.loop import loop_caller
from orkestrel.agent.constants import TOOL_RESULT_UNENCODABLE
from orkestrel.agent.errors import AgentError
from orkestrel.agent.messages import copy_call
from orkestrel.agent.types import ProviderResult, TokenUsage
from orkestrel.contract import preview

_USAGE = ("prompt", "completion", "total")


def _is_count(value: Any) -> TypeGuard[int | float]:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def read_usage(value: Any) -> TokenUsage | None:
    """Reads a `TokenUsage` from a mapping whose three counts are finite numbers, else `None`."""
    if not isinstance(value, Mapping):
        return None
    prompt, completion, total = (value.get(key) for key in _USAGE)
    if not (_is_count(prompt) and _is_count(completion) and _is_count(total)):
        return None
    return {"prompt": prompt, "completion": completion, "total": total}


def add_usage(left: TokenUsage | None, right: TokenUsage | None) -> TokenUsage | None:
    """Sums two usages field by field; `None` counts as nothing reported."""
    if left is None or right is None:
        return left if right is None else right
    return {
        "prompt": left["prompt"] + right["prompt"],
        "completion": left["completion"] + right["completion"],
        "total": left["total"] + right["total"],
    }


def check_provider_result(value: Any) -> ProviderResult:
    """Copies a provider's answer as a `ProviderResult`, or raises `AgentError` (`RESULT`).

    The content must be a string; thinking, when present and not `None`, a string; tools, a list
    of well-formed tool calls; usage, three finite counts.
    """

    def refuse(why: str) -> AgentError:
        return AgentError("RESULT", f"provider returned a malformed result: {why}")

    if not isinstance(value, Mapping):
        raise refuse(f"expected a mapping, got {preview(value)}")
    content = value.get("content")
    if not isinstance(content, str):
        raise refuse("content is not a string")
    result: ProviderResult = {"content": content}
    thinking = value.get("thinking")
    if thinking is not None:
        if not isinstance(thinking, str):
            raise refuse("thinking is not a string")
        if thinking:
            result["thinking"] = thinking
    tools = value.get("tools")
    if tools is not None:
        if not isinstance(tools, list | tuple):
            raise refuse("tools is not a list")
        try:
            calls = [copy_call(call) for call in tools]
        except AgentError as error:
            raise refuse(error.message) from None
        if calls:
            result["tools"] = calls
    if value.get("usage") is not None:
        usage = read_usage(value["usage"])
        if usage is None:
            raise refuse("usage is not three finite counts")
        result["usage"] = usage
    return result


def message_size(message: Mapping[str, Any]) -> int:
    """The characters a message adds to a conversation: its content, and each call's name and
    JSON arguments."""
    size = len(message["content"])
    for call in message.get("calls", ()):
        size += len(call["name"]) + len(to_json(call["arguments"]))
    return size


def encode_answer(value: Any) -> tuple[str, bool]:
    """The text a tool message carries for a tool's value, and whether it is a failure: a string
    as it is, anything else as compact JSON (NaN and infinities as `null`).
    """
    if isinstance(value, str):
        return value, False
    try:
        return to_json(to_jsonable_python(value, inf_nan_mode="null")).decode(), False
    except Exception:
        return TOOL_RESULT_UNENCODABLE, True


@contextmanager
def grace_scope(signal: AbortSignal, grace: float) -> Iterator[anyio.CancelScope]:
    """Runs the enclosed block in a cancel scope that is cancelled `grace` seconds after the
    signal aborts, so a call that honours the signal can finish on its own first."""
    with anyio.CancelScope() as scope:
        call = loop_caller()

        def arm() -> None:
            scope.deadline = min(scope.deadline, anyio.current_time() + grace)

        def expire() -> None:
            call(arm)

        if signal.aborted:
            arm()
        signal.add_listener(expire)
        try:
            yield scope
        finally:
            signal.remove_listener(expire)


def finished(result: ProviderResult | None, pending: Any) -> ProviderResult:
    """A stream's result once every delta was taken, else `RuntimeError`."""
    if result is None or pending:
        raise RuntimeError("the stream has not finished")
    return result


async def close_stream(stream: Any) -> None:
    """Calls a stream's `aclose`, if it has one, and awaits what it returns."""
    closer = getattr(stream, "aclose", None)
    if closer is not None:
        done = closer()
        if inspect.isawaitable(done):
            await done


def _plain(count: Any) -> int | float:
    return float(count) if isinstance(count, float) else int(count)


def agent_result_to_json(value: Any) -> dict[str, Any] | None:
    """Projects a settled agent result onto fresh JSON data, `{content, thinking?, usage?,
    partial}`, or `None` when it is not one; never raises.

    `content`, `thinking`, `usage` and `partial` are each read once, from a mapping or as
    attributes, so `AgentResult` and look-alikes work. `content` must be a string and `partial`
    a boolean; `thinking`, when not `None`, a string; `usage`, when not `None`, a mapping of
    finite `prompt`, `completion` and `total` counts. Other fields are dropped.
    """
    try:
        if isinstance(value, Mapping):
            content, thinking = value.get("content"), value.get("thinking")
            usage, partial = value.get("usage"), value.get("partial")
        else:
            content = getattr(value, "content", None)
            thinking = getattr(value, "thinking", None)
            usage = getattr(value, "usage", None)
            partial = getattr(value, "partial", None)
        if type(content) is not str or type(partial) is not bool:
            return None
        projected: dict[str, Any] = {"content": str(content)}
        if thinking is not None:
            if type(thinking) is not str:
                return None
            projected["thinking"] = str(thinking)
        if usage is not None:
            counts = read_usage(usage)
            if counts is None:
                return None
            projected["usage"] = {key: _plain(count) for key, count in counts.items()}
        projected["partial"] = bool(partial)
        return projected
    except Exception:
        return None
