"""`@tool`: schemas from signatures and docstrings, binding, the caller, decoration errors."""

from __future__ import annotations

import threading
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from orkestrel.tool import (
    Caller,
    DocstringWarning,
    FunctionTool,
    Tool,
    ToolManager,
    tool,
    tool_to_definition,
)
from support.arguments import Address, fault, lookup, run

pytestmark = pytest.mark.anyio


def test_bare_decorator_builds_a_tool_from_the_function() -> None:
    assert isinstance(lookup, Tool)
    assert isinstance(lookup, FunctionTool)
    assert lookup.name == "lookup"
    assert lookup.summary == "Find records that match a query."
    assert lookup.description == (
        "Find records that match a query.\n\nSearches the whole index, newest first."
    )
    assert lookup.parameters == {
        "additionalProperties": False,
        "properties": {
            "query": {"description": "What to look for.", "type": "string"},
            "limit": {
                "default": 10,
                "description": "How many records to return.",
                "type": "integer",
            },
            "kind": {"default": "a", "enum": ["a", "b"], "type": "string"},
        },
        "required": ["query"],
        "type": "object",
    }


def test_it_stays_callable_as_the_function() -> None:
    assert lookup("x") == {"query": "x", "limit": 10, "kind": "a"}
    assert lookup("x", 3, kind="b") == {"query": "x", "limit": 3, "kind": "b"}
    assert lookup.__name__ == "lookup"
    assert lookup.__doc__ is not None
    assert lookup.__doc__.startswith("Find records")
    assert lookup.__wrapped__ is lookup.function  # type: ignore[attr-defined]
    assert repr(lookup) == "FunctionTool(name='lookup')"


def test_options_override_name_summary_and_description() -> None:
    @tool(name="search", summary="Search.", description="Search everything, carefully.")
    def find(query: str) -> str:
        """Ignored for the description."""
        return query

    assert (find.name, find.summary, find.description) == (
        "search",
        "Search.",
        "Search everything, carefully.",
    )
    assert find("q") == "q"


def test_a_one_paragraph_docstring_has_no_separate_summary() -> None:
    @tool()
    def ping() -> str:
        """Answer pong."""
        return "pong"

    assert (ping.summary, ping.description) == (None, "Answer pong.")
    assert ping.parameters == {"additionalProperties": False, "properties": {}, "type": "object"}


async def test_arguments_are_validated_and_coerced() -> None:
    assert await run(lookup, {"query": "x", "limit": "7"}) == {
        "query": "x",
        "limit": 7,
        "kind": "a",
    }


async def test_a_manager_runs_it_and_advertises_the_summary() -> None:
    tools = ToolManager()
    tools.add(lookup)
    assert tools.definitions() == [
        {
            "name": "lookup",
            "description": "Find records that match a query.",
            "parameters": lookup.parameters,
        }
    ]
    ok = await tools.execute({"id": "1", "name": "lookup", "arguments": {"query": "q"}})
    assert ok == {
        "id": "1",
        "name": "lookup",
        "success": True,
        "value": {"query": "q", "limit": 10, "kind": "a"},
    }


async def test_defaults_apply_and_null_means_absent_for_a_non_nullable_optional() -> None:
    assert await run(lookup, {"query": "x", "limit": None, "kind": None}) == {
        "query": "x",
        "limit": 10,
        "kind": "a",
    }

    @tool
    def maybe(value: int | None = 5) -> int | None:
        """Keep null when null is accepted."""
        return value

    assert await run(maybe, {"value": None}) is None
    assert await run(maybe, {}) == 5


async def test_a_basemodel_parameter_is_validated_into_an_instance() -> None:
    seen: list[Any] = []

    @tool
    def visit(address: Address, note: str = "") -> str:
        """Visit an address."""
        seen.append(address)
        return f"{address.street} {address.number}"

    assert visit.parameters is not None
    assert visit.parameters["properties"]["address"] == {"$ref": "#/$defs/Address"}
    assert "Address" in visit.parameters["$defs"]
    assert await run(visit, {"address": {"street": "Main", "number": "4"}}) == "Main 4"
    assert isinstance(seen[0], Address)


async def test_a_model_can_be_the_whole_parameter_schema() -> None:
    class Query(BaseModel):
        """Search arguments."""

        text: str
        limit: int = 3

    @tool(parameters=Query)
    def search(query: Query, who: Caller[str] = "anon") -> str:
        """Search."""
        return f"{who}:{query.text}:{query.limit}"

    assert search.parameters == {
        "description": "Search arguments.",
        "properties": {"text": {"type": "string"}, "limit": {"default": 3, "type": "integer"}},
        "required": ["text"],
        "type": "object",
    }
    assert await run(search, {"text": "x", "limit": "2"}) == "anon:x:2"
    assert await run(search, {"text": "x"}, "ada") == "ada:x:3"
    assert await fault(search, {}) == "text: expected a value (required), received nothing"

    with pytest.raises(TypeError, match="exactly one argument"):

        @tool(parameters=Query)
        def two(query: Query, extra: int) -> None:
            """Two."""


