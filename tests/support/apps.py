"""What the ask App tests share: the MCP Apps extension's name and media type as the extension
(SEP-1865) spells them, written out here rather than read from the package so that a wrong
constant there fails the tests, and the marks every such test carries."""

from __future__ import annotations

import pytest

from orkestrel.mcp.requirements import installed_major

APPS = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"

APP_MARKS = [
    pytest.mark.anyio,
    pytest.mark.skipif(installed_major() < 2, reason="extensions are declared on the 2.x line"),
]
