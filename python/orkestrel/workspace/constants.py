"""Fixed tables of the workspace layer."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from orkestrel.workspace.types import BinaryMIME

EXTENSION_LANGUAGES: Mapping[str, str] = MappingProxyType(
    {
        "ts": "typescript",
        "tsx": "typescript",
        "js": "javascript",
        "jsx": "javascript",
        "mjs": "javascript",
        "cjs": "javascript",
        "json": "json",
        "md": "markdown",
        "html": "html",
        "htm": "html",
        "css": "css",
        "scss": "scss",
        "sass": "sass",
        "less": "less",
        "vue": "vue",
        "svelte": "svelte",
        "py": "python",
        "pyi": "python",
        "rb": "ruby",
        "rs": "rust",
        "go": "go",
        "java": "java",
        "kt": "kotlin",
        "swift": "swift",
        "c": "c",
        "cpp": "cpp",
        "h": "c",
        "hpp": "cpp",
        "cs": "csharp",
        "php": "php",
        "sql": "sql",
        "sh": "bash",
        "bash": "bash",
        "zsh": "bash",
        "ps1": "powershell",
        "yaml": "yaml",
        "yml": "yaml",
        "toml": "toml",
        "xml": "xml",
        "svg": "xml",
        "txt": "text",
    }
)
"""Maps a lower-case file extension to the language tag of text content; others give `text`."""

MIME_SIGNATURES: tuple[tuple[bytes, BinaryMIME], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
"""Leading bytes that identify each binary MIME type (WebP is checked separately: RIFF....WEBP)."""

DIRECTORY_FILE_LIMIT = 8 * 1024 * 1024
"""The largest file, in bytes, a directory store reads or writes unless told otherwise."""

DIRECTORY_IGNORE: frozenset[str] = frozenset({".git", ".hg", ".svn"})
"""Names a directory store never reads, writes or deletes, at any depth, unless told otherwise."""

TEMPORARY_SUFFIX = ".orkestrel-tmp"
"""Ends the name of the temporary file an atomic write renames into place."""
