"""`orkestrel infer`: print the JSON Schema of JSON or JSON Lines files."""

from __future__ import annotations

# Imports stay minimal: the command runs in a fresh process, where every module imported is
# start-up time (`orkestrel.contract` and its error classes load only when something fails).
# `argparse`, `typing` and `pathlib` are left out too: `quick_arguments` reads the usual command
# lines itself, and argparse takes over for anything else.
import os
import stat
import sys
from types import SimpleNamespace

from orkestrel._core import INFER_BREADTH_LIMIT, INFER_DEPTH_LIMIT, SchemaBuilder
from orkestrel.cli.concatenated import TRAILING, Transcoded, add_values, check_encoding
from orkestrel.cli.constants import COMMANDS
from orkestrel.cli.helpers import Peek, Prefixed, inference_options, peek, render_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any, Literal

    from orkestrel.cli.helpers import Layout, Reader
    from orkestrel.cli.progress import ProgressBar
    from orkestrel.contract import LinesReport

    Arguments = argparse.Namespace | SimpleNamespace

OK, BAD_INPUT, USAGE = 0, 1, 2
PROG = "orkestrel infer"
DESCRIPTION = """\
Infer one JSON Schema that every sample validates against. Each line of a JSON Lines file and
each JSON document is a sample (JSON values one after another, as in {"a":1}{"a":2}, are one
sample each); all FILEs feed the same schema. The layout is detected from the content unless
--jsonl or --json is given. Exit status: 0 ok, 1 bad input, 2 usage."""


def _encoding(text: str) -> str:
    name = check_encoding(text)
    if name is None:
        # Deferred for start-up time: `orkestrel infer` starts fast.
        import argparse

        raise argparse.ArgumentTypeError(f"unknown encoding: {text}")
    return name


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        # Deferred for start-up time: `orkestrel infer` starts fast.
        import argparse

        raise argparse.ArgumentTypeError("must be a non-negative integer")
    return value


_SWITCHES = {
    "--format": "format",
    "--enum": "enum",
    "--open": "open",
    "--merge": "merge",
    "--skip-bad-lines": "skip_bad_lines",
    "-q": "quiet",
    "--quiet": "quiet",
}
_LAYOUTS = {"--jsonl": "jsonl", "--json": "json"}
_VALUES = {
    "-o": "output",
    "--output": "output",
    "--threads": "threads",
    "--max-depth": "max_depth",
    "--max-properties": "max_properties",
    "--indent": "indent",
    "--encoding": "encoding",
}


def quick_arguments(words: Sequence[str]) -> SimpleNamespace | None:
    """Reads the words after `infer` as `register`'s parser would, without importing argparse;
    `None` for anything but whole option names and files (help, abbreviations, bad values,
    no file), which argparse then reads and reports.
    """
    values: dict[str, Any] = {
        "command": "infer",
        "files": [],
        "format": False,
        "enum": False,
        "open": False,
        "merge": False,
        "encoding": None,
        "layout": None,
        "output": None,
        "skip_bad_lines": False,
        "threads": None,
        "max_depth": INFER_DEPTH_LIMIT,
        "max_properties": INFER_BREADTH_LIMIT,
        "indent": 2,
        "quiet": False,
        "scheduler": None,
        "run": run,
    }
    files: list[str] = values["files"]
    closed = False
    at = 0
    while at < len(words):
        word = words[at]
        at += 1
        if word == "-" or not word.startswith("-"):
            if closed:
                return None
            files.append(word)
            continue
        closed = bool(files)
        name, equals, inline = word.partition("=")
        if name in _SWITCHES and not equals:
            values[_SWITCHES[name]] = True
        elif name in _LAYOUTS and not equals and values["layout"] is None:
            values["layout"] = _LAYOUTS[name]
        elif name in _VALUES:
            if not equals:
                if at == len(words) or words[at].startswith("-"):
                    return None
                inline, at = words[at], at + 1
            dest = _VALUES[name]
            if dest == "output":
                values[dest] = inline
                continue
            if dest == "encoding":
                values[dest] = check_encoding(inline)
                if values[dest] is None:
                    return None
                continue
            try:
                values[dest] = int(inline)
            except ValueError:
                return None
            if values[dest] < 0:
                return None
        else:
            return None
    return SimpleNamespace(**values) if files else None


