"""The `orkestrel` argument parser: argparse, minus the echo of a mistyped option's value."""

from __future__ import annotations

import argparse
from typing import NoReturn


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
