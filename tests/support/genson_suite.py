"""genson's own tests (vendored in tests/genson_suite) run against orkestrel's merging mode.

Each upstream test module is loaded with `base` replaced by `base_module()`: a test case that
records the objects the test adds and, where the test asserts genson's schema, checks that
`samples_to_schema(objects, merge=True)` accepts every object and everything genson's schema
accepts (`subsumes`, a structural proof over the keywords both libraries emit). Tests of
genson-only features (seed schemas, tuple arrays, custom strategies, its builder's own API)
are skipped with the reason.
"""

from __future__ import annotations

import importlib.util
import sys
import types
import unittest
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator, Draft202012Validator

from orkestrel.contract import samples_to_schema

SUITE = Path(__file__).resolve().parent.parent / "genson_suite"
UPSTREAM = SUITE / "test"
MODULES = ("test_gen_single", "test_gen_multi", "test_add_single", "test_add_multi")
"""The upstream modules of schema tests; `test_builder`, `test_custom`, `test_misuse` and
`test_seed_schema` test genson's builder API, seed schemas and strategies (none ported), and
`test_bin` is ported to `orkestrel infer` by hand."""

SEEDS = "genson's seed schemas (add_schema, tuple arrays) have no counterpart in orkestrel"
API = "genson's own builder API (SchemaNode options and methods) has no counterpart here"

_SCALARS = ("null", "boolean", "integer", "number", "string")
_ANNOTATIONS = frozenset({"$schema", "title", "description"})


def merged(objects: list[Any], *, closed: bool) -> dict[str, Any]:
    return samples_to_schema(objects, merge=True, closed=closed)


class Recorder:
    """Stands in for genson's builder in a test: what the test calls beyond adding objects is
    genson's own API, so such a test is skipped."""

    def __getattr__(self, name: str) -> Any:
        raise unittest.SkipTest(f"{API} ({name})")

    def __bool__(self) -> bool:
        raise unittest.SkipTest(f"{API} (truth value)")


class BaseTestCase(unittest.TestCase):
    """genson's `base.BaseTestCase`, checking orkestrel's merging mode instead of genson."""

    def setUp(self) -> None:
        self.builder: Any = Recorder()
        self._objects: list[Any] = []

    def set_schema_options(self, **options: Any) -> None:
        raise unittest.SkipTest(f"{API} (options {sorted(options)})")

    def add_object(self, obj: Any) -> None:
        self._objects.append(obj)

    def add_schema(self, schema: Any) -> None:
        raise unittest.SkipTest(SEEDS)

    def assertObjectValidates(self, obj: Any) -> None:
        for closed in (True, False):
            Draft202012Validator(merged(self._objects, closed=closed)).validate(obj)

    def assertObjectDoesNotValidate(self, obj: Any) -> None:
        raise unittest.SkipTest(SEEDS)  # only the tuple tests use it

    def assertResult(self, expected: Any, enforceUserContract: bool = True) -> None:
        """`expected` is genson's schema for the objects added: ours must accept every object
        (closed or open) and, open, everything `expected` accepts."""
        Draft7Validator.check_schema(expected)
        for obj in self._objects:
            Draft7Validator(expected).validate(obj)
        for closed in (True, False):
            ours = merged(self._objects, closed=closed)
            Draft202012Validator.check_schema(ours)
            for obj in self._objects:
                Draft202012Validator(ours).validate(obj)
        ours = merged(self._objects, closed=False)
        assert subsumes(ours, expected), f"ours {ours} refuses values genson's {expected} accepts"


class SchemaNodeTestCase(BaseTestCase):
    pass


class SchemaBuilderTestCase(BaseTestCase):
    pass


def base_module() -> types.ModuleType:
    module = types.ModuleType("genson_port.base")
    for cls in (BaseTestCase, SchemaNodeTestCase, SchemaBuilderTestCase):
        setattr(module, cls.__name__, cls)
    module.PYTHON_VERSION = sys.version.split(" ")[0]  # type: ignore[attr-defined]
    return module


