"""Options and definitions of the inference tools."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NotRequired, TypedDict

EndpointHandler = Callable[[dict[str, Any]], Awaitable[Any] | Any]
"""Represents the sync or async handler of an endpoint: it receives the parsed arguments."""


class EndpointDefinition(TypedDict):
    """Represents one concrete endpoint: its name, description, example arguments and handler."""

    name: str
    description: str
    samples: list[Any]
    execute: EndpointHandler


class EndpointToolOptions(TypedDict, total=False):
    """Represents the options of `create_endpoint_tool`: inference tuning and enforcement."""

    format: bool
    enum: bool
    validate: bool


class InferToolOptions(TypedDict, total=False):
    """Represents the options of `create_infer_tool`: its advertised name and description."""

    name: str
    description: str


class InferCheck(TypedDict):
    """Represents the verdict on one candidate: strict validity, coercibility and the faults."""

    index: int
    valid: bool
    coercible: bool
    faults: NotRequired[list[dict[str, Any]]]
