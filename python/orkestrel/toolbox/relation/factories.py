"""`create_relation_tool`: relationships traversed and edited through one `operation`-keyed
call over live relation managers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from orkestrel.relation import ModelInterface, RelationManagerInterface
from orkestrel.tool import ToolInterface, create_tool
from orkestrel.tool.json_sizer import JsonSizer
from orkestrel.toolbox.database.constants import DATABASE_TOOL_SIZE
from orkestrel.toolbox.database.factories import MAX_SAFE_INTEGER, MIN_SIZE
from orkestrel.toolbox.database.helpers import (
    fit_records,
    infer_database_code,
    over_size,
    resolve_limit,
)
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.hints import WRITES
from orkestrel.toolbox.operation_contract import OperationContract
from orkestrel.toolbox.relation.constants import (
    RELATION_TOOL_DEPTH,
    RELATION_TOOL_DESCRIPTION,
    RELATION_TOOL_LIMIT,
    RELATION_TOOL_NAME,
    RELATION_TOOL_SUMMARY,
)
from orkestrel.toolbox.relation.helpers import (
    check_include,
    expand_include,
    infer_relation_code,
    resolve_relation_manager,
    resolve_relation_model,
)
from orkestrel.toolbox.relation.shapes import relation_tool_shape

Call = Mapping[str, Any]
Operation = Callable[[RelationManagerInterface, ModelInterface, Call], Awaitable[dict[str, Any]]]

_JUNCTIONS: Final = frozenset({"link", "unlink", "links"})
_MANAGER_MEMBERS: Final = ("model", "models", "has")


def _count(name: str, value: Any, least: int, rule: str) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not least <= value <= MAX_SAFE_INTEGER
    ):
        raise ToolboxError("TOOL", f"relation {name} must be {rule}", {name: value})
    return value


def _managers(managers: Any) -> dict[str, RelationManagerInterface]:
    if not isinstance(managers, Mapping) or not all(
        isinstance(name, str) and all(hasattr(m, member) for member in _MANAGER_MEMBERS)
        for name, m in managers.items()
    ):
        raise ToolboxError("TOOL", "relation managers must map names to relation managers")
    return dict(managers)


class _Handler:
    """Runs parsed relation-tool calls against the registered managers."""

    __slots__ = ("_depth", "_limit", "_managers", "_operations", "_size")

    def __init__(
        self, managers: dict[str, RelationManagerInterface], limit: int, depth: int, size: int
    ) -> None:
        self._managers = managers
        self._limit = limit
        self._depth = depth
        self._size = size
        self._operations: dict[str, Operation] = {
            "load": self._load,
            "find": self._find,
            "link": self._link,
            "unlink": self._unlink,
            "links": self._links,
        }

    async def run(self, call: Call) -> dict[str, Any]:
        operation = call["operation"]
        try:
            manager = resolve_relation_manager(self._managers, call.get("manager"))
            model = resolve_relation_model(manager, call["model"])
            return await self._operations[operation](manager, model, call)
        except ToolboxError:
            raise
        except Exception as error:
            raise _translate(error, call) from error

    def _include(
        self, manager: RelationManagerInterface, model: ModelInterface, call: Call
    ) -> dict[str, Any]:
        tree = expand_include(call.get("include"), self._depth)
        check_include(manager, model, tree)
        return tree

    async def _load(
        self, manager: RelationManagerInterface, model: ModelInterface, call: Call
    ) -> dict[str, Any]:
        key = call["key"]
        if isinstance(key, list) and len(key) > self._limit:
            raise ToolboxError(
                "TOOL",
                f"load takes at most {self._limit} keys, not {len(key)}",
                {"operation": "load", "limit": self._limit},
            )
        tree = self._include(manager, model, call)
        if not isinstance(key, list):
            return {"row": await model.load(key, tree)}
        answer = {"rows": await model.load(key, tree)}
        # Rows loaded together share their related rows, which JSON writes out under each of
        # them: measured with shared parts counted once per walk, not written.
        if len(key) > 1 and JsonSizer().measure(answer, self._size) is None:
            raise over_size(
                "relation", "load", self._size, "ask for fewer keys or a shorter include"
            )
        return answer

    async def _find(
        self, manager: RelationManagerInterface, model: ModelInterface, call: Call
    ) -> dict[str, Any]:
        tree = self._include(manager, model, call)
        limit = resolve_limit(call.get("limit"), self._limit)
        rows = await model.find(
            tree,
            limit=limit + 1,
            offset=call.get("offset"),
            sort=call.get("sort"),
            direction=call.get("direction"),
        )
        return dict(fit_records(rows, limit, self._size, shared=True))

    async def _link(
        self, manager: RelationManagerInterface, model: ModelInterface, call: Call
    ) -> dict[str, Any]:
        await model.link(call["key"], call["relation"], call["target"])
        return {"linked": True}

    async def _unlink(
        self, manager: RelationManagerInterface, model: ModelInterface, call: Call
    ) -> dict[str, Any]:
        await model.unlink(call["key"], call["relation"], call["target"])
        return {"unlinked": True}

    async def _links(
        self, manager: RelationManagerInterface, model: ModelInterface, call: Call
    ) -> dict[str, Any]:
        keys = await model.links(call["key"], call["relation"], limit=self._limit + 1)
        kept = keys[: self._limit]
        return {
            "keys": kept,
            "count": len(kept),
            "truncated": len(keys) > self._limit,
            "limit": self._limit,
        }


def _translate(error: Exception, call: Call) -> Exception:
    operation = call["operation"]
    code = infer_relation_code(error)
    if code is not None:
        context: dict[str, Any] = {"code": code, "operation": operation, "model": call["model"]}
        if operation in _JUNCTIONS:
            context["relation"] = call["relation"]
        return ToolboxError("RELATION", str(error), context)
    database = infer_database_code(error)
    if database is not None:
        return ToolboxError(
            "DATABASE",
            str(error),
            {"code": database, "operation": operation, "model": call["model"]},
        )
    return error


def create_relation_tool(
    *,
    managers: Mapping[str, RelationManagerInterface],
    name: str | None = None,
    description: str | None = None,
    limit: int | None = None,
    depth: int | None = None,
    size: int | None = None,
) -> ToolInterface:
    """Builds an LLM-callable relation tool that loads rows with their related rows and edits
    many-to-many links through one `operation`-discriminated call, over live relation managers.

    `parameters` is compiled from `relation_tool_shape`, and every call's arguments are parsed
    through the same contract. `find` and `links` answers carry at most `limit` rows or keys
    (default `RELATION_TOOL_LIMIT`), `find` answers at most `size` bytes of JSON (default
    `DATABASE_TOOL_SIZE`), and include paths at most `depth` segments (default
    `RELATION_TOOL_DEPTH`).
    """
    cap = _count(
        "limit", RELATION_TOOL_LIMIT if limit is None else limit, 0, "a nonnegative safe integer"
    )
    levels = _count(
        "depth", RELATION_TOOL_DEPTH if depth is None else depth, 0, "a nonnegative safe integer"
    )
    budget = _count(
        "size",
        DATABASE_TOOL_SIZE if size is None else size,
        MIN_SIZE,
        f"an integer of at least {MIN_SIZE}",
    )
    handler = _Handler(_managers(managers), cap, levels, budget)
    title = RELATION_TOOL_NAME if name is None else name
    contract = OperationContract(relation_tool_shape, label=title)
    if description is None:
        description = RELATION_TOOL_DESCRIPTION.replace(
            f"at most {RELATION_TOOL_DEPTH} segments", f"at most {levels} segments"
        )

    async def execute(args: Mapping[str, Any]) -> dict[str, Any]:
        return await handler.run(contract.parse(args))

    return create_tool(
        name=title,
        description=description,
        summary=RELATION_TOOL_SUMMARY.replace(
            f"describe('{RELATION_TOOL_NAME}')", f"describe('{title}')"
        ),
        parameters=contract.parameters,
        operations=contract.schemas(),
        annotations={**WRITES, "idempotentHint": True, "title": "Relations"},
        execute=execute,
    )
