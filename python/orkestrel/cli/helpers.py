"""Input helpers for the command line: JSON vs JSON Lines detection from a bounded peek, and
a re-joined stream."""

from __future__ import annotations

from typing import BinaryIO, Literal, NamedTuple

from orkestrel.contract import JSONInputError, infer_json

Layout = Literal["json", "jsonl"]

PEEK_BYTES = 1 << 20
"""How much of an input is read, at most, to tell JSON Lines from one JSON document."""

_BLANK = b" \t\r\n"
_CHUNK = 1 << 16
_STARTS = {bytes([byte]) for byte in b'{["-0123456789tfn'}


class Peek(NamedTuple):
    """What a peek at the head of an input found: the bytes read (to be read again first),
    the layout, and whether the layout is certain (the first line ended within the peek)."""

    head: bytes
    layout: Layout
    certain: bool


def peek(stream: BinaryIO, limit: int = PEEK_BYTES) -> Peek:
    """Reads at most `limit` bytes of `stream`, up to the end of its first non-blank line, and
    tells the layout from them: JSON Lines when that line is a whole JSON value by itself.

    A first line longer than `limit` is taken for one JSON document, uncertainly; a head that
    cannot begin any JSON value raises its `JSONInputError` at once, so an endless input of
    garbage (`/dev/zero`) is refused without being read to its end.
    """
    head = b""
    while len(head) < limit:
        chunk = stream.read(min(_CHUNK, limit - len(head)))
        if not chunk:
            return Peek(head, detect(head), True)
        head += chunk
        text = head.lstrip(b"\xef\xbb\xbf").lstrip(_BLANK)
        end = text.find(b"\n")
        if end >= 0:
            return Peek(head, detect(text[:end]), True)
    start = head.lstrip(b"\xef\xbb\xbf").lstrip(_BLANK)[:1]
    if start not in _STARTS:
        infer_json(head)  # raises the parser's own error, at the offending byte
    return Peek(head, "json", False)


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
