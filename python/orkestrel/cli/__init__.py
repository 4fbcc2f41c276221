"""The `orkestrel` command line: `orkestrel infer FILE...`, `orkestrel serve` and
`orkestrel tools list | describe | call`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from orkestrel import __version__
from orkestrel.cli import infer, serve, tools

USAGE = 2
"""Exit status for a command line that could not be understood."""


class Parser(argparse.ArgumentParser):
    """An argument parser that names unrecognized options without echoing their values, so a
    secret pasted after a wrong option never reaches a log."""

    def error(self, message: str) -> NoReturn:
        prefix = "unrecognized arguments: "
        if message.startswith(prefix):
            names = [word.split("=", 1)[0] for word in message[len(prefix) :].split()]
            options = [name for name in names if name.startswith("-")]
            message = prefix + (" ".join(options) if options else "(values not shown)")
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    """Builds the argument parser with one subparser per command."""
    parser = Parser(
        prog="orkestrel",
        description="Tools for LLM agents and data, from the command line.",
    )
    parser.add_argument("--version", action="version", version=f"orkestrel {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    infer.register(commands)
    serve.register(commands)
    tools.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line and returns the exit status (0 ok, 1 bad input, 2 usage)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else USAGE
    try:
        status: int = args.run(args)
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    return status


__all__ = ["USAGE", "build_parser", "main"]
