"""Pure leaves of the workspace layer: content narrowing, sizes, ranges and escaping."""

from __future__ import annotations

import sys
from typing import Any, TypeGuard

from orkestrel._core import locate
from orkestrel.workspace.constants import EXTENSION_LANGUAGES, MIME_SIGNATURES
from orkestrel.workspace.types import (
    BinaryContent,
    BinaryMIME,
    FileContent,
    Position,
    Range,
    TextContent,
    WorkspaceSnapshot,
)

_METACHARACTERS = frozenset("\\.+*?()|[]{}^$#&-~")


def infer_language(path: str) -> str:
    """Maps a path's final extension to a language tag, falling back to `text`."""
    dot = path.rfind(".")
    if dot == -1:
        return "text"
    return EXTENSION_LANGUAGES.get(path[dot + 1 :].lower(), "text")


def is_text(content: FileContent) -> TypeGuard[TextContent]:
    """Determines whether file content is text, narrowing it to `TextContent`."""
    return isinstance(content, TextContent)


def is_binary(content: FileContent) -> TypeGuard[BinaryContent]:
    """Determines whether file content is binary, narrowing it to `BinaryContent`."""
    return isinstance(content, BinaryContent)


def is_utf8(text: str) -> bool:
    """Determines whether text has a UTF-8 form, which a lone surrogate lacks."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def utf8_size(text: str) -> int:
    """Counts the UTF-8 bytes of `text`, a lone surrogate counting as the three bytes it takes."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def compute_size(content: FileContent) -> int:
    """Computes content's byte size: UTF-8 bytes for text, decoded bytes for binary."""
    if isinstance(content, TextContent):
        return utf8_size(content.text)
    return decoded_size(content.data)


def count_lines(content: FileContent) -> int:
    """Counts text lines (line breaks plus one); zero for empty text and for binary content."""
    if not isinstance(content, TextContent) or not content.text:
        return 0
    return content.text.count("\n") + 1


def decoded_size(base64: str) -> int:
    """Computes the decoded length of base64 text arithmetically, without decoding it."""
    padding = 2 if base64.endswith("==") else 1 if base64.endswith("=") else 0
    return max(0, len(base64) * 3 // 4 - padding)


def sniff_mime(data: bytes) -> BinaryMIME | None:
    """Identifies a supported image type from its leading bytes, or gives `None`."""
    for signature, mime in MIME_SIGNATURES:
        if data.startswith(signature):
            return mime
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def is_valid_range(range: Range) -> bool:
    """Determines whether both positions are at least one and the start does not pass the end."""
    start, end = range.start, range.end
    if min(start.line, start.column, end.line, end.column) < 1:
        return False
    return (start.line, start.column) <= (end.line, end.column)


def _locate(text: str, position: Position) -> tuple[int, int, int]:
    line = min(max(position.line, 1), sys.maxsize)
    column = min(max(position.column, 1), sys.maxsize)
    return locate(text, line, column)


def clamp_position(text: str, position: Position) -> Position:
    """Pulls a position inside the text: onto an existing line, and at most one column past that
    line's last code point.
    """
    line, column, _ = _locate(text, position)
    return Position(line, column)


def clamp_range(text: str, range: Range) -> Range:
    """Clamps both ends of a range into the text."""
    return Range(clamp_position(text, range.start), clamp_position(text, range.end))


def offset_at(text: str, position: Position) -> int:
    """Converts a position, clamped into the text, to a code-point offset that indexes `text`."""
    return _locate(text, position)[2]


def slice_range(text: str, range: Range) -> str:
    """Reads the clamped half-open span of a range."""
    return text[offset_at(text, range.start) : offset_at(text, range.end)]


def splice_range(text: str, range: Range, replacement: str) -> str:
    """Replaces the clamped half-open span of a range with `replacement`."""
    start = offset_at(text, range.start)
    end = max(start, offset_at(text, range.end))
    return text[:start] + replacement + text[end:]


def range_of(from_line: int, from_column: int, to_line: int, to_column: int) -> Range:
    """Builds a range from four flat coordinates, without validating it."""
    return Range(Position(from_line, from_column), Position(to_line, to_column))


def escape_reg_exp(value: str) -> str:
    """Escapes regex metacharacters so literal text can serve as pattern source."""
    return "".join(f"\\{char}" if char in _METACHARACTERS else char for char in value)


def snapshot_to_record(snapshot: WorkspaceSnapshot) -> dict[str, Any]:
    """Turns a snapshot into a plain JSON-ready record: `{id, files: [{path, content, state,
    size, lines}]}`, content as `{text, language}` or `{data, mime}`.
    """
    return {
        "id": snapshot.id,
        "files": [
            {
                "path": file.path,
                "content": (
                    {"text": file.content.text, "language": file.content.language}
                    if isinstance(file.content, TextContent)
                    else {"data": file.content.data, "mime": file.content.mime}
                ),
                "state": file.state,
                "size": file.size,
                "lines": file.lines,
            }
            for file in snapshot.files
        ],
    }
