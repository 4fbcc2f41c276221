"""Input helpers for the command line: JSON vs JSON Lines detection and a re-joined stream."""

from __future__ import annotations

from typing import BinaryIO, Literal

from orkestrel.contract import JSONInputError, infer_json

Layout = Literal["json", "jsonl"]

_BLANK = b" \t\r\n"


def first_line(stream: BinaryIO) -> bytes:
    """Reads up to and including the first non-blank line (the leading blank lines too)."""
    taken = b""
    while True:
        line = stream.readline()
        taken += line
        if not line or line.strip(_BLANK):
            return taken


def detect(head: bytes) -> Layout:
    """JSON Lines when the first non-blank line is a whole JSON value by itself, else JSON."""
    line = head.lstrip(b"\xef\xbb\xbf").strip(_BLANK)
    if not line:
        return "jsonl"
    try:
        infer_json(line)
    except JSONInputError:
        return "json"
    return "jsonl"


class Prefixed:
    """A binary stream that yields `head` first and then the rest of `stream`."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self.head = head
        self.stream = stream

    def read(self, size: int = -1) -> bytes:
        """Reads up to `size` bytes (all when negative)."""
        if self.head:
            if size < 0:
                data, self.head = self.head + self.stream.read(), b""
                return data
            data, self.head = self.head[:size], self.head[size:]
            return data
        return self.stream.read(size)
