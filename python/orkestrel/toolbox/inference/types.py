"""Options and definitions of the inference tools."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, NotRequired

# typing_extensions: pydantic derives the infer tool's outputSchema from these records, which
# before Python 3.12 it can only do for a TypedDict from typing_extensions.
from typing_extensions import TypedDict

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


class InferredSchema(TypedDict):
    """Represents the JSON Schema the infer tool answers: always an object schema, closed to
    keys the samples did not show."""

    type: Literal["object"]
    properties: NotRequired[dict[str, Any]]
    required: NotRequired[list[str]]
    additionalProperties: NotRequired[bool]


class InferReport(TypedDict):
    """Represents the infer tool's answer when a call gives `candidates`: the inferred schema
    and one check per candidate."""

    parameters: InferredSchema
    checks: list[InferCheck]


InferAnswer = InferredSchema | InferReport
"""Represents every answer of the infer tool: the schema, or with `candidates` the report."""