def register(commands: Any) -> None:
    """Adds the `infer` subcommand to the `orkestrel` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "infer",
        help=COMMANDS["infer"][1],
        description=DESCRIPTION,
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="input file; - reads stdin")
    parser.add_argument("--format", action="store_true", help="detect string formats")
    parser.add_argument("--enum", action="store_true", help="infer enums for repeated values")
    parser.add_argument("--open", action="store_true", help="allow unknown object keys")
    parser.add_argument(
        "--merge",
        action="store_true",
        help="merge objects wherever they meet, keys seen in some of them optional (as genson)",
    )
    parser.add_argument(
        "--encoding",
        type=_encoding,
        metavar="ENCODING",
        help="read the input as text in ENCODING (default: UTF-8)",
    )
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
    # Deferred for start-up time: `orkestrel infer` starts fast.
    from orkestrel.cli.cluster import check_scheduler

    parser.add_argument(
        "--scheduler",
        type=check_scheduler,
        metavar="ADDRESS",
        help="run on a Dask cluster: tcp://HOST:PORT, or local[N] worker processes "
        "(needs orkestrel[dask]; FILEs may then be fsspec URLs)",
    )
    parser.set_defaults(run=run)


def _fail(message: str, status: int = BAD_INPUT) -> int:
    sys.stderr.write(f"{PROG}: {message}\n")
    return status


def _progress(args: Arguments) -> ProgressBar | None:
    if args.quiet or not sys.stderr.isatty():
        return None
    # Deferred for start-up time: `orkestrel infer` starts fast.
    from orkestrel.cli.progress import ProgressBar

    total = 0
    for name in args.files:
        if name == "-":
            return ProgressBar(sys.stderr, None)
        total += os.stat(name).st_size
    return ProgressBar(sys.stderr, total)


def _read_lines(
    builder: SchemaBuilder,
    source: str | Prefixed,
    args: Arguments,
    bar: ProgressBar | None,
) -> LinesReport:
    errors: Literal["raise", "skip"] = "skip" if args.skip_bad_lines else "raise"
    update = bar.update if bar else None
    return builder.add_json_lines(source, errors=errors, threads=args.threads, progress=update)


def _read_one(
    builder: SchemaBuilder, name: str, args: Arguments, bar: ProgressBar | None
) -> LinesReport | None:
    """Reads one input, opened once: its layout comes from a bounded peek of the same stream,
    so a pipe, a FIFO or a process substitution reads like a file."""
    if name == "-":
        return _read_stream(builder, _decoded(sys.stdin.buffer, args), None, args, bar)
    with open(name, "rb") as stream:
        regular = stat.S_ISREG(os.fstat(stream.fileno()).st_mode) and _utf8(args)
        return _read_stream(builder, _decoded(stream, args), name if regular else None, args, bar)


def _utf8(args: Arguments) -> bool:
    return args.encoding in (None, "utf-8")


def _decoded(stream: Reader, args: Arguments) -> Reader:
    """`stream`, or the same text as UTF-8 where it is in another encoding."""
    return stream if _utf8(args) else Transcoded(stream, args.encoding)


def _read_stream(
    builder: SchemaBuilder,
    stream: Reader,
    path: str | None,
    args: Arguments,
    bar: ProgressBar | None,
) -> LinesReport | None:
    layout: Layout | None = args.layout
    found = Peek(b"", layout, True) if layout is not None else peek(stream)
    if found.layout == "json":
        document = found.head + stream.read()
        try:
            builder.add_json(document)
        except ValueError as error:
            if getattr(error, "code", None) != TRAILING:
                raise
            if found.certain:
                add_values(builder, document)
                return None
            # A first line longer than the peek may still be JSON Lines: read it so.
            # Deferred for start-up time: `orkestrel infer` starts fast.
            import io

            return _lines_or_values(builder, document, Prefixed(document, io.BytesIO()), args, bar)
        return None
    if path is not None:
        # A regular file is read again from its start by the core, on every core.
        return _lines_or_values(builder, None, path, args, bar)
    return _read_lines(builder, Prefixed(found.head, stream), args, bar)


def _lines_or_values(
    builder: SchemaBuilder,
    document: bytes | None,
    source: str | Prefixed,
    args: Arguments,
    bar: ProgressBar | None,
) -> LinesReport | None:
    """Reads JSON Lines, or, where a line holds more than one value (`{"a":1}{"a":2}`), the
    whole input (`document`, or the file `source`) as concatenated JSON values."""
    part = SchemaBuilder(**builder.options)
    try:
        report = _read_lines(part, source, args, bar)
    except ValueError as error:
        if getattr(error, "code", None) != TRAILING:
            raise
        if document is None:
            with open(str(source), "rb") as stream:
                document = stream.read()
        part = SchemaBuilder(**builder.options)
        add_values(part, document)
        report = None
    builder.merge(part)
    return report


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
    # Deferred for start-up time: `orkestrel infer` starts fast.
    import tempfile

    folder, base = os.path.split(output)
    folder = folder or "."
    if not os.path.isdir(folder):
        # Deferred for start-up time: `orkestrel infer` starts fast.
        import errno

        # Named here, or the error would name the temporary file that could not be made.
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), folder)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{base}.")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, output)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _render(schema: dict[str, Any], indent: int) -> str:
    try:
        text = render_json(schema, indent)
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = render_json(schema, indent, ascii=True)
    return text + "\n"


def _failed(error: OSError | ValueError, name: str) -> str:
    """Says what a failed read went wrong on; anything but a file, JSON or contract error is
    raised again."""
    # Deferred for start-up time: `orkestrel infer` starts fast.
    from orkestrel.contract import ContractError, JSONInputError

    if isinstance(error, JSONInputError):
        where = "" if error.source else f"{name}: "
        return f"{where}{error}"
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror}"
    if isinstance(error, OSError | ContractError):
        return str(error)
    if isinstance(error, UnicodeDecodeError):
        return f"{name}: not {error.encoding} text: {error.reason}"
    raise error


def run(args: Arguments) -> int:
    """Runs `orkestrel infer` and returns the exit status."""
    if args.files.count("-") > 1:
        return _fail("stdin (-) can be read only once", USAGE)
    if args.scheduler:
        # Deferred for start-up time: `orkestrel infer` starts fast.
        from orkestrel.cli.cluster import run_on_cluster

        return run_on_cluster(args, _fail, lambda schema: _emit(schema, args))
    builder = SchemaBuilder(**inference_options(args))
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
    return _emit(builder.to_schema(), args)


def _emit(schema: dict[str, Any], args: Arguments) -> int:
    try:
        _write(_render(schema, args.indent), args.output)
    except OSError as error:
        return _fail(f"{args.output}: {error.strerror}")
    return OK


def _read_all(builder: SchemaBuilder, args: Arguments, bar: ProgressBar | None) -> str | None:
    """Reads every input into `builder`; gives the failure message, if any. Notes of skipped
    lines wait until the progress bar is cleared."""
    notes: list[tuple[str, LinesReport]] = []
    name = args.files[0]
    try:
        for name in args.files:
            report = _read_one(builder, name, args, bar)
            if bar and name != "-":
                bar.advance(os.stat(name).st_size)
            if report and report.skipped and not args.quiet:
                notes.append((name, report))
    except (OSError, ValueError) as error:
        return _failed(error, name)
    finally:
        if bar:
            bar.close()
        for noted, report in notes:
            _note_skipped(noted, report)
    return None
