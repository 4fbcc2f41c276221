"""Instructions per call of `is_valid` and `parse` against jsonschema-rs and msgspec, counted
by callgrind.

Run it under valgrind; between cases it asks callgrind for a dump, so each dump holds one
case's calls (the loop, the `try` and the call included, as for every contender):

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/tmp/cc.out \\
        python benches/count_contract.py 2000
    for f in /tmp/cc.out.*; do grep -m1 '^desc: Trigger' $f; grep -m1 '^summary:' $f; done

Subtract the summary of `empty x0` (the cost of asking for a dump) from each, then divide by
the count given (2000). Callgrind counts instructions, not time: it
does not see cache misses, which the reference counts and version reads this walk avoids
cost in wall time, so use it to decide between variants and `ratios.py contract` for the
goal.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import jsonschema_rs
import msgspec

import bench_contract as cases
from orkestrel.contract import ParseError


def dump(label: str) -> None:
    """Makes callgrind write the instructions counted since the last dump."""
    command = ["callgrind_control", "-d", label, str(os.getpid())]
    subprocess.run(command, check=True, capture_output=True)


def loop(call: Callable[[Any], Any], value: Any, calls: int) -> int:
    """Calls `call(value)` `calls` times; the number of calls that raised."""
    failures = (ParseError, msgspec.ValidationError, jsonschema_rs.ValidationError)
    failed = 0
    for _ in range(calls):
        try:
            call(value)
        except failures:
            failed += 1
    return failed


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    plans: list[tuple[str, Callable[[Any], Any], Any]] = []
    for name, (contract, _, valid, invalid) in cases.INPUTS.items():
        validator = jsonschema_rs.validator_for(contract.schema)
        spec = cases.MSGSPEC[name]
        for label, value in (("valid", valid), ("invalid", invalid)):
            plans.append((f"is_valid {name} {label}", contract.is_valid, value))
            plans.append((f"jsonschema-rs {name} {label}", validator.is_valid, value))
        for label, value in (
            ("valid", valid),
            ("coercible", cases.COERCIBLE[name]),
            ("invalid", invalid),
        ):
            plans.append((f"parse {name} {label}", contract.parse, value))
            plans.append(
                (
                    f"msgspec {name} {label}",
                    lambda v, s=spec: msgspec.convert(v, s, strict=False),
                    value,
                )
            )
    for _, call, value in plans:
        loop(call, value, 200)
    dump("setup")
    dump("empty x0")
    for label, call, value in plans:
        loop(call, value, calls)
        dump(f"{label} x{calls}")


if __name__ == "__main__":
    main()
