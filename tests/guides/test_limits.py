"""The serve guide's table of limits is true: each default is the code's, each option is one
`orkestrel serve` takes, and every bounding option the command has is in the table."""

from __future__ import annotations

import argparse
import importlib
import re
from typing import Any

import pytest

from conftest import ROOT
from orkestrel.cli.serve import register
from support.markdown import sections, tables

GUIDE = ROOT / "docs" / "guides" / "serve.md"
BOUNDING = (
    "max",
    "timeout",
    "threads",
    "queue",
    "buffer",
    "idle",
    "pool",
    "frame",
    "answer",
    "lines",
    "chars",
    "matches",
    "values",
)
"""Words in the name of an option that bounds a resource."""


def _rows() -> list[dict[str, str]]:
    (table,) = tables(sections(GUIDE.read_text(), 3)["Limits"])
    return table


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="orkestrel")
    register(parser.add_subparsers(dest="command"))
    return parser


def _serve_actions() -> dict[str, argparse.Action]:
    commands = next(
        action for action in _parser()._actions if isinstance(action, argparse._SubParsersAction)
    )
    serve = commands.choices["serve"]
    return {name: action for action in serve._actions for name in action.option_strings}


def _constant(path: str) -> Any:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


ROWS = _rows()


@pytest.mark.parametrize("row", ROWS, ids=[row["Resource"][:40] for row in ROWS])
def test_each_documented_default_is_the_codes_own(row: dict[str, str]) -> None:
    pairs = re.findall(r"`([\d.]+)`[^`(|]*\(`(orkestrel\.[\w.]+)`\)", row["Default"])
    named = re.findall(r"\(`(orkestrel\.[\w.]+)`\)", row["Default"])
    assert len(pairs) == len(named), f"every named constant follows its value: {row['Default']}"
    for value, path in pairs:
        assert float(_constant(path)) == float(value), path


@pytest.mark.parametrize("row", ROWS, ids=[row["Resource"][:40] for row in ROWS])
def test_each_documented_flag_is_a_serve_option_with_that_default(row: dict[str, str]) -> None:
    flags = re.findall(r"`(--[a-z-]+)", row["Option"])
    if not flags:
        assert re.search(r"`\w+\([a-z_]+=\)`", row["Option"]), "a library option is named"
        return
    actions = _serve_actions()
    values = re.findall(r"`([\d.]+)`", row["Default"])
    for index, flag in enumerate(flags):
        assert flag in actions, f"orkestrel serve has no {flag}"
        default = actions[flag].default
        if row["Default"].startswith("none"):
            assert default in (None, []), flag
        else:
            assert float(default) == float(values[index]), flag


def test_every_bounding_serve_option_is_in_the_table() -> None:
    documented = {flag for row in ROWS for flag in re.findall(r"`(--[a-z-]+)", row["Option"])}
    bounding = {
        name
        for name in _serve_actions()
        if name.startswith("--") and any(word in name for word in BOUNDING)
    }
    assert bounding <= documented, sorted(bounding - documented)
