"""The native extension: the Rust core of orkestrel."""

from collections.abc import Callable, Iterable, Mapping, Sequence
from os import PathLike
from typing import Any, Literal, Protocol, final

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
class FaultReport:
    """The faults of a failed parse, kept in Rust until Python reads them."""

    def to_list(self) -> list[Fault]:
        """The faults as a list of dicts."""
    def __len__(self) -> int: ...

@final
class Contract:
    """A compiled contract: `schema`, `is_valid`, `parse` and `explain` over one shape."""

    def __new__(cls, shape: Any) -> Contract: ...
    @property
    def schema(self) -> JSONSchema:
        """The emitted JSON Schema, as a fresh dict on every access."""
    @property
    def shape(self) -> ContractShape:
        """The declaration this contract was compiled from, as fresh shape data."""
    def is_valid(self, value: Any) -> bool:
        """Whether the value satisfies the contract exactly; never raises.

        No coercion happens: `"7"` is not a valid integer here, though `parse` accepts it.
        """
    def parse(self, value: Any) -> Any:
        """The coerced value, or `ParseError` carrying the `explain` faults."""
    def explain(self, value: Any, path: list[str] | None = None) -> list[Fault]:
        """The faults of the value under the coercive reading; `[]` exactly when parse succeeds.

        `path` prefixes every fault path.
        """
    def __reduce__(self) -> tuple[Any, ...]: ...

def check_shape(builder: str, shape: Any) -> Any:
    """Runs a builder's argument checks and the declaration gate; returns fresh shape data."""

def validate_shape(shape: Any) -> Any:
    """Validates a hand-assembled shape graph; returns fresh shape data."""

def schema_to_shape(schema: Any) -> Any:
    """Widens a JSON Schema into shape data."""

def preview(value: Any) -> str:
    """Renders a short, safe description of a value, as a fault's `received` text shows it.

    Strings are JSON-quoted and cut at `PREVIEW_LIMIT` UTF-16 units; numbers, booleans and
    `None` give their ECMAScript text, lists and dicts their kind (`"array"`, `"object"`), a
    callable `"function"`, and any other value its Python type's name (`"tuple"`).
    """

def number_to_string(value: float) -> str:
    """Formats a number as JavaScript's `String(number)` does: `5.0` is `5`, `1e21` is `1e+21`.

    `5.0` is `"5"`, `1e21` is `"1e+21"`, `-0.0` is `"0"`.
    """

def coerce_number(value: object) -> float | None:
    """Reads a value as a number shape's coercing parser does: a finite number as is, a string by
    ECMAScript `Number()` over its trimmed text (blank and non-finite refused); `None` otherwise."""

def is_json_value(value: Any) -> bool:
    """Whether a value is JSON data: finite numbers, lists, str-keyed dicts, no cycles."""

def clone_json_value(value: Any) -> Any:
    """A deep copy of JSON data in fresh containers; `ContractError` (`clone`) otherwise."""

def clone_json_record(value: Any) -> dict[str, Any]:
    """A deep copy of a JSON record; `ContractError` (`clone`) for anything else."""

# query: row caps, connector normalisation, like/glob matchers and the row-encoding fast path

def json_size(value: Any) -> int | None:
    """`len(json.dumps(value))` with its default options, or `None` for `json.dumps` to judge."""

def resolve_limit(requested: int | float | None, cap: int | float) -> int:
    """The request inside the cap, the cap above it or when absent, and 0 below zero."""

def clamp_query(query: Mapping[str, Any] | None, cap: int | float) -> dict[str, Any]:
    """`{"query": <query with limit + 1>, "limit": <effective limit>}`."""

