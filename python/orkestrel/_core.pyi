"""The native extension: the Rust core of orkestrel."""

from typing import Any, final

from orkestrel.contract.types import ContractShape, Fault, JSONSchema

__version__: str

FAULT_LIMIT: int
PREVIEW_LIMIT: int
GUARD_DEPTH_LIMIT: int
COMPILE_DEPTH_LIMIT: int
COMPILE_NODE_LIMIT: int
CLONE_NODE_LIMIT: int
GENERATION_ATTEMPT_LIMIT: int
INFER_DEPTH_LIMIT: int
INFER_BREADTH_LIMIT: int
JSON_SCHEMA_TYPES: tuple[str, ...]

@final
class Contract:
    """A shape compiled once into `schema`, `is_valid`, `parse` and `explain`."""

    def __new__(cls, shape: Any) -> Contract: ...
    @property
    def schema(self) -> JSONSchema:
        """The emitted JSON Schema, as a fresh dict on every access."""
    @property
    def shape(self) -> ContractShape:
        """The declaration this contract was compiled from, as fresh shape data."""
    def is_valid(self, value: Any) -> bool:
        """Whether the value satisfies the contract exactly, with no coercion; never raises."""
    def parse(self, value: Any) -> Any:
        """The coerced value; raises `ParseError` carrying the `explain` faults."""
    def explain(self, value: Any, path: list[str] | None = None) -> list[Fault]:
        """The faults of the value under the coercive reading; empty exactly when parse succeeds."""
    def __reduce__(self) -> tuple[Any, ...]: ...

def check_shape(builder: str, shape: Any) -> Any:
    """Runs a builder's argument checks and the declaration gate; returns fresh shape data."""

def validate_shape(shape: Any) -> Any:
    """Validates a hand-assembled shape graph; returns fresh shape data."""

def schema_to_shape(schema: Any) -> Any:
    """Widens a JSON Schema into shape data."""

def preview(value: Any) -> str:
    """The short `received` text of a value."""

def number_to_string(value: float) -> str:
    """ECMAScript `String(number)`: `5.0` is `"5"`, `1e21` is `"1e+21"`."""

def is_json_value(value: Any) -> bool:
    """Whether a value is JSON data (finite numbers, lists, str-keyed dicts, no cycles)."""

def clone_json_value(value: Any) -> Any:
    """A deep copy of JSON data in fresh containers; `ContractError` (`clone`) otherwise."""

def clone_json_record(value: Any) -> dict[str, Any]:
    """A deep copy of a JSON record; `ContractError` (`clone`) for anything else."""
