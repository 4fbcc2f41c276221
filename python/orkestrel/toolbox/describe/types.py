"""The arguments of the describe tool."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class DescribeToolArguments(TypedDict):
    """Represents the parsed arguments of a describe call: the name of the tool to expand, and
    optionally one of its operations."""

    name: str
    operation: NotRequired[str]
