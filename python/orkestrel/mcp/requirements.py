"""The check that the optional MCP SDK is installed in a usable version."""

from __future__ import annotations

from importlib import metadata

MINIMUM_SDK = (1, 30)
"""The oldest MCP SDK release the bridge runs on: the last of the 1.x line, and every 2.x."""

INSTALL_HINT = "pip install 'orkestrel[mcp]'"


def _parse(version: str) -> tuple[int, int] | None:
    parts = version.split(".")
    if len(parts) < 2 or not parts[0].isdigit():
        return None
    minor = "".join(ch for ch in parts[1] if ch.isdigit()) or "0"
    return int(parts[0]), int(minor)


def installed_major() -> int:
    """The major version of the installed MCP SDK; 2 when its metadata cannot be read."""
    try:
        parsed = _parse(metadata.version("mcp"))
    except metadata.PackageNotFoundError:
        return 2
    return 2 if parsed is None else parsed[0]


def require_sdk() -> None:
    """Raises `ImportError` with an install hint unless the `mcp` SDK is importable in a
    supported version (1.30 or later on the 1.x line, or 2.x).

    Releases before 1.30 lack the session bound the HTTP transport relies on,
    so they are refused by version rather than failing later on a missing name.
    """
    wanted = ".".join(str(part) for part in MINIMUM_SDK)
    try:
        # Deferred: the MCP SDK is an optional dependency; this checks for it.
        import mcp  # noqa: F401
    except ImportError as error:
        raise ImportError(
            f"orkestrel.mcp needs the official MCP SDK (mcp>={wanted}); "
            f"install it with: {INSTALL_HINT}",
            name="mcp",
        ) from error
    try:
        version = metadata.version("mcp")
    except metadata.PackageNotFoundError:
        return
    parsed = _parse(version)
    if parsed is None or parsed < MINIMUM_SDK:
        raise ImportError(
            f"orkestrel.mcp needs mcp>={wanted}, found mcp {version}; "
            f"upgrade it with: {INSTALL_HINT}",
            name="mcp",
        )