def normalize_query(query: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The query with every condition's omitted connector set to `"and"`."""

def like_match(pattern: object, value: object) -> bool:
    """`%` any run, `_` one character, no escape, ignoring case; non-strings never match."""

def glob_match(pattern: object, value: object) -> bool:
    """`*` any run, `?` one character, no classes, matching case; non-strings never match."""

def all_exact_dicts(rows: list[Any]) -> bool:
    """Whether every item of the list is exactly a `dict`, no subclass."""

def encode_rows(
    rows: list[Any], columns: Sequence[tuple[str, int, bool]], key: int
) -> tuple[list[Any], list[Any], list[int]]:
    """Keys, parameter tuples and the indexes of rows that need the full coercing path."""

def decode_rows(
    rows: list[Any], columns: Sequence[tuple[str, int, Callable[[Any], Any]]]
) -> list[dict[str, Any]]:
    """One dict per engine tuple, in column order, NULL cells left out."""

# --- schema inference -------------------------------------------------------------------------

INFER_ENUM_LIMIT: int
FORMAT_MAX_LENGTH: int

class _BinaryReader(Protocol):
    def read(self, size: int, /) -> bytes | bytearray | memoryview | None: ...

_Text = bytes | bytearray | memoryview
_LinesSource = _Text | str | PathLike[str] | _BinaryReader
_Format = Literal["uuid", "date-time", "date", "time", "email", "uri"]

def samples_to_schema(
    samples: Iterable[Any],
    *,
    format: bool = False,
    enum: bool = False,
    closed: bool = True,
    max_depth: int | float = ...,
    max_properties: int | float = ...,
    merge: bool = False,
) -> dict[str, Any]:
    """Infers one JSON Schema that every sample satisfies.

    Every sample validates against the result.
    """

def value_to_schema(
    value: object,
    *,
    format: bool = False,
    closed: bool = True,
    max_depth: int | float = ...,
    max_properties: int | float = ...,
    merge: bool = False,
) -> dict[str, Any]:
    """Infers the JSON Schema of one value."""

def infer_json_lines(
    source: _LinesSource,
    *,
    format: bool = False,
    enum: bool = False,
    closed: bool = True,
    max_depth: int | float = ...,
    max_properties: int | float = ...,
    merge: bool = False,
    errors: Literal["raise", "skip"] = "raise",
    threads: int | None = None,
    progress: Callable[[int], object] | None = None,
) -> dict[str, Any]:
    """Infers one JSON Schema from JSON Lines, each non-blank line being a sample.

    The text is parsed in Rust on every core without the GIL.
    """

def infer_json(
    document: str | _Text,
    *,
    format: bool = False,
    enum: bool = False,
    closed: bool = True,
    max_depth: int | float = ...,
    max_properties: int | float = ...,
    merge: bool = False,
) -> dict[str, Any]:
    """Infers the JSON Schema of one JSON document (as `samples_to_schema([document])`)."""

def string_to_format(value: object) -> _Format | None:
    """Detects which format a string has (uuid, date-time, date, time, email or uri), if any."""

def samples_to_format(values: Iterable[object]) -> _Format | None:
    """Detects the format every value shares, when all are strings of one format."""

def is_valid_iso_instant(value: str) -> bool:
    """Determines whether an ISO date or date-time string names a real calendar instant."""

@final
class LinesReport:
    """Counts from reading JSON Lines into a `SchemaBuilder`."""

    @property
    def lines(self) -> int:
        """Lines read, blank ones included."""
    @property
    def samples(self) -> int:
        """Lines added as samples."""
    @property
    def skipped(self) -> int:
        """Bad lines skipped (always 0 when errors="raise")."""
    @property
    def errors(self) -> list[Any]:
        """The first bad lines as `JSONInputError` objects, in line order."""

@final
class SchemaBuilder:
    """An accumulator that infers one JSON Schema from samples added over time.

    Builders with the same options merge in any order with the same result, so inference can
    be split across threads, processes or machines; they pickle to a compact binary state.
    """

    def __new__(
        cls,
        *,
        format: bool = False,
        enum: bool = False,
        closed: bool = True,
        max_depth: int | float = ...,
        max_properties: int | float = ...,
        merge: bool = False,
    ) -> SchemaBuilder: ...
    def add(self, sample: object) -> None:
        """Adds one sample."""
    def add_many(self, samples: Iterable[Any]) -> None:
        """Adds every sample of an iterable."""
    def add_json_lines(
        self,
        source: _LinesSource,
        *,
        errors: Literal["raise", "skip"] = "raise",
        threads: int | None = None,
        progress: Callable[[int], object] | None = None,
    ) -> LinesReport:
        """Adds each non-blank line of JSON Lines text as a sample, using every core."""
    def add_json(self, document: str | _Text) -> None:
        """Adds one JSON document (bytes or str) as a sample."""
    def merge(self, other: SchemaBuilder) -> None:
        """Folds another builder (built with the same options) into this one."""
    def to_schema(self) -> dict[str, Any]:
        """Returns the JSON Schema of every sample added so far."""
    @property
    def samples(self) -> int:
        """How many samples were added (merged builders included)."""
    @property
    def options(self) -> dict[str, Any]:
        """The options, as keyword arguments of the constructor."""
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: bytes) -> None: ...
    def __copy__(self) -> SchemaBuilder: ...
    def __deepcopy__(self, memo: object) -> SchemaBuilder: ...

class PatternError(ValueError):
    """Raised when a search pattern cannot be compiled or run by the linear-time engine."""

class ResultSizeError(PatternError):
    """Raised when a search's matches or a replaced text would pass the size bound it was given."""

@final
class SearchPattern:
    """A compiled search query, literal or regular expression, run in time linear in the text."""

    def __new__(cls, query: str, *, regex: bool, sensitive: bool, lines: bool) -> SearchPattern: ...
    def search(self, path: str, text: str, limit: int | None = None) -> list[SearchMatch]: ...
    def search_within(
        self, path: str, text: str, limit: int | None, size: int
    ) -> tuple[list[SearchMatch], int]:
        """The matches whose serialized size (line, path and framing each) fits in `size` bytes,
        and the bytes they cost; `ResultSizeError` once they would cost more."""
    def replace(
        self, text: str, replacement: str, limit: int | None = None, size: int | None = None
    ) -> tuple[str, int, int, int] | None:
        """The new text, the count, its UTF-8 size and its line breaks, or `None` when nothing
        matched; with `size`, `ResultSizeError` before the new text would pass that many bytes."""

@final
class SearchMatch:
    """One search hit: the file's path, the 1-based line and column where the match starts
    (columns count code points), the match length in code points, and the whole line holding it.
    """

    __match_args__ = ("path", "line", "column", "length", "content")
    def __new__(
        cls, path: str, line: int, column: int, length: int, content: str
    ) -> SearchMatch: ...
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def length(self) -> int: ...
    @property
    def content(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def locate(text: str, line: int, column: int) -> tuple[int, int, int]: ...
