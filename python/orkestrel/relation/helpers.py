"""Define-time resolution of relation maps: shorthands and descriptors into `ResolvedRelation`s."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeGuard, cast, get_args

from orkestrel.contract.helpers import preview
from orkestrel.relation.errors import RelationError
from orkestrel.relation.types import RelationDescriptor, Relationship, ResolvedRelation

RELATIONSHIPS: Final[tuple[Relationship, ...]] = get_args(Relationship)
"""Lists the five relation kinds: `belongs`, `many`, `one`, `through` and `morph`."""

_REQUIRED: Final[dict[str, tuple[str, ...]]] = {
    "belongs": ("column",),
    "many": ("key",),
    "one": ("key",),
    "through": ("through", "source", "target"),
    "morph": ("key", "tag", "label"),
}
_FIELDS: Final = frozenset(
    {"relationship", "model", "column", "key", "through", "source", "target", "tag", "label"}
)


def is_relation_descriptor(value: object) -> TypeGuard[RelationDescriptor]:
    """Determines whether a relation is written in object form (any mapping), narrowing its
    type."""
    return isinstance(value, Mapping)


def _invalid(name: Any, message: str) -> RelationError:
    return RelationError("INVALID", f"relation {preview(name)}: {message}", {"relation": name})


def _infer(descriptor: Mapping[str, Any]) -> str | None:
    for field, kind in (("through", "through"), ("tag", "morph"), ("column", "belongs")):
        if field in descriptor:
            return kind
    return "one" if "key" in descriptor else None


def _text(name: str, field: str, value: Any) -> str:
    if type(value) is not str or not value:
        raise _invalid(name, f"{field} must be a non-empty string, not {preview(value)}")
    return value


def _label(name: str, value: Any) -> str | int | float:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _invalid(name, f"label must be a string or a number, not {preview(value)}")
    label: str | int | float = value
    return label


def _descriptor(name: str, value: Mapping[str, Any]) -> ResolvedRelation:
    unknown = [field for field in value if field not in _FIELDS]
    if unknown:
        raise _invalid(name, f"unknown field {preview(unknown[0])}")
    kind = value.get("relationship")
    if kind is None:
        kind = _infer(value)
        if kind is None:
            raise _invalid(name, "cannot tell its kind: give relationship, column, key or through")
    elif kind not in RELATIONSHIPS:
        raise _invalid(name, f"relationship must be one of {', '.join(RELATIONSHIPS)}")
    fields: dict[str, Any] = {}
    for field in _REQUIRED[kind]:
        if field not in value:
            raise _invalid(name, f"a {kind} relation needs {field}")
        fields[field] = (
            _label(name, value[field]) if field == "label" else _text(name, field, value[field])
        )
    model = value.get("model")
    model = name if model is None else _text(name, "model", model)
    return ResolvedRelation(relationship=cast(Relationship, kind), name=name, model=model, **fields)


def resolve_relation(name: str, value: Any) -> ResolvedRelation:
    """Resolves one relation as written into its `ResolvedRelation`; a value that does not
    describe a relation raises `RelationError` coded `INVALID`.

    A string is a `belongs` column and a one-element list of a string a `many` key, both
    relating to the model named like the relation. A descriptor without `relationship` is
    `through` when it has `through`, `morph` with `tag`, `belongs` with `column`, else `one`
    with `key`.
    """
    if type(name) is not str or not name:
        raise _invalid(name, "a relation name must be a non-empty string")
    if isinstance(value, str):
        return ResolvedRelation(
            relationship="belongs", name=name, model=name, column=_text(name, "column", value)
        )
    if isinstance(value, list | tuple):
        if len(value) != 1 or not isinstance(value[0], str):
            raise _invalid(name, "the list form holds exactly one foreign-key column name")
        return ResolvedRelation(
            relationship="many", name=name, model=name, key=_text(name, "key", value[0])
        )
    if is_relation_descriptor(value):
        return _descriptor(name, value)
    raise _invalid(name, f"a relation is a string, a list or a descriptor, not {preview(value)}")


def resolve_relation_map(relations: Any) -> dict[str, ResolvedRelation]:
    """Resolves one model's relation map, in its order; anything but a mapping of relations
    raises `RelationError` coded `INVALID`.
    """
    if not isinstance(relations, Mapping):
        raise RelationError(
            "INVALID", f"a relation map must be a mapping, not {type(relations).__name__}"
        )
    try:
        items = list(relations.items())
    except Exception as error:
        raise RelationError("INVALID", f"the relation map could not be read: {error!r}") from None
    return {name: resolve_relation(name, value) for name, value in items}
