"""The official JSON-Schema-Test-Suite (vendored in tests/jsonschema_suite) run through
`create_contract(schema_to_shape(schema))`: which valid values are refused, which invalid
values are accepted."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orkestrel.contract import ParseError, create_contract, schema_to_shape

SUITE = Path(__file__).resolve().parent.parent / "jsonschema_suite"
FOLDERS = ("draft2020-12", "draft7", "draft2020-12/optional", "draft7/optional")


@dataclass(frozen=True)
class Case:
    folder: str
    keyword: str
    description: str
    schema: Any
    value: Any
    valid: bool


def cases(folder: str) -> Iterator[Case]:
    for path in sorted((SUITE / folder).glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            for test in group["tests"]:
                yield Case(
                    folder,
                    path.stem,
                    f"{path.stem}: {group['description']}: {test['description']}",
                    group["schema"],
                    test["data"],
                    test["valid"],
                )


def accepts(schema: Any, value: Any) -> bool:
    contract = create_contract(schema_to_shape(schema))
    if not contract.is_valid(value):
        return False
    try:
        contract.parse(value)
    except ParseError:
        return False
    return True


@dataclass
class Tally:
    refused_valid: list[Case] = field(default_factory=list)
    accepted_invalid: Counter[str] = field(default_factory=Counter)
    invalid: Counter[str] = field(default_factory=Counter)


def tally(folder: str) -> Tally:
    out = Tally()
    for case in cases(folder):
        accepted = accepts(case.schema, case.value)
        if case.valid and not accepted:
            out.refused_valid.append(case)
        if not case.valid:
            out.invalid[case.keyword] += 1
            out.accepted_invalid[case.keyword] += accepted
    return out


def table() -> str:
    """The markdown table of invalid values accepted per keyword file, main folders only,
    indented as it stands in the contract guide's list of rules."""
    rows = ["| draft | keyword | invalid values accepted |", "|---|---|---|"]
    for folder in ("draft2020-12", "draft7"):
        result = tally(folder)
        for keyword in sorted(result.invalid):
            total = result.invalid[keyword]
            rows.append(
                f"| {folder} | `{keyword}` | {result.accepted_invalid[keyword]} of {total} |"
            )
    return "\n".join(f"    {row}" for row in rows)


if __name__ == "__main__":
    for name in FOLDERS:
        found = tally(name)
        print(name, "refused valid:", len(found.refused_valid))
        for case in found.refused_valid:
            print("   ", case.description, json.dumps(case.value)[:80])
