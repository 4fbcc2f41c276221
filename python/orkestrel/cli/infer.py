"""`orkestrel infer`: print the JSON Schema of JSON or JSON Lines files."""

from __future__ import annotations

import argparse
import errno
import io
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Literal

from orkestrel.cli.helpers import Layout, Peek, Prefixed, peek
from orkestrel.cli.progress import ProgressBar
from orkestrel.contract import (
    INFER_BREADTH_LIMIT,
    INFER_DEPTH_LIMIT,
    ContractError,
    JSONInputError,
    LinesReport,
    SchemaBuilder,
)

OK, BAD_INPUT, USAGE = 0, 1, 2
PROG = "orkestrel infer"
DESCRIPTION = """\
Infer one JSON Schema that every sample validates against. Each line of a JSON Lines file and
each JSON document is a sample; all FILEs feed the same schema. The layout is detected from the
content unless --jsonl or --json is given. Exit status: 0 ok, 1 bad input (an input with no
samples at all included), 2 usage."""


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be a non-negative integer")
    return value


def register(commands: Any) -> None:
    """Adds the `infer` subcommand to the `orkestrel` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "infer",
        help="infer the JSON Schema of JSON or JSON Lines files",
        description=DESCRIPTION,
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="input file; - reads stdin")
    parser.add_argument("--format", action="store_true", help="detect string formats")
    parser.add_argument("--enum", action="store_true", help="infer enums for repeated values")
    parser.add_argument("--open", action="store_true", help="allow unknown object keys")
    layout = parser.add_mutually_exclusive_group()
    layout.add_argument(
        "--jsonl", dest="layout", action="store_const", const="jsonl", help="read JSON Lines"
    )
    layout.add_argument(
        "--json", dest="layout", action="store_const", const="json", help="read one JSON document"
    )
    parser.add_argument("-o", "--output", metavar="OUT", help="write the schema to OUT")
    parser.add_argument(
        "--skip-bad-lines", action="store_true", help="skip and count lines that are not JSON"
    )
    parser.add_argument("--threads", type=_count, help="worker threads (default: all cores)")
    parser.add_argument(
        "--max-depth",
        type=_count,
        default=INFER_DEPTH_LIMIT,
        help=f"nested containers to open (at most {INFER_DEPTH_LIMIT})",
    )
    parser.add_argument(
        "--max-properties",
        type=_count,
        default=INFER_BREADTH_LIMIT,
        help=f"keys per object (default {INFER_BREADTH_LIMIT})",
    )
    parser.add_argument("--indent", type=_count, default=2, help="JSON indentation (default 2)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar or notes")
    parser.set_defaults(run=run)


def _fail(message: str, status: int = BAD_INPUT) -> int:
    sys.stderr.write(f"{PROG}: {message}\n")
    return status


def _progress(args: argparse.Namespace) -> ProgressBar | None:
    if args.quiet or not sys.stderr.isatty():
        return None
    total = 0
    for name in args.files:
        if name == "-":
            return ProgressBar(sys.stderr, None)
        total += os.stat(name).st_size
    return ProgressBar(sys.stderr, total)


def _read_lines(
    builder: SchemaBuilder,
    source: Path | Prefixed,
    args: argparse.Namespace,
    bar: ProgressBar | None,
) -> LinesReport:
    errors: Literal["raise", "skip"] = "skip" if args.skip_bad_lines else "raise"
    update = bar.update if bar else None
    return builder.add_json_lines(source, errors=errors, threads=args.threads, progress=update)


def _read_one(
    builder: SchemaBuilder, name: str, args: argparse.Namespace, bar: ProgressBar | None
) -> LinesReport | None:
    """Reads one input, opened once: its layout comes from a bounded peek of the same stream,
    so a pipe, a FIFO or a process substitution reads like a file."""
    if name == "-":
        return _read_stream(builder, sys.stdin.buffer, None, args, bar)
    with open(name, "rb") as stream:
        regular = stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
        return _read_stream(builder, stream, Path(name) if regular else None, args, bar)


def _read_stream(
    builder: SchemaBuilder,
    stream: BinaryIO,
    path: Path | None,
    args: argparse.Namespace,
    bar: ProgressBar | None,
) -> LinesReport | None:
    layout: Layout | None = args.layout
    found = Peek(b"", layout, True) if layout is not None else peek(stream)
    if found.layout == "json":
        document = found.head + stream.read()
        try:
            builder.add_json(document)
        except JSONInputError as error:
            # A first line longer than the peek may still be JSON Lines: read it so.
            if found.certain or error.reason != "unexpected content after the value":
                raise
            return _read_lines(builder, Prefixed(document, io.BytesIO()), args, bar)
        return None
    if path is not None:
        # A regular file is read again from its start by the core, on every core.
        return _read_lines(builder, path, args, bar)
    return _read_lines(builder, Prefixed(found.head, stream), args, bar)


def _note_skipped(name: str, report: LinesReport) -> None:
    first = report.errors[0]
    sys.stderr.write(
        f"{PROG}: {name}: skipped {report.skipped} bad line(s) of {report.lines}; first at line "
        f"{first.line} column {first.column}: {first.reason}\n"
    )


def _write(text: str, output: str | None) -> None:
    data = text.encode("utf-8")
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    target = Path(output)
    folder = target.parent
    if not folder.is_dir():
        # Named here, or the error would name the temporary file that could not be made.
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(folder))
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _render(schema: dict[str, Any], indent: int) -> str:
    try:
        text = json.dumps(schema, indent=indent or None, ensure_ascii=False)
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(schema, indent=indent or None)
    return text + "\n"


def run(args: argparse.Namespace) -> int:
    """Runs `orkestrel infer` and returns the exit status."""
    if args.files.count("-") > 1:
        return _fail("stdin (-) can be read only once", USAGE)
    builder = SchemaBuilder(
        format=args.format,
        enum=args.enum,
        closed=not args.open,
        max_depth=args.max_depth,
        max_properties=args.max_properties,
    )
    try:
        bar = _progress(args)
    except OSError as error:
        return _fail(f"{error.filename}: {error.strerror}")
    try:
        failure = _read_all(builder, args, bar)
    finally:
        if bar:
            bar.close()  # before any message, so it is not glued to the bar
    if failure is not None:
        return _fail(failure)
    if builder.samples == 0:
        inputs = ", ".join(args.files)
        return _fail(f"{inputs}: no samples to infer a schema from (the input is empty)")
    schema = builder.to_schema()
    try:
        _write(_render(schema, args.indent), args.output)
    except OSError as error:
        return _fail(f"{args.output}: {error.strerror}")
    return OK


def _read_all(
    builder: SchemaBuilder, args: argparse.Namespace, bar: ProgressBar | None
) -> str | None:
    """Reads every input into `builder`; gives the failure message, if any."""
    notes: list[tuple[str, LinesReport]] = []
    name = args.files[0]
    try:
        for name in args.files:
            report = _read_one(builder, name, args, bar)
            if bar and name != "-":
                bar.advance(os.stat(name).st_size)
            if report and report.skipped and not args.quiet:
                notes.append((name, report))
    except JSONInputError as error:
        where = "" if error.source else f"{name}: "
        return f"{where}{error}"
    except (OSError, ContractError) as error:
        if isinstance(error, OSError) and error.filename is not None:
            return f"{error.filename}: {error.strerror}"
        return str(error)
    finally:
        if bar:
            bar.close()
        for noted, report in notes:
            _note_skipped(noted, report)
    return None
