"""Inputs genson's command line reads: JSON values one after another with no delimiter
(`{"a":1}{"a":2}`), and text in another encoding than UTF-8."""

from __future__ import annotations

import codecs

from orkestrel._core import SchemaBuilder

TYPE_CHECKING = False  # `typing` stays unimported at run time: it is start-up time for `infer`
if TYPE_CHECKING:
    from orkestrel.cli.helpers import Reader

TRAILING = "trailing"
"""The error code of a JSON document followed by more content: where concatenated values meet."""

_WINDOW = 1 << 12


def add_values(builder: SchemaBuilder, document: bytes) -> None:
    """Adds each JSON value of `document` as a sample, the values following one another with
    or without whitespace between them; a bad value raises its `JSONInputError` with the line
    and column in the whole document.

    Each value is parsed from a window of the text that grows until the value ends inside it,
    so a long run of small values costs time linear in its length.
    """
    start, window = 0, _WINDOW
    while start < len(document):
        end = min(len(document), start + window)
        part = document[start:end]
        try:
            builder.add_json(part)
        except ValueError as error:
            if getattr(error, "code", None) == TRAILING:
                size = _offset(part, getattr(error, "line", 1), getattr(error, "column", 1))
                builder.add_json(part[:size])
                start += size
                window = max(_WINDOW, 2 * size)
                continue
            if end < len(document):
                window *= 2  # the value may go on past the window
                continue
            raise _moved(error, document, start) from None
        if end == len(document):
            return
        # The window may end inside the value (`12` of `123`): parse it again from a wider one.
        window *= 2


def _offset(part: bytes, line: int, column: int) -> int:
    """The byte offset of a 1-based line and byte column in `part`."""
    at = 0
    for _ in range(line - 1):
        at = part.index(b"\n", at) + 1
    return at + column - 1


def _moved(error: ValueError, document: bytes, start: int) -> ValueError:
    """`error`, raised for `document[start:]`, placed in the whole document."""
    # Deferred: the error class loads only when something fails.
    from orkestrel.contract import JSONInputError

    if not isinstance(error, JSONInputError):
        return error
    lines = document.count(b"\n", 0, start)
    column = error.column
    if error.line == 1:
        column += start - (document.rfind(b"\n", 0, start) + 1)
    return JSONInputError(
        line=lines + error.line, column=column, reason=error.reason, code=error.code
    )


def check_encoding(name: str) -> str | None:
    """The canonical name of a text encoding Python knows; `None` for an unknown one."""
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


class Transcoded:
    """A binary stream that reads `stream` as text in `encoding` and yields it as UTF-8."""

    def __init__(self, stream: Reader, encoding: str) -> None:
        self.stream = stream
        self.decoder = codecs.getincrementaldecoder(encoding)()
        self.pending = b""
        self.ended = False

    def read(self, size: int = -1) -> bytes:
        """Reads up to `size` bytes of UTF-8 (all when negative); `b""` at the end."""
        if size < 0:
            rest = self.decoder.decode(self.stream.read(), final=True).encode("utf-8")
            data, self.pending, self.ended = self.pending + rest, b"", True
            return data
        while not self.pending and not self.ended:
            chunk = self.stream.read(max(size, _WINDOW))
            self.ended = not chunk
            self.pending = self.decoder.decode(chunk, final=self.ended).encode("utf-8")
        data, self.pending = self.pending[:size], self.pending[size:]
        return data
