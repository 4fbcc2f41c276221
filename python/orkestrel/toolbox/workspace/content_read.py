"""The in-process caller whose workspace `read` answers an image's content."""

from __future__ import annotations


class ContentRead:
    """Represents a caller of the workspace tool inside the process (the MCP server reading a
    resource): its `read` of an image answers `{"mime", "data"}` (base64) where a model's
    answers nothing. A model cannot be this caller: it sends JSON arguments only."""