def upstream_cases() -> dict[str, type[unittest.TestCase]]:
    """Every upstream test class of `MODULES`, loaded against the replaced `base`, by a name
    that says where it came from."""
    package = types.ModuleType("genson_port")
    package.__path__ = [str(UPSTREAM)]
    package.base = base_module()  # type: ignore[attr-defined]
    saved = {name: sys.modules.get(name) for name in ("genson_port", "genson_port.base")}
    sys.modules["genson_port"] = package
    sys.modules["genson_port.base"] = package.base  # type: ignore[attr-defined]
    found: dict[str, type[unittest.TestCase]] = {}
    try:
        for name in MODULES:
            spec = importlib.util.spec_from_file_location(
                f"genson_port.{name}", UPSTREAM / f"{name}.py"
            )
            assert spec is not None
            assert spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            for attr, value in vars(module).items():
                if (
                    isinstance(value, type)
                    and issubclass(value, BaseTestCase)
                    and value.__module__ == module.__name__
                ):
                    found[f"TestGenson_{name[5:]}_{attr[4:]}"] = value
    finally:
        for key, value in saved.items():
            if value is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = value
    return found


def _branches(schema: Any) -> list[dict[str, Any]] | None:
    """`schema` as a list of alternatives of one type each (or of no type: anything); `None`
    where it uses a keyword this check does not reason about."""
    if schema is True:
        return [{}]
    if not isinstance(schema, dict):
        return None
    schema = {k: v for k, v in schema.items() if k not in _ANNOTATIONS}
    if "anyOf" in schema:
        rest = {k: v for k, v in schema.items() if k != "anyOf"}
        if rest:
            return None
        out: list[dict[str, Any]] = []
        for member in schema["anyOf"]:
            branches = _branches(member)
            if branches is None:
                return None
            out.extend(branches)
        return out
    kinds = schema.get("type")
    if isinstance(kinds, list):
        if set(schema) - {"type"}:
            return None
        return [{"type": kind} for kind in kinds]
    return [schema]


_KNOWN = frozenset({"type", "properties", "required", "additionalProperties", "items"})


def subsumes(ours: Any, theirs: Any) -> bool:
    """Whether every value `theirs` accepts is accepted by `ours` (sufficient, not necessary:
    `False` may also mean the keywords are beyond this check), for the keywords genson and
    orkestrel's inference emit: `type` (one or a list), `anyOf`, `properties`, `required`,
    `additionalProperties` and `items` (one schema)."""
    mine, others = _branches(ours), _branches(theirs)
    if mine is None or others is None:
        return False
    return all(any(_covers(m, t) for m in mine) for t in others)


def _covers(ours: dict[str, Any], theirs: dict[str, Any]) -> bool:
    if set(ours) - _KNOWN or set(theirs) - _KNOWN:
        return False
    if not ours:
        return True
    kind, other = ours.get("type"), theirs.get("type")
    if kind is None or other is None:
        return False  # theirs accepts anything, ours is narrower (or keywords without a type)
    if kind != other and not (kind == "number" and other == "integer"):
        return False
    if kind in _SCALARS:
        return set(ours) == {"type"}
    if kind == "array":
        if "items" not in ours:
            return True
        return subsumes(ours["items"], theirs.get("items", True))
    if kind == "object":
        return _covers_object(ours, theirs)
    return False


def _covers_object(ours: dict[str, Any], theirs: dict[str, Any]) -> bool:
    if not set(ours.get("required", [])) <= set(theirs.get("required", [])):
        return False
    mine, others = ours.get("properties", {}), theirs.get("properties", {})
    open_ours = ours.get("additionalProperties", True)
    open_theirs = theirs.get("additionalProperties", True)
    for key, schema in others.items():
        target = mine.get(key, open_ours)
        if not subsumes(target, schema):
            return False
    if open_theirs is True:
        # Any other key, with any value: ours must take it too.
        if open_ours is not True:
            return False
        if any(not subsumes(schema, True) for key, schema in mine.items() if key not in others):
            return False
    elif open_theirs is not False:
        return False
    return True
