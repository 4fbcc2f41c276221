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
        description="The relations to attach, as dot paths.",
    )
)
"""Describes the flat dot-path relation include list, expanded through `expand_include`."""

manager_shape: Final[OptionalShape] = optional_shape(
    string_shape(min=1, description="The relation manager; leave out when there is only one.")
)
"""Describes which registered relation manager to address: omitted resolves to the sole
registered manager.
"""


def _name(description: str) -> ContractShape:
    return string_shape(min=1, description=description)


def _operation(name: str, description: str, **fields: ContractShape) -> ObjectShape:
    return object_shape(
        {
            "operation": literal_shape([name], description=description),
            "manager": manager_shape,
            "model": _name("The model (table) the call addresses."),
            **fields,
        }
    )


_RELATION = _name("A many-to-many (through) relation of the model.")
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
        limit=optional_shape(integer_shape(min=0, description="At most this many rows.")),
        offset=optional_shape(integer_shape(min=0, description="Skip this many rows first.")),
        sort=optional_shape(_name("The column to sort by.")),
        direction=optional_shape(
            literal_shape(["ascending", "descending"], description="The sort direction.")
        ),
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
