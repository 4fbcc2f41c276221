"""The `orkestrel` command line: `orkestrel infer FILE...`, `orkestrel serve` and
`orkestrel tools list | describe | call`."""

from __future__ import annotations

import sys

from orkestrel import __version__
from orkestrel.cli.constants import COMMANDS

TYPE_CHECKING = False  # `typing`, like every module a command does not use, stays unimported
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import SimpleNamespace

USAGE = 2
"""Exit status for a command line that could not be understood."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Builds the argument parser with one subparser per command.

    With `only`, the other commands are listed by name and summary without importing their
    modules, so a command never pays for the code of the others (`serve` pulls in the MCP SDK).
    """
    # Deferred for start-up time: a command imports only its own modules.
    import importlib

    from orkestrel.cli.parser import Parser

    parser = Parser(
        prog="orkestrel",
        description="Tools for LLM agents and data, from the command line.",
    )
    parser.add_argument("--version", action="version", version=f"orkestrel {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module, summary) in COMMANDS.items():
        if only is None or only == name:
            importlib.import_module(module).register(commands)
        else:
            commands.add_parser(name, help=summary)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The command an argument list names, when its first word is one."""
    first = next((word for word in argv if not word.startswith("-")), None)
    return first if first in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line and returns the exit status (0 ok, 1 bad input, 2 usage)."""
    words = sys.argv[1:] if argv is None else list(argv)
    args: argparse.Namespace | SimpleNamespace | None = None
    if words[:1] == ["infer"]:
        # Deferred for start-up time: `infer`'s quick path skips the parser.
        from orkestrel.cli.infer import quick_arguments

        args = quick_arguments(words[1:])
    if args is None:
        parser = build_parser(_command(words) or "")
        try:
            args = parser.parse_args(words)
        except SystemExit as stop:
            return stop.code if isinstance(stop.code, int) else USAGE
    try:
        status: int = args.run(args)
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    return status


__all__ = ["USAGE", "build_parser", "main"]
