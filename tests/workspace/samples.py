"""Sample content shared by the workspace tests: a real PNG, and a tree snapshot helper."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(width: int = 2, height: int = 2) -> bytes:
    """A valid RGB PNG of the given size, every pixel red."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows))
        + _chunk(b"IEND", b"")
    )


def tree(root: Path) -> dict[str, tuple[str, bytes | str]]:
    """Everything under `root`, symlinks not followed: each relative path mapped to its kind and
    its bytes (files) or link target (symlinks). Folders appear with empty content.
    """
    found: dict[str, tuple[str, bytes | str]] = {}
    for folder, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[relative] = ("link", os.readlink(path))
            elif path.is_dir():
                found[relative] = ("dir", b"")
            elif path.is_file():
                found[relative] = ("file", path.read_bytes())
            else:
                found[relative] = ("other", b"")
    return found
