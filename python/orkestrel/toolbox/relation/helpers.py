"""Pure helpers of the relation tool: include paths, manager and model resolution, and error
classification.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from orkestrel.contract import preview
from orkestrel.relation import (
    Include,
    ModelInterface,
    RelationErrorCode,
    RelationManagerInterface,
    is_relation_error,
)
from orkestrel.toolbox.errors import ToolboxError

_PATH_LIMIT = 200


def _shown(path: str) -> str:
    return path if len(path) <= _PATH_LIMIT else preview(path).strip('"')


def expand_include(paths: Sequence[str] | None, depth: int) -> dict[str, Any]:
    """Expands the relation tool's flat dot-path `include` list into the nested `Include` tree
    `load` and `find` read; a path longer than `depth` segments, or with an empty segment,
    raises `ToolboxError` coded `TOOL` before any query.

    A longer path subsumes a shorter one in either order: `["contacts", "contacts.account"]`
    gives `{"contacts": {"account": True}}`.
    """
    tree: dict[str, Any] = {}
    for path in paths or ():
        if type(path) is not str or path.count(".") >= depth or "" in path.split("."):
            shown = _shown(path) if isinstance(path, str) else preview(path)
            raise ToolboxError(
                "TOOL", f"malformed include path '{shown}'", {"path": shown, "depth": depth}
            )
        node = tree
        *parents, leaf = path.split(".")
        for segment in parents:
            child = node.get(segment)
            if not isinstance(child, dict):
                child = node[segment] = {}
            node = child
        node.setdefault(leaf, True)
    return tree


def check_include(manager: RelationManagerInterface, model: ModelInterface, tree: Include) -> None:
    """Refuses an include that names a relation the model along its path does not declare, with
    `ToolboxError` coded `TOOL` naming the relations that exist there.
    """
    pending: list[tuple[ModelInterface, Include, str]] = [(model, tree, "")]
    while pending:
        current, include, prefix = pending.pop()
        for name, sub in include.items():
            path = f"{prefix}{name}"
            relation = current.relations.get(name)
            if relation is None:
                raise ToolboxError(
                    "TOOL",
                    f"unknown relation '{_shown(name)}' in include path '{_shown(path)}'",
                    {
                        "path": _shown(path),
                        "model": current.name,
                        "relation": _shown(name),
                        "relations": list(current.relations),
                    },
                )
            if isinstance(sub, Mapping):
                pending.append((manager.model(relation.model), sub, f"{path}."))


def resolve_relation_manager(
    managers: Mapping[str, RelationManagerInterface], name: str | None
) -> RelationManagerInterface:
    """Resolves which registered relation manager a call addresses: the named one, or the sole
    one when no name is given; anything else raises `ToolboxError` coded `TOOL` listing the
    managers.
    """
    names = list(managers)
    if name is not None:
        manager = managers.get(name)
        if manager is None:
            raise ToolboxError(
                "TOOL",
                f"unknown relation manager '{_shown(name)}'",
                {"manager": name, "managers": names},
            )
        return manager
    if len(names) == 1:
        return managers[names[0]]
    raise ToolboxError("TOOL", "no relation manager resolved for the call", {"managers": names})


def resolve_relation_model(manager: RelationManagerInterface, name: str) -> ModelInterface:
    """Resolves a `model` name against a relation manager: a table with a relation map, else
    `ToolboxError` coded `TOOL` listing the manager's models.
    """
    if not manager.has(name):
        raise ToolboxError(
            "TOOL", f"unknown model '{_shown(name)}'", {"model": name, "models": manager.models()}
        )
    return manager.model(name)


def infer_relation_code(error: object) -> RelationErrorCode | None:
    """Maps a caught error to the granular `RelationErrorCode` the relation tool raises with,
    or `None` when the error is not a `RelationError`.
    """
    return error.code if is_relation_error(error) else None
