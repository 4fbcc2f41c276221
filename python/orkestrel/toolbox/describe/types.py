"""The arguments of the describe tool."""

from __future__ import annotations

from typing import TypedDict


class DescribeToolArguments(TypedDict):
    """Represents the parsed arguments of a describe call: the name of the tool to expand."""

    name: str
