"""The check that the optional MCP SDK is installed in a usable version."""

from __future__ import annotations

from importlib import metadata

MINIMUM_SDK_MAJOR = 2
INSTALL_HINT = "pip install 'orkestrel[mcp]'"


def require_sdk() -> None:
    """Raises `ImportError` with an install hint unless the `mcp` SDK 2.x or later is importable.

    The 1.x line has a different server API (`FastMCP`, decorator handlers), so it is refused
    by version rather than failing later on a missing name.
    """
    try:
        import mcp  # noqa: F401
    except ImportError as error:
        raise ImportError(
            f"orkestrel.mcp needs the official MCP SDK (mcp>={MINIMUM_SDK_MAJOR}); "
            f"install it with: {INSTALL_HINT}",
            name="mcp",
        ) from error
    try:
        version = metadata.version("mcp")
    except metadata.PackageNotFoundError:
        return
    major = version.split(".", 1)[0]
    if not major.isdigit() or int(major) < MINIMUM_SDK_MAJOR:
        raise ImportError(
            f"orkestrel.mcp needs mcp>={MINIMUM_SDK_MAJOR}, found mcp {version}; "
            f"upgrade it with: {INSTALL_HINT}",
            name="mcp",
        )
