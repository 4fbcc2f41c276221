"""The contract shapes of the relation tool's call arguments: the advertised `parameters` and
the parser the handler reads every call through.
"""

from __future__ import annotations

from typing import Final

from orkestrel.contract import (
    ContractShape,
    ObjectShape,
    OptionalShape,
    UnionShape,
    array_shape,
    integer_shape,
    literal_shape,
    object_shape,
    optional_shape,
    string_shape,
    union_shape,
)
from orkestrel.toolbox.database.shapes import key_shape, single_key_shape

include_shape: Final[OptionalShape] = optional_shape(
    array_shape(
        string_shape(description="A dot path of relation names, one per level: contacts.account."),
        description="Dot paths, e.g. contacts.account.",
    )
)
"""Describes the flat dot-path relation include list, expanded through `expand_include`."""

manager_shape: Final[OptionalShape] = optional_shape(
    string_shape(min=1, description="Omit if only one.")
)
"""Describes which registered relation manager to address: omitted resolves to the sole
registered manager.
"""


def _name(description: str | None = None) -> ContractShape:
    if description is None:
        return string_shape(min=1)
    return string_shape(min=1, description=description)


def _operation(name: str, description: str, **fields: ContractShape) -> ObjectShape:
    return object_shape(
        {
            "operation": literal_shape([name], description=description),
            "manager": manager_shape,
            "model": _name(),
            **fields,
        }
    )


_RELATION = _name("A many-to-many one.")
_PAIR: dict[str, ContractShape] = {
    "key": single_key_shape,
    "relation": _RELATION,
    "target": single_key_shape,
}

relation_tool_shape: Final[UnionShape] = union_shape(
    _operation("load", "Read rows by key with related rows.", key=key_shape, include=include_shape),
    _operation(
        "find",
        "Read a page of rows with related rows.",
        include=include_shape,
        limit=optional_shape(integer_shape(min=0)),
        offset=optional_shape(integer_shape(min=0)),
        sort=optional_shape(_name()),
        direction=optional_shape(literal_shape(["ascending", "descending"])),
    ),
    _operation("link", "Link a row to a related row.", **_PAIR),
    _operation("unlink", "Remove the link between a row and a related row.", **_PAIR),
    _operation(
        "links", "List the related keys linked to a row.", key=single_key_shape, relation=_RELATION
    ),
)
"""Describes the relation tool's call arguments, discriminated by `operation` into `load`,
`find`, `link`, `unlink` and `links`.
"""
