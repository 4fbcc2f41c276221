"""`OperationContract`: one `operation`-discriminated tool's advertised schema and its parse."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, cast

from orkestrel.contract import (
    Contract,
    ContractError,
    ParseError,
    UnionShape,
    create_contract,
    preview,
)
from orkestrel.tool.flatten import flatten_parameters
from orkestrel.tool.schemas import schema_kinds
from orkestrel.tool.strict import strict_parameters
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.helpers import stored_argument
from orkestrel.toolbox.unknown_keys import (
    Finding,
    KeyCheck,
    key_check,
    unknown_key,
    unknown_key_error,
)
from orkestrel.toolbox.variant_faults import name_variants

_PARSE_PREFIX = "parse: the value does not satisfy the contract: "
_FAULTS_KEPT = 10


class OperationContract:
    """Compiles a union of closed object shapes, each led by its own `operation` literal, into
    what one tool advertises and enforces.

    `parameters` is the flat object schema derived from the compiled union (see
    `flatten_parameters`), so what is advertised cannot drift from what is enforced; `parse`
    checks each call against the union, and a refusal names what the call's own operation is
    missing.
    """

    __slots__ = (
        "_arms",
        "_checks",
        "_contract",
        "_label",
        "_listed",
        "_own",
        "_owners",
        "_parameters",
        "_schemas",
    )

    def __init__(self, shape: UnionShape, *, label: str) -> None:
        self._contract = create_contract(shape)
        self._arms: dict[str, Contract] = {}
        for variant in shape["variants"]:
            tag: Any = cast(Any, variant)["properties"]["operation"]
            if tag.get("type") != "literal" or len(tag["values"]) != 1:
                raise ToolboxError(
                    "TOOL", "every operation arm needs a one-value operation literal"
                )
            self._arms[str(tag["values"][0])] = create_contract(variant)
        flat = flatten_parameters(self._contract.schema)
        if len(self._arms) != len(shape["variants"]):
            raise ToolboxError("TOOL", "the operation arms must carry distinct operation names")
        self._parameters = flat
        self._label = label
        # Each arm's schema is emitted afresh on every read: kept once, with what a call's
        # checks derive from it.
        self._schemas = {name: arm.schema for name, arm in self._arms.items()}
        self._own = {name: _names(schema) for name, schema in self._schemas.items()}
        self._checks: dict[str, KeyCheck | None] = {
            name: key_check(schema) for name, schema in self._schemas.items()
        }
        self._owners: dict[str, list[str]] = {}
        for name, own in self._own.items():
            for key in own:
                self._owners.setdefault(key, []).append(name)
        listed = strict_parameters(flat, label) or flat
        self._listed = {
            key: schema_kinds(child, listed) for key, child in listed.get("properties", {}).items()
        }

    @property
    def operations(self) -> tuple[str, ...]:
        """The operation names, in the order the union declares them."""
        return tuple(self._arms)

    @property
    def contract(self) -> Contract:
        """The compiled union contract every call is parsed through."""
        return self._contract

    @property
    def parameters(self) -> dict[str, Any]:
        """A fresh copy of the flat object schema the tool advertises."""
        return copy.deepcopy(self._parameters)

    def schemas(self) -> dict[str, dict[str, Any]]:
        """A fresh copy of each operation's exact call schema, its arm of the union, by name."""
        return {name: copy.deepcopy(dict(arm.schema)) for name, arm in self._arms.items()}

    def arm(self, operation: str) -> Contract | None:
        """The compiled contract of one operation's arm, or `None` for an unknown name."""
        return self._arms.get(operation)

    def parse(self, args: Any) -> dict[str, Any]:
        """Parses a model's arguments, or raises a `TOOL` `ToolboxError` that names the
        operation's own faults (or the operations there are, when none is named), or the
        first key its operation does not declare, at any depth (for another operation's
        argument, the operations that take it). Another operation's argument left empty
        (`null`, `""`, `[]`, where the strict listing allows that value for it) is dropped
        first: the flat listing offers it to every call."""
        operation = _operation(args)
        if isinstance(operation, str) and operation in self._arms:
            args = self._without_unused(args, self._own[operation])
            check = self._checks[operation]
            if check is not None and not check(args):
                found = unknown_key(self._schemas[operation], args)
                if found is not None:
                    raise self._unknown(found, operation)
        try:
            call = self._contract.parse(args)
        except (ParseError, ContractError) as error:
            raise self._malformed(args, error) from None
        if not isinstance(call, dict):
            raise self._malformed(args, None)
        return call

    def _without_unused(self, args: Any, own: frozenset[str]) -> Any:
        """`args` without the other operations' arguments left empty (`null`, `""`, `[]`, each
        where the strict listing allows it): the flat listing names every operation's fields,
        and a strict-mode model must send each, so an empty one means nothing. A dict subclass
        is passed on as it is."""
        if type(args) is not dict:
            return args
        unused = [
            key
            for key, value in args.items()
            if key not in own and _empty(value) in self._listed.get(key, ())
        ]
        return {k: v for k, v in args.items() if k not in unused} if unused else args

    def _unknown(self, found: Finding, operation: str) -> ToolboxError:
        path, key, known = found
        owners = self._owners.get(key) if not path else None
        label = f"malformed {self._label} call: {operation}"
        if not owners:
            return unknown_key_error(found, label)
        return ToolboxError(
            "TOOL",
            f'{label}: "{key}" is an argument of {", ".join(owners)}, not of {operation} '
            f"({operation} takes {', '.join(known)}; send null for the others)",
            {"path": [key], "known": known, "operations": owners},
        )

    def _malformed(self, args: Any, error: Exception | None) -> ToolboxError:
        operation = _operation(args)
        arm = self._arms.get(operation) if isinstance(operation, str) else None
        if arm is None:
            return ToolboxError(
                "TOOL",
                f"malformed {self._label} call: operation must be one of " + ", ".join(self._arms),
                {"operation": preview(operation)},
            )
        try:
            faults = arm.explain(args)
        except Exception:
            faults = list(getattr(error, "faults", []))
        if faults:
            named = name_variants(arm.schema, faults)
            detail = str(ParseError(named)).removeprefix(_PARSE_PREFIX)
        else:
            detail = "the arguments are not a plain JSON object"
        return ToolboxError(
            "TOOL",
            f"malformed {self._label} call: {operation}: {detail}",
            {"operation": operation, "faults": faults[:_FAULTS_KEPT]},
        )


def _names(schema: Any) -> frozenset[str]:
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    return frozenset(properties) if isinstance(properties, Mapping) else frozenset()


def _empty(value: Any) -> str | None:
    """The JSON type of an empty value (`null`, `""`, `[]`), or `None` for any other."""
    if value is None:
        return "null"
    if type(value) is str and not value:
        return "string"
    return "array" if type(value) is list and not value else None


def _operation(args: Any) -> Any:
    if isinstance(args, dict):
        return stored_argument(args, "operation")
    if isinstance(args, Mapping):
        try:
            return args.get("operation")
        except Exception:
            return None
    return None
