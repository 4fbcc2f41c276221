"""The file values: an immutable `File` and the two arms of its content.

Below `Workspace`, the stores and the factories, which all build files.
"""

from __future__ import annotations

from orkestrel.workspace.helpers import compute_size, count_lines
from orkestrel.workspace.types import (
    BinaryContent,
    BinaryMIME,
    File,
    FileContent,
    FileState,
    TextContent,
)


def create_file(path: str, content: FileContent, state: FileState = "created") -> File:
    """Builds an immutable file value, deriving its byte size and line count from the content."""
    return File(path, content, state, compute_size(content), count_lines(content))


def create_text_content(text: str, language: str) -> TextContent:
    """Builds the text arm of file content from the text and its language tag."""
    return TextContent(text, language)


def create_binary_content(data: str, mime: BinaryMIME) -> BinaryContent:
    """Builds the binary arm of file content from base64 text and an image MIME type."""
    return BinaryContent(data, mime)
