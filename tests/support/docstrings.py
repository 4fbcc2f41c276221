"""Find the documented summary of an exported object: its docstring's first paragraph, or for
a constant or type alias, the string literal that follows its assignment in the source."""

from __future__ import annotations

import ast
import inspect
import itertools
from pathlib import Path
from types import ModuleType
from typing import Any


def first_paragraph(doc: str | None) -> str | None:
    """The first paragraph of a docstring, whitespace-normalized."""
    if not doc:
        return None
    return " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())


def _own_doc(value: Any) -> str | None:
    if inspect.isclass(value) or inspect.isroutine(value):
        return inspect.getdoc(value)
    return None


def _attribute_docs(package: ModuleType) -> dict[str, str]:
    docs: dict[str, str] = {}
    root = Path(inspect.getfile(package)).parent
    for path in sorted(root.rglob("*.py")):
        body = ast.parse(path.read_text(encoding="utf-8")).body
        for node, after in itertools.pairwise(body):
            targets = (
                [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", [])
            )
            if not (
                isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                continue
            for target in targets:
                if isinstance(target, ast.Name):
                    docs.setdefault(target.id, after.value.value)
    return docs


def summary(module: ModuleType, name: str) -> str | None:
    """The summary documented for `module.name`."""
    value = getattr(module, name)
    doc = _own_doc(value)
    if doc is None:
        doc = _attribute_docs(module).get(name)
    return first_paragraph(doc)


def public_methods(cls: type) -> dict[str, Any]:
    """The public methods a class defines or inherits from orkestrel classes, including the
    methods of classes compiled in `orkestrel._core`."""
    methods: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("orkestrel"):
            continue
        for key, value in vars(klass).items():
            function = value.__func__ if isinstance(value, staticmethod | classmethod) else value
            if not key.startswith("_") and (
                inspect.isfunction(function) or inspect.ismethoddescriptor(function)
            ):
                methods[key] = function
    return methods
