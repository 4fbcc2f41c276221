"""The handler contract every toolbox tool shares: parameters from a contract, parsed calls."""

from __future__ import annotations

from typing import Any

from orkestrel.contract import Contract, ContractError, ParseError, schema_to_parameters
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.unknown_keys import refuse_unknown_keys


def contract_parameters(contract: Contract) -> dict[str, Any] | None:
    """The JSON Schema a tool advertises as its `parameters`: its contract's schema as a record."""
    return schema_to_parameters(contract.schema)


_PREFIX = "parse: the value does not satisfy the contract: "


def parse_arguments(contract: Contract, args: Any, message: str) -> dict[str, Any]:
    """Parses a model's arguments through a tool's contract, or raises a `TOOL` `ToolboxError`.

    The parse normalizes: scalars are coerced where the contract allows it; a key a closed
    object does not declare, at any depth, is refused first, naming it and the nearest name.
    The error's context carries the raw `args` and the contract's faults.
    """
    refuse_unknown_keys(contract.schema, args, message)
    try:
        parsed = contract.parse(args)
    except ParseError as error:
        detail = str(error).removeprefix(_PREFIX)
        raise ToolboxError(
            "TOOL", f"{message}: {detail}", {"args": args, "faults": error.faults}
        ) from None
    except ContractError as error:
        raise ToolboxError("TOOL", message, {"args": args, "reason": str(error)}) from None
    if not isinstance(parsed, dict):
        raise ToolboxError("TOOL", message, {"args": args})
    return parsed


def stored_argument(args: object, key: str) -> Any:
    """The value a call's arguments store under `key`, read from the dict's storage so that no
    method of a dict subclass runs (a lying `get` cannot steer a pre-check); `None` for anything
    that is not a dict.
    """
    return dict.get(args, key) if isinstance(args, dict) else None


def named_text(text: str, default: str, name: str) -> str:
    """Rewrites a toolbox tool's own teaching text for the name it is registered under.

    Every toolbox text points at itself the same way, `describe('<default name>')` (or with
    double quotes); a tool built under another `name` must point the model at that name, so each
    such reference is rewritten. A text that never names the tool comes back unchanged.
    """
    if name == default:
        return text
    for quote in ("'", '"'):
        text = text.replace(f"describe({quote}{default}{quote})", f"describe({quote}{name}{quote})")
    return text
