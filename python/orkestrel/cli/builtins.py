"""The tool factories `orkestrel serve` and `orkestrel tools` build by default."""

from __future__ import annotations

from orkestrel.cli.toolbox import ToolFactory


def builtin_factories() -> dict[str, ToolFactory]:
    """Lists the built-in tool factories by name, in the order the toolbox lists them."""
    return {}
