"""The `orkestrel` argument parser: argparse, minus the echo of a mistyped option's value."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Sequence
from typing import Any, NoReturn


class Parser(argparse.ArgumentParser):
    """An argument parser that names unrecognized options without echoing their values, so a
    secret pasted after a wrong option never reaches a log, and refuses them with the usage
    of the command they were given to, naming the nearest option it has."""

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> argparse.Namespace:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = self._command(parsed)
            options = [word.split("=", 1)[0] for word in extras if word.startswith("-")]
            known = [flag for action in command._actions for flag in action.option_strings]
            message = "unrecognized arguments: " + " ".join(extras)
            for option in options:
                # Swapped letters are the commonest typo, and difflib ranks them low.
                swapped = [flag for flag in known if sorted(flag) == sorted(option)]
                match = swapped or difflib.get_close_matches(option, known, n=1, cutoff=0.75)
                if match:
                    shown = " ".join(options)
                    # Only option names, never values: `error` would drop the hint's words.
                    argparse.ArgumentParser.error(
                        command, f"unrecognized arguments: {shown} (did you mean {match[0]}?)"
                    )
            command.error(message)
        parsed_namespace: argparse.Namespace = parsed
        return parsed_namespace

    def _command(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The innermost (sub)command parser `parsed` went through."""
        command: argparse.ArgumentParser = self
        while True:
            chosen = [
                action.choices[name]
                for action in command._actions
                if isinstance(action, argparse._SubParsersAction)
                and isinstance(name := getattr(parsed, action.dest, None), str)
                and name in action.choices
            ]
            if not chosen:
                return command
            command = chosen[0]

    def error(self, message: str) -> NoReturn:
        prefix = "unrecognized arguments: "
        if message.startswith(prefix):
            names = [word.split("=", 1)[0] for word in message[len(prefix) :].split()]
            options = [name for name in names if name.startswith("-")]
            message = prefix + (" ".join(options) if options else "(values not shown)")
        super().error(message)
