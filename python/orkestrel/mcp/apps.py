"""MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865): a served tool may carry an interactive
view, a `ui://` HTML resource its listing entry names in `_meta.ui.resourceUri`, and the view
may bring tools of its own (`visibility` `app`) that it calls through the host and the model
never does. Those are held by the view, not the served tool manager, so no agent or workflow
step of the server can call them either.

Only a client that negotiated the extension (its capabilities list the extension with the
`text/html;profile=mcp-app` media type) sees any of it: the `_meta.ui` entries, the view's
tools and the `ui://` resources. Every other client is served as if no tool had a view.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from orkestrel.mcp.constants import APP_MIME_TYPE, APPS_EXTENSION
from orkestrel.tool import ToolInterface, ToolManagerInterface


@dataclass(frozen=True)
class McpApp:
    """Represents a tool's view: its `ui://` resource's URI, title and HTML, and the tools only
    the view calls."""

    uri: str
    title: str
    html: str
    tools: tuple[ToolInterface, ...] = ()

    def __post_init__(self) -> None:
        if not self.uri.startswith("ui://"):
            raise ValueError(f"an MCP App's resource URI starts with ui://, got {self.uri!r}")


class AppTool:
    """Represents a tool served with an MCP App: the wrapped tool, unchanged, and its `app`."""

    def __init__(self, tool: ToolInterface, app: McpApp) -> None:
        self.tool = tool
        self.app = app

    @property
    def name(self) -> str:
        """The wrapped tool's name."""
        return self.tool.name

    @property
    def description(self) -> str | None:
        """The wrapped tool's description."""
        return self.tool.description

    @property
    def summary(self) -> str | None:
        """The wrapped tool's summary."""
        return self.tool.summary

    @property
    def parameters(self) -> dict[str, Any] | None:
        """The wrapped tool's parameter schema."""
        return self.tool.parameters

    @property
    def annotations(self) -> dict[str, Any] | None:
        """The wrapped tool's annotations."""
        return self.tool.annotations

    @property
    def returns(self) -> Any:
        """The wrapped tool's declared return type, if any."""
        return getattr(self.tool, "returns", None)

    @property
    def operations(self) -> Any:
        """The wrapped tool's operations, if any."""
        return getattr(self.tool, "operations", None)

    def execute(self, args: Mapping[str, Any], caller: Any = None) -> Awaitable[Any]:
        """Runs the wrapped tool."""
        return self.tool.execute(args) if caller is None else self.tool.execute(args, caller)


def supports_apps(session: Any) -> bool:
    """Whether the client of `session` negotiated MCP Apps: it declared the extension with the
    app media type among its `mimeTypes`."""
    capabilities = getattr(session, "client_capabilities", None)
    if capabilities is None:
        params = getattr(session, "client_params", None)
        capabilities = getattr(params, "capabilities", None)
    extensions = getattr(capabilities, "extensions", None)
    settings = extensions.get(APPS_EXTENSION) if isinstance(extensions, Mapping) else None
    types = settings.get("mimeTypes") if isinstance(settings, Mapping) else None
    return isinstance(types, list | tuple) and APP_MIME_TYPE in types


def app_of(tool: ToolInterface | None) -> McpApp | None:
    """The view `tool` is served with, or `None`."""
    app = getattr(tool, "app", None)
    return app if isinstance(app, McpApp) else None


def app_meta(app: McpApp, visibility: tuple[str, ...] = ("model", "app")) -> dict[str, Any]:
    """The `_meta` of a listed tool served with `app` (or, `visibility` `app`, of its view's
    own tool)."""
    return {"ui": {"resourceUri": app.uri, "visibility": list(visibility)}}


def view_tool(manager: ToolManagerInterface, name: str) -> ToolInterface | None:
    """The tool called `name` that a served tool's view brings, or `None`."""
    for app in served_apps(manager).values():
        for tool in app.tools:
            if tool.name == name:
                return tool
    return None


def served_apps(manager: ToolManagerInterface) -> dict[str, McpApp]:
    """The views of the tools `manager` serves, by resource URI."""
    return {app.uri: app for tool in manager.tools() if (app := app_of(tool)) is not None}


def app_resource(app: McpApp, icons: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The `resources/list` entry of `app`'s view, with the server's `icons` when it has any."""
    entry = {"uri": app.uri, "name": app.uri, "title": app.title, "mimeType": APP_MIME_TYPE}
    return {**entry, "icons": [dict(icon) for icon in icons]} if icons else entry


def app_contents(app: McpApp) -> dict[str, Any]:
    """The `resources/read` answer for `app`'s view: its HTML, which asks the host for no
    network, frame or other domain (`_meta.ui.csp` empty) and to draw a border round it."""
    content = {
        "uri": app.uri,
        "mimeType": APP_MIME_TYPE,
        "text": app.html,
        "_meta": {"ui": {"csp": {}, "prefersBorder": True}},
    }
    return {"contents": [content]}
