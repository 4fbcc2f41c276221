"""`orkestrel infer` starts without the code it does not use: no other command's modules, no
argparse for an ordinary command line, no `json`, `typing` or `orkestrel.contract`; and the
pieces standing in for them give exactly what they replace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from orkestrel.cli import build_parser
from orkestrel.cli.helpers import render_json
from orkestrel.cli.infer import quick_arguments

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "events.jsonl"
UNUSED = (
    "argparse",
    "json",
    "typing",
    "pathlib",
    "tempfile",
    "orkestrel.contract",
    "orkestrel.cli.serve",
    "orkestrel.cli.tools",
    "orkestrel.tool",
    "pydantic",
    "mcp",
    "anyio",
)


def _loaded_after(*argv: str) -> set[str]:
    code = (
        "import sys\n"
        "from orkestrel.cli import main\n"
        f"status = main({list(argv)!r})\n"
        "sys.stdout.flush()\n"
        "sys.stderr.write(repr(sorted(sys.modules)) + '\\n')\n"
        "raise SystemExit(status)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    loaded: list[str] = eval(done.stderr.decode().splitlines()[-1])
    return set(loaded)


def test_infer_imports_nothing_it_does_not_use(tmp_path: Path) -> None:
    line = tmp_path / "one.jsonl"
    line.write_bytes(EXAMPLE.read_bytes().splitlines(keepends=True)[0])
    loaded = _loaded_after("infer", str(line))
    assert not loaded & set(UNUSED)
    out = tmp_path / "schema.json"
    loaded = _loaded_after("infer", "--format", "-o", str(out), str(line))
    assert "orkestrel.cli.serve" not in loaded
    assert "pydantic" not in loaded
    assert json.loads(out.read_text())["type"] == "object"


def test_help_lists_every_command_without_importing_them() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "orkestrel", "--help"], capture_output=True, timeout=120
    )
    assert done.returncode == 0
    for name in ("infer", "serve", "tools"):
        assert name in done.stdout.decode()


WORDS = st.sampled_from(
    [
        "a.jsonl",
        "b.json",
        "-",
        "--format",
        "--enum",
        "--open",
        "--jsonl",
        "--json",
        "--skip-bad-lines",
        "-q",
        "--quiet",
        "-o",
        "--output",
        "--output=x.json",
        "--output=",
        "--threads",
        "--threads=2",
        "--max-depth",
        "--max-depth=-1",
        "--max-properties",
        "--indent",
        "--indent=0",
        "3",
        "-1",
        "x",
        "--form",
        "--bogus",
        "-h",
        "--",
        "-qo",
    ]
)


def _argparse(words: list[str]) -> dict[str, Any] | None:
    try:
        parsed = build_parser().parse_args(["infer", *words])
    except SystemExit:
        return None
    return vars(parsed)


@given(st.lists(WORDS, max_size=7))
def test_the_quick_reader_agrees_with_argparse_whenever_it_answers(words: list[str]) -> None:
    quick = quick_arguments(words)
    if quick is not None:
        assert vars(quick) == _argparse(words)


def test_the_quick_reader_answers_the_usual_command_lines() -> None:
    for words in (
        ["a.jsonl"],
        ["--format", "--enum", "a.jsonl", "b.jsonl"],
        ["-o", "out.json", "--threads", "2", "-"],
        ["--jsonl", "--indent=0", "--max-depth", "3", "a.jsonl"],
    ):
        quick = quick_arguments(words)
        assert quick is not None
        assert vars(quick) == _argparse(words)


PLAIN = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(st.characters(codec="utf-8") | st.sampled_from(["\ud800", '"', "\\", "\x00"])),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@given(PLAIN, st.integers(0, 4), st.booleans())
def test_render_json_is_json_dumps(value: Any, indent: int, ascii: bool) -> None:
    assert render_json(value, indent, ascii) == json.dumps(
        value, indent=indent or None, ensure_ascii=ascii
    )
