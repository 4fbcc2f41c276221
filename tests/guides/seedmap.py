"""The seed-name → Python-name table of docs/guides/README.md, generated from the seed guides.

Run `python tests/guides/seedmap.py --write` to refresh the table after adding exports.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.markdown import code_name, sections, tables  # noqa: E402

SEEDS = HERE / "seeds"
INDEX = ROOT / "docs" / "guides" / "README.md"
START, END = "<!-- seed-map:start -->", "<!-- seed-map:end -->"
MODULES = (
    "orkestrel.tool",
    "orkestrel.timeout",
    "orkestrel.abort",
    "orkestrel.contract",
    "orkestrel.toolbox",
    "orkestrel.database",
    "orkestrel.workspace",
    "orkestrel.mcp",
)


def python_name(name: str) -> str:
    """Maps a seed name mechanically: camelCase functions become snake_case, the rest keep."""
    if name[:1].islower():
        return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    return name


def seed_names(path: Path) -> list[str]:
    """Every name in the Surface tables of one seed guide, in order, once each."""
    names: list[str] = []
    for table in tables(sections(path.read_text(encoding="utf-8"), 2).get("Surface", "")):
        for row in table:
            key = next(iter(row))
            if key in ("Name", "API", "Type") and (name := code_name(row[key])) not in names:
                names.append(name)
    return names


def exports() -> dict[str, str]:
    """Which public module exports each Python name."""
    found: dict[str, str] = {}
    for module_name in MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in getattr(module, "__all__", []):
            found.setdefault(name, module_name)
    return found


def render() -> str:
    """The table, with a count of implemented names."""
    where = exports()
    lines = ["| Seed | Seed name | Python name | Module |", "| --- | --- | --- | --- |"]
    done = total = 0
    for path in sorted(SEEDS.glob("*.md")):
        for name in seed_names(path):
            twin = python_name(name)
            module = where.get(twin)
            total += 1
            done += module is not None
            cell = f"`{module}`" if module else "missing"
            lines.append(f"| {path.stem} | `{name}` | `{twin}` | {cell} |")
    return f"{done} of {total} seed names have a Python twin.\n\n" + "\n".join(lines) + "\n"


def current() -> str:
    """The table as it stands in the guides index."""
    text = INDEX.read_text(encoding="utf-8")
    return text[text.index(START) + len(START) : text.index(END)].strip("\n") + "\n"


def write() -> None:
    """Replaces the table in the guides index with a fresh rendering."""
    text = INDEX.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    INDEX.write_text(f"{head}{START}\n{render()}{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    if "--write" in sys.argv:
        write()
    else:
        sys.stdout.write(render())
