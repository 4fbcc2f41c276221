"""Reading a function's signature into a pydantic model that validates a tool call's arguments.

Each parameter becomes one field, aliased to the parameter's own name, so any name works (even
`model_config` or `json`) and validation errors point at the names the model sent.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, NamedTuple, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.errors import PydanticUserError
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema

from orkestrel.tool.faults import arguments_error
from orkestrel.tool.schemas import admits_null

T = TypeVar("T")


class CallerMarker:
    """Marks the parameter that receives the call's `caller` context instead of a model value."""

    def __repr__(self) -> str:
        return "CALLER"


CALLER = CallerMarker()
"""The marker inside `Caller[T]`; `Annotated[T, CALLER]` is the same thing spelled out."""

Caller = Annotated[T, CALLER]
"""Marks the parameter that receives `ToolCall.caller`, e.g. `who: Caller[User]`.

That parameter is left out of the schema. It receives the call's `caller` when the call carries
one, else its own default, else `None`.
"""

_NO_CALLER: Any = object()


class _LeanSchema(GenerateJsonSchema):
    """Leaves out the titles pydantic derives from field names: they repeat the key itself."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


class _Slot(NamedTuple):
    name: str
    field: str | None
    positional: bool
    default: Any


def lean_schema(model: type[BaseModel]) -> dict[str, Any]:
    """Renders a model's JSON Schema without derived field titles and without a root title."""
    schema = model.model_json_schema(schema_generator=_LeanSchema)
    schema.pop("title", None)
    return schema


def is_caller(annotation: Any) -> bool:
    """Tells whether an annotation carries the `CALLER` marker."""
    return get_origin(annotation) is Annotated and any(
        item is CALLER for item in getattr(annotation, "__metadata__", ())
    )


def _has_description(annotation: Any) -> bool:
    return get_origin(annotation) is Annotated and any(
        isinstance(item, FieldInfo) and item.description for item in get_args(annotation)[1:]
    )


class ParameterModel:
    """Validates a tool call's arguments against a function's parameters and binds the call.

    With `whole` given, that `BaseModel` is the entire parameter schema and the function's one
    non-caller parameter receives the validated model instance.
    """

    __slots__ = ("_model", "_nullable", "_slots", "_tool", "callers", "names", "schema")

    def __init__(
        self,
        function: Callable[..., Any],
        tool: str,
        descriptions: Mapping[str, str],
        whole: type[BaseModel] | None = None,
        namespace: Mapping[str, Any] | None = None,
    ) -> None:
        self._tool = tool
        slots: list[_Slot] = []
        fields: dict[str, Any] = {}
        for index, (name, parameter, annotation) in enumerate(
            _parameters(function, tool, namespace)
        ):
            positional = parameter.kind is parameter.POSITIONAL_ONLY
            default = None if parameter.default is parameter.empty else parameter.default
            if is_caller(annotation):
                slots.append(_Slot(name, None, positional, default))
                continue
            field = f"p{index}"
            slots.append(_Slot(name, field, positional, None))
            options: dict[str, Any] = {"alias": name}
            if isinstance(parameter.default, FieldInfo):
                annotation = Annotated[annotation, parameter.default]
            elif parameter.default is not parameter.empty:
                options["default"] = parameter.default
            if name in descriptions and not _has_description(annotation):
                options["description"] = descriptions[name]
            fields[field] = (annotation, Field(**options))
        if whole is not None:
            if len(fields) != 1:
                raise TypeError(
                    f"tool {tool!r}: with parameters={whole.__name__} the function must take "
                    f"exactly one argument besides the caller, not {len(fields)}"
                )
            slots = [slot._replace(field="") if slot.field else slot for slot in slots]
            model = whole
        else:
            model = _build(tool, fields)
        self._model = model
        self._slots = tuple(slots)
        self.schema = _render(model, tool)
        properties = self.schema.get("properties", {})
        self.names = tuple(properties)
        self.callers = tuple(slot.name for slot in slots if slot.field is None)
        required = set(self.schema.get("required", ()))
        self._nullable = frozenset(
            key
            for key, value in properties.items()
            if key not in required and not admits_null(value)
        )

    def bind(self, args: Any, caller: Any = _NO_CALLER) -> tuple[list[Any], dict[str, Any]]:
        """Validates and coerces `args`, then returns the positional and keyword arguments.

        A `null` sent for an optional parameter that does not accept `null` counts as absent, so
        its default applies: that is how OpenAI's strict mode sends an omitted argument.
        Raises `ArgumentsError` with one line per fault.
        """
        data = args
        if isinstance(args, Mapping):
            nullable = self._nullable
            data = {k: v for k, v in args.items() if not (v is None and k in nullable)}
        try:
            model = self._model.model_validate(data)
        except ValidationError as error:
            raise arguments_error(self._tool, error, args, self.names) from error
        positional: list[Any] = []
        keyword: dict[str, Any] = {}
        for slot in self._slots:
            if slot.field is None:
                value = slot.default if caller is _NO_CALLER else caller
            else:
                value = getattr(model, slot.field) if slot.field else model
            if slot.positional:
                positional.append(value)
            else:
                keyword[slot.name] = value
        return positional, keyword


def _parameters(
    function: Callable[..., Any], tool: str, namespace: Mapping[str, Any] | None
) -> list[tuple[str, inspect.Parameter, Any]]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as error:
        raise TypeError(f"tool {tool!r}: cannot read the function's signature ({error})") from None
    try:
        local = dict(namespace) if namespace is not None else None
        hints = typing.get_type_hints(function, localns=local, include_extras=True)
    except Exception as error:
        raise TypeError(
            f"tool {tool!r}: cannot resolve the type hints ({type(error).__name__}: {error})"
        ) from None
    result: list[tuple[str, inspect.Parameter, Any]] = []
    for index, (name, parameter) in enumerate(signature.parameters.items()):
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            stars = "*" if parameter.kind is parameter.VAR_POSITIONAL else "**"
            raise TypeError(
                f"tool {tool!r}: {stars}{name} cannot be described to a model; "
                "declare each argument by name"
            )
        if index == 0 and name in ("self", "cls"):
            raise TypeError(
                f"tool {tool!r}: {name!r} is not an argument a model can send; "
                "decorate a function, or pass a bound method: tool(instance.method)"
            )
        result.append((name, parameter, hints.get(name, Any)))
    return result


def _build(tool: str, fields: dict[str, Any]) -> type[BaseModel]:
    try:
        return create_model(f"{tool}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    except (PydanticUserError, TypeError, ValueError, NameError) as error:
        raise TypeError(f"tool {tool!r}: pydantic cannot use these parameters ({error})") from None


def _render(model: type[BaseModel], tool: str) -> dict[str, Any]:
    try:
        return lean_schema(model)
    except (PydanticUserError, TypeError, ValueError) as error:
        raise TypeError(
            f"tool {tool!r}: the parameters have no JSON Schema ({type(error).__name__}: {error})"
        ) from None
