"""Conformance runner: `python run.py CASES.jsonl` prints one JSON answer per request line.

Ops: `infer` and `loop` (schema inference), `check` (`schema_to_shape` then
`create_contract`) and `shape` (the builder DSL then `create_contract`); each value is run
through `is_valid`, `parse` and `explain`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from orkestrel.contract import (
    Contract,
    ContractError,
    ParseError,
    array_shape,
    boolean_shape,
    create_contract,
    integer_shape,
    json_shape,
    literal_shape,
    null_shape,
    nullable_shape,
    number_shape,
    object_shape,
    one_of_shape,
    optional_shape,
    record_shape,
    schema_to_shape,
    string_shape,
    union_shape,
)

UNDEFINED = {"$ork": "undefined"}


def _options(node: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: node[name] for name in names if name in node}


def build(node: dict[str, Any]) -> Any:
    """Builds a shape from the conformance DSL with the public builders."""
    kind = node["type"]
    described = _options(node, "description")
    if kind == "string":
        return string_shape(**_options(node, "min", "max", "pattern", "description"))
    if kind in ("number", "integer"):
        builder = number_shape if kind == "number" else integer_shape
        return builder(**_options(node, "min", "max", "description"))
    simple: dict[str, Callable[..., Any]] = {
        "boolean": boolean_shape,
        "null": null_shape,
        "json": json_shape,
    }
    if kind in simple:
        return simple[kind](**described)
    if kind == "literal":
        return literal_shape(node["values"], **described)
    if kind == "array":
        return array_shape(build(node["items"]), **_options(node, "min", "max", "description"))
    if kind == "object":
        properties = {key: build(value) for key, value in node["properties"].items()}
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            extra = build(extra)
        return object_shape(properties, additional_properties=extra, **described)
    if kind == "record":
        return record_shape(build(node["values"]), **described)
    if kind == "union":
        variants = [build(variant) for variant in node["variants"]]
        return (one_of_shape if node.get("mode") == "oneOf" else union_shape)(*variants)
    if kind == "optional":
        return optional_shape(build(node["inner"]))
    if kind == "nullable":
        return nullable_shape(build(node["inner"]))
    raise ValueError(f"unknown DSL type {kind!r}")


def rows(contract: Contract, values: list[Any]) -> list[dict[str, Any]]:
    """Runs each value through the contract's guard, parser and reporter."""
    out = []
    for value in values:
        try:
            parsed = contract.parse(value)
        except ParseError:
            parsed = UNDEFINED
        out.append(
            {
                "value": value,
                "is": contract.is_valid(value),
                "parse": parsed,
                "explain": contract.explain(value),
            }
        )
    return out


def _infer(request: dict[str, Any]) -> Any:
    from orkestrel.contract import samples_to_schema  # type: ignore[attr-defined]

    return samples_to_schema(request["samples"], **request.get("options", {}))


def _check(schema: Any, values: list[Any]) -> dict[str, Any]:
    shape = schema_to_shape(schema)
    contract = create_contract(shape)
    return {"shape": shape, "schema": contract.schema, "results": rows(contract, values)}


def answer(request: dict[str, Any]) -> Any:
    """The result of one request."""
    op = request["op"]
    if op == "infer":
        return _infer(request)
    if op == "check":
        return _check(request["schema"], request["values"])
    if op == "shape":
        contract = create_contract(build(request["shape"]))
        return {
            "shape": contract.shape,
            "schema": contract.schema,
            "results": rows(contract, request["values"]),
        }
    if op == "loop":
        inferred = _infer(request)
        return {"inferred": inferred, **_check(inferred, request["values"])}
    raise ValueError(f"unknown op {op!r}")


def respond(request: dict[str, Any]) -> dict[str, Any]:
    """The answer line for one request; a raised error becomes `ok: false`."""
    try:
        return {"id": request.get("id"), "ok": True, "result": answer(request)}
    except ContractError as error:
        failure = {"name": "ContractError", "code": error.code, "message": error.message}
        return {
            "id": request.get("id"),
            "ok": False,
            "error": {**failure, "context": error.context},
        }
    except Exception as error:
        failure = {"name": type(error).__name__, "message": str(error)}
        return {"id": request.get("id"), "ok": False, "error": failure}


def main(argv: list[str]) -> int:
    """Reads the cases file named on the command line and prints the answers."""
    if len(argv) != 2:
        print("usage: run.py CASES.jsonl", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as cases:
        for line in cases:
            if line.strip():
                print(json.dumps(respond(json.loads(line)), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