async def test_the_caller_parameter_receives_the_call_context() -> None:
    @tool
    def whoami(greeting: str, who: Caller[dict[str, str] | None]) -> str:
        """Greet the caller."""
        return f"{greeting} {who['user'] if who else 'nobody'}"

    assert whoami.parameters is not None
    assert list(whoami.parameters["properties"]) == ["greeting"]
    assert await run(whoami, {"greeting": "hi"}, {"user": "ada"}) == "hi ada"
    assert await run(whoami, {"greeting": "hi"}) == "hi nobody"
    tools = ToolManager()
    tools.add(whoami)
    call = {"id": "1", "name": "whoami", "arguments": {"greeting": "yo"}, "caller": {"user": "bo"}}
    result = await tools.execute(call)  # type: ignore[arg-type]
    assert result["success"]
    assert result["value"] == "yo bo"


async def test_a_sync_function_runs_in_a_worker_thread_and_async_is_awaited() -> None:
    loop_thread = threading.get_ident()

    @tool
    def where() -> int:
        """Report the thread."""
        return threading.get_ident()

    @tool
    async def later(x: int) -> int:
        """Double later."""
        return x * 2

    assert await run(where, {}) != loop_thread
    assert await run(later, {"x": "4"}) == 8


def test_argument_descriptions_from_every_docstring_layout() -> None:
    @tool
    def google(a: int, b: int) -> None:
        """G.

        Args:
            a: First.
            b (int): Second.
        """

    @tool
    def numpy(a: int, b: int) -> None:
        """N.

        Parameters
        ----------
        a : int
            First.
        b : int
            Second.
        """

    @tool
    def sphinx(a: int, b: int) -> None:
        """S.

        :param a: First.
        :param int b: Second.
        """

    for made in (google, numpy, sphinx):
        assert made.parameters is not None
        properties = made.parameters["properties"]
        assert properties["a"]["description"] == "First.", made.name
        assert properties["b"]["description"] == "Second.", made.name


def test_a_field_description_wins_over_the_docstring() -> None:
    @tool
    def scaled(
        factor: Annotated[float, Field(description="From the annotation.", ge=0)],
        offset: float = Field(default=0.0, description="From the default."),
    ) -> float:
        """Scale.

        Args:
            factor: From the docstring.
            offset: Also from the docstring.
        """
        return factor

    assert scaled.parameters is not None
    properties = scaled.parameters["properties"]
    assert properties["factor"] == {
        "description": "From the annotation.",
        "minimum": 0,
        "type": "number",
    }
    assert properties["offset"] == {
        "default": 0.0,
        "description": "From the default.",
        "type": "number",
    }


def test_documenting_a_missing_argument_warns() -> None:
    with pytest.warns(DocstringWarning, match="qeury"):

        @tool
        def typo(query: str) -> None:
            """Typo.

            Args:
                qeury: Misspelled.
            """


def test_names_pydantic_reserves_still_work_as_parameters() -> None:
    @tool
    def odd(model_config: int, json: str = "j", schema: bool = False) -> tuple[int, str, bool]:
        """Odd names."""
        return (model_config, json, schema)

    assert odd.parameters is not None
    assert list(odd.parameters["properties"]) == ["model_config", "json", "schema"]


async def test_positional_only_and_keyword_only_parameters_are_bound() -> None:
    @tool
    def shape(a: int, /, b: int, *, c: int = 0) -> tuple[int, int, int]:
        """Shape."""
        return (a, b, c)

    assert await run(shape, {"a": "1", "b": 2, "c": 3}) == (1, 2, 3)


async def test_an_unannotated_parameter_accepts_anything() -> None:
    @tool
    def echo(value) -> Any:  # type: ignore[no-untyped-def]
        """Echo."""
        return value

    assert echo.parameters is not None
    assert echo.parameters["properties"]["value"] == {}
    assert await run(echo, {"value": [1, {"a": None}]}) == [1, {"a": None}]


def test_decoration_time_errors() -> None:
    with pytest.raises(TypeError, match=r"\*args"):

        @tool
        def spread(*args: int) -> None:
            """Spread."""

    with pytest.raises(TypeError, match=r"\*\*options"):

        @tool
        def loose(**options: int) -> None:
            """Loose."""

    with pytest.raises(TypeError, match="name="):
        tool(lambda x: x)
    with pytest.raises(TypeError, match="keyword"):
        tool("lookup")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="not the class Address"):
        tool(Address)
    with pytest.raises(TypeError, match="BaseModel"):
        tool(parameters=dict)(lambda: None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bound method"):

        @tool
        def method(self, x: int) -> None:  # type: ignore[no-untyped-def]
            """Method."""

    with pytest.raises(TypeError, match="type hints"):

        @tool
        def unresolved(x: NoSuchType) -> None:  # type: ignore[name-defined]  # noqa: F821
            """Unresolved."""

    with pytest.raises(TypeError, match=r"JSON Schema|pydantic"):

        @tool
        def opaque(lock: threading.Lock) -> None:  # type: ignore[valid-type]
            """Opaque."""


async def test_a_bound_method_works() -> None:
    class Counter:
        def __init__(self) -> None:
            self.total = 0

        def add(self, amount: int) -> int:
            """Add to the total."""
            self.total += amount
            return self.total

    counter = Counter()
    adder = tool(counter.add)
    assert adder.name == "add"
    assert await run(adder, {"amount": "2"}) == 2
    assert counter.total == 2


def test_annotations_are_kept_on_the_tool() -> None:
    hints = {"readOnlyHint": True}

    @tool(annotations=hints)
    def peek(key: str) -> str:
        """Read one value."""
        return key

    assert peek.annotations is hints
    assert "annotations" not in tool_to_definition(peek)
