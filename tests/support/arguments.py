"""Helpers for tests of decorated tools: run a call, capture its fault text, the line format."""

from __future__ import annotations

import re
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from orkestrel.tool import ArgumentsError, Tool, tool

LINE = re.compile(r"^\S[^\n]*: expected .+, received .+$|^… and \d+ more faults$")
"""One fault line: `<path>: expected <what>, received <preview>`, or the closing count."""


async def run(target: Tool, args: Any, *caller: Any) -> Any:
    """Executes a tool with `args` (and a caller when given)."""
    return await target.execute(args, *caller)


async def fault(target: Tool, args: Any) -> str:
    """Executes a tool that must refuse `args`; returns the `ArgumentsError` text."""
    with pytest.raises(ArgumentsError) as caught:
        await target.execute(args)
    return str(caught.value)


class Address(BaseModel):
    """A street address."""

    street: str
    number: int = Field(gt=0)


class Node(BaseModel):
    """A tree node."""

    value: int
    children: list[Node] = []


@tool
def lookup(query: str, limit: int = 10, kind: Literal["a", "b"] = "a") -> dict[str, Any]:
    """Find records that match a query.

    Searches the whole index, newest first.

    Args:
        query: What to look for.
        limit: How many records to return.
    """
    return {"query": query, "limit": limit, "kind": kind}
